//! Plain C value types and constants, with their checked conversions.

use super::boundary::null;
use crate::dual_view::Desc;
use crate::error::{bail, Error, Result};
use crate::extents::{DynRank, MAX_RANK};
use crate::layout::{Layout, Mapping};
use crate::space::{Space, SpaceKind};
use crate::stats::Stats;
use crate::view::{Elem, View};
use std::ffi::{c_char, c_void, CStr};

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
/// Host memory posing as a device with its own allocation, for tests only.
pub const DV_SPACE_TEST_DEVICE: u32 = 4;

/// `dv_desc_t.flags`: do not zero-fill (Kokkos `WithoutInitializing`).
pub const DV_FLAG_WITHOUT_INITIALIZING: u32 = 1;
/// `dv_desc_t.flags`: put the host mirror in pinned memory (needs CUDA).
pub const DV_FLAG_PINNED_HOST: u32 = 2;

/// Access mode: read (sync first if stale).
pub const DV_ACCESS_READ: u32 = 1;
/// Access mode: overwrite everything (no copy; the other side's pending change is dropped).
pub const DV_ACCESS_WRITE: u32 = 2;
/// Access mode: read and write (sync first if stale, then mark modified).
pub const DV_ACCESS_READ_WRITE: u32 = 3;

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

/// Extents as a value: the rank and the sizes. Entries past `rank` are
/// ignored on input and written as 1 on output. `reserved` must be 0.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct dv_extents_t {
    /// Number of axes, 0 to 8.
    pub rank: u32,
    /// Must be 0.
    pub reserved: u32,
    /// Size of each axis.
    pub extent: [u64; 8],
}

/// How to create a DualView (`dv_create`, `dv_wrap`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dv_desc_t {
    /// `DV_DTYPE_*`.
    pub dtype: u32,
    /// Element size in bytes; used with `DV_DTYPE_BYTES`, otherwise 0 or the type's size.
    pub elem_size: u32,
    /// Element alignment (power of two, at most 64); 0 means the type's, or for bytes the largest power of two dividing `elem_size` up to 16.
    pub elem_align: u32,
    /// `DV_LAYOUT_*`, shared by both sides.
    pub layout: u32,
    /// `DV_SPACE_*` of the device side (`DV_SPACE_HOST`: one space, one allocation).
    pub space: u32,
    /// Device ordinal for CUDA and test-device spaces.
    pub ordinal: u32,
    /// `DV_FLAG_*` bits.
    pub flags: u32,
    /// Must be 0.
    pub reserved: u32,
    /// The extents.
    pub extents: dv_extents_t,
    /// Strides in elements, one per axis, for `DV_LAYOUT_STRIDE` only.
    pub strides: [u64; 8],
}

/// One subview argument per axis.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dv_range_t {
    /// `DV_ALL`, `DV_RANGE` or `DV_INDEX`.
    pub kind: u32,
    /// Must be 0.
    pub reserved: u32,
    /// Range start, or the index for `DV_INDEX`.
    pub begin: u64,
    /// Range end (exclusive) for `DV_RANGE`.
    pub end: u64,
}

/// One side's view: where the data is and how it is laid out.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dv_view_info_t {
    /// Address of the element at index 0 (a device address for `DV_SPACE_CUDA`).
    pub data: *mut c_void,
    /// Number of axes.
    pub rank: u32,
    /// `DV_LAYOUT_*` (a strided subview reports `DV_LAYOUT_STRIDE`).
    pub layout: u32,
    /// `DV_SPACE_*` of this side.
    pub space: u32,
    /// Device ordinal of this side.
    pub ordinal: u32,
    /// Element size in bytes.
    pub elem_size: u64,
    /// Required span in elements.
    pub span: u64,
    /// Extents (1 past the rank).
    pub extent: [u64; 8],
    /// Strides in elements (0 past the rank).
    pub stride: [u64; 8],
}

/// Transfer counters: syncs that copied data, bytes moved, time spent.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct dv_stats_t {
    /// Host-to-device syncs.
    pub to_device_count: u64,
    /// Bytes copied host to device.
    pub to_device_bytes: u64,
    /// Nanoseconds spent copying host to device.
    pub to_device_ns: u64,
    /// Device-to-host syncs.
    pub to_host_count: u64,
    /// Bytes copied device to host.
    pub to_host_bytes: u64,
    /// Nanoseconds spent copying device to host.
    pub to_host_ns: u64,
}

// ---- conversions --------------------------------------------------------------

/// Prefix an error's message with the argument it concerns.
pub(crate) fn about(arg: &str, e: Error) -> Error {
    Error::new(e.kind(), format!("argument `{arg}`: {}", e.message()))
}

/// Read `*p`, or fail with a NULL-argument error naming `arg`.
pub(crate) fn read<'a, T>(p: *const T, arg: &str) -> Result<&'a T> {
    // SAFETY: non-NULL pointers from C point to a valid T (documented contract).
    unsafe { p.as_ref() }.ok_or_else(|| null(arg))
}

/// Check that an output pointer is not NULL (written later, on success).
pub(crate) fn out<T>(p: *mut T, arg: &str) -> Result<*mut T> {
    if p.is_null() {
        return Err(null(arg));
    }
    Ok(p)
}

/// Write an output checked by [`out`].
pub(crate) fn put<T>(p: *mut T, v: T) {
    // SAFETY: checked non-NULL by `out`; the caller promises it is writable.
    unsafe { p.write(v) }
}

pub(crate) fn label(p: *const c_char, arg: &str) -> Result<String> {
    if p.is_null() {
        return Err(null(arg));
    }
    // SAFETY: a non-NULL label is a NUL-terminated string (documented contract).
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

pub(crate) fn extents_from(e: &dv_extents_t, arg: &str) -> Result<DynRank> {
    if e.reserved != 0 {
        bail!(InvalidArgument, "argument `{arg}.reserved` must be 0, got {}", e.reserved);
    }
    if e.rank as usize > MAX_RANK {
        bail!(RankTooLarge, "argument `{arg}.rank` is {}, above the maximum rank {MAX_RANK}", e.rank);
    }
    let vals: Vec<usize> = e.extent[..e.rank as usize].iter().map(|&v| v as usize).collect();
    if e.extent[..e.rank as usize].iter().any(|&v| v > usize::MAX as u64) {
        bail!(Overflow, "argument `{arg}`: an extent does not fit in size_t");
    }
    DynRank::new(&vals).map_err(|err| about(arg, err))
}

pub(crate) fn extents_to(e: &DynRank) -> dv_extents_t {
    let mut extent = [1u64; 8];
    for (o, &v) in extent.iter_mut().zip(e.as_slice()) {
        *o = v as u64;
    }
    dv_extents_t { rank: e.as_slice().len() as u32, reserved: 0, extent }
}

/// (size, align) of a C element type.
fn dtype_elem(d: &dv_desc_t) -> Result<Elem> {
    let (size, align) = match d.dtype {
        DV_DTYPE_BYTES => {
            let s = d.elem_size as usize;
            let a = if d.elem_align != 0 { d.elem_align as usize } else { 1 << s.trailing_zeros().min(4) };
            (s, a)
        }
        DV_DTYPE_INT8 | DV_DTYPE_UINT8 => (1, 1),
        DV_DTYPE_INT16 | DV_DTYPE_UINT16 => (2, 2),
        DV_DTYPE_INT32 | DV_DTYPE_UINT32 | DV_DTYPE_FLOAT32 => (4, 4),
        DV_DTYPE_INT64 | DV_DTYPE_UINT64 | DV_DTYPE_FLOAT64 => (8, 8),
        DV_DTYPE_COMPLEX64 => (8, 4),
        DV_DTYPE_COMPLEX128 => (16, 8),
        v => bail!(InvalidArgument, "argument `desc->dtype` has unknown value {v}"),
    };
    if d.dtype != DV_DTYPE_BYTES && d.elem_size != 0 && d.elem_size as usize != size {
        bail!(
            InvalidArgument,
            "argument `desc->elem_size` is {} but dtype {} has {size}-byte elements",
            d.elem_size,
            d.dtype
        );
    }
    let align = if d.dtype != DV_DTYPE_BYTES && d.elem_align != 0 { d.elem_align as usize } else { align };
    Elem::new(size, align).map_err(|e| about("desc->elem_size", e))
}

pub(crate) fn side_from(v: u32, arg: &str) -> Result<crate::error::Side> {
    match v {
        DV_SIDE_HOST => Ok(crate::error::Side::Host),
        DV_SIDE_DEVICE => Ok(crate::error::Side::Device),
        _ => bail!(InvalidArgument, "argument `{arg}` has unknown value {v} (0 host, 1 device)"),
    }
}

pub(crate) fn space_from(kind: u32, ordinal: u32, arg: &str) -> Result<Space> {
    let kind = SpaceKind::try_from(kind).map_err(|e| about(arg, e))?;
    Ok(Space::new(kind, ordinal))
}

pub(crate) fn space_to(s: Space) -> (u32, u32) {
    (s.kind() as u32, s.ordinal())
}

/// A core description from a C one.
pub(crate) fn desc_from(d: &dv_desc_t) -> Result<Desc> {
    if d.reserved != 0 {
        bail!(InvalidArgument, "argument `desc->reserved` must be 0, got {}", d.reserved);
    }
    let known = DV_FLAG_WITHOUT_INITIALIZING | DV_FLAG_PINNED_HOST;
    if d.flags & !known != 0 {
        bail!(InvalidArgument, "argument `desc->flags` has unknown bits {:#x}", d.flags & !known);
    }
    let elem = dtype_elem(d)?;
    let extents = extents_from(&d.extents, "desc->extents")?;
    let layout = Layout::try_from(d.layout).map_err(|e| about("desc->layout", e))?;
    let mapping = match layout {
        Layout::Stride => {
            let s: Vec<usize> = d.strides[..extents.as_slice().len()].iter().map(|&v| v as usize).collect();
            Mapping::with_strides(extents, &s).map_err(|e| about("desc->strides", e))?
        }
        l => Mapping::new(l, extents).map_err(|e| about("desc->extents", e))?,
    };
    let device = space_from(d.space, d.ordinal, "desc->space")?;
    let mut desc = Desc::new(elem, mapping, device);
    if d.flags & DV_FLAG_PINNED_HOST != 0 {
        desc.host = Space::host_pinned();
    }
    desc.init = d.flags & DV_FLAG_WITHOUT_INITIALIZING == 0;
    Ok(desc)
}

pub(crate) fn view_info(v: &View) -> dv_view_info_t {
    let m = v.mapping();
    let mut stride = [0u64; 8];
    for (o, &s) in stride.iter_mut().zip(m.strides().as_slice()) {
        *o = s as u64;
    }
    let (space, ordinal) = space_to(v.space());
    dv_view_info_t {
        data: v.data() as *mut c_void,
        rank: m.rank() as u32,
        layout: m.layout() as u32,
        space,
        ordinal,
        elem_size: v.elem().size() as u64,
        span: m.span() as u64,
        extent: extents_to(m.extents()).extent,
        stride,
    }
}

pub(crate) fn stats_to(s: Stats) -> dv_stats_t {
    dv_stats_t {
        to_device_count: s.to_device.count,
        to_device_bytes: s.to_device.bytes,
        to_device_ns: s.to_device.nanos,
        to_host_count: s.to_host.count,
        to_host_bytes: s.to_host.bytes,
        to_host_ns: s.to_host.nanos,
    }
}
