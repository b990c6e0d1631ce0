//! Transfer statistics and tracing (beyond Kokkos).
//!
//! Every sync that moves data is counted per DualView family and in a
//! process-wide total: how many, how many bytes, how long. With `DV_TRACE=1`
//! in the environment each one is also logged to stderr.

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
    /// Host to device syncs.
    pub to_device: Transfers,
    /// Device to host syncs.
    pub to_host: Transfers,
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

/// `host->device: 1 sync, 100 B in 2.5 us (0.04 GB/s); device->host: none`.
///
/// ```
/// let s = dualview::Stats::default();
/// assert_eq!(s.to_string(), "host->device: none; device->host: none");
/// ```
impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "host->device: {}; device->host: {}", self.to_device, self.to_host)
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

/// Counters of one DualView family (or of the process).
#[derive(Debug, Default)]
pub(crate) struct StatsCell {
    to_device: Counters,
    to_host: Counters,
}

static GLOBAL: StatsCell = StatsCell {
    to_device: Counters { count: AtomicU64::new(0), bytes: AtomicU64::new(0), nanos: AtomicU64::new(0) },
    to_host: Counters { count: AtomicU64::new(0), bytes: AtomicU64::new(0), nanos: AtomicU64::new(0) },
};

impl StatsCell {
    /// Record one transfer into `target`, here and in the global total, and trace it.
    pub(crate) fn record(&self, label: &str, target: Side, bytes: usize, elapsed: Duration) {
        let nanos = elapsed.as_nanos().min(u64::MAX as u128) as u64;
        for cell in [self, &GLOBAL] {
            match target {
                Side::Device => cell.to_device.add(bytes as u64, nanos),
                Side::Host => cell.to_host.add(bytes as u64, nanos),
            }
        }
        if trace_enabled() {
            let dir = match target {
                Side::Device => "host->device",
                Side::Host => "device->host",
            };
            trace(format_args!("sync \"{label}\" {dir} {bytes} B in {:.3} us", nanos as f64 / 1e3));
        }
    }

    pub(crate) fn get(&self) -> Stats {
        Stats { to_device: self.to_device.get(), to_host: self.to_host.get() }
    }

    /// Add `s` to these counters (not to the process-wide total, which
    /// counted those transfers already).
    pub(crate) fn add(&self, s: Stats) {
        self.to_device.add_from(s.to_device);
        self.to_host.add_from(s.to_host);
    }

    pub(crate) fn reset(&self) {
        self.to_device.reset();
        self.to_host.reset();
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
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
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
        let file = std::env::var("DV_TRACE_FILE").ok().filter(|p| !p.is_empty()).and_then(|p| {
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
    *TRACE.get_or_init(|| std::env::var("DV_TRACE").is_ok_and(|v| v == "1"))
}
