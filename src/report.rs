//! The transfer report (issue 23): which DualViews moved the most, by time.
//! Off unless `DV_REPORT` is set (a copy then costs one lock more):
//!
//! | `DV_REPORT` | at exit |
//! | --- | --- |
//! | unset, empty or `0` | nothing |
//! | `1` | the table on stderr, the rank in its header under MPI |
//! | anything else, a prefix | `<prefix>.<rank>.txt` (the table) and `<prefix>.<rank>.csv` (one row per DualView, for `scripts/bench-plot.py --report`) |
//!
//! A row per label (every DualView of that label, alive or gone): syncs and
//! bytes each way (`push_*` included), the time the host spent in them (for
//! a copy queued on a stream, its enqueue; a blocking call that then waits
//! for it is not counted), the effective rate against the raw rate of the
//! same spaces, the largest single copy, resizes, and apart from the syncs
//! the bytes that resizes copied, deep copies into it and fills (the CSV
//! has a row each: directions `resize`, `deep_copy`, `fill`). The CSV's rank column is empty without
//! an MPI launcher (the files then carry rank 0). The raw rate is
//! measured when the report is made (a 64 MiB copy each way between the
//! device and host memory the driver copies at full speed: pinned for CUDA),
//! so the program's own transfers are never disturbed (DECISIONS T4). The
//! rank is read from the launcher's environment (Open MPI, MPICH / PMI, PMIx,
//! Slurm, MVAPICH), so no MPI library is needed.

use crate::side::Side;
use crate::space::{Space, SpaceKind};
use crate::stats::Moved;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, Once, OnceLock};
use std::time::Instant;

/// One direction's totals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Direction {
    /// Syncs that copied.
    pub count: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Nanoseconds the host spent in them (for a copy queued on a stream: its enqueue).
    pub nanos: u64,
    /// The largest of them, in bytes.
    pub largest: u64,
}

/// One label's row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The DualViews' label.
    pub label: String,
    /// Their device space (the first seen), whose raw rate the row is compared with.
    pub device: Option<Space>,
    /// Copies into the device.
    pub to_device: Direction,
    /// Copies into the host.
    pub to_host: Direction,
    /// Resizes and reallocations.
    pub resizes: u64,
    /// The copies resizes made (both sides, each in its own space).
    pub resize_copies: Direction,
    /// Deep copies and view copies into these DualViews.
    pub deep_copies: Direction,
    /// Fills of a side.
    pub fills: Direction,
}

static ROWS: Mutex<BTreeMap<String, Row>> = Mutex::new(BTreeMap::new());

/// What `DV_REPORT` asks for: `None` (off), `Some(None)` (stderr), `Some(Some(prefix))`.
fn setting() -> &'static Option<Option<String>> {
    static SETTING: OnceLock<Option<Option<String>>> = OnceLock::new();
    SETTING.get_or_init(|| match crate::env::value("DV_REPORT") {
        Some(v) if v == "0" => None,
        Some(v) if v == "1" => Some(None),
        Some(v) => Some(Some(v)),
        None => None,
    })
}

/// Recording was started by a call ([`start`]), without `DV_REPORT`.
static STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether transfers are being recorded: `DV_REPORT` asks for a report (read
/// once), or [`start`] was called.
///
/// ```
/// let _on: bool = dualview::report::enabled();
/// ```
pub fn enabled() -> bool {
    setting().is_some() || STARTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Record transfers from now on without `DV_REPORT` (then nothing is written
/// at exit: call [`write()`] or [`text`]).
///
/// ```
/// dualview::report::start();
/// assert!(dualview::report::enabled());
/// ```
pub fn start() {
    STARTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn table() -> std::sync::MutexGuard<'static, BTreeMap<String, Row>> {
    ROWS.lock().unwrap_or_else(|e| e.into_inner())
}

fn row<'a>(m: &'a mut BTreeMap<String, Row>, label: &str, device: Space) -> &'a mut Row {
    let r = m.entry(label.to_owned()).or_insert_with(|| Row { label: label.to_owned(), ..Row::default() });
    r.device.get_or_insert(device);
    r
}

/// Count one call of `label` (device space `device`) that moved `bytes`.
pub(crate) fn record(label: &str, device: Space, moved: Moved, bytes: usize, nanos: u64) {
    if !enabled() {
        return;
    }
    arm_at_exit();
    let mut m = table();
    let r = row(&mut m, label, device);
    let d = match moved {
        Moved::Sync(Side::Device) | Moved::Push(Side::Device) => &mut r.to_device,
        Moved::Sync(Side::Host) | Moved::Push(Side::Host) => &mut r.to_host,
        Moved::Resize => &mut r.resize_copies,
        Moved::Copy => &mut r.deep_copies,
        Moved::Fill(_) => &mut r.fills,
    };
    d.count += 1;
    d.bytes += bytes as u64;
    d.nanos += nanos;
    d.largest = d.largest.max(bytes as u64);
}

/// Count one resize or reallocation of `label`.
pub(crate) fn record_resize(label: &str, device: Space) {
    if !enabled() {
        return;
    }
    arm_at_exit();
    row(&mut table(), label, device).resizes += 1;
}

/// The rows so far, most time first.
///
/// ```
/// // Without DV_REPORT nothing is recorded.
/// if !dualview::report::enabled() {
///     assert!(dualview::report::rows().is_empty());
/// }
/// ```
pub fn rows() -> Vec<Row> {
    let mut v: Vec<Row> = table().values().cloned().collect();
    v.sort_by_key(|r| std::cmp::Reverse(r.to_device.nanos + r.to_host.nanos));
    v
}

/// Forget every row (tests, or a report per phase).
///
/// ```
/// dualview::report::reset();
/// ```
pub fn reset() {
    table().clear();
}

/// The MPI rank the launcher gave this process, if any ([`crate::stats::rank`]).
pub use crate::stats::rank;

/// Raw rates (GB/s: to the device, to the host) between `device` and the
/// host memory the driver copies at full speed, measured now (best of 3
/// copies of 64 MiB each way); `None` where that cannot be measured.
fn raw_rates(device: Space) -> Option<(f64, f64)> {
    use crate::view::View;
    use crate::{DynRank, ElemSpec, Layout, Mapping};
    if device.kind() == SpaceKind::Host || device.is_unified() {
        return None;
    }
    let host = Some(device.pinned_host()).filter(|h| h.probe().is_ok()).unwrap_or(Space::HOST);
    let m = Mapping::new(Layout::Right, DynRank::new(&[64 << 20]).ok()?).ok()?;
    let h = View::new("dualview_report_raw_host", ElemSpec::of::<u8>(), m, host, true).ok()?;
    let d = View::new("dualview_report_raw_device", ElemSpec::of::<u8>(), m, device, true).ok()?;
    let best = |dst: &View, src: &View| -> Option<f64> {
        let mut t = f64::MAX;
        for _ in 0..3 {
            let t0 = Instant::now();
            dst.copy_from_unshared(src).ok()?; // two fresh views only this function holds
            t = t.min(t0.elapsed().as_secs_f64());
        }
        Some((64 << 20) as f64 / t / 1e9)
    };
    Some((best(&d, &h)?, best(&h, &d)?))
}

fn gbs(d: &Direction) -> f64 {
    if d.nanos == 0 { 0.0 } else { d.bytes as f64 / d.nanos as f64 }
}

fn human(b: u64) -> String {
    crate::tools::nvtx::bytes(b as usize)
}

/// The report as a text table: a header (rank, rows), then one line per label, most time first.
///
/// ```
/// let t = dualview::report::text();
/// assert!(t.starts_with("dualview transfer report"));
/// ```
pub fn text() -> String {
    let rows = rows();
    let mut raw: BTreeMap<String, Option<(f64, f64)>> = BTreeMap::new();
    for r in &rows {
        if let Some(d) = r.device {
            raw.entry(d.to_string()).or_insert_with(|| raw_rates(d));
        }
    }
    let mut out = String::new();
    let who = rank().map_or(String::from("(no MPI rank)"), |r| format!("rank {r}"));
    let _ = writeln!(out, "dualview transfer report, {who}, process {}: {} DualView label(s), most time first", std::process::id(), rows.len());
    let _ = writeln!(
        out,
        "{:<24} {:>6} {:>10} {:>10} {:>9} {:>6} {:>10} {:>10} {:>9} {:>10} {:>7} {:>16} {:>16} {:>16} {:<24}",
        "label",
        "to dev",
        "bytes",
        "ms",
        "GB/s",
        "to host",
        "bytes",
        "ms",
        "GB/s",
        "largest",
        "resizes",
        "resize copies",
        "deep copies",
        "fills",
        "raw GB/s (to dev, to host)"
    );
    let calls = |d: &Direction| if d.count == 0 { String::from("-") } else { format!("{} {}", d.count, human(d.bytes)) };
    for r in &rows {
        let rate = r.device.and_then(|d| raw.get(&d.to_string()).copied().flatten());
        let _ = writeln!(
            out,
            "{:<24} {:>6} {:>10} {:>10.3} {:>9.1} {:>6} {:>10} {:>10.3} {:>9.1} {:>10} {:>7} {:>16} {:>16} {:>16} {:<24}",
            format!("\"{}\"", r.label),
            r.to_device.count,
            human(r.to_device.bytes),
            r.to_device.nanos as f64 / 1e6,
            gbs(&r.to_device),
            r.to_host.count,
            human(r.to_host.bytes),
            r.to_host.nanos as f64 / 1e6,
            gbs(&r.to_host),
            human(r.to_device.largest.max(r.to_host.largest)),
            r.resizes,
            calls(&r.resize_copies),
            calls(&r.deep_copies),
            calls(&r.fills),
            rate.map_or(String::from("-"), |(d, h)| format!("{d:.1}, {h:.1} ({})", r.device.map(|d| d.to_string()).unwrap_or_default())),
        );
    }
    let p = crate::memory::pool_stats();
    if p.kept > 0 {
        let _ = writeln!(
            out,
            "pool of registered host blocks (cap {}, DV_POOL_BYTES): held {} in {} block(s); kept {} ({}), reused {} ({}), released {} ({})",
            human(p.cap_bytes as u64),
            human(p.held_bytes as u64),
            p.held_blocks,
            p.kept,
            human(p.kept_bytes),
            p.reused,
            human(p.reused_bytes),
            p.released,
            human(p.released_bytes)
        );
    }
    out
}

/// The report as CSV: `rank,label,device,direction,count,bytes,seconds,largest,resizes`, a row
/// per label and direction (`to_device`, `to_host`; then `resize`, `deep_copy`
/// and `fill` where there were any) for `scripts/report-plot.py`.
///
/// ```
/// assert!(dualview::report::csv().starts_with("rank,label,"));
/// ```
pub fn csv() -> String {
    let mut out = String::from("rank,label,device,direction,count,bytes,seconds,largest,resizes\n");
    let rank = rank().map_or(String::new(), |r| r.to_string());
    for r in rows() {
        let others = [("resize", r.resize_copies), ("deep_copy", r.deep_copies), ("fill", r.fills)];
        for (dir, d) in [("to_device", r.to_device), ("to_host", r.to_host)].into_iter().chain(others.into_iter().filter(|(_, d)| d.count > 0)) {
            let _ = writeln!(
                out,
                "{rank},\"{}\",{},{dir},{},{},{:.9},{},{}",
                r.label.replace('"', "\"\""),
                r.device.map(|d| d.to_string()).unwrap_or_default(),
                d.count,
                d.bytes,
                d.nanos as f64 / 1e9,
                d.largest,
                r.resizes
            );
        }
    }
    out
}

/// Write the report as `DV_REPORT` says, or to `prefix` when given:
/// `<prefix>.<rank>.txt` and `.csv` (rank 0 without MPI); `None` and no
/// prefix setting: the table on stderr.
///
/// ```
/// let prefix = std::env::temp_dir().join(format!("dv-report-doc-{}", std::process::id()));
/// let prefix = prefix.to_str().unwrap();
/// dualview::report::write(Some(prefix)).unwrap();
/// let rank = dualview::report::rank().unwrap_or(0);
/// assert!(std::fs::read_to_string(format!("{prefix}.{rank}.csv")).unwrap().starts_with("rank,label,"));
/// ```
pub fn write(prefix: Option<&str>) -> std::io::Result<()> {
    let prefix = prefix.map(str::to_owned).or_else(|| setting().clone().flatten());
    match prefix {
        None => {
            eprint!("{}", text());
            Ok(())
        }
        Some(p) => {
            let rank = rank().unwrap_or(0);
            std::fs::write(format!("{p}.{rank}.txt"), text())?;
            std::fs::write(format!("{p}.{rank}.csv"), csv())
        }
    }
}

/// Write the report at process exit, once something was recorded.
fn arm_at_exit() {
    if setting().is_none() {
        return; // started by a call: the caller writes it
    }
    static ARM: Once = Once::new();
    ARM.call_once(|| {
        extern "C" fn at_exit() {
            // Never unwind out of an atexit handler.
            let _ = std::panic::catch_unwind(|| {
                if let Err(e) = write(None) {
                    eprintln!("dualview: DV_REPORT: cannot write the report: {e}");
                }
            });
        }
        crate::tools::at_exit(at_exit);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_and_the_table_hold_one_line_per_label_and_direction() {
        // Rows are recorded only under DV_REPORT; fill them directly here.
        reset();
        {
            let mut m = table();
            let r = row(&mut m, "unit \"x\"", Space::test_device(3));
            r.to_device = Direction { count: 2, bytes: 2000, nanos: 1000, largest: 1500 };
            r.resizes = 1;
            row(&mut m, "unit y", Space::test_device(3)).to_host = Direction { count: 1, bytes: 10, nanos: 5000, largest: 10 };
        }
        let csv = csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 2 * 2, "{csv}");
        assert!(lines[1].contains("\"unit y\""), "most time first: {csv}");
        assert!(csv.contains(",\"unit \"\"x\"\"\",TestDeviceSpace(3),to_device,2,2000,0.000001000,1500,1"), "{csv}");
        let t = text();
        assert!(t.contains("2 DualView label(s)") && t.contains("\"unit y\""), "{t}");
        assert!(t.find("\"unit y\"").unwrap() < t.find("\"unit \"x\"\"").unwrap(), "{t}");
        reset();
    }
}
