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
//!
//! And which object holds a handle, for compilers that copy objects bitwise
//! (`dv_hold`, `dv_hold_use`, `dv_let_go`; the rules in `holder.rs`).

use super::boundary::{call, function, on_callers_stack, out as checked, put};
use super::handle::{self, dv_dualview_t, Mark};
use super::holder::Holder;
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

/// Record which object holds `dv`: `owner` (an address naming the object that
/// made or received it, when known), else `assigned_at` (the object an
/// assignment wrote, which may be a compiler's temporary when it lies on the
/// calling thread's stack; elsewhere it is the owner). Both 0: none. For
/// a language whose compiler copies objects bitwise (the Fortran module);
/// then `dv_hold_use` at each use and `dv_let_go` instead of `dv_release`.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_hold(dv: *mut dv_dualview_t, owner: usize, assigned_at: usize) -> dv_status_t {
    call(function!(), || {
        // Only automatic storage holds a compiler's temporary: an object elsewhere
        // that an assignment wrote is the assignment's real left side.
        let (owner, assigned_at) = if owner == 0 && assigned_at != 0 && !on_callers_stack(assigned_at) { (assigned_at, 0) } else { (owner, assigned_at) };
        handle::with_holder(dv, "dv", |h| *h = Holder::new(owner, assigned_at))
    })
}

/// A use of `dv` by the object at `at`: when no owner is recorded yet, that
/// object becomes it. `*owner` = the owner after the call (0: none known);
/// `at` = 0 only asks.
///
/// # Safety
/// `dv` is a handle or NULL; `owner` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_hold_use(dv: *mut dv_dualview_t, at: usize, owner: *mut usize) -> dv_status_t {
    call(function!(), || {
        let o = checked(owner, "owner")?;
        // The common case, a holder using its handle again, takes no lock.
        let now = if handle::is_first_user(dv, "dv", at)? { at } else { handle::with_holder(dv, "dv", |h| h.used_by(at))? };
        put(o, now);
        Ok(())
    })
}

/// The object at `at` gives `dv` up: `dv` is destroyed when that object is
/// its last holder by the rules of `dv_hold` (a result not yet taken: always),
/// else only detached (another object still holds it). `*released` (may be
/// NULL) says which. `dv_let_go(NULL, ...)` does nothing.
///
/// # Safety
/// `dv` is a handle or NULL; `released` is NULL or writable. No other thread
/// may use `dv` during or after a call that destroys it.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_let_go(dv: *mut dv_dualview_t, at: usize, released: *mut bool) -> dv_status_t {
    call(function!(), || {
        let destroy = !dv.is_null() && (handle::mark(dv, "dv")? == Mark::Result || handle::with_holder(dv, "dv", |h| h.let_go(at))?);
        if destroy {
            drop(handle::remove(dv)?);
        }
        if !released.is_null() {
            put(released, destroy);
        }
        Ok(())
    })
}
