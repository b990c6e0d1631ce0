//! `deep_copy` between two views, across spaces.

use super::View;
use crate::error::{bail, Result};
use crate::extents::Extents;
use crate::layout::{Layout, Mapping};
use crate::space::{self, Region, Space, Stream};

impl View {
    /// Copy `src` into this view: Kokkos `deep_copy(dst, src)`. The extents
    /// and element sizes must match; layouts and spaces may differ.
    /// Overlapping views of one allocation go through a staging buffer.
    ///
    /// ```
    /// # use dualview::{DynRank, Elem, Layout, Mapping, Space, View};
    /// let e = DynRank::new(&[2, 2]).unwrap();
    /// let a = View::new("a", Elem::of::<u8>(), Mapping::new(Layout::Left, e).unwrap(), Space::HOST, true).unwrap();
    /// let b = View::new("b", Elem::of::<u8>(), Mapping::new(Layout::Right, e).unwrap(), Space::test_device(0), true).unwrap();
    /// a.fill(&[9]).unwrap();
    /// b.copy_from(&a).unwrap();
    /// ```
    pub fn copy_from(&self, src: &View) -> Result<()> {
        self.copy_from_on(src, Stream::null())
    }

    /// [`View::copy_from`] ordered on `stream`.
    ///
    /// ```
    /// # use dualview::{DynRank, Elem, Layout, Mapping, Space, View};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// let v = View::new("v", Elem::of::<u32>(), m, Space::HOST, true).unwrap();
    /// let w = View::new("w", Elem::of::<u32>(), *v.mapping(), Space::test_device(0), true).unwrap();
    /// w.copy_from_on(&v, dualview::Stream::null()).unwrap();
    /// ```
    pub fn copy_from_on(&self, src: &View, stream: Stream) -> Result<()> {
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
            bail!(
                Incompatible,
                "deep_copy element sizes differ: {} <- {} bytes",
                self.elem.size(),
                src.elem.size()
            );
        }
        if self.size() == 0 {
            return Ok(());
        }
        if std::sync::Arc::ptr_eq(self.allocation(), src.allocation()) {
            if self.offset == src.offset && self.mapping == src.mapping {
                return Ok(());
            }
            return self.copy_staged(src);
        }
        // SAFETY: both regions are the views' mappings inside distinct live allocations.
        unsafe { space::copy(self.space, &self.region(), src.space, &src.region(), stream) }
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
