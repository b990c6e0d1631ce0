//! The extents functions of the C ABI: `dv_extents_t` values, no handles.

use super::boundary::{call, put, put_array, read, read_slice};
use super::status::dv_status_t;
use super::types::*;
use crate::abi::*;
use crate::error::{bail, Result};
use crate::extents::{ublas, DynRank, Extents};
use crate::layout::Layout;

fn ext(p: *const dv_extents_t, arg: &str) -> Result<DynRank> {
    extents_from(read(p, arg)?, arg)
}

/// Make extents of `rank` from `values` (rank 0 to 8; `values` may be NULL
/// when `rank` is 0), padding entries past the rank with 1.
/// Errors: RANK (rank > 8), OVERFLOW (product overflows).
///
/// # Safety
/// `values` points to `rank` values; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_make(values: *const u64, rank: u32, out: *mut dv_extents_t) -> dv_status_t {
    call("dv_extents_make", || {
        let o = super::boundary::out(out, "out")?;
        if rank as usize > crate::MAX_RANK {
            bail!(RankTooLarge, "argument `rank` is {rank}, above the maximum rank 8");
        }
        let values = read_slice(values, rank as usize, "values")?;
        let mut e = dv_extents_t { rank, reserved: 0, extent: [1; 8] };
        e.extent[..rank as usize].copy_from_slice(values);
        let checked = extents_from(&e, "values")?;
        put(o, extents_to(&checked));
        Ok(())
    })
}

/// `*out` = the number of elements (1 for rank 0).
///
/// # Safety
/// `e` points to extents; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_size(e: *const dv_extents_t, out: *mut u64) -> dv_status_t {
    call("dv_extents_size", || {
        let e = ext(e, "e")?;
        let o = super::boundary::out(out, "out")?;
        put(o, e.size()? as u64);
        Ok(())
    })
}

/// Canonical strides for `DV_LAYOUT_LEFT` or `DV_LAYOUT_RIGHT` into `out[0..rank]`.
/// `DV_ERROR_OUT_OF_RANGE` when `n < rank`; `DV_ERROR_INVALID_ARGUMENT` for
/// another layout.
///
/// # Safety
/// `e` points to extents; `out` has room for `n` values.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_strides(e: *const dv_extents_t, layout: u32, out: *mut u64, n: usize) -> dv_status_t {
    call("dv_extents_strides", || {
        let e = ext(e, "e")?;
        let o = super::boundary::out(out, "out")?;
        let layout = Layout::try_from(layout).map_err(|err| about("layout", err))?;
        let s = layout.strides(&e).map_err(|err| about("layout", err))?;
        if n < s.as_slice().len() {
            bail!(OutOfRange, "argument `n` is {n}; rank {} needs {} entries", s.as_slice().len(), s.as_slice().len());
        }
        put_array(o, n, s.as_slice().iter().map(|&v| v as u64));
        Ok(())
    })
}

/// `*out` = whether `a` and `b` have the same rank and sizes.
///
/// # Safety
/// `a`, `b` point to extents; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_equal(a: *const dv_extents_t, b: *const dv_extents_t, out: *mut bool) -> dv_status_t {
    call("dv_extents_equal", || {
        let (a, b) = (ext(a, "a")?, ext(b, "b")?);
        let o = super::boundary::out(out, "out")?;
        put(o, a == b);
        Ok(())
    })
}

/// `*out` = `e` without its extents of 1: `DV_SQUEEZE_NUMPY` drops them all,
/// `DV_SQUEEZE_OCTAVE` keeps at least two axes (uBLAS 2020 rule).
///
/// # Safety
/// `e` points to extents; `out` is writable (it may be `e`).
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_squeeze(e: *const dv_extents_t, mode: u32, out: *mut dv_extents_t) -> dv_status_t {
    call("dv_extents_squeeze", || {
        let e = ext(e, "e")?;
        let o = super::boundary::out(out, "out")?;
        let s = match mode {
            DV_SQUEEZE_NUMPY => e.squeeze(),
            DV_SQUEEZE_OCTAVE => e.squeeze_octave(),
            m => bail!(InvalidArgument, "argument `mode` has unknown value {m} (0 numpy, 1 octave)"),
        };
        put(o, extents_to(&s));
        Ok(())
    })
}

fn predicate(name: &'static str, e: *const dv_extents_t, out: *mut bool, f: fn(&DynRank) -> bool) -> dv_status_t {
    call(name, || {
        let e = ext(e, "e")?;
        let o = super::boundary::out(out, "out")?;
        put(o, f(&e));
        Ok(())
    })
}

/// `*out` = uBLAS `is_scalar`: rank > 0 and every extent 1.
///
/// Rank 0 is **not** a scalar here although its size is 1: uBLAS' formula
/// asks for at least one extent (`size() > 0 && all_of(n == 1)`), and a
/// rank-0 extents has none. The predicates classify *shapes*; the size of a
/// rank-0 view (one element) is a separate fact.
///
/// # Safety
/// `e` points to extents; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_is_scalar(e: *const dv_extents_t, out: *mut bool) -> dv_status_t {
    predicate("dv_extents_is_scalar", e, out, ublas::is_scalar)
}

/// `*out` = uBLAS `is_vector` (develop formula; `{1,1}` is also a scalar and a matrix).
///
/// With `n` the extents and `r` the rank: false for `r == 0`; `n[0] >= 1` for
/// `r == 1`; otherwise `(n[0] >= 1 || n[1] >= 1) && (n[0] == 1 || n[1] == 1)
/// && n[k] == 1 for every k >= 2`. The predicates overlap: `{4}` is a vector
/// **and** a matrix (uBLAS treats a rank-1 shape as a one-column matrix), and
/// `{1}` is a scalar, a vector and a matrix.
///
/// # Safety
/// `e` points to extents; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_is_vector(e: *const dv_extents_t, out: *mut bool) -> dv_status_t {
    predicate("dv_extents_is_vector", e, out, ublas::is_vector)
}

/// `*out` = uBLAS `is_matrix` (develop formula).
///
/// False for `r == 0`; `n[0] >= 1` for `r == 1` (so `{4}` is a matrix as well
/// as a vector); otherwise `(n[0] >= 1 || n[1] >= 1) && n[k] == 1 for every
/// k >= 2`.
///
/// # Safety
/// `e` points to extents; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_is_matrix(e: *const dv_extents_t, out: *mut bool) -> dv_status_t {
    predicate("dv_extents_is_matrix", e, out, ublas::is_matrix)
}

/// `*out` = uBLAS `is_tensor`: rank > 2 with a trailing extent above 1.
///
/// `r > 2 && n[0] >= 1 && n[1] >= 1 && n[k] > 1 for some k >= 2`.
///
/// # Safety
/// `e` points to extents; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents_is_tensor(e: *const dv_extents_t, out: *mut bool) -> dv_status_t {
    predicate("dv_extents_is_tensor", e, out, ublas::is_tensor)
}
