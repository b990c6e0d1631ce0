//! Handing a handle over (`dv_mark_result`, `dv_take`, `dv_release`), for
//! languages without move semantics: src/ffi/ownership.rs, through the C entries.

use dualview::ffi::*;

/// A live rank-1 DualView of 4 doubles on the host.
fn make() -> *mut dv_dualview_t {
    let mut extent = [1; 8];
    extent[0] = 4;
    let extents = dv_extents_t { rank: 1, reserved: 0, extent };
    let d = dv_desc_t {
        dtype: DV_DTYPE_FLOAT64,
        elem_size: 0,
        elem_align: 0,
        layout: 0,
        space: 0,
        ordinal: 0,
        flags: 0,
        reserved: 0,
        extents,
        strides: [0; 8],
    };
    let mut h = std::ptr::null_mut();
    // SAFETY: valid label, descriptor and output.
    assert_eq!(unsafe { dv_create(c"r".as_ptr(), &d, &mut h) }, dv_status_t::DV_OK);
    h
}

#[test]
fn a_result_is_taken_once_and_then_released_by_its_taker_only() {
    let r = make();
    let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
    let (mut ta, mut tb, mut rel) = (false, false, true);
    // SAFETY: live handles and writable outputs throughout.
    unsafe {
        assert_eq!(dv_mark_result(r), dv_status_t::DV_OK);
        assert_eq!(dv_take(r, &mut a, &mut ta), dv_status_t::DV_OK);
        assert!(ta && a == r, "the result itself, handed over");
        assert_eq!(dv_take(r, &mut b, &mut tb), dv_status_t::DV_OK);
        assert!(!tb && b != r, "a second take is a clone");
        assert_eq!(dv_release(r, &mut rel), dv_status_t::DV_OK);
        assert!(!rel, "a copy of a taken result only detaches");
        assert_eq!(dv_destroy(a), dv_status_t::DV_OK);
        assert_eq!(dv_release(b, &mut rel), dv_status_t::DV_OK);
        assert!(rel, "an unmarked handle is destroyed");
        assert_eq!(dv_release(a, std::ptr::null_mut()), dv_status_t::DV_ERROR_INVALID_HANDLE);
    }
}

#[test]
fn an_untaken_result_is_released_and_bad_input_changes_nothing() {
    let r = make();
    let mut c = std::ptr::null_mut();
    // SAFETY: as above; the NULL outputs are the bad input under test.
    unsafe {
        assert_eq!(dv_clone(r, &mut c), dv_status_t::DV_OK);
        assert_eq!(dv_mark_result(r), dv_status_t::DV_OK);
        let mut t = false;
        assert_eq!(dv_take(r, std::ptr::null_mut(), &mut t), dv_status_t::DV_ERROR_NULL_ARGUMENT);
        assert_eq!(dv_take(r, &mut c, std::ptr::null_mut()), dv_status_t::DV_ERROR_NULL_ARGUMENT);
        assert_eq!(dv_mark_result(std::ptr::null_mut()), dv_status_t::DV_ERROR_NULL_ARGUMENT);
        let mut rel = false;
        assert_eq!(dv_release(r, &mut rel), dv_status_t::DV_OK);
        assert!(rel, "a refused take left the result untaken: its release destroys it");
        assert_eq!(dv_release(std::ptr::null_mut(), &mut rel), dv_status_t::DV_OK);
        assert!(!rel);
        assert_eq!(dv_release(r, &mut rel), dv_status_t::DV_ERROR_INVALID_HANDLE, "destroyed");
        assert_eq!(dv_destroy(c), dv_status_t::DV_OK);
    }
}
