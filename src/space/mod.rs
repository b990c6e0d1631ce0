//! Memory spaces, as vocabulary: what a space is ([`SpaceKind`], its
//! [`SpacePolicy`] and the memory its addresses are, [`Space`]), the
//! [`Stream`] work is ordered on, and the strided `Region` that fills and
//! copies act on. Nothing here allocates or copies: `src/memory/` serves
//! spaces (docs/ARCHITECTURE.md).
//!
//! | space | memory | host can read it | served by |
//! | --- | --- | --- | --- |
//! | [`SpaceKind::Host`] | pageable host memory, 64-byte aligned | yes | the host engine |
//! | [`SpaceKind::TestDevice`] | host memory posing as a device, for tests only | yes | the device engine over the fake driver |
//! | [`SpaceKind::HostPinned`] | page-locked host memory | yes | the device engine over the CUDA driver |
//! | [`SpaceKind::Cuda`] | device memory | no | the device engine over the CUDA driver |
//! | [`SpaceKind::CudaUvm`] | managed memory | yes | the device engine over the CUDA driver |
//!
//! Every question about a kind's meaning reads its row (`rows.rs`); which
//! backend serves it is `src/memory/table.rs`.

mod rows;

use crate::abi::*;
use crate::extents::DynRank;
use crate::layout::{Layout, Strides};
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
        rows::row(self).policy
    }

    /// What this kind's addresses are to a device driver.
    pub(crate) const fn memory(self) -> Mem {
        rows::row(self).memory
    }
}

/// What memory an address is, as a device driver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mem {
    /// Ordinary host memory: an asynchronous copy of it may block the host.
    Pageable,
    /// Page-locked host memory (allocated pinned, or registered).
    Pinned,
    /// Device memory, not readable by the host.
    Device,
    /// Managed memory: one address on host and device.
    Managed,
}

impl Mem {
    /// Device or managed memory: the device's side of a copy.
    pub(crate) const fn on_device(self) -> bool {
        matches!(self, Mem::Device | Mem::Managed)
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
        rows::row(self.kind).pinned_host
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
pub(crate) const HOST_PAGE: usize = 4096;

/// The cargo feature the driver of `kind` needs ("" when none).
pub(crate) const fn feature_of(kind: SpaceKind) -> &'static str {
    rows::row(kind).feature
}
