//! GPU tests of the CUDA spaces. Each one prints a visible SKIPPED line and
//! returns when no CUDA device is present; `scripts/gpu-check.sh` runs them
//! on a GPU machine (and again under compute-sanitizer).

use dualview::memory::cuda_device_count;
use dualview::{Desc, DynRank, ElemSpec, ErrorKind, Extents, Layout, Mapping, RawDualView, Side, Slice, Space, Stream, View};

/// Whether a GPU is present; otherwise say so on stderr, past the test harness's capture.
fn gpu(test: &str) -> bool {
    if cuda_device_count() == 0 {
        skipped(test, "no CUDA device on this machine");
        return false;
    }
    true
}

fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Device 0's primary context made current on this thread for raw driver
/// calls, as a CUDA runtime program has it (dualview leaves the caller's
/// context current, here none); released and made not current on drop.
struct PrimaryContext(cudarc::driver::sys::CUdevice);

impl PrimaryContext {
    fn current() -> PrimaryContext {
        use cudarc::driver::sys;
        let (mut dev, mut ctx): (sys::CUdevice, sys::CUcontext) = (0, std::ptr::null_mut());
        // SAFETY: the driver is initialised (a CUDA DualView exists); plain calls with valid out-pointers.
        unsafe {
            assert_eq!(sys::cuDeviceGet(&mut dev, 0), sys::CUresult::CUDA_SUCCESS);
            assert_eq!(sys::cuDevicePrimaryCtxRetain(&mut ctx, dev), sys::CUresult::CUDA_SUCCESS);
            assert_eq!(sys::cuCtxSetCurrent(ctx), sys::CUresult::CUDA_SUCCESS);
        }
        PrimaryContext(dev)
    }
}

impl Drop for PrimaryContext {
    fn drop(&mut self) {
        use cudarc::driver::sys;
        // SAFETY: undo `current`: no context current, the retained one released.
        unsafe {
            sys::cuCtxSetCurrent(std::ptr::null_mut());
            sys::cuDevicePrimaryCtxRelease_v2(self.0);
        }
    }
}

fn dv(space: Space, layout: Layout, ext: &[usize], elem: usize) -> RawDualView {
    let m = Mapping::new(layout, DynRank::new(ext).unwrap()).unwrap();
    RawDualView::new("G", &Desc::new(ElemSpec::new(elem, elem.min(16)).unwrap(), m, space)).unwrap()
}

/// Row-major bytes of a view, read through a packed host copy.
fn read(v: &View) -> Vec<u8> {
    let packed = Mapping::new(Layout::Right, *v.extents()).unwrap();
    let h = View::new("readback", v.elem(), packed, Space::HOST, true).unwrap();
    // SAFETY: the test owns both views.
    unsafe { h.copy_from(v) }.unwrap();
    // SAFETY: a packed host view of size() elements.
    unsafe { std::slice::from_raw_parts(h.data(), h.size() * v.elem().size()) }.to_vec()
}

/// Write `pattern(k)` for element k (row-major) into a host-accessible view.
fn write(v: &View, pattern: impl Fn(usize) -> u8) {
    let es = v.elem().size();
    let n = v.size();
    let bytes: Vec<u8> = (0..n * es).map(&pattern).collect();
    let packed = Mapping::new(Layout::Right, *v.extents()).unwrap();
    let h = View::new("src", v.elem(), packed, Space::HOST, true).unwrap();
    // SAFETY: a packed host view of n elements.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), h.data(), bytes.len()) };
    // SAFETY: the test owns these views; nothing else uses them.
    unsafe { v.copy_from(&h) }.unwrap();
}

fn pattern(seed: usize) -> impl Fn(usize) -> u8 {
    move |k| ((k * 131 + seed * 7) % 251) as u8
}

/// Host -> device -> host round trip through sync, checked byte for byte.
fn round_trip(a: &RawDualView, seed: usize) {
    let h = a.view(Side::Host).unwrap();
    write(&h, pattern(seed));
    let want = read(&h);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    assert_eq!(read(&a.view(Side::Device).unwrap()), want, "device after sync_device");
    write(&h, |_| 0);
    a.clear_sync_state().unwrap();
    a.modify(Side::Device).unwrap();
    a.sync(Side::Host).unwrap();
    assert_eq!(read(&h), want, "host after sync_host");
}

#[test]
fn every_direction_for_left_right_and_strided_subviews() {
    if !gpu("every_direction_for_left_right_and_strided_subviews") {
        return;
    }
    for layout in [Layout::Left, Layout::Right] {
        let a = dv(Space::cuda(0), layout, &[37, 19], 8);
        round_trip(&a, 1);
        // strided subviews: a block, a column, a row
        for slices in [
            vec![Slice::Range(3, 20), Slice::Range(2, 11)],
            vec![Slice::All, Slice::Index(5)],
            vec![Slice::Index(7), Slice::All],
        ] {
            let sub = a.subview(&slices).unwrap();
            round_trip(&sub, 2);
            // the parent outside the subview kept its values on the device
            assert_eq!(read(&a.view(Side::Device).unwrap()).len(), 37 * 19 * 8);
        }
    }
}

#[test]
fn ranks_1_to_8_and_strided_subviews() {
    if !gpu("ranks_1_to_8_and_strided_subviews") {
        return;
    }
    for rank in 1..=8usize {
        let ext: Vec<usize> = (0..rank).map(|r| [5, 3, 4, 2][r % 4]).collect();
        for layout in [Layout::Left, Layout::Right] {
            let a = dv(Space::cuda(0), layout, &ext, 4);
            round_trip(&a, rank);
            let slices: Vec<Slice> = ext.iter().map(|&e| Slice::Range(1, e)).collect();
            round_trip(&a.subview(&slices).unwrap(), rank + 10);
        }
    }
}

#[test]
fn element_sizes_1_2_4_8_16_fill_and_sync() {
    if !gpu("element_sizes_1_2_4_8_16_fill_and_sync") {
        return;
    }
    for es in [1usize, 2, 4, 8, 16] {
        let a = dv(Space::cuda(0), Layout::Left, &[33, 7], es);
        round_trip(&a, es);
        for value in [vec![0u8; es], vec![0xAB; es], (1..=es as u8).collect::<Vec<u8>>()] {
            a.clear_sync_state().unwrap();
            a.fill(Side::Device, &value).unwrap();
            let got = read(&a.view(Side::Device).unwrap());
            assert!(got.chunks(es).all(|c| c == value.as_slice()), "fill {es}-byte {value:?}");
            // strided fill touches only the subview
            a.clear_sync_state().unwrap();
            a.fill(Side::Device, &vec![0u8; es]).unwrap();
            let sub = a.subview(&[Slice::Range(2, 30), Slice::Range(1, 6)]).unwrap();
            sub.clear_sync_state().unwrap();
            sub.fill(Side::Device, &value).unwrap();
            let full = read(&a.view(Side::Device).unwrap());
            let touched = full.chunks(es).filter(|c| *c == value.as_slice()).count();
            if value.iter().any(|&b| b != 0) {
                assert_eq!(touched, 28 * 5, "strided fill {es}-byte");
            }
        }
    }
}

/// Blocking tiny syncs to the device (DECISIONS G8) of regions of every element size,
/// start and length up to 92 elements: the device holds what the host wrote, in the
/// region and only there.
#[test]
fn tiny_syncs_to_the_device_are_exact_at_every_length_and_alignment() {
    if !gpu("tiny_syncs_to_the_device_are_exact_at_every_length_and_alignment") {
        return;
    }
    for es in [1usize, 2, 4, 8, 16] {
        let n = 96;
        let a = dv(Space::cuda(0), Layout::Left, &[n], es);
        round_trip(&a, es);
        for start in 0..4 {
            for len in [1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 92] {
                if start + len > n {
                    continue;
                }
                let before = read(&a.view(Side::Device).unwrap());
                let sub = a.subview(&[Slice::Range(start, start + len)]).unwrap();
                let seed = es * 1000 + start * 100 + len;
                round_trip(&sub, seed);
                let after = read(&a.view(Side::Device).unwrap());
                let inside = start * es..(start + len) * es;
                // What the program wrote there: round_trip's pattern over the subview's bytes.
                let wrote: Vec<u8> = (0..len * es).map(pattern(seed)).collect();
                assert_eq!(&after[inside.clone()], &wrote[..], "{es} B x [{start}, {})", start + len);
                assert!((0..n * es).filter(|k| !inside.contains(k)).all(|k| after[k] == before[k]), "{es} B x [{start}, {}): outside kept", start + len);
            }
        }
    }
}

#[test]
fn pinned_and_pageable_mirrors() {
    if !gpu("pinned_and_pageable_mirrors") {
        return;
    }
    let m = Mapping::new(Layout::Left, DynRank::new(&[1000, 3]).unwrap()).unwrap();
    let mut pinned = Desc::new(ElemSpec::of::<f64>(), m, Space::cuda(0));
    pinned.host = Space::host_pinned();
    let a = RawDualView::new("pinned", &pinned).unwrap();
    assert_eq!(a.space(Side::Host), Space::host_pinned());
    round_trip(&a, 3);
    round_trip(&a.subview(&[Slice::Range(10, 500), Slice::Index(1)]).unwrap(), 4);
    let b = RawDualView::new("pageable", &Desc::new(ElemSpec::of::<f64>(), m, Space::cuda(0))).unwrap();
    round_trip(&b, 5);
}

#[test]
fn async_sync_on_a_callers_stream() {
    if !gpu("async_sync_on_a_callers_stream") {
        return;
    }
    use cudarc::driver::sys;
    let a = dv(Space::cuda(0), Layout::Right, &[256, 64], 8);
    let mut pinned = Desc::new(ElemSpec::of::<f64>(), a.mapping(), Space::cuda(0));
    pinned.host = Space::host_pinned();
    let p = RawDualView::new("p", &pinned).unwrap();
    let mut stream: sys::CUstream = std::ptr::null_mut();
    let _ctx = PrimaryContext::current();
    // SAFETY: a context is current (above).
    unsafe { assert_eq!(sys::cuStreamCreate(&mut stream, 1), sys::CUresult::CUDA_SUCCESS) };
    for x in [&a, &p] {
        let h = x.view(Side::Host).unwrap();
        write(&h, pattern(9));
        let want = read(&h);
        x.modify(Side::Host).unwrap();
        x.sync_on(Side::Device, Stream::from_raw(stream as usize)).unwrap();
        assert!(!x.need_sync(Side::Device), "flags reset at once");
        // SAFETY: a live stream.
        unsafe { assert_eq!(sys::cuStreamSynchronize(stream), sys::CUresult::CUDA_SUCCESS) };
        assert_eq!(read(&x.view(Side::Device).unwrap()), want);
        write(&h, |_| 0);
        x.clear_sync_state().unwrap();
        x.modify(Side::Device).unwrap();
        x.sync_on(Side::Host, Stream::from_raw(stream as usize)).unwrap();
        // SAFETY: a live stream.
        unsafe { assert_eq!(sys::cuStreamSynchronize(stream), sys::CUresult::CUDA_SUCCESS) };
        assert_eq!(read(&h), want);
    }
    // SAFETY: destroy the stream we made.
    unsafe { sys::cuStreamDestroy_v2(stream) };
}

#[test]
fn uvm_is_one_allocation_with_tracked_flags() {
    if !gpu("uvm_is_one_allocation_with_tracked_flags") {
        return;
    }
    let a = dv(Space::cuda_uvm(0), Layout::Left, &[64, 8], 8);
    assert!(a.is_one_allocation() && !a.is_single_space());
    assert_eq!(a.view(Side::Host).unwrap().data(), a.view(Side::Device).unwrap().data());
    a.fill(Side::Host, &2.5f64.to_ne_bytes()).unwrap();
    assert!(a.need_sync(Side::Device));
    a.sync(Side::Device).unwrap(); // prefetch + stream sync
    assert!(!a.need_sync(Side::Device));
    a.fill(Side::Device, &1.5f64.to_ne_bytes()).unwrap();
    a.sync(Side::Host).unwrap();
    let v = a.view(Side::Host).unwrap();
    // SAFETY: managed memory is host-accessible after the sync.
    let s = unsafe { std::slice::from_raw_parts(v.data() as *const f64, 64 * 8) };
    assert!(s.iter().all(|&x| x == 1.5));
    a.resize(&DynRank::new(&[128, 8]).unwrap()).unwrap();
    let v = a.view(Side::Host).unwrap();
    // SAFETY: as above.
    let s = unsafe { std::slice::from_raw_parts(v.data() as *const f64, 128 * 8) };
    assert_eq!(s.iter().filter(|&&x| x == 1.5).count(), 64 * 8);
}

#[test]
fn uvm_syncs_while_a_guard_reads() {
    if !gpu("uvm_syncs_while_a_guard_reads") {
        return;
    }
    let a = dualview::DualView::<f64, dualview::Dims<1>>::builder("uvm_guarded", dualview::Dims::new([1024]).unwrap())
        .device(Space::cuda_uvm(0))
        .build()
        .unwrap();
    a.fill_host(1.0).unwrap();
    let h = a.host().unwrap();
    // A managed-memory sync is a prefetch: it moves pages and neither reads nor
    // writes elements, so a guard reading them does not block it.
    a.sync_device().unwrap();
    assert!(!a.need_sync_device());
    assert!(h.iter().all(|&x| x == 1.0));
}

#[test]
fn resize_on_the_device_keeps_contents() {
    if !gpu("resize_on_the_device_keeps_contents") {
        return;
    }
    let a = dv(Space::cuda(0), Layout::Left, &[40, 6], 4);
    a.fill(Side::Device, &7u32.to_ne_bytes()).unwrap();
    a.resize(&DynRank::new(&[80, 9]).unwrap()).unwrap();
    assert!(a.need_sync(Side::Host));
    let d = read(&a.view(Side::Device).unwrap());
    let sevens = d.chunks(4).filter(|c| *c == 7u32.to_ne_bytes()).count();
    assert_eq!(sevens, 40 * 6);
    let b = a.resized(&DynRank::new(&[20, 3]).unwrap()).unwrap();
    let d = read(&b.view(Side::Device).unwrap());
    assert!(d.chunks(4).all(|c| c == 7u32.to_ne_bytes()));
}

#[test]
fn deep_copy_between_spaces_and_devices() {
    if !gpu("deep_copy_between_spaces_and_devices") {
        return;
    }
    let ext = [50usize, 20];
    let e = DynRank::new(&ext).unwrap();
    let mut spaces = vec![Space::HOST, Space::cuda(0), Space::cuda_uvm(0), Space::host_pinned()];
    if cuda_device_count() >= 2 {
        spaces.push(Space::cuda(1));
        spaces.push(Space::cuda_uvm(1));
    } else {
        skipped("deep_copy_between_spaces_and_devices (two-device part)", "only one CUDA device");
    }
    for &s in &spaces {
        for &d in &spaces {
            for (la, lb) in [(Layout::Left, Layout::Left), (Layout::Left, Layout::Right)] {
                let src = View::new("s", ElemSpec::of::<u16>(), Mapping::new(la, e).unwrap(), s, true).unwrap();
                let dst = View::new("d", ElemSpec::of::<u16>(), Mapping::new(lb, e).unwrap(), d, true).unwrap();
                write(&src, pattern(11));
                // SAFETY: the test owns these views; nothing else uses them.
                unsafe { dst.copy_from(&src) }.unwrap();
                assert_eq!(read(&dst), read(&src), "{s} -> {d} {la}->{lb}");
                let ss = src.subview(&[Slice::Range(5, 45), Slice::Range(3, 17)]).unwrap();
                let ds = dst.subview(&[Slice::Range(1, 41), Slice::Range(0, 14)]).unwrap();
                // SAFETY: the test owns these views; nothing else uses them.
                unsafe { ds.copy_from(&ss) }.unwrap();
                assert_eq!(read(&ds), read(&ss), "strided {s} -> {d}");
            }
        }
    }
}

#[test]
fn two_devices_each_with_their_dual_view() {
    if !gpu("two_devices_each_with_their_dual_view") {
        return;
    }
    if cuda_device_count() < 2 {
        skipped("two_devices_each_with_their_dual_view", "only one CUDA device");
        return;
    }
    let a = dv(Space::cuda(0), Layout::Left, &[100, 10], 8);
    let b = dv(Space::cuda(1), Layout::Left, &[100, 10], 8);
    round_trip(&a, 21);
    round_trip(&b, 22);
    a.fill(Side::Device, &3.0f64.to_ne_bytes()).unwrap();
    RawDualView::deep_copy(&b, &a).unwrap(); // device 0 -> device 1
    assert!(read(&b.view(Side::Device).unwrap()).chunks(8).all(|c| c == 3.0f64.to_ne_bytes()));
}

#[test]
fn device_out_of_memory_keeps_the_old_data() {
    if !gpu("device_out_of_memory_keeps_the_old_data") {
        return;
    }
    let a = dv(Space::cuda(0), Layout::Left, &[1000], 8);
    a.fill(Side::Device, &4.0f64.to_ne_bytes()).unwrap();
    // 2^42 doubles = 32 TiB: more than any card has.
    let e = a.resize(&DynRank::new(&[1 << 42]).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{e}");
    assert!(e.message().contains("CUDA_ERROR_OUT_OF_MEMORY"), "{e}");
    assert_eq!(a.extents().as_slice(), &[1000]);
    assert!(a.need_sync(Side::Host));
    assert!(read(&a.view(Side::Device).unwrap()).chunks(8).all(|c| c == 4.0f64.to_ne_bytes()));
    let m = Mapping::new(Layout::Left, DynRank::new(&[1 << 42]).unwrap()).unwrap();
    let e = RawDualView::new("huge", &Desc::new(ElemSpec::of::<f64>(), m, Space::cuda(0))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfMemory);
}

#[test]
fn missing_device_and_missing_driver_answer_no_device() {
    let m = Mapping::new(Layout::Left, DynRank::new(&[4]).unwrap()).unwrap();
    let e = RawDualView::new("nodev", &Desc::new(ElemSpec::of::<f32>(), m, Space::cuda(99))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NoDevice, "{e}");
    assert!(!e.message().is_empty());
    if cuda_device_count() == 0 {
        let e = RawDualView::new("nodev", &Desc::new(ElemSpec::of::<f32>(), m, Space::cuda(0))).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NoDevice);
        eprintln!("checked without a GPU: {e}");
    }
}

#[test]
fn statistics_count_device_transfers() {
    if !gpu("statistics_count_device_transfers") {
        return;
    }
    let a = dv(Space::cuda(0), Layout::Left, &[256], 8);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    let s = a.stats();
    assert_eq!((s.to_device.count, s.to_device.bytes), (1, 2048));
    assert!(s.to_device.nanos > 0);
    let _ = DynRank::new(&[1]).unwrap().size();
}

/// A default CUDA DualView of `n` x `m` doubles (LayoutLeft).
fn doubles(label: &str, n: usize, m: usize, pin_mirror: bool) -> RawDualView {
    let map = Mapping::new(Layout::Left, DynRank::new(&[n, m]).unwrap()).unwrap();
    let mut d = Desc::new(ElemSpec::of::<f64>(), map, Space::cuda(0));
    d.pin_mirror = pin_mirror;
    RawDualView::new(label, &d).unwrap()
}

// Run by scripts/gpu-check.sh with --test-threads 1: registered_host_bytes() is process-wide.
#[test]
fn the_default_mirror_is_registered_whole_in_the_background_and_released_with_it() {
    if !gpu("the_default_mirror_is_registered_whole_in_the_background_and_released_with_it") {
        return;
    }
    // The registration's own path: no registered block kept for reuse (the pool has its own test).
    dualview::memory::set_pool_cap(0);
    use dualview::memory::{registered_host_bytes, settle};
    settle();
    let before = registered_host_bytes();
    let a = doubles("reg", 1 << 15, 8, true); // 2 MiB
    settle(); // the background registration is done
    assert!(a.is_mirror_pinned(), "registered once allocated, before any sync");
    assert_eq!(registered_host_bytes() - before, 2 << 20);
    round_trip(&a, 1);
    // Clones and subviews share the registration; syncs through them stay correct.
    let c = a.clone();
    assert!(c.is_mirror_pinned());
    round_trip(&c, 2);
    let s = a.subview(&[Slice::Range(100, 9000), Slice::Range(2, 5)]).unwrap();
    assert!(s.is_mirror_pinned());
    round_trip(&s, 3);
    assert_eq!(registered_host_bytes() - before, 2 << 20, "no second registration");
    // A raw driver copy of any part of the mirror works: one registration covers it all.
    {
        use cudarc::driver::sys;
        let (h, d) = (a.view(Side::Host).unwrap(), a.view(Side::Device).unwrap());
        let _ctx = PrimaryContext::current();
        // SAFETY: ranges inside the two live views; a context is current (above).
        unsafe {
            let off = 12345 * 8;
            let r = sys::cuMemcpyHtoDAsync_v2(d.data().add(off) as usize as _, h.data().add(off) as *const _, (1 << 20) + 8, std::ptr::null_mut());
            assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
            assert_eq!(sys::cuStreamSynchronize(std::ptr::null_mut()), sys::CUresult::CUDA_SUCCESS);
        }
    }
    // realloc: a new mirror, registered in turn; the old registration ends.
    a.realloc(&DynRank::new(&[1 << 16, 8]).unwrap(), true).unwrap();
    settle();
    assert!(a.is_mirror_pinned());
    assert_eq!(registered_host_bytes() - before, 4 << 20, "the old mirror was unregistered");
    round_trip(&a, 4);
    // resize along a fast axis: a new block, contents kept, the old registration ends.
    let h = a.view(Side::Host).unwrap();
    write(&h, pattern(5));
    let want = read(&h);
    drop(h); // a View keeps its allocation (and so its registration) alive
    a.modify(Side::Host).unwrap();
    a.resize(&DynRank::new(&[1 << 17, 8]).unwrap()).unwrap();
    a.sync(Side::Device).unwrap();
    settle();
    assert!(a.is_mirror_pinned());
    assert_eq!(registered_host_bytes() - before, 8 << 20);
    let got = read(&a.view(Side::Device).unwrap());
    // Row-major reads with 8 columns before and after: element (i, j) is at (i * 8 + j) * 8.
    for i in [0usize, 77, (1 << 16) - 1] {
        for j in 0..8 {
            let at = (i * 8 + j) * 8;
            assert_eq!(&got[at..at + 8], &want[at..at + 8], "({i},{j})");
        }
    }
    drop((c, s));
    drop(a);
    settle();
    assert_eq!(registered_host_bytes(), before, "every registration ends with its DualView");
}

#[test]
fn the_opt_out_keeps_the_mirror_pageable() {
    if !gpu("the_opt_out_keeps_the_mirror_pageable") {
        return;
    }
    // The registration's own path: no registered block kept for reuse (the pool has its own test).
    dualview::memory::set_pool_cap(0);
    use dualview::memory::{registered_host_bytes, settle};
    settle();
    let before = registered_host_bytes();
    let a = doubles("pageable", 1 << 15, 8, false);
    round_trip(&a, 6);
    assert!(!a.is_mirror_pinned());
    assert_eq!(registered_host_bytes(), before);
    // The environment variable does the same for every DualView made after it is set.
    // SAFETY: scripts/gpu-check.sh runs these tests on one thread, so nothing reads the environment meanwhile.
    unsafe { std::env::set_var("DV_PAGEABLE_MIRROR", "1") };
    let b = doubles("env", 1 << 15, 8, true);
    // SAFETY: as above.
    unsafe { std::env::remove_var("DV_PAGEABLE_MIRROR") };
    round_trip(&b, 7);
    settle();
    assert!(!b.is_mirror_pinned());
    assert_eq!(registered_host_bytes(), before);
    // And through the C ABI: DV_FLAG_PAGEABLE_HOST.
    // SAFETY: a plain repr(C) struct of integers; all zeros is a valid value (as `= {0}` in C).
    let mut desc: dualview::ffi::dv_desc_t = unsafe { std::mem::zeroed() };
    desc.dtype = dualview::abi::DV_DTYPE_FLOAT64;
    desc.space = dualview::abi::DV_SPACE_CUDA;
    desc.flags = dualview::abi::DV_FLAG_PAGEABLE_HOST;
    let ext = [1u64 << 16];
    // SAFETY: valid pointers to locals.
    unsafe {
        assert_eq!(dualview::ffi::dv_extents_make(ext.as_ptr(), 1, &mut desc.extents), dualview::abi::dv_status_t::DV_OK);
        let mut h = std::ptr::null_mut();
        assert_eq!(dualview::ffi::dv_create(c"c".as_ptr(), &desc, &mut h), dualview::abi::dv_status_t::DV_OK);
        assert_eq!(dualview::ffi::dv_modify_host(h), dualview::abi::dv_status_t::DV_OK);
        assert_eq!(dualview::ffi::dv_sync_device(h), dualview::abi::dv_status_t::DV_OK);
        let mut info: dualview::ffi::dv_info_t = std::mem::zeroed();
        assert_eq!(dualview::ffi::dv_info(h, &mut info), dualview::abi::dv_status_t::DV_OK);
        assert_eq!(info.bits & dualview::abi::DV_INFO_MIRROR_PINNED, 0);
        assert_eq!(dualview::ffi::dv_destroy(h), dualview::abi::dv_status_t::DV_OK);
    }
    assert_eq!(registered_host_bytes(), before);
}

#[test]
fn growth_along_the_slowest_axis_is_in_place_and_keeps_both_sides() {
    if !gpu("growth_along_the_slowest_axis_is_in_place_and_keeps_both_sides") {
        return;
    }
    let n = 1 << 20; // n x 8 doubles = 64 MiB: a reserved host block
    let a = doubles("grow", n, 8, true);
    let h = a.view(Side::Host).unwrap();
    write(&h, pattern(8));
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap(); // registers the mirror
    let host_before = read(&h);
    let d = a.view(Side::Device).unwrap();
    write(&d, pattern(9)); // the device now differs from the host
    let dev_before = read(&d);
    a.modify(Side::Device).unwrap();
    let host_ptr = h.data();
    drop((h, d));
    a.resize(&DynRank::new(&[n, 16]).unwrap()).unwrap();
    assert_eq!(a.view(Side::Host).unwrap().data(), host_ptr, "the host mirror grew in place");
    assert!(a.need_sync(Side::Host), "the device's changes are still pending");
    // Row-major reads: element (i, j) is at (i * m + j) * 8.
    let (hn, dn) = (read(&a.view(Side::Host).unwrap()), read(&a.view(Side::Device).unwrap()));
    for i in [0usize, 1, n / 2, n - 1] {
        for j in 0..16 {
            let (new, old) = ((i * 16 + j) * 8, (i * 8 + j) * 8);
            if j < 8 {
                assert_eq!(&hn[new..new + 8], &host_before[old..old + 8], "host ({i},{j})");
                assert_eq!(&dn[new..new + 8], &dev_before[old..old + 8], "device ({i},{j})");
            } else {
                assert_eq!(&hn[new..new + 8], &[0u8; 8], "host ({i},{j}) is new: zero");
                assert_eq!(&dn[new..new + 8], &[0u8; 8], "device ({i},{j}) is new: zero");
            }
        }
    }
    a.sync(Side::Host).unwrap();
    dualview::memory::settle();
    assert!(!a.is_mirror_pinned(), "the grown block's first copying sync, one large copy, leaves it unregistered (G24)");
    assert_eq!(read(&a.view(Side::Host).unwrap()), dn);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    assert!(a.is_mirror_pinned(), "the next copying sync registers the grown block, whole");
    assert_eq!(read(&a.view(Side::Device).unwrap()), dn);
}

#[test]
fn dualview_calls_leave_the_callers_cuda_context_current() {
    if !gpu("dualview_calls_leave_the_callers_cuda_context_current") {
        return;
    }
    use cudarc::driver::sys;
    let a = doubles("ctx", 1 << 12, 4, true);
    let mut dev: sys::CUdevice = 0;
    let mut mine: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: the driver is initialised (the DualView above); we create and destroy our own context.
    unsafe {
        assert_eq!(sys::cuDeviceGet(&mut dev, 0), sys::CUresult::CUDA_SUCCESS);
        assert_eq!(sys::cuCtxCreate_v2(&mut mine, 0, dev), sys::CUresult::CUDA_SUCCESS);
    }
    round_trip(&a, 10);
    a.resize(&DynRank::new(&[1 << 13, 4]).unwrap()).unwrap();
    a.fill(Side::Device, &1.0f64.to_ne_bytes()).unwrap();
    a.sync(Side::Host).unwrap();
    let mut now: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: as above.
    unsafe {
        assert_eq!(sys::cuCtxGetCurrent(&mut now), sys::CUresult::CUDA_SUCCESS);
        assert_eq!(now, mine, "dualview restored the caller's context");
        assert_eq!(sys::cuCtxDestroy_v2(mine), sys::CUresult::CUDA_SUCCESS);
    }
}

/// An `n` x 3 CUDA DualView of doubles, LayoutRight (as LAMMPS' `x`).
fn atoms(label: &str, n: usize) -> RawDualView {
    let map = Mapping::new(Layout::Right, DynRank::new(&[n, 3]).unwrap()).unwrap();
    RawDualView::new(label, &Desc::new(ElemSpec::of::<f64>(), map, Space::cuda(0))).unwrap()
}

/// The bytes of `n` f64 values `k * 0.5 + 1` (never zero).
fn atom_values(n: usize) -> Vec<u8> {
    (0..n).flat_map(|k| (k as f64 * 0.5 + 1.0).to_ne_bytes()).collect()
}

// Issue 18: "atom:x_mirror: the mirror stays pageable: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
// then "dv_sync_host: cuMemcpyAsync failed: CUDA_ERROR_INVALID_VALUE". A grow raced the
// background registration, which registered the old size; the next sync could not register
// the grown block, and a copy spanning registered and unregistered pages failed.
// Run by scripts/gpu-check.sh with --test-threads 1: registered_host_bytes() is process-wide.
#[test]
fn lammps_growth_right_after_creation_never_leaves_part_of_the_mirror_registered() {
    if !gpu("lammps_growth_right_after_creation_never_leaves_part_of_the_mirror_registered") {
        return;
    }
    // The registration's own path: no registered block kept for reuse (the pool has its own test).
    dualview::memory::set_pool_cap(0);
    use dualview::memory::{registered_host_bytes, settle};
    let n0 = 8 << 20; // 8M atoms x 3 doubles = 192 MiB
    let want = atom_values(n0 * 3);
    // The device values, ready on the device before the DualView exists, so that
    // everything below runs within a millisecond of its creation.
    let src = View::new("x_values", ElemSpec::of::<f64>(), Mapping::new(Layout::Right, DynRank::new(&[n0, 3]).unwrap()).unwrap(), Space::cuda(0), false).unwrap();
    {
        let packed = View::new("x_host", ElemSpec::of::<f64>(), Mapping::new(Layout::Right, DynRank::new(&[n0, 3]).unwrap()).unwrap(), Space::HOST, false).unwrap();
        // SAFETY: a packed host view of n0 * 3 doubles; then two views the test owns.
        unsafe {
            std::ptr::copy_nonoverlapping(want.as_ptr(), packed.data(), want.len());
            src.copy_from(&packed).unwrap();
        }
    }
    settle();
    let before = registered_host_bytes();
    for round in 0..5 {
        let a = atoms("atom:x", n0);
        let d = a.view(Side::Device).unwrap();
        // SAFETY: two device views of equal shape, owned by the test.
        unsafe { d.copy_from(&src) }.unwrap();
        drop(d);
        a.modify(Side::Device).unwrap();
        // Three resizes by 1.5x of the first axis while the device is newer, issued while the
        // mirror's background registration runs: 192 MiB grows in place to 288 MiB, moves to
        // a new block of 432 MiB, grows in place to 648 MiB.
        let mut n = n0;
        for _ in 0..3 {
            n += n / 2;
            a.resize(&DynRank::new(&[n, 3]).unwrap()).unwrap();
        }
        assert!(a.need_sync(Side::Host), "round {round}: the device's values are still pending");
        // The first copying sync of the grown mirror, one large copy: through the pipeline,
        // nothing registered (G24); the next one registers the whole block.
        a.sync(Side::Host).unwrap();
        settle();
        assert!(!a.is_mirror_pinned(), "round {round}: the first sync left the grown mirror unregistered");
        assert_eq!(registered_host_bytes(), before, "round {round}: nothing registered, not even part of it");
        a.modify(Side::Device).unwrap();
        a.sync(Side::Host).unwrap(); // registers the mirror, then copies
        assert!(a.is_mirror_pinned(), "round {round}: the whole grown mirror is registered by the second sync");
        let h = a.view(Side::Host).unwrap();
        // SAFETY: the host mirror of n * 3 doubles; nothing writes it meanwhile.
        let got = unsafe { std::slice::from_raw_parts(h.data() as *const u8, n * 3 * 8) };
        assert!(got[..want.len()] == want[..], "round {round}: the first {n0} rows came back");
        let zeros = vec![0u8; 1 << 20];
        for chunk in got[want.len()..].chunks(zeros.len()) {
            assert!(chunk == &zeros[..chunk.len()], "round {round}: the new rows are zero");
        }
        drop(h);
        settle();
        assert_eq!(registered_host_bytes() - before, n * 3 * 8, "round {round}: one registration, of the whole mirror");
        drop(a);
        settle();
        assert_eq!(registered_host_bytes(), before, "round {round}: released with the DualView");
    }
}

// Issue 45: a device-to-host copy of 64 MiB or more into pageable memory runs in lanes, one
// per copy thread, each on its own stream with its own buffers (DECISIONS G24). At production
// size: the cold first sync_host of a never-written mirror of 1 GiB and 168 bytes (its
// registration deferred, G24), and the cold first sync_host of a window from an odd row of
// another; three rounds, the lanes' buffers and streams reused. The oracle is what the test
// wrote to the device.
#[test]
fn a_cold_first_sync_host_of_a_gib_lands_exactly_through_the_lanes() {
    if !gpu("a_cold_first_sync_host_of_a_gib_lands_exactly_through_the_lanes") {
        return;
    }
    let n = (1usize << 30) / 24 + 7; // rows of 3 doubles
    let want = atom_values(n * 3);
    let map = Mapping::new(Layout::Right, DynRank::new(&[n, 3]).unwrap()).unwrap();
    let src = View::new("x_values", ElemSpec::of::<f64>(), map, Space::cuda(0), false).unwrap();
    {
        let packed = View::new("x_host", ElemSpec::of::<f64>(), map, Space::HOST, false).unwrap();
        // SAFETY: a packed host view of n * 3 doubles; then two views the test owns.
        unsafe {
            std::ptr::copy_nonoverlapping(want.as_ptr(), packed.data(), want.len());
            src.copy_from(&packed).unwrap();
        }
    }
    for round in 0..3usize {
        dualview::memory::pool_release(); // cold: no kept block serves the mirror
        let a = atoms("atom:x", n);
        let d = a.view(Side::Device).unwrap();
        // SAFETY: two device views of equal shape, owned by the test.
        unsafe { d.copy_from(&src) }.unwrap();
        drop(d);
        a.modify(Side::Device).unwrap();
        a.sync(Side::Host).unwrap();
        let h = a.view(Side::Host).unwrap();
        // SAFETY: the host mirror of n * 3 doubles; nothing else writes it meanwhile.
        let got = unsafe { std::slice::from_raw_parts(h.data(), n * 24) };
        assert!(got[..] == want[..], "round {round}: the cold first sync_host");
        drop((h, a));
        // A window of rows from an odd one, the first copying sync of a new mirror (its first
        // large copy: lanes, G24): the never-written rows elsewhere stay zero.
        dualview::memory::pool_release();
        let b = atoms("atom:x", n);
        let d = b.view(Side::Device).unwrap();
        // SAFETY: two device views of equal shape, owned by the test.
        unsafe { d.copy_from(&src) }.unwrap();
        drop(d);
        let (lo, hi) = (12_345 + round, n - 777);
        let w = b.subview(&[Slice::Range(lo, hi), Slice::All]).unwrap();
        w.modify(Side::Device).unwrap();
        w.sync(Side::Host).unwrap();
        let h = b.view(Side::Host).unwrap();
        // SAFETY: the host mirror of n * 3 doubles; nothing else writes it meanwhile.
        let got = unsafe { std::slice::from_raw_parts(h.data(), n * 24) };
        assert!(got[lo * 24..hi * 24] == want[lo * 24..hi * 24], "round {round}: the window");
        assert!(got[..lo * 24].iter().chain(&got[hi * 24..]).all(|&b| b == 0), "round {round}: outside the window");
    }
}

// Issue 18: a resize right after creating a 1 GiB DualView waited about 140 ms for the
// background registration (populate + cuMemHostRegister). Now it cancels a registration
// still populating and waits only for one inside the driver; the grown mirror is
// registered at its second copying sync (G24). Prints the times; asserts none.
#[test]
fn a_resize_right_after_creating_a_gib_does_not_wait_for_the_registration() {
    if !gpu("a_resize_right_after_creating_a_gib_does_not_wait_for_the_registration") {
        return;
    }
    // The registration's own path: no registered block kept for reuse (the pool has its own test).
    dualview::memory::set_pool_cap(0);
    use dualview::memory::{registered_host_bytes, settle};
    use std::time::Instant;
    settle();
    let before = registered_host_bytes();
    let n = (1usize << 30) / 24; // 1 GiB of n x 3 doubles
    let time_resize = |a: &RawDualView, rows: usize| {
        let t0 = Instant::now();
        a.resize(&DynRank::new(&[rows, 3]).unwrap()).unwrap();
        t0.elapsed()
    };
    let a = atoms("gib", n);
    let right_after = time_resize(&a, n + n / 2);
    settle();
    assert!(!a.is_mirror_pinned(), "a resized mirror waits for its first copying sync (DECISIONS G10)");
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    settle();
    assert!(!a.is_mirror_pinned(), "its first copying sync, one large copy, ran through the pipeline and left it so (G24)");
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    assert!(a.is_mirror_pinned(), "the second copying sync registered the grown mirror");
    // The whole block is registered: the mirror's bytes rounded up to whole pages (DECISIONS G13).
    assert_eq!(registered_host_bytes() - before, ((n + n / 2) * 24).next_multiple_of(4096));
    let b = atoms("gib_settled", n);
    settle(); // registered: the resize unregisters first
    let registered = time_resize(&b, n + n / 2);
    // For scale: the same resize of a mirror never registered.
    let pageable = {
        let map = Mapping::new(Layout::Right, DynRank::new(&[n, 3]).unwrap()).unwrap();
        let mut d = Desc::new(ElemSpec::of::<f64>(), map, Space::cuda(0));
        d.pin_mirror = false;
        let p = RawDualView::new("gib_opt_out", &d).unwrap();
        time_resize(&p, n + n / 2)
    };
    eprintln!(
        "resize of a 1 GiB CUDA DualView by 1.5x: right after creation {:.1} ms, once registered {:.1} ms, never registered {:.1} ms",
        right_after.as_secs_f64() * 1e3,
        registered.as_secs_f64() * 1e3,
        pageable.as_secs_f64() * 1e3
    );
    drop((a, b));
    settle();
    assert_eq!(registered_host_bytes(), before);
}

/// Issue 22: copies queued on a stream through the staging path (pageable
/// mirrors), both directions, whole and subview, checked by value: the host
/// packs a copy to the device at the call (later host writes do not reach
/// it), a copy to the host is unpacked by the stream, and a blocking sync or
/// access after it waits. A small default mirror is registered at its first
/// copy on a stream instead, and takes the driver's path.
#[test]
fn small_async_copies_are_staged_and_waited_for() {
    use dualview::memory::stream;
    if !gpu("small_async_copies_are_staged_and_waited_for") {
        return;
    }
    let s = stream::create(Space::cuda(0)).unwrap();
    for (n, pin) in [(1usize, false), (512, false), (16384, false), (512, true)] {
        // pin false: a pageable mirror (DV_FLAG_PAGEABLE_HOST), staged; true: the default
        // mirror, registered at its first copy on a stream (DECISIONS G13).
        let m = Mapping::new(Layout::Left, DynRank::new(&[n]).unwrap()).unwrap();
        let mut desc = Desc::new(ElemSpec::new(8, 8).unwrap(), m, Space::cuda(0));
        desc.pin_mirror = pin;
        let a = RawDualView::new("G", &desc).unwrap();
        let host = a.view(Side::Host).unwrap();
        // SAFETY: the mirror holds n f64 and nothing else uses it now.
        let h = unsafe { std::slice::from_raw_parts_mut(host.data() as *mut f64, n) };
        h.iter_mut().enumerate().for_each(|(i, v)| *v = i as f64 + 0.25);
        a.modify(Side::Host).unwrap();
        a.sync_on(Side::Device, s).unwrap(); // staged: packed now
        assert_eq!(a.is_mirror_pinned(), pin, "n = {n}");
        if pin {
            stream::fence(Space::cuda(0), s).unwrap(); // a registered mirror is read by the stream
        }
        h.iter_mut().for_each(|v| *v = -1.0); // too late to reach the device
        a.modify(Side::Device).unwrap(); // the device's values are now the newer
        a.sync(Side::Host).unwrap(); // waits for the staged copy, then copies back
        assert!(h.iter().enumerate().all(|(i, &v)| v == i as f64 + 0.25), "n = {n}: host writes after the call reached the device");
        // Device to host on the stream, then host access: unpacked before it returns.
        h.iter_mut().for_each(|v| *v = 0.0);
        a.fill(Side::Device, &3.5f64.to_ne_bytes()).unwrap();
        a.sync_on(Side::Host, s).unwrap();
        a.access(Side::Host, dualview::Access::Read).unwrap();
        assert!(h.iter().all(|&v| v == 3.5), "n = {n}: read before the staged copy was unpacked");
        // A subview's async sync stages its own region.
        if n >= 4 {
            a.fill(Side::Device, &4.5f64.to_ne_bytes()).unwrap();
            let sub = a.subview(&[Slice::Range(1, 3)]).unwrap();
            a.reset_stats();
            sub.sync_on(Side::Host, s).unwrap();
            assert_eq!(a.stats().to_host.bytes, 16);
            sub.sync(Side::Host).unwrap();
            assert_eq!((h[0], h[1], h[2], h[3]), (3.5, 4.5, 4.5, 3.5));
        }
    }
    // SAFETY: made above, used no more.
    unsafe { stream::destroy(Space::cuda(0), s) }.unwrap();
}

#[test]
fn guards_fill_and_copy_device_memory_safely() {
    if !gpu("guards_fill_and_copy_device_memory_safely") {
        return;
    }
    use dualview::{Dims, DualView};
    let a = DualView::<f64, Dims<2>>::builder("guard_a", Dims::new([300, 70]).unwrap()).device(Space::cuda(0)).build().unwrap();
    let b = DualView::<f64, Dims<2>>::builder("guard_b", Dims::new([300, 70]).unwrap()).device(Space::cuda(0)).layout(Layout::Right).build().unwrap();
    a.device_write().unwrap().fill(1.25).unwrap(); // device memory the host cannot read: the space fills it
    assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![1.25; 300 * 70]);
    b.device_write().unwrap().copy_from(&a.device().unwrap()).unwrap(); // device to device, Left to Right
    assert_eq!(b.host().unwrap().to_vec().unwrap(), vec![1.25; 300 * 70]);
}

// Run by scripts/gpu-check.sh with --test-threads 1: the pool and registered_host_bytes() are process-wide.
/// The pool of registered host blocks on CUDA (DECISIONS S11; tests/pool.rs on the test
/// device): a registered mirror of a size made again is kept when its DualView goes, still
/// registered; the next mirror of its size gets the same block, registered at once and zero
/// where the last owner wrote; `pool_release` unregisters it.
#[test]
fn a_churning_registered_mirror_is_kept_and_reused_registered_and_zeroed() {
    if !gpu("a_churning_registered_mirror_is_kept_and_reused_registered_and_zeroed") {
        return;
    }
    use dualview::memory::{pool_release, pool_stats, registered_host_bytes, set_pool_cap, settle};
    set_pool_cap(usize::MAX); // DV_POOL_BYTES, or the default
    pool_release();
    settle();
    let before = registered_host_bytes();
    let mut block = 0;
    for round in 0..2 {
        let a = doubles("pooled", 1 << 15, 8, true); // 2 MiB
        settle();
        assert!(a.is_mirror_pinned(), "round {round}: registered");
        round_trip(&a, 7 + round);
        block = a.view(Side::Host).unwrap().data() as usize;
    }
    settle();
    assert_eq!(pool_stats().held_bytes, 2 << 20, "the second 2 MiB mirror (a size made again) is kept");
    assert_eq!(registered_host_bytes() - before, 2 << 20, "still registered");
    let b = doubles("pooled", 1 << 15, 8, true);
    assert_eq!(b.view(Side::Host).unwrap().data() as usize, block, "the kept block comes back");
    assert!(b.is_mirror_pinned(), "registered from the start");
    let h = b.view(Side::Host).unwrap();
    // SAFETY: a host view of 2 MiB that nothing else writes now.
    let bytes = unsafe { std::slice::from_raw_parts(h.data(), 2 << 20) };
    assert!(bytes.iter().all(|&x| x == 0), "zero where the last owner wrote");
    round_trip(&b, 9);
    drop(h);
    drop(b);
    assert_eq!(pool_release(), 2 << 20);
    settle();
    assert_eq!(registered_host_bytes(), before, "released: unregistered");
}

/// `DV_TRACE_DRIVER` (docs/ENVIRONMENT.md): one trace line per CUDA driver call, with its
/// thread; and through it, a mirror under 256 KiB, registered at its first copy on a stream, is
/// unregistered by the thread that frees its DualView, before the drop returns (on the
/// background thread the unregistration waited for whatever kernel ran and held up the
/// program's next driver call: docs/GPU.md, DECISIONS G13). The switch is read once per
/// process, so the test runs itself again as a child process with it set.
#[test]
fn dv_trace_driver_names_each_call_and_a_small_mirror_is_unregistered_where_it_is_freed() {
    const NAME: &str = "dv_trace_driver_names_each_call_and_a_small_mirror_is_unregistered_where_it_is_freed";
    use dualview::memory::stream;
    if std::env::var_os("DV_TRACE_DRIVER_CHILD").is_some() {
        let s = stream::create(Space::cuda(0)).unwrap();
        let a = dv(Space::cuda(0), Layout::Left, &[1024], 8); // 8 KiB
        a.modify(Side::Host).unwrap();
        a.sync_on(Side::Device, s).unwrap();
        assert!(a.is_mirror_pinned(), "registered at its first copy on a stream");
        drop(a);
        eprintln!("CHILD: dropped");
        dualview::memory::settle();
        // SAFETY: made above, used no more.
        unsafe { stream::destroy(Space::cuda(0), s) }.unwrap();
        return;
    }
    if !gpu(NAME) {
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([NAME, "--exact", "--nocapture", "--test-threads", "1"])
        .env("DV_TRACE_DRIVER", "1")
        .env("DV_TRACE_DRIVER_CHILD", "1")
        .env_remove("DV_TRACE_FILE")
        .env_remove("DV_POOL_BYTES")
        .env_remove("DV_PAGEABLE_MIRROR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("dualview[") || l.starts_with("CHILD:")).collect();
    let calls: Vec<&str> = lines.iter().copied().filter(|l| l.contains("]: driver ")).collect();
    for l in &calls {
        // dualview[pid P]: driver <call> <time> us on <thread>, ended at <time> us[ (not ready)| (error)]
        let rest = l.split("]: driver ").nth(1).unwrap();
        let rest = rest.trim_end().trim_end_matches(" (not ready)").trim_end_matches(" (error)");
        let w: Vec<&str> = rest.split_whitespace().collect();
        assert!(w[0].starts_with("cu") && w[1].parse::<f64>().is_ok() && w[2] == "us" && w[3] == "on", "{l}");
        assert!(rest.contains(", ended at ") && rest.ends_with(" us"), "{l}");
    }
    for call in ["cuMemAlloc", "cuMemHostRegister", "cuMemcpyAsync", "cuMemHostUnregister"] {
        assert!(calls.iter().any(|l| l.contains(&format!("driver {call} "))), "no {call} traced: {err}");
    }
    let unregister = lines.iter().position(|l| l.contains("driver cuMemHostUnregister ")).unwrap();
    let dropped = lines.iter().position(|l| *l == "CHILD: dropped").expect("the child's marker");
    assert!(unregister < dropped, "unregistered before the drop returned: {err}");
    assert!(!lines[unregister].contains(" on dualview-mirrors,"), "not on the background thread: {}", lines[unregister]);
}
