//! The transfer statistics of the C ABI, per DualView and process-wide, and
//! the count of live handles.

use super::boundary::{call, function, label, put};
use super::dual_view::dv;
use super::handle::{self, dv_dualview_t};
use super::status::dv_status_t;
use super::types::*;

// ---- statistics -----------------------------------------------------------------------

/// `*out` = the transfer counters of this DualView (all its handles).
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stats(dv: *const dv_dualview_t, out: *mut dv_stats_t) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, stats_to(d.stats()));
        Ok(())
    })
}

/// Zero the transfer counters of this DualView.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stats_reset(dv: *const dv_dualview_t) -> dv_status_t {
    call(function!(), || {
        self::dv(dv, "dv")?.reset_stats();
        Ok(())
    })
}

/// Add the transfer counters of `src`'s DualView to those of `dst`'s (the
/// process-wide counters are unchanged); nothing happens when both are
/// handles of one DualView. For a DualView that replaces another, as the C++
/// `resize` does through `dv_resized` while copies of the old one live.
///
/// # Safety
/// `dst` and `src` are handles or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stats_add(dst: *const dv_dualview_t, src: *const dv_dualview_t) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        d.add_stats_from(s);
        Ok(())
    })
}

/// `*out` = the process-wide transfer counters of every DualView.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stats_global(out: *mut dv_stats_t) -> dv_status_t {
    call(function!(), || {
        let o = super::boundary::out(out, "out")?;
        put(o, stats_to(crate::stats::global()));
        Ok(())
    })
}

/// Zero the process-wide transfer counters.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_stats_global_reset() -> dv_status_t {
    call(function!(), || {
        crate::stats::reset_global();
        Ok(())
    })
}

/// `*out` = how many DualView handles are live in the process (leak checks).
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_handle_count(out: *mut usize) -> dv_status_t {
    call(function!(), || {
        let o = super::boundary::out(out, "out")?;
        put(o, handle::live());
        Ok(())
    })
}

// ---- the transfer report (DV_REPORT) ----------------------------------------------------

/// Record every copying sync and resize for the transfer report from now on,
/// as `DV_REPORT` does from the start (without writing it at exit).
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_report_start() -> dv_status_t {
    call(function!(), || {
        crate::report::start();
        Ok(())
    })
}

/// Write the transfer report now: with `prefix` NULL, the table on stderr
/// (or the files `DV_REPORT=<prefix>` names); otherwise `<prefix>.<rank>.txt`
/// and `<prefix>.<rank>.csv` (rank from the MPI launcher, 0 without one).
/// Rows: per DualView label, syncs, bytes and time each way, the rate against
/// the raw rate, the largest copy, resizes; most time first.
///
/// # Safety
/// `prefix` is NULL or NUL-terminated.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_report_write(prefix: *const std::ffi::c_char) -> dv_status_t {
    call(function!(), || {
        let p = if prefix.is_null() { None } else { Some(label(prefix, "prefix")?.0) };
        crate::report::write(p.as_deref()).map_err(|e| crate::error::err!(InvalidArgument, "dv_report_write: {e}"))
    })
}

/// Forget the transfer report's rows (a report per phase of a run).
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_report_reset() -> dv_status_t {
    call(function!(), || {
        crate::report::reset();
        Ok(())
    })
}
