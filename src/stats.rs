//! Transfer statistics and tracing (beyond Kokkos).
//!
//! Every call that moves data is counted per DualView family and in a
//! process-wide total: how many, how many bytes, how long, by kind (issue 30,
//! item 7). With `DV_TRACE=1` in the environment each one is also logged.
//!
//! | kind ([`Moved`]) | counted in | `DV_TRACE` line |
//! | --- | --- | --- |
//! | a sync, whole or through a subview (also a sync an access makes) | `to_device` / `to_host` | `sync "A" host->device N B in T us` |
//! | `push_host` / `push_device` | `to_device` / `to_host` | `push_host "A" host->device N B in T us` |
//! | the copies of a resize (each side in its own space; none when a block grows in place) | `resize` | `resize "A" copied N B (both sides, each in its own space) in T us` |
//! | a deep copy or view copy into the DualView | `copies` | `deep_copy "A" <- "B" N B in T us` |
//! | a fill of a side (`fill`, `view_fill`) | `fills` | `fill "A" device N B in T us` |

use crate::side::Side;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// A snapshot of transfer counters.
///
/// ```
/// use dualview::{DualView, Dims, Space};
/// let a = DualView::<u8, Dims<1>>::builder("s", Dims::new([100]).unwrap())
///     .device(Space::test_device(0)).build().unwrap();
/// a.modify_host().unwrap();
/// a.sync_device().unwrap();
/// let s = a.stats();
/// assert_eq!((s.to_device.count, s.to_device.bytes), (1, 100));
/// assert_eq!(s.to_host.count, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Host to device syncs (and `push_host`).
    pub to_device: Transfers,
    /// Device to host syncs (and `push_device`).
    pub to_host: Transfers,
    /// The copies of resizes (bytes of both sides, each copied in its own space).
    pub resize: Transfers,
    /// Deep copies and view copies into this DualView.
    pub copies: Transfers,
    /// Fills of a side.
    pub fills: Transfers,
}

/// What moved data, for [`Stats`], `DV_TRACE` and the transfer report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moved {
    /// A sync into this side.
    Sync(Side),
    /// `push` from the other side into this one.
    Push(Side),
    /// The copies of a resize.
    Resize,
    /// A deep copy or view copy into the DualView, from the DualView labelled so.
    Copy,
    /// A fill of this side.
    Fill(Side),
}

/// Counters for one direction.
///
/// ```
/// # use dualview::stats::Transfers;
/// assert_eq!(Transfers::default().count, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Number of syncs that copied data.
    pub count: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// Time spent in the copies, in nanoseconds (for async syncs: time to enqueue).
    pub nanos: u64,
}

/// `host->device: 1 sync, 100 B in 2.5 us (0.04 GB/s); device->host: none`,
/// then resize copies, deep copies and fills where there were any.
///
/// ```
/// let s = dualview::Stats::default();
/// assert_eq!(s.to_string(), "host->device: none; device->host: none");
/// ```
impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "host->device: {}; device->host: {}", self.to_device, self.to_host)?;
        for (what, t) in [("resize copies", self.resize), ("deep copies", self.copies), ("fills", self.fills)] {
            if t.count > 0 {
                write!(f, "; {what}: {} B in {} call(s)", t.bytes, t.count)?;
            }
        }
        Ok(())
    }
}

/// `3 syncs, 2400 B in 1.2 us (2.00 GB/s)`, or `none`.
///
/// ```
/// let t = dualview::stats::Transfers { count: 2, bytes: 4000, nanos: 2000 };
/// assert_eq!(t.to_string(), "2 syncs, 4000 B in 2.0 us (2.00 GB/s)");
/// ```
impl std::fmt::Display for Transfers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            return f.write_str("none");
        }
        let plural = if self.count == 1 { "sync" } else { "syncs" };
        write!(f, "{} {plural}, {} B in {:.1} us", self.count, self.bytes, self.nanos as f64 / 1e3)?;
        if self.nanos > 0 {
            write!(f, " ({:.2} GB/s)", self.bytes as f64 / self.nanos as f64)?;
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
struct Counters {
    count: AtomicU64,
    bytes: AtomicU64,
    nanos: AtomicU64,
}

impl Counters {
    fn add(&self, bytes: u64, nanos: u64) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
    }
    fn get(&self) -> Transfers {
        Transfers {
            count: self.count.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            nanos: self.nanos.load(Ordering::Relaxed),
        }
    }
    fn add_from(&self, t: Transfers) {
        self.count.fetch_add(t.count, Ordering::Relaxed);
        self.bytes.fetch_add(t.bytes, Ordering::Relaxed);
        self.nanos.fetch_add(t.nanos, Ordering::Relaxed);
    }
    fn reset(&self) {
        self.count.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
        self.nanos.store(0, Ordering::Relaxed);
    }
}

/// Counters of one DualView family (or of the process), in [`Stats`]' order.
#[derive(Debug, Default)]
pub(crate) struct StatsCell([Counters; 5]);

static GLOBAL: StatsCell = StatsCell([const { Counters { count: AtomicU64::new(0), bytes: AtomicU64::new(0), nanos: AtomicU64::new(0) } }; 5]);

impl Moved {
    /// The counters of this kind, in [`StatsCell`].
    fn slot(self) -> usize {
        match self {
            Moved::Sync(Side::Device) | Moved::Push(Side::Device) => 0,
            Moved::Sync(Side::Host) | Moved::Push(Side::Host) => 1,
            Moved::Resize => 2,
            Moved::Copy => 3,
            Moved::Fill(_) => 4,
        }
    }
}

impl StatsCell {
    /// Record one call that moved `bytes` (of DualView `label`; `from`: the
    /// source of a copy), here and in the global total, and trace it.
    pub(crate) fn record(&self, label: &str, moved: Moved, bytes: usize, elapsed: Duration, from: &str) {
        let nanos = elapsed.as_nanos().min(u64::MAX as u128) as u64;
        for cell in [self, &GLOBAL] {
            cell.0[moved.slot()].add(bytes as u64, nanos);
        }
        if trace_enabled() {
            let us = nanos as f64 / 1e3;
            let dir = |s: Side| if s == Side::Device { "host->device" } else { "device->host" };
            match moved {
                Moved::Sync(t) => trace(format_args!("sync \"{label}\" {} {bytes} B in {us:.3} us", dir(t))),
                Moved::Push(t) => trace(format_args!("push_{} \"{label}\" {} {bytes} B in {us:.3} us", t.other(), dir(t))),
                Moved::Resize => {
                    trace(format_args!("resize \"{label}\" copied {bytes} B (both sides, each in its own space) in {us:.3} us"))
                }
                Moved::Copy => trace(format_args!("deep_copy \"{label}\" <- \"{from}\" {bytes} B in {us:.3} us")),
                Moved::Fill(s) => trace(format_args!("fill \"{label}\" {s} {bytes} B in {us:.3} us")),
            }
        }
    }

    pub(crate) fn get(&self) -> Stats {
        let c = &self.0;
        Stats { to_device: c[0].get(), to_host: c[1].get(), resize: c[2].get(), copies: c[3].get(), fills: c[4].get() }
    }

    /// Add `s` to these counters (not to the process-wide total, which
    /// counted those transfers already).
    pub(crate) fn add(&self, s: Stats) {
        for (c, t) in self.0.iter().zip([s.to_device, s.to_host, s.resize, s.copies, s.fills]) {
            c.add_from(t);
        }
    }

    pub(crate) fn reset(&self) {
        self.0.iter().for_each(Counters::reset);
    }
}

/// Process-wide transfer counters of every DualView.
///
/// ```
/// let before = dualview::stats::global();
/// assert!(dualview::stats::global().to_device.count >= before.to_device.count);
/// ```
pub fn global() -> Stats {
    GLOBAL.get()
}

/// Zero the process-wide counters.
///
/// ```
/// dualview::stats::reset_global();
/// ```
pub fn reset_global() {
    GLOBAL.reset();
}

/// The MPI rank the launcher gave this process, if any: Open MPI's,
/// PMIx's, PMI's (MPICH), MVAPICH's or Slurm's variable (no MPI library needed).
///
/// ```
/// let _rank: Option<u32> = dualview::stats::rank();
/// ```
pub fn rank() -> Option<u32> {
    ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"]
        .iter()
        .find_map(|k| crate::env::value(k)?.trim().parse().ok())
}

/// Write one `DV_TRACE` line: `dualview[rank R]: ...` under an MPI launcher,
/// `dualview[pid P]: ...` otherwise, as one whole write, to stderr, or with
/// `DV_TRACE_FILE=<prefix>` to `<prefix>.<rank or pid>.log` (DECISIONS T5).
///
/// ```
/// dualview::stats::trace(format_args!("a line of {} words", 5));
/// ```
pub fn trace(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    static SINK: OnceLock<(String, Option<std::sync::Mutex<std::fs::File>>)> = OnceLock::new();
    let (who, file) = SINK.get_or_init(|| {
        let (who, tag) = match rank() {
            Some(r) => (format!("rank {r}"), r.to_string()),
            None => (format!("pid {}", std::process::id()), std::process::id().to_string()),
        };
        let file = crate::env::value("DV_TRACE_FILE").and_then(|p| {
            let path = format!("{p}.{tag}.log");
            match std::fs::OpenOptions::new().create(true).append(true).open(&path) {
                Ok(f) => Some(std::sync::Mutex::new(f)),
                Err(e) => {
                    let _ = std::io::stderr().write_all(format!("dualview[{who}]: DV_TRACE_FILE: cannot open {path}: {e}; tracing to stderr\n").as_bytes());
                    None
                }
            }
        });
        (who, file)
    });
    let text = format!("dualview[{who}]: {line}\n");
    // One write of the whole line: lines of several ranks or threads never interleave.
    let _ = match file {
        Some(f) => f.lock().unwrap_or_else(|e| e.into_inner()).write_all(text.as_bytes()),
        None => std::io::stderr().lock().write_all(text.as_bytes()),
    };
}

/// Whether `DV_TRACE=1` was set when the first sync happened.
///
/// ```
/// let _on: bool = dualview::stats::trace_enabled();
/// ```
pub fn trace_enabled() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| crate::env::switch("DV_TRACE"))
}
