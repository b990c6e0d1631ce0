//! Data-moving calls other than sync: fill, deep copy, view fill and copy.
//! Each holds the family lock (two families: in address order) and the
//! borrows of the sides it writes and reads for the whole operation.

use super::flags::{self, REST};
use super::{lock_pair, RawDualView, State};
use crate::error::Result;
use crate::side::Side;
use crate::space;

impl RawDualView {
    /// Set every element of `side` to `value` (one element's bytes) and mark
    /// that side modified (Kokkos `deep_copy(view, scalar)` + `modify`).
    /// `ConcurrentModification` when the other side is newer; nothing changes then.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.fill(Side::Device, &1.5f32.to_ne_bytes()).unwrap();
    /// assert!(a.need_sync(Side::Host));
    /// ```
    pub fn fill(&self, side: Side, value: &[u8]) -> Result<()> {
        self.check_writable("fill", Some(side))?;
        let mut st = self.shared.write();
        self.placement(&st)?;
        self.settle_rest_locked(&mut st, side)?;
        self.fill_locked(&st, side, value)?;
        self.mark_locked(&mut st, side)
    }

    /// Kokkos `deep_copy(view, scalar)` on one side: every element of this
    /// handle's `side` set to `value`, **no flags touched** (use
    /// [`RawDualView::fill`] to fill and mark in one call).
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<u16>(&[3], dualview::Space::test_device(0));
    /// a.view_fill(Side::Host, &7u16.to_ne_bytes()).unwrap();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn view_fill(&self, side: Side, value: &[u8]) -> Result<()> {
        self.check_writable("view fill", Some(side))?;
        let st = self.shared.write();
        self.placement(&st)?;
        let v = self.view_in(&st, side)?;
        self.exclusive(&st, side, side)?.fill(&v, value).map_err(|e| self.err_on(e, Some(side)))
    }

    fn fill_locked(&self, st: &State, side: Side, value: &[u8]) -> Result<()> {
        self.placement(st)?;
        if self.need_sync(side) {
            return Err(self.concurrent(side));
        }
        let v = self.view_in(st, side)?;
        self.exclusive(st, side, side)?.fill(&v, value).map_err(|e| self.err_on(e, Some(side)))
    }

    /// Kokkos `deep_copy(DualView dst, DualView src)`: when the source's host
    /// is newer, copy host to host and mark `dst`'s host modified; otherwise
    /// copy device to device and mark `dst`'s device modified. Checks first, so
    /// a refused copy changes nothing.
    ///
    /// ```
    /// use dualview::{RawDualView, Side, Space};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], Space::test_device(0));
    /// let b = dualview::doc::raw::<f32>(&[4, 2], Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// RawDualView::deep_copy(&b, &a).unwrap();
    /// assert!(b.need_sync(Side::Device));
    /// ```
    pub fn deep_copy(dst: &RawDualView, src: &RawDualView) -> Result<()> {
        let side = if src.need_sync(Side::Device) { Side::Host } else { Side::Device };
        dst.check_writable("deep_copy", Some(side))?;
        let (mut dst_st, src_guard) = lock_pair(&dst.shared, &src.shared);
        {
            // Every check before anything changes.
            let src_st: &State = src_guard.as_deref().unwrap_or(&dst_st);
            let (d, s) = (dst.view_in(&dst_st, side)?, src.view_in(src_st, side)?);
            let state = dst.shared.flags.load();
            if flags::is_stale(state, side) && state & REST == 0 {
                return Err(dst.concurrent(side));
            }
            d.check_copyable_from(&s).map_err(|e| dst.err_on(e, Some(side)))?;
        }
        dst.settle_rest_locked(&mut dst_st, side)?;
        {
            let src_st: &State = src_guard.as_deref().unwrap_or(&dst_st);
            Self::copy_locked(dst, &dst_st, side, src, src_st, side)?;
        }
        drop(src_guard);
        dst.mark_locked(&mut dst_st, side)
    }

    /// Kokkos `deep_copy(View, View)` between one side of each handle (across
    /// spaces and layouts): **no flags touched**. Holds both families' locks.
    ///
    /// ```
    /// use dualview::{RawDualView, Side, Space};
    /// let a = dualview::doc::raw::<u8>(&[3], Space::test_device(0));
    /// let b = dualview::doc::raw::<u8>(&[3], Space::HOST);
    /// a.view_fill(Side::Device, &[5]).unwrap();
    /// RawDualView::view_copy(&b, Side::Host, &a, Side::Device).unwrap();
    /// assert_eq!(b.view(Side::Host).unwrap().label(), "A");
    /// ```
    pub fn view_copy(dst: &RawDualView, dst_side: Side, src: &RawDualView, src_side: Side) -> Result<()> {
        dst.check_writable("view copy", Some(dst_side))?;
        let (dst_st, src_guard) = lock_pair(&dst.shared, &src.shared);
        let src_st: &State = src_guard.as_deref().unwrap_or(&dst_st);
        Self::copy_locked(dst, &dst_st, dst_side, src, src_st, src_side)
    }

    /// Copy `src`'s `src_side` into `dst`'s `dst_side` with both families locked.
    fn copy_locked(dst: &RawDualView, dst_st: &State, dst_side: Side, src: &RawDualView, src_st: &State, src_side: Side) -> Result<()> {
        let d = dst.view_in(dst_st, dst_side)?;
        let s = src.view_in(src_st, src_side)?;
        let proof = if dst.same_family(src) {
            dst.exclusive(dst_st, dst_side, src_side)?
        } else {
            dst.exclusive(dst_st, dst_side, dst_side)?.join(src.reading(src_st, src_side)?)
        };
        space::fence(d.space())?;
        space::fence(s.space())?;
        proof.copy_view(&d, &s).map_err(|e| dst.err_on(e, Some(dst_side)))
    }
}
