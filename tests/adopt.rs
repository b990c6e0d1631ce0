//! Adopt an existing array (issue 20, item 3): a legacy host array becomes the
//! host side of a DualView whose device side dualview allocates, through Rust
//! (`RawDualView::wrap` with no device pointer) and C (`dv_wrap` with a NULL
//! device). The array freed before the DualView is destroyed: the destroy
//! reads and frees nothing of it (run under valgrind by ctest's reliability
//! script and by Miri-free plain runs here: the count of live allocations
//! and handles goes back to zero).

use dualview::ffi::*;
use dualview::memory::live_allocations;
use dualview::{Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Space};
use std::ptr::NonNull;

fn owned_by(label: &str) -> usize {
    live_allocations().iter().filter(|a| a.label == label).count()
}

#[test]
fn a_wrapped_host_array_gets_a_device_side_and_is_synced_over() {
    let n = 1000;
    let mut legacy: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let m = Mapping::new(Layout::Left, DynRank::new(&[n]).unwrap()).unwrap();
    let desc = Desc::new(ElemSpec::of::<f64>(), m, Space::test_device(0));
    let p = NonNull::new(legacy.as_mut_ptr() as *mut u8).unwrap();
    // SAFETY: `legacy` holds n f64 and outlives every use of the handle below.
    let a = unsafe { RawDualView::wrap("legacy_u", &desc, p, None) }.unwrap();
    assert!(!a.is_owned(), "the host side is the caller's");
    assert_eq!(a.view(Side::Host).unwrap().data() as usize, legacy.as_ptr() as usize, "the array itself is the host side");
    assert_eq!(owned_by("legacy_u"), 1, "the device side is dualview's");
    assert!(a.need_sync(Side::Device), "the host holds the data: marked modified");
    a.sync(Side::Device).unwrap();
    assert_eq!(a.stats().to_device.bytes, 8 * n as u64);
    let d = a.view(Side::Device).unwrap();
    // SAFETY: the test device's side is host memory of n f64; nothing writes it now.
    let dev = unsafe { std::slice::from_raw_parts(d.data() as *const f64, n) };
    assert_eq!(dev, &legacy[..]);
    drop(d); // a View keeps its allocation alive
    // A kernel's result comes back into the legacy array.
    a.fill(Side::Device, &2.5f64.to_ne_bytes()).unwrap();
    a.sync(Side::Host).unwrap();
    assert!(legacy.iter().all(|&x| x == 2.5));
    assert_eq!(a.resize(&DynRank::new(&[2 * n]).unwrap()).unwrap_err().kind(), ErrorKind::Unmanaged);
    // The array goes first (a Fortran deallocate), then the DualView: nothing is read or freed twice.
    drop(legacy);
    drop(a);
    dualview::memory::settle(); // frees may finish in the background
    assert_eq!(owned_by("legacy_u"), 0, "the device side went with the last handle");
}

#[test]
fn the_c_abi_adopts_with_a_null_device_pointer() {
    let mut legacy = vec![3i32; 64];
    let mut d: dv_desc_t = unsafe { std::mem::zeroed() };
    d.dtype = DV_DTYPE_INT32;
    d.layout = DV_LAYOUT_LEFT;
    d.space = DV_SPACE_TEST_DEVICE;
    d.extents.rank = 1;
    d.extents.extent[0] = 64;
    let mut h = std::ptr::null_mut();
    // SAFETY: valid label, description and 64 i32 of host memory that outlive the handle's use.
    unsafe {
        assert_eq!(dv_wrap(c"legacy_c".as_ptr(), &d, legacy.as_mut_ptr().cast(), std::ptr::null_mut(), &mut h), dv_status_t::DV_OK);
        let mut stale = false;
        assert_eq!(dv_need_sync_device(h, &mut stale), dv_status_t::DV_OK);
        assert!(stale);
        assert_eq!(dv_sync_device(h), dv_status_t::DV_OK);
        let mut dev = std::ptr::null_mut();
        assert_eq!(dv_device_ptr(h, &mut dev), dv_status_t::DV_OK);
        assert_eq!(std::slice::from_raw_parts(dev as *const i32, 64), &legacy[..]);
        let mut info: dv_info_t = std::mem::zeroed();
        assert_eq!(dv_info(h, &mut info), dv_status_t::DV_OK);
        assert_eq!(info.bits & DV_INFO_OWNED, 0);
        drop(legacy);
        assert_eq!(dv_destroy(h), dv_status_t::DV_OK);
    }
    dualview::memory::settle();
    assert_eq!(owned_by("legacy_c"), 0);
}
