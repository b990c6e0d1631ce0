//! Checked mode (issue 20, item 1) and write access that keeps data (item 2).
//! The four mistakes of the issue (M02 a device write without
//! `modify_device`, M03 a host write without `modify_host`, M04 both sides
//! written, a subview's modify that misses what was written) are caught at the
//! next flag call with the side, the index and the call; correct sequences
//! raise nothing. On a CUDA machine the DualViews live on device 0, elsewhere
//! on the test device. "Kernel writes" are `view_fill`s through one-element
//! subviews: they write a side without touching the flags, as a kernel does.

use dualview::memory::{cuda_device_count, stream};
use dualview::{Access, Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Slice, Space};

fn space() -> Space {
    if cuda_device_count() > 0 { Space::cuda(0) } else { Space::test_device(0) }
}

fn checked(ext: &[usize]) -> RawDualView {
    let m = Mapping::new(Layout::Right, DynRank::new(ext).unwrap()).unwrap();
    let mut d = Desc::new(ElemSpec::of::<f64>(), m, space());
    d.checked = true;
    RawDualView::new("field", &d).unwrap()
}

/// Write `v` at `idx` of `side` without touching the flags (a kernel, an MPI receive).
fn poke(a: &RawDualView, side: Side, idx: &[usize], v: f64) {
    let slices: Vec<Slice> = idx.iter().map(|&i| Slice::Range(i, i + 1)).collect();
    a.subview(&slices).unwrap().view_fill(side, &v.to_ne_bytes()).unwrap();
}

/// The host side's values.
fn host(a: &RawDualView) -> Vec<f64> {
    let v = a.view(Side::Host).unwrap();
    // SAFETY: the host side holds `size` initialised f64, and nothing writes it now.
    unsafe { std::slice::from_raw_parts(v.data() as *const f64, a.mapping().size()) }.to_vec()
}

fn unmarked(r: dualview::Result<()>) -> String {
    let e = r.expect_err("checked mode lets an unmarked write through");
    assert_eq!(e.kind(), ErrorKind::UnmarkedChange, "{e}");
    e.to_string()
}

#[test]
fn m02_a_device_write_without_modify_device_is_caught_at_sync_host() {
    let a = checked(&[50, 4]);
    assert!(a.is_checked());
    a.fill(Side::Host, &1.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Device).unwrap();
    poke(&a, Side::Device, &[7, 2], 5.0); // the kernel wrote; modify_device forgotten
    let msg = unmarked(a.sync(Side::Host));
    assert!(msg.contains("the device side changed without modify_device()"), "{msg}");
    assert!(msg.contains("(7, 2)") && msg.contains("sync_host()") && msg.contains("\"field\""), "{msg}");
    // Nothing was copied or marked, and the call fails again until the modify is made.
    assert_eq!(a.stats().to_host.count, 0);
    assert!(!a.need_sync(Side::Host));
    assert!(a.sync(Side::Host).is_err());
    a.modify(Side::Device).unwrap();
    a.sync(Side::Host).unwrap();
    assert_eq!(host(&a)[7 * 4 + 2], 5.0);
}

#[test]
fn m03_a_host_write_without_modify_host_is_caught_at_sync_device() {
    let a = checked(&[64]);
    a.fill(Side::Device, &2.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Host).unwrap();
    poke(&a, Side::Host, &[0], -1.0); // the halo received by MPI; modify_host forgotten
    poke(&a, Side::Host, &[63], -1.0);
    let msg = unmarked(a.sync(Side::Device));
    assert!(msg.contains("the host side changed without modify_host()") && msg.contains("(0)"), "{msg}");
    assert!(msg.contains("sync_device()"), "{msg}");
    // The same mistake is caught at the next modify of the other side too.
    let msg = unmarked(a.modify(Side::Device));
    assert!(msg.contains("modify_device()"), "{msg}");
}

#[test]
fn m04_both_sides_written_is_caught_before_the_sync_overwrites_one() {
    let a = checked(&[16]);
    a.modify(Side::Host).unwrap();
    poke(&a, Side::Host, &[3], 1.0);
    poke(&a, Side::Device, &[9], 2.0); // through a saved device pointer
    let msg = unmarked(a.sync(Side::Device));
    assert!(msg.contains("the device side was written where the host side holds the newer value"), "{msg}");
    assert!(msg.contains("(9)"), "{msg}");
    assert!(a.need_sync(Side::Device), "flags unchanged");
    // Accepting both sides as they are starts the record afresh.
    a.clear_sync_state().unwrap();
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
}

#[test]
fn a_subview_modify_that_misses_a_write_is_caught() {
    let a = checked(&[10, 3]);
    let rows = a.subview(&[Slice::Range(0, 2), Slice::All]).unwrap();
    poke(&a, Side::Host, &[1, 1], 4.0); // write first, then mark: allowed in the marking box
    poke(&a, Side::Host, &[5, 0], 4.0); // outside the rows marked now: it may get its own mark next
    rows.modify(Side::Host).unwrap();
    let msg = unmarked(a.sync(Side::Device));
    assert!(msg.contains("the host side changed without modify_host()") && msg.contains("(5, 0)"), "{msg}");
    assert!(msg.contains("found at sync_device()"), "{msg}");
    // Two regions written, then marked one by one: correct.
    a.subview(&[Slice::Index(5), Slice::All]).unwrap().modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    // Mark first, then write outside the mark: caught at the sync.
    let b = checked(&[10, 3]);
    b.subview(&[Slice::Range(0, 2), Slice::All]).unwrap().modify(Side::Host).unwrap();
    poke(&b, Side::Host, &[1, 1], 4.0);
    poke(&b, Side::Host, &[9, 2], 4.0);
    let msg = unmarked(b.sync(Side::Device));
    assert!(msg.contains("changed without modify_host()") && msg.contains("(9, 2)") && msg.contains("sync_device()"), "{msg}");
}

/// Kokkos-style code: write then mark, mark then write, subview syncs,
/// resizes, fills, deep copies, access modes, a stream: no false alarm, and
/// the values are right.
#[test]
fn correct_sequences_raise_nothing() {
    let a = checked(&[20, 4]);
    for step in 0..5 {
        poke(&a, Side::Host, &[step, 0], step as f64); // write, then mark
        a.modify(Side::Host).unwrap();
        a.sync(Side::Device).unwrap();
        a.modify(Side::Device).unwrap(); // mark, then write
        poke(&a, Side::Device, &[step, 1], 10.0 + step as f64);
        a.sync(Side::Host).unwrap();
        // A halo row through a subview: received on the host, marked, synced alone.
        let halo = a.subview(&[Slice::Index(19), Slice::All]).unwrap();
        poke(&a, Side::Host, &[19, 3], 100.0 + step as f64);
        halo.modify(Side::Host).unwrap();
        halo.sync(Side::Device).unwrap();
        a.sync(Side::Device).unwrap();
    }
    a.resize(&DynRank::new(&[30, 4]).unwrap()).unwrap();
    poke(&a, Side::Host, &[29, 3], 7.0);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    a.access(Side::Host, Access::ReadWrite).unwrap();
    a.access(Side::Device, Access::Overwrite).unwrap();
    a.fill(Side::Device, &3.0f64.to_ne_bytes()).unwrap();
    let b = checked(&[30, 4]);
    RawDualView::deep_copy(&b, &a).unwrap();
    b.sync(Side::Host).unwrap();
    assert!(host(&b).iter().all(|&v| v == 3.0));
    let s = stream::create(space()).unwrap();
    a.modify(Side::Device).unwrap();
    a.sync_on(Side::Host, s).unwrap();
    poke(&a, Side::Host, &[0, 0], 1.0);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    a.realloc(&DynRank::new(&[8, 4]).unwrap(), true).unwrap();
    a.sync(Side::Host).unwrap();
    // SAFETY: made above, used no more.
    unsafe { stream::destroy(space(), s) }.unwrap();
    let h = host(&a);
    assert!(h.iter().all(|&v| v == 0.0), "realloc zero-fills");
}

/// Checked mode sees what is written between flag calls, and survives resizes.
#[test]
fn a_write_after_a_resize_is_still_checked() {
    let a = checked(&[4]);
    a.resize(&DynRank::new(&[1000]).unwrap()).unwrap();
    poke(&a, Side::Device, &[999], 1.0);
    let msg = unmarked(a.sync(Side::Host));
    assert!(msg.contains("(999)"), "{msg}");
}

#[test]
fn write_access_keeps_the_other_sides_change_and_overwrite_drops_it() {
    let m = Mapping::new(Layout::Right, DynRank::new(&[8]).unwrap()).unwrap();
    let a = RawDualView::new("w", &Desc::new(ElemSpec::of::<f64>(), m, Space::test_device(0))).unwrap();
    a.fill(Side::Device, &2.0f64.to_ne_bytes()).unwrap();
    a.access(Side::Host, Access::Write).unwrap(); // SYCL 2020: the device's change is copied first
    assert_eq!(host(&a), vec![2.0; 8]);
    assert_eq!(a.stats().to_host.bytes, 64);
    assert!(a.need_sync(Side::Device));
    a.fill(Side::Host, &4.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Device).unwrap();
    a.fill(Side::Device, &5.0f64.to_ne_bytes()).unwrap();
    a.access(Side::Host, Access::Overwrite).unwrap(); // the device's 5.0 is discarded, nothing copied
    assert_eq!(host(&a), vec![4.0; 8]);
    assert_eq!(a.stats().to_host.count, 1);
    assert!(a.need_sync(Side::Device));
    assert_eq!(Access::try_from(4u32).unwrap(), Access::Overwrite);
    assert!(Access::try_from(5u32).is_err());
}

/// `DV_CHECK=1` checks every DualView; `DV_TRACE` says when an overwrite drops a change.
#[test]
fn dv_check_in_the_environment_checks_every_dualview() {
    if std::env::var_os("DV_CHECKED_CHILD").is_some() {
        let m = Mapping::new(Layout::Right, DynRank::new(&[8]).unwrap()).unwrap();
        let a = RawDualView::new("env", &Desc::new(ElemSpec::of::<f64>(), m, Space::test_device(0))).unwrap();
        assert!(a.is_checked());
        a.modify(Side::Device).unwrap();
        a.access(Side::Host, Access::Overwrite).unwrap();
        poke(&a, Side::Device, &[2], 1.0);
        unmarked(a.sync(Side::Device).and_then(|_| a.modify(Side::Device)));
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["dv_check_in_the_environment_checks_every_dualview", "--exact", "--nocapture", "--test-threads", "1"])
        .env("DV_CHECK", "1")
        .env("DV_TRACE", "1")
        .env("DV_CHECKED_CHILD", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with("dualview[") && l.contains("\"env\": an overwrite access of the host side discards 8 element(s) newer on the device side")),
        "{err}"
    );
}

/// The anchor sequence at production size (on the H200: 16M atoms x 3 doubles,
/// 384 MiB, grown 1.5x three times to 1.3 GiB; 32K atoms elsewhere): a kernel
/// on every owned atom, border comm (send rows synced to the host alone, ghost
/// rows received on the host and pushed alone), a grow while the device's
/// other rows are still newer. Checked mode raises nothing, each step moves
/// exactly its rows (the sync after a grow: the rows not yet sent; the new
/// rows are zero on both sides and no counter is set, so they are clean),
/// every value survives, and a missed `modify` is still caught at 1.3 GiB.
#[test]
fn lammps_grow_and_border_comm_at_production_size_in_checked_mode() {
    let gpu = cuda_device_count() > 0;
    let (mut rows, g) = if gpu { (16usize << 20, 1usize << 16) } else { (1usize << 15, 1usize << 9) };
    let row = 3 * std::mem::size_of::<f64>() as u64;
    let a = checked(&[rows, 3]);
    a.fill(Side::Host, &1.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Device).unwrap();
    for round in 0..3 {
        let v = 2.0 + round as f64;
        a.modify(Side::Device).unwrap(); // mark, then the kernel writes every owned atom
        a.subview(&[Slice::Range(0, rows - g), Slice::All]).unwrap().view_fill(Side::Device, &v.to_ne_bytes()).unwrap();
        let send = a.subview(&[Slice::Range(rows - 2 * g, rows - g), Slice::All]).unwrap();
        let halo = a.subview(&[Slice::Range(rows - g, rows), Slice::All]).unwrap();
        let s0 = a.stats();
        send.sync(Side::Host).unwrap();
        halo.view_fill(Side::Host, &(-v).to_ne_bytes()).unwrap(); // MPI receives the ghosts
        halo.push(Side::Host).unwrap();
        let s1 = a.stats();
        assert_eq!(s1.to_host.bytes - s0.to_host.bytes, g as u64 * row, "round {round}: the send rows alone");
        assert_eq!(s1.to_device.bytes - s0.to_device.bytes, g as u64 * row, "round {round}: the ghost rows alone");
        assert!(a.need_sync(Side::Host), "round {round}: the device's other rows stay recorded");
        drop((send, halo));
        let old = rows;
        rows = rows * 3 / 2;
        a.resize(&DynRank::new(&[rows, 3]).unwrap()).unwrap();
        a.sync(Side::Host).unwrap();
        let s2 = a.stats();
        // The rest, once: the kept rows the device had not sent.
        assert_eq!(s2.to_host.bytes - s1.to_host.bytes, (old - 2 * g) as u64 * row, "round {round}: the rest, once");
        let h = host(&a);
        let bad = h.iter().enumerate().find(|&(i, &x)| {
            let r = i / 3;
            x != if r < old - g { v } else if r < old { -v } else { 0.0 }
        });
        assert_eq!(bad, None, "round {round}: (flat index, value) of the first wrong element");
        assert!(!a.need_sync(Side::Host) && !a.need_sync(Side::Device));
    }
    poke(&a, Side::Device, &[rows - 1, 2], 9.0); // a kernel wrote; modify_device forgotten
    let msg = unmarked(a.sync(Side::Host));
    assert!(msg.contains(&format!("({}, 2)", rows - 1)), "{msg}");
    a.modify(Side::Device).unwrap();
    a.sync(Side::Host).unwrap();
    assert_eq!(host(&a)[rows * 3 - 1], 9.0);
}
