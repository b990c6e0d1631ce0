//! The shape and identity functions of the C ABI (rank, extents, strides,
//! span, label, description, what a handle is): each checks its arguments,
//! converts, asks [`crate::RawDualView`] and writes its output last.

use super::boundary::{call, copy_text, function, put, put_array};
use super::dual_view::dv;
use super::handle::{self, dv_dualview_t};
use super::status::dv_status_t;
use super::types::*;
use crate::error::bail;
use crate::extents::Extents;
use crate::side::Side;
use std::ffi::c_char;

/// An axis argument, with negative values (from Fortran or signed C) named as such.
fn axis_error(axis: u32, rank: usize) -> crate::Error {
    let shown = if axis > i32::MAX as u32 { format!("{} (negative)", axis as i32) } else { axis.to_string() };
    crate::error::err!(OutOfRange, "argument `axis` is {shown}, out of range for rank {rank} (axes count from 0)")
}

// ---- shape and identity ---------------------------------------------------------------

/// `*out` = the rank.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_rank(dv: *const dv_dualview_t, out: *mut u32) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.extents().rank() as u32);
        Ok(())
    })
}

/// `*out` = the size of `axis` (from 0); `DV_ERROR_OUT_OF_RANGE` when `axis >= rank`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extent(dv: *const dv_dualview_t, axis: u32, out: *mut u64) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        let e = d.extents();
        let Some(&v) = e.as_slice().get(axis as usize) else {
            return Err(axis_error(axis, e.rank()));
        };
        put(o, v as u64);
        Ok(())
    })
}

/// `*out` = the extents.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extents(dv: *const dv_dualview_t, out: *mut dv_extents_t) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, extents_to(&d.extents()));
        Ok(())
    })
}

/// `*out` = the stride of `axis` (from 0) in elements; `DV_ERROR_OUT_OF_RANGE` when `axis >= rank`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stride(dv: *const dv_dualview_t, axis: u32, out: *mut u64) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        let m = d.mapping();
        let s = m.stride(axis as usize).map_err(|_| axis_error(axis, m.rank()))?;
        put(o, s as u64);
        Ok(())
    })
}

/// Kokkos `stride(int*)`: the `rank` strides then the span, into `out[0..=rank]`.
/// `DV_ERROR_OUT_OF_RANGE` when `n < rank + 1` (nothing written).
///
/// # Safety
/// `dv` is a handle or NULL; `out` has room for `n` values.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_strides(dv: *const dv_dualview_t, out: *mut u64, n: usize) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        let ks = d.mapping().kokkos_strides();
        if n < ks.len() {
            bail!(OutOfRange, "argument `n` is {n}; rank {} needs {} entries", ks.len() - 1, ks.len());
        }
        put_array(o, n, ks.into_iter().map(|v| v as u64));
        Ok(())
    })
}

/// `*out` = the span in elements (Kokkos `span()`).
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_span(dv: *const dv_dualview_t, out: *mut u64) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.mapping().span() as u64);
        Ok(())
    })
}

/// `*out` = whether the span has no gaps.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_span_is_contiguous(dv: *const dv_dualview_t, out: *mut bool) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.mapping().span_is_contiguous());
        Ok(())
    })
}

/// `*out` = true for every live handle (Kokkos `is_allocated`).
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_is_allocated(dv: *const dv_dualview_t, out: *mut bool) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.is_allocated());
        Ok(())
    })
}

/// `*out` = what the handle is: single space, one allocation, const, subview,
/// owned, stale (`DV_INFO_*` bits), its element type, spaces and rank.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_info(dv: *const dv_dualview_t, out: *mut dv_info_t) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        let d = &e.dv;
        put(
            o,
            dv_info_t {
                bits: d.info_bits(),
                dtype: e.dtype,
                host_space: d.space(Side::Host).kind() as u32,
                device_space: d.space(Side::Device).kind() as u32,
                ordinal: d.space(Side::Device).ordinal(),
                rank: d.mapping().rank() as u32,
                elem_size: d.elem().size() as u64,
                use_count: d.use_count() as u64,
            },
        );
        Ok(())
    })
}

/// Copy the label into `buf` (at most `buf_len - 1` bytes and a NUL), byte
/// for byte as given to `dv_create`; its full length goes to `*len` when
/// `len` is not NULL. `buf` may be NULL when `buf_len` is 0 (to ask for the length).
///
/// # Safety
/// `dv` is a handle or NULL; `buf` has `buf_len` bytes; `len` is NULL or writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_label(dv: *const dv_dualview_t, buf: *mut c_char, buf_len: usize, len: *mut usize) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(dv, "dv")?;
        let bytes = e.raw_label.as_deref().unwrap_or(e.dv.label().as_bytes());
        copy_text(bytes, buf, buf_len, len).map(drop)
    })
}

/// Like `dv_label` for one side's view: `label` + "_mirror" for a separate
/// host mirror (as Kokkos names it), `label` otherwise.
///
/// # Safety
/// As `dv_label`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_view_label(
    dv: *const dv_dualview_t,
    side: u32,
    buf: *mut c_char,
    buf_len: usize,
    len: *mut usize,
) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(dv, "dv")?;
        let side = side_from(side, "side")?;
        let mut bytes = e.raw_label.as_deref().unwrap_or(e.dv.label().as_bytes()).to_vec();
        bytes.extend_from_slice(&e.dv.view_label(side).as_bytes()[e.dv.label().len()..]);
        copy_text(&bytes, buf, buf_len, len).map(drop)
    })
}

/// `*out` = a description that `dv_create` would turn into a DualView of the
/// same element type, layout, spaces and current extents (strides for a
/// strided one).
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_desc_of(dv: *const dv_dualview_t, out: *mut dv_desc_t) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        let d = &e.dv;
        let m = d.mapping();
        let (host, device) = (d.space(Side::Host), d.space(Side::Device));
        let mut strides = [0u64; 8];
        for (s, &v) in strides.iter_mut().zip(m.strides().as_slice()) {
            *s = v as u64;
        }
        // The same kind of DualView again, checked as this one is.
        let flags = flags_of_host(host, device) | if d.is_checked() { crate::abi::DV_FLAG_CHECKED } else { 0 };
        put(
            o,
            dv_desc_t {
                dtype: e.dtype,
                elem_size: d.elem().size() as u32,
                elem_align: d.elem().align() as u32,
                layout: m.layout() as u32,
                space: device.kind() as u32,
                ordinal: device.ordinal(),
                flags,
                reserved: 0,
                extents: extents_to(m.extents()),
                strides,
            },
        );
        Ok(())
    })
}
