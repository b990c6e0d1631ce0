//! Memory spaces: where an allocation lives, and the operations a DualView
//! needs from it (allocate, free, fill, copy between two spaces, fence),
//! synchronous or ordered on a stream.
//!
//! | space | memory | host can read it | backend |
//! | --- | --- | --- | --- |
//! | [`SpaceKind::Host`] | pageable host memory, 64-byte aligned | yes | `host` |
//! | [`SpaceKind::TestDevice`] | host memory posing as a device, for tests only | yes | the device engine over the test device's fake driver |
//! | [`SpaceKind::HostPinned`] | page-locked host memory | yes | the device engine over the CUDA driver |
//! | [`SpaceKind::Cuda`] | device memory | no | the device engine over the CUDA driver |
//! | [`SpaceKind::CudaUvm`] | managed memory | yes | the device engine over the CUDA driver |
//!
//! Only the backends touch raw memory; the DualView logic sees `Allocation`
//! and the free functions here. Every question about a kind reads its row of
//! the space table (`table.rs`). Every device backend is the device engine
//! (`device/`) over one `Driver`: GPU policy is written once. A device space
//! whose DualViews register their pageable host mirrors hands out the
//! registration as a `HostRegistration` (`Backend::mirror_registration`),
//! made by the shared state machine of `registration` over the engine; the
//! mirror's `Allocation` drives it and never names the space.
//!
//! A new space is a table row, a driver file and its feature (docs/ARCHITECTURE.md,
//! "Adding a memory space"): nothing outside `src/space/` picks a backend
//! (`typed::cuda_interop` lends guards to cudarc kernels, for CUDA only).

mod allocation;
#[cfg(feature = "cuda")]
pub(crate) mod cuda;
mod background;
mod backend;
pub(crate) mod device;
pub mod device_id;
pub(crate) mod host;
mod registration;
pub mod stream;
mod table;

/// The number of CUDA devices this process can use (0 without a driver),
/// [`SpaceKind::device_count`] of [`SpaceKind::Cuda`]. Never panics.
///
/// ```
/// use dualview::{ErrorKind, Space};
/// // A CUDA space is usable exactly when a device is counted.
/// let n = dualview::space::cuda_device_count();
/// match Space::cuda(0).probe() {
///     Ok(()) => assert!(n > 0),
///     Err(e) => assert!(n == 0 && e.kind() == ErrorKind::NoDevice),
/// }
/// ```
pub fn cuda_device_count() -> usize {
    SpaceKind::Cuda.device_count()
}
pub mod test_device;

pub(crate) use allocation::{allocation_point, Allocation};
pub use allocation::{inject_allocation_failure, live_allocations, LiveAllocation};
pub use background::settle;

/// Bytes of host mirrors that dualview has registered with a device's driver
/// (CUDA; the test device's fake driver when asked,
/// [`test_device::set_registers_mirror`]) and not yet unregistered. Every
/// registration ends when its block is freed, so this returns to 0 when the
/// last DualView goes (after [`settle`]: the background thread unregisters).
///
/// ```
/// assert_eq!(dualview::space::registered_host_bytes(), 0); // no registering DualView here
/// ```
pub fn registered_host_bytes() -> usize {
    registration::registered_bytes()
}

use crate::abi::*;
pub(crate) use backend::{Backend, HostRegistration, Transfer};
use crate::error::Result;
use crate::extents::DynRank;
use crate::layout::{Layout, Strides};
use crate::side::Side;
use std::fmt;

/// Alignment of every allocation the library makes, in bytes.
///
/// ```
/// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
/// let m = Mapping::new(Layout::Left, DynRank::new(&[3]).unwrap()).unwrap();
/// let v = View::new("v", ElemSpec::of::<u8>(), m, Space::HOST, true).unwrap();
/// assert_eq!(v.data() as usize % dualview::space::ALIGNMENT, 0);
/// ```
pub const ALIGNMENT: usize = 64;

abi_enum! {
    /// The kind of a memory space. The numbers are the C ABI values; what
    /// each kind means for a DualView (its mirror, default layout, whether the
    /// host can read it) is decided here and only here ([`SpaceKind::policy`]).
    ///
    /// ```
    /// use dualview::SpaceKind;
    /// assert_eq!(SpaceKind::try_from(4u32).unwrap(), SpaceKind::TestDevice);
    /// assert!(SpaceKind::try_from(99u32).is_err());
    /// ```
    #[non_exhaustive]
    pub enum SpaceKind ("memory space") {
        /// Ordinary host memory (Kokkos `HostSpace`).
        Host = DV_SPACE_HOST => "HostSpace",
        /// Page-locked host memory (Kokkos `CudaHostPinnedSpace`).
        HostPinned = DV_SPACE_HOST_PINNED => "CudaHostPinnedSpace",
        /// CUDA device memory (Kokkos `CudaSpace`).
        Cuda = DV_SPACE_CUDA => "CudaSpace",
        /// CUDA managed memory (Kokkos `CudaUVMSpace`).
        CudaUvm = DV_SPACE_CUDA_UVM => "CudaUVMSpace",
        /// Host memory that plays a device with its own allocation, to test
        /// two-space semantics without a GPU. Never a default.
        TestDevice = DV_SPACE_TEST_DEVICE => "TestDeviceSpace",
    }
}

/// What a memory space means for DualViews: the one table every language asks.
///
/// | kind | host can read | needs a mirror | default layout | one address for both sides | page-locked |
/// | --- | --- | --- | --- | --- | --- |
/// | Host | yes | no (one space) | Right | yes | no (a CUDA DualView's mirror is registered with the driver instead, docs/GPU.md) |
/// | HostPinned | yes | no (one space) | Right | yes | yes |
/// | Cuda | no | yes (HostSpace) | Left | no | no |
/// | CudaUvm | yes | no (same allocation, flags tracked) | Left | yes | no |
/// | TestDevice | yes (it is host memory) | yes (HostSpace) | Left (it stands in for a GPU) | no | no |
///
/// ```
/// use dualview::{Layout, SpaceKind};
/// let p = SpaceKind::TestDevice.policy();
/// assert!(p.needs_mirror && p.host_accessible && !p.page_locked);
/// assert_eq!(p.default_layout, Layout::Left);
/// assert!(SpaceKind::HostPinned.policy().page_locked);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpacePolicy {
    /// Host code may dereference this memory.
    pub host_accessible: bool,
    /// A DualView over this space keeps a separate host mirror (Kokkos `HostMirror` is another space).
    pub needs_mirror: bool,
    /// One allocation visible at one address from host and device (managed memory).
    pub unified: bool,
    /// The layout a DualView gets when none is named (Kokkos: the execution space's).
    pub default_layout: Layout,
    /// The execution space's device side: true for spaces whose work runs on a (real or test) device.
    pub is_device: bool,
    /// Page-locked host memory: a device copies it by DMA at full speed.
    pub page_locked: bool,
}

impl SpaceKind {
    /// The policy of this kind (see [`SpacePolicy`]).
    pub const fn policy(self) -> SpacePolicy {
        table::row(self).policy
    }

    /// What this kind's addresses are to a device driver (the device engine's view).
    pub(crate) const fn memory(self) -> device::Mem {
        table::row(self).memory
    }

    /// How many devices of this kind this process can use: the ordinals
    /// `0..n` of `Space::new(kind, ordinal)` name them. A host kind, whose
    /// ordinal is ignored, counts 1 when it is usable here and 0 otherwise
    /// (pinned memory needs a CUDA device). 0 without a driver; never panics.
    ///
    /// ```
    /// use dualview::{Space, SpaceKind};
    /// assert_eq!(SpaceKind::Host.device_count(), 1);
    /// assert_eq!(SpaceKind::TestDevice.device_count(), dualview::space::test_device::ORDINALS as usize);
    /// let n = SpaceKind::Cuda.device_count() as u32;
    /// assert!(Space::cuda(n).probe().is_err());
    /// assert_eq!(Space::host_pinned().probe().is_ok(), SpaceKind::HostPinned.device_count() == 1);
    /// ```
    pub fn device_count(self) -> usize {
        (table::row(self).device_count)()
    }
}

/// A memory space on a given device ordinal.
///
/// ```
/// use dualview::{Space, SpaceKind};
/// assert!(Space::HOST.is_host_accessible());
/// assert_eq!(Space::cuda(1).ordinal(), 1);
/// assert_eq!(Space::test_device(0).kind(), SpaceKind::TestDevice);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Space {
    kind: SpaceKind,
    ordinal: u32,
}

impl Space {
    /// Host memory.
    ///
    /// ```
    /// # use dualview::{Space, SpaceKind};
    /// assert_eq!(Space::HOST.kind(), SpaceKind::Host);
    /// ```
    pub const HOST: Space = Space { kind: SpaceKind::Host, ordinal: 0 };

    /// A space of `kind` on device `ordinal` (ignored by host spaces).
    ///
    /// ```
    /// # use dualview::{Space, SpaceKind};
    /// assert_eq!(Space::new(SpaceKind::Host, 3), Space::HOST);
    /// ```
    pub const fn new(kind: SpaceKind, ordinal: u32) -> Space {
        // Only device kinds use the ordinal (the policy's `is_device`).
        let ordinal = if kind.policy().is_device { ordinal } else { 0 };
        Space { kind, ordinal }
    }

    /// Page-locked host memory.
    ///
    /// ```
    /// # use dualview::{Space, SpaceKind};
    /// assert_eq!(Space::host_pinned().kind(), SpaceKind::HostPinned);
    /// ```
    pub const fn host_pinned() -> Space {
        Space::new(SpaceKind::HostPinned, 0)
    }

    /// Device memory of GPU `ordinal`.
    ///
    /// ```
    /// # use dualview::Space;
    /// assert!(!Space::cuda(0).is_host_accessible());
    /// ```
    pub const fn cuda(ordinal: u32) -> Space {
        Space::new(SpaceKind::Cuda, ordinal)
    }

    /// Managed (UVM) memory of GPU `ordinal`.
    ///
    /// ```
    /// # use dualview::Space;
    /// assert!(Space::cuda_uvm(0).is_host_accessible());
    /// ```
    pub const fn cuda_uvm(ordinal: u32) -> Space {
        Space::new(SpaceKind::CudaUvm, ordinal)
    }

    /// The test device `ordinal`: host memory with its own allocation (tests only).
    ///
    /// ```
    /// # use dualview::Space;
    /// assert_ne!(Space::test_device(0), Space::HOST);
    /// ```
    pub const fn test_device(ordinal: u32) -> Space {
        Space::new(SpaceKind::TestDevice, ordinal)
    }

    /// The kind.
    ///
    /// ```
    /// # use dualview::{Space, SpaceKind};
    /// assert_eq!(Space::HOST.kind(), SpaceKind::Host);
    /// ```
    pub const fn kind(&self) -> SpaceKind {
        self.kind
    }

    /// The device ordinal (0 for host spaces).
    ///
    /// ```
    /// # use dualview::Space;
    /// assert_eq!(Space::test_device(2).ordinal(), 2);
    /// ```
    pub const fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// Whether host code can read and write this memory directly.
    ///
    /// ```
    /// # use dualview::Space;
    /// assert!(Space::host_pinned().is_host_accessible());
    /// assert!(!Space::cuda(0).is_host_accessible());
    /// ```
    pub const fn is_host_accessible(&self) -> bool {
        self.kind.policy().host_accessible
    }

    /// Whether this is managed (unified) memory, visible from host and device at one address.
    ///
    /// ```
    /// # use dualview::Space;
    /// assert!(Space::cuda_uvm(0).is_unified() && !Space::cuda(0).is_unified());
    /// ```
    pub const fn is_unified(&self) -> bool {
        self.kind.policy().unified
    }

    /// The layout a DualView over this space gets when none is named.
    ///
    /// ```
    /// # use dualview::{Layout, Space};
    /// assert_eq!(Space::cuda(0).default_layout(), Layout::Left);
    /// assert_eq!(Space::HOST.default_layout(), Layout::Right);
    /// ```
    pub const fn default_layout(&self) -> Layout {
        self.kind.policy().default_layout
    }

    /// Whether this is page-locked host memory (pinned), which a device copies at full speed.
    ///
    /// ```
    /// # use dualview::Space;
    /// assert!(Space::host_pinned().is_page_locked() && !Space::HOST.is_page_locked());
    /// ```
    pub const fn is_page_locked(&self) -> bool {
        self.kind.policy().page_locked
    }

    /// Whether a DualView over this (device) space registers its host mirror,
    /// a pageable block of `host`, with the device's driver, so that copies run
    /// at pinned speed (docs/GPU.md). The space decides: CUDA device memory
    /// does for a `HostSpace` mirror unless `DV_PAGEABLE_MIRROR=1` is set;
    /// every other space does not.
    pub(crate) fn registers_mirror(&self, host: Space) -> bool {
        self.backend().is_ok_and(|b| b.registers_mirror(self.ordinal, host))
    }

    /// Check that this space can be used here (a CUDA space needs a driver
    /// and the device, a test device an ordinal below
    /// [`test_device::ORDINALS`]): `NoDevice` otherwise.
    ///
    /// ```
    /// # use dualview::{Space, ErrorKind};
    /// assert!(Space::HOST.probe().is_ok());
    /// let r = Space::cuda(0).probe();
    /// if dualview::space::cuda_device_count() > 0 {
    ///     assert!(r.is_ok());
    /// } else {
    ///     assert_eq!(r.unwrap_err().kind(), ErrorKind::NoDevice);
    /// }
    /// assert_eq!(Space::cuda(99).probe().unwrap_err().kind(), ErrorKind::NoDevice);
    /// ```
    pub fn probe(&self) -> Result<()> {
        self.backend().map(drop)
    }

    /// The host space of a DualView whose device side is this space: pinned
    /// memory stays pinned (one space), everything else is mirrored in (or,
    /// for managed memory, shares one allocation with) `HostSpace`.
    ///
    /// ```
    /// # use dualview::Space;
    /// assert_eq!(Space::cuda(0).host_side(), Space::HOST);
    /// assert_eq!(Space::host_pinned().host_side(), Space::host_pinned());
    /// ```
    pub const fn host_side(&self) -> Space {
        // From the policy: a host space is its own host side; every device's is `HostSpace`.
        if self.kind.policy().is_device {
            Space::HOST
        } else {
            *self
        }
    }

    /// The page-locked host space a DualView over this space gets as its
    /// mirror when a pinned one is asked for (`DV_FLAG_PINNED_HOST`, the
    /// builder's `pinned_host`): the pinned memory of the device's driver,
    /// CUDA's for every kind today (so the request answers `NoDevice` without CUDA).
    ///
    /// ```
    /// # use dualview::Space;
    /// assert_eq!(Space::cuda(1).pinned_host(), Space::host_pinned());
    /// assert!(Space::test_device(0).pinned_host().is_page_locked());
    /// ```
    pub const fn pinned_host(&self) -> Space {
        table::row(self.kind).pinned_host
    }

    /// The backend of this space: a table read and an ordinal check, no driver call.
    fn backend(&self) -> Result<&'static dyn Backend> {
        (table::row(self.kind).backend)(*self)
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.policy().is_device {
            write!(f, "{}({})", self.kind.name(), self.ordinal)
        } else {
            f.write_str(self.kind.name())
        }
    }
}

/// An opaque stream handle (`CUstream` / `cudaStream_t`); null is the default stream.
///
/// Host spaces complete their work before returning, which satisfies any ordering.
///
/// ```
/// use dualview::Stream;
/// assert!(Stream::null().is_null());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stream(usize);

impl Stream {
    /// The default (null) stream.
    ///
    /// ```
    /// # use dualview::Stream;
    /// assert_eq!(Stream::null().as_raw(), 0);
    /// ```
    pub const fn null() -> Stream {
        Stream(0)
    }

    /// Wrap a raw `CUstream` / `cudaStream_t` value.
    ///
    /// ```
    /// # use dualview::Stream;
    /// assert_eq!(Stream::from_raw(0x10).as_raw(), 0x10);
    /// ```
    pub const fn from_raw(raw: usize) -> Stream {
        Stream(raw)
    }

    /// The raw handle.
    ///
    /// ```
    /// # use dualview::Stream;
    /// assert_eq!(Stream::from_raw(7).as_raw(), 7);
    /// ```
    pub const fn as_raw(&self) -> usize {
        self.0
    }

    /// Whether this is the default stream.
    ///
    /// ```
    /// # use dualview::Stream;
    /// assert!(!Stream::from_raw(7).is_null());
    /// ```
    pub const fn is_null(&self) -> bool {
        self.0 == 0
    }
}

/// A strided block of elements inside one allocation: what fills and copies act on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    /// Address of the element at index 0.
    pub ptr: *mut u8,
    pub elem_size: usize,
    pub extents: DynRank,
    /// Strides in elements.
    pub strides: Strides,
}

/// The page size the host allocator aligns page multiples to (a mirror that
/// registers asks for whole pages).
pub(crate) const HOST_PAGE: usize = host::PAGE;

/// The space whose backend drives a copy from `src` into `dst`: the device
/// party, the destination when both are devices (host to host is plain memory).
pub(crate) fn copy_driver(dst: Space, src: Space) -> Space {
    if dst.kind().policy().is_device || !dst.is_host_accessible() {
        dst
    } else {
        src
    }
}

/// Fill `dst` in `space` with one element's bytes.
///
/// # Safety
/// `dst` lies inside a live allocation of `space`, and no one else accesses it meanwhile.
pub(crate) unsafe fn fill(space: Space, dst: &Region, value: &[u8], stream: Stream) -> Result<()> {
    // SAFETY: forwarded contract.
    unsafe { space.backend()?.fill(space.ordinal, dst, value, stream)? };
    if stream.is_null() {
        fence(space)?;
    }
    Ok(())
}

/// Copy `src` (in `src_space`) into `dst` (in `dst_space`).
///
/// # Safety
/// Both regions lie in live allocations of their spaces, do not overlap, and
/// no one else writes them meanwhile.
pub(crate) unsafe fn copy(
    dst_space: Space,
    dst: &Region,
    src_space: Space,
    src: &Region,
    stream: Stream,
) -> Result<()> {
    let driver = copy_driver(dst_space, src_space);
    // SAFETY: forwarded contract. On the default stream the backend completes
    // the copy before returning (no device-wide fence needed).
    unsafe { driver.backend()?.copy((dst_space, dst), (src_space, src), stream) }
}

/// Copy `src` (in `src_space`) into `dst` (in `dst_space`) on the default
/// stream after a fence of both spaces' devices (Kokkos' `deep_copy`, G5):
/// the space driving the copy fences and copies under one binding.
///
/// # Safety
/// As [`copy`].
pub(crate) unsafe fn copy_fenced(dst_space: Space, dst: &Region, src_space: Space, src: &Region) -> Result<()> {
    let driver = copy_driver(dst_space, src_space);
    let other = if driver == dst_space { src_space } else { dst_space };
    if other != driver && other.kind().memory() != device::Mem::Pageable {
        fence(other)?; // the other party's device too (pinned memory: CUDA device 0's)
    }
    let pair = [(*dst, *src)];
    let t = Transfer { dst: dst_space, src: src_space, pairs: &pair, stream: Stream::null(), pageable_host: false, fence: true };
    // SAFETY: forwarded contract; on the default stream the copy is complete on return.
    unsafe { driver.backend()?.transfer(driver.ordinal, &t) }
}

/// Prefetch managed memory of `space` towards side `to`.
///
/// # Safety
/// `region` lies inside a live allocation of `space`.
pub(crate) unsafe fn prefetch(space: Space, region: &Region, to: Side, stream: Stream) -> Result<()> {
    // SAFETY: forwarded contract.
    unsafe { space.backend()?.prefetch(space.ordinal, region, to, stream) }
}

/// Wait for outstanding device work in `space` (a no-op for host spaces).
pub(crate) fn fence(space: Space) -> Result<()> {
    space.backend()?.fence(space.ordinal)
}
