//! The space table: one row per [`SpaceKind`], read by every question about
//! a space (its policy, memory, backend, device count, pinned host, the
//! feature its driver needs). A new space is a row here, its driver (a
//! `Driver` of `src/space/device/driver.rs` in one file), its feature, and its
//! C and C++ tags (docs/ARCHITECTURE.md, "Adding a memory space").

use super::device::Mem;
#[cfg(feature = "cuda")]
use super::cuda;
use super::{host, test_device, Backend, Space, SpaceKind, SpacePolicy};
use crate::error::Result;
use crate::layout::Layout;

/// One space kind, as data.
#[derive(Clone, Copy)]
pub(crate) struct Row {
    /// The kind (the row's index is its C ABI value).
    #[cfg_attr(not(test), allow(dead_code))] // the tests check the order
    pub kind: SpaceKind,
    /// What the kind means for a DualView.
    pub policy: SpacePolicy,
    /// What its addresses are to a device driver.
    pub memory: Mem,
    /// Its backend for a space of this kind: a table read and an ordinal check, no driver call.
    pub backend: fn(Space) -> Result<&'static dyn Backend>,
    /// How many devices of this kind this process can use.
    pub device_count: fn() -> usize,
    /// The page-locked host space a pinned mirror of this kind lives in.
    pub pinned_host: Space,
    /// The cargo feature its driver needs ("" when none).
    #[cfg_attr(feature = "cuda", allow(dead_code))] // read when a row's driver is left out
    pub feature: &'static str,
}

/// The backend of a space whose driver this build left out.
#[cfg_attr(feature = "cuda", allow(dead_code))] // the rows of drivers left out
fn without_feature(s: Space) -> Result<&'static dyn Backend> {
    crate::error::bail!(NoDevice, "{s}: dualview was built without its `{}` feature", row(s.kind()).feature)
}

/// No devices: the driver was left out of this build.
#[cfg(not(feature = "cuda"))]
fn none() -> usize {
    0
}

const PINNED: Space = Space { kind: SpaceKind::HostPinned, ordinal: 0 };

const fn policy(host_accessible: bool, needs_mirror: bool, unified: bool, default_layout: Layout, is_device: bool, page_locked: bool) -> SpacePolicy {
    SpacePolicy { host_accessible, needs_mirror, unified, default_layout, is_device, page_locked }
}

fn host_backend(_: Space) -> Result<&'static dyn Backend> {
    Ok(&host::HOST)
}
fn test_backend(s: Space) -> Result<&'static dyn Backend> {
    test_device::backend(s.ordinal())
}
fn one() -> usize {
    1
}
fn pinned_count() -> usize {
    usize::from(PINNED.probe().is_ok())
}
fn test_count() -> usize {
    test_device::device_count()
}

/// The rows, in the order of the kinds' C ABI values.
pub(crate) const TABLE: [Row; 5] = [
    Row {
        kind: SpaceKind::Host,
        policy: policy(true, false, false, Layout::Right, false, false),
        memory: Mem::Pageable,
        backend: host_backend,
        device_count: one,
        pinned_host: PINNED,
        feature: "",
    },
    Row {
        kind: SpaceKind::HostPinned,
        policy: policy(true, false, false, Layout::Right, false, true),
        memory: Mem::Pinned,
        #[cfg(feature = "cuda")]
        backend: cuda::backend, // pinned memory belongs to CUDA device 0
        #[cfg(not(feature = "cuda"))]
        backend: without_feature,
        device_count: pinned_count,
        pinned_host: PINNED,
        feature: "cuda",
    },
    Row {
        kind: SpaceKind::Cuda,
        policy: policy(false, true, false, Layout::Left, true, false),
        memory: Mem::Device,
        #[cfg(feature = "cuda")]
        backend: cuda::backend,
        #[cfg(not(feature = "cuda"))]
        backend: without_feature,
        #[cfg(feature = "cuda")]
        device_count: cuda::device_count,
        #[cfg(not(feature = "cuda"))]
        device_count: none,
        pinned_host: PINNED,
        feature: "cuda",
    },
    Row {
        kind: SpaceKind::CudaUvm,
        policy: policy(true, false, true, Layout::Left, true, false),
        memory: Mem::Managed,
        #[cfg(feature = "cuda")]
        backend: cuda::backend,
        #[cfg(not(feature = "cuda"))]
        backend: without_feature,
        #[cfg(feature = "cuda")]
        device_count: cuda::device_count,
        #[cfg(not(feature = "cuda"))]
        device_count: none,
        pinned_host: PINNED,
        feature: "cuda",
    },
    Row {
        kind: SpaceKind::TestDevice,
        policy: policy(true, true, false, Layout::Left, true, false),
        memory: Mem::Device,
        backend: test_backend,
        device_count: test_count,
        pinned_host: PINNED, // CUDA's: the request answers NoDevice without CUDA
        feature: "",
    },
];

/// The row of `kind`.
pub(crate) const fn row(kind: SpaceKind) -> Row {
    TABLE[kind as usize]
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_row_sits_at_its_kinds_abi_value() {
        for k in crate::SpaceKind::ALL {
            assert_eq!(super::row(*k).kind, *k);
            assert_eq!(super::TABLE[*k as u32 as usize].kind, *k);
        }
        assert_eq!(super::TABLE.len(), crate::SpaceKind::ALL.len());
    }

    #[test]
    #[cfg(not(feature = "cuda"))]
    fn a_space_whose_driver_is_left_out_names_the_feature() {
        let e = crate::Space::cuda(0).probe().unwrap_err();
        assert_eq!(e.message(), "CudaSpace(0): dualview was built without its `cuda` feature");
        assert_eq!(crate::SpaceKind::Cuda.device_count(), 0);
    }
}
