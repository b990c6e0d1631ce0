//! The registration of host mirrors with a device's driver, without a GPU:
//! the test device registers its DualViews' mirrors when asked
//! (`test_device::set_registers_mirror`), through the state machine the CUDA
//! space uses (src/memory/registration.rs) and a stand-in driver that pins
//! nothing. The same path as tests/gpu.rs's
//! `the_default_mirror_is_registered_whole_in_the_background_and_released_with_it`:
//! registered whole in the background once allocated, again after a realloc
//! or a resize, never below 256 KiB or when opted out, refused (copies stay
//! pageable) when the driver fails, and released with the DualView.
//!
//! `registered_host_bytes()` and the failure injection are process-wide, so
//! everything runs in one #[test].

use dualview::abi::{DV_FLAG_PAGEABLE_HOST, DV_INFO_MIRROR_PINNED, DV_SPACE_TEST_DEVICE};
use dualview::ffi::dv_status_t::DV_OK;
use dualview::memory::{inject_allocation_failure, registered_host_bytes, settle, test_device};
use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Side, Slice, Space, View};

const ORD: u32 = 17;
const MIB: usize = 1 << 20;

/// A test-device DualView of `n` x `m` doubles (LayoutLeft).
fn doubles(label: &str, n: usize, m: usize, pin_mirror: bool) -> RawDualView {
    let map = Mapping::new(Layout::Left, DynRank::new(&[n, m]).unwrap()).unwrap();
    let mut d = Desc::new(ElemSpec::of::<f64>(), map, Space::test_device(ORD));
    d.pin_mirror = pin_mirror;
    RawDualView::new(label, &d).unwrap()
}

/// The bytes of `v`, row-major.
fn read(v: &View) -> Vec<u8> {
    let packed = Mapping::new(Layout::Right, *v.extents()).unwrap();
    let h = View::new("readback", v.elem(), packed, Space::HOST, true).unwrap();
    // SAFETY: the test owns both views.
    unsafe { h.copy_from(v) }.unwrap();
    // SAFETY: a packed host view of size() elements.
    unsafe { std::slice::from_raw_parts(h.data(), h.size() * v.elem().size()) }.to_vec()
}

/// Write byte `(k * 131 + seed) % 251` at row-major byte k of `v`.
fn write(v: &View, seed: usize) {
    let n = v.size() * v.elem().size();
    let bytes: Vec<u8> = (0..n).map(|k| ((k * 131 + seed) % 251) as u8).collect();
    let packed = Mapping::new(Layout::Right, *v.extents()).unwrap();
    let h = View::new("src", v.elem(), packed, Space::HOST, true).unwrap();
    // SAFETY: a packed host view of n bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), h.data(), n) };
    // SAFETY: the test owns these views; nothing else uses them.
    unsafe { v.copy_from(&h) }.unwrap();
}

/// Host -> device -> host through sync, checked byte for byte.
fn round_trip(a: &RawDualView, seed: usize) {
    let h = a.view(Side::Host).unwrap();
    write(&h, seed);
    let want = read(&h);
    a.modify(Side::Host).unwrap();
    a.sync(Side::Device).unwrap();
    assert_eq!(read(&a.view(Side::Device).unwrap()), want, "device after sync_device");
    write(&h, seed + 1);
    a.clear_sync_state().unwrap();
    a.modify(Side::Device).unwrap();
    a.sync(Side::Host).unwrap();
    assert_eq!(read(&h), want, "host after sync_host");
}

#[test]
fn test_device_mirrors_are_registered_as_cuda_ones_are() {
    // The state machine's own path: no registered block kept for reuse (tests/pool.rs tests the pool).
    dualview::memory::set_pool_cap(0);
    settle();
    assert_eq!(registered_host_bytes(), 0);
    // Every byte goes back to the driver at the end (the oracle below): no small block kept.
    test_device::set_keeps_small_blocks(ORD, false).unwrap();
    // On by default, as on CUDA; switched off, nothing registers.
    test_device::set_registers_mirror(ORD, false).unwrap();
    let off = doubles("off", 1 << 15, 8, true); // 2 MiB
    settle();
    assert!(!off.is_mirror_pinned());
    assert_eq!(registered_host_bytes(), 0);
    test_device::set_registers_mirror(ORD, true).unwrap();
    assert!(!off.is_mirror_pinned(), "the switch applies to DualViews made after it");

    let a = doubles("reg", 1 << 15, 8, true);
    settle(); // the background registration is done
    assert!(a.is_mirror_pinned(), "registered once allocated, before any sync");
    assert_eq!(registered_host_bytes(), 2 * MIB);
    round_trip(&a, 1);
    // Clones and subviews share the registration.
    let c = a.clone();
    let s = a.subview(&[Slice::Range(100, 9000), Slice::Range(2, 5)]).unwrap();
    assert!(c.is_mirror_pinned() && s.is_mirror_pinned());
    round_trip(&s, 2);
    assert_eq!(registered_host_bytes(), 2 * MIB, "no second registration");
    // realloc: a new mirror, registered in turn; the old registration ends.
    a.realloc(&DynRank::new(&[1 << 16, 8]).unwrap(), true).unwrap();
    settle();
    assert!(a.is_mirror_pinned());
    assert_eq!(registered_host_bytes(), 4 * MIB, "the old mirror was unregistered");
    // resize: registered again by the first copying sync at the latest.
    a.modify(Side::Host).unwrap();
    a.resize(&DynRank::new(&[1 << 17, 8]).unwrap()).unwrap();
    a.sync(Side::Device).unwrap();
    settle();
    assert!(a.is_mirror_pinned());
    assert_eq!(registered_host_bytes(), 8 * MIB);
    round_trip(&a, 3);

    // Below 256 KiB, or opted out: pageable.
    let small = doubles("small", 1 << 10, 8, true); // 64 KiB
    let pageable = doubles("pageable", 1 << 15, 8, false);
    round_trip(&small, 4);
    round_trip(&pageable, 5);
    settle();
    assert!(!small.is_mirror_pinned() && !pageable.is_mirror_pinned());
    assert_eq!(registered_host_bytes(), 8 * MIB);

    // The driver refuses (the injected failure reaches the stand-in's register):
    // never an error, the copies stay pageable. The k-th allocation point
    // fails, for k = 1, 2, ... until the creation succeeds: the next one is
    // the background registration.
    let mut refused = None;
    for k in 1..20 {
        inject_allocation_failure(k);
        let Ok(r) = RawDualView::new("refused", &{
            let map = Mapping::new(Layout::Left, DynRank::new(&[1 << 15, 8]).unwrap()).unwrap();
            Desc::new(ElemSpec::of::<f64>(), map, Space::test_device(ORD))
        }) else {
            continue;
        };
        settle();
        inject_allocation_failure(0);
        assert!(!r.is_mirror_pinned(), "the failure armed past the creation is the registration's");
        refused = Some(r);
        break;
    }
    let refused = refused.expect("a creation succeeds");
    round_trip(&refused, 6);
    settle();
    assert!(!refused.is_mirror_pinned(), "a refused block is never retried");
    assert_eq!(registered_host_bytes(), 8 * MIB);

    // Through the C ABI: DV_INFO_MIRROR_PINNED, and DV_FLAG_PAGEABLE_HOST.
    for (flags, pinned) in [(0, DV_INFO_MIRROR_PINNED), (DV_FLAG_PAGEABLE_HOST, 0)] {
        // SAFETY: a plain repr(C) struct of integers; all zeros is a valid value (as `= {0}` in C).
        let mut desc: dualview::ffi::dv_desc_t = unsafe { std::mem::zeroed() };
        desc.dtype = dualview::abi::DV_DTYPE_FLOAT64;
        desc.space = DV_SPACE_TEST_DEVICE;
        desc.ordinal = ORD;
        desc.flags = flags;
        let ext = [1u64 << 16];
        // SAFETY: valid pointers to locals.
        unsafe {
            assert_eq!(dualview::ffi::dv_extents_make(ext.as_ptr(), 1, &mut desc.extents), DV_OK);
            let mut h = std::ptr::null_mut();
            assert_eq!(dualview::ffi::dv_create(c"c".as_ptr(), &desc, &mut h), DV_OK);
            assert_eq!(dualview::ffi::dv_modify_host(h), DV_OK);
            assert_eq!(dualview::ffi::dv_sync_device(h), DV_OK); // registers now at the latest
            let mut info: dualview::ffi::dv_info_t = std::mem::zeroed();
            assert_eq!(dualview::ffi::dv_info(h, &mut info), DV_OK);
            assert_eq!(info.bits & DV_INFO_MIRROR_PINNED, pinned, "flags {flags}");
            assert_eq!(dualview::ffi::dv_destroy(h), DV_OK);
        }
    }

    test_device::set_registers_mirror(ORD, false).unwrap();
    drop((a, c, s, small, pageable, refused, off));
    settle();
    assert_eq!(registered_host_bytes(), 0, "every registration ends with its DualView");
    assert_eq!(test_device::used_bytes(ORD).unwrap(), 0);
}
