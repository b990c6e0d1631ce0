//! The ABI table: every number that crosses the C boundary, written once.
//!
//! cbindgen copies the constants and `dv_status_t` below into
//! `include/dualview.h`; the Fortran generator reads them from that header;
//! the C++ wrapper uses the header's macros. The Rust enums of the core
//! ([`Layout`](crate::Layout), [`SpaceKind`](crate::SpaceKind),
//! [`Access`](crate::Access), [`Side`](crate::Side),
//! [`ErrorKind`](crate::ErrorKind), [`Dtype`](crate::element::Dtype)) are
//! declared with `abi_enum!` over these constants, so their discriminants,
//! `TryFrom<u32>` and names cannot drift from the header. `tests/abi.rs`
//! checks that the four languages agree (docs/ARCHITECTURE.md).
//!
//! Numbers are never reused; a retired value stays reserved.

#![allow(missing_docs)] // each constant's doc is its header comment

/// The highest rank.
pub const DV_MAX_RANK: u32 = 8;

/// Element type: raw bytes of `elem_size` (aligned to `elem_align`).
pub const DV_DTYPE_BYTES: u32 = 0;
/// Element type: `int8_t`.
pub const DV_DTYPE_INT8: u32 = 1;
/// Element type: `int16_t`.
pub const DV_DTYPE_INT16: u32 = 2;
/// Element type: `int32_t`.
pub const DV_DTYPE_INT32: u32 = 3;
/// Element type: `int64_t`.
pub const DV_DTYPE_INT64: u32 = 4;
/// Element type: `uint8_t`.
pub const DV_DTYPE_UINT8: u32 = 5;
/// Element type: `uint16_t`.
pub const DV_DTYPE_UINT16: u32 = 6;
/// Element type: `uint32_t`.
pub const DV_DTYPE_UINT32: u32 = 7;
/// Element type: `uint64_t`.
pub const DV_DTYPE_UINT64: u32 = 8;
/// Element type: `float`.
pub const DV_DTYPE_FLOAT32: u32 = 9;
/// Element type: `double`.
pub const DV_DTYPE_FLOAT64: u32 = 10;
/// Element type: `float _Complex` (two floats).
pub const DV_DTYPE_COMPLEX64: u32 = 11;
/// Element type: `double _Complex` (two doubles).
pub const DV_DTYPE_COMPLEX128: u32 = 12;

/// Column-major (Kokkos `LayoutLeft`, Fortran order).
pub const DV_LAYOUT_LEFT: u32 = 0;
/// Row-major (Kokkos `LayoutRight`, C order).
pub const DV_LAYOUT_RIGHT: u32 = 1;
/// Explicit strides (`dv_desc_t.strides`, in elements).
pub const DV_LAYOUT_STRIDE: u32 = 2;

/// Host memory.
pub const DV_SPACE_HOST: u32 = 0;
/// Page-locked host memory (needs CUDA).
pub const DV_SPACE_HOST_PINNED: u32 = 1;
/// CUDA device memory.
pub const DV_SPACE_CUDA: u32 = 2;
/// CUDA managed (UVM) memory.
pub const DV_SPACE_CUDA_UVM: u32 = 3;
/// Host memory posing as a device with its own allocation, for tests without a GPU.
pub const DV_SPACE_TEST_DEVICE: u32 = 4;

/// `dv_desc_t.flags`: do not zero-fill (Kokkos `WithoutInitializing`).
pub const DV_FLAG_WITHOUT_INITIALIZING: u32 = 1;
/// `dv_desc_t.flags`: put the host mirror in pinned memory (needs CUDA).
pub const DV_FLAG_PINNED_HOST: u32 = 2;
/// `dv_desc_t.flags`: one allocation in `space` and no mirror (a Kokkos `View`):
/// the host and device views of the handle are the same memory.
pub const DV_FLAG_SINGLE_SPACE: u32 = 4;
/// `dv_desc_t.flags`: keep the host mirror pageable (never registered with the device's driver, as a CUDA DualView's is).
pub const DV_FLAG_PAGEABLE_HOST: u32 = 8;
/// `dv_desc_t.flags`: checked mode for this DualView (as `DV_CHECK=1` does for
/// all): every flag call verifies that no side changed where it was not marked
/// modified (`DV_ERROR_UNMARKED_CHANGE`; docs/SEMANTICS.md "Checked mode").
pub const DV_FLAG_CHECKED: u32 = 16;
/// `dv_desc_t.flags`: every `DV_FLAG_*` bit; a descriptor with any other bit is refused.
pub const DV_FLAG_ALL: u32 = DV_FLAG_WITHOUT_INITIALIZING | DV_FLAG_PINNED_HOST | DV_FLAG_SINGLE_SPACE | DV_FLAG_PAGEABLE_HOST | DV_FLAG_CHECKED;

/// Access mode: read (sync first if stale).
pub const DV_ACCESS_READ: u32 = 1;
/// Access mode: write (sync first if stale, then mark modified: nothing is
/// lost, as a SYCL 2020 `write` accessor; until 0.3 it dropped the other
/// side's change, which is `DV_ACCESS_OVERWRITE` now).
pub const DV_ACCESS_WRITE: u32 = 2;
/// Access mode: read and write (sync first if stale, then mark modified).
pub const DV_ACCESS_READ_WRITE: u32 = 3;
/// Access mode: overwrite everything without reading (no copy: the other
/// side's pending change is discarded; SYCL's `no_init`). Through a subview,
/// which overwrites only part, the stale side is synced first.
pub const DV_ACCESS_OVERWRITE: u32 = 4;

/// A side of a DualView: the host mirror.
pub const DV_SIDE_HOST: u32 = 0;
/// A side of a DualView: the device view.
pub const DV_SIDE_DEVICE: u32 = 1;

/// Subview argument: the whole axis (`Kokkos::ALL`).
pub const DV_ALL: u32 = 0;
/// Subview argument: the range `[begin, end)`; keeps the axis.
pub const DV_RANGE: u32 = 1;
/// Subview argument: the index `begin`; removes the axis.
pub const DV_INDEX: u32 = 2;

/// Squeeze mode: drop every extent of 1 (numpy).
pub const DV_SQUEEZE_NUMPY: u32 = 0;
/// Squeeze mode: GNU Octave / uBLAS rule (keep at least two axes).
pub const DV_SQUEEZE_OCTAVE: u32 = 1;

/// Sync state (`dv_sync_state_word`): every element clean (both sides hold
/// its newest value) and Kokkos' two modified counters zero.
pub const DV_SYNC_CLEAN: u8 = 0;
/// Sync state bit: Kokkos' host counter is non-zero (a host modify not yet
/// followed by a sync): `need_sync_device()` answers true, and a device
/// modify is a concurrent modification, as in Kokkos.
pub const DV_SYNC_HOST_MODIFIED: u8 = 1;
/// Sync state bit: Kokkos' device counter is non-zero.
pub const DV_SYNC_DEVICE_MODIFIED: u8 = 2;
/// Sync state bit: some element is newer on the host (the coherence map).
pub const DV_SYNC_HOST_NEWER: u8 = 4;
/// Sync state bit: some element is newer on the device.
pub const DV_SYNC_DEVICE_NEWER: u8 = 8;
/// Sync state bit: the elements are not all in one state; the library holds
/// which are where. Without it, every element is host-newer
/// (`DV_SYNC_HOST_NEWER`), device-newer (`DV_SYNC_DEVICE_NEWER`) or clean.
pub const DV_SYNC_PARTIAL: u8 = 16;
/// Sync state bit: copies queued on a stream (`dv_sync_*_async`) may still be
/// running. Blocking syncs, access calls and fences wait for them first; the
/// C++ inline fast paths leave such a byte to the library.
pub const DV_SYNC_IN_FLIGHT: u8 = 32;
/// Sync state: one memory space; modify and sync do nothing (the whole byte).
pub const DV_SYNC_ONE_SPACE: u8 = 64;

/// `dv_info_t.bits`: host and device are one space (modify and sync do nothing).
pub const DV_INFO_SINGLE_SPACE: u32 = 1;
/// `dv_info_t.bits`: host and device views are one allocation (single space or managed memory).
pub const DV_INFO_ONE_ALLOCATION: u32 = 2;
/// `dv_info_t.bits`: the handle's data is const (`dv_clone_const`).
pub const DV_INFO_CONST: u32 = 4;
/// `dv_info_t.bits`: the handle is a subview.
pub const DV_INFO_SUBVIEW: u32 = 8;
/// `dv_info_t.bits`: dualview owns the memory (not `dv_wrap`).
pub const DV_INFO_OWNED: u32 = 16;
/// `dv_info_t.bits`: a subview made before its parent was resized or reallocated.
pub const DV_INFO_STALE: u32 = 32;
/// `dv_info_t.bits`: the host mirror is page-locked now (a pinned space, or a
/// mirror registered with the device's driver, CUDA's, by its first copying
/// sync at the latest; after a resize, from 64 MiB, by its second when the
/// first was one large copy), so copies run at pinned speed.
pub const DV_INFO_MIRROR_PINNED: u32 = 64;
/// `dv_info_t.bits`: checked mode (`DV_FLAG_CHECKED` or `DV_CHECK=1`): every
/// modify and sync goes through the library, which verifies the sides.
pub const DV_INFO_CHECKED: u32 = 128;

/// The result of every fallible C call. `DV_OK` is 0; each error has its own
/// code; the message of the last error on the calling thread is `dv_last_error()`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum dv_status_t {
    /// Success.
    DV_OK = 0,
    /// A required pointer argument was NULL.
    DV_ERROR_NULL_ARGUMENT = 1,
    /// A malformed argument: unknown enum value, bad strides, element size, a write through a const handle...
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
    /// A space this machine or build cannot serve: no driver (CUDA's, for the
    /// CUDA spaces) or no such device; the message names the space and the reason.
    DV_ERROR_NO_DEVICE = 11,
    /// A device driver call failed; the message has the driver's error name and text.
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
    /// Checked mode: a side changed where it was not marked modified (a
    /// missing modify, or both sides written); nothing was copied or marked.
    DV_ERROR_UNMARKED_CHANGE = 19,
}

/// Declare a `#[repr(u32)]` enum whose discriminants are ABI constants, with
/// `TryFrom<u32>` (an `InvalidArgument` error listing the valid values),
/// `name()`, `Display` and `ALL`.
///
/// ```ignore
/// abi_enum! {
///     /// Doc.
///     pub enum Layout ("layout") {
///         /// Doc.
///         Left = DV_LAYOUT_LEFT => "LayoutLeft",
///     }
/// }
/// ```
macro_rules! abi_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $value:path => $text:literal, )+
        }
    ) => {
        $crate::abi::abi_enum_core! {
            $(#[$meta])*
            $vis enum $name {
                $( $(#[$vmeta])* $variant = $value => $text, )+
            }
        }
        $crate::abi::abi_enum_try_from!($name, $what);
    };
}

/// [`abi_enum!`] without its `TryFrom<u32>`: for an enum that `error` itself
/// names (`Side`), whose conversion `error` writes with
/// [`abi_enum_try_from!`], so that the enum's module does not import `error`.
macro_rules! abi_enum_core {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:path => $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant = $value as u32, )+
        }

        impl $name {
            /// Every value, in ABI order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name users know it by.
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use abi_enum_core;

/// `TryFrom<u32>` of an [`abi_enum_core!`] enum: an `InvalidArgument` error
/// naming `$what` and every known value.
macro_rules! abi_enum_try_from {
    ($name:ident, $what:literal) => {
        impl TryFrom<u32> for $name {
            type Error = $crate::error::Error;
            fn try_from(v: u32) -> $crate::error::Result<$name> {
                if let Some(k) = $name::ALL.iter().find(|k| **k as u32 == v) {
                    return Ok(*k);
                }
                let known: Vec<String> =
                    $name::ALL.iter().map(|k| format!("{} {}", *k as u32, k.name())).collect();
                Err($crate::error::Error::new(
                    $crate::error::ErrorKind::InvalidArgument,
                    format!("unknown {} value {v} (expected {})", $what, known.join(", ")),
                ))
            }
        }
    };
}
pub(crate) use abi_enum_try_from;
pub(crate) use abi_enum;

/// Kokkos Tools event (`dv_tools_set_callback`): `kokkosp_init_library`.
pub const DV_TOOLS_INIT: u32 = 0;
/// Kokkos Tools event: `kokkosp_finalize_library`.
pub const DV_TOOLS_FINALIZE: u32 = 1;
/// Kokkos Tools event: `kokkosp_allocate_data`.
pub const DV_TOOLS_ALLOCATE_DATA: u32 = 2;
/// Kokkos Tools event: `kokkosp_deallocate_data`.
pub const DV_TOOLS_DEALLOCATE_DATA: u32 = 3;
/// Kokkos Tools event: `kokkosp_begin_deep_copy`.
pub const DV_TOOLS_BEGIN_DEEP_COPY: u32 = 4;
/// Kokkos Tools event: `kokkosp_end_deep_copy`.
pub const DV_TOOLS_END_DEEP_COPY: u32 = 5;
/// Kokkos Tools event: `kokkosp_push_profile_region`.
pub const DV_TOOLS_PUSH_REGION: u32 = 6;
/// Kokkos Tools event: `kokkosp_pop_profile_region`.
pub const DV_TOOLS_POP_REGION: u32 = 7;
/// Kokkos Tools event: `kokkosp_create_profile_section`.
pub const DV_TOOLS_CREATE_SECTION: u32 = 8;
/// Kokkos Tools event: `kokkosp_start_profile_section`.
pub const DV_TOOLS_START_SECTION: u32 = 9;
/// Kokkos Tools event: `kokkosp_stop_profile_section`.
pub const DV_TOOLS_STOP_SECTION: u32 = 10;
/// Kokkos Tools event: `kokkosp_destroy_profile_section`.
pub const DV_TOOLS_DESTROY_SECTION: u32 = 11;
/// Kokkos Tools event: `kokkosp_profile_event`.
pub const DV_TOOLS_PROFILE_EVENT: u32 = 12;
/// Kokkos Tools event: `kokkosp_begin_fence`.
pub const DV_TOOLS_BEGIN_FENCE: u32 = 13;
/// Kokkos Tools event: `kokkosp_end_fence`.
pub const DV_TOOLS_END_FENCE: u32 = 14;
/// Kokkos Tools event: `kokkosp_declare_metadata`.
pub const DV_TOOLS_DECLARE_METADATA: u32 = 15;
/// Kokkos Tools event: `kokkosp_dual_view_sync`.
pub const DV_TOOLS_DUAL_VIEW_SYNC: u32 = 16;
/// Kokkos Tools event: `kokkosp_dual_view_modify`.
pub const DV_TOOLS_DUAL_VIEW_MODIFY: u32 = 17;
