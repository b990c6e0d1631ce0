//! Flags and sync: modify, need_sync, sync, push, clear_sync_state.
//!
//! Every call through a handle covers its box `B` (the whole array for a
//! parent). The rules, from docs/SEMANTICS.md:
//!
//! | call | refused when | copies | elements of `B` after | Kokkos' counters after |
//! | --- | --- | --- | --- | --- |
//! | `modify(X)` | the other counter is set: `ConcurrentModification` | nothing | `X`-newer (the other side's change there is dropped) | `X` set |
//! | `sync(X)` | a const handle, and `B` holds other-newer elements: `ConstSync` | the other-newer elements of `B` (clean ones between them may ride along) | those clean | both clear when the other was set, even if nothing was copied |
//! | `push(X)` | as `modify(X)` | `B`, `X` to the other side | clean | both clear |
//! | `clear_sync_state` | a const handle | nothing | every element clean | both clear |

use super::checked::{Call, Wrote};
use super::borrow::Held;
use super::coherence::{Cell, Op};
use super::exclusive::Part;
use super::flags::{self, modified, newer, Blocked, CLEAN, COUNTERS, ONE_SPACE, PARTIAL};
use super::in_flight;
use super::regions::IndexBox;
use super::{RawDualView, State};
use crate::abi::{DV_TOOLS_DUAL_VIEW_MODIFY, DV_TOOLS_DUAL_VIEW_SYNC};
use crate::error::{err, Error, Result};
use crate::side::Side;
use crate::memory::{self, Deferral};
use crate::space::Stream;
use crate::stats::Moved;
use std::borrow::Cow;
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
        let lock_free = self.sub.is_none() && self.shared.check.is_none() && {
            match self.shared.flags.modify(side) {
                Ok(_) => true,
                Err(Blocked::Conflict) => return Err(self.concurrent(side)),
                Err(Blocked::Drops) => false, // the other side's newer elements are dropped under the lock
            }
        };
        if !lock_free {
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

    /// Under the lock: the flag byte, with the map's detail made to match
    /// it (a uniform byte, stored lock-free, replaced the whole map).
    pub(super) fn map_locked(&self, st: &mut State) -> u8 {
        let cur = self.shared.flags.load();
        if let Some(cell) = flags::uniform(cur) {
            st.map.set_uniform(cell);
        }
        cur
    }

    /// Under the lock: the elements of `b` that are `cell`, as boxes, by
    /// the byte `cur` and the map (read only; for another family's map).
    pub(super) fn cells_in(&self, st: &State, b: &IndexBox, cell: Cell) -> Result<Vec<IndexBox>> {
        match flags::uniform(self.shared.flags.load()) {
            Some(c) if c == cell && !b.is_empty() => Ok(vec![*b]),
            Some(_) => Ok(Vec::new()),
            None => st.map.parts(b, cell),
        }
    }

    /// Under the lock: store the map's summary, with Kokkos' `counters`, over
    /// `cur` (as read by [`RawDualView::map_locked`]; `IN_FLIGHT` may have
    /// changed since, under this lock); false when the byte moved otherwise
    /// meanwhile (a lock-free modify or clear, which replaced the whole map:
    /// the map's detail is then void).
    pub(super) fn publish(&self, st: &State, cur: u8, counters: u8) -> bool {
        if cur == ONE_SPACE {
            return true;
        }
        let fl = &self.shared.flags;
        let now = fl.load();
        if now & !flags::IN_FLIGHT != cur & !flags::IN_FLIGHT {
            return false;
        }
        fl.replace(now, flags::with_map((now & !COUNTERS) | counters, st.map.summary()))
    }

    /// `DV_TRACE`: a mark of `side` over `b` drops elements newer on the other side.
    fn trace_drops(&self, st: &State, cur: u8, side: Side, b: &IndexBox) {
        let other = side.other();
        if !crate::stats::trace_enabled() || cur & newer(other) == 0 {
            return;
        }
        let n: usize = st.map.parts(b, Cell::newer(other)).map_or(0, |p| p.iter().map(IndexBox::len).sum());
        if n > 0 {
            crate::stats::trace(format_args!(
                "\"{}\": modify_{side} drops {n} element(s) newer on the {other} side, which no sync had copied \
                 (the later mark wins, as in Kokkos)",
                self.shared.label
            ));
        }
    }

    /// Under the lock: `modify(side)` through this handle's box.
    pub(super) fn mark_locked(&self, st: &mut State, side: Side) -> Result<()> {
        let b = self.bounds(st);
        self.mark_box_locked(st, side, &b, false)
    }

    /// Under the lock: the elements of `b` become `side`-newer, and Kokkos'
    /// counter of `side` is set. Refused (nothing changes) when the other
    /// counter is set (`ConcurrentModification`), unless `overwrite` (an
    /// overwrite access, which clears it), and through a const handle when
    /// it would drop the other side's change. Copies nothing.
    pub(super) fn mark_box_locked(&self, st: &mut State, side: Side, b: &IndexBox, overwrite: bool) -> Result<()> {
        let other = side.other();
        loop {
            let cur = self.map_locked(st);
            if cur == ONE_SPACE {
                return Ok(());
            }
            if cur & modified(other) != 0 && !overwrite {
                return Err(self.concurrent(side));
            }
            let drops = cur & newer(other) != 0 && st.map.any(b, Cell::newer(other));
            if drops && self.const_data {
                return Err(self.err_on(
                    err!(
                        InvalidArgument,
                        "modify_{side}: this region holds changes of the {other} side that no sync has copied, and a \
                         modify through a const handle would drop them: sync_{side}() first, or modify through a \
                         non-const handle"
                    ),
                    Some(side),
                ));
            }
            if drops {
                self.trace_drops(st, cur, side, b);
            }
            st.map.assign(b, Cell::newer(side))?;
            if self.publish(st, cur, modified(side)) {
                return Ok(());
            }
        }
    }

    #[cold]
    pub(super) fn concurrent(&self, side: Side) -> Error {
        self.err_on(
            err!(
                ConcurrentModification,
                "modify_{side}: concurrent modification of host and device views: the {other} side was modified \
                 and not synced since (Kokkos would abort). Call sync_{side}() before writing the {side} side (it \
                 copies only what is newer on the {other} side), or clear_sync_state() to drop that change. A sync \
                 through a subview (the rows you read) also clears it, as in Kokkos; then modify the region you \
                 wrote through its subview",
                other = side.other()
            ),
            Some(side),
        )
    }

    /// Whether `side` needs a sync through this handle: Kokkos' counter of
    /// the other side is set, or an element of this handle's box is newer
    /// on the other side. Always false on one space. A stale subview
    /// answers by its family ([`RawDualView::try_need_sync`] says `Stale`).
    ///
    /// ```
    /// use dualview::{Side, Slice};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Device).unwrap();
    /// assert!(a.need_sync(Side::Host) && !a.need_sync(Side::Device));
    /// let row = a.subview(&[Slice::Index(0), Slice::All]).unwrap();
    /// row.sync(Side::Host).unwrap(); // Kokkos' counters are clear now
    /// assert!(!row.need_sync(Side::Host) && a.need_sync(Side::Host), "the other rows are still newer on the device");
    /// ```
    #[inline]
    pub fn need_sync(&self, side: Side) -> bool {
        let s = self.shared.flags.load();
        if !flags::is_stale(s, side) {
            return false;
        }
        if s & modified(side.other()) != 0 || self.sub.is_none() || s & PARTIAL == 0 {
            return true;
        }
        self.need_sync_in_box(side)
    }

    /// [`RawDualView::need_sync`] of a subview whose map is partial: look in its box.
    #[cold]
    fn need_sync_in_box(&self, side: Side) -> bool {
        let st = self.shared.read();
        let other = side.other();
        let s = self.shared.flags.load();
        match (&self.sub, flags::uniform(s)) {
            _ if s & modified(other) != 0 => true,
            (_, Some(c)) => c == Cell::newer(other),
            (Some(sub), None) if sub.generation == st.generation => st.map.any(&sub.bounds, Cell::newer(other)),
            _ => true,
        }
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
            return self.record_locked(&mut st, Wrote::Everything);
        }
        self.shared.flags.store(CLEAN);
        Ok(())
    }

    /// Bring `side` up to date in this handle's box: copy the elements newer
    /// on the other side (and nothing newer on `side`, nothing outside the
    /// box), then they are clean; Kokkos' counters clear when the other was
    /// set. Waits for outstanding device work first, like Kokkos' fence.
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

    /// [`RawDualView::sync`] ordered on `stream`: the flags are updated at once and
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

    /// This handle's box of `side` was just written: `modify(side)` and
    /// `sync(other)` through the box in one call (the copy is blocking).
    /// Since a modify copies nothing, a halo exchange moves the halo rows
    /// either way; `push` saves a call and a lock. Refused like `modify`
    /// (`ConcurrentModification` when Kokkos' other counter is set). Free on
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
        let b = self.bounds(&st);
        let cur = self.map_locked(&mut st);
        if cur & modified(target) != 0 {
            return Err(self.concurrent(side));
        }
        self.trace_drops(&st, cur, side, &b);
        // The box is marked and copied: clean afterwards. Prepared before anything changes.
        let pending = st.map.prepare(vec![(b, Op::Assign(Cell::Clean))])?;
        let t0 = Instant::now();
        let moved = {
            let _range = crate::tools::nvtx::range(|| {
                format!("dualview push_{side} \"{}\" {}", sh.label, crate::tools::nvtx::bytes(b.len() * sh.elem.size()))
            });
            self.copy_changes(&st, &[b], target, None).map_err(|e| self.err_on(e, Some(target)))?
        };
        sh.record_moved(Moved::Push(target), moved, t0.elapsed(), "");
        st.map.commit(pending);
        // Kokkos: modify_side sets its counter, sync_target clears both.
        self.publish(&st, cur, CLEAN);
        self.record_locked(&mut st, Wrote::Side(target))?;
        drop(st);
        self.report(DV_TOOLS_DUAL_VIEW_MODIFY, side);
        self.report(DV_TOOLS_DUAL_VIEW_SYNC, target);
        Ok(())
    }

    /// A sync in checked mode: the sides verified first, the record taken
    /// after; a copy queued on a stream is waited for (its result is recorded).
    #[cold]
    fn sync_checked(&self, target: Side, stream: Option<Stream>) -> Result<()> {
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

    /// Under the family lock: copy into `target` the elements of `bounds`
    /// (this handle's box) that are newer on the other side, and record
    /// them clean; Kokkos' counters clear when the other one was set, even
    /// when `bounds` held nothing to copy (Kokkos' subview sync does). A
    /// const handle that would copy answers `ConstSync`. False when nothing
    /// was to do (no copy, no counter).
    pub(super) fn sync_locked(&self, st: &mut State, target: Side, stream: Option<Stream>, bounds: IndexBox) -> Result<bool> {
        let sh = &*self.shared;
        let other = target.other();
        let cur = self.map_locked(st);
        let counters = cur & modified(other) != 0;
        if cur == ONE_SPACE || (!counters && cur & newer(other) == 0) {
            return Ok(false); // another handle synced meanwhile
        }
        let oc = Cell::newer(other);
        let whole = st.map.whole();
        let one;
        let (copy, pending): (Cow<'_, [IndexBox]>, _) = if cur & newer(other) == 0 {
            (Cow::Borrowed(&[]), None)
        } else if cur & PARTIAL == 0 && bounds.contains(&whole) {
            // The common case: all of it changed, all of it is synced. Nothing to work out (nor allocated).
            one = [whole];
            (Cow::Borrowed(&one[..]), None)
        } else {
            let copy = st.map.copy_parts(&bounds, oc, Cell::newer(target))?;
            let pending = st.map.prepare(vec![(bounds, Op::Settle(oc))])?;
            (Cow::Owned(copy), Some(pending))
        };
        if self.const_data && !copy.is_empty() {
            return Err(self.err_on(
                err!(ConstSync, "sync_{target}: calling sync on a DualView with a const data type would write the stale {target} side"),
                Some(target),
            ));
        }
        let t0 = Instant::now();
        let queued = stream.filter(|s| !s.is_null() && !copy.is_empty());
        if queued.is_some() {
            self.begin_in_flight(); // before the copy is queued: no reader sees this word clean meanwhile
        }
        let _range = (!copy.is_empty()).then(|| {
            crate::tools::nvtx::range(|| {
                let n: usize = copy.iter().map(|b| b.len()).sum::<usize>() * sh.elem.size();
                let how = if queued.is_some() { " (enqueue)" } else { "" };
                format!("dualview sync_{target} \"{}\" {}{how}", sh.label, crate::tools::nvtx::bytes(n))
            })
        });
        let copied = if copy.is_empty() { Ok(0) } else { self.copy_changes(st, &copy, target, stream).map_err(|e| self.err_on(e, Some(target))) };
        // What was queued before a failure is in flight too.
        let event = match queued {
            Some(s) => in_flight::record(sh.device_space, s).map_err(|e| self.err_on(e, Some(target))),
            None => Ok(None),
        };
        // A failed copy or event record changes nothing: the region stays not synced.
        if let (Ok(moved), Ok(_)) = (&copied, &event) {
            let moved = *moved;
            if !copy.is_empty() {
                // On the default stream the copy (or prefetch) is complete here: it synchronises itself.
                sh.record_moved(Moved::Sync(target), moved, t0.elapsed(), "");
            }
            match pending {
                Some(p) => st.map.commit(p),
                None if !copy.is_empty() => st.map.set_uniform(Cell::Clean),
                None => {}
            }
            // A lock-free whole-array modify or clear during the copy replaced the map: then
            // nothing is published (a modify that found its side newer everywhere already
            // changed no byte, and is settled here with the rest: writing a side while
            // another thread syncs it is the caller's race, as in Kokkos).
            self.publish(st, cur, if counters { CLEAN } else { cur & COUNTERS });
        }
        if let Some(s) = queued {
            if event.is_err() {
                // Nothing to wait on later: let what was queued finish now.
                let _ = memory::stream::fence(sh.device_space, s);
            }
            self.end_in_flight(st, event.as_ref().ok().cloned().flatten(), copy.into_owned(), Vec::new());
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
                memory::fence(sh.device_space)?;
            }
            let parts = boxes.iter().map(|b| part(target, b)).collect::<Result<Vec<_>>>()?;
            self.pages(st).prefetch(&parts, target, s)?;
            return Ok(0);
        }
        let proof = self.exclusive(st, target, target.other())?;
        let mut resume = false;
        if sh.pin_mirror && !boxes.is_empty() {
            // Registered once (usually already, in the background): the copies below run at
            // pinned speed. A refusal is no error: they run pageable. Nothing to copy: no
            // reason to register (that can fault in and pin a GiB on this thread). On a
            // stream a small mirror is registered too: staging it costs a host function per copy.
            // The first large copy on this thread does not wait for a registration still to
            // come: it runs through the engine's pipeline, then the registration resumes, or
            // (a block a grow left unregistered) waits for the next copying sync (G24).
            if stream.is_some_and(|s| !s.is_null()) {
                st.host.ensure_registered_for_stream();
            } else {
                let large = boxes.iter().any(|b| b.len() * es >= memory::LARGE_COPY && one_run(b, &st.mapping));
                match if large { st.host.defer_registration() } else { Deferral::No } {
                    Deferral::Resume => resume = true,
                    Deferral::NextSync => {}
                    Deferral::No => {
                        st.host.ensure_registered();
                    }
                }
            }
        }
        let pair = |b: &IndexBox| Ok((part(target, b)?, part(target.other(), b)?));
        let fence = stream.is_none().then_some(sh.device_space);
        let moved = match boxes {
            [b] => proof.transfer(&[pair(b)?], s, fence), // one box (a whole sync): nothing allocated
            _ => boxes.iter().map(pair).collect::<Result<Vec<_>>>().and_then(|pairs| proof.transfer(&pairs, s, fence)),
        };
        if resume {
            st.host.start_registration();
        }
        moved
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

/// Whether box `b` of `mapping` is one contiguous run of memory (a copy of it
/// on the default stream can take the device engine's pipeline, G24).
fn one_run(b: &IndexBox, mapping: &crate::layout::Mapping) -> bool {
    let st = mapping.strides().as_slice();
    crate::layout::plan(b.extents().as_slice(), st, st).is_some_and(|(_, outer)| outer.is_empty())
}
