//! Large synchronous copies of pageable host memory through the device
//! engine's ring of pinned buffers (DECISIONS G24), on the test device's fake
//! driver, whose stream runs each copy late (`set_stream_delay`): a chunk
//! unpacked before its copy has run, or a buffer refilled before the device
//! has read it, shows as wrong values. The oracle is what the test wrote.

use dualview::memory::{settle, test_device};
use dualview::{Dims, DualView, ErrorKind, Side, Slice, Space};
use std::time::Duration;

const MIB: usize = 1 << 20;

fn dv(label: &str, ordinal: u32, n: usize) -> DualView<i64, Dims<1>> {
    DualView::builder(label, Dims::new([n]).unwrap()).device(Space::test_device(ordinal)).build().unwrap()
}

fn write(a: &DualView<i64, Dims<1>>, side: Side, f: impl Fn(usize) -> i64) {
    let mut w = if side == Side::Host { a.host_write() } else { a.device_write() }.unwrap();
    w.as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, v)| *v = f(i));
}

/// The indices where `side` differs from `f` (the first few), and how many.
fn wrong(a: &DualView<i64, Dims<1>>, side: Side, f: impl Fn(usize) -> i64) -> (Vec<usize>, usize) {
    let v = a.raw().view(side).unwrap();
    // SAFETY: test-device and host memory are host memory; v.span() i64 from v.data().
    let s = unsafe { std::slice::from_raw_parts(v.data() as *const i64, v.span()) };
    let bad: Vec<usize> = (0..s.len()).filter(|&i| s[i] != f(i)).collect();
    (bad.iter().take(4).copied().collect(), bad.len())
}

fn count(calls: &[&str], name: &str) -> usize {
    calls.iter().filter(|c| **c == name).count()
}

/// Write `d` on the device, mark it, and sync the host: not the driver's one pageable
/// copy but at least `pieces` queued ones, on any thread. This thread's driver calls.
fn sync_host_in_pieces(a: &DualView<i64, Dims<1>>, dev: u32, d: impl Fn(usize) -> i64, pieces: u64) -> Vec<&'static str> {
    write(a, Side::Device, d);
    a.modify_device().unwrap();
    let queued = test_device::queued_copies(dev).unwrap();
    let (r, calls) = test_device::driver_calls(|| a.sync_host());
    r.unwrap();
    assert_eq!(count(&calls, "copy"), 0, "not the driver's one pageable copy: {calls:?}");
    assert!(test_device::queued_copies(dev).unwrap() - queued >= pieces, "in pieces, on any thread");
    calls
}

/// Test device `dev`, its mirrors registering or not, its streams (the default
/// one included) running each copy `delay_ms` late until the value is dropped.
struct Late(u32);
impl Late {
    fn new(dev: u32, registers: bool, delay_ms: u64) -> Late {
        test_device::set_registers_mirror(dev, registers).unwrap();
        test_device::set_stream_delay(dev, Duration::from_millis(delay_ms)).unwrap();
        Late(dev)
    }
}
impl Drop for Late {
    fn drop(&mut self) {
        test_device::set_stream_delay(self.0, Duration::ZERO).unwrap();
    }
}

#[test]
fn a_large_pageable_sync_runs_through_the_ring_and_lands_exactly() {
    let dev = 50;
    let _late = Late::new(dev, false, 2); // the pageable opt-out
    let n = 5 * MIB + 3; // 40 MiB and 24 bytes: chunks and a short tail
    let a = dv("ring", dev, n);
    for round in 0..2i64 {
        // The second round reuses the first one's buffers: their old contents must not land.
        let h = move |i: usize| i as i64 * 3 + 1 + round;
        write(&a, Side::Host, h);
        a.modify_host().unwrap();
        let (r, calls) = test_device::driver_calls(|| a.sync_device());
        r.unwrap();
        assert_eq!(count(&calls, "copy"), 0, "not the driver's one pageable copy: {calls:?}");
        assert!(count(&calls, "copy_async") >= 4, "chunked: {calls:?}");
        assert_eq!(wrong(&a, Side::Device, h), (vec![], 0), "round {round}: the device after sync_device");
        let d = move |i: usize| -(i as i64) - 7 * round;
        sync_host_in_pieces(&a, dev, d, 4);
        assert_eq!(wrong(&a, Side::Host, d), (vec![], 0), "round {round}: the host after sync_host");
        assert!(!a.need_sync_host() && !a.need_sync_device());
    }
    // A window of the array (one run of 16 MiB, not at the start): only it moves.
    let w = a.subview(&[Slice::Range(MIB + 5, 3 * MIB + 5)]).unwrap();
    write(&a, Side::Host, |i| i as i64 ^ 0x5a5a);
    w.modify_host().unwrap();
    let moved = a.raw().stats().to_device.bytes;
    w.sync_device().unwrap();
    assert_eq!(a.raw().stats().to_device.bytes - moved, 16 * MIB as u64, "the window's bytes");
    let want = |i: usize| if (MIB + 5..3 * MIB + 5).contains(&i) { i as i64 ^ 0x5a5a } else { -(i as i64) - 7 };
    assert_eq!(wrong(&a, Side::Device, want), (vec![], 0));
}

#[test]
fn a_large_sync_host_runs_in_lanes_that_land_exactly_from_any_offset() {
    let dev = 54;
    let _late = Late::new(dev, false, 2); // every lane's copy runs late: an early unpack reads stale bytes
    let n = 10 * MIB + 5; // 80 MiB and 40 bytes: pieces of 2 MiB and a short tail
    let a = dv("lanes", dev, n);
    for round in 0..3i64 {
        // Later rounds reuse the lanes' buffers and streams: their old contents must not land.
        let d = move |i: usize| (i as i64) * 11 - 5 * round;
        let calls = sync_host_in_pieces(&a, dev, d, 40); // 2 MiB each
        let made = count(&calls, "stream_create");
        assert!(if round == 0 { made >= 1 } else { made == 0 }, "round {round}: a stream a lane, made once: {made}");
        assert_eq!(wrong(&a, Side::Host, d), (vec![], 0), "round {round}: the host after sync_host");
        assert!(!a.need_sync_host() && !a.need_sync_device());
    }
    // A window from an odd element (its host start not on a piece boundary): only it moves.
    let (lo, hi) = (MIB / 3 + 1, 9 * MIB + 7); // 69.3 MiB
    let w = a.subview(&[Slice::Range(lo, hi)]).unwrap();
    write(&a, Side::Host, |i| i as i64 ^ 0x5a5a);
    a.modify_host().unwrap();
    a.sync_device().unwrap();
    write(&a, Side::Device, |i| !(i as i64));
    w.modify_device().unwrap();
    let moved = a.raw().stats().to_host.bytes;
    w.sync_host().unwrap();
    assert_eq!(a.raw().stats().to_host.bytes - moved, ((hi - lo) * 8) as u64, "the window's bytes");
    let want = |i: usize| if (lo..hi).contains(&i) { !(i as i64) } else { i as i64 ^ 0x5a5a };
    assert_eq!(wrong(&a, Side::Host, want), (vec![], 0));
}

#[test]
fn a_failed_chunk_leaves_the_sync_to_do_and_the_retry_lands() {
    let dev = 51;
    let _late = Late::new(dev, false, 1);
    // 32 MiB: the ring both ways; 72 MiB: lanes to the host, four chunks of the ring to the device.
    for n in [4 * MIB, 9 * MIB] {
        failed_chunks(dev, n);
    }
}

fn failed_chunks(dev: u32, n: usize) {
    let a = dv("ring-fail", dev, n);
    for (call, nth) in [("copy_async", 3), ("event_record", 2), ("event_synchronize", 2)] {
        write(&a, Side::Device, |i| i as i64 - 11);
        a.modify_device().unwrap();
        // On any thread: the copy to the host runs in lanes (and may run none on this one).
        test_device::fail_device_call(dev, call, nth).unwrap();
        let e = a.sync_host().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Device, "{e}");
        assert!(e.message().contains(&format!("{call} failed")), "the error names the call: {e}");
        assert!(a.need_sync_host(), "{call}: still to do");
        a.sync_host().unwrap();
        assert_eq!(wrong(&a, Side::Host, |i| i as i64 - 11), (vec![], 0), "{call}: the retry");
        write(&a, Side::Host, |i| i as i64 * 5);
        a.modify_host().unwrap();
        test_device::fail_driver_call(call, nth).unwrap();
        assert!(a.sync_device().is_err(), "{call}");
        assert!(a.need_sync_device());
        a.sync_device().unwrap();
        assert_eq!(wrong(&a, Side::Device, |i| i as i64 * 5), (vec![], 0), "{call}: the retry");
    }
}

#[test]
fn the_first_large_sync_of_a_registering_mirror_lands_and_the_mirror_is_registered_after() {
    let dev = 52;
    let _late = Late::new(dev, true, 1);
    let n = 16 * MIB; // 128 MiB: populated and registered in the background
    let a = dv("first", dev, n);
    write(&a, Side::Device, |i| (i as i64) << 1);
    a.modify_device().unwrap();
    a.sync_host().unwrap();
    assert_eq!(wrong(&a, Side::Host, |i| (i as i64) << 1), (vec![], 0));
    settle();
    assert!(a.raw().is_mirror_pinned(), "the registration went on after the copy");
    // Registered: one driver copy, no ring.
    write(&a, Side::Host, |i| !(i as i64));
    a.modify_host().unwrap();
    let (r, calls) = test_device::driver_calls(|| a.sync_device());
    r.unwrap();
    assert_eq!(count(&calls, "copy_async"), 1, "{calls:?}");
    assert_eq!(wrong(&a, Side::Device, |i| !(i as i64)), (vec![], 0));
}

#[test]
fn a_grown_mirror_is_registered_by_its_second_copying_sync_not_its_first_large_one() {
    let dev = 53;
    let _late = Late::new(dev, true, 1);
    let grown = |label: &str| {
        let a = dv(label, dev, 8 * MIB); // 64 MiB, registered once created
        settle();
        assert!(a.raw().is_mirror_pinned());
        a.resize(Dims::new([16 * MIB]).unwrap()).unwrap(); // 128 MiB: the grow unregisters it (G10)
        settle();
        assert!(!a.raw().is_mirror_pinned());
        a
    };
    let a = grown("grown");
    // Its first copying sync, one large copy: through the ring, nothing registered.
    write(&a, Side::Host, |i| i as i64 * 7 - 3);
    a.modify_host().unwrap();
    let (r, calls) = test_device::driver_calls(|| a.sync_device());
    r.unwrap();
    assert_eq!(count(&calls, "host_register"), 0, "{calls:?}");
    assert!(count(&calls, "copy_async") >= 4, "through the ring: {calls:?}");
    assert_eq!(wrong(&a, Side::Device, |i| i as i64 * 7 - 3), (vec![], 0));
    settle();
    assert!(!a.raw().is_mirror_pinned(), "nothing queued behind the copy either");
    // The second registers the block on this thread, then copies it in one driver copy.
    write(&a, Side::Device, |i| i as i64 ^ 0x33);
    a.modify_device().unwrap();
    let (r, calls) = test_device::driver_calls(|| a.sync_host());
    r.unwrap();
    assert_eq!(count(&calls, "host_register"), 1, "{calls:?}");
    assert_eq!(count(&calls, "copy_async"), 1, "{calls:?}");
    assert_eq!(wrong(&a, Side::Host, |i| i as i64 ^ 0x33), (vec![], 0));
    assert!(a.raw().is_mirror_pinned());
    // Grown, synced once in each direction by small copies: those register it, as before.
    let b = grown("small");
    let w = b.subview(&[Slice::Range(5, 1000)]).unwrap();
    write(&b, Side::Host, |i| i as i64 + 9);
    w.modify_host().unwrap();
    let (r, calls) = test_device::driver_calls(|| w.sync_device());
    r.unwrap();
    assert_eq!(count(&calls, "host_register"), 1, "a small first copy registers the block: {calls:?}");
    assert!(b.raw().is_mirror_pinned());
}
