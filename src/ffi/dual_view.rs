//! The DualView functions of the C ABI. Each checks its arguments, converts,
//! calls [`RawDualView`], and maps the result; see `mod.rs` for the conventions.

use super::boundary::{call, null};
use super::handle::{self, dv_dualview_t, Entry};
use super::status::dv_status_t;
use super::types::*;
use crate::dual_view::{Access, RawDualView};
use crate::error::{bail, Result, Side};
use crate::layout::Slice;
use crate::space::Stream;
use std::ffi::{c_char, c_void};
use std::ptr::NonNull;

fn dv<'a>(h: *const dv_dualview_t, arg: &str) -> Result<&'a RawDualView> {
    Ok(&handle::get(h, arg)?.dv)
}

fn new_handle(out: *mut *mut dv_dualview_t, entry: Entry) -> Result<()> {
    let h = handle::insert(entry)?;
    put(out, h);
    Ok(())
}

/// Create a DualView: both sides allocated (one allocation when `desc->space`
/// is `DV_SPACE_HOST`), zero-filled unless `DV_FLAG_WITHOUT_INITIALIZING`,
/// flags clean. The host side is labelled `label` + "_mirror".
///
/// Owner: the caller owns `*out` and releases it with `dv_destroy`.
/// Errors: NULL_ARGUMENT, INVALID_ARGUMENT (unknown dtype/layout/space/flags,
/// bad strides), RANK, OVERFLOW, OUT_OF_MEMORY, NO_DEVICE. `*out` is written
/// only on success.
///
/// # Safety
/// `label` is NUL-terminated; `desc` points to a `dv_desc_t`; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_create(label: *const c_char, desc: *const dv_desc_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call("dv_create", || {
        let label = super::types::label(label, "label")?;
        let d = read(desc, "desc")?;
        let out = super::types::out(out, "out")?;
        let core = desc_from(d)?;
        let dv = RawDualView::new(&label, &core)?;
        new_handle(out, Entry { dv, dtype: d.dtype })
    })
}

/// Make a DualView over memory the caller owns (unmanaged): nothing is
/// allocated, copied or ever freed by dualview, and `dv_resize` / `dv_realloc`
/// answer `DV_ERROR_UNMANAGED`. The two sides are assumed to be in sync.
/// `device` may be NULL (or equal `host`) when both sides are one memory
/// (`DV_SPACE_HOST` or `DV_SPACE_CUDA_UVM`). `DV_FLAG_WITHOUT_INITIALIZING` is ignored.
///
/// Owner: the caller keeps owning the memory, which must outlive every handle
/// of this DualView; `*out` is released with `dv_destroy`.
///
/// # Safety
/// As `dv_create`; `host` (and `device`) address `span` elements in their spaces.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_wrap(
    label: *const c_char,
    desc: *const dv_desc_t,
    host: *mut c_void,
    device: *mut c_void,
    out: *mut *mut dv_dualview_t,
) -> dv_status_t {
    call("dv_wrap", || {
        let label = super::types::label(label, "label")?;
        let d = read(desc, "desc")?;
        let host = NonNull::new(host as *mut u8).ok_or_else(|| null("host"))?;
        let out = super::types::out(out, "out")?;
        let core = desc_from(d)?;
        // SAFETY: the caller guarantees the memory (documented contract above).
        let dv = unsafe { RawDualView::wrap(&label, &core, host, NonNull::new(device as *mut u8)) }?;
        new_handle(out, Entry { dv, dtype: d.dtype })
    })
}

/// A new handle on the same DualView (Kokkos shallow copy): shares data,
/// flags and every later resize. Release it with `dv_destroy`.
///
/// # Safety
/// `src` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_clone(src: *const dv_dualview_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call("dv_clone", || {
        let e = handle::get(src, "src")?;
        let out = super::types::out(out, "out")?;
        new_handle(out, Entry { dv: e.dv.clone(), dtype: e.dtype })
    })
}

/// Like `dv_clone`, but the new handle has const data (Kokkos
/// `DualView<const T>`): a sync through it that would copy answers
/// `DV_ERROR_CONST_SYNC`; fills and write access are refused.
///
/// # Safety
/// As `dv_clone`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_clone_const(src: *const dv_dualview_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call("dv_clone_const", || {
        let e = handle::get(src, "src")?;
        let out = super::types::out(out, "out")?;
        new_handle(out, Entry { dv: e.dv.as_const(), dtype: e.dtype })
    })
}

/// Release one handle. The memory goes when the last handle of the DualView
/// and of its subviews is released. `dv_destroy(NULL)` does nothing and
/// returns `DV_OK`; a destroyed handle (a double destroy) answers
/// `DV_ERROR_INVALID_HANDLE` and changes nothing.
///
/// # Safety
/// No other thread may use `dv` during or after this call.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_destroy(dv: *mut dv_dualview_t) -> dv_status_t {
    call("dv_destroy", || {
        if dv.is_null() {
            return Ok(());
        }
        drop(handle::remove(dv)?);
        Ok(())
    })
}

/// A subview sharing memory and flags: one `dv_range_t` per axis of `src`
/// (`DV_ALL`, `DV_RANGE` [begin, end), `DV_INDEX` begin, which removes the axis).
/// Errors: RANK_MISMATCH (n differs from the rank), OUT_OF_RANGE, STALE.
/// Release `*out` with `dv_destroy`. `ranges` may be NULL when `n` is 0.
///
/// # Safety
/// `ranges` points to `n` ranges; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_subview(
    src: *const dv_dualview_t,
    ranges: *const dv_range_t,
    n: usize,
    out: *mut *mut dv_dualview_t,
) -> dv_status_t {
    call("dv_subview", || {
        let e = handle::get(src, "src")?;
        if ranges.is_null() && n != 0 {
            return Err(null("ranges"));
        }
        let out = super::types::out(out, "out")?;
        let rs: &[dv_range_t] = if n == 0 {
            &[]
        } else {
            // SAFETY: non-NULL, n elements (documented contract).
            unsafe { std::slice::from_raw_parts(ranges, n) }
        };
        let mut slices = Vec::with_capacity(n);
        for (i, r) in rs.iter().enumerate() {
            if r.reserved != 0 {
                bail!(InvalidArgument, "argument `ranges[{i}].reserved` must be 0");
            }
            slices.push(match r.kind {
                DV_ALL => Slice::All,
                DV_RANGE => Slice::Range(r.begin as usize, r.end as usize),
                DV_INDEX => Slice::Index(r.begin as usize),
                k => bail!(InvalidArgument, "argument `ranges[{i}].kind` has unknown value {k}"),
            });
        }
        let sub = e.dv.subview(&slices)?;
        new_handle(out, Entry { dv: sub, dtype: e.dtype })
    })
}

#[cold]
#[inline(never)]
fn modify_slow(dv: *const dv_dualview_t, side: Side, name: &str) -> dv_status_t {
    call(name, || self::dv(dv, "dv")?.modify(side))
}

#[cold]
#[inline(never)]
fn sync_slow(dv: *const dv_dualview_t, side: Side, name: &str) -> dv_status_t {
    call(name, || self::dv(dv, "dv")?.sync(side))
}

fn out_ptr<T>(p: *mut T, arg: &str) -> Result<*mut T> {
    super::types::out(p, arg)
}

/// Mark the host side modified. `DV_ERROR_CONCURRENT_MODIFICATION` (flags unchanged; the message names the label) when the other side holds unsynced changes. Free on a one-space DualView.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_modify_host(dv: *const dv_dualview_t) -> dv_status_t {
    // Fast path: loads only, nothing that can fail or panic.
    if handle::peek(dv).is_some_and(|e| e.dv.modify_is_noop(Side::Host)) {
        return dv_status_t::DV_OK;
    }
    modify_slow(dv, Side::Host, "dv_modify_host")
}

/// Mark the device side modified. `DV_ERROR_CONCURRENT_MODIFICATION` (flags unchanged; the message names the label) when the other side holds unsynced changes. Free on a one-space DualView.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_modify_device(dv: *const dv_dualview_t) -> dv_status_t {
    // Fast path: loads only, nothing that can fail or panic.
    if handle::peek(dv).is_some_and(|e| e.dv.modify_is_noop(Side::Device)) {
        return dv_status_t::DV_OK;
    }
    modify_slow(dv, Side::Device, "dv_modify_device")
}

/// Bring the host side up to date: copy from the other side when it is newer, then both clean. Waits for outstanding device work first (a Kokkos fence). `DV_ERROR_CONST_SYNC` through a const handle that would have to copy.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_host(dv: *const dv_dualview_t) -> dv_status_t {
    // Fast path: loads only, nothing that can fail or panic.
    if handle::peek(dv).is_some_and(|e| !e.dv.need_sync(Side::Host)) {
        return dv_status_t::DV_OK;
    }
    sync_slow(dv, Side::Host, "dv_sync_host")
}

/// Bring the device side up to date: copy from the other side when it is newer, then both clean. Waits for outstanding device work first (a Kokkos fence). `DV_ERROR_CONST_SYNC` through a const handle that would have to copy.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_device(dv: *const dv_dualview_t) -> dv_status_t {
    // Fast path: loads only, nothing that can fail or panic.
    if handle::peek(dv).is_some_and(|e| !e.dv.need_sync(Side::Device)) {
        return dv_status_t::DV_OK;
    }
    sync_slow(dv, Side::Device, "dv_sync_device")
}

/// Like `dv_sync_host`, but the copy is queued on `stream` (a `CUstream` / `cudaStream_t`; NULL is the default stream) and the flags are reset at once (Kokkos `sync(exec)`): synchronise the stream before using the data.
///
/// # Safety
/// `dv` is a handle or NULL; `stream` is NULL or a live stream.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_host_async(dv: *const dv_dualview_t, stream: *mut c_void) -> dv_status_t {
    call("dv_sync_host_async", || self::dv(dv, "dv")?.sync_on(Side::Host, Stream::from_raw(stream as usize)))
}

/// Like `dv_sync_device`, but the copy is queued on `stream` (a `CUstream` / `cudaStream_t`; NULL is the default stream) and the flags are reset at once (Kokkos `sync(exec)`): synchronise the stream before using the data.
///
/// # Safety
/// `dv` is a handle or NULL; `stream` is NULL or a live stream.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_device_async(dv: *const dv_dualview_t, stream: *mut c_void) -> dv_status_t {
    call("dv_sync_device_async", || self::dv(dv, "dv")?.sync_on(Side::Device, Stream::from_raw(stream as usize)))
}

/// `*out` = whether the host side is stale (the other side is newer). Always false on one space.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_need_sync_host(dv: *const dv_dualview_t, out: *mut bool) -> dv_status_t {
    call("dv_need_sync_host", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, d.need_sync(Side::Host));
        Ok(())
    })
}

/// `*out` = whether the device side is stale (the other side is newer). Always false on one space.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_need_sync_device(dv: *const dv_dualview_t, out: *mut bool) -> dv_status_t {
    call("dv_need_sync_device", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, d.need_sync(Side::Device));
        Ok(())
    })
}

/// `*out` = the host data pointer (the element at index 0). No sync and no flags: prefer `dv_host_access`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_host_ptr(dv: *const dv_dualview_t, out: *mut *mut c_void) -> dv_status_t {
    call("dv_host_ptr", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, d.view(Side::Host)?.data() as *mut c_void);
        Ok(())
    })
}

/// `*out` = the device data pointer (the element at index 0). No sync and no flags: prefer `dv_device_access`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_ptr(dv: *const dv_dualview_t, out: *mut *mut c_void) -> dv_status_t {
    call("dv_device_ptr", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, d.view(Side::Device)?.data() as *mut c_void);
        Ok(())
    })
}

/// Access the host side with `mode` (`DV_ACCESS_READ`, `DV_ACCESS_WRITE`, `DV_ACCESS_READ_WRITE`) and get its data pointer in `*out`: a stale side is synced first (except for write-only, which drops the other side's pending change; a subview syncs even then), and any write mode marks the side modified. No silent stale data.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_host_access(dv: *const dv_dualview_t, mode: u32, out: *mut *mut c_void) -> dv_status_t {
    call("dv_host_access", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        let mode = Access::try_from(mode).map_err(|e| about("mode", e))?;
        put(o, d.access(Side::Host, mode)?.data() as *mut c_void);
        Ok(())
    })
}

/// Access the device side with `mode` (`DV_ACCESS_READ`, `DV_ACCESS_WRITE`, `DV_ACCESS_READ_WRITE`) and get its data pointer in `*out`: a stale side is synced first (except for write-only, which drops the other side's pending change; a subview syncs even then), and any write mode marks the side modified. No silent stale data.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_access(dv: *const dv_dualview_t, mode: u32, out: *mut *mut c_void) -> dv_status_t {
    call("dv_device_access", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        let mode = Access::try_from(mode).map_err(|e| about("mode", e))?;
        put(o, d.access(Side::Device, mode)?.data() as *mut c_void);
        Ok(())
    })
}

/// `*out` = the host view: data pointer, rank, layout, space, extents, strides and span. No sync, no flags.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_host_view(dv: *const dv_dualview_t, out: *mut dv_view_info_t) -> dv_status_t {
    call("dv_host_view", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, view_info(&d.view(Side::Host)?));
        Ok(())
    })
}

/// `*out` = the device view: data pointer, rank, layout, space, extents, strides and span. No sync, no flags.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_view(dv: *const dv_dualview_t, out: *mut dv_view_info_t) -> dv_status_t {
    call("dv_device_view", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, view_info(&d.view(Side::Device)?));
        Ok(())
    })
}

/// Set every host element to `*value` (one element's bytes) and mark the host side modified (Kokkos `deep_copy(view, scalar)` + modify). `DV_ERROR_CONCURRENT_MODIFICATION` when the other side is newer; nothing changes then.
///
/// # Safety
/// `dv` is a handle or NULL; `value` points to one element.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_fill_host(dv: *const dv_dualview_t, value: *const c_void) -> dv_status_t {
    call("dv_fill_host", || {
        let d = self::dv(dv, "dv")?;
        if value.is_null() {
            return Err(null("value"));
        }
        // SAFETY: `value` points to one element (documented contract).
        let bytes = unsafe { std::slice::from_raw_parts(value as *const u8, d.elem().size()) };
        d.fill(Side::Host, bytes)
    })
}

/// Set every device element to `*value` (one element's bytes) and mark the device side modified (Kokkos `deep_copy(view, scalar)` + modify). `DV_ERROR_CONCURRENT_MODIFICATION` when the other side is newer; nothing changes then.
///
/// # Safety
/// `dv` is a handle or NULL; `value` points to one element.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_fill_device(dv: *const dv_dualview_t, value: *const c_void) -> dv_status_t {
    call("dv_fill_device", || {
        let d = self::dv(dv, "dv")?;
        if value.is_null() {
            return Err(null("value"));
        }
        // SAFETY: `value` points to one element (documented contract).
        let bytes = unsafe { std::slice::from_raw_parts(value as *const u8, d.elem().size()) };
        d.fill(Side::Device, bytes)
    })
}

/// Forget both sides' pending changes, without copying.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_clear_sync_state(dv: *const dv_dualview_t) -> dv_status_t {
    call("dv_clear_sync_state", || {
        self::dv(dv, "dv")?.clear_sync_state();
        Ok(())
    })
}

/// `*out` = the rank.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_rank(dv: *const dv_dualview_t, out: *mut u32) -> dv_status_t {
    call("dv_rank", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, d.extents().as_slice().len() as u32);
        Ok(())
    })
}

/// `*out` = the size of `axis`; `DV_ERROR_OUT_OF_RANGE` when `axis >= rank`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_extent(dv: *const dv_dualview_t, axis: u32, out: *mut u64) -> dv_status_t {
    call("dv_extent", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        let e = d.extents();
        let Some(&v) = e.as_slice().get(axis as usize) else {
            bail!(OutOfRange, "argument `axis` is {axis}, out of range for rank {}", e.as_slice().len());
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
    call("dv_extents", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, extents_to(&d.extents()));
        Ok(())
    })
}

/// `*out` = the stride of `axis` in elements; `DV_ERROR_OUT_OF_RANGE` when `axis >= rank`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stride(dv: *const dv_dualview_t, axis: u32, out: *mut u64) -> dv_status_t {
    call("dv_stride", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        let s = d.mapping().stride(axis as usize).map_err(|e| about("axis", e))?;
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
    call("dv_strides", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        let ks = d.mapping().kokkos_strides();
        if n < ks.len() {
            bail!(OutOfRange, "argument `n` is {n}; rank {} needs {} entries", ks.len() - 1, ks.len());
        }
        for (i, v) in ks.into_iter().enumerate() {
            // SAFETY: i < n entries (caller contract, checked above).
            put(unsafe { o.add(i) }, v as u64);
        }
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
    call("dv_span", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
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
    call("dv_span_is_contiguous", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
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
    call("dv_is_allocated", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        put(o, d.is_allocated());
        Ok(())
    })
}

/// Copy the label into `buf` (at most `buf_len - 1` bytes and a NUL); its full
/// length goes to `*len` when `len` is not NULL. `buf` may be NULL when
/// `buf_len` is 0 (to ask for the length).
///
/// # Safety
/// `dv` is a handle or NULL; `buf` has `buf_len` bytes; `len` is NULL or writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_label(dv: *const dv_dualview_t, buf: *mut c_char, buf_len: usize, len: *mut usize) -> dv_status_t {
    call("dv_label", || {
        let d = self::dv(dv, "dv")?;
        if buf.is_null() && buf_len != 0 {
            return Err(null("buf"));
        }
        let l = d.label().as_bytes();
        if !len.is_null() {
            put(len, l.len());
        }
        if buf_len > 0 {
            let n = l.len().min(buf_len - 1);
            // SAFETY: buf holds buf_len >= n + 1 bytes (caller contract).
            unsafe {
                std::ptr::copy_nonoverlapping(l.as_ptr() as *const c_char, buf, n);
                *buf.add(n) = 0;
            }
        }
        Ok(())
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
    call("dv_desc_of", || {
        let e = handle::get(dv, "dv")?;
        let o = out_ptr(out, "out")?;
        let d = &e.dv;
        let m = d.mapping();
        let (space, ordinal) = super::types::space_to(d.space(Side::Device));
        let mut strides = [0u64; 8];
        for (s, &v) in strides.iter_mut().zip(m.strides().as_slice()) {
            *s = v as u64;
        }
        let pinned = d.space(Side::Host) != crate::Space::HOST && !d.is_single_space();
        put(
            o,
            dv_desc_t {
                dtype: e.dtype,
                elem_size: d.elem().size() as u32,
                elem_align: d.elem().align() as u32,
                layout: m.layout() as u32,
                space,
                ordinal,
                flags: if pinned { DV_FLAG_PINNED_HOST } else { 0 },
                reserved: 0,
                extents: extents_to(m.extents()),
                strides,
            },
        );
        Ok(())
    })
}

/// Kokkos `realloc`: new extents of the same rank, contents dropped, both
/// sides zero-filled (also at the same size), flags clean. Errors:
/// RANK_MISMATCH, OVERFLOW, OUT_OF_MEMORY (the DualView is then unchanged),
/// UNMANAGED, INVALID_ARGUMENT for a subview.
///
/// # Safety
/// `dv` is a handle or NULL; `extents` points to a `dv_extents_t`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_realloc(dv: *const dv_dualview_t, extents: *const dv_extents_t) -> dv_status_t {
    call("dv_realloc", || {
        let d = self::dv(dv, "dv")?;
        let e = extents_from(read(extents, "extents")?, "extents")?;
        d.realloc(&e, true)
    })
}

/// `dv_realloc` without zero-filling (Kokkos `WithoutInitializing`).
///
/// # Safety
/// As `dv_realloc`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_realloc_without_initializing(dv: *const dv_dualview_t, extents: *const dv_extents_t) -> dv_status_t {
    call("dv_realloc_without_initializing", || {
        let d = self::dv(dv, "dv")?;
        let e = extents_from(read(extents, "extents")?, "extents")?;
        d.realloc(&e, false)
    })
}

/// Kokkos `resize`, fixed: new extents of the same rank, keeping the
/// overlapping index range on *both* sides; new elements are zero; flags
/// unchanged; subviews of the old shape become stale. On error (RANK_MISMATCH,
/// OVERFLOW, OUT_OF_MEMORY, UNMANAGED) nothing changes.
///
/// # Safety
/// `dv` is a handle or NULL; `extents` points to a `dv_extents_t`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_resize(dv: *const dv_dualview_t, extents: *const dv_extents_t) -> dv_status_t {
    call("dv_resize", || {
        let d = self::dv(dv, "dv")?;
        let e = extents_from(read(extents, "extents")?, "extents")?;
        d.resize(&e)
    })
}

/// Kokkos-style resize into a new DualView: `*out` gets the same label,
/// element, layout and spaces with `extents`, the overlapping index range of
/// both sides and the flags of `src`. `src` and its handles, views and
/// pointers are untouched (the C++ wrapper's value semantics use this).
/// Release `*out` with `dv_destroy`. Errors: RANK_MISMATCH, OVERFLOW,
/// OUT_OF_MEMORY, INVALID_ARGUMENT for a subview.
///
/// # Safety
/// `src` is a handle or NULL; `extents` points to a `dv_extents_t`; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_resized(src: *const dv_dualview_t, extents: *const dv_extents_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call("dv_resized", || {
        let e = handle::get(src, "src")?;
        let x = extents_from(read(extents, "extents")?, "extents")?;
        let out = super::types::out(out, "out")?;
        let dv = e.dv.resized(&x)?;
        new_handle(out, Entry { dv, dtype: e.dtype })
    })
}

/// Kokkos `deep_copy(View, View)`: copy one side's view of `src` into one
/// side's view of `dst` (`DV_SIDE_HOST` / `DV_SIDE_DEVICE`), across spaces and
/// layouts. Touches no flags. Errors: INCOMPATIBLE (extents or element sizes),
/// STALE.
///
/// # Safety
/// `dst` and `src` are handles or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_view_copy(dst: *const dv_dualview_t, dst_side: u32, src: *const dv_dualview_t, src_side: u32) -> dv_status_t {
    call("dv_view_copy", || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        let (ds, ss) = (side_from(dst_side, "dst_side")?, side_from(src_side, "src_side")?);
        d.view(ds)?.copy_from(&s.view(ss)?)
    })
}

/// Kokkos `deep_copy(View, scalar)`: set every element of one side's view to
/// `*value` (one element's bytes). Touches no flags (unlike `dv_fill_host`).
///
/// # Safety
/// `dv` is a handle or NULL; `value` points to one element.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_view_fill(dv: *const dv_dualview_t, side: u32, value: *const c_void) -> dv_status_t {
    call("dv_view_fill", || {
        let d = self::dv(dv, "dv")?;
        let side = side_from(side, "side")?;
        if value.is_null() {
            return Err(null("value"));
        }
        // SAFETY: `value` points to one element (documented contract).
        let bytes = unsafe { std::slice::from_raw_parts(value as *const u8, d.elem().size()) };
        d.view(side)?.fill(bytes)
    })
}

/// Kokkos `deep_copy(dst, src)` between DualViews: if `src`'s host is newer,
/// copy host to host and mark `dst`'s host modified; otherwise copy device to
/// device and mark `dst`'s device modified. Errors: INCOMPATIBLE (shapes or
/// element sizes), CONCURRENT_MODIFICATION (that side of `dst` is stale).
///
/// # Safety
/// `dst` and `src` are handles or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_deep_copy(dst: *const dv_dualview_t, src: *const dv_dualview_t) -> dv_status_t {
    call("dv_deep_copy", || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        RawDualView::deep_copy(d, s)
    })
}

/// `*out` = the transfer counters of this DualView (all its handles).
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stats(dv: *const dv_dualview_t, out: *mut dv_stats_t) -> dv_status_t {
    call("dv_stats", || {
        let d = self::dv(dv, "dv")?;
        let o = out_ptr(out, "out")?;
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
    call("dv_stats_reset", || {
        self::dv(dv, "dv")?.reset_stats();
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
    call("dv_stats_global", || {
        let o = out_ptr(out, "out")?;
        put(o, stats_to(crate::stats::global()));
        Ok(())
    })
}

/// Zero the process-wide transfer counters.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_stats_global_reset() -> dv_status_t {
    call("dv_stats_global_reset", || {
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
    call("dv_handle_count", || {
        let o = out_ptr(out, "out")?;
        put(o, handle::live());
        Ok(())
    })
}

/// `*out` = whether a CUDA driver with at least one device is usable. Answers on any machine.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_cuda_available(out: *mut bool) -> dv_status_t {
    call("dv_cuda_available", || {
        let o = out_ptr(out, "out")?;
        put(o, crate::space::device_count() > 0);
        Ok(())
    })
}

/// `*out` = the number of CUDA devices (0 without a driver). Answers on any machine.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_count(out: *mut i32) -> dv_status_t {
    call("dv_device_count", || {
        let o = out_ptr(out, "out")?;
        put(o, crate::space::device_count().min(i32::MAX as usize) as i32);
        Ok(())
    })
}

/// The library version, "MAJOR.MINOR.PATCH". Never NULL; do not free.
#[unsafe(no_mangle)]
pub extern "C" fn dv_version() -> *const c_char {
    const V: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
    V.as_ptr()
}
