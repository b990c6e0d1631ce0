//! Subviews: handles on a box of the parent, sharing memory and flags.

use super::{RawDualView, Sub};
use crate::error::Result;
use crate::layout::Slice;
use std::sync::Arc;

impl RawDualView {
    /// A subview sharing memory and flags with this handle's family: one
    /// [`Slice`] per axis. Its changes are recorded as its region (see
    /// `regions.rs`), so syncing never leaves the rest of the parent stale.
    ///
    /// ```
    /// use dualview::{Side, Slice};
    /// let a = dualview::doc::raw::<u8>(&[4, 4], dualview::Space::test_device(0));
    /// let b = a.subview(&[Slice::Range(1, 3), Slice::Index(0)]).unwrap();
    /// b.modify(Side::Device).unwrap();
    /// assert!(a.need_sync(Side::Host));
    /// ```
    pub fn subview(&self, slices: &[Slice]) -> Result<RawDualView> {
        let st = self.shared.read();
        let (mapping, offset) = self.placement(&st)?;
        let (m, off) = mapping.subview(slices).map_err(|e| self.err_on(e, None))?;
        let (axes, bounds) = match &self.sub {
            Some(s) => (s.axes.clone(), s.bounds),
            None => ((0..mapping.rank() as u8).collect(), self.bounds(&st)),
        };
        let (bounds, axes) = bounds.narrow(&axes, slices);
        let sub = Sub { generation: st.generation, mapping: m, offset: offset + off, bounds, axes };
        Ok(RawDualView { sub: Some(Arc::new(sub)), ..self.clone() })
    }
}
