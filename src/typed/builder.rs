//! [`Builder`]: how a typed DualView is made (extents, layout, spaces,
//! initialisation). Its unchecked forms (`without_initializing`,
//! `adopt_host`, `adopt_host_vec`) are in raw.rs.

use super::DualView;
use crate::dual_view::{Desc, RawDualView};
use crate::element::{ElemSpec, Element};
use crate::error::{bail, Result};
use crate::extents::Extents;
use crate::layout::{Layout, Mapping};
use crate::space::Space;
use std::marker::PhantomData;

/// Options for [`DualView::builder`].
///
/// ```
/// use dualview::{DualView, DynRank, Layout, Space};
/// let a = DualView::<u32>::builder("S", DynRank::new(&[3, 4]).unwrap())
///     .strides(&[1, 5])
///     .device(Space::test_device(0))
///     .build()
///     .unwrap();
/// assert_eq!(a.layout(), Layout::Stride);
/// assert_eq!(a.span(), 18);
/// ```
#[must_use]
pub struct Builder<T: Element, E: Extents> {
    pub(super) label: String,
    extents: E,
    layout: Option<Layout>,
    strides: Option<Vec<usize>>,
    pub(super) device: Space,
    /// A page-locked mirror: the device's pinned host space (`Space::pinned_host`).
    pub(super) pinned_host: bool,
    pub(super) init: bool,
    pin_mirror: bool,
    checked: bool,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element, E: Extents> Builder<T, E> {
    /// The defaults: the host space, its layout, zero-filled, the mirror registered.
    pub(super) fn new(label: &str, extents: E) -> Builder<T, E> {
        Builder {
            label: label.to_owned(),
            extents,
            layout: None,
            strides: None,
            device: Space::HOST,
            pinned_host: false,
            init: true,
            pin_mirror: true,
            checked: false,
            _t: PhantomData,
        }
    }

    /// The layout (default: the device space's, [`Space::default_layout`]: Left for CUDA and the test device, Right for the host, as Kokkos).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .layout(dualview::Layout::Left).device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.layout(), dualview::Layout::Left);
    /// ```
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = Some(layout);
        self
    }

    /// Explicit strides in elements; implies `Layout::Stride`.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Layout};
    /// let a = DualView::<u8, Dims<2>>::builder("s", Dims::new([2, 2]).unwrap()).strides(&[2, 1]).build().unwrap();
    /// assert_eq!(a.layout(), Layout::Stride);
    /// ```
    pub fn strides(mut self, strides: &[usize]) -> Self {
        self.layout = Some(Layout::Stride);
        self.strides = Some(strides.to_vec());
        self
    }

    /// The device space (default: `Space::HOST`, a single-space DualView).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(1.0).unwrap();
    /// assert_eq!(*a.device().unwrap().get([1, 1]).unwrap(), 1.0);
    /// ```
    pub fn device(mut self, space: Space) -> Self {
        self.device = space;
        self
    }

    /// Put the host mirror in page-locked memory (full-bandwidth transfers).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space, ErrorKind};
    /// // Pinned memory needs the CUDA driver.
    /// let r = DualView::<f64, Dims<1>>::builder("P", Dims::new([4]).unwrap()).device(Space::cuda(0)).pinned_host().build();
    /// if dualview::memory::cuda_device_count() > 0 {
    ///     assert!(r.unwrap().raw().is_mirror_pinned());
    /// } else {
    ///     assert_eq!(r.unwrap_err().kind(), ErrorKind::NoDevice);
    /// }
    /// ```
    pub fn pinned_host(mut self) -> Self {
        self.pinned_host = true;
        self
    }

    /// Keep a CUDA DualView's host mirror pageable: never registered with the
    /// driver (by default it is, in the background once allocated and at the
    /// latest by its first copying sync, for pinned-speed copies; after a
    /// resize, by its second when the first was one large copy, G25).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<1>>::builder("P", Dims::new([4]).unwrap()).device(Space::test_device(0)).pageable_host().build().unwrap();
    /// assert!(!a.raw().is_mirror_pinned());
    /// ```
    pub fn pageable_host(mut self) -> Self {
        self.pin_mirror = false;
        self
    }

    /// Checked mode (as `DV_CHECK=1` for every DualView): every modify and
    /// sync verifies that no side changed where it was not marked modified,
    /// and answers `ErrorKind::UnmarkedChange` when one did (docs/SEMANTICS.md).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, ErrorKind, Space};
    /// let a = DualView::<f64, Dims<1>>::builder("C", Dims::new([4]).unwrap()).device(Space::test_device(0)).checked().build().unwrap();
    /// a.raw().view_fill(dualview::Side::Host, &1.0f64.to_ne_bytes()).unwrap(); // a write without modify_host
    /// assert_eq!(a.sync_device().unwrap_err().kind(), ErrorKind::UnmarkedChange);
    /// ```
    pub fn checked(mut self) -> Self {
        self.checked = true;
        self
    }

    /// Allocate the DualView.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.size(), 6);
    /// ```
    pub fn build(self) -> Result<DualView<T, E>> {
        let desc = self.desc()?;
        Ok(DualView { raw: RawDualView::new(&self.label, &desc)?, _t: PhantomData })
    }

    pub(super) fn desc(&self) -> Result<Desc> {
        self.extents.check()?;
        let ext = self.extents.to_dyn();
        let layout = self.layout.unwrap_or(self.device.default_layout());
        let mapping = match (&self.strides, layout) {
            (Some(s), _) => Mapping::with_strides(ext, s)?,
            (None, Layout::Stride) => bail!(InvalidArgument, "LayoutStride needs explicit strides"),
            (None, l) => Mapping::new(l, ext)?,
        };
        let elem = ElemSpec::of::<T>();
        Ok(Desc {
            elem,
            mapping,
            device: self.device,
            host: if self.pinned_host { self.device.pinned_host() } else { self.device.host_side() },
            init: self.init,
            pin_mirror: self.pin_mirror,
            checked: self.checked || Desc::new(elem, mapping, self.device).checked,
        })
    }
}
