//! [`Builder`]: how a typed DualView is made (extents, layout, spaces, initialisation).

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
    label: String,
    extents: E,
    layout: Option<Layout>,
    strides: Option<Vec<usize>>,
    device: Space,
    /// A page-locked mirror: the device's pinned host space (`Space::pinned_host`).
    pinned_host: bool,
    init: bool,
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
    /// latest by its first copying sync, for pinned-speed copies).
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

    /// Skip zero-filling (Kokkos `WithoutInitializing`).
    ///
    /// # Safety
    /// Every element must be written before it is read through this DualView.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// // SAFETY: every element is written before it is read.
    /// let a = unsafe { DualView::<u8, Dims<1>>::builder("u", Dims::new([4]).unwrap()).without_initializing() }.build().unwrap();
    /// a.host_write().unwrap().fill(1).unwrap();
    /// assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![1; 4]);
    /// ```
    pub unsafe fn without_initializing(mut self) -> Self {
        self.init = false;
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

    /// Adopt `host`, an existing array (a legacy code's), as the host side:
    /// the device side is allocated (over two spaces) and the host marked
    /// modified, so the first `sync_device` copies it over. Resize and
    /// realloc answer `Unmanaged`. `host` holds the layout's span of elements.
    ///
    /// # Safety
    /// `host` outlives every use of the DualView and its clones (dropping
    /// them is no use: it never reads or frees `host`), and nothing else
    /// accesses it meanwhile except through them.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let mut legacy = vec![1.5f64; 6];
    /// // SAFETY: `legacy` outlives `a`, and is used only through it meanwhile.
    /// let a = unsafe { DualView::<f64, Dims<2>>::builder("u", Dims::new([3, 2]).unwrap()).device(Space::test_device(0)).adopt_host(&mut legacy) }.unwrap();
    /// a.sync_device().unwrap(); // the legacy values go to the device side
    /// assert_eq!(*a.device().unwrap().get([2, 1]).unwrap(), 1.5);
    /// ```
    pub unsafe fn adopt_host(self, host: &mut [T]) -> Result<DualView<T, E>> {
        let desc = self.desc()?;
        if host.len() != desc.mapping.span() {
            bail!(InvalidArgument, "adopt_host: the array holds {} elements, the layout spans {}", host.len(), desc.mapping.span());
        }
        let p = std::ptr::NonNull::new(host.as_mut_ptr() as *mut u8).ok_or_else(|| crate::error::err!(InvalidArgument, "adopt_host: no array"))?;
        // SAFETY: `host` holds the span, aligned for T (a slice), and outlives the DualView (the caller's contract).
        let raw = unsafe { RawDualView::wrap(&self.label, &desc, p, None)? };
        Ok(DualView { raw, _t: PhantomData })
    }

    /// [`Builder::adopt_host`] taking the array over: the DualView owns
    /// `host` from here and frees it with its last handle (and after every
    /// copy queued on it). The safe form: nothing else can reach the array.
    /// `host` holds the layout's span of elements, and the device space keeps
    /// a pageable mirror (a two-space DualView without `pinned_host`);
    /// otherwise `InvalidArgument` and `host` is freed.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let legacy = vec![1.5f64; 6]; // a legacy code's array
    /// let a = DualView::<f64, Dims<2>>::builder("u", Dims::new([3, 2]).unwrap()).device(Space::test_device(0)).adopt_host_vec(legacy).unwrap();
    /// a.sync_device().unwrap(); // the legacy values go to the device side
    /// assert_eq!(*a.device().unwrap().get([2, 1]).unwrap(), 1.5);
    /// ```
    pub fn adopt_host_vec(self, host: Vec<T>) -> Result<DualView<T, E>> {
        if !self.device.kind().policy().needs_mirror || self.pinned_host {
            // One allocation for both sides (host, managed or pinned memory), or a pinned mirror:
            // a Vec's pageable memory cannot stand in for it.
            bail!(InvalidArgument, "adopt_host_vec: a DualView over {} keeps no pageable host mirror to adopt", self.device);
        }
        let mut host = std::mem::ManuallyDrop::new(host);
        let (ptr, len, cap) = (host.as_mut_ptr() as usize, host.len(), host.capacity());
        // SAFETY: the parts of the Vec taken apart above, put back once.
        let free = move || drop(unsafe { Vec::from_raw_parts(ptr as *mut T, len, cap) });
        // SAFETY: the buffer is no one else's (the Vec was moved in), and
        // lives until `free` runs, which the host allocation does when it goes.
        match unsafe { self.adopt_host(std::slice::from_raw_parts_mut(ptr as *mut T, len)) } {
            Ok(dv) => {
                dv.raw.host_allocation().on_release(Box::new(free));
                Ok(dv)
            }
            Err(e) => {
                free();
                Err(e)
            }
        }
    }

    fn desc(&self) -> Result<Desc> {
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
