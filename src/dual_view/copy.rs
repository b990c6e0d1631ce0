//! Data-moving calls other than sync: fill, deep copy, view fill and copy.
//! Each holds the family lock (two families: in address order) and the
//! borrows of the sides it writes and reads for the whole operation.

use super::flags::{self, REST};
use super::{in_flight, lock_pair, RawDualView, State};
use crate::error::Result;
use crate::side::Side;
use crate::space::{self, Space, Stream};

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
        self.settle_locked(&mut st)?;
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
        let mut st = self.shared.write();
        self.settle_locked(&mut st)?;
        self.placement(&st)?;
        let v = self.view_in(&st, side)?;
        let _range = self.fill_range(&st, side);
        self.exclusive(&st, side, side)?.fill(&v, value).map_err(|e| self.err_on(e, Some(side)))
    }

    /// The NVTX range of a fill of the device side (host fills are plain host loops).
    fn fill_range(&self, st: &State, side: Side) -> Option<crate::tools::nvtx::Range> {
        (side == Side::Device && !self.shared.single).then(|| {
            crate::tools::nvtx::range(|| {
                let n = self.bounds(st).len() * self.shared.elem.size();
                format!("dualview fill \"{}\" device {}", self.shared.label, crate::tools::nvtx::bytes(n))
            })
        })
    }

    fn fill_locked(&self, st: &State, side: Side, value: &[u8]) -> Result<()> {
        self.placement(st)?;
        let _range = self.fill_range(st, side);
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
        Self::deep_copy_impl(dst, src, None)
    }

    /// [`RawDualView::deep_copy`] ordered on `stream` (Kokkos `deep_copy(exec,
    /// dst, src)`): returns once queued; `dst` is marked at once, and its
    /// blocking calls wait for the copy (`in_flight.rs`). The source must
    /// not be written until the stream has run it, as in Kokkos.
    ///
    /// ```
    /// use dualview::{space::stream, RawDualView, Side, Space};
    /// let dev = Space::test_device(0);
    /// let (a, b) = (dualview::doc::raw::<f32>(&[4], dev), dualview::doc::raw::<f32>(&[4], dev));
    /// a.fill(Side::Host, &2.0f32.to_ne_bytes()).unwrap();
    /// let s = stream::create(dev).unwrap();
    /// RawDualView::deep_copy_on(&b, &a, s).unwrap();
    /// assert!(b.need_sync(Side::Device));
    /// b.sync(Side::Host).unwrap(); // waits for the copy
    /// // SAFETY: made above, used no more.
    /// unsafe { stream::destroy(dev, s) }.unwrap();
    /// ```
    pub fn deep_copy_on(dst: &RawDualView, src: &RawDualView, stream: Stream) -> Result<()> {
        Self::deep_copy_impl(dst, src, Some(stream))
    }

    fn deep_copy_impl(dst: &RawDualView, src: &RawDualView, stream: Option<Stream>) -> Result<()> {
        let side = if src.need_sync(Side::Device) { Side::Host } else { Side::Device };
        dst.check_writable("deep_copy", Some(side))?;
        let stream = queued_on(dst.space(side), src.space(side), stream);
        if stream.is_none() {
            src.settle()?; // the source is read below, under a shared lock
        }
        let (mut dst_st, src_guard) = lock_pair(&dst.shared, &src.shared);
        if stream.is_none() {
            dst.settle_locked(&mut dst_st)?;
        }
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
        Self::copy_locked(dst, &mut dst_st, side, src, src_guard.as_deref(), side, stream)?;
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
        Self::view_copy_impl(dst, dst_side, src, src_side, None)
    }

    /// [`RawDualView::view_copy`] ordered on `stream` (Kokkos `deep_copy(exec,
    /// dst, src)` of views): returns once queued; `dst`'s blocking calls wait
    /// for the copy (`in_flight.rs`). The source must not be written until
    /// the stream has run it, as in Kokkos.
    ///
    /// ```
    /// use dualview::{space::stream, RawDualView, Side, Space};
    /// let dev = Space::test_device(0);
    /// let a = dualview::doc::raw::<u8>(&[3], dev);
    /// a.view_fill(Side::Host, &[5]).unwrap();
    /// let s = stream::create(dev).unwrap();
    /// RawDualView::view_copy_on(&a, Side::Device, &a, Side::Host, s).unwrap();
    /// stream::fence(dev, s).unwrap();
    /// // SAFETY: made above, used no more.
    /// unsafe { stream::destroy(dev, s) }.unwrap();
    /// ```
    pub fn view_copy_on(dst: &RawDualView, dst_side: Side, src: &RawDualView, src_side: Side, stream: Stream) -> Result<()> {
        Self::view_copy_impl(dst, dst_side, src, src_side, Some(stream))
    }

    fn view_copy_impl(dst: &RawDualView, dst_side: Side, src: &RawDualView, src_side: Side, stream: Option<Stream>) -> Result<()> {
        dst.check_writable("view copy", Some(dst_side))?;
        let stream = queued_on(dst.space(dst_side), src.space(src_side), stream);
        if stream.is_none() {
            src.settle()?; // the source is read below, under a shared lock
        }
        let (mut dst_st, src_guard) = lock_pair(&dst.shared, &src.shared);
        if stream.is_none() {
            dst.settle_locked(&mut dst_st)?;
        }
        Self::copy_locked(dst, &mut dst_st, dst_side, src, src_guard.as_deref(), src_side, stream)
    }

    /// Copy `src`'s `src_side` into `dst`'s `dst_side` with both families
    /// locked (`src_st` is `None` when they are one family). On a stream: the
    /// stream is first ordered after the copies in flight that touch either
    /// handle's box, and this copy's event is kept by `dst`'s family.
    fn copy_locked(
        dst: &RawDualView,
        dst_st: &mut State,
        dst_side: Side,
        src: &RawDualView,
        src_st: Option<&State>,
        src_side: Side,
        stream: Option<Stream>,
    ) -> Result<()> {
        let fail = |e| dst.err_on(e, Some(dst_side));
        let _range = crate::tools::nvtx::range(|| {
            let how = if stream.is_some() { " (enqueue)" } else { "" };
            let n = dst.bounds(dst_st).len() * dst.shared.elem.size();
            format!(
                "dualview deep_copy \"{}\" {dst_side} <- \"{}\" {src_side} {}{how}",
                dst.shared.alloc_label(dst_side),
                src.shared.alloc_label(src_side),
                crate::tools::nvtx::bytes(n)
            )
        });
        let (d, s, dst_box) = {
            let src_st: &State = src_st.unwrap_or(dst_st);
            (dst.view_in(dst_st, dst_side)?, src.view_in(src_st, src_side)?, dst.bounds(dst_st))
        };
        let Some(stream) = stream else {
            let src_st: &State = src_st.unwrap_or(dst_st);
            let proof = Self::copy_proof(dst, dst_st, dst_side, src, src_st, src_side)?;
            space::fence(d.space())?;
            space::fence(s.space())?;
            return proof.copy_view(&d, &s).map_err(fail);
        };
        // A staged copy reads pageable host memory at the call: the host waits for copies into it.
        let host_reads = s.allocation().is_pageable_host();
        dst.order_after_locked(dst_st, &dst_box, stream, host_reads)?;
        match src_st {
            Some(src_st) => src.order_after(src_st, &src.bounds(src_st), stream, host_reads)?,
            // One family: the source's region may be another box than the destination's.
            None => dst.order_after(dst_st, &src.bounds(dst_st), stream, host_reads)?,
        }
        dst.begin_in_flight();
        let copied = {
            let src_st: &State = src_st.unwrap_or(dst_st);
            Self::copy_proof(dst, dst_st, dst_side, src, src_st, src_side).and_then(|p| p.copy_view_on(&d, &s, stream).map_err(fail))
        };
        let driver = space::copy_driver(d.space(), s.space());
        let event = in_flight::record(driver, stream).map_err(fail);
        if event.is_err() {
            // Nothing to wait on later: let what was queued finish now.
            let _ = space::stream::fence(driver, stream);
        }
        let mut boxes = vec![dst_box];
        if dst.same_family(src) {
            boxes.push(src.bounds(dst_st)); // the source's region is read by the copy too
        }
        // The source's blocks stay alive until the copy has run, whatever its own family does.
        let keep = vec![d.allocation().clone(), s.allocation().clone()];
        dst.end_in_flight(dst_st, event.as_ref().ok().cloned().flatten(), boxes, keep);
        copied.and(event.map(drop))
    }

    /// The proof a copy between two handles' sides needs.
    fn copy_proof<'a>(
        dst: &'a RawDualView,
        dst_st: &State,
        dst_side: Side,
        src: &'a RawDualView,
        src_st: &State,
        src_side: Side,
    ) -> Result<super::exclusive::Exclusive<'a>> {
        if dst.same_family(src) {
            dst.exclusive(dst_st, dst_side, src_side)
        } else {
            Ok(dst.exclusive(dst_st, dst_side, dst_side)?.join(src.reading(src_st, src_side)?))
        }
    }
}

/// The stream a copy from `src` into `dst` is queued on: none (a blocking
/// copy) for the default stream, and where the host copies by itself (host to
/// host memory), since nothing would order that copy after a stream's work.
fn queued_on(dst: Space, src: Space, stream: Option<Stream>) -> Option<Stream> {
    stream.filter(|s| !s.is_null() && space::copy_driver(dst, src).kind().policy().is_device)
}
