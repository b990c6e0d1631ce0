//! The coherence map's cost per call (issue 45, item 4): marks through many
//! subviews in several patterns, then one sync of the whole array, the best
//! of three rounds. Reports, per pattern, the time of one mark (the subview made, `modify_host`, the
//! subview released), the sync against a whole-array copy of the same array,
//! the bytes the sync moved against the bytes marked, and the map's form
//! after the marks.
//!
//! ```text
//! cargo run --release --example map_cost -- [scale] [marks] [max us a mark] [max sync ratio] [pattern]
//! ```
//!
//! `scale` sets the arrays' size (elements ~ scale^2: 1024 gives 1M-element
//! arrays, 4096 16M). Exits 1 when a pattern's mark or sync passes its limit
//! (none by default: it reports). `pattern`: run only the patterns whose name
//! holds this text.

use dualview::{s, Dims, DualView, Layout, Result, Space};
use std::time::Instant;

/// One pattern's result.
struct Row {
    name: &'static str,
    elements: usize,
    marks: usize,
    mark_us: f64,
    sync_ms: f64,
    whole_ms: f64,
    sync_ratio: f64,
    moved: u64,
    marked: u64,
    form: String,
}

/// Rounds of each pattern; the best of them is reported.
const REPS: usize = 3;

/// Time `marks` marks (made by `mark(k)`), then the sync of the whole array
/// `a`, against a whole-array copy of `fresh`, an array of the same shape.
fn measure<E: dualview::Extents>(
    name: &'static str,
    a: &DualView<f64, E>,
    fresh: &DualView<f64, E>,
    marks: usize,
    marked_per_mark: u64,
    mut mark: impl FnMut(usize) -> Result<()>,
) -> Result<Row> {
    // The mirrors' registration in the background (as on CUDA) done first: it takes a core.
    dualview::memory::settle();
    // The best of REPS rounds (marks, then the sync; the map is clean again after it): one
    // sync of a few milliseconds is at the mercy of the machine.
    let (mut mark_s, mut sync, mut whole) = (f64::MAX, f64::MAX, f64::MAX);
    let (mut moved, mut form) = (0, String::new());
    for rep in 0..REPS {
        let t0 = Instant::now();
        for k in 0..marks {
            mark(k)?;
        }
        mark_s = mark_s.min(t0.elapsed().as_secs_f64());
        if rep == 0 {
            let info = a.raw().coherence();
            form = if info.bitmap { "bitmap".to_string() } else { format!("{} boxes", info.boxes) };
        }
        let before = a.stats().to_device.bytes;
        let t1 = Instant::now();
        a.sync_device()?;
        sync = sync.min(t1.elapsed().as_secs_f64());
        moved = a.stats().to_device.bytes - before;
        fresh.modify_host()?;
        let t2 = Instant::now();
        fresh.sync_device()?;
        whole = whole.min(t2.elapsed().as_secs_f64());
    }
    let mark_us = mark_s * 1e6 / marks as f64;
    let elements = a.raw().view(dualview::Side::Host)?.size();
    Ok(Row { name, elements, marks, mark_us, sync_ms: sync * 1e3, whole_ms: whole * 1e3, sync_ratio: sync / whole, moved, marked: marked_per_mark * marks as u64, form })
}

fn two_d(rows: usize, cols: usize) -> Result<DualView<f64, Dims<2>>> {
    DualView::<f64, Dims<2>>::builder("map", Dims::new([rows, cols])?).device(Space::test_device(0)).layout(Layout::Right).build()
}

/// The floor of a column mark in a bitmap of 2 bits an element: for every
/// other column of an `n` x `n` row-major array, set its host bit and clear
/// its device bit where they differ (what a mark does to a bitmap, with no
/// subview, no runs and no lock), the best of three rounds of `marks` marks.
fn column_floor(n: usize, marks: usize) -> f64 {
    let words = (n * n).div_ceil(64);
    let (mut host, mut device) = (vec![0u64; words], vec![u64::MAX; words]);
    let mut changed = 0u64;
    let mut best = f64::MAX;
    for _ in 0..3 {
        host.fill(0);
        device.fill(u64::MAX);
        let t0 = Instant::now();
        for k in 0..marks {
            let col = (2 * k) % n;
            for r in 0..n {
                let i = r * n + col;
                let (w, m) = (i / 64, 1u64 << (i % 64));
                if host[w] & m == 0 {
                    host[w] |= m;
                    changed += 1;
                }
                if device[w] & m != 0 {
                    device[w] &= !m;
                    changed += 1;
                }
            }
        }
        best = best.min(t0.elapsed().as_secs_f64() * 1e6 / marks.max(1) as f64);
    }
    std::hint::black_box(changed);
    best
}

fn main() -> Result<()> {
    let arg = |i: usize, d: f64| std::env::args().nth(i).and_then(|v| v.parse().ok()).unwrap_or(d);
    let n = arg(1, 1024.0) as usize;
    let marks = arg(2, 2048.0) as usize;
    let (max_mark_us, max_sync) = (arg(3, f64::INFINITY), arg(4, f64::INFINITY));
    let only = std::env::args().nth(5).unwrap_or_default();
    let run = |name: &str| name.contains(only.as_str());
    let mut rows = Vec::new();

    // Rows of a LayoutRight array: each one contiguous run.
    if run("rows (LayoutRight)") {
        let (a, f) = (two_d(n, n)?, two_d(n, n)?);
        rows.push(measure("rows (LayoutRight)", &a, &f, marks, n as u64, |k| a.slice(s![(2 * k) % n, ..])?.modify_host())?);
    }
    // Every other column of a LayoutRight array: each one n runs of one element.
    if run("columns (LayoutRight)") {
        let (a, f) = (two_d(n, n)?, two_d(n, n)?);
        rows.push(measure("columns (LayoutRight)", &a, &f, marks, n as u64, |k| a.slice(s![.., (2 * k) % n])?.modify_host())?);
    }
    // Windows of a 1D array: half of each window of 2n elements.
    if run("1D windows") {
        let len = n * n;
        let one = || DualView::<f64, Dims<1>>::builder("map", Dims::new([len])?).device(Space::test_device(0)).build();
        let (a, f) = (one()?, one()?);
        let w = (len / marks.max(1)).max(2);
        rows.push(measure("1D windows", &a, &f, marks, (w / 2) as u64, |k| {
            let at = (k * w) % (len - w / 2);
            a.slice(s![at..at + w / 2])?.modify_host()
        })?);
    }
    // 4 x 4 x 4 blocks of a 3D array, on a checkerboard.
    if run("3D blocks 4x4x4") {
        let c = ((n * n) as f64).cbrt() as usize / 4 * 4;
        let three = || DualView::<f64, Dims<3>>::builder("map", Dims::new([c, c, c])?).device(Space::test_device(0)).layout(Layout::Right).build();
        let (a, f) = (three()?, three()?);
        let per = c / 4;
        rows.push(measure("3D blocks 4x4x4", &a, &f, marks, 64, |k| {
            let b = (2 * k) % (per * per * per);
            let (i, j, l) = (b / (per * per) * 4, b / per % per * 4, b % per * 4);
            a.slice(s![i..i + 4, j..j + 4, l..l + 4])?.modify_host()
        })?);
    }
    // Random boxes of a 2D array (a fixed sequence: xorshift).
    if run("random boxes") {
        let (a, f) = (two_d(n, n)?, two_d(n, n)?);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        let side = (n / 32).max(1);
        rows.push(measure("random boxes", &a, &f, marks, (side * side) as u64, |_| {
            let (i, j) = (next(n - side + 1), next(n - side + 1));
            a.slice(s![i..i + side, j..j + side])?.modify_host()
        })?);
    }

    println!("| pattern | elements | marks | us a mark | sync, ms | whole copy, ms | ratio | bytes moved | bytes marked (with repeats) | map after the marks |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut over = Vec::new();
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.2} | {:.3} | {:.3} | {:.2} | {} | {} | {} |",
            r.name, r.elements, r.marks, r.mark_us, r.sync_ms, r.whole_ms, r.sync_ratio, r.moved, r.marked * 8, r.form
        );
        if r.mark_us > max_mark_us || r.sync_ratio > max_sync {
            over.push(r.name);
        }
    }
    if run("columns (LayoutRight)") {
        println!(
            "\nfloor of the column pattern in linear words: {:.2} us a mark (the same bits read and written in two planes of 64-bit words, nothing else; the map now keeps such arrays in 8 x 8 tiles)",
            column_floor(n, marks)
        );
    }
    if !over.is_empty() {
        eprintln!("map_cost: over the limits ({max_mark_us} us a mark, sync {max_sync}x a whole copy): {over:?}");
        std::process::exit(1);
    }
    Ok(())
}
