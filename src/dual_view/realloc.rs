//! Reallocation: resize (keeping contents), realloc (dropping them), and
//! resize into a new family (the C++ wrapper's value semantics).

use super::checked::{Call, Wrote};
use super::coherence::{Cell, Map};
use super::regions::IndexBox;
use super::exclusive::{Exclusive, Part};
use super::flags::{self, CLEAN, COUNTERS, DEVICE_MODIFIED, HOST_MODIFIED};
use super::{Desc, RawDualView, Registering, State};
use crate::error::{err, Error, Result};
use crate::extents::{DynRank, Extents};
use crate::layout::{Layout, Mapping, Slice};
use crate::side::Side;
use crate::memory::{self, Allocation};
use crate::space::Stream;
use crate::stats::Moved;
use std::time::Instant;
use crate::view::View;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl RawDualView {
    /// Kokkos `resize`: new extents of the same rank, keeping each kept
    /// element's newest value, and clean elements on both sides, each copied
    /// in its own space (an element newer on the other side is stale on this
    /// one and is not copied: DECISIONS D3); new elements are zero. Kokkos'
    /// counters unchanged; each kept element keeps its state in the coherence
    /// map, and the new ones are newer on the side whose counter is set (that
    /// side may write them before its sync, as Kokkos assumes), else clean. On failure nothing changes.
    ///
    /// ```
    /// use dualview::DynRank;
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.resize(&DynRank::new(&[8, 2]).unwrap()).unwrap();
    /// assert_eq!(a.extents().as_slice(), &[8, 2]);
    /// ```
    pub fn resize(&self, extents: &DynRank) -> Result<()> {
        self.reallocate(extents, true, true)
    }

    /// Kokkos `realloc`: new extents of the same rank, contents dropped, both
    /// sides zero-filled when `init` (even at the same size, without a new
    /// allocation), flags clean. On failure nothing changes.
    ///
    /// ```
    /// use dualview::{DynRank, Side};
    /// let a = dualview::doc::raw::<f32>(&[4, 2], dualview::Space::test_device(0));
    /// a.modify(Side::Host).unwrap();
    /// a.realloc(&DynRank::new(&[1, 1]).unwrap(), true).unwrap();
    /// assert!(!a.need_sync(Side::Device));
    /// ```
    pub fn realloc(&self, extents: &DynRank, init: bool) -> Result<()> {
        self.reallocate(extents, false, init)
    }

    fn reallocate(&self, extents: &DynRank, keep: bool, init: bool) -> Result<()> {
        let what = if keep { "resize" } else { "realloc" };
        let sh = &*self.shared;
        let _range = crate::tools::nvtx::range(|| format!("dualview {what} \"{}\" to {:?}", sh.label, extents.as_slice()));
        crate::report::record_resize(&sh.label, sh.device_space);
        let fail = |e: Error| self.err_on(e, None);
        self.check_writable(what, None)?;
        if self.sub.is_some() {
            return Err(fail(err!(InvalidArgument, "{what} of a subview: resize the parent DualView instead")));
        }
        let mut st = sh.write();
        self.settle_locked(&mut st)?; // no queued copy may use the blocks replaced here
        self.verify_locked(&mut st, Call::Resize)?;
        self.reallocate_locked(&mut st, extents, keep, init)?;
        self.record_locked(&mut st, Wrote::Everything)
    }

    fn reallocate_locked(&self, st: &mut State, extents: &DynRank, keep: bool, init: bool) -> Result<()> {
        let what = if keep { "resize" } else { "realloc" };
        let sh = &*self.shared;
        let fail = |e: Error| self.err_on(e, None);
        if !st.device.is_owned() || !st.host.is_owned() {
            return Err(fail(err!(Unmanaged, "{what}: the memory is owned by the caller (a wrapped array)")));
        }
        let old = st.mapping;
        if extents.rank() != old.rank() {
            return Err(fail(err!(RankMismatch, "{what} from rank {} to rank {}: the rank cannot change", old.rank(), extents.rank())));
        }
        extents.check().map_err(fail)?;
        let mut proof = self.exclusive_all(st)?;
        if old.extents() == extents {
            if !keep {
                if init {
                    let zero = vec![0u8; sh.elem.size()];
                    for side in Side::BOTH.into_iter().take(if sh.aliased { 1 } else { 2 }) {
                        proof.fill(&self.view_in(st, side)?, &zero).map_err(fail)?;
                    }
                }
                sh.flags.store(CLEAN);
                st.map.set_uniform(Cell::Clean);
            }
            return Ok(());
        }
        let mapping = old.with_extents(*extents).map_err(fail)?;
        let bytes = sh.elem.bytes(&mapping).map_err(fail)?;
        let (cur, map) = if keep { self.resized_map(st, &mapping)? } else { (0, Map::new(&mapping)) };
        let t0 = Instant::now();
        if keep && grows_as_prefix(&old, &mapping) {
            let old_bytes = sh.elem.bytes(&old).map_err(fail)?;
            let copied = self.grow(st, &mut proof, mapping, old_bytes, bytes).map_err(fail)?;
            if copied > 0 {
                sh.record_moved(Moved::Resize, copied, t0.elapsed(), "");
            }
            st.map = map;
            self.publish(st, cur, cur & COUNTERS);
            return Ok(());
        }
        let device = Allocation::new(sh.device_space, bytes, init, &sh.label).map_err(fail)?;
        proof.admit_fresh(&device).map_err(fail)?;
        let host = if sh.aliased {
            device.clone()
        } else {
            let h = Allocation::new_mirror(sh.host_space, bytes, sh.mirror_registers_with(), init, &sh.host_label).map_err(fail)?;
            proof.admit_fresh(&h).map_err(fail)?;
            h
        };
        if keep {
            let copied = self.copy_overlap(st, &proof, &mapping, &host, &device).map_err(fail)?;
            if copied > 0 {
                sh.record_moved(Moved::Resize, copied, t0.elapsed(), "");
            }
        }
        st.mapping = mapping;
        st.host = host;
        if !sh.aliased {
            sh.adopt_mirror(&st.host, if keep { Registering::AtFirstSync } else { Registering::Now });
        }
        st.device = device;
        st.generation += 1;
        sh.generation.store(st.generation, Ordering::Release);
        st.map = map;
        if !keep {
            sh.flags.store(CLEAN);
        } else {
            self.publish(st, cur, cur & COUNTERS);
        }
        Ok(())
    }

    /// Under the lock: the flag byte and the coherence map after a resize to
    /// `mapping` (every kept element keeps its state; the new ones are newer
    /// on the side whose Kokkos counter is set, else clean), computed before
    /// anything changes (`OutOfMemory` here changes nothing).
    fn resized_map(&self, st: &mut State, mapping: &Mapping) -> Result<(u8, Map)> {
        let cur = self.map_locked(st);
        let fill = if cur & HOST_MODIFIED != 0 {
            Cell::Host
        } else if cur & DEVICE_MODIFIED != 0 {
            Cell::Device
        } else {
            Cell::Clean
        };
        let map = st.map.resized(mapping, fill).map_err(|e| self.err_on(e, None))?;
        Ok((cur, map))
    }

    /// Resize where the old contents are a prefix of the new layout (growing
    /// the slowest axis): each side grows in place when its space can (no
    /// copy: host and test-device blocks keep their address), otherwise gets a
    /// new allocation and one copy of the old bytes in its own space. All that
    /// can fail happens before anything changes.
    fn grow(&self, st: &mut State, proof: &mut Exclusive<'_>, mapping: Mapping, old_bytes: usize, new_bytes: usize) -> Result<usize> {
        let sh = &*self.shared;
        let dev_in_place = st.device.prepare_grow(new_bytes)?;
        let host_in_place = sh.aliased || st.host.prepare_grow(new_bytes)?;
        let new_dev = if dev_in_place { None } else { Some(Allocation::new(sh.device_space, new_bytes, true, &sh.label)?) };
        let new_host = if host_in_place { None } else { Some(Allocation::new_mirror(sh.host_space, new_bytes, sh.mirror_registers_with(), true, &sh.host_label)?) };
        memory::fence(sh.device_space)?;
        let mut copied = 0;
        let kept = IndexBox::whole(st.mapping.extents());
        for (side, new, old) in [(Side::Device, &new_dev, &st.device), (Side::Host, &new_host, &st.host)] {
            if let Some(n) = new {
                proof.admit_fresh(n)?;
                if old_bytes == 0 {
                    continue;
                }
                match self.kept_on(st, &kept, side)? {
                    Keep::All => {
                        let _range = self.copy_range(old_bytes);
                        copied += proof.transfer(&[(Part::prefix(n, old_bytes)?, Part::prefix(old, old_bytes)?)], Stream::null(), None)?;
                    }
                    Keep::Nothing => {}
                    // The old layout is a prefix of the new one: the old mapping addresses the new block too.
                    Keep::Boxes(boxes) => copied += self.copy_boxes(st, proof, side, &st.mapping, n, &boxes)?,
                }
            }
        }
        if dev_in_place && !st.device.grow_in_place(new_bytes)? {
            return Err(err!(Internal, "resize: the device block could not grow in place after all"));
        }
        if !sh.aliased && host_in_place && !st.host.grow_in_place(new_bytes)? {
            return Err(err!(Internal, "resize: the host block could not grow in place after all"));
        }
        if let Some(d) = new_dev {
            st.device = d;
        }
        if sh.aliased {
            st.host = st.device.clone();
        } else if let Some(h) = new_host {
            st.host = h;
        }
        if !sh.aliased {
            // A grown block's registration was taken out of the way (Allocation::grow_in_place);
            // a new block has none: register either at the first copying sync (G10, G25).
            sh.adopt_mirror(&st.host, Registering::AtFirstSync);
        }
        st.mapping = mapping;
        st.generation += 1;
        sh.generation.store(st.generation, Ordering::Release);
        Ok(copied)
    }

    /// The NVTX range of a resize's copy of `bytes` (inside the resize's own range).
    fn copy_range(&self, bytes: usize) -> crate::tools::nvtx::Range {
        crate::tools::nvtx::range(|| format!("dualview resize copy \"{}\" {}", self.shared.label, crate::tools::nvtx::bytes(bytes)))
    }

    /// Copy the index range that `st` and `mapping` share, side by side, from
    /// the current allocations into `host` / `device` (laid out by `mapping`):
    /// on each side only what it holds as newest or clean ([`Keep`]).
    fn copy_overlap(&self, st: &State, proof: &Exclusive<'_>, mapping: &Mapping, host: &Arc<Allocation>, device: &Arc<Allocation>) -> Result<usize> {
        let sh = &*self.shared;
        let (old, new) = (st.mapping.extents().as_slice(), mapping.extents().as_slice());
        let hi: Vec<usize> = old.iter().zip(new).map(|(&a, &b)| a.min(b)).collect();
        let overlap = IndexBox::new(&vec![0; hi.len()], &hi);
        let sides: &[(Side, &Arc<Allocation>)] =
            if sh.aliased { &[(Side::Device, device)] } else { &[(Side::Host, host), (Side::Device, device)] };
        memory::fence(sh.device_space)?;
        let mut copied = 0;
        for &(side, new_alloc) in sides {
            let boxes = match self.kept_on(st, &overlap, side)? {
                Keep::All => vec![overlap],
                Keep::Nothing => continue,
                Keep::Boxes(b) => b,
            };
            copied += self.copy_boxes(st, proof, side, mapping, new_alloc, &boxes)?;
        }
        Ok(copied)
    }

    /// What a resize keeps on `side` of the index box `b` (DECISIONS D3):
    /// every element the map holds clean or newer on `side`; those newer on
    /// the other side are stale here and not copied.
    fn kept_on(&self, st: &State, b: &IndexBox, side: Side) -> Result<Keep> {
        let stale = Cell::newer(side.other());
        if self.shared.aliased || !st.map.any(b, stale) {
            return Ok(Keep::All);
        }
        if !st.map.any(b, Cell::Clean) && !st.map.any(b, Cell::newer(side)) {
            return Ok(Keep::Nothing);
        }
        let mut boxes = st.map.parts(b, Cell::Clean)?;
        boxes.extend(st.map.parts(b, Cell::newer(side))?);
        // Past this many copies, one of the whole box is cheaper: the stale elements ride along.
        Ok(if boxes.len() > KEEP_BOXES { Keep::All } else { Keep::Boxes(boxes) })
    }

    /// Copy `boxes` of `side` from the current allocation (laid out by
    /// `st.mapping`) into `to` (laid out by `mapping`) on the default stream;
    /// the bytes copied.
    fn copy_boxes(&self, st: &State, proof: &Exclusive<'_>, side: Side, mapping: &Mapping, to: &Arc<Allocation>, boxes: &[IndexBox]) -> Result<usize> {
        let sh = &*self.shared;
        let bytes: usize = boxes.iter().map(|b| b.extents().as_slice().iter().product::<usize>()).sum::<usize>() * sh.elem.size();
        let _range = self.copy_range(bytes);
        let from_all = self.shared_view(st, side, st.mapping, 0);
        let to_all = View::from_parts(sh.alloc_label(side).clone(), sh.elem, *mapping, to.clone(), 0);
        for b in boxes {
            let slices: Vec<Slice> = b.lo().iter().zip(b.hi()).map(|(&l, &h)| Slice::Range(l, h)).collect();
            // Fenced by the caller; the default stream: complete on return.
            proof.copy_view_on(&to_all.subview(&slices)?, &from_all.subview(&slices)?, Stream::null())?;
        }
        Ok(bytes)
    }

    /// Kokkos-style resize into a *new* DualView: same label, element, layout
    /// and spaces, the overlapping index range copied as [`RawDualView::resize`] copies it, the flags
    /// copied. This handle and its family are untouched, so views taken from
    /// it stay valid (what the C++ wrapper's value semantics need).
    ///
    /// ```
    /// use dualview::{DynRank, Side};
    /// let a = dualview::doc::raw::<u8>(&[2], dualview::Space::test_device(0));
    /// a.fill(Side::Host, &[7]).unwrap();
    /// let b = a.resized(&DynRank::new(&[4]).unwrap()).unwrap();
    /// assert!(!a.same_family(&b) && b.need_sync(Side::Device));
    /// assert_eq!(a.extents().as_slice(), &[2]);
    /// ```
    pub fn resized(&self, extents: &DynRank) -> Result<RawDualView> {
        let sh = &*self.shared;
        let fail = |e: Error| self.err_on(e, None);
        let _range = crate::tools::nvtx::range(|| format!("dualview resize \"{}\" to {:?}", sh.label, extents.as_slice()));
        crate::report::record_resize(&sh.label, sh.device_space);
        if self.sub.is_some() {
            return Err(fail(err!(InvalidArgument, "resize of a subview: resize the parent DualView instead")));
        }
        let mut st = sh.write();
        self.settle_locked(&mut st)?; // the copy below reads both sides
        self.verify_locked(&mut st, Call::Resize)?;
        if extents.rank() != st.mapping.rank() {
            return Err(fail(err!(RankMismatch, "resize from rank {} to rank {}: the rank cannot change", st.mapping.rank(), extents.rank())));
        }
        let reading = self.reading(&st, Side::Host)?.join(self.reading(&st, Side::Device)?);
        let mapping = st.mapping.with_extents(*extents).map_err(fail)?;
        sh.elem.bytes(&mapping).map_err(fail)?; // Overflow before the map's bitmap is sized for it
        let (cur, map) = self.resized_map(&mut st, &mapping)?;
        let desc = Desc { elem: sh.elem, mapping, device: sh.device_space, host: sh.host_space, init: true, pin_mirror: sh.pin_mirror, checked: sh.check.is_some() };
        let new = RawDualView::new_registering(&sh.label, &desc, Registering::AtFirstSync)?;
        {
            let nst = new.shared.write();
            let proof = new.exclusive_all(&nst)?.join(reading);
            let t0 = Instant::now();
            let copied = self.copy_overlap(&st, &proof, &mapping, &nst.host, &nst.device).map_err(fail)?;
            if copied > 0 {
                new.shared.record_moved(Moved::Resize, copied, t0.elapsed(), "");
            }
        }
        let mut nst = new.shared.write();
        nst.map = map;
        // Kokkos' counters as the old family's; the copies in flight stay the old family's.
        new.shared.flags.store(flags::with_map(cur & COUNTERS, nst.map.summary()));
        new.record_locked(&mut nst, Wrote::Everything)?;
        drop(nst);
        Ok(new)
    }
}

/// What a resize copies on one side ([`RawDualView::kept_on`]).
enum Keep {
    /// Every element (none is stale on this side, or too fragmented to pick).
    All,
    /// None: the other side holds every element newer.
    Nothing,
    /// These boxes: the elements clean or newer on this side.
    Boxes(Vec<IndexBox>),
}

/// The most copies a resize makes on one side to skip stale elements.
const KEEP_BOXES: usize = 64;

/// Whether the old contents stay a prefix of memory under `new`: the slowest
/// axis grows (the first of LayoutRight, the last of LayoutLeft), the others stay.
fn grows_as_prefix(old: &Mapping, new: &Mapping) -> bool {
    let (a, b) = (old.extents().as_slice(), new.extents().as_slice());
    let r = a.len();
    if r == 0 || a.len() != b.len() || old.layout() != new.layout() || b.iter().product::<usize>() < a.iter().product::<usize>() {
        return false;
    }
    match old.layout() {
        Layout::Right => a[1..] == b[1..] && b[0] >= a[0],
        Layout::Left => a[..r - 1] == b[..r - 1] && b[r - 1] >= a[r - 1],
        Layout::Stride => false,
    }
}
