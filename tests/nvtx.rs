//! NVTX ranges (issue 23): a program that allocates, fills, syncs (blocking
//! and on a stream), resizes, deep-copies and frees runs in a child process
//! with `tests/nvtx/recorder.c`, an NVTX injection library of our own, named
//! by `NVTX_INJECTION64_PATH` (how Nsight Systems attaches). The recorded
//! ranges are checked by name, nesting and count. On a CUDA machine the
//! child uses device 0, elsewhere the test device.

use dualview::memory::{cuda_device_count, stream};
use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Side, Space};
use std::path::PathBuf;
use std::process::Command;

const N: usize = 1 << 20; // 8 MiB of f64

fn space() -> Space {
    if cuda_device_count() > 0 { Space::cuda(0) } else { Space::test_device(50) }
}

fn dv(label: &str, n: usize) -> RawDualView {
    let m = Mapping::new(Layout::Left, DynRank::new(&[n]).unwrap()).unwrap();
    RawDualView::new(label, &Desc::new(ElemSpec::of::<f64>(), m, space())).unwrap()
}

/// The program whose ranges are recorded (run by the test below, in a child).
#[test]
#[ignore = "the child process of every_transfer_allocation_and_resize_has_its_range"]
fn nvtx_child_program() {
    if std::env::var_os("DV_NVTX_LOG").is_none() {
        return;
    }
    if cuda_device_count() == 0 {
        // As a CUDA device does: mirrors register (in the background, a sync waits for it).
        dualview::memory::test_device::set_registers_mirror(50, true).unwrap();
    }
    let a = dv("nvtx_x", N);
    a.fill(Side::Device, &1.5f64.to_ne_bytes()).unwrap();
    a.sync(Side::Host).unwrap();
    a.resize(&DynRank::new(&[2 * N]).unwrap()).unwrap();
    let b = dv("nvtx_y", 2 * N);
    RawDualView::deep_copy(&b, &a).unwrap();
    let s = stream::create(space()).unwrap();
    a.modify(Side::Device).unwrap();
    a.sync_on(Side::Host, s).unwrap();
    a.sync(Side::Host).unwrap(); // waits; copies nothing
    drop((a, b));
    // SAFETY: made above, used no more.
    unsafe { stream::destroy(space(), s) }.unwrap();
}

fn build_recorder(dir: &std::path::Path) -> Option<PathBuf> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/nvtx/recorder.c");
    let lib = dir.join("librecorder.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = match Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread"])
        .arg(&src)
        .arg("-o")
        .arg(&lib)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("SKIPPED every_transfer_allocation_and_resize_has_its_range: no C compiler ({cc}: {e})");
            return None;
        }
    };
    assert!(out.status.success(), "{cc}: {}", String::from_utf8_lossy(&out.stderr));
    Some(lib)
}

#[test]
#[cfg_attr(miri, ignore)] // runs a C compiler and a child process
fn every_transfer_allocation_and_resize_has_its_range() {
    let dir = std::env::temp_dir().join(format!("dualview-nvtx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(lib) = build_recorder(&dir) else { return };
    let log = dir.join("ranges.log");
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "nvtx_child_program", "--ignored", "--test-threads", "1"])
        .env("NVTX_INJECTION64_PATH", &lib)
        .env("DV_NVTX_LOG", &log)
        .output()
        .unwrap();
    assert!(out.status.success(), "child failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).expect("the recorder wrote nothing: was it attached?");
    std::fs::remove_dir_all(&dir).ok();
    // Replay per thread (a mirror registers on a background thread): every push is
    // popped on its thread, and nothing pops an empty stack.
    let mut stacks: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    let mut ranges: Vec<(&str, usize)> = Vec::new(); // (name, depth at push on its thread)
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("push ") {
            let (thread, name) = rest.split_once(' ').unwrap();
            let stack = stacks.entry(thread).or_default();
            ranges.push((name, stack.len()));
            stack.push(name);
        } else {
            let thread = line.strip_prefix("pop ").unwrap_or_else(|| panic!("not a record: {line}"));
            assert!(stacks.entry(thread).or_default().pop().is_some(), "a pop without a push:\n{text}");
        }
    }
    assert!(stacks.values().all(|s| s.is_empty()), "ranges left open: {stacks:?}");
    let count = |prefix: &str| ranges.iter().filter(|(n, _)| n.starts_with(prefix)).count();
    let one = |name: &str| {
        let hits: Vec<_> = ranges.iter().filter(|(n, _)| *n == name).collect();
        assert_eq!(hits.len(), 1, "{name:?} recorded {} times in:\n{text}", hits.len());
        hits[0].1
    };
    let dev = space();
    let mb = |n: usize| format!("{:.1} MB", (n * 8) as f64 / 1e6);
    assert_eq!(one(&format!("dualview allocate \"nvtx_x\" {dev} {}", mb(N))), 0);
    assert_eq!(one(&format!("dualview allocate \"nvtx_x_mirror\" HostSpace {}", mb(N))), 0);
    assert_eq!(one(&format!("dualview fill \"nvtx_x\" device {}", mb(N))), 0);
    assert_eq!(one(&format!("dualview sync_host \"nvtx_x\" {}", mb(N))), 0);
    assert_eq!(one(&format!("dualview resize \"nvtx_x\" to [{}]", 2 * N)), 0);
    assert_eq!(one(&format!("dualview deep_copy \"nvtx_y\" device <- \"nvtx_x\" device {}", mb(2 * N))), 0);
    assert_eq!(one(&format!("dualview sync_host \"nvtx_x\" {} (enqueue)", mb(2 * N))), 0);
    // A resize's new blocks are allocated inside its range.
    let resize_allocs = ranges.iter().filter(|(n, d)| n.starts_with("dualview allocate \"nvtx_x") && *d == 1).count();
    let grown_in_place = 2 - resize_allocs;
    assert!(resize_allocs <= 2, "{text}");
    // The mirror's registration (on whichever thread did it).
    assert!(ranges.iter().any(|(n, _)| *n == format!("dualview register \"nvtx_x_mirror\" {}", mb(N))), "{text}");
    // Every block allocated is freed (the last ones at the drop).
    assert_eq!(count("dualview allocate "), count("dualview free "), "{text}");
    assert_eq!(count("dualview allocate "), 2 + resize_allocs + 2, "{text}");
    eprintln!("{} ranges recorded; the resize grew {grown_in_place} block(s) in place:\n{text}", ranges.len());
}

/// The program of `every_copying_path_is_visible` (run in a child): each
/// copying path once, on a 64 x 32 DualView of f64 (16 KiB), checking its
/// own statistics as it goes.
#[test]
#[ignore = "the child process of every_copying_path_is_visible"]
fn copying_paths_child_program() {
    if std::env::var_os("DV_NVTX_LOG").is_none() {
        return;
    }
    use dualview::Slice;
    let m = Mapping::new(Layout::Right, DynRank::new(&[64, 32]).unwrap()).unwrap();
    let a = RawDualView::new("vis", &Desc::new(ElemSpec::of::<f64>(), m, space())).unwrap();
    let row = |i: usize| a.subview(&[Slice::Index(i), Slice::All]).unwrap();
    a.fill(Side::Device, &1.0f64.to_ne_bytes()).unwrap(); // fill: 16 KiB on the device
    a.sync(Side::Host).unwrap(); // whole sync: 16 KiB to the host
    a.fill(Side::Host, &2.0f64.to_ne_bytes()).unwrap(); // fill: 16 KiB on the host
    row(3).sync(Side::Device).unwrap(); // subview sync: 256 B to the device
    row(5).push(Side::Host).unwrap(); // push_host: 256 B to the device
    a.clear_sync_state().unwrap();
    row(7).push(Side::Device).unwrap(); // push_device: 256 B to the host
    a.resize(&DynRank::new(&[64, 16]).unwrap()).unwrap(); // resize: 8 KiB a side copied, one range each
    let b = RawDualView::new("vis_copy", &Desc::new(ElemSpec::of::<f64>(), Mapping::new(Layout::Right, DynRank::new(&[64, 16]).unwrap()).unwrap(), space())).unwrap();
    RawDualView::deep_copy(&b, &a).unwrap(); // deep copy: 8 KiB
    RawDualView::view_copy(&b, Side::Host, &a, Side::Host).unwrap(); // view copy: 8 KiB
    let s = a.stats();
    assert_eq!((s.fills.count, s.fills.bytes), (2, 2 * 16384), "{s:?}");
    assert_eq!((s.to_host.count, s.to_host.bytes), (2, 16384 + 256), "{s:?}");
    assert_eq!((s.to_device.count, s.to_device.bytes), (2, 512), "{s:?}");
    assert_eq!((s.resize.count, s.resize.bytes), (1, 2 * 8192), "{s:?}");
    let s = b.stats();
    assert_eq!((s.copies.count, s.copies.bytes), (2, 2 * 8192), "{s:?}");
}

/// Issue 30, item 7: every copying path (whole and subview sync, `push_host`
/// and `push_device`, resize, deep copy and view copy, fills of either side)
/// shows as an NVTX range (the recorder), a `DV_TRACE` line, a count in the
/// statistics (the child checks them) and a row of the transfer report.
#[test]
#[cfg_attr(miri, ignore)] // runs a C compiler and a child process
fn every_copying_path_is_visible() {
    let dir = std::env::temp_dir().join(format!("dualview-visible-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(lib) = build_recorder(&dir) else { return };
    let (log, report) = (dir.join("ranges.log"), dir.join("report"));
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "copying_paths_child_program", "--ignored", "--test-threads", "1", "--nocapture"])
        .env("NVTX_INJECTION64_PATH", &lib)
        .env("DV_NVTX_LOG", &log)
        .env("DV_TRACE", "1")
        .env("DV_REPORT", &report)
        .env_remove("OMPI_COMM_WORLD_RANK")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "child failed:\n{}\n{err}", String::from_utf8_lossy(&out.stdout));
    let ranges = std::fs::read_to_string(&log).expect("the recorder wrote nothing");
    let csv = std::fs::read_to_string(format!("{}.0.csv", report.display())).expect("the report's CSV");
    std::fs::remove_dir_all(&dir).ok();
    let kb = |n: usize| crate_bytes(n);
    for (range, trace, label, dir, count, bytes) in [
        (format!("dualview fill \"vis\" device {}", kb(16384)), "fill \"vis\" device 16384 B", "vis", "fill", 2, 32768),
        (format!("dualview fill \"vis\" host {}", kb(16384)), "fill \"vis\" host 16384 B", "vis", "fill", 2, 32768),
        (format!("dualview sync_host \"vis\" {}", kb(16384)), "sync \"vis\" device->host 16384 B", "vis", "to_host", 2, 16384 + 256),
        (format!("dualview sync_device \"vis\" {}", kb(256)), "sync \"vis\" host->device 256 B", "vis", "to_device", 2, 512),
        (format!("dualview push_host \"vis\" {}", kb(256)), "push_host \"vis\" host->device 256 B", "vis", "to_device", 2, 512),
        (format!("dualview push_device \"vis\" {}", kb(256)), "push_device \"vis\" device->host 256 B", "vis", "to_host", 2, 16384 + 256),
        // One range a side (each copies what it holds newest or clean, D3): 8 KiB each.
        (format!("dualview resize copy \"vis\" {}", kb(8192)), "resize \"vis\" copied 16384 B", "vis", "resize", 1, 16384),
        (format!("dualview deep_copy \"vis_copy\" device <- \"vis\" device {}", kb(8192)), "deep_copy \"vis_copy\" <- \"vis\" 8192 B", "vis_copy", "deep_copy", 2, 16384),
        (format!("dualview deep_copy \"vis_copy_mirror\" host <- \"vis_mirror\" host {}", kb(8192)), "deep_copy \"vis_copy\" <- \"vis\" 8192 B", "vis_copy", "deep_copy", 2, 16384),
    ] {
        assert!(ranges.lines().any(|l| l.starts_with("push ") && l.ends_with(&range)), "no NVTX range {range:?} in\n{ranges}");
        assert!(err.lines().any(|l| l.starts_with("dualview[") && l.contains(trace)), "no DV_TRACE line {trace:?} in\n{err}");
        let row = csv
            .lines()
            .find(|l| l.contains(&format!(",\"{label}\",")) && l.contains(&format!(",{dir},")))
            .unwrap_or_else(|| panic!("no {label} {dir} row in the report:\n{csv}"));
        let cols: Vec<&str> = row.split(',').collect();
        assert_eq!((cols[4], cols[5]), (count.to_string().as_str(), bytes.to_string().as_str()), "{row}");
    }
}

/// NVTX's way of writing a byte count (`src/tools/nvtx.rs`).
fn crate_bytes(n: usize) -> String {
    if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{:.1} KB", n as f64 / 1e3)
    } else {
        format!("{n} B")
    }
}
