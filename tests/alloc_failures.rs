//! Injected allocation failures through the C ABI.
//!
//! For every call that allocates (create, wrap, clone, clone_const, subview,
//! resize, realloc, resized, and the staging buffer of a copy inside one
//! DualView), on the host and on the test device: make the 1st, 2nd, ...
//! allocation point fail (`dualview::memory::inject_allocation_failure(n)`)
//! until the call succeeds. Each failure must answer DV_ERROR_OUT_OF_MEMORY,
//! write no output, and leave everything as it was: extents, data on both
//! sides, flags, handle count, live allocations and test-device bytes.
//!
//! The hook is process-wide, so everything runs in one #[test].

use dualview::ffi::dv_status_t::{self, *};
use dualview::ffi::*;
use dualview::memory::{inject_allocation_failure, live_allocations, test_device};
use std::ffi::CStr;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU8, Ordering};

const ORD: u32 = 9;

#[track_caller]
fn ok(st: dv_status_t) {
    if st != DV_OK {
        panic!("{st:?}: {}", last_error());
    }
}

fn last_error() -> String {
    // SAFETY: never NULL.
    unsafe { CStr::from_ptr(dv_last_error()) }.to_string_lossy().into_owned()
}

fn desc(space: u32, flags: u32, layout: u32, ext: &[u64]) -> dv_desc_t {
    let mut e = dv_extents_t { rank: ext.len() as u32, reserved: 0, extent: [1; 8] };
    e.extent[..ext.len()].copy_from_slice(ext);
    dv_desc_t {
        dtype: DV_DTYPE_INT32,
        elem_size: 0,
        elem_align: 0,
        layout,
        space,
        ordinal: ORD,
        flags,
        reserved: 0,
        extents: e,
        strides: [0; 8],
    }
}

fn ext(v: &[u64]) -> dv_extents_t {
    let mut e = dv_extents_t { rank: v.len() as u32, reserved: 0, extent: [1; 8] };
    e.extent[..v.len()].copy_from_slice(v);
    e
}


/// Fill a DualView with distinct values on each side and leave the device
/// modified, so that a change of data or flags cannot go unnoticed.
fn dirty(dv: *mut dv_dualview_t) {
    let v = view(dv, DV_SIDE_HOST);
    let n = v.span as usize;
    // SAFETY: host memory of `span` i32 (no other user).
    unsafe {
        for i in 0..n {
            *(v.data as *mut i32).add(i) = 1000 + i as i32;
        }
        let d = view(dv, DV_SIDE_DEVICE);
        if d.data != v.data {
            for i in 0..n {
                *(d.data as *mut i32).add(i) = 2000 + i as i32;
            }
        }
        ok(dv_modify_device(dv));
    }
}

fn view(dv: *mut dv_dualview_t, side: u32) -> dv_view_info_t {
    let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
    // SAFETY: live handle.
    ok(unsafe { if side == DV_SIDE_HOST { dv_host_view(dv, v.as_mut_ptr()) } else { dv_device_view(dv, v.as_mut_ptr()) } });
    // SAFETY: written on success.
    unsafe { v.assume_init() }
}

/// Everything observable about one DualView and the process.
#[derive(Debug, PartialEq)]
struct Snap {
    extents: Vec<dv_extents_t>,
    flags: Vec<(bool, bool, u8)>,
    data: Vec<(Vec<i32>, Vec<i32>)>,
    handles: usize,
    allocations: Vec<(String, usize)>,
    device_bytes: usize,
}

fn snap(dvs: &[*mut dv_dualview_t]) -> Snap {
    let mut s = Snap { extents: vec![], flags: vec![], data: vec![], handles: 0, allocations: vec![], device_bytes: 0 };
    for &dv in dvs {
        // SAFETY: live handles; writable outputs.
        unsafe {
            let mut e = dv_extents_t { rank: 0, reserved: 0, extent: [0; 8] };
            ok(dv_extents(dv, &mut e));
            s.extents.push(e);
            let (mut h, mut d) = (false, false);
            ok(dv_need_sync_host(dv, &mut h));
            ok(dv_need_sync_device(dv, &mut d));
            let mut w: *const u8 = std::ptr::null();
            ok(dv_sync_state_word(dv, &mut w));
            s.flags.push((h, d, (*(w as *const AtomicU8)).load(Ordering::Acquire)));
            let read = |side| {
                let v = view(dv, side);
                (0..v.span as usize).map(|i| *(v.data as *const i32).add(i)).collect::<Vec<i32>>()
            };
            s.data.push((read(DV_SIDE_HOST), read(DV_SIDE_DEVICE)));
        }
    }
    // SAFETY: writable output.
    ok(unsafe { dv_handle_count(&mut s.handles) });
    s.allocations = live_allocations().into_iter().map(|a| (a.label, a.bytes)).collect();
    s.allocations.sort();
    s.device_bytes = test_device::used_bytes(ORD).unwrap();
    s
}

/// Run `op` with the n-th allocation point failing, n = 1, 2, ... until it
/// succeeds; every failure must be OUT_OF_MEMORY and change nothing that
/// `watch` shows. Returns how many allocation points the call has.
fn sweep(name: &str, watch: &[*mut dv_dualview_t], mut op: impl FnMut() -> (dv_status_t, *mut dv_dualview_t)) -> (u64, *mut dv_dualview_t) {
    for n in 1..=64u64 {
        let before = snap(watch);
        inject_allocation_failure(n);
        let (st, out) = op();
        inject_allocation_failure(0);
        match st {
            DV_ERROR_OUT_OF_MEMORY => {
                let msg = last_error();
                assert!(msg.starts_with("dv_") && msg.contains("injected"), "{name}: message {msg:?}");
                assert!(out.is_null(), "{name}: *out written on failure (point {n})");
                assert_eq!(snap(watch), before, "{name}: a failure at allocation point {n} changed something");
                if std::env::var("DV_OOM_TRACE").is_ok() {
                    eprintln!("    {name} point {n}: {msg}");
                }
            }
            DV_OK => return (n - 1, out),
            e => panic!("{name}: allocation point {n} answered {e:?}: {}", last_error()),
        }
    }
    panic!("{name}: still failing after 64 allocation points");
}

#[test]
fn every_allocation_point_fails_cleanly() {
    // The driver's bytes are the oracle of "nothing changed": a small block the engine keeps
    // for reuse (as on CUDA) would read as a change, so this device frees them at once
    // (kept blocks: tests/engine.rs small_device_blocks_are_kept_and_reused).
    test_device::set_keeps_small_blocks(ORD, false).unwrap();
    let mut points: Vec<(String, u64)> = vec![];
    let mut note = |what: &str, n: u64| {
        points.push((what.to_string(), n));
    };
    let start = snap(&[]);
    let spaces = [
        ("two-space (test device)", DV_SPACE_TEST_DEVICE, 0),
        ("host only", DV_SPACE_HOST, 0),
        ("single space on the test device", DV_SPACE_TEST_DEVICE, DV_FLAG_SINGLE_SPACE),
    ];
    for (kind, space, flags) in spaces {
        for layout in [DV_LAYOUT_LEFT, DV_LAYOUT_RIGHT] {
            let d = desc(space, flags, layout, &[5, 3]);

            // dv_create
            let (n, a) = sweep("dv_create", &[], || {
                let mut out = null_mut();
                // SAFETY: valid arguments.
                (unsafe { dv_create(c"oom_a".as_ptr(), &d, &mut out) }, out)
            });
            note(&format!("dv_create, {kind}"), n);
            assert!(n >= 2, "dv_create has a data and a handle allocation point");
            dirty(a);

            // dv_clone, dv_clone_const, dv_subview: the handle table.
            for (name, konst) in [("dv_clone", false), ("dv_clone_const", true)] {
                let (n, c) = sweep(name, &[a], || {
                    let mut out = null_mut();
                    // SAFETY: live handle.
                    (unsafe { if konst { dv_clone_const(a, &mut out) } else { dv_clone(a, &mut out) } }, out)
                });
                note(&format!("{name}, {kind}"), n);
                // SAFETY: the clone just made.
                ok(unsafe { dv_destroy(c) });
            }
            let ranges = [
                dv_range_t { kind: DV_RANGE, reserved: 0, begin: 1, end: 4 },
                dv_range_t { kind: DV_INDEX, reserved: 0, begin: 2, end: 0 },
            ];
            let (n, mut sub) = sweep("dv_subview", &[a], || {
                let mut out = null_mut();
                // SAFETY: two ranges.
                (unsafe { dv_subview(a, ranges.as_ptr(), 2, &mut out) }, out)
            });
            note(&format!("dv_subview, {kind}"), n);

            // Copies inside one DualView go through a staging buffer.
            let row = |i: u64| {
                let r = [
                    dv_range_t { kind: DV_INDEX, reserved: 0, begin: i, end: 0 },
                    dv_range_t { kind: DV_ALL, reserved: 0, begin: 0, end: 0 },
                ];
                let mut out = null_mut();
                // SAFETY: two ranges.
                ok(unsafe { dv_subview(a, r.as_ptr(), 2, &mut out) });
                out
            };
            let (r0, r1) = (row(0), row(1));
            let (n, _) = sweep("dv_view_copy", &[a], || {
                // SAFETY: live handles.
                (unsafe { dv_view_copy(r0, DV_SIDE_DEVICE, r1, DV_SIDE_DEVICE) }, null_mut())
            });
            note(&format!("dv_view_copy within one DualView, {kind}"), n);
            assert!(n >= 1, "a copy between two views of one allocation stages");
            // SAFETY: the device is the newer side here (dirty), so deep_copy copies device to device.
            ok(unsafe { dv_sync_host(a) });
            ok(unsafe { dv_modify_device(a) });
            let (n, _) = sweep("dv_deep_copy", &[a], || {
                // SAFETY: live handles.
                (unsafe { dv_deep_copy(r1, r0) }, null_mut())
            });
            note(&format!("dv_deep_copy within one DualView, {kind}"), n);
            // SAFETY: own subviews.
            unsafe {
                ok(dv_destroy(r0));
                ok(dv_destroy(r1));
            }
            dirty(a);

            // Calls that must not allocate at all.
            let (n, _) = sweep("dv_sync_host", &[a], || (unsafe { dv_sync_host(a) }, null_mut()));
            note(&format!("dv_sync_host, {kind}"), n);
            let v = 7i32;
            let (n, _) = sweep("dv_fill_and_modify_device", &[a], || {
                // SAFETY: one i32.
                (unsafe { dv_fill_and_modify_device(a, (&v as *const i32).cast()) }, null_mut())
            });
            note(&format!("dv_fill_and_modify_device, {kind}"), n);
            dirty(a);

            // dv_resized: a new DualView.
            let e = ext(&[7, 2]);
            let (n, r) = sweep("dv_resized", &[a, sub], || {
                let mut out = null_mut();
                // SAFETY: valid arguments.
                (unsafe { dv_resized(a, &e, &mut out) }, out)
            });
            note(&format!("dv_resized, {kind}"), n);
            assert!(n >= 2);
            // SAFETY: the new DualView.
            ok(unsafe { dv_destroy(r) });

            // dv_resize and dv_realloc: in place; on failure the subview stays fresh.
            for (name, f) in [
                ("dv_resize", dv_resize as unsafe extern "C" fn(*const dv_dualview_t, *const dv_extents_t) -> dv_status_t),
                ("dv_realloc", dv_realloc),
                ("dv_realloc_without_initializing", dv_realloc_without_initializing),
            ] {
                dirty(a);
                let mut cur = dv_extents_t { rank: 0, reserved: 0, extent: [0; 8] };
                // SAFETY: writable output.
                ok(unsafe { dv_extents(a, &mut cur) });
                let e = ext(&[cur.extent[0] + 1, 3]);
                let (n, _) = sweep(name, &[a, sub], || {
                    let mut info = dv_info_t::default();
                    // SAFETY: live handle.
                    ok(unsafe { dv_info(sub, &mut info) });
                    assert_eq!(info.bits & DV_INFO_STALE, 0, "{name}: a failed call made the subview stale");
                    (unsafe { f(a, &e) }, null_mut())
                });
                note(&format!("{name}, {kind}"), n);
                assert!(n >= 1);
                let mut info = dv_info_t::default();
                // SAFETY: live handle.
                ok(unsafe { dv_info(sub, &mut info) });
                assert_ne!(info.bits & DV_INFO_STALE, 0, "{name}: the successful call left the subview fresh");
                // Same extents: no new allocation.
                let (n, _) = sweep(name, &[a], || (unsafe { f(a, &e) }, null_mut()));
                note(&format!("{name} to the same extents, {kind}"), n);
                assert_eq!(n, 0);
                // A fresh subview for the next round.
                // SAFETY: own handle.
                ok(unsafe { dv_destroy(sub) });
                (_, sub) = sweep("dv_subview", &[a], || {
                    let mut out = null_mut();
                    // SAFETY: two ranges.
                    (unsafe { dv_subview(a, ranges.as_ptr(), 2, &mut out) }, out)
                });
            }
            // SAFETY: own handles.
            unsafe {
                ok(dv_destroy(sub));
                ok(dv_destroy(a));
            }
        }
        // dv_wrap: the handle table only.
        let d = desc(space, flags, DV_LAYOUT_LEFT, &[4, 4]);
        let mut host = vec![0i32; 16];
        let mut dev = vec![0i32; 16];
        let two = space == DV_SPACE_TEST_DEVICE && flags & DV_FLAG_SINGLE_SPACE == 0;
        let dp = if two { dev.as_mut_ptr().cast() } else { null_mut() };
        let (n, w) = sweep("dv_wrap", &[], || {
            let mut out = null_mut();
            // SAFETY: 16 i32 each, alive until the handle is destroyed below.
            (unsafe { dv_wrap(c"oom_w".as_ptr(), &d, host.as_mut_ptr().cast(), dp, &mut out) }, out)
        });
        note(&format!("dv_wrap, {kind}"), n);
        assert_eq!(n, 1);
        // SAFETY: own handle.
        ok(unsafe { dv_destroy(w) });
    }
    coherence_map_allocations_fail_cleanly(&mut note);
    assert_eq!(snap(&[]), start, "something leaked");
    eprintln!("allocation points per call:");
    for (what, n) in &points {
        eprintln!("  {n}  {what}");
    }
}

/// Issue 30: the coherence map may refuse a call only when its bitmap cannot
/// be had, with OutOfMemory, and nothing changed (map, flags, both sides'
/// data). A map of 64 boxes on 200,000 elements: each call below needs the
/// bitmap (a 65th region, a resize of the bitmap, a deep copy into it).
fn coherence_map_allocations_fail_cleanly(note: &mut impl FnMut(&str, u64)) {
    use dualview::{Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Slice, Space};
    let n = 200_000;
    let make = |label: &str, n: usize| {
        let m = Mapping::new(Layout::Right, DynRank::new(&[n]).unwrap()).unwrap();
        RawDualView::new(label, &Desc::new(ElemSpec::of::<i32>(), m, Space::test_device(ORD))).unwrap()
    };
    let a = make("oom_map", n);
    let src = make("oom_map_src", n);
    a.fill(Side::Device, &5i32.to_ne_bytes()).unwrap();
    src.fill(Side::Host, &9i32.to_ne_bytes()).unwrap(); // a deep copy from it writes the host side
    for i in 0..64 {
        a.subview(&[Slice::Range(3 * i, 3 * i + 1)]).unwrap().sync(Side::Host).unwrap();
    }
    assert!(!a.coherence().bitmap && a.coherence().boxes == 64, "{:?}", a.coherence());
    let side = |s: Side| {
        let v = a.view(s).unwrap();
        // SAFETY: host / test-device memory of `a.mapping().span()` i32; no other user now.
        unsafe { std::slice::from_raw_parts(v.data() as *const i32, a.mapping().span()) }.to_vec()
    };
    type Call<'a> = Box<dyn Fn() -> dualview::Result<()> + 'a>;
    let mut calls: Vec<(&str, Call)> = vec![
        ("a subview sync that needs the bitmap", Box::new(|| a.subview(&[Slice::Range(500, 501)]).unwrap().sync(Side::Host))),
        ("a subview modify that needs the bitmap", Box::new(|| {
            // A fresh subview sync first (it needs the bitmap too when the map is still boxes).
            a.subview(&[Slice::Range(700, 702)]).unwrap().modify(Side::Host)
        })),
        ("a resize of the bitmap", Box::new(|| a.resize(&DynRank::new(&[n + 100]).unwrap()))),
        ("a deep copy into a subview of the bitmap", Box::new(|| RawDualView::deep_copy(&a.subview(&[Slice::Range(900, 1000)]).unwrap(), &src.subview(&[Slice::Range(0, 100)]).unwrap()))),
    ];
    for (name, call) in calls.drain(..) {
        let mut points = 0;
        for k in 1..=64u64 {
            let before = (a.coherence(), a.sync_state(), a.extents(), side(Side::Host), side(Side::Device));
            inject_allocation_failure(k);
            let r = call();
            inject_allocation_failure(0);
            match r {
                Err(e) if e.kind() == ErrorKind::OutOfMemory => {
                    assert!(e.to_string().contains("injected"), "{name}: {e}");
                    let after = (a.coherence(), a.sync_state(), a.extents(), side(Side::Host), side(Side::Device));
                    assert!(after == before, "{name}: a failure at allocation point {k} changed something");
                }
                Ok(()) => {
                    points = k - 1;
                    break;
                }
                Err(e) => panic!("{name}: allocation point {k} answered {e}"),
            }
        }
        note(&format!("{name} (the coherence map)"), points);
        if name.starts_with("a subview sync") {
            assert!(points >= 1 && a.coherence().bitmap, "the bitmap is an allocation point: {points}");
        }
    }
    drop(calls);
    drop((a, src));
    // A fill and a push that need the bitmap (the review of issue 30): refused before any
    // data is written or any mark published.
    for what in ["fill", "push"] {
        let b = make("oom_map_b", n);
        b.fill(Side::Device, &5i32.to_ne_bytes()).unwrap();
        for i in 0..63 {
            b.subview(&[Slice::Range(3 * i, 3 * i + 1)]).unwrap().sync(Side::Host).unwrap();
        }
        b.subview(&[Slice::Range(1000, 1010)]).unwrap().modify(Side::Host).unwrap();
        assert_eq!(b.coherence().boxes, 64);
        let read = |s: Side| {
            let v = b.view(s).unwrap();
            // SAFETY: host / test-device memory of `span` i32; no other user now.
            unsafe { std::slice::from_raw_parts(v.data() as *const i32, b.mapping().span()) }.to_vec()
        };
        let before = (b.coherence(), b.sync_state(), b.stats().fills, read(Side::Host), read(Side::Device));
        inject_allocation_failure(1);
        // A 65th box: the fill's host box apart from the others, the push's clean box next to
        // the host-newer one (another state: no join).
        let sub = if what == "fill" { b.subview(&[Slice::Range(700, 702)]) } else { b.subview(&[Slice::Range(1010, 1015)]) }.unwrap();
        let r = if what == "fill" { sub.fill(Side::Host, &9i32.to_ne_bytes()) } else { sub.push(Side::Host) };
        inject_allocation_failure(0);
        assert_eq!(r.unwrap_err().kind(), ErrorKind::OutOfMemory, "{what}");
        let after = (b.coherence(), b.sync_state(), b.stats().fills, read(Side::Host), read(Side::Device));
        assert!(after == before, "{what}: a refused call changed the map, the flags or the data");
        note(&format!("a {what} that needs the bitmap (the coherence map)"), 1);
    }
}
