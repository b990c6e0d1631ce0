//! Handing a handle over (`dv_mark_result`, `dv_take`, `dv_release`), for
//! languages without move semantics, and which objects hold it (`dv_hold`,
//! `dv_hold_use`, `dv_let_go`): src/ffi/ownership.rs, through the C entries;
//! and holding one side's block past its DualView (`dv_block_hold`, `dv_block_release`,
//! `dv_live_memory`: src/ffi/memory.rs, DECISIONS C16).

use dualview::ffi::*;

/// A live rank-1 DualView of 4 doubles on the host.
fn make() -> *mut dv_dualview_t {
    make_in(DV_SPACE_HOST, 4)
}

/// A live rank-1 DualView of `n` doubles whose device side is in `space`.
fn make_in(space: u32, n: u64) -> *mut dv_dualview_t {
    let mut extent = [1; 8];
    extent[0] = n;
    let extents = dv_extents_t { rank: 1, reserved: 0, extent };
    let d = dv_desc_t {
        dtype: DV_DTYPE_FLOAT64,
        elem_size: 0,
        elem_align: 0,
        layout: 0,
        space,
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

/// Bytes of dualview's blocks alive in `space`.
fn live(space: u32) -> u64 {
    let mut b = 0;
    // SAFETY: a writable output; NULL for the block count.
    assert_eq!(unsafe { dv_live_memory(space, &mut b, std::ptr::null_mut()) }, dv_status_t::DV_OK);
    b
}

// The only test of this binary that uses the test device: its live bytes change by this test alone.
#[test]
fn a_held_block_outlives_its_resize_and_its_dual_view_until_released() {
    let before = live(DV_SPACE_TEST_DEVICE);
    let a = make_in(DV_SPACE_TEST_DEVICE, 1000);
    assert_eq!(live(DV_SPACE_TEST_DEVICE), before + 8000);
    let (mut t1, mut t2) = (0u64, 0u64);
    let mut p = std::ptr::null_mut();
    // SAFETY: live handles, writable outputs; the device block of the test device is host memory,
    // written and read through its pointer while a hold keeps it.
    unsafe {
        assert_eq!(dv_device_ptr(a, &mut p), dv_status_t::DV_OK);
        *(p as *mut f64).add(999) = 2.5;
        assert_eq!(dv_block_hold(a, DV_SIDE_DEVICE, &mut t1), dv_status_t::DV_OK);
        assert!(t1 != 0);
        let mut e = dv_extents_t { rank: 1, reserved: 0, extent: [1; 8] };
        e.extent[0] = 400; // a shrink: a new block
        assert_eq!(dv_resize(a, &e), dv_status_t::DV_OK);
        assert_eq!(live(DV_SPACE_TEST_DEVICE), before + 8000 + 3200, "the held old block and the new one");
        assert_eq!(dv_block_hold(a, DV_SIDE_DEVICE, &mut t2), dv_status_t::DV_OK);
        assert!(t2 != t1);
        assert_eq!(dv_destroy(a), dv_status_t::DV_OK);
        assert_eq!(live(DV_SPACE_TEST_DEVICE), before + 8000 + 3200, "both blocks held past the DualView");
        assert_eq!(*(p as *const f64).add(999), 2.5, "the old block still holds what was written");
        assert_eq!(dv_block_release(t1), dv_status_t::DV_OK);
        assert_eq!(live(DV_SPACE_TEST_DEVICE), before + 3200);
        assert_eq!(dv_block_release(t2), dv_status_t::DV_OK);
        assert_eq!(live(DV_SPACE_TEST_DEVICE), before);
    }
}

#[test]
fn holds_refuse_bad_input_and_a_second_release() {
    let a = make();
    let mut t = 0u64;
    let mut n = 0u64;
    // SAFETY: a live handle; the NULL, the bad side and the stale token are the bad input under test.
    unsafe {
        assert_eq!(dv_block_hold(a, DV_SIDE_HOST, std::ptr::null_mut()), dv_status_t::DV_ERROR_NULL_ARGUMENT);
        assert_eq!(dv_block_hold(a, 7, &mut t), dv_status_t::DV_ERROR_INVALID_ARGUMENT);
        assert_eq!(dv_block_hold(std::ptr::null(), DV_SIDE_HOST, &mut t), dv_status_t::DV_ERROR_NULL_ARGUMENT);
        assert_eq!(t, 0, "no output on failure");
        assert_eq!(dv_block_hold(a, DV_SIDE_HOST, &mut t), dv_status_t::DV_OK);
        assert_eq!(dv_block_release(t), dv_status_t::DV_OK);
        assert_eq!(dv_block_release(t), dv_status_t::DV_ERROR_INVALID_HANDLE, "a second release");
        assert_eq!(dv_block_release(u64::MAX), dv_status_t::DV_ERROR_INVALID_HANDLE, "a token never given");
        assert_eq!(dv_block_release(0), dv_status_t::DV_OK);
        assert_eq!(dv_live_memory(99, &mut n, std::ptr::null_mut()), dv_status_t::DV_ERROR_INVALID_ARGUMENT);
        assert_eq!(dv_live_memory(DV_SPACE_HOST, std::ptr::null_mut(), &mut n), dv_status_t::DV_OK);
        assert!(n >= 1, "at least this DualView's block");
        assert_eq!(dv_destroy(a), dv_status_t::DV_OK);
    }
}

/// Whether `h` is a live handle.
fn alive(h: *mut dv_dualview_t) -> bool {
    let mut r = 0u32;
    // SAFETY: any handle bits are accepted; the output is writable.
    unsafe { dv_rank(h, &mut r) == dv_status_t::DV_OK }
}

#[test]
fn holders_share_a_handle_and_the_last_releases_it() {
    use dv_status_t::DV_OK;
    // Addresses name objects; these are off any stack (static), so an assignment's
    // left side holds at once.
    static A: u8 = 0;
    static T: u8 = 0;
    let (a, t) = (&A as *const u8 as usize, &T as *const u8 as usize);
    let mut released = true;
    let mut owner = 0usize;
    // Made by A; T, a copy, uses it: either may go first.
    for a_first in [true, false] {
        let h = make();
        // SAFETY: live handle, writable outputs (here and below).
        assert_eq!(unsafe { dv_hold(h, a, 0) }, DV_OK);
        assert_eq!(unsafe { dv_hold_use(h, t, &mut owner) }, DV_OK);
        assert_eq!(owner, a, "the maker stays the first holder");
        let (first, second) = if a_first { (a, t) } else { (t, a) };
        assert_eq!(unsafe { dv_let_go(h, first, &mut released) }, DV_OK);
        assert!(!released && alive(h), "the other holder still uses it");
        assert_eq!(unsafe { dv_let_go(h, second, &mut released) }, DV_OK);
        assert!(released && !alive(h), "the last holder releases it");
    }
    // A copy never used only detaches.
    let h = make();
    assert_eq!(unsafe { dv_hold(h, a, 0) }, DV_OK);
    assert_eq!(unsafe { dv_let_go(h, t, &mut released) }, DV_OK);
    assert!(!released && alive(h));
    assert_eq!(unsafe { dv_let_go(h, a, std::ptr::null_mut()) }, DV_OK);
    assert!(!alive(h));
    // An assignment that wrote a static object: that object holds it at once.
    let h = make();
    assert_eq!(unsafe { dv_hold(h, 0, a) }, DV_OK);
    assert_eq!(unsafe { dv_hold_use(h, 0, &mut owner) }, DV_OK);
    assert_eq!(owner, a);
    assert_eq!(unsafe { dv_let_go(h, a, &mut released) }, DV_OK);
    assert!(released);
}

#[test]
fn an_assignment_into_a_stack_object_waits_for_a_use() {
    use dv_status_t::DV_OK;
    let on_stack = 0u8; // where a compiler's temporary would be
    let x = &on_stack as *const u8 as usize;
    static Y: u8 = 0; // the component the temporary is copied into
    let y = &Y as *const u8 as usize;
    let (mut released, mut owner) = (true, 1usize);
    let h = make();
    // SAFETY: live handle, writable outputs (here and below).
    assert_eq!(unsafe { dv_hold(h, 0, x) }, DV_OK);
    assert_eq!(unsafe { dv_hold_use(h, 0, &mut owner) }, DV_OK);
    assert_eq!(owner, 0, "nobody holds it before a use");
    assert_eq!(unsafe { dv_let_go(h, x, &mut released) }, DV_OK);
    assert!(!released && alive(h), "the temporary's finalization releases nothing");
    assert_eq!(unsafe { dv_hold_use(h, y, &mut owner) }, DV_OK);
    assert_eq!(owner, y);
    assert_eq!(unsafe { dv_let_go(h, y, &mut released) }, DV_OK);
    assert!(released && !alive(h));
}

#[test]
fn holder_calls_refuse_bad_input_and_change_nothing() {
    use dv_status_t::*;
    let mut owner = 7usize;
    let mut released = true;
    // SAFETY: NULL and dead handles are refused; outputs are writable or NULL.
    unsafe {
        assert_eq!(dv_hold(std::ptr::null_mut(), 1, 0), DV_ERROR_NULL_ARGUMENT);
        assert_eq!(dv_hold_use(std::ptr::null_mut(), 1, &mut owner), DV_ERROR_NULL_ARGUMENT);
        assert_eq!(owner, 7);
        assert_eq!(dv_let_go(std::ptr::null_mut(), 1, &mut released), DV_OK, "letting go of NULL does nothing");
        assert!(!released);
        let h = make();
        assert_eq!(dv_hold_use(h, 1, std::ptr::null_mut()), DV_ERROR_NULL_ARGUMENT);
        assert!(alive(h));
        assert_eq!(dv_destroy(h), DV_OK);
        assert_eq!(dv_hold(h, 1, 0), DV_ERROR_INVALID_HANDLE);
        assert_eq!(dv_hold_use(h, 1, &mut owner), DV_ERROR_INVALID_HANDLE);
        assert_eq!(dv_let_go(h, 1, &mut released), DV_ERROR_INVALID_HANDLE);
        assert_eq!(owner, 7);
    }
}
