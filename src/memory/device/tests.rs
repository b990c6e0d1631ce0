//! The engine's paths that only CUDA's spaces reach (pinned and managed
//! memory, refusals, failures half-way), driven here through the fake driver
//! of the test device with those memories.

use super::*;
use crate::extents::DynRank;
use crate::layout::{Layout, Strides};
use crate::memory::test_device::{self, engine};
use crate::memory::Pair;
use crate::space::Region;

/// `n` u64 at `ptr` of `space`, held by the test (live host memory: test-device and pinned blocks are).
fn region(space: Space, ptr: *mut u8, n: usize) -> Held<'static> {
    let extents = DynRank::from_slice_unchecked(&[n]);
    Held::for_test(space, Region { ptr, elem_size: 8, strides: Strides::canonical(extents.as_slice(), Layout::Right).unwrap(), extents })
}

/// `n` u64 of a vector, host memory.
fn host_region(v: &mut [u64]) -> Held<'static> {
    region(Space::HOST, v.as_mut_ptr() as *mut u8, v.len())
}

/// The values of a held region, read by a host copy.
fn values(r: &Held<'_>) -> Vec<u64> {
    let n = r.region().extents.as_slice()[0];
    let mut out = vec![0u64; n];
    // The test device's and pinned memory are host memory: read as such.
    let src = region(Space::HOST, r.region().ptr, n);
    host::copy(&Pair::new(host_region(&mut out), src).unwrap()).unwrap();
    out
}

#[test]
fn pinned_memory_is_host_memory_zeroed_filled_and_copied_by_the_host() {
    let b = DeviceBackend::new(engine(), SpaceKind::HostPinned);
    let pinned = Space::host_pinned();
    let p = b.allocate(0, 4096, true).unwrap();
    let (at, ptr) = (p.addr(), p.ptr());
    let r = region(pinned, ptr, 512);
    assert!(values(&r).iter().all(|&v| v == 0));
    assert!(engine().driver.is_page_locked(at + 100), "the fake driver tracks pinned blocks");
    let ((), calls) = test_device::driver_calls(|| b.fill(0, &r, &7u64.to_ne_bytes(), Stream::null()).unwrap());
    assert!(calls.is_empty(), "pinned memory is filled by the host: {calls:?}");
    assert!(b.fill(0, &r, &7u32.to_ne_bytes(), Stream::null()).is_err(), "a value of another size is refused");
    let mut src = vec![9u64; 512];
    let pairs = [Pair::new(r, host_region(&mut src)).unwrap()];
    let t = Transfer::new(pinned, Space::HOST, &pairs, Stream::null(), Some(true)).unwrap().fenced(true);
    let (res, calls) = test_device::driver_calls(|| b.transfer(0, &t));
    res.unwrap();
    assert_eq!(calls, ["bind", "synchronize"], "host to pinned: the fence only, the copy by the host");
    assert!(values(&r).iter().all(|&v| v == 9));
    assert!(b.grow_in_place(0, &p, 8192).is_ok_and(|g| !g) && !b.can_grow_in_place(0, NonNull::new(ptr).unwrap(), 4096, 8192));
    assert!(b.mirror_registration(0, NonNull::new(ptr).unwrap(), 4096, &"x".into()).is_none() && !b.registers_mirror(0, Space::HOST));
    b.deallocate(0, p);
    assert!(!engine().driver.is_page_locked(at + 100));
}

#[test]
fn managed_memory_prefetches_on_its_device_and_waits_only_on_the_default_stream() {
    let b = DeviceBackend::new(engine(), SpaceKind::CudaUvm);
    let managed = Space::new(SpaceKind::CudaUvm, 6);
    let p = b.allocate(6, 1024, true).unwrap();
    let r = region(managed, p.ptr(), 128);
    let (res, calls) = test_device::driver_calls(|| b.prefetch(6, &r, Side::Device, Stream::null()));
    res.unwrap();
    assert_eq!(calls, ["bind", "prefetch_async", "stream_synchronize"]);
    let s = b.stream_create(6).unwrap();
    let (res, calls) = test_device::driver_calls(|| b.prefetch(6, &r, Side::Host, s));
    res.unwrap();
    assert_eq!(calls, ["bind", "prefetch_async"], "on a stream: queued, no wait");
    let empty = Held::for_test(managed, Region { extents: DynRank::from_slice_unchecked(&[0]), ..*r.region() });
    let (res, calls) = test_device::driver_calls(|| b.prefetch(6, &empty, Side::Host, s));
    res.unwrap();
    assert!(calls.is_empty());
    assert!(b.prefetch(5, &r, Side::Host, s).is_err(), "a region of another device is refused");
    let dev = DeviceBackend::new(engine(), SpaceKind::TestDevice);
    assert!(dev.prefetch(6, &r, Side::Host, s).is_ok(), "device memory: nothing to prefetch");
    b.stream_destroy(6, s).unwrap();
    b.deallocate(6, p);
    assert_eq!(test_device::used_bytes(6).unwrap(), 0);
}

#[test]
fn a_failed_zeroing_frees_the_block() {
    let b = DeviceBackend::new(engine(), SpaceKind::TestDevice);
    test_device::fail_driver_call("memset_async", 1).unwrap();
    let e = b.allocate(7, 8192, true).unwrap_err();
    assert!(e.message().contains("memset_async failed"), "{e}");
    assert_eq!(test_device::used_bytes(7).unwrap(), 0);
    // A slot goes back to its slab, which the device keeps (idle) for the next one.
    test_device::fail_driver_call("memset_async", 1).unwrap();
    let e = b.allocate(7, 4096, true).unwrap_err();
    assert!(e.message().contains("memset_async failed"), "{e}");
    assert_eq!(test_device::used_bytes(7).unwrap(), test_device::kept_bytes(7).unwrap());
    let again = b.allocate(7, 4096, true).unwrap();
    assert_eq!(test_device::used_bytes(7).unwrap(), 64 << 10, "the slot came from the idle slab");
    b.deallocate(7, again);
    assert_eq!(test_device::used_bytes(7).unwrap(), test_device::kept_bytes(7).unwrap());
}

#[test]
fn a_copy_with_a_party_of_another_engine_is_refused() {
    let b = DeviceBackend::new(engine(), SpaceKind::TestDevice);
    let (mut x, mut y) = (vec![0u64; 4], vec![0u64; 4]);
    let (d, s) = (region(Space::cuda(0), x.as_mut_ptr() as *mut u8, 4), region(Space::test_device(0), y.as_mut_ptr() as *mut u8, 4));
    let pair = [Pair::new(d, s).unwrap()];
    let t = Transfer::new(Space::cuda(0), Space::test_device(0), &pair, Stream::null(), None).unwrap();
    let e = b.transfer(0, &t).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Incompatible, "{e}");
}

#[test]
fn pairs_and_transfers_refuse_what_their_regions_cannot_do() {
    let mut x = vec![0u64; 8];
    let p = x.as_mut_ptr() as *mut u8;
    let (whole, half) = (region(Space::HOST, p, 8), region(Space::HOST, p.wrapping_add(32), 4));
    let other = region(Space::HOST, p.wrapping_add(32), 4);
    assert!(Pair::new(whole, half).is_err(), "different shapes");
    assert!(Pair::new(half, other).is_err(), "one range: overlapping");
    let (lo, hi) = (region(Space::HOST, p, 4), region(Space::HOST, p.wrapping_add(32), 4));
    let ok = [Pair::new(lo, hi).unwrap()];
    assert!(Transfer::new(Space::test_device(0), Space::HOST, &ok, Stream::null(), None).is_err(), "a region of another space");
    assert!(Pair::new(lo.read_only(), hi).is_err(), "a destination held for reading");
}

#[test]
fn a_transfer_failing_half_way_waits_for_what_it_queued() {
    let b = DeviceBackend::new(engine(), SpaceKind::TestDevice);
    let dev = Space::test_device(8);
    let n = 16 << 10; // 128 KiB a pair: queued, not tiny
    let (d1, d2) = (b.allocate(8, n * 8, true).unwrap(), b.allocate(8, n * 8, true).unwrap());
    let (mut h1, mut h2) = (vec![3u64; n], vec![4u64; n]);
    let pairs = [
        Pair::new(region(dev, d1.ptr(), n), host_region(&mut h1)).unwrap(),
        Pair::new(region(dev, d2.ptr(), n), host_region(&mut h2)).unwrap(),
    ];
    let t = Transfer::new(dev, Space::HOST, &pairs, Stream::null(), Some(true)).unwrap();
    test_device::fail_driver_call("copy_async", 2).unwrap();
    let (res, calls) = test_device::driver_calls(|| b.transfer(8, &t));
    assert!(res.unwrap_err().message().contains("copy_async failed"));
    assert_eq!(calls, ["bind", "copy_async", "copy_async", "stream_synchronize"], "the first copy is waited for");
    assert!(values(pairs[0].dst()).iter().all(|&v| v == 3));
    b.deallocate(8, d1);
    b.deallocate(8, d2);
}

#[test]
fn events_order_other_streams_and_a_busy_one_is_destroyed_not_pooled() {
    let b = DeviceBackend::new(engine(), SpaceKind::TestDevice);
    let dev = Space::test_device(9);
    let (s1, s2) = (b.stream_create(9).unwrap(), b.stream_create(9).unwrap());
    test_device::set_stream_delay(9, std::time::Duration::from_millis(30)).unwrap();
    let n = 1024;
    let d = b.allocate(9, n * 8, true).unwrap();
    let pinned = DeviceBackend::new(engine(), SpaceKind::HostPinned);
    let h = pinned.allocate(0, n * 8, false).unwrap();
    let hr = region(Space::host_pinned(), h.ptr(), n);
    pinned.fill(0, &hr, &5u64.to_ne_bytes(), Stream::null()).unwrap();
    // Page-locked source: the driver's own asynchronous copy and a real event (no staging, no flag).
    let pair = [Pair::new(region(dev, d.ptr(), n), hr).unwrap()];
    let t = Transfer::new(dev, Space::host_pinned(), &pair, s1, None).unwrap();
    b.transfer(9, &t).unwrap();
    let ev = b.event_record(9, s1).unwrap().expect("an event: the copy is queued");
    assert!(!b.event_done(9, &ev), "behind 30 ms");
    let (res, calls) = test_device::driver_calls(|| b.event_order(9, &ev, s2));
    res.unwrap();
    assert_eq!(calls, ["bind", "stream_wait_event"]);
    let Mark::Event(handle) = &ev else { panic!("a driver event, not a flag: {ev:?}") };
    let raw = handle.get();
    b.event_release(9, ev); // still running: destroyed
    assert!(engine().events.lock().unwrap().iter().all(|(o, e)| *o != 9 || e.get() != raw));
    b.stream_fence(9, s2).unwrap();
    assert!(values(&region(dev, d.ptr(), n)).iter().all(|&v| v == 5), "s2 waited for s1's copy");
    test_device::set_stream_delay(9, std::time::Duration::ZERO).unwrap();
    b.stream_destroy(9, s1).unwrap();
    b.stream_destroy(9, s2).unwrap();
    b.deallocate(9, d);
    pinned.deallocate(0, h);
}
