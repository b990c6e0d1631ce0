//! Flags and sync: modify, need_sync, sync, clear_sync_state.

use super::borrow::Held;
use super::exclusive::Part;
use super::checked::{Call, Wrote};
use super::flags::{self, is_partial, newer, Blocked, CLEAN, PARTIAL, REST};
use super::in_flight;
use super::regions::{self, record, IndexBox};
use super::{RawDualView, State};
use crate::abi::{DV_TOOLS_DUAL_VIEW_MODIFY, DV_TOOLS_DUAL_VIEW_SYNC};
use crate::error::{err, Error, Result};
use crate::side::Side;
use crate::space::{self, Stream};
use std::time::Instant;

impl RawDualView {
    /// Mark `side` modified. Errors with `ConcurrentModification` (flags
    /// unchanged) when the other side holds unsynced changes. Free on one
    /// space. Through a subview only its region is recorded as changed.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// assert!(a.modify(Side::Device).is_err());
    /// ```
    #[inline]
    pub fn modify(&self, side: Side) -> Result<()> {
        if self.modify_is_noop(side) {
            return Ok(());
        }
        self.modify_slow(side)
    }

    /// Whether `modify(side)` would succeed without changing anything (one load).
    #[inline(always)]
    pub(crate) fn modify_is_noop(&self, side: Side) -> bool {
        self.sub.is_none() && self.shared.check.is_none() && self.shared.flags.is_modified_already(side)
    }

    #[inline(never)]
    fn modify_slow(&self, side: Side) -> Result<()> {
        let flag_only = self.sub.is_none() && self.shared.check.is_none() && {
            match self.shared.flags.modify(side, true) {
                Ok(_) => true,
                Err(Blocked::Conflict) => return Err(self.concurrent(side)),
                Err(Blocked::Rest) => false, // the other side's rest is copied first, under the lock
            }
        };
        if !flag_only {
            let mut st = self.shared.write();
            self.placement(&st)?;
            self.verify_locked(&mut st, Call::Modify(side))?;
            self.mark_locked(&mut st, side)?;
            self.record_locked(&mut st, Wrote::Nothing)?;
        }
        self.report(DV_TOOLS_DUAL_VIEW_MODIFY, side);
        Ok(())
    }

    /// Tell Kokkos Tools about a DualView sync or modify of `side` (called
    /// without the family lock: a tool's callback may call back into dualview).
    pub(super) fn report(&self, event: u32, side: Side) {
        if crate::tools::wants(event)
            && let Ok(v) = self.view(side)
        {
            crate::tools::dual_view_event(event, v.label(), v.data(), side == Side::Device);
        }
    }

    /// Record a change of `side` over this handle's region, under the lock.
    /// When the other side holds the rest of a partly synced change, that
    /// rest is released first ([`RawDualView::release_rest_locked`]).
    pub(super) fn mark_locked(&self, st: &mut State, side: Side) -> Result<()> {
        let fl = &self.shared.flags;
        loop {
            let cur = fl.load();
            let next = match flags::modify_next(cur, side, self.sub.is_none()) {
                Ok(next) => next,
                Err(Blocked::Conflict) => return Err(self.concurrent(side)),
                Err(Blocked::Rest) => {
                    self.release_rest_locked(st, side)?;
                    continue;
                }
            };
            let Some(sub) = &self.sub else {
                if next == cur || fl.replace(cur, next) {
                    return Ok(());
                }
                continue;
            };
            if next == cur && !is_partial(cur) {
                return Ok(()); // already newer everywhere
            }
            // Partial before (this side's boxes, or a rest it keeps): add ours; clean before: ours alone.
            let mut boxes = if is_partial(cur) { st.dirty.clone() } else { Vec::new() };
            let next = if record(&mut boxes, sub.bounds) { next } else { newer(side) }; // too many: the whole array
            if fl.replace(cur, next) {
                st.dirty = boxes;
                return Ok(());
            }
        }
    }

    /// Before writing `side` through this handle (fill, deep copy):
    /// `ConcurrentModification` when the other side holds changes, except
    /// the rest of a partly synced change, which is released first.
    pub(super) fn settle_rest_locked(&self, st: &mut State, side: Side) -> Result<()> {
        let cur = self.shared.flags.load();
        if !flags::is_stale(cur, side) {
            return Ok(());
        }
        if cur & REST == 0 {
            return Err(self.concurrent(side));
        }
        self.release_rest_locked(st, side)
    }

    /// A write of `side` through this handle's box while the other side holds
    /// the rest of a partly synced change (after a subview sync, where Kokkos
    /// calls both sides clean): the part of the rest outside the box is copied
    /// into `side`, which is stale there; the part inside is dropped, since
    /// `side` has just written it (Kokkos marks after writing). So a modify of
    /// the whole array copies nothing, as in Kokkos, and a subview's keeps the
    /// other side's changes elsewhere. Then both sides are clean. A const
    /// handle that would copy answers `ConstSync`.
    fn release_rest_locked(&self, st: &mut State, side: Side) -> Result<()> {
        let sh = &*self.shared;
        let state = sh.flags.load();
        if state & REST == 0 || !flags::is_stale(state, side) {
            return Ok(());
        }
        let mine = self.bounds(st);
        let mut outside = st.dirty.clone();
        // Too many boxes: `remove` leaves it all, copied (more bytes, nothing lost).
        regions::remove(&mut outside, &mine);
        if !outside.is_empty() {
            if self.const_data {
                return Err(self.err_on(
                    err!(
                        ConstSync,
                        "modify_{side}: the {} side still holds changes outside this const handle's region that a \
                         subview sync left; copying them would write the {side} side: sync_{side}() through a \
                         non-const handle first",
                        side.other()
                    ),
                    Some(side),
                ));
            }
            let t0 = Instant::now();
            let moved = self.copy_changes(st, &outside, side, None).map_err(|e| self.err_on(e, Some(side)))?;
            sh.record_transfer(side, moved, t0.elapsed());
        }
        if crate::stats::trace_enabled() {
            let dropped: usize = regions::inside(&st.dirty, &mine).iter().map(|b| b.len()).sum();
            if dropped > 0 {
                crate::stats::trace(format_args!(
                    "\"{}\": a write of the {side} side drops {} element(s) of the {} side's rest, which no sync \
                     had copied yet (Kokkos semantics: the later write wins)",
                    sh.label,
                    dropped,
                    side.other()
                ));
            }
        }
        if sh.flags.replace(state, CLEAN) {
            st.dirty.clear();
        }
        Ok(())
    }

    #[cold]
    pub(super) fn concurrent(&self, side: Side) -> Error {
        self.err_on(
            err!(
                ConcurrentModification,
                "modify_{side}: concurrent modification of host and device views: the {other} side holds changes \
                 not yet synced to the {side}. Call sync_{side}() before writing the {side} side (a sync_{side}() \
                 now would copy over what the {side} side received since), or clear_sync_state() to drop them. \
                 To send only a region written on the {side} side (a halo), sync what you read through subviews \
                 first, then push_{side}() the region through its subview",
                other = side.other()
            ),
            Some(side),
        )
    }

    /// Whether `side` is stale (the other side is newer). Always false on one
    /// space. Family-wide, so it does not check whether a subview is stale:
    /// [`RawDualView::try_need_sync`] does.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Device).unwrap();
    /// assert!(a.need_sync(Side::Host) && !a.need_sync(Side::Device));
    /// ```
    #[inline]
    pub fn need_sync(&self, side: Side) -> bool {
        self.shared.flags.is_stale(side)
    }

    /// [`RawDualView::need_sync`], or `Stale` for a subview of a resized parent.
    ///
    /// ```
    /// use dualview::{DynRank, ErrorKind, Side, Slice};
    /// let a = dualview::doc::raw::<f32>(&[4], dualview::Space::test_device(0));
    /// let s = a.subview(&[Slice::Range(0, 2)]).unwrap();
    /// a.resize(&DynRank::new(&[8]).unwrap()).unwrap();
    /// assert_eq!(s.try_need_sync(Side::Host).unwrap_err().kind(), ErrorKind::Stale);
    /// ```
    pub fn try_need_sync(&self, side: Side) -> Result<bool> {
        self.check_fresh()?;
        Ok(self.need_sync(side))
    }

    /// Forget both sides' changes without copying. Refused through a const
    /// handle (it would drop another handle's changes) and a stale subview.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// a.clear_sync_state().unwrap();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn clear_sync_state(&self) -> Result<()> {
        self.check_writable("clear_sync_state", None)?;
        self.check_fresh()?;
        if self.is_checked() {
            // Both sides accepted as they are: the record starts afresh.
            let mut st = self.shared.write();
            self.shared.flags.store(CLEAN);
            return self.record_locked(&mut st, Wrote::Unknown);
        }
        self.shared.flags.store(CLEAN);
        Ok(())
    }

    /// Bring `side` up to date: when the other side is newer, copy what it
    /// changed (the regions its subviews modified, or the whole array), then
    /// both clean. Waits for outstanding device work first, like Kokkos' fence.
    ///
    /// ```
    /// use dualview::Side;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.fill(Side::Host, &2.0f32.to_ne_bytes()).unwrap();
    /// a.sync(Side::Device).unwrap();
    /// assert_eq!(a.stats().to_device.bytes, 32);
    /// ```
    #[inline]
    pub fn sync(&self, side: Side) -> Result<()> {
        if self.sync_is_noop(side) {
            return Ok(());
        }
        self.sync_slow(side, None)
    }

    /// Whether `sync(side)` does nothing (one load): a whole-array handle,
    /// `side` not stale, and no copy in flight to wait for.
    #[inline(always)]
    pub(crate) fn sync_is_noop(&self, side: Side) -> bool {
        self.sub.is_none() && self.shared.check.is_none() && flags::sync_is_noop(self.shared.flags.load(), side)
    }

    /// [`RawDualView::sync`] ordered on `stream`: the flags are reset at once and
    /// the copy is queued on the stream (Kokkos `sync(exec)`); the host never
    /// waits for device work, whatever the size (pageable memory is staged).
    /// The stream is first ordered after this DualView's copies still in
    /// flight that touch this handle's box, and a later blocking call
    /// (`sync`, `access`, copies, resize) waits for this copy: its data is
    /// never read early (DECISIONS G13).
    ///
    /// ```
    /// use dualview::{Side, Stream};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// a.sync_on(Side::Device, Stream::null()).unwrap();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn sync_on(&self, side: Side, stream: Stream) -> Result<()> {
        if self.sync_is_noop(side) {
            return Ok(());
        }
        self.sync_slow(side, Some(stream))
    }

    #[cold]
    fn sync_slow(&self, target: Side, stream: Option<Stream>) -> Result<()> {
        let sh = &*self.shared;
        self.check_fresh()?;
        if sh.check.is_some() {
            return self.sync_checked(target, stream);
        }
        if flags::sync_is_noop(sh.flags.load(), target) {
            return Ok(());
        }
        self.refuse_const_sync(target)?;
        let mut st = sh.write();
        self.placement(&st)?;
        let bounds = self.bounds(&st);
        match stream {
            None => self.settle_locked(&mut st)?,
            Some(s) => {
                // To the device from a pageable mirror: a staged copy reads it at the call.
                let host_reads = target == Side::Device && !st.in_flight.is_empty() && sh.mirror_is_pageable(&st);
                self.order_after_locked(&mut st, &bounds, s, host_reads)?
            }
        }
        if self.sync_locked(&mut st, target, stream, bounds)? {
            drop(st); // tool callbacks run without the lock
            self.report(DV_TOOLS_DUAL_VIEW_SYNC, target);
        }
        Ok(())
    }

    /// This handle's box of `side` was just written: copy the box to the
    /// other side now (blocking) and take it off any record; the rest of the
    /// flags stays. It is `modify(side)` and `sync(other)` through the box,
    /// except that a rest the other side holds outside the box (what a
    /// subview sync left) stays recorded there instead of being copied into
    /// `side` first, so a halo exchange moves the halo rows only. Inside the
    /// box `side`'s write wins. A pending change of the other side that is
    /// not such a rest is `ConcurrentModification`, as for `modify`. Free on
    /// one space.
    ///
    /// ```
    /// use dualview::{Side, Slice};
    /// let a = dualview::doc::raw::<f64>(&[6, 4], dualview::Space::test_device(0));
    /// a.modify(Side::Device).unwrap(); // a kernel wrote every row
    /// a.subview(&[Slice::Index(1), Slice::All]).unwrap().sync(Side::Host).unwrap(); // the row to send
    /// let halo = a.subview(&[Slice::Index(0), Slice::All]).unwrap();
    /// // ... MPI receives the halo row into the host side ...
    /// halo.push(Side::Host).unwrap(); // one row to the device; the other rows stay the device's
    /// assert_eq!((a.stats().to_host.bytes, a.stats().to_device.bytes), (32, 32));
    /// assert!(a.need_sync(Side::Host));
    /// ```
    pub fn push(&self, side: Side) -> Result<()> {
        self.check_writable(&format!("push_{side}"), Some(side.other()))?;
        self.check_fresh()?;
        let sh = &*self.shared;
        if sh.single {
            return Ok(());
        }
        let target = side.other();
        let mut st = sh.write();
        self.placement(&st)?;
        self.settle_locked(&mut st)?;
        self.verify_locked(&mut st, Call::Modify(side))?;
        let state = sh.flags.load();
        let b = self.bounds(&st);
        let whole = IndexBox::whole(st.mapping.extents());
        // What stays recorded, and for which side.
        let (holder, mut left) = if flags::is_stale(state, side) {
            if state & REST == 0 {
                return Err(self.concurrent(side));
            }
            (target, st.dirty.clone())
        } else if flags::is_stale(state, target) {
            (side, if is_partial(state) { st.dirty.clone() } else { vec![whole] })
        } else {
            (side, Vec::new())
        };
        if !regions::remove(&mut left, &b) {
            // Too many boxes to record: as modify then sync (more bytes, nothing lost).
            self.mark_locked(&mut st, side)?;
            self.sync_locked(&mut st, target, None, b)?;
            return self.record_locked(&mut st, Wrote::Side(target));
        }
        let t0 = Instant::now();
        let moved = self.copy_changes(&st, &[b], target, None).map_err(|e| self.err_on(e, Some(target)))?;
        sh.record_transfer(target, moved, t0.elapsed());
        let next = if left.is_empty() { CLEAN } else { newer(holder) | PARTIAL | REST };
        if sh.flags.replace(state, next) {
            st.dirty = left;
        }
        self.record_locked(&mut st, Wrote::Side(target))?;
        drop(st);
        self.report(DV_TOOLS_DUAL_VIEW_MODIFY, side);
        self.report(DV_TOOLS_DUAL_VIEW_SYNC, target);
        Ok(())
    }

    /// `ConstSync` when a sync into `target` would copy through a const handle.
    fn refuse_const_sync(&self, target: Side) -> Result<()> {
        if self.const_data && self.need_sync(target) {
            return Err(self.err_on(
                err!(ConstSync, "sync_{target}: calling sync on a DualView with a const data type would write the stale {target} side"),
                Some(target),
            ));
        }
        Ok(())
    }

    /// A sync in checked mode: the sides verified first, the record taken
    /// after; a copy queued on a stream is waited for (its result is recorded).
    #[cold]
    fn sync_checked(&self, target: Side, stream: Option<Stream>) -> Result<()> {
        self.refuse_const_sync(target)?;
        let mut st = self.shared.write();
        self.placement(&st)?;
        self.verify_locked(&mut st, Call::Sync(target))?;
        let bounds = self.bounds(&st);
        let synced = self.sync_locked(&mut st, target, stream, bounds)?;
        self.record_locked(&mut st, Wrote::Side(target))?;
        drop(st);
        if synced {
            self.report(DV_TOOLS_DUAL_VIEW_SYNC, target);
        }
        Ok(())
    }

    /// Under the family lock: copy into `target` the other side's recorded
    /// changes inside `bounds` (this handle's box), and take them off the
    /// record. What remains outside `bounds` stays recorded as the rest
    /// (`REST`); nothing remaining: both sides clean. False when `target`
    /// was not stale (nothing done).
    pub(super) fn sync_locked(&self, st: &mut State, target: Side, stream: Option<Stream>, bounds: IndexBox) -> Result<bool> {
        let sh = &*self.shared;
        let state = sh.flags.load();
        if !flags::is_stale(state, target) {
            return Ok(false); // another handle synced meanwhile
        }
        let whole = IndexBox::whole(st.mapping.extents());
        let (copy, next, rest) = if !is_partial(state) && bounds == whole {
            // The common case: all of it changed, all of it is synced. Nothing to work out.
            (vec![whole], CLEAN, Vec::new())
        } else {
            let changed = if is_partial(state) { st.dirty.clone() } else { vec![whole] };
            let mut rest = changed.clone();
            // When the record would grow too large, `remove` leaves it whole: copied again later, never missed.
            let removed = regions::remove(&mut rest, &bounds);
            let next = if removed && rest.is_empty() { CLEAN } else { newer(target.other()) | PARTIAL | REST };
            (regions::inside(&changed, &bounds), next, rest)
        };
        let t0 = Instant::now();
        let queued = stream.filter(|s| !s.is_null());
        let state = match queued {
            Some(_) => {
                self.begin_in_flight(); // before the copy is queued: no reader sees this word clean meanwhile
                state | flags::IN_FLIGHT
            }
            None => state,
        };
        let _range = crate::tools::nvtx::range(|| {
            let n: usize = copy.iter().map(|b| b.len()).sum::<usize>() * sh.elem.size();
            let how = if queued.is_some() { " (enqueue)" } else { "" };
            format!("dualview sync_{target} \"{}\" {}{how}", sh.label, crate::tools::nvtx::bytes(n))
        });
        let copied = self.copy_changes(st, &copy, target, stream).map_err(|e| self.err_on(e, Some(target)));
        // What was queued before a failure is in flight too.
        let event = match queued {
            Some(s) => in_flight::record(sh.device_space, s).map_err(|e| self.err_on(e, Some(target))),
            None => Ok(None),
        };
        if let Ok(moved) = copied {
            // On the default stream the copy (or prefetch) is complete here: it synchronises itself.
            sh.record_transfer(target, moved, t0.elapsed());
            // A side marked again during the copy keeps its mark: its change may postdate the copy.
            if sh.flags.replace(state, next) {
                st.dirty = rest;
            }
        }
        if let Some(s) = queued {
            if event.is_err() {
                // Nothing to wait on later: let what was queued finish now.
                let _ = space::stream::fence(sh.device_space, s);
            }
            self.end_in_flight(st, event.as_ref().ok().cloned().flatten(), copy, Vec::new());
        }
        copied?;
        event?;
        Ok(true)
    }

    /// Copy `boxes` (disjoint) of the other side into `target`; returns the
    /// bytes moved (0 for managed memory, which is prefetched). One backend
    /// call: the fence (default stream) and every box's copy, each region
    /// made straight from its box.
    fn copy_changes(&self, st: &State, boxes: &[IndexBox], target: Side, stream: Option<Stream>) -> Result<usize> {
        let sh = &*self.shared;
        let s = stream.unwrap_or(Stream::null());
        let es = sh.elem.size();
        let part = |side: Side, b: &IndexBox| Part::of_box(st.side(side), &st.mapping, 0, es, b);
        if sh.aliased {
            if stream.is_none() {
                space::fence(sh.device_space)?;
            }
            let parts = boxes.iter().map(|b| part(target, b)).collect::<Result<Vec<_>>>()?;
            self.pages(st).prefetch(&parts, target, s)?;
            return Ok(0);
        }
        let proof = self.exclusive(st, target, target.other())?;
        if sh.pin_mirror && !boxes.is_empty() {
            // Registered once (usually already, in the background): the copies below run at
            // pinned speed. A refusal is no error: they run pageable. Nothing to copy: no
            // reason to register (that can fault in and pin a GiB on this thread). On a
            // stream a small mirror is registered too: staging it costs a host function per copy.
            if stream.is_some_and(|s| !s.is_null()) {
                st.host.ensure_registered_for_stream();
            } else {
                st.host.ensure_registered();
            }
        }
        let mut pairs = Vec::with_capacity(boxes.len());
        for b in boxes {
            pairs.push((part(target, b)?, part(target.other(), b)?));
        }
        proof.transfer(&pairs, s, stream.is_none().then_some(sh.device_space))
    }

    /// Hold the exclusive borrow of `write` and a shared one of `read` (one
    /// exclusive borrow when they are the same flag) for one operation.
    pub(super) fn hold(&self, write: Side, read: Side) -> Result<(Held<'_>, Option<Held<'_>>)> {
        let sh = &*self.shared;
        let w = Held::take(sh.borrow(write), true).ok_or_else(|| self.busy(write, true))?;
        if std::ptr::eq(sh.borrow(write), sh.borrow(read)) {
            return Ok((w, None));
        }
        let r = Held::take(sh.borrow(read), false).ok_or_else(|| self.busy(read, false))?;
        Ok((w, Some(r)))
    }
}
