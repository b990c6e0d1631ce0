//! Memory spaces and devices in the C ABI: the policy table, whether a space
//! is usable here and on how many devices, fences, element-type names and the
//! library version.

use super::boundary::{call, function, optional_text, put, stream_destroy};
use super::status::dv_status_t;
use super::types::*;
use crate::element::Dtype;
use crate::space::{Space, SpaceKind};
use std::ffi::{c_char, c_void};

/// `*out` = what memory space `space` (`DV_SPACE_*`) means for DualViews:
/// whether the host can read it, whether it needs a separate mirror, its
/// default layout and the host side a DualView over it gets. The C++ space
/// tags and the Fortran module follow this table; answers on any machine.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_space_info(space: u32, out: *mut dv_space_info_t) -> dv_status_t {
    call(function!(), || {
        let kind = SpaceKind::try_from(space).map_err(|e| about("space", e))?;
        let o = super::boundary::out(out, "out")?;
        let p = kind.policy();
        put(
            o,
            dv_space_info_t {
                host_accessible: p.host_accessible,
                needs_mirror: p.needs_mirror,
                unified: p.unified,
                is_device: p.is_device,
                default_layout: p.default_layout as u32,
                host_side: Space::new(kind, 0).host_side().kind() as u32,
            },
        );
        Ok(())
    })
}

/// Wait for all outstanding work of device `ordinal` in `space` (`DV_SPACE_*`;
/// host spaces return at once). Kokkos `fence()`: dualview's own syncs already
/// fence; this is for the caller's kernels. Reported to Kokkos Tools as a fence
/// named `name` (NULL: "dualview::fence").
///
/// # Safety
/// `name` is NULL or NUL-terminated.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_fence(space: u32, ordinal: u32, name: *const c_char) -> dv_status_t {
    call(function!(), || {
        let space = space_from(space, ordinal, "space")?;
        // Borrowed, not copied: a fence allocates nothing (the tiny round trip's, issue 45).
        let name = optional_text(name);
        crate::tools::fenced(name.as_deref().unwrap_or("dualview::fence"), ordinal, || crate::memory::fence(space))
    })
}

/// Create a stream on device `ordinal` of `space` (`DV_SPACE_*`) in `*out`: a
/// `CUstream` that does not wait for the default stream (CUDA), a stream of the
/// test device (its copies run on a worker thread, after `dv_test_device_set_stream_delay`),
/// or NULL for host spaces (their work completes on return). Kokkos
/// `partition_space`. Release it with `dv_stream_destroy`.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stream_create(space: u32, ordinal: u32, out: *mut *mut c_void) -> dv_status_t {
    call(function!(), || {
        let out = super::boundary::out(out, "out")?;
        let space = space_from(space, ordinal, "space")?;
        let s = crate::memory::stream::create(space)?;
        put(out, s.as_raw() as *mut c_void);
        Ok(())
    })
}

/// Release a stream from `dv_stream_create` (the same `space` and `ordinal`);
/// work queued on it still runs. NULL does nothing.
///
/// # Safety
/// `stream` is NULL or came from `dv_stream_create` and is not used afterwards.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stream_destroy(space: u32, ordinal: u32, stream: *mut c_void) -> dv_status_t {
    call(function!(), || {
        let space = space_from(space, ordinal, "space")?;
        stream_destroy(space, stream)
    })
}

/// Wait for the work queued on `stream` of device `ordinal` of `space` (Kokkos
/// `exec.fence()`). NULL: the whole device (`dv_fence`).
///
/// # Safety
/// `stream` is NULL or a live stream of that device.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_stream_fence(space: u32, ordinal: u32, stream: *mut c_void) -> dv_status_t {
    call(function!(), || {
        let space = space_from(space, ordinal, "space")?;
        crate::memory::stream::fence(space, crate::space::Stream::from_raw(stream as usize))
    })
}

/// Make every copy queued on a stream of test device `ordinal` (from
/// `dv_stream_create`) wait `micros` microseconds before it runs, as a copy
/// behind a long kernel does: tests of code that reads data too early. 0 by default.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_test_device_set_stream_delay(ordinal: u32, micros: u64) -> dv_status_t {
    call(function!(), || crate::memory::test_device::set_stream_delay(ordinal, std::time::Duration::from_micros(micros)))
}

/// `*out` = whether memory space `space` (`DV_SPACE_*`) on device `ordinal`
/// (ignored by host spaces) can be used here: what `dv_create` with that space
/// and ordinal would find (a CUDA space needs a driver and the device; a
/// test device an ordinal below 64). Answers on any machine; a space that
/// cannot be used is `false`, not an error.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_space_available(space: u32, ordinal: u32, out: *mut bool) -> dv_status_t {
    call(function!(), || {
        let space = space_from(space, ordinal, "space")?;
        let o = super::boundary::out(out, "out")?;
        put(o, space.probe().is_ok());
        Ok(())
    })
}

/// `*out` = how many devices of memory space `space` (`DV_SPACE_*`) this
/// process can use: ordinals `0` to `*out - 1`. A host space counts 1 when it
/// is usable here, 0 otherwise (pinned memory needs a CUDA device). 0 without
/// a driver. Answers on any machine.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_space_device_count(space: u32, out: *mut usize) -> dv_status_t {
    call(function!(), || {
        let kind = SpaceKind::try_from(space).map_err(|e| about("space", e))?;
        let o = super::boundary::out(out, "out")?;
        put(o, kind.device_count());
        Ok(())
    })
}

/// `*out` = whether a CUDA driver with at least one device is usable
/// (`dv_space_device_count(DV_SPACE_CUDA) > 0`). Answers on any machine.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_cuda_available(out: *mut bool) -> dv_status_t {
    call(function!(), || {
        let o = super::boundary::out(out, "out")?;
        put(o, SpaceKind::Cuda.device_count() > 0);
        Ok(())
    })
}

/// `*out` = the number of CUDA devices (0 without a driver;
/// `dv_space_device_count(DV_SPACE_CUDA)` as an `int32_t`). Answers on any machine.
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_device_count(out: *mut i32) -> dv_status_t {
    call(function!(), || {
        let o = super::boundary::out(out, "out")?;
        put(o, SpaceKind::Cuda.device_count().min(i32::MAX as usize) as i32);
        Ok(())
    })
}

/// A static name of element type `dtype` (`DV_DTYPE_*`), with its C and
/// Fortran spellings, e.g. "float64 (double, real64)"; "unknown dtype" for
/// other values. Never NULL; never free it.
#[unsafe(no_mangle)]
pub extern "C" fn dv_dtype_str(dtype: u32) -> *const c_char {
    match Dtype::try_from(dtype) {
        Ok(d) => DTYPE_NAMES[d as usize].as_ptr(),
        Err(_) => c"unknown dtype".as_ptr(),
    }
}

/// NUL-terminated copies of `Dtype::name()`, indexed by value.
static DTYPE_NAMES: std::sync::LazyLock<Vec<std::ffi::CString>> = std::sync::LazyLock::new(|| {
    let mut v: Vec<std::ffi::CString> = Vec::new();
    for d in Dtype::ALL {
        let i = *d as usize;
        if v.len() <= i {
            v.resize(i + 1, std::ffi::CString::default());
        }
        v[i] = std::ffi::CString::new(d.name()).unwrap_or_default();
    }
    v
});

/// The library version, "MAJOR.MINOR.PATCH". Never NULL; do not free.
#[unsafe(no_mangle)]
pub extern "C" fn dv_version() -> *const c_char {
    const V: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
    V.as_ptr()
}
