//! The DualView functions of the C ABI. Each checks its arguments, converts,
//! calls [`RawDualView`], and maps the result; see `mod.rs` for the conventions.
//! Host/device twins are one-line wrappers over the side-generic helpers at
//! the top of this file.

use super::boundary::{call, element_bytes, function, null, put, read, read_slice, wrap_caller_memory};
use super::handle::{self, dv_dualview_t, Entry};
use super::status::dv_status_t;
use super::types::*;
use crate::abi::*;
use crate::dual_view::{Access, RawDualView};
use crate::error::{bail, Result};
use crate::layout::Slice;
use crate::side::Side;
use crate::space::Stream;
use std::ffi::{c_char, c_void};
use std::ptr::NonNull;

pub(super) fn dv<'a>(h: *const dv_dualview_t, arg: &str) -> Result<&'a RawDualView> {
    Ok(&handle::get(h, arg)?.dv)
}

fn new_handle(out: *mut *mut dv_dualview_t, entry: Entry) -> Result<()> {
    let h = handle::insert(entry)?;
    put(out, h);
    Ok(())
}

/// One element's bytes at `value`, for a DualView of `d`'s element size.
fn element<'a>(d: &RawDualView, value: *const c_void) -> Result<&'a [u8]> {
    element_bytes(value, d.elem().size())
}


// ---- the side-generic bodies of the host/device twins -------------------------

#[inline(always)]
fn modify(h: *const dv_dualview_t, side: Side, name: &'static str) -> dv_status_t {
    // One lookup. Fast path: loads only, nothing that can fail or panic.
    match handle::peek(h) {
        Some(e) if e.dv.modify_is_noop(side) => dv_status_t::DV_OK,
        Some(e) => modify_slow(&e.dv, side, name),
        None => invalid(h, name),
    }
}

#[cold]
#[inline(never)]
fn modify_slow(d: &RawDualView, side: Side, name: &'static str) -> dv_status_t {
    call(name, || d.modify(side))
}

#[inline(always)]
fn sync(h: *const dv_dualview_t, side: Side, name: &'static str) -> dv_status_t {
    // One lookup. Fast path: loads only; subviews take the slow path (it checks staleness).
    match handle::peek(h) {
        Some(e) if e.dv.sync_is_noop(side) => dv_status_t::DV_OK,
        Some(e) => sync_slow(&e.dv, side, name),
        None => invalid(h, name),
    }
}

#[cold]
#[inline(never)]
fn sync_slow(d: &RawDualView, side: Side, name: &'static str) -> dv_status_t {
    call(name, || d.sync(side))
}

/// The status and message of a handle `peek` did not find (NULL, destroyed, foreign).
#[cold]
#[inline(never)]
fn invalid(h: *const dv_dualview_t, name: &'static str) -> dv_status_t {
    call(name, || dv(h, "dv").map(drop))
}

fn sync_async(h: *const dv_dualview_t, side: Side, stream: *mut c_void, name: &'static str) -> dv_status_t {
    call(name, || dv(h, "dv")?.sync_on(side, Stream::from_raw(stream as usize)))
}

fn need_sync(h: *const dv_dualview_t, side: Side, out: *mut bool, name: &'static str) -> dv_status_t {
    call(name, || {
        let d = dv(h, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.try_need_sync(side)?);
        Ok(())
    })
}

fn data_ptr(h: *const dv_dualview_t, side: Side, out: *mut *mut c_void, name: &'static str) -> dv_status_t {
    call(name, || {
        let d = dv(h, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.view(side)?.data() as *mut c_void);
        Ok(())
    })
}

fn access(h: *const dv_dualview_t, side: Side, mode: u32, out: *mut *mut c_void, name: &'static str) -> dv_status_t {
    call(name, || {
        let d = dv(h, "dv")?;
        let o = super::boundary::out(out, "out")?;
        let mode = Access::try_from(mode).map_err(|e| about("mode", e))?;
        put(o, d.access(side, mode)?.data() as *mut c_void);
        Ok(())
    })
}

fn view(h: *const dv_dualview_t, side: Side, out: *mut dv_view_info_t, name: &'static str) -> dv_status_t {
    call(name, || {
        let d = dv(h, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, view_info(&d.view(side)?));
        Ok(())
    })
}

fn fill_and_modify(h: *const dv_dualview_t, side: Side, value: *const c_void, name: &'static str) -> dv_status_t {
    call(name, || {
        let d = dv(h, "dv")?;
        d.fill(side, element(d, value)?)
    })
}

// ---- creation and handles --------------------------------------------------------

/// Create a DualView: both sides allocated (one allocation when `desc->space`
/// is `DV_SPACE_HOST`, managed memory, or with `DV_FLAG_SINGLE_SPACE`),
/// zero-filled unless `DV_FLAG_WITHOUT_INITIALIZING`, flags clean. A separate
/// host side is labelled `label` + "_mirror".
///
/// Owner: the caller owns `*out` and releases it with `dv_destroy`.
/// Errors: NULL_ARGUMENT, INVALID_ARGUMENT (unknown dtype/layout/space/flags,
/// bad strides), RANK, OVERFLOW, OUT_OF_MEMORY, NO_DEVICE. `*out` is written
/// only on success. Labels are kept byte for byte (`dv_label`).
///
/// # Safety
/// `label` is NUL-terminated; `desc` points to a `dv_desc_t`; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_create(label: *const c_char, desc: *const dv_desc_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call(function!(), || {
        let (label, raw_label) = super::boundary::label(label, "label")?;
        let d = read(desc, "desc")?;
        let out = super::boundary::out(out, "out")?;
        let core = desc_from(d)?;
        let dv = RawDualView::new(&label, &core)?;
        new_handle(out, Entry { dv, dtype: d.dtype, raw_label })
    })
}

/// Make a DualView over memory the caller owns (unmanaged): nothing of it is
/// copied or ever freed by dualview, and `dv_resize` / `dv_realloc` answer
/// `DV_ERROR_UNMANAGED`. With both pointers the two sides are assumed to be
/// in sync, and their ranges must not overlap (INVALID_ARGUMENT). `device`
/// may be NULL (or equal `host`) when both sides are one memory
/// (`DV_SPACE_HOST`, `DV_SPACE_CUDA_UVM`, `DV_FLAG_SINGLE_SPACE`). Over two
/// spaces a NULL `device` adopts a legacy array: `host` becomes the host
/// side, the device side is allocated by dualview (freed with the last
/// handle), and the host is marked modified, so the first `dv_sync_device`
/// copies the array. A CUDA space without a driver answers NO_DEVICE here,
/// not at the first sync. `DV_FLAG_WITHOUT_INITIALIZING` is ignored.
///
/// Owner: the caller keeps owning the memory given, which must outlive
/// every use of this DualView; `*out` is released with `dv_destroy`, which
/// never reads or frees it, so the array may be freed before the DualView
/// is destroyed as long as nothing else is called on it in between.
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
    call(function!(), || {
        let (label, raw_label) = super::boundary::label(label, "label")?;
        let d = read(desc, "desc")?;
        let host = NonNull::new(host as *mut u8).ok_or_else(|| null("host"))?;
        let out = super::boundary::out(out, "out")?;
        let core = desc_from(d)?;
        let dv = wrap_caller_memory(&label, &core, host, NonNull::new(device as *mut u8))?;
        new_handle(out, Entry { dv, dtype: d.dtype, raw_label })
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
    call(function!(), || {
        let e = handle::get(src, "src")?;
        let out = super::boundary::out(out, "out")?;
        new_handle(out, e.clone())
    })
}

/// Like `dv_clone`, but the new handle has const data (Kokkos
/// `DualView<const T>`). Through it a sync that would copy answers
/// `DV_ERROR_CONST_SYNC`, and what writes data or drops changes answers
/// `DV_ERROR_INVALID_ARGUMENT`: fills, `dv_view_fill`, `dv_view_copy` and
/// `dv_deep_copy` into it, write access, resize, realloc, `dv_clear_sync_state`.
/// What remains: reads, data pointers (`dv_host_ptr`: do not write through
/// them), syncs with nothing to copy, and `dv_modify_*`, which records and
/// writes nothing.
///
/// # Safety
/// As `dv_clone`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_clone_const(src: *const dv_dualview_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(src, "src")?;
        let out = super::boundary::out(out, "out")?;
        new_handle(out, e.with(e.dv.as_const()))
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
    call(function!(), || {
        if dv.is_null() {
            return Ok(());
        }
        drop(handle::remove(dv)?);
        Ok(())
    })
}

/// A subview sharing memory and flags: one `dv_range_t` per axis of `src`
/// (`DV_ALL`, `DV_RANGE` [begin, end), `DV_INDEX` begin, which removes the
/// axis). A call through it covers its region (docs/SEMANTICS.md, the table
/// of calls: the `modify(X)` and `sync(X)` rows): its modify marks the region,
/// its sync copies the region's elements the other side holds newer, and the
/// parent's other changes stay newer until a sync that covers them. Errors: RANK_MISMATCH (n differs from the rank), OUT_OF_RANGE, STALE.
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
    call(function!(), || {
        let e = handle::get(src, "src")?;
        let rs = read_slice(ranges, n, "ranges")?;
        let out = super::boundary::out(out, "out")?;
        let mut slices = Vec::with_capacity(n);
        for (i, r) in rs.iter().enumerate() {
            if r.reserved != 0 {
                bail!(InvalidArgument, "argument `ranges[{i}].reserved` must be 0");
            }
            slices.push(match r.kind {
                DV_ALL => Slice::All,
                DV_RANGE => Slice::Range(r.begin as usize, r.end as usize),
                DV_INDEX => Slice::Index(r.begin as usize),
                k => bail!(InvalidArgument, "argument `ranges[{i}].kind` has unknown value {k} (0 all, 1 range, 2 index)"),
            });
        }
        let sub = e.dv.subview(&slices)?;
        new_handle(out, e.with(sub))
    })
}

// ---- flags and sync -------------------------------------------------------------

/// Mark the host side modified. `DV_ERROR_CONCURRENT_MODIFICATION` (flags unchanged; the message names the label) when the other side holds unsynced changes. Free on a one-space DualView. Through a subview, only its region is marked (docs/SEMANTICS.md, `modify(X)` row).
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_modify_host(dv: *const dv_dualview_t) -> dv_status_t {
    modify(dv, Side::Host, "dv_modify_host")
}

/// Mark the device side modified. `DV_ERROR_CONCURRENT_MODIFICATION` (flags unchanged; the message names the label) when the other side holds unsynced changes. Free on a one-space DualView. Through a subview, only its region is marked (docs/SEMANTICS.md, `modify(X)` row).
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_modify_device(dv: *const dv_dualview_t) -> dv_status_t {
    modify(dv, Side::Device, "dv_modify_device")
}

/// Bring the host side of this handle's box up to date: copy the elements the device holds newer, and nothing else (docs/SEMANTICS.md, `sync(X)` row); Kokkos' counters clear as in Kokkos. Waits for outstanding device work first (a Kokkos fence). `DV_ERROR_CONST_SYNC` through a const handle that would have to copy; `DV_ERROR_STALE` through a subview of a resized parent.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_host(dv: *const dv_dualview_t) -> dv_status_t {
    sync(dv, Side::Host, "dv_sync_host")
}

/// Bring the device side of this handle's box up to date: copy the elements the host holds newer, and nothing else (docs/SEMANTICS.md, `sync(X)` row); Kokkos' counters clear as in Kokkos. Waits for outstanding device work first (a Kokkos fence). `DV_ERROR_CONST_SYNC` through a const handle that would have to copy; `DV_ERROR_STALE` through a subview of a resized parent.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_device(dv: *const dv_dualview_t) -> dv_status_t {
    sync(dv, Side::Device, "dv_sync_device")
}

/// The host side of this handle's region was just written: `dv_modify_host`
/// then `dv_sync_device` through the handle, in one call (blocking): the
/// region is copied to the device, and nothing outside it moves (docs/MPI.md;
/// DECISIONS D32). `DV_ERROR_CONCURRENT_MODIFICATION` where `dv_modify_host`
/// answers it (Kokkos' device counter set); `DV_ERROR_INVALID_ARGUMENT`
/// through a const handle; `DV_ERROR_STALE` through a subview of a resized parent.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_push_host(dv: *const dv_dualview_t) -> dv_status_t {
    call(function!(), || self::dv(dv, "dv")?.push(Side::Host))
}

/// As `dv_push_host`, the other way: the device side of this handle's region
/// was just written; copy it to the host now.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_push_device(dv: *const dv_dualview_t) -> dv_status_t {
    call(function!(), || self::dv(dv, "dv")?.push(Side::Device))
}

/// Like `dv_sync_host`, but the copy is queued on `stream` (a `CUstream` / `cudaStream_t`; NULL is the default stream) and the flags are reset at once (Kokkos `sync(exec)`). Never waits for device work, whatever the size (small or pageable copies are staged through pinned memory). The stream is first ordered after this DualView's copies in flight that touch this handle's region. Until the stream has run the copy, `dv_sync_*`, `dv_*_access`, fills, copies and resizes of this DualView wait for it: its data is never read early through them (`h_view` / `dv_host_view` pointers read it as it is: synchronise the stream, as in Kokkos).
///
/// # Safety
/// `dv` is a handle or NULL; `stream` is NULL or a live stream.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_host_async(dv: *const dv_dualview_t, stream: *mut c_void) -> dv_status_t {
    sync_async(dv, Side::Host, stream, "dv_sync_host_async")
}

/// Like `dv_sync_device`, but the copy is queued on `stream`: see `dv_sync_host_async`. Kernels ordered on the same stream see the data.
///
/// # Safety
/// `dv` is a handle or NULL; `stream` is NULL or a live stream.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_device_async(dv: *const dv_dualview_t, stream: *mut c_void) -> dv_status_t {
    sync_async(dv, Side::Device, stream, "dv_sync_device_async")
}

/// `*out` = whether the host side is stale (the device is newer). Always false on one space. `DV_ERROR_STALE` through a subview of a resized parent.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_need_sync_host(dv: *const dv_dualview_t, out: *mut bool) -> dv_status_t {
    need_sync(dv, Side::Host, out, "dv_need_sync_host")
}

/// `*out` = whether the device side is stale (the host is newer). Always false on one space. `DV_ERROR_STALE` through a subview of a resized parent.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_need_sync_device(dv: *const dv_dualview_t, out: *mut bool) -> dv_status_t {
    need_sync(dv, Side::Device, out, "dv_need_sync_device")
}

/// Forget both sides' pending changes, without copying. Refused
/// (`DV_ERROR_INVALID_ARGUMENT`) through a const handle, since it would drop
/// another handle's changes; `DV_ERROR_STALE` through a stale subview.
///
/// # Safety
/// `dv` is a handle or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_clear_sync_state(dv: *const dv_dualview_t) -> dv_status_t {
    call(function!(), || self::dv(dv, "dv")?.clear_sync_state())
}

/// `*out` = the address of the DualView's sync-state byte (`DV_SYNC_*`),
/// valid while any handle of the DualView lives. Read it with an atomic
/// acquire load. The C++ wrapper reads it inline so that `need_sync_*` and
/// no-op `modify_*` / `sync_*` cost one load. Writes are the wrapper's alone,
/// under the rules of docs/DECISIONS.md ("inline flag writes"): atomic
/// compare-exchange of a whole-array modify or a clear, on a handle that is
/// neither a subview nor const, while no DualView tool hook is set.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_sync_state_word(dv: *const dv_dualview_t, out: *mut *const u8) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let o = super::boundary::out(out, "out")?;
        put(o, d.sync_state_ptr());
        Ok(())
    })
}

// ---- data pointers and access ------------------------------------------------------

/// `*out` = the host data pointer (the element at index 0). No sync and no flags: prefer `dv_host_access`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_host_ptr(dv: *const dv_dualview_t, out: *mut *mut c_void) -> dv_status_t {
    data_ptr(dv, Side::Host, out, "dv_host_ptr")
}

/// `*out` = the device data pointer (the element at index 0). No sync and no flags: prefer `dv_device_access`.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_ptr(dv: *const dv_dualview_t, out: *mut *mut c_void) -> dv_status_t {
    data_ptr(dv, Side::Device, out, "dv_device_ptr")
}

/// Access the host side with `mode` (`DV_ACCESS_READ`, `DV_ACCESS_WRITE`, `DV_ACCESS_READ_WRITE`, `DV_ACCESS_OVERWRITE`) and get its data pointer in `*out`: a stale side is synced first (except for `DV_ACCESS_OVERWRITE`, which drops the other side's pending change; a subview syncs even then), and any write mode marks the side modified. No silent stale data. Write modes are refused through a const handle.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_host_access(dv: *const dv_dualview_t, mode: u32, out: *mut *mut c_void) -> dv_status_t {
    access(dv, Side::Host, mode, out, "dv_host_access")
}

/// Access the device side with `mode` (`DV_ACCESS_READ`, `DV_ACCESS_WRITE`, `DV_ACCESS_READ_WRITE`, `DV_ACCESS_OVERWRITE`) and get its data pointer in `*out`: a stale side is synced first (except for `DV_ACCESS_OVERWRITE`, which drops the other side's pending change; a subview syncs even then), and any write mode marks the side modified. No silent stale data. Write modes are refused through a const handle.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_access(dv: *const dv_dualview_t, mode: u32, out: *mut *mut c_void) -> dv_status_t {
    access(dv, Side::Device, mode, out, "dv_device_access")
}

/// `*out` = the host view: data pointer, rank, layout, space, extents, strides and span. No sync, no flags.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_host_view(dv: *const dv_dualview_t, out: *mut dv_view_info_t) -> dv_status_t {
    view(dv, Side::Host, out, "dv_host_view")
}

/// `*out` = the device view: data pointer, rank, layout, space, extents, strides and span. No sync, no flags.
///
/// # Safety
/// `dv` is a handle or NULL; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_view(dv: *const dv_dualview_t, out: *mut dv_view_info_t) -> dv_status_t {
    view(dv, Side::Device, out, "dv_device_view")
}

/// Set every host element of this handle to `*value` (one element's bytes) **and mark the host modified** (Kokkos `deep_copy(h_view, x)` + `modify_host()` in one call). `DV_ERROR_CONCURRENT_MODIFICATION` when the device is newer; nothing changes then. (`dv_view_fill` fills without touching flags.)
///
/// # Safety
/// `dv` is a handle or NULL; `value` points to one element.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_fill_and_modify_host(dv: *const dv_dualview_t, value: *const c_void) -> dv_status_t {
    fill_and_modify(dv, Side::Host, value, "dv_fill_and_modify_host")
}

/// Set every device element of this handle to `*value` (one element's bytes) **and mark the device modified** (Kokkos `deep_copy(d_view, x)` + `modify_device()` in one call). `DV_ERROR_CONCURRENT_MODIFICATION` when the host is newer; nothing changes then. (`dv_view_fill` fills without touching flags.)
///
/// # Safety
/// `dv` is a handle or NULL; `value` points to one element.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_fill_and_modify_device(dv: *const dv_dualview_t, value: *const c_void) -> dv_status_t {
    fill_and_modify(dv, Side::Device, value, "dv_fill_and_modify_device")
}

// ---- reallocation ------------------------------------------------------------------

/// Kokkos `realloc`: new extents of the same rank, contents dropped, both
/// sides zero-filled (also at the same size, which keeps the allocation),
/// flags clean. Errors: RANK_MISMATCH, OVERFLOW, OUT_OF_MEMORY (the DualView
/// is then unchanged), UNMANAGED, INVALID_ARGUMENT for a subview or a const handle.
///
/// # Safety
/// `dv` is a handle or NULL; `extents` points to a `dv_extents_t`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_realloc(dv: *const dv_dualview_t, extents: *const dv_extents_t) -> dv_status_t {
    call(function!(), || {
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
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let e = extents_from(read(extents, "extents")?, "extents")?;
        d.realloc(&e, false)
    })
}

/// Kokkos `resize`, fixed: new extents of the same rank; in the overlapping
/// index range each side keeps what it holds newest or clean, and an element
/// newer on the other side stays stale there (docs/SEMANTICS.md, `resize(extents)`
/// row; DECISIONS D3); new elements are zero; flags unchanged; subviews of the old
/// shape become stale. On error (RANK_MISMATCH,
/// OVERFLOW, OUT_OF_MEMORY, UNMANAGED, INVALID_ARGUMENT for a subview or a
/// const handle) nothing changes.
///
/// # Safety
/// `dv` is a handle or NULL; `extents` points to a `dv_extents_t`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_resize(dv: *const dv_dualview_t, extents: *const dv_extents_t) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let e = extents_from(read(extents, "extents")?, "extents")?;
        d.resize(&e)
    })
}

/// Kokkos-style resize into a new DualView: `*out` gets the same label,
/// element, layout and spaces with `extents`, the overlapping index range as
/// `dv_resize` keeps it (each side what it holds newest or clean) and the
/// flags of `src`. `src` and its handles, views and
/// pointers are untouched (the C++ wrapper's value semantics use this).
/// Release `*out` with `dv_destroy`. Errors: RANK_MISMATCH, OVERFLOW,
/// OUT_OF_MEMORY, INVALID_ARGUMENT for a subview.
///
/// # Safety
/// `src` is a handle or NULL; `extents` points to a `dv_extents_t`; `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_resized(src: *const dv_dualview_t, extents: *const dv_extents_t, out: *mut *mut dv_dualview_t) -> dv_status_t {
    call(function!(), || {
        let e = handle::get(src, "src")?;
        let x = extents_from(read(extents, "extents")?, "extents")?;
        let out = super::boundary::out(out, "out")?;
        let dv = e.dv.resized(&x)?;
        new_handle(out, e.with(dv))
    })
}

// ---- copies -------------------------------------------------------------------------

/// Kokkos `deep_copy(View, View)`: copy one side's view of `src` into one
/// side's view of `dst` (`DV_SIDE_HOST` / `DV_SIDE_DEVICE`), across spaces and
/// layouts. Touches **no flags**. Serialised with every other data-moving call
/// on either DualView. Errors: INCOMPATIBLE (extents or element sizes), STALE,
/// INVALID_ARGUMENT when `dst` is const, BUSY while a Rust guard holds the data.
///
/// # Safety
/// `dst` and `src` are handles or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_view_copy(dst: *const dv_dualview_t, dst_side: u32, src: *const dv_dualview_t, src_side: u32) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        let (ds, ss) = (side_from(dst_side, "dst_side")?, side_from(src_side, "src_side")?);
        RawDualView::view_copy(d, ds, s, ss)
    })
}

/// Like `dv_view_copy`, but queued on `stream` (a `CUstream` / `cudaStream_t`; NULL: the
/// default stream, as `dv_view_copy`): Kokkos `deep_copy(exec, dst, src)`. Returns once
/// queued; the stream is first ordered after the copies in flight that touch either
/// view, and `dst`'s DualView waits for this one in its blocking calls (as after
/// `dv_sync_host_async`). Do not write `src` until the stream has run the copy (Kokkos
/// semantics).
///
/// # Safety
/// `dst` and `src` are handles or NULL; `stream` is NULL or a live stream of the device.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_view_copy_async(
    dst: *const dv_dualview_t,
    dst_side: u32,
    src: *const dv_dualview_t,
    src_side: u32,
    stream: *mut c_void,
) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        let (ds, ss) = (side_from(dst_side, "dst_side")?, side_from(src_side, "src_side")?);
        RawDualView::view_copy_on(d, ds, s, ss, Stream::from_raw(stream as usize))
    })
}

/// Kokkos `deep_copy(View, scalar)`: set every element of one side's view to
/// `*value` (one element's bytes). Touches **no flags** (`dv_fill_and_modify_*`
/// also marks the side). Refused through a const handle. Kokkos Tools sees
/// it as Kokkos reports the fill: `begin_deep_copy` (destination: the view's
/// space and label; source: `Host`, `"Scalar"`, `value`; `span * element
/// size` bytes), then `end_deep_copy`.
///
/// # Safety
/// `dv` is a handle or NULL; `value` points to one element.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_view_fill(dv: *const dv_dualview_t, side: u32, value: *const c_void) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dv, "dv")?;
        let side = side_from(side, "side")?;
        d.view_fill(side, element(d, value)?)
    })
}

/// Kokkos `deep_copy(dst, src)` between DualViews: if `src`'s host is newer,
/// copy host to host and mark `dst`'s host modified; otherwise copy device to
/// device and mark `dst`'s device modified. Errors: INCOMPATIBLE (shapes or
/// element sizes), CONCURRENT_MODIFICATION (that side of `dst` is stale),
/// INVALID_ARGUMENT when `dst` is const.
///
/// # Safety
/// `dst` and `src` are handles or NULL.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_deep_copy(dst: *const dv_dualview_t, src: *const dv_dualview_t) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        RawDualView::deep_copy(d, s)
    })
}

/// Like `dv_deep_copy`, but queued on `stream` (NULL: as `dv_deep_copy`): Kokkos
/// `deep_copy(exec, dst, src)` of DualViews. `dst` is marked at once and waits for the
/// copy in its blocking calls; do not write `src` until the stream has run it.
///
/// # Safety
/// `dst` and `src` are handles or NULL; `stream` is NULL or a live stream of the device.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_deep_copy_async(dst: *const dv_dualview_t, src: *const dv_dualview_t, stream: *mut c_void) -> dv_status_t {
    call(function!(), || {
        let d = self::dv(dst, "dst")?;
        let s = self::dv(src, "src")?;
        RawDualView::deep_copy_on(d, s, Stream::from_raw(stream as usize))
    })
}
