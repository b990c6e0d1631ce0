//! Plain C value types and constants, with their checked conversions.

use crate::abi::*;
use crate::dual_view::Desc;
use crate::element::{Dtype, ElemSpec};
use crate::error::{bail, Error, Result};
use crate::extents::{DynRank, MAX_RANK};
use crate::layout::{Layout, Mapping};
use crate::side::Side;
use crate::space::{Space, SpaceKind};
use crate::stats::Stats;
use crate::view::View;
use std::ffi::c_void;

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
    /// Resizes that copied (on each side, the kept elements it holds newest or clean, in its own space; none for a block grown in place).
    pub resize_count: u64,
    /// Bytes resizes copied.
    pub resize_bytes: u64,
    /// Nanoseconds resizes spent copying.
    pub resize_ns: u64,
    /// Deep copies and view copies into the DualView (`dv_deep_copy`, `dv_view_copy`).
    pub copy_count: u64,
    /// Bytes they copied.
    pub copy_bytes: u64,
    /// Nanoseconds they took (for a copy queued on a stream: its enqueue).
    pub copy_ns: u64,
    /// Fills of a side (`dv_fill_and_modify_*`, `dv_view_fill`).
    pub fill_count: u64,
    /// Bytes they wrote.
    pub fill_bytes: u64,
    /// Nanoseconds they took.
    pub fill_ns: u64,
}

/// What a handle is (`dv_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct dv_info_t {
    /// `DV_INFO_*` bits: single space, one allocation, const, subview, owned, stale.
    pub bits: u32,
    /// `DV_DTYPE_*` the handle was made with.
    pub dtype: u32,
    /// `DV_SPACE_*` of the host side.
    pub host_space: u32,
    /// `DV_SPACE_*` of the device side.
    pub device_space: u32,
    /// Device ordinal of the device side.
    pub ordinal: u32,
    /// Rank of this handle.
    pub rank: u32,
    /// Element size in bytes.
    pub elem_size: u64,
    /// How many handles (clones, subviews, C++ views) share the DualView.
    pub use_count: u64,
}

/// What a memory space means for DualViews (`dv_space_info`): the core's
/// policy table, which the C++ space tags and the Fortran module follow.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct dv_space_info_t {
    /// Host code may dereference this memory.
    pub host_accessible: bool,
    /// A DualView over this space keeps a separate host mirror.
    pub needs_mirror: bool,
    /// Managed memory: one allocation, one address on host and device.
    pub unified: bool,
    /// Work in this space runs on a (real or test) device.
    pub is_device: bool,
    /// `DV_LAYOUT_*` a DualView gets when none is named.
    pub default_layout: u32,
    /// `DV_SPACE_*` of the host side of a DualView over this space.
    pub host_side: u32,
}

// ---- conversions --------------------------------------------------------------

/// Prefix an error's message with the argument it concerns.
pub(crate) fn about(arg: &str, e: Error) -> Error {
    Error::new(e.kind(), format!("argument `{arg}`: {}", e.message()))
}

pub(crate) fn extents_from(e: &dv_extents_t, arg: &str) -> Result<DynRank> {
    if e.reserved != 0 {
        bail!(InvalidArgument, "argument `{arg}.reserved` must be 0, got {}", e.reserved);
    }
    if e.rank as usize > MAX_RANK {
        bail!(RankTooLarge, "argument `{arg}.rank` is {}, above the maximum rank {MAX_RANK}", e.rank);
    }
    if let Some((axis, &v)) = e.extent[..e.rank as usize].iter().enumerate().find(|(_, v)| **v > i64::MAX as u64) {
        bail!(
            InvalidArgument,
            "argument `{arg}`: extent {} of axis {axis} is negative; extents are sizes (0 or more)",
            v as i64
        );
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

/// The element of a C description.
fn dtype_elem(d: &dv_desc_t) -> Result<ElemSpec> {
    let dtype = Dtype::try_from(d.dtype).map_err(|e| about("desc->dtype", e))?;
    let (size, align) = match dtype.size_align() {
        None => {
            let s = d.elem_size as usize;
            let a = if d.elem_align != 0 { d.elem_align as usize } else { 1 << s.trailing_zeros().min(4) };
            (s, a)
        }
        Some((size, align)) => {
            if d.elem_size != 0 && d.elem_size as usize != size {
                bail!(
                    InvalidArgument,
                    "argument `desc->elem_size` is {} but dtype {dtype} has {size}-byte elements",
                    d.elem_size
                );
            }
            (size, if d.elem_align != 0 { d.elem_align as usize } else { align })
        }
    };
    ElemSpec::new(size, align).map_err(|e| about("desc->elem_size", e))
}

pub(crate) fn side_from(v: u32, arg: &str) -> Result<Side> {
    Side::try_from(v).map_err(|e| about(arg, e))
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
    if d.flags & !DV_FLAG_ALL != 0 {
        bail!(InvalidArgument, "argument `desc->flags` has unknown bits {:#x}", d.flags & !DV_FLAG_ALL);
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
    desc.host = host_of_flags(d.flags, device)?;
    desc.init = d.flags & DV_FLAG_WITHOUT_INITIALIZING == 0;
    desc.pin_mirror = d.flags & DV_FLAG_PAGEABLE_HOST == 0;
    desc.checked |= d.flags & DV_FLAG_CHECKED != 0;
    Ok(desc)
}

// The host side's encoding in `dv_desc_t.flags`, both ways, written once:
// `dv_create` / `dv_wrap` decode it, `dv_desc_of` encodes it, and
// `tests::the_host_side_flags_round_trip` checks one undoes the other.

/// The host side a descriptor's flags give a DualView over `device`: the
/// device space itself (`DV_FLAG_SINGLE_SPACE`: one allocation, a View), a
/// pinned mirror (`DV_FLAG_PINNED_HOST`), or `device.host_side()`.
pub(crate) fn host_of_flags(flags: u32, device: Space) -> Result<Space> {
    match (flags & DV_FLAG_SINGLE_SPACE != 0, flags & DV_FLAG_PINNED_HOST != 0) {
        (true, true) => {
            bail!(InvalidArgument, "argument `desc->flags`: DV_FLAG_PINNED_HOST and DV_FLAG_SINGLE_SPACE exclude each other")
        }
        (true, false) => Ok(device),
        (false, true) => Ok(device.pinned_host()),
        (false, false) => Ok(device.host_side()),
    }
}

/// The flags that give a DualView over `device` the host side `host`
/// (the inverse of [`host_of_flags`]; nothing when it is the default).
pub(crate) fn flags_of_host(host: Space, device: Space) -> u32 {
    if host == device.host_side() {
        0
    } else if host == device {
        DV_FLAG_SINGLE_SPACE
    } else {
        DV_FLAG_PINNED_HOST
    }
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
        resize_count: s.resize.count,
        resize_bytes: s.resize.bytes,
        resize_ns: s.resize.nanos,
        copy_count: s.copies.count,
        copy_bytes: s.copies.bytes,
        copy_ns: s.copies.nanos,
        fill_count: s.fills.count,
        fill_bytes: s.fills.bytes,
        fill_ns: s.fills.nanos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dv_desc_of` encodes the host side so that `dv_create` decodes it back,
    /// for every space; the two host-side flags exclude each other; the other
    /// flags leave it alone.
    #[test]
    fn the_host_side_flags_round_trip() {
        for &kind in SpaceKind::ALL {
            let device = Space::new(kind, 0);
            for flags in [0, DV_FLAG_SINGLE_SPACE, DV_FLAG_PINNED_HOST] {
                let host = host_of_flags(flags, device).unwrap();
                assert_eq!(host_of_flags(flags_of_host(host, device), device).unwrap(), host, "{kind:?}, flags {flags}");
            }
            assert!(host_of_flags(DV_FLAG_SINGLE_SPACE | DV_FLAG_PINNED_HOST, device).is_err());
            let others = DV_FLAG_ALL & !(DV_FLAG_SINGLE_SPACE | DV_FLAG_PINNED_HOST);
            assert_eq!(host_of_flags(others, device).unwrap(), device.host_side(), "{kind:?}");
        }
    }
}
