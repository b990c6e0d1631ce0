//! The typed Rust API: `DualView<T, E>` over [`RawDualView`], generic over the
//! element type and the extents kind, with access guards that sync and mark
//! the side themselves.

#[cfg(feature = "cudarc-interop")]
mod cuda_interop;
mod guard;
mod borrow;
mod access;
mod builder;
mod iter;
#[cfg(feature = "ndarray")]
mod nd;
mod raw;
mod slicing;

pub use builder::Builder;
pub use guard::{ViewMut, ViewRef};
pub use raw::{Indexed, IndexedMut, Iter, IterMut};
pub use slicing::{RankUp, SliceArg, SliceSpec};
#[cfg(feature = "cudarc-interop")]
pub use cuda_interop::{CudaMut, CudaRef};

use crate::dual_view::RawDualView;
use crate::element::Element;
use crate::error::{bail, Result};
use crate::side::Side;
use crate::extents::{DynRank, Extents};
use crate::layout::{Layout, Mapping, Slice};
use crate::space::Stream;
use crate::stats::Stats;
use crate::element::ElemSpec;
use std::fmt;
use std::marker::PhantomData;

/// A typed DualView: a host mirror and a device view of one `T` array with
/// extents `E`, shared modified flags, and sync. Clones share everything.
///
/// ```
/// use dualview::{DualView, Dims, Space};
/// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
///     .device(Space::test_device(0))
///     .build()
///     .unwrap();
/// a.fill_device(1.0).unwrap();           // deep_copy(d_view, 1) + modify
/// a.sync_host().unwrap();                // copies device -> host
/// assert!(a.host().unwrap().to_vec().unwrap().iter().all(|&x| x == 1.0));
/// {
///     let mut h = a.host_mut().unwrap(); // marks the host modified
///     h.set([2, 1], 5.0).unwrap();
/// }
/// assert!(a.need_sync_device());
/// assert_eq!(*a.device().unwrap().get([2, 1]).unwrap(), 5.0); // guard synced first
/// ```
pub struct DualView<T: Element, E: Extents = DynRank> {
    raw: RawDualView,
    _t: PhantomData<fn() -> (T, E)>,
}

impl<T: Element, E: Extents> Clone for DualView<T, E> {
    fn clone(&self) -> Self {
        DualView { raw: self.raw.clone(), _t: PhantomData }
    }
}

impl<T: Element, E: Extents> fmt::Debug for DualView<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.raw.fmt(f)
    }
}

impl<T: Element, E: Extents> DualView<T, E> {
    /// A zero-filled, single-space (host) DualView in LayoutRight, like a
    /// Kokkos host-only build. Use [`DualView::builder`] for a device.
    ///
    /// ```
    /// # use dualview::{DualView, Const, Dyn, Extents};
    /// let a = DualView::<i32, (Dyn, Const<3>)>::new("x", (Dyn::new(5), Const)).unwrap();
    /// assert_eq!((a.extent(0).unwrap(), a.extent(1).unwrap()), (5, 3));
    /// ```
    pub fn new(label: &str, extents: E) -> Result<Self> {
        Self::builder(label, extents).build()
    }

    /// Options for a new DualView.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.label(), "A");
    /// ```
    pub fn builder(label: &str, extents: E) -> Builder<T, E> {
        Builder::new(label, extents)
    }

    /// A typed handle on an untyped DualView; checks element size and extents.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, ErrorKind};
    /// let a = DualView::<f32, Dims<1>>::new("a", Dims::new([4]).unwrap()).unwrap();
    /// let raw = a.raw().clone();
    /// assert!(DualView::<f32, Dims<1>>::from_raw(raw.clone()).is_ok());
    /// assert_eq!(DualView::<f64, Dims<1>>::from_raw(raw.clone()).unwrap_err().kind(), ErrorKind::Incompatible);
    /// assert_eq!(DualView::<f32, Dims<2>>::from_raw(raw).unwrap_err().kind(), ErrorKind::RankMismatch);
    /// ```
    pub fn from_raw(raw: RawDualView) -> Result<Self> {
        let (have, want) = (raw.elem(), ElemSpec::of::<T>());
        if have.size() != want.size() || have.align() < want.align() {
            bail!(
                Incompatible,
                "DualView \"{}\" holds {}-byte elements aligned to {}, not {}-byte aligned to {}",
                raw.label(),
                have.size(),
                have.align(),
                want.size(),
                want.align()
            );
        }
        E::try_from_extents(&raw.extents())?;
        Ok(DualView { raw, _t: PhantomData })
    }

    /// The untyped handle.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.raw().label(), "A");
    /// ```
    pub fn raw(&self) -> &RawDualView {
        &self.raw
    }

    /// Convert to another extents kind (checked, like [`Extents::try_from_extents`]).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, DynRank, Const};
    /// let a = DualView::<u8>::new("a", DynRank::new(&[4]).unwrap()).unwrap();
    /// let s: DualView<u8, (Const<4>,)> = a.into_extents().unwrap();
    /// assert_eq!(s.extents().unwrap(), (Const::<4>,));
    /// ```
    pub fn into_extents<E2: Extents>(self) -> Result<DualView<T, E2>> {
        E2::try_from_extents(&self.raw.extents())?;
        Ok(DualView { raw: self.raw, _t: PhantomData })
    }

    /// The label.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.label(), "A");
    /// ```
    pub fn label(&self) -> &str {
        self.raw.label()
    }

    /// The extents, in their typed kind. `StaticMismatch` only when the
    /// untyped handle ([`DualView::raw`]) was resized to sizes `E` cannot hold.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u8, Dims<2>>::new("a", Dims::new([2, 5]).unwrap()).unwrap();
    /// assert_eq!(a.extents().unwrap().get(), [2, 5]);
    /// ```
    pub fn extents(&self) -> Result<E> {
        E::try_from_extents(&self.raw.extents())
    }

    /// The rank.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.raw.extents().rank()
    }

    /// The size of `axis`.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.extent(0).unwrap(), 3);
    /// assert!(a.extent(2).is_err());
    /// ```
    pub fn extent(&self, axis: usize) -> Result<usize> {
        self.raw.extents().extent(axis)
    }

    /// The number of elements.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.size(), 6);
    /// ```
    pub fn size(&self) -> usize {
        self.raw.extents().as_slice().iter().product()
    }

    /// The number of elements (as [`DualView::size`]; the Rust name).
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<f64, Dims<2>>::new("A", Dims::new([3, 0]).unwrap()).unwrap();
    /// assert_eq!((a.len(), a.is_empty()), (0, true));
    /// ```
    pub fn len(&self) -> usize {
        self.size()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The layout mapping.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.mapping().kokkos_strides(), vec![1, 3, 6]); // LayoutLeft: the test device stands in for a GPU
    /// ```
    pub fn mapping(&self) -> Mapping {
        self.raw.mapping()
    }

    /// The layout.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .layout(dualview::Layout::Left).device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.layout(), dualview::Layout::Left);
    /// ```
    pub fn layout(&self) -> Layout {
        self.mapping().layout()
    }

    /// The stride of `axis` in elements.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!((a.stride(0).unwrap(), a.stride(1).unwrap()), (1, 3));
    /// ```
    pub fn stride(&self, axis: usize) -> Result<usize> {
        self.mapping().stride(axis)
    }

    /// The span in elements (Kokkos `span()`).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.span(), 6);
    /// ```
    pub fn span(&self) -> usize {
        self.mapping().span()
    }

    /// Whether the span holds no gaps.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert!(a.span_is_contiguous());
    /// ```
    pub fn span_is_contiguous(&self) -> bool {
        self.mapping().span_is_contiguous()
    }

    /// Mark the host modified (`ConcurrentModification` if the device is newer).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_host().unwrap();
    /// assert!(a.need_sync_device());
    /// ```
    pub fn modify_host(&self) -> Result<()> {
        self.raw.modify(Side::Host)
    }

    /// Mark the device modified (`ConcurrentModification` if the host is newer).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_device().unwrap();
    /// assert!(a.need_sync_host());
    /// ```
    pub fn modify_device(&self) -> Result<()> {
        self.raw.modify(Side::Device)
    }

    /// Copy device to host when the device is newer.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_device(3.0).unwrap();
    /// a.sync_host().unwrap();
    /// assert_eq!(a.stats().to_host.count, 1);
    /// ```
    pub fn sync_host(&self) -> Result<()> {
        self.raw.sync(Side::Host)
    }

    /// Copy host to device when the host is newer.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(3.0).unwrap();
    /// a.sync_device().unwrap();
    /// assert!(!a.need_sync_device());
    /// ```
    pub fn sync_device(&self) -> Result<()> {
        self.raw.sync(Side::Device)
    }

    /// The host side of this handle's region was just written: `modify_host`
    /// then `sync_device` through it, in one call ([`RawDualView::push`]).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<1>>::builder("h", Dims::new([8]).unwrap()).device(Space::test_device(0)).build().unwrap();
    /// a.push_host().unwrap();
    /// assert_eq!(a.stats().to_device.bytes, 64);
    /// ```
    pub fn push_host(&self) -> Result<()> {
        self.raw.push(Side::Host)
    }

    /// The device side of this handle's region was just written: copy it to the host now.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<1>>::builder("d", Dims::new([8]).unwrap()).device(Space::test_device(0)).build().unwrap();
    /// a.push_device().unwrap();
    /// assert_eq!(a.stats().to_host.bytes, 64);
    /// ```
    pub fn push_device(&self) -> Result<()> {
        self.raw.push(Side::Device)
    }

    /// [`DualView::sync_host`] queued on `stream` (a [`Stream`], or a cudarc
    /// `&CudaStream` with the `cudarc-interop` feature); flags reset at once.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_device().unwrap();
    /// a.sync_host_on(dualview::Stream::null()).unwrap();
    /// assert!(!a.need_sync_host());
    /// ```
    pub fn sync_host_on(&self, stream: impl Into<Stream>) -> Result<()> {
        self.raw.sync_on(Side::Host, stream.into())
    }

    /// [`DualView::sync_device`] queued on `stream` (a [`Stream`], or a cudarc
    /// `&CudaStream` with the `cudarc-interop` feature); flags reset at once.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_host().unwrap();
    /// a.sync_device_on(dualview::Stream::null()).unwrap();
    /// assert!(!a.need_sync_device());
    /// ```
    pub fn sync_device_on(&self, stream: impl Into<Stream>) -> Result<()> {
        self.raw.sync_on(Side::Device, stream.into())
    }

    /// Whether the host is stale.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert!(!a.need_sync_host());
    /// ```
    pub fn need_sync_host(&self) -> bool {
        self.raw.need_sync(Side::Host)
    }

    /// Whether the device is stale.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert!(!a.need_sync_device());
    /// ```
    pub fn need_sync_device(&self) -> bool {
        self.raw.need_sync(Side::Device)
    }

    /// Forget pending changes of both sides, without copying. Refused through
    /// a const handle ([`DualView::as_const`]) and a stale subview.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_device().unwrap();
    /// a.clear_sync_state().unwrap();
    /// a.modify_host().unwrap();
    /// ```
    pub fn clear_sync_state(&self) -> Result<()> {
        self.raw.clear_sync_state()
    }

    /// New extents keeping each element's newest value (and clean elements on both sides); flags unchanged.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<1>>::new("a", Dims::new([2]).unwrap()).unwrap();
    /// a.fill_host(7).unwrap();
    /// a.resize(Dims::new([4]).unwrap()).unwrap();
    /// assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![7, 7, 0, 0]);
    /// ```
    pub fn resize(&self, extents: E) -> Result<()> {
        extents.check()?;
        self.raw.resize(&extents.to_dyn())
    }

    /// New zero-filled extents, contents dropped, flags clean.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(1.0).unwrap();
    /// a.realloc(Dims::new([1, 1]).unwrap()).unwrap();
    /// assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![0.0]);
    /// ```
    pub fn realloc(&self, extents: E) -> Result<()> {
        extents.check()?;
        self.raw.realloc(&extents.to_dyn(), true)
    }

    /// Set every host element to `value` and mark the host modified.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(2.0).unwrap();
    /// assert!(a.need_sync_device());
    /// ```
    pub fn fill_host(&self, value: T) -> Result<()> {
        self.raw.fill(Side::Host, crate::element::bytes_of(&value))
    }

    /// Set every device element to `value` and mark the device modified.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_device(2.0).unwrap();
    /// assert!(a.need_sync_host());
    /// ```
    pub fn fill_device(&self, value: T) -> Result<()> {
        self.raw.fill(Side::Device, crate::element::bytes_of(&value))
    }

    /// Kokkos `deep_copy(self, src)` between DualViews (see [`RawDualView::deep_copy`]).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// let b = DualView::<f64, Dims<2>>::builder("B", Dims::new([3, 2]).unwrap()).device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(5.0).unwrap();
    /// b.deep_copy_from(&a).unwrap();
    /// assert_eq!(*b.host().unwrap().get([2, 1]).unwrap(), 5.0);
    /// ```
    pub fn deep_copy_from<E2: Extents>(&self, src: &DualView<T, E2>) -> Result<()> {
        RawDualView::deep_copy(&self.raw, &src.raw)
    }

    /// A subview sharing memory and flags (rank reduced by index arguments).
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Slice, Space};
    /// let a = DualView::<u8, Dims<2>>::builder("a", Dims::new([4, 4]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// let row = a.subview(&[Slice::Index(1), Slice::All]).unwrap();
    /// assert_eq!(row.rank(), 1);
    /// row.modify_device().unwrap();
    /// assert!(a.need_sync_host());
    /// ```
    pub fn subview(&self, slices: &[Slice]) -> Result<DualView<T, DynRank>> {
        Ok(DualView { raw: self.raw.subview(slices)?, _t: PhantomData })
    }

    /// A subview whose rank follows from the argument types (see
    /// [`s!`](crate::s)): one argument per axis, an index drops the axis.
    /// Shares memory and flags; guards of disjoint subviews coexist.
    ///
    /// ```
    /// use dualview::{s, DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("a", Dims::from([4, 6]))
    ///     .device(Space::test_device(0)).build().unwrap();
    /// let top = a.slice(s![0..2, ..]).unwrap();
    /// let bottom = a.slice(s![2.., ..]).unwrap();
    /// let (mut t, mut b) = (top.host_mut().unwrap(), bottom.host_mut().unwrap());
    /// t[[1, 5]] = 1.0;
    /// b[[0, 5]] = 2.0;
    /// drop((t, b));
    /// assert_eq!(a.host().unwrap()[[2, 5]], 2.0);
    /// ```
    ///
    /// The number of arguments must match a rank in the type (a type error,
    /// which `cargo check` and rust-analyzer show):
    ///
    /// ```compile_fail
    /// use dualview::{s, DualView, Dims};
    /// let a = DualView::<f64, Dims<2>>::new("a", Dims::from([4, 6])).unwrap();
    /// let _ = a.slice(s![1]);
    /// ```
    pub fn slice<S: SliceSpec<E>>(&self, spec: S) -> Result<DualView<T, S::Out>> {
        Ok(DualView { raw: self.raw.subview(&spec.to_slices())?, _t: PhantomData })
    }

    /// A handle with const data sharing everything: a sync that would copy
    /// answers `ConstSync`, and write access is refused.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_device().unwrap();
    /// assert!(a.as_const().sync_host().is_err());
    /// ```
    pub fn as_const(&self) -> DualView<T, E> {
        DualView { raw: self.raw.as_const(), _t: PhantomData }
    }

    /// Transfer counters of this DualView family.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// assert_eq!(a.stats().to_device.count, 0);
    /// ```
    pub fn stats(&self) -> Stats {
        self.raw.stats()
    }
}
