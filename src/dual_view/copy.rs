//! Data-moving calls other than sync: fill, deep copy, view fill and copy.
//! Each holds the family lock (two families: in address order) and the
//! borrows of the sides it writes and reads for the whole operation.

use super::checked::{Call, Wrote};
use super::coherence::{Cell, Op};
use super::flags::modified;
use super::regions::IndexBox;
use super::{in_flight, lock_pair, RawDualView, State};
use crate::error::{err, Result};
use crate::layout::Slice;
use crate::side::Side;
use crate::memory;
use crate::space::{Space, Stream};
use crate::stats::Moved;
use std::time::Instant;

impl RawDualView {
    /// Set every element of this handle's `side` to `value` (one element's
    /// bytes) and mark them modified (Kokkos `deep_copy(view, scalar)` +
    /// `modify`). `ConcurrentModification` when Kokkos' counter of the other
    /// side is set; nothing changes then. Copies nothing into the other side.
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
        self.verify_locked(&mut st, Call::Modify(side))?;
        if value.len() != self.shared.elem.size() {
            let e = err!(InvalidArgument, "fill value has {} bytes, the element has {}", value.len(), self.shared.elem.size());
            return Err(self.err_on(e, Some(side)));
        }
        // Mark, then write (Kokkos allows either order): all that can refuse the call
        // (the other counter, the map's memory) comes before the data changes.
        self.mark_locked(&mut st, side)?;
        self.fill_view_locked(&st, side, value)?;
        self.record_locked(&mut st, Wrote::Side(side))
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
        self.fill_view_locked(&st, side, value)
    }

    /// Fill this handle's box of `side` (its NVTX range, statistics and `DV_TRACE` line).
    fn fill_view_locked(&self, st: &State, side: Side, value: &[u8]) -> Result<()> {
        let n = self.bounds(st).len() * self.shared.elem.size();
        let _range = crate::tools::nvtx::range(|| format!("dualview fill \"{}\" {side} {}", self.shared.label, crate::tools::nvtx::bytes(n)));
        let v = self.view_in(st, side)?;
        let t0 = Instant::now();
        self.exclusive(st, side, side)?.fill(&v, value).map_err(|e| self.err_on(e, Some(side)))?;
        self.shared.record_moved(Moved::Fill(side), n, t0.elapsed(), "");
        Ok(())
    }

    /// Kokkos `deep_copy(DualView dst, DualView src)`: the side Kokkos picks
    /// (the host when the source's host counter is set, else the device) is
    /// copied over the handle's box, side to side, and marked modified in
    /// `dst`; where the source's newest value is on the other side, that
    /// side is copied too and `dst` keeps it newer there, so `dst` holds
    /// the source's newest values (Kokkos would copy stale ones there).
    /// `ConcurrentModification` when `dst`'s other counter is set. Checks
    /// first, so a refused copy changes nothing.
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
    /// use dualview::{RawDualView, Side, Space};
    /// let dev = Space::test_device(0);
    /// let (a, b) = (dualview::doc::raw::<f32>(&[4], dev), dualview::doc::raw::<f32>(&[4], dev));
    /// a.fill(Side::Host, &2.0f32.to_ne_bytes()).unwrap();
    /// let s = dualview::doc::stream(dev); // stream::create(dev), kept for the examples
    /// RawDualView::deep_copy_on(&b, &a, s).unwrap();
    /// assert!(b.need_sync(Side::Device));
    /// b.sync(Side::Host).unwrap(); // waits for the copy
    /// ```
    pub fn deep_copy_on(dst: &RawDualView, src: &RawDualView, stream: Stream) -> Result<()> {
        Self::deep_copy_impl(dst, src, Some(stream))
    }

    fn deep_copy_impl(dst: &RawDualView, src: &RawDualView, stream: Option<Stream>) -> Result<()> {
        // Kokkos' choice, by its counters: the host when the source needs a device sync.
        let side = if src.shared.flags.load() & modified(Side::Host) != 0 { Side::Host } else { Side::Device };
        let other = side.other();
        dst.check_writable("deep_copy", Some(side))?;
        let stream = queued_on(dst.space(side), src.space(side), stream);
        if stream.is_none() {
            src.settle()?; // the source is read below, under a shared lock
        }
        let (mut dst_st, src_guard) = lock_pair(&dst.shared, &src.shared);
        if stream.is_none() {
            dst.settle_locked(&mut dst_st)?;
        }
        dst.placement(&dst_st)?;
        src.placement(src_guard.as_deref().unwrap_or(&dst_st))?;
        dst.verify_locked(&mut dst_st, Call::DeepCopy(side))?;
        let cur = dst.map_locked(&mut dst_st);
        // Every check, and the map's new state, before anything changes.
        let (theirs, pending) = {
            let src_st: &State = src_guard.as_deref().unwrap_or(&dst_st);
            let (d, s) = (dst.view_in(&dst_st, side)?, src.view_in(src_st, side)?);
            if dst.shared.flags.load() & modified(other) != 0 {
                return Err(dst.concurrent(side));
            }
            d.check_copyable_from(&s).map_err(|e| dst.err_on(e, Some(side)))?;
            let (db, sb) = (dst.bounds(&dst_st), src.bounds(src_st));
            // The source's elements newer on the other side, in the handles' own index space.
            let theirs = src.cells_in(src_st, &sb, Cell::newer(other))?;
            let mut local: Vec<IndexBox> = theirs.iter().map(|x| local_box(x, &sb, &src.kept_axes(src_st))).collect();
            let mut ops = vec![(db, Op::Assign(Cell::newer(side)))];
            let da = dst.kept_axes(&dst_st);
            ops.extend(local.iter().map(|x| (parent_box(x, &db, &da), Op::Assign(Cell::newer(other)))));
            if !local.is_empty() && dst.same_family(src) && db.overlaps(&sb) {
                // Both boxes in one allocation, overlapping: box-by-box copies would read what an
                // earlier one wrote. The other side goes as one view copy (staged); where the
                // source was not newer there, the map keeps `dst` newer on `side`.
                local = vec![local_box(&sb, &sb, &src.kept_axes(src_st))];
            }
            (local, dst_st.map.prepare(ops)?)
        };
        Self::copy_locked(dst, &mut dst_st, side, src, src_guard.as_deref(), side, stream, &theirs)?;
        drop(src_guard);
        dst_st.map.commit(pending);
        // A lock-free modify of dst meanwhile (of the whole array) keeps its mark.
        dst.publish(&dst_st, cur, modified(side));
        dst.record_locked(&mut dst_st, Wrote::Unknown)
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
    /// use dualview::{memory::stream, RawDualView, Side, Space};
    /// let dev = Space::test_device(0);
    /// let a = dualview::doc::raw::<u8>(&[3], dev);
    /// a.view_fill(Side::Host, &[5]).unwrap();
    /// let s = dualview::doc::stream(dev); // stream::create(dev), kept for the examples
    /// RawDualView::view_copy_on(&a, Side::Device, &a, Side::Host, s).unwrap();
    /// stream::fence(dev, s).unwrap();
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
        Self::copy_locked(dst, &mut dst_st, dst_side, src, src_guard.as_deref(), src_side, stream, &[])
    }

    /// Copy `src`'s `src_side` into `dst`'s `dst_side` with both families
    /// locked (`src_st` is `None` when they are one family). On a stream: the
    /// stream is first ordered after the copies in flight that touch either
    /// handle's box, and this copy's event is kept by `dst`'s family.
    #[allow(clippy::too_many_arguments)]
    fn copy_locked(
        dst: &RawDualView,
        dst_st: &mut State,
        dst_side: Side,
        src: &RawDualView,
        src_st: Option<&State>,
        src_side: Side,
        stream: Option<Stream>,
        also: &[IndexBox],
    ) -> Result<()> {
        let fail = |e| dst.err_on(e, Some(dst_side));
        let _range = crate::tools::nvtx::range(|| {
            let how = if stream.is_some() { " (enqueue)" } else { "" };
            let n = (dst.bounds(dst_st).len() + also.iter().map(IndexBox::len).sum::<usize>()) * dst.shared.elem.size();
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
        let t0 = Instant::now();
        let bytes = (dst_box.len() + also.iter().map(IndexBox::len).sum::<usize>()) * dst.shared.elem.size();
        let counted = || dst.shared.record_moved(Moved::Copy, bytes, t0.elapsed(), &src.shared.label);
        let Some(stream) = stream else {
            let src_st: &State = src_st.unwrap_or(dst_st);
            let proof = Self::copy_proof(dst, dst_st, dst_side, src, src_st, src_side)?;
            proof.copy_view(&d, &s).map_err(fail)?; // fences both devices first (G5)
            // Its borrows go before the other side's copy takes its own: a one-space `dst`
            // has one borrow flag for both sides (a fuzz finding: BUSY from a call alone).
            drop(proof);
            Self::copy_also(dst, dst_st, dst_side.other(), src, src_st, src_side.other(), also, Stream::null())?;
            counted();
            return Ok(());
        };
        // A staged copy reads pageable host memory at the call: the host waits for copies into it.
        let host_reads = s.allocation().is_pageable_host() || (!also.is_empty() && dst_side == Side::Device);
        dst.order_after_locked(dst_st, &dst_box, stream, host_reads)?;
        match src_st {
            Some(src_st) => src.order_after(src_st, &src.bounds(src_st), stream, host_reads)?,
            // One family: the source's region may be another box than the destination's.
            None => dst.order_after(dst_st, &src.bounds(dst_st), stream, host_reads)?,
        }
        dst.begin_in_flight();
        let copied = {
            let src_st: &State = src_st.unwrap_or(dst_st);
            Self::copy_proof(dst, dst_st, dst_side, src, src_st, src_side)
                .and_then(|p| p.copy_view_on(&d, &s, stream).map_err(fail))
                .and_then(|()| Self::copy_also(dst, dst_st, dst_side.other(), src, src_st, src_side.other(), also, stream))
        };
        let driver = memory::copy_driver(d.space(), s.space());
        let event = in_flight::record(driver, stream).map_err(fail);
        if event.is_err() {
            // Nothing to wait on later: let what was queued finish now.
            let _ = memory::stream::fence(driver, stream);
        }
        let mut boxes = vec![dst_box];
        if dst.same_family(src) {
            boxes.push(src.bounds(dst_st)); // the source's region is read by the copy too
        }
        // The source's blocks stay alive until the copy has run, whatever its own family does.
        let mut keep = vec![d.allocation().clone(), s.allocation().clone()];
        if !also.is_empty() {
            let src_st: &State = src_st.unwrap_or(dst_st);
            keep.extend([dst_st.side(dst_side.other()).clone(), src_st.side(src_side.other()).clone()]);
        }
        dst.end_in_flight(dst_st, event.as_ref().ok().cloned().flatten(), boxes, keep);
        copied.and(event.map(drop))?;
        counted();
        Ok(())
    }

    /// Copy the boxes of `also` (in the handles' own index space, which
    /// both share) from `src`'s `src_side` into `dst`'s `dst_side`.
    #[allow(clippy::too_many_arguments)]
    fn copy_also(
        dst: &RawDualView,
        dst_st: &State,
        dst_side: Side,
        src: &RawDualView,
        src_st: &State,
        src_side: Side,
        also: &[IndexBox],
        stream: Stream,
    ) -> Result<()> {
        if also.is_empty() {
            return Ok(());
        }
        let proof = Self::copy_proof(dst, dst_st, dst_side, src, src_st, src_side)?;
        let (dv, sv) = (dst.view_in(dst_st, dst_side)?, src.view_in(src_st, src_side)?);
        for b in also {
            let sl: Vec<Slice> = b.lo().iter().zip(b.hi()).map(|(&l, &h)| Slice::Range(l, h)).collect();
            // Views, not a transfer: both may be one allocation (a deep copy within a family).
            proof.copy_view_on(&dv.subview(&sl)?, &sv.subview(&sl)?, stream).map_err(|e| dst.err_on(e, Some(dst_side)))?;
        }
        Ok(())
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
    stream.filter(|s| !s.is_null() && memory::copy_driver(dst, src).kind().policy().is_device)
}

/// Box `x` (inside a handle's box `hb`, in the parent's index space) in the
/// handle's own index space: its kept axes `axes`, counted from the box.
fn local_box(x: &IndexBox, hb: &IndexBox, axes: &[u8]) -> IndexBox {
    let lo: Vec<usize> = axes.iter().map(|&a| x.lo()[a as usize] - hb.lo()[a as usize]).collect();
    let hi: Vec<usize> = axes.iter().map(|&a| x.hi()[a as usize] - hb.lo()[a as usize]).collect();
    IndexBox::new(&lo, &hi)
}

/// A box of a handle's own index space (`local_box`'s result) back in the
/// parent's, for a handle whose box is `hb` and kept axes `axes`.
fn parent_box(x: &IndexBox, hb: &IndexBox, axes: &[u8]) -> IndexBox {
    let (mut lo, mut hi) = (hb.lo().to_vec(), hb.hi().to_vec());
    for (k, &a) in axes.iter().enumerate() {
        let a = a as usize;
        (lo[a], hi[a]) = (hb.lo()[a] + x.lo()[k], hb.lo()[a] + x.hi()[k]);
    }
    IndexBox::new(&lo, &hi)
}
