//! The pool of registered host blocks (DECISIONS S11), without a GPU: the
//! test device registers its DualViews' mirrors as CUDA does, through the
//! same state machine and a stand-in driver that counts registered bytes.
//!
//! What a program can see, checked against what it did: a registered mirror
//! whose DualView goes stays registered (the driver's count keeps its bytes)
//! when its size churns (a DualView of that size was made again after one went);
//! the next mirror of about its size gets that block (the same address, once
//! the background thread has zeroed it),
//! registered at once and zero whatever the last owner wrote; a mirror of
//! another size does not; the cap bounds what is kept, the oldest going
//! first; a refused registration and a failed host allocation drain the pool
//! and are retried; `pool_release` gives every kept byte back to the driver.
//!
//! The pool and the driver's count are process-wide: one #[test], in steps.

use dualview::memory::{pool_release, pool_stats, registered_host_bytes, set_pool_cap, settle, test_device};
use dualview::{Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Space, View};

const ORD: u32 = 23;
const MIB: usize = 1 << 20;

/// A test-device DualView of `bytes` bytes of doubles.
fn doubles(label: &str, bytes: usize) -> RawDualView {
    let map = Mapping::new(Layout::Right, DynRank::new(&[bytes / 8]).unwrap()).unwrap();
    RawDualView::new(label, &Desc::new(ElemSpec::of::<f64>(), map, Space::test_device(ORD))).unwrap()
}

fn host(a: &RawDualView) -> View {
    a.view(Side::Host).unwrap()
}

fn host_addr(a: &RawDualView) -> usize {
    host(a).data() as usize
}

/// The host side's bytes.
fn host_bytes(a: &RawDualView) -> Vec<u8> {
    let h = host(a);
    // SAFETY: a packed host view of size() doubles, nothing else writes it now.
    unsafe { std::slice::from_raw_parts(h.data(), h.size() * 8) }.to_vec()
}

/// Write `byte` over the whole host side and mark it.
fn scribble(a: &RawDualView, byte: u8) {
    let h = host(a);
    // SAFETY: as above; the test owns the DualView.
    unsafe { std::ptr::write_bytes(h.data(), byte, h.size() * 8) };
    a.modify(Side::Host).unwrap();
}

/// Host -> device -> host: the device side holds what the host wrote.
fn round_trip(a: &RawDualView, byte: u8) {
    scribble(a, byte);
    a.sync(Side::Device).unwrap();
    scribble(a, 0);
    a.clear_sync_state().unwrap();
    a.modify(Side::Device).unwrap();
    a.sync(Side::Host).unwrap();
    assert!(host_bytes(a).iter().all(|&b| b == byte), "round trip of {byte:#x}");
}

/// Registered bytes beyond the start, after the background thread settled.
fn registered(base: usize) -> usize {
    settle();
    registered_host_bytes() - base
}

#[test]
fn registered_mirrors_are_kept_reused_capped_drained_and_released() {
    test_device::set_registers_mirror(ORD, true).unwrap();
    pool_release();
    let base = registered(0);
    set_pool_cap(8 * MIB);

    // 0. A size seen freed once is not kept: a program that only grows keeps nothing.
    let x = doubles("pool_x", 2 * MIB);
    settle();
    assert!(x.is_mirror_pinned());
    drop(x);
    assert_eq!((registered(base), pool_stats().held_bytes), (0, 0), "a first free of a size is not kept");

    // 1. Asked for again, the size churns: its next registered mirror that goes is kept, still registered.
    let a = doubles("pool_a", 2 * MIB);
    settle();
    assert!(a.is_mirror_pinned());
    round_trip(&a, 0xab);
    let block = host_addr(&a);
    drop(a);
    assert_eq!(registered(base), 2 * MIB, "the kept block stays registered");
    let s = pool_stats();
    assert_eq!((s.held_bytes, s.held_blocks), (2 * MIB, 1));

    // 2. The next mirror of about its size takes it: same address, registered at once
    // (no second registration), zero where the last owner wrote 0xab.
    let b = doubles("pool_b", 2 * MIB - 64 * 1024);
    assert_eq!(host_addr(&b), block, "the kept block comes back");
    assert!(b.is_mirror_pinned(), "registered from the start");
    assert_eq!(registered(base), 2 * MIB, "no second registration");
    assert!(host_bytes(&b).iter().all(|&x| x == 0), "a reused mirror is zero, as a new one is");
    assert_eq!(pool_stats().held_bytes, 0);
    round_trip(&b, 0x5c);

    // 3. A mirror much smaller than the kept block does not take it (at most 1/8 more).
    drop(b);
    settle(); // the pool zeroes a kept block on the background thread
    let c = doubles("pool_c", MIB);
    assert_ne!(host_addr(&c), block, "1 MiB does not take a 2 MiB block");
    assert_eq!(pool_stats().held_bytes, 2 * MIB);
    settle();
    assert_eq!(registered(base), 3 * MIB);

    // 4. A grow takes a kept block too, keeping the old values and zeroing the rest.
    round_trip(&c, 0x11);
    c.resize(&DynRank::new(&[(2 * MIB - 4096) / 8]).unwrap()).unwrap();
    assert_eq!(host_addr(&c), block, "the grown mirror is the kept block");
    let v = host_bytes(&c);
    assert!(v[..MIB].iter().all(|&x| x == 0x11) && v[MIB..].iter().all(|&x| x == 0), "old values kept, the new part zero");
    round_trip(&c, 0x22);
    drop(c);
    // No mirror lives: every registered byte is a kept one (c's grown 2 MiB; its old 1 MiB, a
    // size never asked for again, was not kept).
    assert_eq!((registered(base), pool_stats().held_bytes), (2 * MIB, 2 * MIB));

    // 5. The cap: at most 3 MiB kept, the oldest block going first.
    pool_release();
    set_pool_cap(3 * MIB);
    let (d, e) = (doubles("pool_d", 2 * MIB), doubles("pool_e", 2 * MIB));
    settle();
    let (da, ea) = (host_addr(&d), host_addr(&e));
    drop(d);
    settle(); // the pool zeroes a kept block on the background thread
    drop(e);
    settle(); // the pool zeroes a kept block on the background thread
    let s = pool_stats();
    assert_eq!((s.held_bytes, s.held_blocks), (2 * MIB, 1), "two 2 MiB blocks do not fit 3 MiB");
    assert_eq!(registered(base), 2 * MIB, "the one over the cap was unregistered");
    let f = doubles("pool_f", 2 * MIB);
    assert_eq!(host_addr(&f), ea, "the newer block was kept, not {da:#x}");
    drop(f);
    settle(); // the pool zeroes a kept block on the background thread

    // 6. A registration the driver refuses drains the pool and is tried again. A small mirror
    // registers at its first copy on a stream, on this thread, where the refusal is injected.
    set_pool_cap(8 * MIB);
    assert_eq!(pool_stats().held_bytes, 2 * MIB);
    let g = doubles("pool_g", 128 * 1024);
    let stream = dualview::memory::stream::create(Space::test_device(ORD)).unwrap();
    test_device::fail_driver_call("host_register", 1).unwrap();
    scribble(&g, 0x33);
    g.sync_on(Side::Device, stream).unwrap();
    g.sync(Side::Device).unwrap();
    assert!(g.is_mirror_pinned(), "registered on the second try");
    assert_eq!(pool_stats().held_bytes, 0, "drained before the retry");
    assert_eq!(registered(base), 128 * 1024);
    // SAFETY: made above, used no more.
    unsafe { dualview::memory::stream::destroy(Space::test_device(ORD), stream) }.unwrap();
    drop(g);
    assert_eq!(pool_stats().held_bytes, 0, "128 KiB was never asked for again: not kept");
    let k = doubles("pool_k2", 2 * MIB); // the churning size: kept again when it goes
    settle();
    drop(k);
    settle(); // the pool zeroes a kept block on the background thread
    assert_eq!(pool_stats().held_bytes, 2 * MIB);

    // 7. A host allocation the system refuses drains the pool too (then fails as before).
    if !cfg!(miri) {
        let map = Mapping::new(Layout::Right, DynRank::new(&[1 << 50]).unwrap()).unwrap();
        let e = RawDualView::new("pool_huge", &Desc::new(ElemSpec::of::<u8>(), map, Space::HOST)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{e}");
        assert_eq!(pool_stats().held_bytes, 0, "drained before the retry");
        assert_eq!(registered(base), 0);
    }

    // 8. pool_release gives every kept byte back; nothing stays registered.
    pool_release();
    let h = doubles("pool_h", 2 * MIB);
    settle();
    drop(h);
    settle(); // the pool zeroes a kept block on the background thread
    // The transfer report (DV_REPORT) shows what the pool holds and did.
    let report = dualview::report::text();
    let line = report.lines().find(|l| l.starts_with("pool of registered host blocks")).unwrap_or_else(|| panic!("{report}"));
    assert!(line.contains("(cap 8.4 MB, DV_POOL_BYTES): held 2.1 MB in 1 block(s)"), "{line}");
    assert!(line.contains("reused 3 (6.3 MB)"), "{line}");
    assert_eq!(pool_release(), 2 * MIB);
    assert_eq!(registered(base), 0);
    assert_eq!(pool_release(), 0, "nothing left");
    let s = pool_stats();
    assert!(s.kept >= 7 && s.reused >= 3 && s.released >= 5, "{s:?}");

    // 10. A mirror that goes while its registration is still under way (the stand-in driver
    // takes 300 ms a registration here): kept once that ends, registered, as one registered
    // when freed is; a pool_release after its free gives it back.
    set_pool_cap(128 * MIB);
    drop(doubles("pool_m", 32 * MIB)); // a first free: the size is remembered
    settle();
    assert_eq!(pool_stats().held_bytes, 0);
    test_device::set_register_delay(std::time::Duration::from_millis(300));
    let m = doubles("pool_m", 32 * MIB); // asked for again: the size churns
    assert!(!m.is_mirror_pinned(), "its registration is under way");
    drop(m);
    assert_eq!(pool_release(), 32 * MIB, "kept once its registration ended, then given back");
    assert_eq!(registered(base), 0);
    let m = doubles("pool_m", 32 * MIB);
    // The block released above went back to the system: this one may lie elsewhere.
    let at = host_addr(&m);
    drop(m);
    settle();
    assert_eq!((pool_stats().held_bytes, registered(base)), (32 * MIB, 32 * MIB), "kept, registered");
    let n = doubles("pool_n", 32 * MIB);
    assert_eq!(host_addr(&n), at, "the kept block comes back");
    assert!(n.is_mirror_pinned(), "registered from the start");
    drop(n);
    settle();
    pool_release();
    // A burst: five of 1 MiB freed while registering, against a cap of four of them; the fifth
    // is released as before, never held for the pool.
    test_device::set_register_delay(std::time::Duration::ZERO);
    set_pool_cap(4 * MIB);
    drop(doubles("pool_burst", MIB)); // the size churns from the next one on
    settle();
    pool_release();
    test_device::set_register_delay(std::time::Duration::from_millis(300));
    let kept = pool_stats().kept;
    let burst: Vec<RawDualView> = (0..5).map(|k| doubles(&format!("pool_burst{k}"), MIB)).collect();
    assert!(burst.iter().all(|d| !d.is_mirror_pinned()), "every registration is under way");
    drop(burst);
    settle();
    test_device::set_register_delay(std::time::Duration::ZERO);
    assert_eq!(pool_stats().kept - kept, 4, "reserved under the cap while they registered");
    assert_eq!((pool_stats().held_bytes, registered(base)), (4 * MIB, 4 * MIB));
    pool_release();
    assert_eq!(registered(base), 0);

    // 11. A cap lowered between a free and the background thread's keeping of that block
    // applies to it: `set_pool_cap(0)` right after a registered mirror goes keeps nothing
    // (the block was kept under the cap of its free, and the next mirror of its size took
    // it, registered, from a pool that was off).
    test_device::set_register_delay(std::time::Duration::ZERO);
    set_pool_cap(8 * MIB);
    drop(doubles("pool_late", 2 * MIB)); // kept (2 MiB has churned since step 1)
    settle();
    let late = doubles("pool_late", 2 * MIB);
    settle();
    assert!(late.is_mirror_pinned());
    // The background thread busy: another mirror's registration, 300 ms, runs on it.
    test_device::set_register_delay(std::time::Duration::from_millis(300));
    let busy = doubles("pool_busy", 4 * MIB);
    drop(late); // its keeping waits behind that registration
    set_pool_cap(0);
    settle();
    test_device::set_register_delay(std::time::Duration::ZERO);
    assert_eq!(pool_stats().held_bytes, 0, "nothing kept once the cap is 0");
    drop(busy);
    assert_eq!(registered(base), 0);

    // 9. No pool: nothing is kept.
    set_pool_cap(0);
    let k = doubles("pool_k", 2 * MIB);
    settle();
    drop(k);
    settle(); // the pool zeroes a kept block on the background thread
    assert_eq!((pool_stats().held_bytes, registered(base)), (0, 0));
}
