//! Copies queued on streams (issue 22, items 1 and 3) on the test device,
//! whose streams run their copies on a worker thread after a delay
//! (`test_device::set_stream_delay`), as copies behind a long kernel do:
//! a blocking call after an async one waits for it, a later async copy is
//! ordered after the earlier ones it depends on and no others, and a
//! subview's async sync copies its own region on its own stream.
//! Each test uses its own test-device ordinal (the delay is per device).

use dualview::abi::DV_SYNC_IN_FLIGHT;
use dualview::memory::{stream, test_device};
use dualview::{Dims, DualView, RawDualView, Side, Slice, Space, Stream};
use std::time::Duration;

const N: usize = 1 << 20; // 8 MiB of i64

fn dv(label: &str, ordinal: u32, n: usize) -> DualView<i64, Dims<1>> {
    DualView::builder(label, Dims::new([n]).unwrap()).device(Space::test_device(ordinal)).build().unwrap()
}

/// One side's values as they are in memory now (no sync, no wait).
fn raw_values(a: &RawDualView, side: Side) -> Vec<i64> {
    let v = a.view(side).unwrap();
    // SAFETY: test-device and host memory are host memory; v.size() contiguous i64.
    unsafe { std::slice::from_raw_parts(v.data() as *const i64, v.size()) }.to_vec()
}

fn word(a: &RawDualView) -> u8 {
    a.sync_state()
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

#[test]
fn a_blocking_sync_after_an_async_one_sees_every_value() {
    let dev = 20;
    test_device::set_stream_delay(dev, Duration::from_millis(30)).unwrap();
    let a = dv("async_then_blocking", dev, N);
    a.device_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as i64 + 1);
    let s = Owned::new(dev);
    a.sync_host_on(s.1).unwrap();
    assert!(!a.need_sync_host(), "the flags are reset at once (Kokkos sync(exec))");
    assert_ne!(word(a.raw()) & DV_SYNC_IN_FLIGHT, 0, "the copy is in flight: the word says so");
    a.sync_host().unwrap(); // nothing is stale, but a copy is in flight: it waits
    assert_eq!(word(a.raw()) & DV_SYNC_IN_FLIGHT, 0);
    let h = raw_values(a.raw(), Side::Host);
    let missing = h.iter().enumerate().filter(|&(i, &v)| v != i as i64 + 1).count();
    assert_eq!(missing, 0, "{missing} of {N} values not yet copied after the blocking sync");
    assert_eq!(a.stats().to_host.bytes, (N * 8) as u64);
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn host_access_fill_copy_and_resize_after_an_async_sync_wait_for_it() {
    let dev = 21;
    test_device::set_stream_delay(dev, Duration::from_millis(20)).unwrap();
    let s = Owned::new(dev);
    // host(): the read guard waits.
    let a = dv("access_waits", dev, N);
    a.fill_device(7).unwrap();
    a.sync_host_on(s.1).unwrap();
    assert!(a.host().unwrap().as_slice().unwrap().iter().all(|&v| v == 7));
    // A fill after an async copy into the same side: the fill wins, the late copy lands first.
    a.fill_device(8).unwrap();
    a.sync_host_on(s.1).unwrap();
    a.raw().view_fill(Side::Host, &9i64.to_ne_bytes()).unwrap();
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
    stream::fence(Space::test_device(dev), s.1).unwrap();
    assert!(raw_values(a.raw(), Side::Host).iter().all(|&v| v == 9), "the queued copy landed after the fill");
    // A resize waits, then keeps the copied values.
    test_device::set_stream_delay(dev, Duration::from_millis(20)).unwrap();
    a.fill_device(10).unwrap();
    a.sync_host_on(s.1).unwrap();
    a.resize(Dims::new([N + 8]).unwrap()).unwrap();
    let h = raw_values(a.raw(), Side::Host);
    assert!(h[..N].iter().all(|&v| v == 10) && h[N..].iter().all(|&v| v == 0));
    // A view copy from the side being written reads it after the copy.
    let b = dv("copy_source_waits", dev, N);
    a.resize(Dims::new([N]).unwrap()).unwrap();
    a.fill_device(11).unwrap();
    a.sync_host_on(s.1).unwrap();
    RawDualView::view_copy(b.raw(), Side::Host, a.raw(), Side::Host).unwrap();
    assert!(raw_values(b.raw(), Side::Host).iter().all(|&v| v == 11));
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn an_async_copy_on_another_stream_is_ordered_after_the_one_it_reads() {
    let dev = 22;
    test_device::set_stream_delay(dev, Duration::from_millis(30)).unwrap();
    let (s1, s2) = (Owned::new(dev), Owned::new(dev));
    let a = dv("ordered_source", dev, N);
    let b = dv("ordered_target", dev, N);
    a.fill_device(5).unwrap();
    a.sync_host_on(s1.1).unwrap(); // device to host on s1
    // Host to device on s2, reading what s1 writes: s2 waits for s1's event (the host does not).
    RawDualView::view_copy_on(b.raw(), Side::Device, a.raw(), Side::Host, s2.1).unwrap();
    assert_ne!(word(b.raw()) & DV_SYNC_IN_FLIGHT, 0);
    b.sync_device().unwrap(); // waits for b's copy, which ran after a's
    assert!(raw_values(b.raw(), Side::Device).iter().all(|&v| v == 5), "s2 copied before s1 had run");
    // Host to host: the host copies by itself, so the call waits (nothing could order it).
    a.fill_device(6).unwrap();
    a.sync_host_on(s1.1).unwrap();
    RawDualView::view_copy_on(b.raw(), Side::Host, a.raw(), Side::Host, s2.1).unwrap();
    assert_eq!(word(b.raw()) & DV_SYNC_IN_FLIGHT, 0, "nothing queued");
    assert!(raw_values(b.raw(), Side::Host).iter().all(|&v| v == 6), "the host copy read early");
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn deep_copy_on_a_stream_marks_at_once_and_its_target_waits() {
    let dev = 23;
    test_device::set_stream_delay(dev, Duration::from_millis(20)).unwrap();
    let s = Owned::new(dev);
    let a = dv("deep_src", dev, N);
    let b = dv("deep_dst", dev, N);
    a.fill_device(3).unwrap();
    RawDualView::deep_copy_on(b.raw(), a.raw(), s.1).unwrap();
    assert!(b.need_sync_host(), "the device of the target is marked at once");
    assert!(b.host().unwrap().as_slice().unwrap().iter().all(|&v| v == 3));
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

/// Issue 22 item 3 (and finding 4): after a modify of the whole parent,
/// each chunk's async sync copies its own chunk, on its own stream; a
/// blocking sync of the parent afterwards copies nothing more and waits for
/// all of them.
#[test]
fn pipelined_chunks_each_copy_their_own_region_on_their_own_stream() {
    let dev = 24;
    test_device::set_stream_delay(dev, Duration::from_millis(10)).unwrap();
    let chunks = 4;
    let per = N / chunks;
    let a = dv("pipeline", dev, N);
    a.host_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = -(i as i64));
    let streams: Vec<Owned> = (0..chunks).map(|_| Owned::new(dev)).collect();
    a.raw().reset_stats();
    for (c, s) in streams.iter().enumerate() {
        let sub = a.raw().subview(&[Slice::Range(c * per, (c + 1) * per)]).unwrap();
        sub.sync_on(Side::Device, s.1).unwrap();
        assert_eq!(a.stats().to_device.bytes, ((c + 1) * per * 8) as u64, "chunk {c} copied its own bytes only");
    }
    assert!(!a.need_sync_device(), "every chunk synced: nothing left");
    a.sync_device().unwrap(); // waits for the four streams
    assert_eq!(a.stats().to_device.bytes, (N * 8) as u64, "each byte moved once");
    let d = raw_values(a.raw(), Side::Device);
    assert!(d.iter().enumerate().all(|(i, &v)| v == -(i as i64)));
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn a_dualview_dropped_with_a_copy_in_flight_waits_for_it() {
    let dev = 25;
    test_device::set_stream_delay(dev, Duration::from_millis(20)).unwrap();
    let s = Owned::new(dev);
    for _ in 0..3 {
        let a = dv("dropped_in_flight", dev, N);
        a.fill_device(1).unwrap();
        a.sync_host_on(s.1).unwrap();
        drop(a); // the copy still writes the mirror: the family waits before freeing it
    }
    assert_eq!(test_device::used_bytes(dev).unwrap(), 0);
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}

#[test]
fn streams_of_host_spaces_are_the_default_stream_and_bad_streams_are_refused() {
    assert!(stream::create(Space::HOST).unwrap().is_null());
    stream::fence(Space::HOST, Stream::null()).unwrap();
    // SAFETY: a value that was never a stream of the test device: refused, nothing happens.
    let e = unsafe { stream::destroy(Space::test_device(26), Stream::from_raw(0x10)) }.unwrap_err();
    assert_eq!(e.kind(), dualview::ErrorKind::InvalidArgument, "{e}");
    assert!(stream::create(Space::test_device(test_device::ORDINALS)).is_err());
    // A copy on a value that is not a stream of ours completes on return, as before.
    let a = dv("foreign_stream", 26, 16);
    a.fill_device(4).unwrap();
    a.sync_host_on(Stream::from_raw(0x10)).unwrap();
    assert!(raw_values(a.raw(), Side::Host).iter().all(|&v| v == 4));
}

/// Under a page, a mirror never registers: a page of its own would be most of
/// a small DualView's memory, and a blocking copy of a few bytes is faster
/// from pageable memory (DECISIONS G13). Its copies on a stream are staged:
/// packed or unpacked by the host, a host function their completion.
#[test]
fn a_mirror_under_a_page_never_registers_and_its_stream_copies_are_staged() {
    let dev = 28;
    test_device::set_registers_mirror(dev, true).unwrap();
    let a = dv("tiny_mirror", dev, 8); // 64 bytes
    a.fill_device(3).unwrap();
    let s = Owned::new(dev);
    let (r, calls) = test_device::driver_calls(|| a.sync_host_on(s.1));
    r.unwrap();
    let n = |c: &str| calls.iter().filter(|&&x| x == c).count();
    assert_eq!((n("host_register"), n("launch_host_fn")), (0, 1), "staged, not registered: {calls:?}");
    assert!(!a.raw().is_mirror_pinned());
    a.sync_host().unwrap();
    assert!(raw_values(a.raw(), Side::Host).iter().all(|&v| v == 3));
    test_device::set_registers_mirror(dev, false).unwrap();
}

/// A small mirror (under the 256 KiB that registration starts at) is left
/// pageable by blocking syncs, and registered at its first copy on a stream,
/// so that such copies need no staging (DECISIONS G13); it gets whole pages
/// of its own, so that its registration meets no other block's.
#[test]
fn a_small_mirror_is_registered_at_its_first_copy_on_a_stream() {
    let dev = 27;
    test_device::set_registers_mirror(dev, true).unwrap();
    let a = dv("small_mirror", dev, 512); // 4 KiB
    let b = dv("small_mirror_blocking", dev, 512);
    for x in [&a, &b] {
        x.fill_device(2).unwrap();
    }
    b.sync_host().unwrap();
    assert!(!b.raw().is_mirror_pinned(), "a blocking sync leaves a small mirror pageable");
    let s = Owned::new(dev);
    a.sync_host_on(s.1).unwrap();
    assert!(a.raw().is_mirror_pinned(), "registered at its first copy on a stream");
    a.sync_host().unwrap();
    assert!(raw_values(a.raw(), Side::Host).iter().all(|&v| v == 2));
    let p = a.raw().view(Side::Host).unwrap().data() as usize;
    assert_eq!(p % 4096, 0, "the mirror has whole pages of its own");
    test_device::set_registers_mirror(dev, false).unwrap();
}

/// Review findings of issue 22's change, each pinned: a queued copy keeps
/// its source's memory alive when the source goes; a copy between two
/// regions of one DualView waits for copies still writing its source region
/// (on another stream, and within one block on its own stream); a one-space
/// DualView stays one-space while a copy into it is in flight.
#[test]
fn queued_copies_keep_their_source_and_follow_the_copies_they_read() {
    let dev = 28;
    test_device::set_stream_delay(dev, Duration::from_millis(20)).unwrap();
    let (s1, s2) = (Owned::new(dev), Owned::new(dev));
    // The source goes while the copy from it is queued.
    let a = dv("dropped_source", dev, N);
    let b = dv("kept_target", dev, N);
    a.fill_device(9).unwrap();
    RawDualView::view_copy_on(b.raw(), Side::Device, a.raw(), Side::Device, s1.1).unwrap();
    drop(a);
    b.modify_device().unwrap();
    b.sync_host().unwrap();
    assert!(raw_values(b.raw(), Side::Host).iter().all(|&v| v == 9), "the copy read freed or stale memory");
    // Two regions of one DualView: the copy from the first follows the copy into it.
    let half = N / 2;
    let c = dv("two_regions", dev, N);
    c.host_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = i as i64 + 1);
    let first = c.raw().subview(&[Slice::Range(0, half)]).unwrap();
    let second = c.raw().subview(&[Slice::Range(half, N)]).unwrap();
    first.sync_on(Side::Device, s1.1).unwrap(); // writes the device's first half, late
    RawDualView::view_copy_on(&second, Side::Device, &first, Side::Device, s2.1).unwrap();
    // (Not c.sync_device(): the host's second half is still newer, a sync would copy it over.)
    stream::fence(Space::test_device(dev), s2.1).unwrap();
    let d = raw_values(c.raw(), Side::Device);
    assert!(d[half..].iter().enumerate().all(|(i, &v)| v == i as i64 + 1), "another stream read the first half before it was written");
    // The same within one block on one stream (the copy goes through a host buffer).
    let e = dv("one_block_one_stream", dev, N);
    e.host_write().unwrap().as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = -(i as i64) - 1);
    let (lo, hi) = (e.raw().subview(&[Slice::Range(0, half)]).unwrap(), e.raw().subview(&[Slice::Range(half, N)]).unwrap());
    lo.sync_on(Side::Device, s1.1).unwrap();
    RawDualView::view_copy_on(&hi, Side::Device, &lo, Side::Device, s1.1).unwrap();
    stream::fence(Space::test_device(dev), s1.1).unwrap();
    let d = raw_values(e.raw(), Side::Device);
    assert!(d[half..].iter().enumerate().all(|(i, &v)| v == -(i as i64) - 1), "the copy within one block ran before the stream's earlier copy");
    // A one-space target stays one-space.
    let host_only: DualView<i64, Dims<1>> = DualView::builder("host_only", Dims::new([N]).unwrap()).build().unwrap();
    let f = dv("into_host_only", dev, N);
    f.fill_device(4).unwrap();
    RawDualView::view_copy_on(host_only.raw(), Side::Host, f.raw(), Side::Device, s1.1).unwrap();
    assert_eq!(host_only.raw().sync_state(), dualview::abi::DV_SYNC_ONE_SPACE);
    host_only.clear_sync_state().unwrap();
    assert_eq!(host_only.raw().sync_state(), dualview::abi::DV_SYNC_ONE_SPACE);
    assert!(host_only.host().unwrap().as_slice().unwrap().iter().all(|&v| v == 4));
    test_device::set_stream_delay(dev, Duration::ZERO).unwrap();
}
