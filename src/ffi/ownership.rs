//! Handing a handle over, for languages without move semantics: a Fortran
//! function that returns a `dualview_t` marks its result (`dv_mark_result`),
//! the assignment that receives it takes that very handle (`dv_take`) instead
//! of a new one, and copies of the result that the compiler finalizes later
//! only detach (`dv_release`). docs/FORTRAN.md, DECISIONS F10.
//!
//! | handle's mark | `dv_take` | `dv_release` (not the taker) |
//! | --- | --- | --- |
//! | none | a new handle, as `dv_clone` | `dv_destroy` |
//! | result | the handle itself, now taken | `dv_destroy` |
//! | taken | a new handle, as `dv_clone` | nothing (its taker releases it) |

use super::boundary::{call, function};
use super::handle::{self, dv_dualview_t, Mark};
use super::status::dv_status_t;
use super::types::{out as checked, put};

/// Mark `dv` as a function's result: the next `dv_take` of it hands this very
/// handle over instead of making a new one, so a language without move
/// semantics returns a DualView without leaking a handle (the Fortran module's
/// `as_result`). Marking a taken handle makes it a result again (a function
/// that returns what it received).
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_mark_result(dv: *mut dv_dualview_t) -> dv_status_t {
    call(function!(), || handle::mark_result(dv, "dv"))
}

/// `*out` = a handle of the caller's own on `src`'s DualView. When `src` is a
/// result (`dv_mark_result`) not yet taken, that is `src` itself and `*taken`
/// = true: the caller now owns it (release it with `dv_destroy`), and
/// `dv_release` by any other holder of `src` only detaches. Otherwise it is a
/// new handle, as `dv_clone`, and `*taken` = false. On error nothing changes.
///
/// # Safety
/// `src` is a handle or NULL; `out` and `taken` are writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_take(src: *mut dv_dualview_t, out: *mut *mut dv_dualview_t, taken: *mut bool) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(src, "src")?;
        let (o, t) = (checked(out, "out")?, checked(taken, "taken")?);
        if handle::take(src, "src")? {
            put(o, src);
            put(t, true);
        } else {
            let h = handle::insert(e.clone())?;
            put(o, h);
            put(t, false);
        }
        Ok(())
    })
}

/// Release a handle held by a copy that may not own it: as `dv_destroy`,
/// unless `dv_take` handed `dv` over to another holder (then nothing happens:
/// the taker releases it). `*released` (may be NULL) says whether it was
/// destroyed. `dv_release(NULL, ...)` does nothing.
///
/// # Safety
/// `dv` is a handle or NULL; `released` is NULL or writable. No other thread
/// may use `dv` during or after a call that destroys it.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_release(dv: *mut dv_dualview_t, released: *mut bool) -> dv_status_t {
    call(function!(), || {
        let destroy = !dv.is_null() && handle::mark(dv, "dv")? != Mark::Taken;
        if destroy {
            drop(handle::remove(dv)?);
        }
        if !released.is_null() {
            put(released, destroy);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::{dv_clone, dv_create, dv_desc_t, dv_destroy};

    fn make() -> *mut dv_dualview_t {
        let mut extent = [1; 8];
        extent[0] = 4;
        let extents = crate::ffi::dv_extents_t { rank: 1, reserved: 0, extent };
        let d = dv_desc_t {
            dtype: crate::abi::DV_DTYPE_FLOAT64,
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
}
