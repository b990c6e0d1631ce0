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

use super::boundary::{call, function, out as checked, put};
use super::handle::{self, dv_dualview_t, Mark};
use super::status::dv_status_t;

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
