//! `deep_copy` between two views, across spaces.

use super::View;
use crate::error::{bail, Result};
use crate::extents::Extents;
use crate::layout::{Layout, Mapping};
use crate::space::{self, Region, Space, Stream};
use crate::tools;

impl View {
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
            space::fence(self.space)?;
            space::fence(src.space)?;
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
        let traced = tools::wants_deep_copy();
        if traced {
            let bytes = self.size() * self.elem.size();
            tools::begin_deep_copy((self.space, self.label(), self.data()), (src.space, src.label(), src.data()), bytes);
        }
        let r = if std::sync::Arc::ptr_eq(self.allocation(), src.allocation()) {
            // Within one block the copy goes through a buffer on the host's time: on a
            // stream, first wait for the stream's earlier work (the copy must follow it).
            let fenced = if stream.is_null() { Ok(()) } else { space::stream::fence(self.space, stream) };
            fenced.and_then(|()| self.copy_staged(src))
        } else if fence {
            // SAFETY: as below, on the default stream.
            unsafe { space::copy_fenced(self.space, &self.region(), src.space, &src.region()) }
        } else {
            // SAFETY: both regions are the views' mappings inside distinct live
            // allocations; exclusivity is the caller's contract.
            unsafe { space::copy(self.space, &self.region(), src.space, &src.region(), stream) }
        };
        if traced {
            tools::end_deep_copy();
        }
        r
    }

    /// Copy through a packed host buffer (the two views share memory). Always
    /// synchronous: the buffer is freed on return, so no copy may still read it.
    fn copy_staged(&self, src: &View) -> Result<()> {
        let packed = Mapping::new(Layout::Right, *self.extents())?;
        let tmp = View::new("dualview::staging", self.elem, packed, Space::HOST, false)?;
        let tr: Region = tmp.region();
        // SAFETY: tmp is a fresh host allocation distinct from both views; both
        // copies use the default stream and are complete when they return.
        unsafe {
            space::copy(Space::HOST, &tr, src.space, &src.region(), Stream::null())?;
            space::copy(self.space, &self.region(), Space::HOST, &tr, Stream::null())
        }
    }
}
