//! The backend table: which backend serves each [`SpaceKind`] and how many
//! devices of it this process can use (what a kind *means* is
//! `src/space/rows.rs`). A kind whose driver this build left out answers
//! `NoDevice`, naming the feature.

#[cfg(feature = "cuda")]
use super::device::drivers::cuda;
use super::device::drivers::fake;
use super::{host, Backend};
use crate::error::Result;
use crate::space::{Space, SpaceKind};

/// How one space kind is served.
#[derive(Clone, Copy)]
struct Row {
    /// Its backend for a space of this kind: a table read and an ordinal check, no driver call.
    backend: fn(Space) -> Result<&'static dyn Backend>,
    /// How many devices of this kind this process can use.
    device_count: fn() -> usize,
}

/// The backend of a space whose driver this build left out.
#[cfg_attr(feature = "cuda", allow(dead_code))] // the rows of drivers left out
fn without_feature(s: Space) -> Result<&'static dyn Backend> {
    crate::error::bail!(NoDevice, "{s}: dualview was built without its `{}` feature", crate::space::feature_of(s.kind()))
}

/// No devices: the driver was left out of this build.
#[cfg(not(feature = "cuda"))]
fn none() -> usize {
    0
}

fn host_backend(_: Space) -> Result<&'static dyn Backend> {
    Ok(&host::HOST)
}
fn fake_backend(s: Space) -> Result<&'static dyn Backend> {
    fake::backend(s.ordinal())
}
fn one() -> usize {
    1
}
fn pinned_count() -> usize {
    usize::from(Space::host_pinned().probe().is_ok())
}

#[cfg(feature = "cuda")]
const DEVICE: Row = Row { backend: cuda::backend, device_count: cuda::device_count };
#[cfg(not(feature = "cuda"))]
const DEVICE: Row = Row { backend: without_feature, device_count: none };

/// The rows, in the order of the kinds' C ABI values.
const TABLE: [Row; 5] = [
    Row { backend: host_backend, device_count: one },
    Row { backend: DEVICE.backend, device_count: pinned_count }, // pinned memory belongs to CUDA device 0
    DEVICE,
    DEVICE,
    Row { backend: fake_backend, device_count: fake::device_count },
];

const fn row(kind: SpaceKind) -> Row {
    TABLE[kind as usize]
}

impl SpaceKind {
    /// How many devices of this kind this process can use: the ordinals
    /// `0..n` of `Space::new(kind, ordinal)` name them. A host kind, whose
    /// ordinal is ignored, counts 1 when it is usable here and 0 otherwise
    /// (pinned memory needs a CUDA device). 0 without a driver; never panics.
    ///
    /// ```
    /// use dualview::{Space, SpaceKind};
    /// assert_eq!(SpaceKind::Host.device_count(), 1);
    /// assert_eq!(SpaceKind::TestDevice.device_count(), dualview::memory::test_device::ORDINALS as usize);
    /// let n = SpaceKind::Cuda.device_count() as u32;
    /// assert!(Space::cuda(n).probe().is_err());
    /// assert_eq!(Space::host_pinned().probe().is_ok(), SpaceKind::HostPinned.device_count() == 1);
    /// ```
    pub fn device_count(self) -> usize {
        (row(self).device_count)()
    }
}

impl Space {
    /// Whether a DualView over this (device) space registers its host mirror,
    /// a pageable block of `host`, with the device's driver, so that copies run
    /// at pinned speed (docs/GPU.md). The space decides: CUDA device memory
    /// does for a `HostSpace` mirror unless `DV_PAGEABLE_MIRROR=1` is set;
    /// every other space does not.
    pub(crate) fn registers_mirror(&self, host: Space) -> bool {
        self.backend().is_ok_and(|b| b.registers_mirror(self.ordinal(), host))
    }

    /// Check that this space can be used here (a CUDA space needs a driver
    /// and the device, a test device an ordinal below
    /// [`test_device::ORDINALS`](crate::memory::test_device::ORDINALS)): `NoDevice` otherwise.
    ///
    /// ```
    /// # use dualview::{Space, ErrorKind};
    /// assert!(Space::HOST.probe().is_ok());
    /// let r = Space::cuda(0).probe();
    /// if dualview::memory::cuda_device_count() > 0 {
    ///     assert!(r.is_ok());
    /// } else {
    ///     assert_eq!(r.unwrap_err().kind(), ErrorKind::NoDevice);
    /// }
    /// assert_eq!(Space::cuda(99).probe().unwrap_err().kind(), ErrorKind::NoDevice);
    /// ```
    pub fn probe(&self) -> Result<()> {
        self.backend().map(drop)
    }

    /// The backend of this space: a table read and an ordinal check, no driver call.
    pub(crate) fn backend(&self) -> Result<&'static dyn Backend> {
        (row(self.kind()).backend)(*self)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_table_has_a_row_per_kind() {
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
