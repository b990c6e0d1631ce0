//! Regression tests for the data-loss, crash and soundness findings of the
//! reliability review (issue "Reliability", items 1 to 17), each named after
//! its item. The C ABI ones live in tests/c/bad_input.c; the Fortran ones in
//! examples_fortran/; the CUDA context one in tests/gpu.rs.

use dualview::space::live_allocations;
use dualview::{Dims, DualView, DynRank, ErrorKind, Layout, RawDualView, Side, Slice, Space};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;

const DEV: Space = Space::test_device(7);

fn raw(extents: &[usize]) -> RawDualView {
    dualview::doc::raw::<f64>(extents, DEV)
}

fn read(r: &RawDualView, side: Side) -> Vec<f64> {
    let v = r.view(side).unwrap();
    // SAFETY: test-device memory is host memory of `span` elements; nobody writes meanwhile.
    unsafe { std::slice::from_raw_parts(v.data() as *const f64, v.span()) }.to_vec()
}

#[test]
fn item01_stale_subview_refuses_flag_calls_and_keeps_the_family_flags() {
    let a = raw(&[4, 3]);
    let row = a.subview(&[Slice::Index(1), Slice::All]).unwrap();
    a.resize(&DynRank::new(&[8, 3]).unwrap()).unwrap();
    a.modify(Side::Host).unwrap(); // a pending host change of the family
    assert_eq!(row.clear_sync_state().unwrap_err().kind(), ErrorKind::Stale);
    assert_eq!(row.try_need_sync(Side::Device).unwrap_err().kind(), ErrorKind::Stale);
    assert_eq!(row.sync(Side::Host).unwrap_err().kind(), ErrorKind::Stale); // nothing to copy, still stale
    assert_eq!(row.modify(Side::Host).unwrap_err().kind(), ErrorKind::Stale);
    assert!(a.need_sync(Side::Device), "the family's pending change survived");
}

#[test]
fn item02_const_handles_refuse_what_writes_data() {
    let a = raw(&[4]);
    a.fill(Side::Host, &1.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Device).unwrap();
    let c = a.as_const();
    let e = DynRank::new(&[4]).unwrap();
    for (what, r) in [
        ("view_fill", c.view_fill(Side::Host, &9.0f64.to_ne_bytes())),
        ("view_copy", RawDualView::view_copy(&c, Side::Host, &a, Side::Device)),
        ("fill", c.fill(Side::Device, &9.0f64.to_ne_bytes())),
        ("deep_copy", RawDualView::deep_copy(&c, &a)),
        ("realloc same size", c.realloc(&e, true)),
        ("resize", c.resize(&DynRank::new(&[6]).unwrap())),
        ("clear_sync_state", c.clear_sync_state()),
    ] {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::InvalidArgument, "{what}");
    }
    assert_eq!(read(&a, Side::Host), vec![1.0; 4]);
    assert_eq!(read(&a, Side::Device), vec![1.0; 4]);
    // What remains: reads, syncs with nothing to copy, modify (records, writes nothing).
    c.sync(Side::Host).unwrap();
    c.modify(Side::Host).unwrap();
    assert!(a.need_sync(Side::Device));
}

#[test]
fn item03_view_copies_are_serialised_with_fills() {
    let a = raw(&[64, 64]);
    let b = raw(&[64, 64]);
    let stop = AtomicBool::new(false);
    let start = Barrier::new(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            start.wait();
            for k in 0..2000 {
                a.view_fill(Side::Host, &f64::from(k).to_ne_bytes()).unwrap();
            }
            stop.store(true, Ordering::Release);
        });
        start.wait();
        let mut copies = 0;
        while !stop.load(Ordering::Acquire) || copies == 0 {
            RawDualView::view_copy(&b, Side::Host, &a, Side::Host).unwrap();
            let v = read(&b, Side::Host);
            assert!(v.iter().all(|&x| x == v[0]), "a copy saw a fill half done");
            copies += 1;
        }
    });
}

#[test]
fn item04_two_space_wrap_of_overlapping_ranges_is_refused() {
    let mut buf = vec![0f64; 16];
    let m = dualview::Mapping::new(Layout::Left, DynRank::new(&[8]).unwrap()).unwrap();
    let desc = dualview::Desc::new(dualview::ElemSpec::of::<f64>(), m, DEV);
    let p = std::ptr::NonNull::new(buf.as_mut_ptr() as *mut u8).unwrap();
    // SAFETY: 16 f64 from p; the device range starts 4 elements in: overlapping.
    let q = unsafe { std::ptr::NonNull::new_unchecked(buf.as_mut_ptr().add(4) as *mut u8) };
    let e = unsafe { RawDualView::wrap("overlap", &desc, p, Some(q)) }.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("overlap"), "{e}");
    // SAFETY: two disjoint halves.
    let r = unsafe { std::ptr::NonNull::new_unchecked(buf.as_mut_ptr().add(8) as *mut u8) };
    assert!(unsafe { RawDualView::wrap("halves", &desc, p, Some(r)) }.is_ok());
}

/// Without a driver the wrap is refused at once; with a GPU, wrapping real
/// device memory works (a host -> device -> host round trip through it).
#[test]
fn item09_wrap_of_a_cuda_space_without_a_driver_answers_no_device_at_once() {
    let mut buf: Vec<f64> = (0..8).map(f64::from).collect();
    let m = dualview::Mapping::new(Layout::Left, DynRank::new(&[8]).unwrap()).unwrap();
    let desc = dualview::Desc::new(dualview::ElemSpec::of::<f64>(), m, Space::cuda(0));
    let p = std::ptr::NonNull::new(buf.as_mut_ptr() as *mut u8).unwrap();
    if dualview::space::cuda_device_count() == 0 {
        let d = std::ptr::NonNull::new(0x1000 as *mut u8).unwrap();
        // SAFETY: refused before any access.
        let e = unsafe { RawDualView::wrap("gpu", &desc, p, Some(d)) }.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoDevice);
        return;
    }
    let dev = dualview::View::new("d", desc.elem, m, Space::cuda(0), true).unwrap();
    let d = std::ptr::NonNull::new(dev.data()).unwrap();
    // SAFETY: `buf` and `dev` hold 8 f64 each and outlive the handle.
    let w = unsafe { RawDualView::wrap("gpu", &desc, p, Some(d)) }.unwrap();
    w.modify(Side::Host).unwrap();
    w.sync(Side::Device).unwrap();
    w.view_fill(Side::Host, &0f64.to_ne_bytes()).unwrap();
    w.modify(Side::Device).unwrap();
    w.sync(Side::Host).unwrap();
    drop(w);
    assert_eq!(buf, (0..8).map(f64::from).collect::<Vec<_>>(), "the values went to the device and back");
}

#[test]
fn item13_writers_never_change_a_borrowed_slice() {
    let a = DualView::<f64, Dims<1>>::builder("shared", Dims::new([1024]).unwrap()).device(DEV).build().unwrap();
    a.fill_host(1.0).unwrap();
    let reading = Barrier::new(2);
    let done = Barrier::new(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            reading.wait(); // the other thread holds a shared guard now
            assert_eq!(a.fill_host(2.0).unwrap_err().kind(), ErrorKind::Busy);
            assert_eq!(a.raw().view_fill(Side::Host, &3.0f64.to_ne_bytes()).unwrap_err().kind(), ErrorKind::Busy);
            done.wait();
        });
        let h = a.host().unwrap();
        reading.wait();
        done.wait();
        assert!(h.as_slice().unwrap().iter().all(|&x| x == 1.0));
    });
    a.fill_host(2.0).unwrap(); // free again
}

#[test]
fn item16_empty_dual_views_hand_out_aligned_pointers() {
    for n in [0usize, 1] {
        let a = DualView::<f64, Dims<2>>::builder("empty", Dims::new([n, 0]).unwrap()).device(DEV).build().unwrap();
        let h = a.host().unwrap();
        assert_eq!(h.as_ptr() as usize % std::mem::align_of::<f64>(), 0);
        assert!(h.as_slice().unwrap().is_empty());
        drop(h);
        let r = a.raw().clone();
        r.resize(&DynRank::new(&[0, 0]).unwrap()).unwrap();
        assert_eq!(r.view(Side::Device).unwrap().data() as usize % 64, 0);
    }
}

#[test]
fn item17_a_row_read_does_not_leave_the_rest_stale() {
    // A device-side update of the whole array, then a host read of one row, then a host edit.
    let a = DualView::<f64, Dims<2>>::builder("field", Dims::new([3, 4]).unwrap()).layout(Layout::Right).device(DEV).build().unwrap();
    {
        let mut d = a.device_mut().unwrap();
        for (k, x) in d.as_mut_slice().unwrap().iter_mut().enumerate() {
            *x = k as f64 + 1.0;
        }
    }
    let row = a.subview(&[Slice::Index(1), Slice::All]).unwrap();
    assert_eq!(row.host().unwrap().to_vec().unwrap(), vec![5.0, 6.0, 7.0, 8.0]);
    {
        let mut h = a.host_mut().unwrap(); // the host edit
        *h.get_mut([0, 0]).unwrap() = -1.0;
    }
    let d = a.device().unwrap().to_vec().unwrap();
    let want: Vec<f64> = (1..=12).map(|k| if k == 1 { -1.0 } else { k as f64 }).collect();
    assert_eq!(d, want, "every device value survived the row read and the host edit");
}

#[test]
fn item17_subview_changes_sync_exactly_their_region() {
    let a = raw(&[6, 4]); // LayoutLeft on the test device
    let col = a.subview(&[Slice::All, Slice::Index(2)]).unwrap();
    col.fill(Side::Device, &5.0f64.to_ne_bytes()).unwrap();
    let rows = a.subview(&[Slice::Range(0, 2), Slice::All]).unwrap();
    rows.fill(Side::Device, &7.0f64.to_ne_bytes()).unwrap();
    a.reset_stats();
    a.sync(Side::Host).unwrap();
    // column 2 (6 elements) and rows 0-1 (8 elements) overlap in 2: at most 14 copied, not 24.
    assert!(a.stats().to_host.bytes <= 14 * 8, "{:?}", a.stats());
    let h = read(&a, Side::Host);
    assert_eq!(h[2 * 6 + 4], 5.0); // (4, 2)
    assert_eq!(h[3 * 6 + 1], 7.0); // (1, 3)
    assert_eq!(h[3 * 6 + 5], 0.0); // untouched
    assert_eq!(h, read(&a, Side::Device));
}

#[test]
fn leak_registry_lists_live_allocations_with_labels() {
    let a = DualView::<u8, Dims<1>>::builder("registry_probe", Dims::new([333]).unwrap()).device(DEV).build().unwrap();
    let live = live_allocations();
    assert!(live.iter().any(|x| x.label == "registry_probe" && x.bytes == 333 && x.space == DEV));
    assert!(live.iter().any(|x| x.label == "registry_probe_mirror" && x.bytes == 333 && x.space == Space::HOST));
    drop(a);
    assert!(!live_allocations().iter().any(|x| x.label.starts_with("registry_probe")));
}

/// README: the flags are atomic and thread-safe. Threads race to modify the
/// two sides of one clean DualView: exactly one side wins each round, every
/// call for that side succeeds, every call for the other answers
/// ConcurrentModification, and no call is lost or half-applied.
#[test]
fn thread_safe_flags_one_side_wins_each_race() {
    let a = raw(&[64]);
    for round in 0..200 {
        a.clear_sync_state().unwrap();
        let start = Barrier::new(8);
        let results: Vec<(Side, bool)> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|t| {
                    let (a, start) = (a.clone(), &start);
                    let side = if (t + round) % 2 == 0 { Side::Host } else { Side::Device };
                    s.spawn(move || {
                        start.wait();
                        match a.modify(side) {
                            Ok(()) => (side, true),
                            Err(e) => {
                                assert_eq!(e.kind(), ErrorKind::ConcurrentModification, "{e}");
                                (side, false)
                            }
                        }
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let winner = if a.need_sync(Side::Device) { Side::Host } else { Side::Device };
        assert!(a.need_sync(winner.other()) && !a.need_sync(winner), "round {round}: one side is newer");
        for (side, ok) in results {
            assert_eq!(ok, side == winner, "round {round}: {side:?} succeeded = {ok}, winner {winner:?}");
        }
    }
}

/// README: `DV_TRACE=1` logs each copying sync on stderr (label, direction,
/// bytes). The setting is read once per process, so the test runs itself again
/// as a child process with the variable set.
#[test]
fn dv_trace_logs_each_copying_sync() {
    if std::env::var_os("DV_TRACE_CHILD").is_some() {
        let a = raw(&[1000]);
        a.modify(Side::Host).unwrap();
        a.sync(Side::Device).unwrap(); // 8000 bytes to the device
        a.sync(Side::Device).unwrap(); // nothing to copy: no line
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["dv_trace_logs_each_copying_sync", "--exact", "--nocapture", "--test-threads", "1"])
        .env("DV_TRACE", "1")
        .env("DV_TRACE_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("dualview: sync")).collect();
    assert_eq!(lines.len(), 1, "one copying sync, one line: {err}");
    assert!(lines[0].contains("host->device 8000 B"), "{}", lines[0]);
}
