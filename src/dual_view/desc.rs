//! [`Desc`]: how to create a DualView.

use crate::element::ElemSpec;
use crate::layout::Mapping;
use crate::space::Space;

/// How to create a DualView.
///
/// ```
/// use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, RawDualView, Space};
/// let m = Mapping::new(Layout::Left, DynRank::new(&[10, 3]).unwrap()).unwrap();
/// let desc = Desc::new(ElemSpec::of::<f64>(), m, Space::test_device(0));
/// let a = RawDualView::new("A", &desc).unwrap();
/// assert_eq!(a.mapping().span(), 30);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Desc {
    /// Element size and alignment.
    pub elem: ElemSpec,
    /// Layout and extents (strides for LayoutStride), shared by both sides.
    pub mapping: Mapping,
    /// The device space.
    pub device: Space,
    /// The host side's space: `device.host_side()` by default, `Space::host_pinned()`
    /// for a pinned mirror, or `device` itself for a single-space handle (a plain View).
    pub host: Space,
    /// Zero-fill new memory (false: Kokkos `WithoutInitializing`).
    pub init: bool,
    /// Register a CUDA DualView's pageable host mirror with the driver, in the
    /// background once allocated, so that copies run at pinned speed (default true;
    /// `DV_FLAG_PAGEABLE_HOST`, or `DV_PAGEABLE_MIRROR=1` in the environment,
    /// keep it pageable). `h_view` stays ordinary host memory either way. The
    /// device space decides whether it registers mirrors at all (only CUDA
    /// device memory does).
    pub pin_mirror: bool,
    /// Checked mode: every flag call verifies that no side changed where it
    /// was not marked modified (docs/SEMANTICS.md "Checked mode"). Default:
    /// `DV_CHECK=1` in the environment; `DV_FLAG_CHECKED` in C.
    pub checked: bool,
}

impl Desc {
    /// A description with the default host side and zero-filled memory.
    ///
    /// ```
    /// # use dualview::{Desc, DynRank, ElemSpec, Layout, Mapping, Space};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[2]).unwrap()).unwrap();
    /// let d = Desc::new(ElemSpec::of::<f64>(), m, Space::test_device(0));
    /// assert_eq!((d.host, d.init), (Space::HOST, true));
    /// ```
    pub fn new(elem: ElemSpec, mapping: Mapping, device: Space) -> Desc {
        Desc { elem, mapping, device, host: device.host_side(), init: true, pin_mirror: true, checked: super::checked::env_default() }
    }
}
