//! Status codes of the C ABI: one per error kind, numbers never reused.

use crate::error::ErrorKind;

/// The result of every fallible C call. `DV_OK` is 0; each error has its own
/// code; the message of the last error on the calling thread is `dv_last_error()`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum dv_status_t {
    /// Success.
    DV_OK = 0,
    /// A required pointer argument was NULL.
    DV_ERROR_NULL_ARGUMENT = 1,
    /// A malformed argument: unknown enum value, bad strides, element size, const write...
    DV_ERROR_INVALID_ARGUMENT = 2,
    /// A destroyed, never-created or foreign handle.
    DV_ERROR_INVALID_HANDLE = 3,
    /// A rank above `DV_MAX_RANK` (8).
    DV_ERROR_RANK = 4,
    /// An axis, index or range outside the extents.
    DV_ERROR_OUT_OF_RANGE = 5,
    /// An extents product or byte size that overflows.
    DV_ERROR_OVERFLOW = 6,
    /// An allocation failed (host or device); nothing was changed.
    DV_ERROR_OUT_OF_MEMORY = 7,
    /// A modify of one side while the other side holds unsynced changes.
    DV_ERROR_CONCURRENT_MODIFICATION = 8,
    /// A sync through a const handle that would have to copy.
    DV_ERROR_CONST_SYNC = 9,
    /// Shapes, element sizes or spaces that do not fit together.
    DV_ERROR_INCOMPATIBLE = 10,
    /// A CUDA space on a machine without a driver or without that device.
    DV_ERROR_NO_DEVICE = 11,
    /// A CUDA driver call failed; the message has the driver's error name and text.
    DV_ERROR_DEVICE = 12,
    /// A bug in dualview (including a caught panic).
    DV_ERROR_INTERNAL = 13,
    /// A wrong number of values, or a resize/realloc to another rank.
    DV_ERROR_RANK_MISMATCH = 14,
    /// A value that contradicts a static extent.
    DV_ERROR_STATIC_MISMATCH = 15,
    /// resize/realloc of caller-owned memory (`dv_wrap`).
    DV_ERROR_UNMANAGED = 16,
    /// A subview made before its parent was resized or reallocated.
    DV_ERROR_STALE = 17,
    /// The data is borrowed by a Rust access guard.
    DV_ERROR_BUSY = 18,
}

impl dv_status_t {
    /// The status of an error kind.
    pub(crate) fn of(kind: ErrorKind) -> dv_status_t {
        use dv_status_t::*;
        match kind {
            ErrorKind::InvalidArgument => DV_ERROR_INVALID_ARGUMENT,
            ErrorKind::RankTooLarge => DV_ERROR_RANK,
            ErrorKind::RankMismatch => DV_ERROR_RANK_MISMATCH,
            ErrorKind::StaticMismatch => DV_ERROR_STATIC_MISMATCH,
            ErrorKind::OutOfRange => DV_ERROR_OUT_OF_RANGE,
            ErrorKind::Overflow => DV_ERROR_OVERFLOW,
            ErrorKind::OutOfMemory => DV_ERROR_OUT_OF_MEMORY,
            ErrorKind::ConcurrentModification => DV_ERROR_CONCURRENT_MODIFICATION,
            ErrorKind::ConstSync => DV_ERROR_CONST_SYNC,
            ErrorKind::Incompatible => DV_ERROR_INCOMPATIBLE,
            ErrorKind::Unmanaged => DV_ERROR_UNMANAGED,
            ErrorKind::Stale => DV_ERROR_STALE,
            ErrorKind::Busy => DV_ERROR_BUSY,
            ErrorKind::NoDevice => DV_ERROR_NO_DEVICE,
            ErrorKind::Device => DV_ERROR_DEVICE,
            ErrorKind::Internal => DV_ERROR_INTERNAL,
            ErrorKind::NullArgument => DV_ERROR_NULL_ARGUMENT,
            ErrorKind::InvalidHandle => DV_ERROR_INVALID_HANDLE,
        }
    }

    fn name(self) -> &'static std::ffi::CStr {
        use dv_status_t::*;
        match self {
            DV_OK => c"DV_OK: success",
            DV_ERROR_NULL_ARGUMENT => c"DV_ERROR_NULL_ARGUMENT: a required pointer was NULL",
            DV_ERROR_INVALID_ARGUMENT => c"DV_ERROR_INVALID_ARGUMENT: malformed argument",
            DV_ERROR_INVALID_HANDLE => c"DV_ERROR_INVALID_HANDLE: destroyed, never-created or foreign handle",
            DV_ERROR_RANK => c"DV_ERROR_RANK: rank above 8",
            DV_ERROR_OUT_OF_RANGE => c"DV_ERROR_OUT_OF_RANGE: axis, index or range out of range",
            DV_ERROR_OVERFLOW => c"DV_ERROR_OVERFLOW: size overflow",
            DV_ERROR_OUT_OF_MEMORY => c"DV_ERROR_OUT_OF_MEMORY: allocation failed",
            DV_ERROR_CONCURRENT_MODIFICATION => c"DV_ERROR_CONCURRENT_MODIFICATION: both sides modified",
            DV_ERROR_CONST_SYNC => c"DV_ERROR_CONST_SYNC: sync into const data",
            DV_ERROR_INCOMPATIBLE => c"DV_ERROR_INCOMPATIBLE: incompatible shapes, elements or spaces",
            DV_ERROR_NO_DEVICE => c"DV_ERROR_NO_DEVICE: no CUDA driver or device",
            DV_ERROR_DEVICE => c"DV_ERROR_DEVICE: CUDA driver error",
            DV_ERROR_INTERNAL => c"DV_ERROR_INTERNAL: internal error",
            DV_ERROR_RANK_MISMATCH => c"DV_ERROR_RANK_MISMATCH: wrong rank or number of values",
            DV_ERROR_STATIC_MISMATCH => c"DV_ERROR_STATIC_MISMATCH: value contradicts a static extent",
            DV_ERROR_UNMANAGED => c"DV_ERROR_UNMANAGED: caller-owned memory cannot be reallocated",
            DV_ERROR_STALE => c"DV_ERROR_STALE: subview of a resized parent",
            DV_ERROR_BUSY => c"DV_ERROR_BUSY: data borrowed by an access guard",
        }
    }

    /// The status for a raw value coming back from C (unknown values give `None`).
    pub(crate) fn from_raw(v: i32) -> Option<dv_status_t> {
        use dv_status_t::*;
        const ALL: [dv_status_t; 19] = [
            DV_OK,
            DV_ERROR_NULL_ARGUMENT,
            DV_ERROR_INVALID_ARGUMENT,
            DV_ERROR_INVALID_HANDLE,
            DV_ERROR_RANK,
            DV_ERROR_OUT_OF_RANGE,
            DV_ERROR_OVERFLOW,
            DV_ERROR_OUT_OF_MEMORY,
            DV_ERROR_CONCURRENT_MODIFICATION,
            DV_ERROR_CONST_SYNC,
            DV_ERROR_INCOMPATIBLE,
            DV_ERROR_NO_DEVICE,
            DV_ERROR_DEVICE,
            DV_ERROR_INTERNAL,
            DV_ERROR_RANK_MISMATCH,
            DV_ERROR_STATIC_MISMATCH,
            DV_ERROR_UNMANAGED,
            DV_ERROR_STALE,
            DV_ERROR_BUSY,
        ];
        ALL.iter().copied().find(|s| *s as i32 == v)
    }
}

/// A static, NUL-terminated description of a status code ("unknown status"
/// for values that are not a `dv_status_t`). Never NULL; never free it.
#[unsafe(no_mangle)]
pub extern "C" fn dv_status_str(status: i32) -> *const std::ffi::c_char {
    match dv_status_t::from_raw(status) {
        Some(s) => s.name().as_ptr(),
        None => c"unknown status".as_ptr(),
    }
}
