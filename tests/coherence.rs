//! Coherence without loss (issue 30): the findings that lost data or raised
//! false alarms under 0.3's "one newer side plus a rest", as tests, and the
//! coherence map at a hundred thousand fragments. Each checks what the
//! program wrote (values) and what moved (bytes). On a CUDA machine the
//! DualViews live on device 0, elsewhere on the test device.

use dualview::ffi::dv_status_t::{self, *};
use dualview::ffi::*;
use dualview::memory::cuda_device_count;
use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Side, Slice, Space};
use std::ptr::null_mut;

fn space() -> Space {
    if cuda_device_count() > 0 { Space::cuda(0) } else { Space::test_device(0) }
}

fn raw(ext: &[usize], checked: bool) -> RawDualView {
    let m = Mapping::new(Layout::Right, DynRank::new(ext).unwrap()).unwrap();
    let mut d = Desc::new(ElemSpec::of::<f64>(), m, space());
    d.checked = checked;
    RawDualView::new("v", &d).unwrap()
}

/// A side's values (device memory through a deep copy to a host DualView).
fn side(a: &RawDualView, s: Side) -> Vec<f64> {
    let m = Mapping::new(Layout::Right, a.extents()).unwrap();
    let h = RawDualView::new("read", &Desc::new(ElemSpec::of::<f64>(), m, Space::HOST)).unwrap();
    RawDualView::view_copy(&h, Side::Host, a, s).unwrap();
    let v = h.view(Side::Host).unwrap();
    // SAFETY: a host allocation of `size` initialised f64; nothing writes it now.
    unsafe { std::slice::from_raw_parts(v.data() as *const f64, a.mapping().size()) }.to_vec()
}

fn sub(a: &RawDualView, s: &[Slice]) -> RawDualView {
    a.subview(s).unwrap()
}

/// Write `v` over a handle's box of `side` without touching the flags (a kernel, an MPI receive).
fn write(h: &RawDualView, s: Side, v: f64) {
    h.view_fill(s, &v.to_ne_bytes()).unwrap();
}

fn ok(st: dv_status_t) {
    assert_eq!(st, DV_OK, "{}", unsafe { std::ffi::CStr::from_ptr(dv_last_error()) }.to_string_lossy());
}

/// Finding 1, through the C ABI as a C program calls it: the Kokkos halo
/// idiom (a kernel wrote the device side; the row to send synced to the host;
/// both ghost rows received on the host; then each ghost row marked and synced
/// on its own) delivers both received rows to the device, and moves the sent
/// row to the host and the two ghost rows to the device, nothing else.
#[test]
fn finding1_the_halo_idiom_delivers_both_received_rows() {
    let dev = if cuda_device_count() > 0 { DV_SPACE_CUDA } else { DV_SPACE_TEST_DEVICE };
    let mut e = dv_extents_t { rank: 2, reserved: 0, extent: [1; 8] };
    e.extent[..2].copy_from_slice(&[10, 1000]);
    let desc = dv_desc_t {
        dtype: DV_DTYPE_FLOAT64,
        elem_size: 0,
        elem_align: 0,
        layout: DV_LAYOUT_RIGHT,
        space: dev,
        ordinal: 0,
        flags: 0,
        reserved: 0,
        extents: e,
        strides: [0; 8],
    };
    let row = |v: *mut dv_dualview_t, i: u64| {
        let r = [dv_range_t { kind: DV_INDEX, reserved: 0, begin: i, end: 0 }, dv_range_t { kind: DV_ALL, reserved: 0, begin: 0, end: 0 }];
        let mut s = null_mut();
        // SAFETY: `v` is live; `r` holds two ranges.
        ok(unsafe { dv_subview(v, r.as_ptr(), 2, &mut s) });
        s
    };
    // SAFETY: every handle is live until its dv_destroy; pointers come from the library.
    unsafe {
        let mut v = null_mut();
        ok(dv_create(c"v".as_ptr(), &desc, &mut v));
        let k = 1.5f64;
        ok(dv_view_fill(v, DV_SIDE_DEVICE, (&k as *const f64).cast())); // the kernel
        ok(dv_modify_device(v));
        let (send, ghost0, ghost9) = (row(v, 1), row(v, 0), row(v, 9));
        ok(dv_sync_host(send));
        let mut h: *mut std::ffi::c_void = null_mut();
        ok(dv_host_ptr(v, &mut h));
        let h = h as *mut f64;
        for j in 0..1000 {
            *h.add(j) = 100.0 + j as f64; // MPI receives row 0
            *h.add(9000 + j) = 900.0 + j as f64; // and row 9
        }
        let mut st0 = dv_stats_t::default();
        ok(dv_stats(v, &mut st0));
        for g in [ghost0, ghost9] {
            ok(dv_modify_host(g));
            ok(dv_sync_device(g));
        }
        let mut st1 = dv_stats_t::default();
        ok(dv_stats(v, &mut st1));
        assert_eq!(st1.to_host_bytes, st0.to_host_bytes, "marking and syncing the ghost rows moved nothing to the host");
        assert_eq!(st0.to_host_bytes, 8000, "the sent row alone");
        assert_eq!(st1.to_device_bytes, 16_000, "the two ghost rows alone");
        let mut need = false;
        ok(dv_need_sync_host(v, &mut need));
        assert!(need, "the device's other rows are still newer there");
        for s in [send, ghost0, ghost9, v] {
            ok(dv_destroy(s));
        }
    }
    // The same through Rust: the device holds both received rows.
    let v = raw(&[10, 1000], false);
    v.fill(Side::Device, &1.5f64.to_ne_bytes()).unwrap();
    sub(&v, &[Slice::Index(1), Slice::All]).sync(Side::Host).unwrap();
    let (g0, g9) = (sub(&v, &[Slice::Index(0), Slice::All]), sub(&v, &[Slice::Index(9), Slice::All]));
    write(&g0, Side::Host, 7.0);
    write(&g9, Side::Host, 9.0);
    for g in [&g0, &g9] {
        g.modify(Side::Host).unwrap();
        g.sync(Side::Device).unwrap();
    }
    let d = side(&v, Side::Device);
    assert!(d[..1000].iter().all(|&x| x == 7.0), "row 0 received");
    assert!(d[9000..].iter().all(|&x| x == 9.0), "row 9 received: 0.3 overwrote it with the device's stale row");
    assert!(d[1000..9000].iter().all(|&x| x == 1.5), "the kernel's rows");
    v.sync(Side::Host).unwrap();
    assert_eq!(side(&v, Side::Host), d);
}

/// Finding 3: far more fragments than any box cap (63 one-element syncs
/// leave 64 boxes of the device's change), then the host writes 1000
/// elements and marks them (write, then mark): nothing is copied over the
/// writes, and a whole sync sends them.
#[test]
fn finding3_a_fragmented_map_keeps_marked_writes() {
    let v = raw(&[10_000], false);
    v.fill(Side::Device, &2.0f64.to_ne_bytes()).unwrap();
    for i in 0..63 {
        sub(&v, &[Slice::Range(100 * i + 7, 100 * i + 8)]).sync(Side::Host).unwrap();
    }
    let w = sub(&v, &[Slice::Range(5000, 6000)]);
    write(&w, Side::Host, -4.0);
    let s0 = v.stats();
    w.modify(Side::Host).unwrap();
    assert_eq!(v.stats(), s0, "a modify copies nothing");
    v.sync(Side::Device).unwrap();
    assert_eq!(v.stats().to_device.bytes - s0.to_device.bytes, 8000, "the 1000 marked writes alone");
    let d = side(&v, Side::Device);
    assert!(d[5000..6000].iter().all(|&x| x == -4.0), "every marked write reached the device");
    v.sync(Side::Host).unwrap();
    let h = side(&v, Side::Host);
    assert!(h[..5000].iter().all(|&x| x == 2.0) && h[6000..].iter().all(|&x| x == 2.0));
    assert_eq!(h, d);
}

/// Finding 4: checked mode, a device change synced through rows 0-1, then a
/// host fill of rows 5-6: the whole sync to the device raises nothing (the
/// fill copied nothing into rows 2-4), and moves rows 5-6 alone.
#[test]
fn finding4_no_false_alarm_after_a_subview_sync_and_a_fill() {
    let v = raw(&[10, 100], true);
    v.fill(Side::Device, &3.0f64.to_ne_bytes()).unwrap();
    sub(&v, &[Slice::Range(0, 2), Slice::All]).sync(Side::Host).unwrap();
    sub(&v, &[Slice::Range(5, 7), Slice::All]).fill(Side::Host, &8.0f64.to_ne_bytes()).unwrap();
    let s0 = v.stats();
    v.sync(Side::Device).unwrap();
    assert_eq!(v.stats().to_device.bytes - s0.to_device.bytes, 2 * 100 * 8);
    let d = side(&v, Side::Device);
    assert!(d[500..700].iter().all(|&x| x == 8.0) && d[200..500].iter().all(|&x| x == 3.0));
    v.sync(Side::Host).unwrap();
    assert_eq!(side(&v, Side::Host), d);
}

/// Finding 5, first sequence: a map fragmented past any box cap, resized
/// (grown and shrunk): the device's newer elements stay newer, a host modify
/// that Kokkos allows is allowed, and every value arrives.
#[test]
fn finding5_a_resize_keeps_a_fragmented_map() {
    let v = raw(&[300, 40], false);
    v.fill(Side::Device, &5.0f64.to_ne_bytes()).unwrap();
    for i in 0..150 {
        sub(&v, &[Slice::Index(2 * i), Slice::Range(i % 40, i % 40 + 1)]).sync(Side::Host).unwrap();
    }
    assert!(v.coherence().device_newer == 300 * 40 - 150);
    v.resize(&DynRank::new(&[400, 40]).unwrap()).unwrap();
    v.resize(&DynRank::new(&[350, 30]).unwrap()).unwrap();
    let m = v.coherence();
    let synced_kept = (0..150).filter(|i| i % 40 < 30).count();
    assert_eq!(m.device_newer, 300 * 30 - synced_kept, "the kept device-newer elements; the new rows are clean");
    let w = sub(&v, &[Slice::Range(10, 12), Slice::All]);
    write(&w, Side::Host, -1.0);
    w.modify(Side::Host).unwrap(); // Kokkos allows it: the subview syncs cleared its counters
    v.sync(Side::Device).unwrap();
    v.sync(Side::Host).unwrap();
    let (h, d) = (side(&v, Side::Host), side(&v, Side::Device));
    assert_eq!(h, d);
    for r in 0..350 {
        for c in 0..30 {
            let want = if (10..12).contains(&r) { -1.0 } else if r < 300 { 5.0 } else { 0.0 };
            assert_eq!(h[r * 30 + c], want, "({r}, {c})");
        }
    }
}

/// Finding 5, second sequence: checked mode on a clean DualView, the halo
/// order "write A, write B, mark A, sync A, mark B, sync B" raises nothing;
/// a write left unmarked is still caught at the first call that covers it,
/// naming the element and the call's region.
#[test]
fn finding5_the_halo_order_raises_nothing_in_checked_mode() {
    let v = raw(&[10, 100], true);
    let (a, b) = (sub(&v, &[Slice::Index(0), Slice::All]), sub(&v, &[Slice::Index(9), Slice::All]));
    write(&a, Side::Host, 1.0);
    write(&b, Side::Host, 2.0);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    b.modify(Side::Host).unwrap();
    b.sync(Side::Device).unwrap();
    let d = side(&v, Side::Device);
    assert!(d[..100].iter().all(|&x| x == 1.0) && d[900..].iter().all(|&x| x == 2.0));
    // Row 5 written and never marked: a sync through row 5 covers it.
    write(&sub(&v, &[Slice::Index(5), Slice::Range(3, 4)]), Side::Host, 7.0);
    sub(&v, &[Slice::Index(6), Slice::All]).sync(Side::Device).unwrap(); // does not cover it
    let e = sub(&v, &[Slice::Range(4, 6), Slice::All]).sync(Side::Device).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("(5, 3)") && msg.contains("in its region [4..6, 0..100]") && msg.contains("modify_host()"), "{msg}");
}

/// Checked mode when a modify drops the other side's newer elements: equal
/// bytes (they were only marked) drop silently; a write there since its mark
/// means both sides wrote the element, and is reported.
#[test]
fn a_dropped_change_is_reported_only_when_both_sides_wrote() {
    let v = raw(&[8, 8], true);
    let r = sub(&v, &[Slice::Index(2), Slice::All]);
    r.modify(Side::Device).unwrap(); // marked on the device, not written
    sub(&v, &[Slice::Index(0), Slice::All]).sync(Side::Host).unwrap(); // clears Kokkos' counters
    write(&r, Side::Host, 4.0);
    r.modify(Side::Host).unwrap(); // drops the device's mark: its bytes are unchanged, silent
    r.sync(Side::Device).unwrap();
    // Now both write row 3: the device after its mark, then the host marks it.
    let r3 = sub(&v, &[Slice::Index(3), Slice::All]);
    r3.modify(Side::Device).unwrap();
    write(&r3, Side::Device, 6.0);
    sub(&v, &[Slice::Index(0), Slice::All]).sync(Side::Host).unwrap();
    write(&r3, Side::Host, 5.0);
    let msg = r3.modify(Side::Host).unwrap_err().to_string();
    assert!(msg.contains("both sides written") && msg.contains("modify_host() drops these writes") && msg.contains("(3, 0)"), "{msg}");
}

/// A hundred thousand fragments in 1D and 2D, with resizes of the fragmented
/// map: every value arrives, each sync moves what it must, and the map holds
/// at most 2 bits per element (rounded up to 64-element words), measured.
#[test]
#[cfg_attr(miri, ignore = "a hundred thousand subview calls")]
fn a_hundred_thousand_fragments_in_1d_and_2d() {
    let bound = |n: usize| 2 * (n + n / 16).div_ceil(64) * 8; // 2 bits an element; 8 x 8 tiles at most a sixteenth more
    // 1D: every other element of 200,000 synced to the host one at a time.
    let n = 200_000;
    let v = raw(&[n], false);
    v.fill(Side::Device, &1.0f64.to_ne_bytes()).unwrap();
    for i in (0..n).step_by(2) {
        sub(&v, &[Slice::Range(i, i + 1)]).sync(Side::Host).unwrap();
    }
    let m = v.coherence();
    assert_eq!((m.device_newer, m.bitmap), (n / 2, true));
    assert!(m.bytes <= bound(n), "{} bytes for {n} elements", m.bytes);
    assert_eq!(v.stats().to_host.bytes, 8 * n as u64 / 2);
    v.resize(&DynRank::new(&[n + 1000]).unwrap()).unwrap();
    assert_eq!(v.coherence().device_newer, n / 2, "the grown map keeps every fragment; the new elements are clean");
    let before = v.stats().to_host.bytes;
    v.sync(Side::Host).unwrap();
    let moved = v.stats().to_host.bytes - before;
    // The other half; the clean elements between them may ride along (one copy, not 100,000).
    assert!((8 * n as u64 / 2..8 * n as u64).contains(&moved), "{moved} bytes");
    assert!(side(&v, Side::Host)[..n].iter().all(|&x| x == 1.0));
    assert_eq!(v.coherence(), dualview::MapInfo::default(), "all clean again: the bitmap is freed");
    // 2D: a checkerboard of 100,000 single elements written on the host and marked one by one.
    let v = raw(&[400, 500], false);
    for i in 0..400 {
        for j in (i % 2..500).step_by(2) {
            let e = sub(&v, &[Slice::Range(i, i + 1), Slice::Range(j, j + 1)]);
            write(&e, Side::Host, (i * 500 + j) as f64);
            e.modify(Side::Host).unwrap();
        }
    }
    let m = v.coherence();
    assert_eq!((m.host_newer, m.bitmap), (100_000, true));
    assert!(m.bytes <= bound(200_000), "{} bytes", m.bytes);
    v.resize(&DynRank::new(&[300, 600]).unwrap()).unwrap();
    // The kept rows' fragments, and the new columns: Kokkos' host counter is set, so the
    // host may write them before its sync.
    assert_eq!(v.coherence().host_newer, 300 * 250 + 300 * 100);
    v.sync(Side::Device).unwrap();
    let d = side(&v, Side::Device);
    for i in 0..300 {
        for j in 0..600 {
            let want = if j < 500 && (i + j) % 2 == 0 { (i * 500 + j) as f64 } else { 0.0 };
            assert_eq!(d[i * 600 + j], want, "({i}, {j})");
        }
    }
}

/// Found by the soak (seeds 0x4443f9b603e1acb6, 0xca8b08c0e8d9c351): a resize
/// that grows an axis of extent 1 makes it the fastest; the fragmented map
/// must keep each element's state on that element, so the host's marked
/// write still reaches the device.
#[test]
fn a_resize_that_makes_another_axis_fastest_keeps_each_mark() {
    let m = Mapping::new(Layout::Right, DynRank::new(&[8, 1]).unwrap()).unwrap();
    let a = RawDualView::new("r", &Desc::new(ElemSpec::of::<f64>(), m, space())).unwrap();
    let one = |i: usize, j: usize| a.subview(&[Slice::Range(i, i + 1), Slice::Range(j, j + 1)]).unwrap();
    write(&one(7, 0), Side::Host, 7.0);
    one(7, 0).modify(Side::Host).unwrap();
    one(3, 0).sync(Side::Device).unwrap(); // clears Kokkos' counters
    one(0, 0).modify(Side::Device).unwrap(); // a bitmap: one host-newer, one device-newer element
    a.resize(&DynRank::new(&[8, 2]).unwrap()).unwrap();
    assert!(one(7, 0).need_sync(Side::Device) && !one(3, 1).need_sync(Side::Device));
    a.sync(Side::Device).unwrap();
    assert_eq!(side(&a, Side::Device)[7 * 2], 7.0);
}

/// Found by the fuzz engine: `resized` to extents whose bytes overflow answers
/// `Overflow` (as `resize` does) before the coherence map is sized for them.
#[test]
fn resized_to_an_overflowing_size_is_an_overflow_whatever_the_map() {
    let a = raw(&[4], false);
    a.subview(&[Slice::Range(0, 1)]).unwrap().modify(Side::Device).unwrap();
    a.subview(&[Slice::Range(2, 3)]).unwrap().modify(Side::Device).unwrap();
    let big = DynRank::new(&[i64::MAX as usize]).unwrap();
    assert_eq!(a.resize(&big).unwrap_err().kind(), dualview::ErrorKind::Overflow);
    assert_eq!(a.resized(&big).unwrap_err().kind(), dualview::ErrorKind::Overflow);
    // And the engine's own case: a LayoutRight [2, 2, 1] map grown on its last axis.
    let m = Mapping::new(Layout::Right, DynRank::new(&[2, 2, 1]).unwrap()).unwrap();
    let b = RawDualView::new("b", &Desc::new(ElemSpec::of::<f64>(), m, space())).unwrap();
    let at = |i, j, k| b.subview(&[Slice::Index(i), Slice::Index(j), Slice::Index(k)]).unwrap();
    at(0, 1, 0).modify(Side::Device).unwrap();
    at(1, 0, 0).modify(Side::Device).unwrap();
    at(0, 0, 0).sync(Side::Host).unwrap();
    b.resize(&DynRank::new(&[2, 2, 2]).unwrap()).unwrap();
    assert!(at(0, 1, 0).need_sync(Side::Host) && !at(0, 0, 1).need_sync(Side::Host));
}

/// From the review of issue 30: a deep copy within one family between
/// overlapping subviews, where the source holds elements newer on the other
/// side, gives the destination the source's values (the other side is copied
/// through one staged copy, not box by box).
#[test]
fn an_overlapping_deep_copy_within_a_family_keeps_the_sources_values() {
    let m = Mapping::new(Layout::Left, DynRank::new(&[5, 3]).unwrap()).unwrap();
    let a = RawDualView::new("o", &Desc::new(ElemSpec::of::<f64>(), m, space())).unwrap();
    {
        let v = a.view(Side::Host).unwrap();
        let h = v.data() as *mut f64;
        for k in 0..15 {
            // SAFETY: host memory of 15 f64; no other user.
            unsafe { *h.add(k) = k as f64 };
        }
    }
    a.modify(Side::Host).unwrap();
    a.subview(&[Slice::Range(1, 2), Slice::Range(1, 2)]).unwrap().sync(Side::Device).unwrap();
    let dst = a.subview(&[Slice::Range(1, 5), Slice::All]).unwrap();
    let src = a.subview(&[Slice::Range(0, 4), Slice::All]).unwrap();
    RawDualView::deep_copy(&dst, &src).unwrap();
    a.sync(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    // Row-major (as `side` reads): row 0 kept, rows 1..5 the old rows 0..4.
    let want: Vec<f64> = (0..5).flat_map(|i| (0..3).map(move |j| if i == 0 { (5 * j) as f64 } else { (5 * j + i - 1) as f64 })).collect();
    assert_eq!(side(&a, Side::Host), want);
    assert_eq!(side(&a, Side::Device), want);
}

/// Both `need_sync` answers true (SEMANTICS "Sharp edges"; Kokkos never gives
/// it): the device wrote the whole array, one half was synced to the host
/// through a subview (which clears Kokkos' counters, as in the halo idiom) and
/// then written and marked there. Each sync moves only what the other side
/// holds newer and leaves the other answer true until its own sync; two syncs,
/// in either order, make both sides equal.
#[test]
fn both_need_sync_answers_true_and_each_sync_moves_its_half() {
    for host_first in [true, false] {
        let v = raw(&[1000], false);
        let lo = sub(&v, &[Slice::Range(0, 500)]);
        write(&v, Side::Device, 2.0);
        v.modify(Side::Device).unwrap();
        lo.sync(Side::Host).unwrap();
        write(&lo, Side::Host, 1.0);
        lo.modify(Side::Host).unwrap();
        assert!(v.need_sync(Side::Host) && v.need_sync(Side::Device), "both true");
        let (first, second) = if host_first { (Side::Host, Side::Device) } else { (Side::Device, Side::Host) };
        let s0 = v.stats();
        v.sync(first).unwrap();
        let moved = |s: &dualview::Stats| s.to_host.bytes + s.to_device.bytes;
        assert_eq!(moved(&v.stats()) - moved(&s0), 500 * 8, "one half moved");
        assert!(!v.need_sync(first) && v.need_sync(second), "the other answer stays true");
        v.sync(second).unwrap();
        assert_eq!(moved(&v.stats()) - moved(&s0), 1000 * 8, "each half moved once");
        assert!(!v.need_sync(Side::Host) && !v.need_sync(Side::Device));
        let want: Vec<f64> = (0..1000).map(|i| if i < 500 { 1.0 } else { 2.0 }).collect();
        assert_eq!(side(&v, Side::Host), want, "the host holds both halves' writes");
        assert_eq!(side(&v, Side::Device), want, "the device holds both halves' writes");
    }
}

/// A `Read` access syncs its box as `sync` does (SEMANTICS, the `Read` row):
/// it copies the other-newer elements of the subview only, marks nothing, and
/// the rest stays newer on the device.
#[test]
fn a_read_access_syncs_its_box_and_marks_nothing() {
    let v = raw(&[100, 10], false);
    write(&v, Side::Device, 6.0);
    v.modify(Side::Device).unwrap();
    let rows = sub(&v, &[Slice::Range(20, 30), Slice::All]);
    let s0 = v.stats();
    rows.access(Side::Host, dualview::Access::Read).unwrap();
    assert_eq!(v.stats().to_host.bytes - s0.to_host.bytes, 10 * 10 * 8, "the subview's rows only");
    assert_eq!(v.stats().to_device.bytes, s0.to_device.bytes);
    let h = side(&v, Side::Host);
    assert!(h[200..300].iter().all(|&x| x == 6.0), "the rows arrived");
    assert!(!rows.need_sync(Side::Host) && !rows.need_sync(Side::Device), "a read marks nothing");
    assert!(v.need_sync(Side::Host), "the other rows stay newer on the device");
}
