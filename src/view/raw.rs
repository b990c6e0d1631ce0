//! What a raw [`View`] does on its caller's promise (the `unsafe` forms):
//! wrap foreign memory, fill, and `deep_copy` between two views, across spaces.

use super::View;
use crate::element::ElemSpec;
use crate::memory::{Allocation, Fence, Held, Pair, Transfer};
use std::ptr::NonNull;
use std::sync::Arc;
use crate::error::{bail, Result};
use crate::extents::Extents;
use crate::layout::{Layout, Mapping};
use crate::memory;
use crate::space::{Space, Stream};

impl View {
    /// A view over memory the caller owns; it is never freed here.
    ///
    /// # Safety
    /// `ptr` addresses at least `mapping.span()` elements of `elem` in `space`,
    /// aligned to `elem.align()`, valid for reads and writes for as long as
    /// the result or any clone of it lives.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let mut buf = [0u32; 4];
    /// let p = std::ptr::NonNull::new(buf.as_mut_ptr() as *mut u8).unwrap();
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[4]).unwrap()).unwrap();
    /// // SAFETY: buf holds 4 u32 and outlives the view.
    /// let v = unsafe { View::wrap("buf", ElemSpec::of::<u32>(), m, Space::HOST, p) }.unwrap();
    /// // SAFETY: nobody else accesses `buf` meanwhile.
    /// unsafe { v.fill(&5u32.to_ne_bytes()) }.unwrap();
    /// drop(v);
    /// assert_eq!(buf, [5; 4]);
    /// ```
    pub unsafe fn wrap(label: &str, elem: ElemSpec, mapping: Mapping, space: Space, ptr: NonNull<u8>) -> Result<View> {
        let bytes = elem.bytes(&mapping)?;
        if !(ptr.as_ptr() as usize).is_multiple_of(elem.align()) {
            bail!(InvalidArgument, "pointer {ptr:p} is not aligned to {} bytes", elem.align());
        }
        let label: Arc<str> = label.into();
        // SAFETY: forwarded contract.
        let alloc = unsafe { Allocation::wrap(space, ptr, bytes, &label) };
        Ok(View { label, elem, mapping, space, alloc, offset: 0 })
    }

    /// Set every element to `value` (one element's bytes): Kokkos `deep_copy(view, scalar)`.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u16>(), m, Space::HOST, true).unwrap();
    /// // SAFETY: no other user of the view's memory.
    /// unsafe { v.fill(&7u16.to_ne_bytes()) }.unwrap();
    /// // SAFETY: 3 initialised u16 in host memory, no other user.
    /// let s = unsafe { std::slice::from_raw_parts(v.data() as *const u16, 3) };
    /// assert_eq!(s, &[7, 7, 7]);
    /// ```
    ///
    /// # Safety
    /// No one reads or writes this view's elements meanwhile: a `View` is a
    /// shared handle, so a slice taken elsewhere (a DualView access guard,
    /// another clone) would see the data change under it. Safe code fills
    /// through a DualView (`fill_host`, `RawDualView::view_fill`), which holds
    /// the borrows; a guard's view cannot be filled without `unsafe`:
    ///
    /// ```compile_fail,E0133
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<f64, Dims<1>>::new("a", Dims::new([4]).unwrap()).unwrap();
    /// let h = a.host().unwrap();
    /// h.view().fill(&[0u8; 8]).unwrap(); // `fill` is unsafe: the slice of `h` would change under it
    /// ```
    pub unsafe fn fill(&self, value: &[u8]) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.fill_on(value, Stream::null()) }
    }

    /// [`View::fill`] ordered on `stream`.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// // SAFETY: no other user.
    /// unsafe { v.fill_on(&[1, 0, 0, 0], dualview::Stream::null()) }.unwrap();
    /// ```
    ///
    /// # Safety
    /// As [`View::fill`], until the stream has executed the fill.
    pub unsafe fn fill_on(&self, value: &[u8], stream: Stream) -> Result<()> {
        if value.len() != self.elem.size() {
            bail!(
                InvalidArgument,
                "fill value has {} bytes, the element has {}",
                value.len(),
                self.elem.size()
            );
        }
        // SAFETY: the region is this view's mapping inside its live
        // allocation; exclusivity is the caller's contract.
        let dst = unsafe { Held::writable(self.space, self.region()) };
        memory::fill(self.space, &dst, value, stream, Some((self.label(), self.span() * self.elem.size())))
    }

    /// Copy `src` into this view: Kokkos `deep_copy(dst, src)`. The extents
    /// and element sizes must match; layouts and spaces may differ.
    /// Overlapping views of one allocation go through a staging buffer.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let e = DynRank::new(&[2, 2]).unwrap();
    /// let a = View::new("a", ElemSpec::of::<u8>(), Mapping::new(Layout::Left, e).unwrap(), Space::HOST, true).unwrap();
    /// let b = View::new("b", ElemSpec::of::<u8>(), Mapping::new(Layout::Right, e).unwrap(), Space::test_device(0), true).unwrap();
    /// // SAFETY: nobody else uses `a` or `b`.
    /// unsafe { a.fill(&[9]).unwrap(); b.copy_from(&a).unwrap() };
    /// ```
    ///
    /// # Safety
    /// No one reads or writes `self`'s elements, nor writes `src`'s, meanwhile
    /// (see [`View::fill`]).
    pub unsafe fn copy_from(&self, src: &View) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.copy_from_on(src, Stream::null()) }
    }

    /// `Incompatible` unless `src` has this view's extents and element size
    /// (what [`View::copy_from`] checks before it copies).
    pub(crate) fn check_copyable_from(&self, src: &View) -> Result<()> {
        if !self.extents().same_as(src.extents()) {
            bail!(
                Incompatible,
                "deep_copy extents differ: \"{}\" {:?} <- \"{}\" {:?}",
                self.label(),
                self.extents().as_slice(),
                src.label(),
                src.extents().as_slice()
            );
        }
        if self.elem.size() != src.elem.size() {
            bail!(Incompatible, "deep_copy element sizes differ: {} <- {} bytes", self.elem.size(), src.elem.size());
        }
        Ok(())
    }

    /// [`View::copy_from`] ordered on `stream`.
    ///
    /// ```
    /// # use dualview::{DynRank, ElemSpec, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", ElemSpec::of::<u32>(), m, Space::HOST, true).unwrap();
    /// let w = View::new("w", ElemSpec::of::<u32>(), *v.mapping(), Space::test_device(0), true).unwrap();
    /// // SAFETY: nobody else uses `v` or `w`.
    /// unsafe { w.copy_from_on(&v, dualview::Stream::null()) }.unwrap();
    /// ```
    ///
    /// # Safety
    /// As [`View::copy_from`], until the stream has executed the copy.
    pub unsafe fn copy_from_on(&self, src: &View, stream: Stream) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.copy_from_with(src, stream, false) }
    }

    /// [`View::copy_from`] after a fence of both views' devices (Kokkos'
    /// `deep_copy`, G5), the fence and the copy under one binding.
    ///
    /// # Safety
    /// As [`View::copy_from`].
    pub(crate) unsafe fn copy_from_fenced(&self, src: &View) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.copy_from_with(src, Stream::null(), true) }
    }

    /// [`View::copy_from_on`], fenced first when asked (default stream only).
    unsafe fn copy_from_with(&self, src: &View, stream: Stream, fence: bool) -> Result<()> {
        self.check_copyable_from(src)?;
        if fence && (self.size() == 0 || std::sync::Arc::ptr_eq(self.allocation(), src.allocation())) {
            // Nothing to copy (or one block): Kokkos' deep_copy fences all the same.
            memory::fence(self.space)?;
            memory::fence(src.space)?;
        }
        if self.size() == 0 {
            return Ok(());
        }
        if std::sync::Arc::ptr_eq(self.allocation(), src.allocation())
            && self.offset == src.offset
            && self.mapping == src.mapping
        {
            return Ok(());
        }
        if std::sync::Arc::ptr_eq(self.allocation(), src.allocation()) {
            // Within one block the copy goes through a buffer on the host's time: on a
            // stream, first wait for the stream's earlier work (the copy must follow it).
            if !stream.is_null() {
                memory::stream::fence(self.space, stream)?;
            }
            let ends = ((self.space, self.label(), self.data() as *const u8), (src.space, src.label(), src.data() as *const u8));
            return memory::as_deep_copy(ends, self.size() * self.elem.size(), || self.copy_staged(src));
        }
        // SAFETY: both regions are the views' mappings inside distinct live
        // allocations; exclusivity is the caller's contract.
        let pair = [Pair::new(unsafe { Held::writable(self.space, self.region()) }, unsafe { Held::readable(src.space, src.region()) })?];
        let t = Transfer::new(self.space, src.space, &pair, stream, None)?;
        memory::run(&t, if fence { Fence::Parties } else { Fence::Nothing }, Some((self.label(), src.label())))
    }

    /// [`View::copy_from`] between two views that nobody else holds (each
    /// the only handle of its allocation, the two distinct): safe, since no
    /// one else can reach either. `Busy` otherwise.
    pub(crate) fn copy_from_unshared(&self, src: &View) -> Result<()> {
        let (d, s) = (self.allocation(), src.allocation());
        if std::sync::Arc::strong_count(d) != 1 || std::sync::Arc::strong_count(s) != 1 || std::sync::Arc::ptr_eq(d, s) {
            bail!(Busy, "copy_from_unshared: \"{}\" or \"{}\" is held elsewhere", self.label(), src.label());
        }
        // SAFETY: each view holds the only reference to its allocation.
        unsafe { self.copy_from(src) }
    }

    /// Copy through a packed host buffer (the two views share memory). Always
    /// synchronous: the buffer is freed on return, so no copy may still read it.
    fn copy_staged(&self, src: &View) -> Result<()> {
        let packed = Mapping::new(Layout::Right, *self.extents())?;
        let tmp = View::new("dualview::staging", self.elem, packed, Space::HOST, false)?;
        // SAFETY: tmp is a fresh host allocation distinct from both views; both
        // copies use the default stream and are complete when they return;
        // exclusivity of the views is the caller's contract.
        let (tw, tr) = unsafe { (Held::writable(Space::HOST, tmp.region()), Held::readable(Space::HOST, tmp.region())) };
        let (s, d) = unsafe { (Held::readable(src.space, src.region()), Held::writable(self.space, self.region())) };
        memory::run(&Transfer::new(Space::HOST, src.space, &[Pair::new(tw, s)?], Stream::null(), None)?, Fence::Nothing, None)?;
        memory::run(&Transfer::new(self.space, Space::HOST, &[Pair::new(d, tr)?], Stream::null(), None)?, Fence::Nothing, None)
    }
}
