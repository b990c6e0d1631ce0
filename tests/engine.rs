//! The device engine (`src/memory/device/`) on the test device's fake driver:
//! every GPU path the H200 runs, named, with the driver calls it makes
//! (`test_device::driver_calls`) and the values it moves, checked against
//! what the test wrote. Each test uses its own test-device ordinal (delays
//! and the event pool are per device).

use dualview::memory::{stream, test_device};
use dualview::{Dims, DualView, ErrorKind, RawDualView, Side, Slice, Space, Stream};
use std::time::Duration;

fn dv<T: dualview::Element>(label: &str, ordinal: u32, n: usize) -> DualView<T, Dims<1>> {
    DualView::builder(label, Dims::new([n]).unwrap()).device(Space::test_device(ordinal)).build().unwrap()
}

/// One side's values as they are in memory now (no sync, no wait).
fn raw_values<T: Copy>(a: &RawDualView, side: Side) -> Vec<T> {
    let v = a.view(side).unwrap();
    // SAFETY: test-device and host memory are host memory; v.span() elements of T from v.data().
    unsafe { std::slice::from_raw_parts(v.data() as *const T, v.span()) }.to_vec()
}

fn count(calls: &[&str], name: &str) -> usize {
    calls.iter().filter(|c| **c == name).count()
}

/// A stream of test device `ordinal`, destroyed on drop.
struct Owned(Space, Stream);
impl Owned {
    fn new(ordinal: u32) -> Owned {
        let space = Space::test_device(ordinal);
        Owned(space, stream::create(space).unwrap())
    }
}
impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: made by `new`, used no more.
        unsafe { stream::destroy(self.0, self.1) }.unwrap();
    }
}

fn write_host(a: &DualView<i64, Dims<1>>, f: impl Fn(usize) -> i64) {
    a.host_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = f(i));
}

fn write_device(a: &DualView<i64, Dims<1>>, f: impl Fn(usize) -> i64) {
    a.device_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = f(i));
}

#[test]
fn tiny_path_a_small_blocking_sync_is_one_copy_and_one_wait() {
    let a = dv::<i64>("tiny", 30, 500); // 4,000 bytes
    write_host(&a, |i| i as i64 * 3);
    let (r, calls) = test_device::driver_calls(|| a.sync_device());
    r.unwrap();
    assert_eq!(
        calls,
        ["bind", "synchronize", "copy_async", "stream_synchronize"],
        "one bind, the fence of G5, one copy on the default stream, the wait for it to land (G8)"
    );
    assert_eq!(raw_values::<i64>(a.raw(), Side::Device), (0..500).map(|i| i * 3).collect::<Vec<_>>());
    write_device(&a, |i| -(i as i64));
    let (r, calls) = calls_but_staging_alloc(|| a.sync_host());
    r.unwrap();
    assert_eq!(calls, ["bind", "synchronize", "copy_async", "stream_synchronize"], "into a pinned buffer, waited for, unpacked");
    assert_eq!(raw_values::<i64>(a.raw(), Side::Host), (0..500).map(|i| -i).collect::<Vec<_>>());
}

/// The driver calls of `f`, less a staging buffer's allocation (`bind`, `alloc`:
/// made when no buffer is free, which tests running beside this one decide).
fn calls_but_staging_alloc<R>(f: impl FnOnce() -> R) -> (R, Vec<&'static str>) {
    let (r, mut calls) = test_device::driver_calls(f);
    if let Some(k) = calls.windows(2).position(|w| w == ["bind", "alloc"]) {
        calls.drain(k..k + 2);
    }
    (r, calls)
}

#[test]
fn a_small_blocking_sync_of_a_pageable_mirror_has_landed_on_return_at_every_size() {
    let dev = 27;
    test_device::set_stream_delay(dev, Duration::from_millis(2)).unwrap();
    for n in [1, 4096, 4097, 8192] {
        // 8 B, 32 KiB (to the device: the driver's copy), just over it and 64 KiB (staged both ways).
        let a = dv::<i64>("staged", dev, n);
        write_host(&a, |i| i as i64 * 11 + 1);
        let (r, calls) = calls_but_staging_alloc(|| a.sync_device());
        r.unwrap();
        assert_eq!(calls, ["bind", "synchronize", "copy_async", "stream_synchronize"], "{n}: packed, copied, waited for");
        // No driver call between the sync and this read: the copy has landed.
        assert_eq!(raw_values::<i64>(a.raw(), Side::Device), (0..n as i64).map(|i| i * 11 + 1).collect::<Vec<_>>());
        write_device(&a, |i| -(i as i64) - 2);
        let (r, calls) = calls_but_staging_alloc(|| a.sync_host());
        r.unwrap();
        assert_eq!(calls, ["bind", "synchronize", "copy_async", "stream_synchronize"], "{n}: copied, waited for, unpacked");
        assert_eq!(raw_values::<i64>(a.raw(), Side::Host), (0..n as i64).map(|i| -i - 2).collect::<Vec<_>>());
    }
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

/// CUDA's copies from pageable memory to the device, synchronous or on the
/// default stream, return once the driver has staged the bytes; they land
/// later, on the default stream (the test device does the same while it has a
/// delay). A kernel on a non-blocking stream, launched when `sync_device`
/// returns, must read the new values.
#[test]
fn a_tiny_sync_to_the_device_has_landed_when_it_returns() {
    let dev = 29;
    test_device::set_stream_delay(dev, Duration::from_millis(2)).unwrap();
    for n in [1, 100, 8192] {
        let a = dv::<i64>("tiny_lands", dev, n);
        for round in 0..3i64 {
            write_host(&a, |i| i as i64 * 7 + round + 1);
            a.modify_host().unwrap();
            a.sync_device().unwrap();
            // No driver call between the sync and this read: what a reader not ordered after the default stream sees.
            assert_eq!(raw_values::<i64>(a.raw(), Side::Device), (0..n as i64).map(|i| i * 7 + round + 1).collect::<Vec<_>>(), "{n} elements, round {round}");
        }
    }
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

/// Two boxes of a pageable mirror: two tiny copies on the default stream and
/// one wait after them; when the second copy fails, the first has landed by
/// the time the error returns (the host side's borrow ends then), and the
/// DualView still needs the sync.
#[test]
fn tiny_copies_of_two_boxes_have_landed_on_return_even_when_the_second_fails() {
    let dev = 26;
    test_device::set_stream_delay(dev, Duration::from_millis(2)).unwrap();
    // A gap of more than 1,024 elements: two copies (D9).
    let a = dv::<i64>("tiny_boxes", dev, 3000);
    let boxes = [a.subview(&[Slice::Range(0, 100)]).unwrap(), a.subview(&[Slice::Range(2900, 3000)]).unwrap()];
    let in_boxes = |i: usize| !(100..2900).contains(&i);
    for (round, fail) in [(1i64, false), (2, true)] {
        write_host(&a, |i| i as i64 * 10 + round);
        a.clear_sync_state().unwrap();
        boxes.iter().for_each(|b| b.modify_host().unwrap());
        if fail {
            test_device::fail_driver_call("copy_async", 2).unwrap();
            fails_naming(a.sync_device(), "copy_async", ErrorKind::Device);
            // No driver call between the failed sync and this read.
            let d = raw_values::<i64>(a.raw(), Side::Device);
            let landed = [(0..100), (2900..3000)].map(|r| r.clone().all(|i| d[i] == i as i64 * 10 + round));
            assert_eq!(landed.iter().filter(|&&l| l).count(), 1, "the first box's copy landed, the second was never made");
            assert!(a.need_sync_device());
            a.sync_device().unwrap();
        } else {
            let (r, calls) = test_device::driver_calls(|| a.sync_device());
            r.unwrap();
            assert_eq!(calls, ["bind", "synchronize", "copy_async", "copy_async", "stream_synchronize"]);
        }
        let d = raw_values::<i64>(a.raw(), Side::Device);
        assert!((0..3000).all(|i| d[i] == if in_boxes(i) { i as i64 * 10 + round } else { 0 }), "round {round}: the boxes, and only they");
    }
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

/// From a registered (page-locked) mirror the synchronous copy is complete on
/// return (CUDA's API synchronization behavior): a small box of it, as a
/// LAMMPS border exchange syncs, takes no wait beyond the fence.
#[test]
fn a_tiny_sync_from_a_registered_mirror_is_complete_on_return_and_adds_no_wait() {
    let dev = 28;
    test_device::set_registers_mirror(dev, true).unwrap();
    test_device::set_stream_delay(dev, Duration::from_millis(2)).unwrap();
    let n = 1 << 17; // 1 MiB: registered in the background
    let a = dv::<i64>("tiny_registered", dev, n);
    dualview::memory::settle();
    assert!(a.raw().is_mirror_pinned(), "registered before the sync");
    let edge = a.subview(&[Slice::Range(n - 100, n)]).unwrap();
    write_host(&a, |i| i as i64 * 5 + 2);
    edge.modify_host().unwrap();
    let (r, calls) = test_device::driver_calls(|| edge.sync_device());
    r.unwrap();
    assert_eq!(calls, ["bind", "synchronize", "copy"], "the fence and one copy, complete on return");
    let d = raw_values::<i64>(a.raw(), Side::Device);
    assert!((n - 100..n).all(|i| d[i] == i as i64 * 5 + 2), "the box landed");
    assert!(d[..n - 100].iter().all(|&v| v == 0), "nothing else moved");
    // A failure of that synchronous copy changes nothing and leaves the box to sync.
    write_host(&a, |i| i as i64 * 5 + 3);
    a.clear_sync_state().unwrap();
    edge.modify_host().unwrap();
    test_device::fail_driver_call("copy", 1).unwrap();
    fails_naming(edge.sync_device(), "copy", ErrorKind::Device);
    assert!(raw_values::<i64>(a.raw(), Side::Device)[n - 100..].iter().enumerate().all(|(k, &v)| v == (n - 100 + k) as i64 * 5 + 2));
    assert!(edge.need_sync_device());
    edge.sync_device().unwrap();
    assert!(raw_values::<i64>(a.raw(), Side::Device)[n - 100..].iter().enumerate().all(|(k, &v)| v == (n - 100 + k) as i64 * 5 + 3));
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

/// A blocking tiny sync to the device (G8) of a region of any element size, start and
/// length lands what the host wrote, there and only there, by the time the sync returns,
/// while the device's default stream runs late: one copy and the wait for it.
#[test]
fn a_tiny_sync_to_the_device_lands_on_return_at_every_element_size_and_alignment() {
    let dev = 50;
    test_device::set_stream_delay(dev, Duration::from_millis(2)).unwrap();
    fn case<T: dualview::Element + Copy + PartialEq + std::fmt::Debug>(dev: u32, n: usize, start: usize, len: usize, val: impl Fn(usize, i64) -> T) {
        let a: DualView<T, Dims<1>> = DualView::builder("tiny_sizes", Dims::new([n]).unwrap()).device(Space::test_device(dev)).build().unwrap();
        let part = a.subview(&[Slice::Range(start, start + len)]).unwrap();
        for round in 1..=3i64 {
            a.host_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = val(i, round));
            a.clear_sync_state().unwrap();
            part.modify_host().unwrap();
            let before = raw_values::<T>(a.raw(), Side::Device);
            let (r, calls) = test_device::driver_calls(|| part.sync_device());
            r.unwrap();
            // No driver call between the sync and this read: what a kernel on another stream reads.
            let d = raw_values::<T>(a.raw(), Side::Device);
            let want: Vec<T> = (0..n).map(|i| if (start..start + len).contains(&i) { val(i, round) } else { before[i] }).collect();
            assert_eq!(d, want, "{n} x {} B, [{start}, {}), round {round}: the region, only it: {calls:?}", std::mem::size_of::<T>(), start + len);
            assert_ne!(before, d, "round {round} wrote new values");
            assert_eq!(calls, ["bind", "synchronize", "copy_async", "stream_synchronize"]);
        }
    }
    let f64s = |i: usize, r: i64| (i as f64) * 1.5 + r as f64;
    case::<f64>(dev, 1, 0, 1, f64s);
    case::<f64>(dev, 40, 0, 32, f64s);
    case::<f64>(dev, 40, 3, 33, f64s);
    let i32s = |i: usize, r: i64| (i as i32) * 3 - r as i32;
    case::<i32>(dev, 16, 0, 1, i32s);
    case::<i32>(dev, 16, 1, 3, i32s);
    case::<i32>(dev, 16, 1, 4, i32s);
    let u16s = |i: usize, r: i64| (i as u16) * 5 + r as u16;
    case::<u16>(dev, 16, 2, 2, u16s);
    case::<u16>(dev, 16, 1, 2, u16s);
    let u8s = |i: usize, r: i64| (i as u8).wrapping_mul(7).wrapping_add(r as u8);
    case::<u8>(dev, 16, 0, 6, u8s);
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn above_the_tiny_size_a_blocking_sync_queues_and_waits_for_its_stream() {
    let a = dv::<i64>("not_tiny", 31, 8193);
    write_host(&a, |i| i as i64 + 7);
    let (r, calls) = test_device::driver_calls(|| a.sync_device());
    r.unwrap();
    assert_eq!(calls, ["bind", "synchronize", "copy_async", "stream_synchronize"]);
    assert_eq!(raw_values::<i64>(a.raw(), Side::Device), (0..8193).map(|i| i + 7).collect::<Vec<_>>());
}

#[test]
fn a_blocking_deep_copy_binds_once_copies_once_and_fences_as_g5_says() {
    let a = dv::<i64>("deep_src", 32, 500);
    let b = dv::<i64>("deep_dst", 32, 500);
    write_device(&a, |i| 5 * i as i64);
    let (r, calls) = calls_but_staging_alloc(|| RawDualView::view_copy(b.raw(), Side::Host, a.raw(), Side::Device));
    r.unwrap();
    // A view's memory may be page-locked by its program: the driver is asked, then the copy staged.
    assert_eq!(
        calls,
        ["bind", "synchronize", "is_page_locked", "copy_async", "stream_synchronize"],
        "one bind, the fence, one question, one copy and its wait, nothing else"
    );
    assert_eq!(raw_values::<i64>(b.raw(), Side::Host), (0..500).map(|i| 5 * i).collect::<Vec<_>>());
}

#[test]
fn strided_regions_are_one_2d_copy_per_outer_index() {
    // Left layout (the test device's default): a block of rows is strided.
    let a: DualView<i64, Dims<2>> = DualView::builder("strided", Dims::new([64, 32]).unwrap()).device(Space::test_device(33)).build().unwrap();
    let sub = a.subview(&[Slice::Range(8, 40), Slice::All]).unwrap();
    {
        let mut h = a.host_write().unwrap();
        for i in 0..64 {
            for j in 0..32 {
                h[[i, j]] = (i * 100 + j) as i64;
            }
        }
    }
    a.clear_sync_state().unwrap();
    sub.modify_host().unwrap();
    let (r, calls) = test_device::driver_calls(|| sub.sync_device());
    r.unwrap();
    assert_eq!(count(&calls, "copy_2d_async"), 1, "{calls:?}");
    let d = raw_values::<i64>(a.raw(), Side::Device);
    for i in 0..64 {
        for j in 0..32 {
            let want = if (8..40).contains(&i) { (i * 100 + j) as i64 } else { 0 };
            assert_eq!(d[i + 64 * j], want, "({i}, {j})");
        }
    }
}

#[test]
fn staging_to_the_device_packs_at_the_call_and_completes_by_a_host_function() {
    let dev = 34;
    // Staging is the path of a pageable mirror (DV_PAGEABLE_MIRROR=1 on CUDA): this device registers none.
    test_device::set_registers_mirror(dev, false).unwrap();
    test_device::set_stream_delay(dev, Duration::from_millis(40)).unwrap();
    let a = dv::<i64>("stage_in", dev, 4096);
    write_host(&a, |i| i as i64 + 1);
    let s = Owned::new(dev);
    let (r, calls) = test_device::driver_calls(|| a.sync_device_on(s.1));
    r.unwrap();
    assert_eq!((count(&calls, "copy_async"), count(&calls, "launch_host_fn")), (1, 1), "{calls:?}");
    assert_eq!(count(&calls, "copy") + count(&calls, "event_record"), 0, "no synchronous copy, no event: {calls:?}");
    assert!(raw_values::<i64>(a.raw(), Side::Device).iter().all(|&v| v == 0), "queued behind 40 ms: not run yet");
    stream::fence(Space::test_device(dev), s.1).unwrap();
    assert_eq!(raw_values::<i64>(a.raw(), Side::Device), (1..=4096).collect::<Vec<_>>());
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn staging_to_the_host_unpacks_when_the_stream_reaches_it() {
    let dev = 35;
    // Staging is the path of a pageable mirror (DV_PAGEABLE_MIRROR=1 on CUDA): this device registers none.
    test_device::set_registers_mirror(dev, false).unwrap();
    test_device::set_stream_delay(dev, Duration::from_millis(40)).unwrap();
    let a = dv::<i64>("stage_out", dev, 4096);
    write_device(&a, |i| 2 * i as i64);
    let s = Owned::new(dev);
    let (r, calls) = test_device::driver_calls(|| a.sync_host_on(s.1));
    r.unwrap();
    assert_eq!((count(&calls, "copy_async"), count(&calls, "launch_host_fn")), (1, 1), "{calls:?}");
    assert!(raw_values::<i64>(a.raw(), Side::Host).iter().all(|&v| v == 0), "not unpacked before the stream runs");
    // The host function's flag is the copy's event: a blocking sync waits on it, no driver event.
    let (r, calls) = test_device::driver_calls(|| a.sync_host());
    r.unwrap();
    assert_eq!(count(&calls, "event_synchronize"), 0, "{calls:?}");
    assert_eq!(raw_values::<i64>(a.raw(), Side::Host), (0..4096).map(|i| 2 * i).collect::<Vec<_>>());
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn a_page_locked_mirror_copies_without_staging_and_its_events_are_pooled() {
    // The registration's own path: no kept block of another test comes registered (tests/pool.rs).
    dualview::memory::set_pool_cap(0);
    let dev = 36;
    test_device::set_registers_mirror(dev, true).unwrap();
    let a = dv::<i64>("events", dev, 4096);
    let s = Owned::new(dev);
    write_host(&a, |i| i as i64);
    let (r, first) = test_device::driver_calls(|| a.sync_device_on(s.1));
    r.unwrap();
    assert_eq!(count(&first, "host_register"), 1, "a small mirror registers at its first copy on a stream: {first:?}");
    assert_eq!((count(&first, "copy_async"), count(&first, "launch_host_fn"), count(&first, "event_record")), (1, 0, 1), "{first:?}");
    assert!(a.raw().is_mirror_pinned());
    a.sync_device().unwrap(); // waits for the event and releases it: back to the pool
    write_host(&a, |i| 3 * i as i64);
    let (r, second) = test_device::driver_calls(|| a.sync_device_on(s.1));
    r.unwrap();
    assert_eq!((count(&second, "event_create"), count(&second, "event_record")), (0, 1), "the pooled event: {second:?}");
    stream::fence(Space::test_device(dev), s.1).unwrap();
    assert_eq!(raw_values::<i64>(a.raw(), Side::Device), (0..4096).map(|i| 3 * i).collect::<Vec<_>>());
    test_device::set_registers_mirror(dev, false).unwrap();
}

#[test]
fn fills_take_the_widest_memset_then_doubling_then_a_scratch_block() {
    let dev = 37;
    let n = 100_000; // more than the 64 KiB seed: several doublings
    let b = dv::<u8>("fill_u8", dev, n);
    let (r, calls) = test_device::driver_calls(|| b.fill_device(0xAB));
    r.unwrap();
    assert_eq!(count(&calls, "memset_async"), 1, "{calls:?}");
    assert!(raw_values::<u8>(b.raw(), Side::Device).iter().all(|&v| v == 0xAB));

    let h = dv::<u16>("fill_u16", dev, n);
    let (r, calls) = test_device::driver_calls(|| h.fill_device(0x0102));
    r.unwrap();
    assert_eq!(count(&calls, "memset_async"), 1, "{calls:?}");
    assert!(raw_values::<u16>(h.raw(), Side::Device).iter().all(|&v| v == 0x0102));

    let w = dv::<i64>("fill_i64_w32", dev, n);
    let (r, calls) = test_device::driver_calls(|| w.fill_device(0x0102_0304_0102_0304));
    r.unwrap();
    assert_eq!(count(&calls, "memset_async"), 1, "a repeating 4-byte word: {calls:?}");
    assert!(raw_values::<i64>(w.raw(), Side::Device).iter().all(|&v| v == 0x0102_0304_0102_0304));

    let f = dv::<f64>("fill_f64", dev, n);
    let (r, calls) = test_device::driver_calls(|| f.fill_device(1.5));
    r.unwrap();
    assert_eq!(count(&calls, "memset_async"), 0);
    // One seed copy in, then device copies doubling it: 8192, 16384, ... up to n.
    assert_eq!(count(&calls, "copy_async"), 1 + (n as f64 / 8192.0).log2().ceil() as usize, "{calls:?}");
    assert!(raw_values::<f64>(f.raw(), Side::Device).iter().all(|&v| v == 1.5));

    let m: DualView<f64, Dims<2>> = DualView::builder("fill_strided", Dims::new([64, 32]).unwrap()).device(Space::test_device(dev)).build().unwrap();
    let sub = m.subview(&[Slice::Range(8, 40), Slice::All]).unwrap();
    let (r, calls) = test_device::driver_calls(|| sub.fill_device(2.5));
    r.unwrap();
    for c in ["alloc", "copy_2d_async", "free"] {
        assert_eq!(count(&calls, c), 1, "{c}: {calls:?}");
    }
    let d = raw_values::<f64>(m.raw(), Side::Device);
    for i in 0..64 {
        for j in 0..32 {
            assert_eq!(d[i + 64 * j], if (8..40).contains(&i) { 2.5 } else { 0.0 }, "({i}, {j})");
        }
    }
    assert_eq!(test_device::used_bytes(dev).unwrap(), (n + 2 * n + 8 * n + 8 * n + 8 * 64 * 32), "the scratch block is freed");
}

#[test]
fn copies_between_two_devices_are_peer_copies_and_strided_ones_go_through_the_host() {
    let a = dv::<i64>("peer_src", 38, 5000);
    let b = dv::<i64>("peer_dst", 39, 5000);
    write_device(&a, |i| i as i64 * 11);
    let (r, calls) = test_device::driver_calls(|| RawDualView::view_copy(b.raw(), Side::Device, a.raw(), Side::Device));
    r.unwrap();
    assert_eq!(count(&calls, "copy_peer_async"), 1, "{calls:?}");
    assert_eq!(raw_values::<i64>(b.raw(), Side::Device), (0..5000).map(|i| i * 11).collect::<Vec<_>>());

    let p: DualView<i64, Dims<2>> = DualView::builder("peer2_src", Dims::new([16, 8]).unwrap()).device(Space::test_device(38)).build().unwrap();
    let q: DualView<i64, Dims<2>> = DualView::builder("peer2_dst", Dims::new([16, 8]).unwrap()).device(Space::test_device(39)).build().unwrap();
    {
        let mut d = p.device_write().unwrap();
        for i in 0..16 {
            for j in 0..8 {
                d[[i, j]] = (i * 10 + j) as i64;
            }
        }
    }
    let (ps, qs) = (p.subview(&[Slice::Range(2, 6), Slice::All]).unwrap(), q.subview(&[Slice::Range(10, 14), Slice::All]).unwrap());
    let (r, calls) = test_device::driver_calls(|| RawDualView::view_copy(qs.raw(), Side::Device, ps.raw(), Side::Device));
    r.unwrap();
    assert_eq!((count(&calls, "copy_peer_async"), count(&calls, "copy_2d_async")), (0, 2), "out and in through a host buffer: {calls:?}");
    let d = raw_values::<i64>(q.raw(), Side::Device);
    for i in 0..16 {
        for j in 0..8 {
            let want = if (10..14).contains(&i) { ((i - 8) * 10 + j) as i64 } else { 0 };
            assert_eq!(d[i + 16 * j], want, "({i}, {j})");
        }
    }
}

#[test]
fn a_test_device_and_a_cuda_device_have_no_copy_path() {
    if dualview::memory::cuda_device_count() == 0 {
        eprintln!("SKIPPED a_test_device_and_a_cuda_device_have_no_copy_path: no CUDA device here");
        return;
    }
    let a = dv::<i64>("engine_a", 40, 10);
    let b: DualView<i64, Dims<1>> = DualView::builder("cuda_b", Dims::new([10]).unwrap()).device(Space::cuda(0)).build().unwrap();
    let e = RawDualView::view_copy(b.raw(), Side::Device, a.raw(), Side::Device).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Incompatible, "{e}");
}

// Fault injection through the driver (issue 31, item 4): after each failure
// the DualView keeps its data, flags and coherence map, the error names the
// call, and the same call then succeeds.

/// Everything a failed call must leave as it was: the sync word, the coherence map, both sides' values.
type State = (u8, (usize, usize, usize, bool), Vec<i64>, Vec<i64>);

fn state(a: &DualView<i64, Dims<1>>) -> State {
    let m = a.raw().coherence();
    (a.raw().sync_state(), (m.host_newer, m.device_newer, m.boxes, m.bitmap), raw_values(a.raw(), Side::Host), raw_values(a.raw(), Side::Device))
}

/// `a` with host values `i + 1` written to its first half (marked), device values `-i` everywhere (marked before).
fn marked_halves(label: &str, ordinal: u32, n: usize) -> DualView<i64, Dims<1>> {
    let a = dv::<i64>(label, ordinal, n);
    write_device(&a, |i| -(i as i64));
    a.sync_host().unwrap();
    let half = a.subview(&[Slice::Range(0, n / 2)]).unwrap();
    half.host_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as i64 + 1);
    a
}

fn fails_naming(r: dualview::Result<()>, call: &str, kind: ErrorKind) {
    let e = r.unwrap_err();
    assert_eq!(e.kind(), kind, "{e}");
    assert!(e.message().contains(&format!("{call} failed")), "the error names the call: {e}");
}

fn synced_device(a: &DualView<i64, Dims<1>>, n: usize) {
    let want: Vec<i64> = (0..n).map(|i| if i < n / 2 { i as i64 + 1 } else { -(i as i64) }).collect();
    assert_eq!(raw_values::<i64>(a.raw(), Side::Device), want);
    assert!(!a.need_sync_device());
}

#[test]
fn out_of_memory_at_allocation_leaves_nothing_behind() {
    let dev = 41;
    test_device::fail_driver_call("alloc", 1).unwrap();
    let r = DualView::<i64, Dims<1>>::builder("oom_alloc", Dims::new([1000]).unwrap()).device(Space::test_device(dev)).build();
    fails_naming(r.map(drop), "alloc", ErrorKind::OutOfMemory);
    assert_eq!(test_device::used_bytes(dev).unwrap(), 0);
    assert!(!dualview::memory::live_allocations().iter().any(|x| x.label.starts_with("oom_alloc")), "the mirror is freed too");
    // A failed grow keeps the array as it was.
    let a = marked_halves("oom_grow", dev, 1000);
    let before = state(&a);
    test_device::fail_driver_call("alloc", 1).unwrap();
    fails_naming(a.resize(Dims::new([5000]).unwrap()), "alloc", ErrorKind::OutOfMemory);
    assert_eq!(state(&a), before);
    assert_eq!(a.extent(0).unwrap(), 1000);
    a.resize(Dims::new([5000]).unwrap()).unwrap();
    assert_eq!(raw_values::<i64>(a.raw(), Side::Host)[..500], (1..=500).collect::<Vec<_>>()[..]);
}

#[test]
fn out_of_memory_at_registration_leaves_the_mirror_pageable_and_copies_staged() {
    // The registration's own path: no kept block of another test comes registered (tests/pool.rs).
    dualview::memory::set_pool_cap(0);
    let dev = 42;
    test_device::set_registers_mirror(dev, true).unwrap();
    let a = marked_halves("oom_register", dev, 4096);
    let s = Owned::new(dev);
    test_device::fail_driver_call("host_register", 1).unwrap();
    let (r, calls) = test_device::driver_calls(|| a.sync_device_on(s.1));
    r.unwrap(); // a refused registration is no error
    assert_eq!(count(&calls, "launch_host_fn"), 1, "staged, as pageable memory is: {calls:?}");
    assert!(!a.raw().is_mirror_pinned());
    a.sync_device().unwrap();
    synced_device(&a, 4096);
    test_device::set_registers_mirror(dev, false).unwrap();
}

/// One sync of `a` whose driver `call` fails once: the error names the call, nothing changed,
/// the sync is still to do; then the retry.
fn fails_once_then_retries(a: &DualView<i64, Dims<1>>, call: &str, sync: fn(&DualView<i64, Dims<1>>) -> dualview::Result<()>, to_do: fn(&DualView<i64, Dims<1>>) -> bool) {
    let before = state(a);
    test_device::fail_driver_call(call, 1).unwrap();
    fails_naming(sync(a), call, ErrorKind::Device);
    assert_eq!(state(a), before, "{call}");
    assert!(to_do(a), "{call}: still to do");
    sync(a).unwrap();
}

#[test]
fn a_failed_blocking_copy_changes_nothing() {
    let dev = 43;
    // Half of 500 elements: the tiny path; of 10,000 (40,000 B): staged; of 100,000: queued.
    for (call, n) in [("copy_async", 500), ("copy_async", 10_000), ("copy_async", 100_000), ("synchronize", 1000), ("bind", 1000)] {
        let a = marked_halves(call, dev, n);
        fails_once_then_retries(&a, call, |a| a.sync_device(), |a| a.need_sync_device());
        synced_device(&a, n);
    }
    // To the host: staged at every tiny size.
    for (call, n) in [("copy_async", 1), ("copy_async", 1000), ("stream_synchronize", 1000)] {
        let a = dv::<i64>(&format!("to_host_{n}"), dev, n);
        write_device(&a, |i| i as i64 + 9);
        fails_once_then_retries(&a, call, |a| a.sync_host(), |a| a.need_sync_host());
        assert_eq!(raw_values::<i64>(a.raw(), Side::Host), (0..n as i64).map(|i| i + 9).collect::<Vec<_>>());
    }
}

#[test]
fn a_failed_asynchronous_copy_puts_its_region_back_as_not_synced() {
    let dev = 44;
    test_device::set_stream_delay(dev, Duration::from_millis(5)).unwrap();
    let s = Owned::new(dev);
    // Staged (pageable mirror): the copy, then the host function; registered mirror: the copy, then the event.
    for (call, pinned) in [("copy_async", false), ("launch_host_fn", false), ("copy_async", true), ("event_record", true)] {
        test_device::set_registers_mirror(dev, pinned).unwrap();
        let a = marked_halves(&format!("{call}_{pinned}"), dev, 4096);
        let before = state(&a);
        test_device::fail_driver_call(call, 1).unwrap();
        fails_naming(a.sync_device_on(s.1), call, ErrorKind::Device);
        let after = state(&a);
        assert_eq!((after.0 & !dualview::abi::DV_SYNC_IN_FLIGHT, after.1, &after.2), (before.0, before.1, &before.2), "{call} pinned={pinned}");
        assert!(a.need_sync_device(), "{call}: the region is not synced");
        a.sync_device_on(s.1).unwrap();
        a.sync_device().unwrap();
        synced_device(&a, 4096);
    }
    test_device::set_registers_mirror(dev, false).unwrap();
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn failed_streams_fills_and_events_name_their_call() {
    let dev = 45;
    test_device::fail_driver_call("stream_create", 1).unwrap();
    fails_naming(stream::create(Space::test_device(dev)).map(drop), "stream_create", ErrorKind::Device);
    let s = Owned::new(dev);
    let a = dv::<i64>("fill_fault", dev, 1000);
    write_device(&a, |i| i as i64);
    let before = state(&a);
    test_device::fail_driver_call("memset_async", 1).unwrap();
    fails_naming(a.fill_device(0), "memset_async", ErrorKind::Device);
    assert_eq!(state(&a), before);
    test_device::fail_driver_call("stream_synchronize", 1).unwrap();
    fails_naming(stream::fence(Space::test_device(dev), s.1), "stream_synchronize", ErrorKind::Device);
    assert!(test_device::fail_driver_call("cuMemcpy", 1).unwrap_err().message().contains("not a driver call"));
}

#[test]
fn a_failed_wait_never_frees_what_queued_work_still_uses() {
    // The fake's injected stream_synchronize failure returns before the worker has run:
    // the fill's seed, a strided fill's scratch block and a staging buffer must outlive it.
    let dev = 46;
    // Staging is the path of a pageable mirror (DV_PAGEABLE_MIRROR=1 on CUDA): this device registers none.
    test_device::set_registers_mirror(dev, false).unwrap();
    test_device::set_stream_delay(dev, Duration::from_millis(20)).unwrap();
    let s = Owned::new(dev);
    let a = dv::<f64>("wait_fill", dev, 50_000);
    let v = a.raw().view(Side::Device).unwrap();
    test_device::fail_driver_call("stream_synchronize", 1).unwrap();
    // SAFETY: nobody else uses `a` meanwhile.
    fails_naming(unsafe { v.fill_on(&1.5f64.to_ne_bytes(), s.1) }, "stream_synchronize", ErrorKind::Device);
    stream::fence(Space::test_device(dev), s.1).unwrap();
    assert!(raw_values::<f64>(a.raw(), Side::Device).iter().all(|&x| x == 1.5), "the queued copies ran from a live seed");
    let b = dv::<i64>("wait_stage", dev, 4096);
    write_device(&b, |i| i as i64);
    test_device::fail_driver_call("launch_host_fn", 1).unwrap();
    test_device::fail_driver_call("stream_synchronize", 1).unwrap();
    fails_naming(b.sync_host_on(s.1), "launch_host_fn", ErrorKind::Device);
    assert!(b.need_sync_host(), "not synced");
    stream::fence(Space::test_device(dev), s.1).unwrap();
    b.sync_host().unwrap();
    assert_eq!(raw_values::<i64>(b.raw(), Side::Host), (0..4096).collect::<Vec<_>>());
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn small_device_blocks_are_kept_and_reused() {
    let dev = 47;
    test_device::set_keeps_small_blocks(dev, true).unwrap(); // as on CUDA
    {
        let a = dv::<i64>("small_first", dev, 8);
        write_device(&a, |i| 7 + i as i64);
    }
    let used = test_device::used_bytes(dev).unwrap();
    assert_eq!(used, 64 << 10, "the 64-byte block was a 256-byte slot of a 64 KiB slab, kept idle");
    // The next small DualView takes it back: no driver allocation, no free, and it reads zero.
    let (a, calls) = test_device::driver_calls(|| dv::<i64>("small_again", dev, 8));
    assert_eq!(count(&calls, "alloc") + count(&calls, "free"), 0, "{calls:?}");
    assert_eq!(raw_values::<i64>(a.raw(), Side::Device), vec![0; 8], "a kept block is zeroed like a new one");
    let (_, calls) = test_device::driver_calls(|| drop(a));
    assert_eq!(count(&calls, "free"), 0, "{calls:?}");
    assert_eq!(count(&calls, "synchronize"), 1, "kept after the synchronize a free makes: {calls:?}");
    // A block whose size is a class size itself (32 doubles: 256 bytes) is kept and reused too.
    drop(dv::<f64>("class_sized", dev, 32));
    let (_, calls) = test_device::driver_calls(|| drop(dv::<f64>("class_sized_again", dev, 32)));
    assert_eq!(count(&calls, "alloc") + count(&calls, "free"), 0, "{calls:?}");
    // Large blocks go back to the driver.
    let (_, calls) = test_device::driver_calls(|| drop(dv::<i64>("large", dev, 1 << 14)));
    assert_eq!((count(&calls, "alloc"), count(&calls, "free")), (1, 1), "{calls:?}");
    assert_eq!(test_device::used_bytes(dev).unwrap(), used);
    let e = test_device::set_keeps_small_blocks(dev, false).unwrap_err();
    assert!(e.message().contains("has memory allocated"), "{e}");
    // A block is not kept when the synchronize before it failed: the driver's free takes it.
    let a = dv::<i64>("sync_fails", dev, 1000); // 8 KiB: a kept class, not a slot
    test_device::fail_driver_call("synchronize", 1).unwrap();
    let (_, calls) = test_device::driver_calls(|| drop(a));
    assert_eq!(count(&calls, "free"), 1, "{calls:?}");
    assert_eq!(test_device::used_bytes(dev).unwrap(), 64 << 10, "the idle slab only");
    // A slot is never handed out again when the synchronize before its free failed
    // (queued work may still use it): the next small DualView gets another one.
    let a = dv::<i64>("slot_sync_fails", dev, 8);
    let at = a.raw().view(Side::Device).unwrap().data() as usize;
    test_device::fail_driver_call("synchronize", 1).unwrap();
    drop(a);
    let b = dv::<i64>("slot_after", dev, 8);
    assert_ne!(b.raw().view(Side::Device).unwrap().data() as usize, at);
}

/// A small DualView takes a slot that holds zeros already (DECISIONS G20): a new slab is
/// zeroed whole, freed slots are zeroed together when the clean ones run out. The oracle:
/// what the device side reads after the slots held other DualViews' values.
#[test]
fn small_dualviews_take_zeroed_slots_with_no_driver_call() {
    let dev = 62;
    test_device::set_keeps_small_blocks(dev, true).unwrap(); // as on CUDA
    let (first, calls) = test_device::driver_calls(|| dv::<i64>("slab", dev, 8));
    assert_eq!((count(&calls, "alloc"), count(&calls, "memset_async"), count(&calls, "synchronize")), (1, 1, 1), "{calls:?}");
    let (second, calls) = test_device::driver_calls(|| dv::<i64>("clean", dev, 8));
    assert!(!calls.iter().any(|c| ["alloc", "memset_async", "synchronize"].contains(c)), "a clean slot: {calls:?}");
    assert_eq!(raw_values::<i64>(second.raw(), Side::Device), vec![0; 8]);
    // Three slabs' worth written and freed (dirty), then made again: every one reads zero.
    for round in 0..3 {
        let live: Vec<_> = (0..600).map(|i| dv::<i64>("dirty", dev, 8 + i % 24)).collect();
        for (i, a) in live.iter().enumerate() {
            assert_eq!(raw_values::<i64>(a.raw(), Side::Device), vec![0; 8 + i % 24], "round {round}, DualView {i}");
            write_device(a, |j| (round * 1000 + i + j + 1) as i64);
        }
        let (_, calls) = test_device::driver_calls(|| drop(live));
        assert!(!calls.contains(&"memset_async"), "a free zeroes nothing: {calls:?}");
    }
    let (made, calls) = test_device::driver_calls(|| (0..600).map(|i| dv::<i64>("again", dev, 8 + i % 24)).collect::<Vec<_>>());
    assert!(made.iter().all(|a| raw_values::<i64>(a.raw(), Side::Device).iter().all(|&v| v == 0)), "a reused slot reads zero");
    let (memsets, waits) = (count(&calls, "memset_async"), count(&calls, "synchronize"));
    assert!(waits > 0 && waits <= 12 && memsets <= 12 * 64, "dirty slots zeroed together: {memsets} memsets, {waits} waits for 600 DualViews");
    drop(made);
    drop((first, second));
    // A zeroing that fails makes nothing and hands out no dirty slot as zeroed: a slab's 256
    // slots taken, 200 of them written and freed, so that none is clean.
    let dev = 63;
    test_device::set_keeps_small_blocks(dev, true).unwrap();
    let mut live: Vec<_> = (0..256).map(|_| dv::<i64>("full", dev, 8)).collect();
    assert_eq!(test_device::used_bytes(dev).unwrap(), 64 << 10, "one slab");
    for a in &live {
        write_device(a, |j| j as i64 - 99);
    }
    live.truncate(56);
    test_device::fail_driver_call("memset_async", 1).unwrap();
    let e = DualView::<i64, Dims<1>>::builder("fails", Dims::new([8]).unwrap()).device(Space::test_device(dev)).build().unwrap_err();
    assert!(e.message().contains("memset_async failed"), "{e}");
    let after: Vec<_> = (0..200).map(|_| dv::<i64>("after", dev, 8)).collect();
    assert_eq!(test_device::used_bytes(dev).unwrap(), 64 << 10, "the same slab's slots");
    assert!(after.iter().all(|a| raw_values::<i64>(a.raw(), Side::Device) == vec![0; 8]), "after the failure, every slot reads zero");
    drop((live, after));
}

#[test]
fn a_device_out_of_memory_frees_the_kept_blocks_and_retries() {
    let dev = 48;
    test_device::set_keeps_small_blocks(dev, true).unwrap();
    for n in [8, 100, 1000] {
        drop(dv::<i64>("kept", dev, n));
    }
    let kept = test_device::used_bytes(dev).unwrap();
    assert_eq!(kept, 2 * (64 << 10) + 8192, "an idle slab of 256-byte and of 1 KiB slots, a kept 8 KiB block");
    // Room for a 128 KiB block only once the kept ones are freed.
    test_device::set_capacity(dev, Some((128 << 10) + kept / 2)).unwrap();
    let (a, calls) = test_device::driver_calls(|| dv::<u8>("big", dev, 128 << 10));
    test_device::set_capacity(dev, None).unwrap();
    assert_eq!((count(&calls, "alloc"), count(&calls, "free")), (2, 3), "failed, freed the two idle slabs and the kept block, succeeded: {calls:?}");
    assert_eq!(test_device::used_bytes(dev).unwrap(), 128 << 10);
    drop(a);
    assert_eq!(test_device::used_bytes(dev).unwrap(), 0);
}

#[test]
fn a_small_block_without_room_for_a_slab_gets_a_block_of_its_own() {
    let dev = 49;
    test_device::set_keeps_small_blocks(dev, true).unwrap();
    // Room for a 256-byte block, not for a 64 KiB slab.
    test_device::set_capacity(dev, Some(1024)).unwrap();
    let (a, calls) = test_device::driver_calls(|| dv::<i64>("no_room", dev, 8));
    assert_eq!(count(&calls, "alloc"), 2, "the slab refused, then a block of its own: {calls:?}");
    assert_eq!(test_device::used_bytes(dev).unwrap(), 256);
    write_device(&a, |i| 3 * i as i64);
    a.modify_device().unwrap();
    a.sync_host().unwrap();
    assert_eq!(raw_values::<i64>(a.raw(), Side::Host), (0..8).map(|i| 3 * i).collect::<Vec<_>>());
    let (_, calls) = test_device::driver_calls(|| drop(a));
    assert_eq!(count(&calls, "free"), 1, "not a slot: the driver frees it: {calls:?}");
    assert_eq!(test_device::used_bytes(dev).unwrap(), 0);
    // Freed to the driver even when the synchronize before it fails (the driver's free waits).
    let b = dv::<i64>("no_room_sync_fails", dev, 8);
    test_device::fail_driver_call("synchronize", 1).unwrap();
    let (_, calls) = test_device::driver_calls(|| drop(b));
    assert_eq!(count(&calls, "free"), 1, "{calls:?}");
    test_device::set_capacity(dev, None).unwrap();
    assert_eq!(test_device::used_bytes(dev).unwrap(), 0);
}

/// `tests/cuda/multi_gpu.cu`'s program on two test devices (issue 46, item 6): a
/// DualView on each device, a "kernel" (device write) on each, syncs both ways,
/// `deep_copy` between the two device sides as one peer copy, two threads
/// driving the two devices at once, and small blocks kept per device.
#[test]
fn the_two_gpu_program_runs_on_two_test_devices() {
    let (d0, d1) = (60, 61);
    let n = 1 << 20;
    for d in [d0, d1] {
        test_device::set_keeps_small_blocks(d, true).unwrap(); // as on CUDA
    }
    // 1. A DualView on each device, written there, synced to the host.
    let a = dv::<i64>("gpu0", d0, n);
    let b = dv::<i64>("gpu1", d1, n);
    write_device(&a, |i| i as i64);
    a.modify_device().unwrap();
    write_device(&b, |i| -(i as i64));
    b.modify_device().unwrap();
    a.sync_host().unwrap();
    b.sync_host().unwrap();
    assert_eq!(raw_values::<i64>(a.raw(), Side::Host), (0..n as i64).collect::<Vec<_>>());
    assert_eq!(raw_values::<i64>(b.raw(), Side::Host), (0..n as i64).map(|i| -i).collect::<Vec<_>>());
    // 2. deep_copy device 0 -> device 1: one peer copy, every value.
    let (r, calls) = test_device::driver_calls(|| RawDualView::view_copy(b.raw(), Side::Device, a.raw(), Side::Device));
    r.unwrap();
    assert_eq!(count(&calls, "copy_peer_async"), 1, "{calls:?}");
    assert_eq!(raw_values::<i64>(b.raw(), Side::Device), (0..n as i64).collect::<Vec<_>>());
    // 3. Two threads, each driving its own device: write, mark, sync, check, 8 rounds.
    let wrong: usize = std::thread::scope(|s| {
        let h: Vec<_> = [(&a, 1i64), (&b, 2i64)]
            .into_iter()
            .map(|(v, k)| {
                s.spawn(move || {
                    let mut bad = 0;
                    for round in 0..8i64 {
                        write_device(v, |i| k * 1000 * round + i as i64);
                        v.modify_device().unwrap();
                        v.sync_host().unwrap();
                        let h = raw_values::<i64>(v.raw(), Side::Host);
                        bad += h.iter().enumerate().filter(|&(i, &x)| x != k * 1000 * round + i as i64).count();
                    }
                    bad
                })
            })
            .collect();
        h.into_iter().map(|t| t.join().unwrap()).sum()
    });
    assert_eq!(wrong, 0, "each device's values came back in each round");
    // 4. Small blocks are kept per device: a freed one on device 0 serves device 0 only.
    drop(dv::<i64>("small0", d0, 8));
    assert_eq!(test_device::used_bytes(d0).unwrap(), 8 * n + (64 << 10), "one idle slab of 256-byte slots kept on device 0");
    let (_, calls) = test_device::driver_calls(|| drop(dv::<i64>("small1", d1, 8)));
    assert_eq!(count(&calls, "alloc"), 1, "device 1 does not take device 0's block: {calls:?}");
    let (_, calls) = test_device::driver_calls(|| drop(dv::<i64>("small0_again", d0, 8)));
    assert_eq!(count(&calls, "alloc"), 0, "device 0 takes its own kept block: {calls:?}");
}
