//! Every raw pointer of the typed layer: what guards lend (references,
//! slices, iterators, ndarray views) and the arrays the builder adopts. The
//! typed layer's only `unsafe`, with cuda_interop.rs (feature `cudarc-interop`).
//!
//! What guards lend comes from safe `pub(super)` methods of [`Borrow`],
//! sound by its invariant, set by `Borrow::new` and only read afterwards:
//! `ptr` addresses the live allocation that `view` keeps, of elements of
//! the guard's type `T` (checked against the DualView's element when the
//! typed handle was made), laid out by `ext` and `strides`, borrowed at run
//! time while the `Borrow` lives (exclusively when `exclusive`), and
//! readable by the host when `host_ok`. Each method checks the rest itself:
//! the index in bounds, host access, contiguity. The `&mut` forms are
//! called only through a [`ViewMut`], whose borrow is exclusive (asserted:
//! one predictable branch).

use super::borrow::{index_fail, Borrow};
use super::builder::Builder;
use super::guard::ViewMut;
use super::iter::Walk;
use super::DualView;
use crate::dual_view::RawDualView;
use crate::element::Element;
use crate::error::{bail, err, Result};
use crate::extents::{Extents, MAX_RANK};
use crate::layout::for_each_run;
use std::marker::PhantomData;

// SAFETY: `ptr` addresses the allocation that `view` keeps alive; the guard
// hands out `&T` (shared guards) or `&mut T` (exclusive ones) under the
// run-time borrow, exactly like `&[T]` / `&mut [T]`, and `Element` types are
// `Send + Sync`.
unsafe impl Send for Borrow<'_> {}
// SAFETY: as above.
unsafe impl Sync for Borrow<'_> {}

/// Elements, slices and copies of the borrowed view.
impl Borrow<'_> {
    #[inline]
    fn host_ptr<T>(&self) -> Result<*mut T> {
        if !self.host_ok {
            return Err(self.not_host_accessible());
        }
        Ok(self.ptr as *mut T)
    }

    /// `host_ptr`, panicking (for the iterators).
    #[inline]
    #[track_caller]
    fn host_ptr_or_panic<T>(&self) -> *mut T {
        match self.host_ptr::<T>() {
            Ok(x) => x,
            Err(e) => Borrow::span_panic(e),
        }
    }

    /// The span as `(pointer, length)`, for a slice.
    #[inline]
    fn span<T>(&self) -> Result<(*mut T, usize)> {
        let n = self.contiguous_len()?;
        let p = self.host_ptr::<T>()?;
        // A slice needs a non-null pointer even when empty.
        Ok((if n == 0 { std::ptr::NonNull::dangling().as_ptr() } else { p }, n))
    }

    /// The element at `idx`; errors on a bad index or memory the host cannot read.
    #[inline]
    pub(super) fn get<T: Element>(&self, idx: &[usize]) -> Result<&T> {
        let off = self.offset(idx)?;
        let p = self.host_ptr::<T>()?;
        // SAFETY: off < span inside the live, host-accessible allocation,
        // borrowed for the guard's lifetime.
        Ok(unsafe { &*p.add(off) })
    }

    /// `get`, mutably.
    #[inline]
    pub(super) fn get_mut<T: Element>(&mut self, idx: &[usize]) -> Result<&mut T> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        let off = self.offset(idx)?;
        let p = self.host_ptr::<T>()?;
        // SAFETY: as `get`, and the borrow is exclusive.
        Ok(unsafe { &mut *p.add(off) })
    }

    /// The whole span, when contiguous and host-accessible.
    #[inline]
    pub(super) fn as_slice<T: Element>(&self) -> Result<&[T]> {
        let (p, n) = self.span::<T>()?;
        // SAFETY: n contiguous, initialised elements, borrowed for the guard's lifetime.
        Ok(unsafe { std::slice::from_raw_parts(p, n) })
    }

    /// `as_slice`, mutably.
    #[inline]
    pub(super) fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T]> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        let (p, n) = self.span::<T>()?;
        // SAFETY: n contiguous elements, exclusively borrowed for the guard's lifetime.
        Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
    }

    /// `as_slice`, panicking (`Deref`).
    #[inline]
    #[track_caller]
    pub(super) fn span_slice<T: Element>(&self) -> &[T] {
        match self.as_slice() {
            Ok(s) => s,
            Err(e) => Borrow::span_panic(e),
        }
    }

    /// `as_mut_slice`, panicking (`DerefMut`).
    #[inline]
    #[track_caller]
    pub(super) fn span_slice_mut<T: Element>(&mut self) -> &mut [T] {
        match self.as_mut_slice() {
            Ok(s) => s,
            Err(e) => Borrow::span_panic(e),
        }
    }

    /// The element pointer for `[]` with a rank in the type (checked equal
    /// to the view's when the guard was made): panics like slice indexing.
    #[inline(always)]
    #[track_caller]
    fn fixed_ptr<T, const R: usize>(&self, idx: &[usize; R]) -> *mut T {
        let mut off = 0;
        let mut bad = false;
        for ((&i, &b), &s) in idx.iter().zip(&self.bounds).zip(&self.strides) {
            bad |= i >= b;
            off += i * s;
        }
        if bad {
            index_fail(idx, self.ext, self.rank, self.host_ok);
        }
        (self.ptr as *mut T).wrapping_add(off)
    }

    /// The element pointer for `[]` (run-time rank): panics like slice indexing.
    #[inline(always)]
    #[track_caller]
    fn dyn_ptr<T>(&self, idx: &[usize]) -> *mut T {
        match self.locate(idx) {
            Some(off) if self.host_ok => (self.ptr as *mut T).wrapping_add(off),
            _ => index_fail(idx, self.ext, self.rank, self.host_ok),
        }
    }

    /// `h[[i, j]]` with a rank in the type.
    #[inline(always)]
    #[track_caller]
    pub(super) fn at_fixed<T: Element, const R: usize>(&self, idx: &[usize; R]) -> &T {
        // SAFETY: fixed_ptr checked bounds and host access; borrowed for '_.
        unsafe { &*self.fixed_ptr::<T, R>(idx) }
    }

    /// `at_fixed`, mutably.
    #[inline(always)]
    #[track_caller]
    pub(super) fn at_fixed_mut<T: Element, const R: usize>(&mut self, idx: &[usize; R]) -> &mut T {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        // SAFETY: fixed_ptr checked bounds and host access; exclusively borrowed.
        unsafe { &mut *self.fixed_ptr::<T, R>(idx) }
    }

    /// `h[[i, j]]` with a run-time rank (a wrong length panics).
    #[inline]
    #[track_caller]
    pub(super) fn at<T: Element>(&self, idx: &[usize]) -> &T {
        // SAFETY: dyn_ptr checked rank, bounds and host access; borrowed for '_.
        unsafe { &*self.dyn_ptr::<T>(idx) }
    }

    /// `at`, mutably.
    #[inline]
    #[track_caller]
    pub(super) fn at_mut<T: Element>(&mut self, idx: &[usize]) -> &mut T {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        // SAFETY: as `at`, and exclusively borrowed.
        unsafe { &mut *self.dyn_ptr::<T>(idx) }
    }

    /// Every element in row-major index order (last index fastest).
    pub(super) fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let p = self.host_ptr::<T>()?;
        let (ext, st) = (&self.ext[..self.rank], &self.strides[..self.rank]);
        let mut out = Vec::with_capacity(self.len);
        if self.len == 0 {
            return Ok(out);
        }
        let mut idx = [0usize; MAX_RANK];
        for _ in 0..self.len {
            let off: usize = idx.iter().zip(st).map(|(i, s)| i * s).sum();
            // SAFETY: off < span, inside the live, host-accessible, borrowed allocation.
            out.push(unsafe { *p.add(off) });
            for r in (0..ext.len()).rev() {
                idx[r] += 1;
                if idx[r] < ext[r] {
                    break;
                }
                idx[r] = 0;
            }
        }
        Ok(out)
    }

    /// Set every element to `value`, in host or device memory.
    pub(super) fn fill<T: Element>(&mut self, value: T) -> Result<()> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        if !self.view.space().is_host_accessible() {
            // SAFETY: the guard holds the exclusive borrow of its region; the
            // space fills device memory (the safe form of `View::fill`).
            return unsafe { self.view.fill(crate::element::bytes_of(&value)) };
        }
        let p = self.host_ptr::<T>()?;
        let (ext, st) = self.walk_parts();
        for_each_run(ext, st, |off, n| {
            // SAFETY: every run lies inside the exclusively borrowed allocation.
            unsafe { std::slice::from_raw_parts_mut(p.add(off), n) }.fill(value);
        });
        Ok(())
    }

    /// Copy every element of `src`'s view into this one (`ViewMut::copy_from`).
    pub(super) fn copy_from(&mut self, src: &Borrow<'_>) -> Result<()> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        // SAFETY: this borrow is exclusive over its region and `src` holds a
        // shared borrow of its own: no one else writes either meanwhile, and
        // a region cannot be borrowed both ways at once.
        unsafe { self.view.copy_from(&src.view) }
    }
}

/// The iterators a guard lends.
impl Borrow<'_> {
    /// The elements in memory order; panics when the host cannot read them.
    #[track_caller]
    pub(super) fn iter<T: Element>(&self) -> Iter<'_, T> {
        let p = self.host_ptr_or_panic::<T>();
        let (ext, st) = self.walk_parts();
        // SAFETY: the view is live, host-accessible and borrowed for '_.
        unsafe { Iter::new(p, ext, st, self.contiguous) }
    }

    /// `(multi-index, element)` pairs in memory order.
    #[track_caller]
    pub(super) fn indexed<T: Element, E: Extents>(&self) -> Indexed<'_, T, E> {
        let p = self.host_ptr_or_panic::<T>();
        let (ext, st) = self.walk_parts();
        // SAFETY: as `iter`.
        unsafe { Indexed::new(p, ext, st) }
    }

    /// `iter`, mutably.
    #[track_caller]
    pub(super) fn iter_mut<T: Element>(&mut self) -> IterMut<'_, T> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        let p = self.host_ptr_or_panic::<T>();
        let (ext, st) = self.walk_parts();
        // SAFETY: live, host-accessible, exclusively borrowed for '_; each offset once.
        unsafe { IterMut::new(p, ext, st, self.contiguous) }
    }

    /// `indexed`, mutably.
    #[track_caller]
    pub(super) fn indexed_mut<T: Element, E: Extents>(&mut self) -> IndexedMut<'_, T, E> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        let p = self.host_ptr_or_panic::<T>();
        let (ext, st) = self.walk_parts();
        // SAFETY: as `iter_mut`.
        unsafe { IndexedMut::new(p, ext, st) }
    }
}

/// The ndarray views a guard lends (feature `ndarray`).
#[cfg(feature = "ndarray")]
impl Borrow<'_> {
    /// Shape and strides for ndarray, and a pointer it accepts (non-null even when empty).
    fn nd_parts<T, D: ndarray::Dimension>(&self, dim: impl Fn(&[usize]) -> D) -> Result<(ndarray::StrideShape<D>, *mut T)> {
        use ndarray::ShapeBuilder;
        let p = self.host_ptr::<T>()?;
        let p = if self.len == 0 { std::ptr::NonNull::dangling().as_ptr() } else { p };
        let (ext, st) = self.walk_parts();
        Ok((dim(ext).strides(dim(st)), p))
    }

    /// The view as an `ArrayView` of dimension `dim(extents)`, with its strides.
    pub(super) fn array<T: Element, D: ndarray::Dimension>(&self, dim: impl Fn(&[usize]) -> D) -> Result<ndarray::ArrayView<'_, T, D>> {
        let (shape, p) = self.nd_parts::<T, _>(dim)?;
        // SAFETY: host-accessible, live, borrowed for '_; strides are
        // non-negative and never alias (Mapping checks), every index in bounds.
        Ok(unsafe { ndarray::ArrayView::from_shape_ptr(shape, p) })
    }

    /// `array`, mutably.
    pub(super) fn array_mut<T: Element, D: ndarray::Dimension>(&mut self, dim: impl Fn(&[usize]) -> D) -> Result<ndarray::ArrayViewMut<'_, T, D>> {
        assert!(self.is_exclusive(), "a mutable loan of a shared borrow (a dualview bug)");
        let (shape, p) = self.nd_parts::<T, _>(dim)?;
        // SAFETY: as `array`, and the borrow is exclusive.
        Ok(unsafe { ndarray::ArrayViewMut::from_shape_ptr(shape, p) })
    }
}

enum Inner {
    /// A contiguous view: memory order is the slice's order.
    Span { next: usize, end: usize },
    Strided(Box<Walk>),
}

macro_rules! iterators {
    ($(#[$m:meta])* $iter:ident, $(#[$mi:meta])* $indexed:ident, $ptr:ty, $item:ty, $deref:ident) => {
        $(#[$m])*
        pub struct $iter<'a, T> {
            base: $ptr,
            inner: Inner,
            _t: PhantomData<$item>,
        }

        impl<'a, T> $iter<'a, T> {
            /// # Safety
            /// `base` addresses a live, host-accessible view of extents `ext`
            /// and strides `strides`, borrowed (exclusively for the mutable
            /// form) for `'a`.
            unsafe fn new(base: $ptr, ext: &[usize], strides: &[usize], contiguous: bool) -> Self {
                let inner = if contiguous {
                    Inner::Span { next: 0, end: ext.iter().product() }
                } else {
                    Inner::Strided(Box::new(Walk::new(ext, strides)))
                };
                $iter { base, inner, _t: PhantomData }
            }
        }

        impl<'a, T> Iterator for $iter<'a, T> {
            type Item = $item;
            #[inline]
            fn next(&mut self) -> Option<$item> {
                let off = match &mut self.inner {
                    Inner::Span { next, end } => {
                        if *next == *end {
                            return None;
                        }
                        *next += 1;
                        *next - 1
                    }
                    Inner::Strided(w) => w.step()?.1,
                };
                // SAFETY: every offset of the walk lies inside the view (`new`'s
                // contract), and each is visited once, so mutable items never alias.
                Some(unsafe { $deref(self.base.add(off)) })
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = match &self.inner {
                    Inner::Span { next, end } => end - next,
                    Inner::Strided(w) => w.left,
                };
                (n, Some(n))
            }
        }

        impl<T> ExactSizeIterator for $iter<'_, T> {}
        impl<T> std::iter::FusedIterator for $iter<'_, T> {}
        // SAFETY: the iterator hands out `&T` / `&mut T` of a borrowed view,
        // like `slice::Iter` / `IterMut`; `Element` types are `Send + Sync`.
        unsafe impl<T: Send + Sync> Send for $iter<'_, T> {}
        // SAFETY: as above.
        unsafe impl<T: Send + Sync> Sync for $iter<'_, T> {}

        $(#[$mi])*
        pub struct $indexed<'a, T, E: Extents> {
            base: $ptr,
            walk: Walk,
            _t: PhantomData<($item, fn() -> E)>,
        }

        impl<'a, T, E: Extents> $indexed<'a, T, E> {
            /// # Safety
            /// As the plain iterator's `new`.
            unsafe fn new(base: $ptr, ext: &[usize], strides: &[usize]) -> Self {
                $indexed { base, walk: Walk::new(ext, strides), _t: PhantomData }
            }
        }

        impl<'a, T, E: Extents> Iterator for $indexed<'a, T, E> {
            type Item = (E::Index, $item);
            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                let (idx, off) = self.walk.step()?;
                let rank = self.walk.rank();
                // SAFETY: as the plain iterator.
                Some((E::index_from(&idx[..rank]), unsafe { $deref(self.base.add(off)) }))
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                (self.walk.left, Some(self.walk.left))
            }
        }

        impl<T, E: Extents> ExactSizeIterator for $indexed<'_, T, E> {}
        impl<T, E: Extents> std::iter::FusedIterator for $indexed<'_, T, E> {}
        // SAFETY: as the plain iterator.
        unsafe impl<T: Send + Sync, E: Extents> Send for $indexed<'_, T, E> {}
        // SAFETY: as the plain iterator.
        unsafe impl<T: Send + Sync, E: Extents> Sync for $indexed<'_, T, E> {}
    };
}

/// # Safety
/// `p` points to a live `T` valid for `'a`.
#[inline(always)]
unsafe fn shared<'a, T>(p: *const T) -> &'a T {
    // SAFETY: the caller's contract.
    unsafe { &*p }
}

/// # Safety
/// `p` points to a live `T`, valid and unaliased for `'a`.
#[inline(always)]
unsafe fn unique<'a, T>(p: *mut T) -> &'a mut T {
    // SAFETY: the caller's contract.
    unsafe { &mut *p }
}

iterators!(
    /// The elements of a guard in layout order (from `iter()`).
    Iter,
    /// `(multi-index, element)` pairs of a guard in layout order (from `indexed()`).
    Indexed,
    *const T, &'a T, shared
);
iterators!(
    /// The elements of a mutable guard in layout order (from `iter_mut()`).
    IterMut,
    /// `(multi-index, element)` pairs of a mutable guard in layout order (from `indexed_mut()`).
    IndexedMut,
    *mut T, &'a mut T, unique
);

impl<T: Element, E: Extents> ViewMut<'_, T, E> {
    /// Address of the element at index 0, for writing.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// // SAFETY: element 0 of 6, host memory, exclusively borrowed.
    /// unsafe { *h.as_mut_ptr() = 3 };
    /// assert_eq!(h[[0, 0]], 3);
    /// ```
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.b.ptr as *mut T
    }
}

/// The builder's unchecked forms: no zero fill, an array adopted.
impl<T: Element, E: Extents> Builder<T, E> {
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
        let p = std::ptr::NonNull::new(host.as_mut_ptr() as *mut u8).ok_or_else(|| err!(InvalidArgument, "adopt_host: no array"))?;
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
}

impl<T: Element, E: Extents> DualView<T, E> {
    /// [`DualView::realloc`] without zero-filling.
    ///
    /// # Safety
    /// Every element must be written before it is read through this DualView.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// // SAFETY: everything is written before it is read.
    /// unsafe { a.realloc_without_initializing(Dims::new([2, 2]).unwrap()) }.unwrap();
    /// a.host_write().unwrap().fill(4.0).unwrap();
    /// ```
    pub unsafe fn realloc_without_initializing(&self, extents: E) -> Result<()> {
        extents.check()?;
        self.raw.realloc(&extents.to_dyn(), false)
    }
}
