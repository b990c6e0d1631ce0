//! Checked mode (`DV_CHECK=1`, `DV_FLAG_CHECKED`, [`Desc::checked`]): the
//! library verifies the protocol it relies on. Each side's bytes are kept as
//! they were at the end of the last call that covered them; a call through a
//! handle with box `B` compares each side in `B` with that record, and fails
//! when a side changed where it was not allowed to:
//!
//! | call (box `B`) | side | may have changed in `B` |
//! | --- | --- | --- |
//! | `modify_X`, a fill of `X`, `push_X` | `X` | everywhere (write, then mark, as Kokkos) |
//! | | the other side | nowhere: a change there is dropped by the mark, so both sides wrote it |
//! | an overwrite access of `X`, a deep copy into `X` | `X` | everywhere |
//! | | the other side | where it is newer (the call discards those changes on purpose) |
//! | any other call (sync, resize) | either side | where that side is newer (marked, not yet synced) |
//!
//! Elements outside `B` are not looked at: a program may write several
//! regions, then mark them one by one (the halo idiom); an unmarked write
//! must be marked before a call whose box covers it. After the call the
//! record takes both sides' bytes in `B`.
//!
//! A violation is `UnmarkedChange` naming the side, the first changed index
//! (lowest address), the call and its region; nothing is copied or marked,
//! and the record stays, so the call fails again until the missing `modify`
//! is made or `clear_sync_state` accepts both sides. What it cannot see is
//! in docs/DECISIONS.md (D29).
//!
//! [`Desc::checked`]: super::Desc::checked

use super::coherence::Cell;
use super::exclusive::Part;
use super::regions::IndexBox;
use super::{RawDualView, State};
use crate::error::{err, Error, ErrorKind, Result};
use crate::layout::Mapping;
use crate::side::Side;
use std::sync::OnceLock;

/// Whether `DV_CHECK` (read once) asks for checked mode for every DualView.
pub(crate) fn env_default() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| crate::env::switch("DV_CHECK"))
}

/// The call being checked, for the allowances and the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Call {
    /// `modify_<side>` (also a fill of that side, `push_<side>`).
    Modify(Side),
    /// `sync_<side>`.
    Sync(Side),
    /// An access of `side` that overwrites the box, dropping the other side's change.
    Overwrite(Side),
    /// A deep copy into the box, marking `side`.
    DeepCopy(Side),
    /// resize or realloc.
    Resize,
}

impl Call {
    fn name(self) -> String {
        match self {
            Call::Modify(s) => format!("modify_{s}()"),
            Call::Sync(s) => format!("sync_{s}()"),
            Call::Overwrite(s) => format!("an overwrite access of the {s} side"),
            Call::DeepCopy(s) => format!("a deep copy into the {s} side"),
            Call::Resize => "resize".into(),
        }
    }

    /// Whether a change of `side` is allowed at every element of the box,
    /// whatever the map holds there (the side the call marks).
    fn allows_everywhere(self, side: Side) -> bool {
        matches!(self, Call::Modify(x) | Call::Overwrite(x) | Call::DeepCopy(x) if x == side)
    }

    /// Whether a change of `side` at an element in the call's box is
    /// allowed, the element being `cell` in the map before the call.
    fn allows(self, side: Side, cell: Cell) -> bool {
        let newer_here = cell == Cell::newer(side);
        match self {
            Call::Modify(x) => x == side,
            Call::Overwrite(x) | Call::DeepCopy(x) => x == side || newer_here,
            Call::Sync(_) | Call::Resize => newer_here,
        }
    }
}

/// Each side's bytes at the end of the last call that covered them (`None`:
/// not known, as after a side could not be read: the next call takes it afresh).
#[derive(Default)]
pub(super) struct Record {
    generation: u64,
    sides: [Option<Vec<u8>>; 2],
    /// What this call's verification read, for the record after it.
    now: [Option<Read>; 2],
    /// Buffers to reuse (a read of a GiB array must not fault in fresh pages).
    spare: Vec<Vec<u8>>,
}

/// What one verification read of a side: the whole span (as the side lays
/// it out), or only the handle's box (its elements packed, row-major): a
/// call through a subview costs O(its box), not O(the array).
enum Read {
    Whole(Vec<u8>),
    Box(Vec<u8>),
}

impl Read {
    fn into_buf(self) -> Vec<u8> {
        match self {
            Read::Whole(b) | Read::Box(b) => b,
        }
    }
}

/// What a call wrote between its verification and its record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wrote {
    /// Nothing: what the verification read is still there.
    Nothing,
    /// This side (a sync's target, a fill).
    Side(Side),
    /// Either side, in the handle's box: read both again.
    Unknown,
    /// The arrays were made, replaced or accepted as they are (create,
    /// resize, `clear_sync_state`): record both sides whole.
    Everything,
}

impl RawDualView {
    /// Whether this DualView runs in checked mode.
    ///
    /// ```
    /// let a = dualview::doc::raw::<f32>(&[4], dualview::Space::test_device(0));
    /// assert_eq!(a.is_checked(), std::env::var("DV_CHECK").is_ok_and(|v| !v.is_empty() && v != "0"));
    /// ```
    pub fn is_checked(&self) -> bool {
        self.shared.check.is_some()
    }

    /// Under the family lock, before `call` copies or marks anything: fail
    /// when a side changed in this handle's box where it may not (see the
    /// module's table). Waits for copies in flight and device work first.
    pub(super) fn verify_locked(&self, st: &mut State, call: Call) -> Result<()> {
        let Some(mut record) = self.settled_record(st)? else { return Ok(()) };
        let r = &mut *record;
        for n in &mut r.now {
            r.spare.extend(n.take().map(Read::into_buf));
        }
        if r.generation != st.generation {
            return Ok(()); // the arrays were replaced: the record is taken afresh afterwards
        }
        let cur = self.map_locked(st);
        let bounds = if call == Call::Resize { st.map.whole() } else { self.bounds(st) };
        let boxed = bounds != st.map.whole();
        for side in Side::BOTH {
            let Some(before) = &r.sides[side as usize] else { continue };
            // Nothing to look at when every element may have changed.
            let uniform = super::flags::uniform(cur);
            if call.allows_everywhere(side) || uniform.is_some_and(|c| call.allows(side, c)) {
                continue;
            }
            let es = self.shared.elem.size();
            let bad = |idx: &[usize]| bounds.holds(idx) && !call.allows(side, uniform.unwrap_or_else(|| st.map.get(idx)));
            let (now, changed) = if boxed {
                let Some(now) = self.read_box(st, side, &bounds, r.spare.pop())? else { continue };
                let changed = first_change_in_box(before, &now, &st.mapping, es, &bounds, bad);
                (Read::Box(now), changed)
            } else {
                let Some(now) = self.read_side(st, side, r.spare.pop())? else { continue };
                let changed = first_change(before, &now, &st.mapping, es, bad);
                (Read::Whole(now), changed)
            };
            r.now[side as usize] = Some(now);
            if let Some(idx) = changed {
                let cell = uniform.unwrap_or_else(|| st.map.get(&idx));
                return Err(self.unmarked(side, cell, call, &idx, &bounds, &st.map.whole()));
            }
        }
        Ok(())
    }

    /// After a call: record both sides as they are now in this handle's box
    /// (everywhere for [`Wrote::Everything`]), reusing what the verification
    /// read unless the call wrote it since.
    pub(super) fn record_locked(&self, st: &mut State, wrote: Wrote) -> Result<()> {
        let Some(mut record) = self.settled_record(st)? else { return Ok(()) };
        let r = &mut *record;
        let bounds = self.bounds(st);
        let whole = wrote == Wrote::Everything || r.generation != st.generation || bounds == st.map.whole();
        let es = self.shared.elem.size();
        for side in Side::BOTH {
            let i = side as usize;
            let reusable = r.generation == st.generation
                && match wrote {
                    Wrote::Nothing => true,
                    Wrote::Side(x) => x != side,
                    Wrote::Unknown | Wrote::Everything => false,
                };
            let kept = r.now[i].take();
            if !whole && r.sides[i].is_some() {
                // The box only: what the verification read, or read it now.
                let now = match kept {
                    Some(Read::Box(n)) if reusable => Some(n),
                    other => {
                        r.spare.extend(other.map(Read::into_buf));
                        self.read_box(st, side, &bounds, r.spare.pop())?
                    }
                };
                match (now, &mut r.sides[i]) {
                    (Some(now), Some(old)) => {
                        copy_box_packed(old, &now, &st.mapping, es, &bounds);
                        r.spare.push(now);
                    }
                    // A guard holds the side for writing: not known now; the next call takes it afresh.
                    (_, slot) => r.spare.extend(slot.take()),
                }
                continue;
            }
            let now = match kept {
                Some(Read::Whole(n)) if reusable => Some(n),
                other => {
                    r.spare.extend(other.map(Read::into_buf));
                    self.read_side(st, side, r.spare.pop())?
                }
            };
            let slot = &mut r.sides[i];
            r.spare.extend(slot.take());
            *slot = now;
        }
        r.generation = st.generation;
        r.spare.truncate(2);
        Ok(())
    }

    /// The record, once copies in flight and device work are done (both
    /// sides hold what they will hold); `None` when not checked.
    fn settled_record(&self, st: &mut State) -> Result<Option<std::sync::MutexGuard<'_, Record>>> {
        let Some(check) = &self.shared.check else { return Ok(None) };
        self.settle_locked(st)?;
        crate::memory::fence(self.shared.device_space).map_err(|e| self.err_on(e, None))?;
        Ok(Some(check.lock().unwrap_or_else(|e| e.into_inner())))
    }

    /// The bytes of `side` (the mapping's span), read into `buf` when given;
    /// `None` while a guard holds it for writing.
    fn read_side(&self, st: &State, side: Side, buf: Option<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        let proof = match self.reading(st, side) {
            Ok(p) => p,
            Err(e) if e.kind() == ErrorKind::Busy => return Ok(None),
            Err(e) => return Err(e),
        };
        let bytes = st.mapping.span() * self.shared.elem.size();
        let mut out = buf.unwrap_or_default();
        out.resize(bytes, 0);
        proof.read_into(&Part::prefix(st.side(side), bytes)?, &mut out).map_err(|e| self.err_on(e, Some(side)))?;
        Ok(Some(out))
    }

    /// The elements of box `b` of `side`, packed in row-major order, read
    /// into `buf` when given; `None` while a guard holds it for writing.
    fn read_box(&self, st: &State, side: Side, b: &IndexBox, buf: Option<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        let proof = match self.reading(st, side) {
            Ok(p) => p,
            Err(e) if e.kind() == ErrorKind::Busy => return Ok(None),
            Err(e) => return Err(e),
        };
        let es = self.shared.elem.size();
        let part = Part::of_box(st.side(side), &st.mapping, 0, es, b)?;
        let mut out = buf.unwrap_or_default();
        out.resize(part.len() * es, 0);
        proof.read_into(&part, &mut out).map_err(|e| self.err_on(e, Some(side)))?;
        Ok(Some(out))
    }

    #[cold]
    fn unmarked(&self, side: Side, cell: Cell, call: Call, idx: &[usize], bounds: &IndexBox, whole: &IndexBox) -> Error {
        let other = side.other();
        let marks_other = matches!(call, Call::Modify(x) | Call::Overwrite(x) | Call::DeepCopy(x) if x == other);
        let what = if marks_other && cell == Cell::newer(side) {
            format!(
                "both sides written: the {side} side wrote this element after modify_{side}(), and {} drops these \
                 writes (it takes the element for the {other} side). Sync the {side} side's writes over before the \
                 {other} side writes there",
                call.name()
            )
        } else if cell == Cell::newer(other) {
            format!(
                "the {side} side was written where the {other} side holds the newer value, not yet synced (both sides \
                 written): sync_{side}() would overwrite these writes. Write one side between syncs, or mark the \
                 {side} side's writes with modify_{side}() before the {other} side writes there"
            )
        } else if marks_other {
            format!(
                "the {side} side changed without modify_{side}(), and {} takes the region for the {other} side: mark \
                 what was written with modify_{side}() first",
                call.name()
            )
        } else {
            format!("the {side} side changed without modify_{side}(): call modify_{side}() after writing the {side} side")
        };
        let at = idx.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        let region = if bounds == whole { String::new() } else { format!(" in its region {}", describe(bounds)) };
        self.err_on(
            err!(
                UnmarkedChange,
                "checked mode: {what}. First changed index: ({at}); found at {}{region}; nothing was copied or marked",
                call.name()
            ),
            Some(side),
        )
    }
}

/// `[lo0..hi0, lo1..hi1]`.
fn describe(b: &IndexBox) -> String {
    let axes: Vec<String> = b.lo().iter().zip(b.hi()).map(|(l, h)| format!("{l}..{h}")).collect();
    format!("[{}]", axes.join(", "))
}

/// The first index (lowest address) whose bytes differ between `before` and
/// `now` and for which `bad` holds; `None` when there is none.
fn first_change(before: &[u8], now: &[u8], mapping: &Mapping, es: usize, mut bad: impl FnMut(&[usize]) -> bool) -> Option<Vec<usize>> {
    const CHUNK: usize = 4096;
    let n = before.len().min(now.len());
    let mut start = 0;
    while start < n {
        let end = (start + CHUNK).min(n);
        if before[start..end] != now[start..end] {
            // Whole elements overlapping this chunk.
            let (first, last) = (start / es, end.div_ceil(es));
            for e in first..last {
                let (a, b) = (e * es, ((e + 1) * es).min(n));
                if before[a..b] == now[a..b] {
                    continue;
                }
                if let Some(idx) = index_of(mapping, e)
                    && bad(&idx)
                {
                    return Some(idx);
                }
            }
        }
        start = end;
    }
    None
}

/// One run of a box along its last axis: `len` elements from index `idx`,
/// the `k`-th element of the box in row-major order, at byte `at` of the
/// side, each `step` bytes after the last.
struct Run<'a> {
    k: usize,
    idx: &'a [usize],
    at: usize,
    len: usize,
    step: usize,
}

/// Call `f` on each run of box `b` of `mapping` along its last axis (one
/// call per row of a LayoutRight box: a run is one slice when `step == es`).
fn each_run_in_box(mapping: &Mapping, es: usize, b: &IndexBox, mut f: impl FnMut(Run<'_>)) {
    if b.is_empty() {
        return;
    }
    let Ok(start) = mapping.offset(b.lo()) else { return };
    let (lo, ext) = (b.lo().to_vec(), b.extents());
    let (ext, strides) = (ext.as_slice(), mapping.strides().as_slice());
    let Some(last) = ext.len().checked_sub(1) else {
        return f(Run { k: 0, idx: &[], at: start * es, len: 1, step: es }); // rank 0: one element
    };
    let mut idx = lo.clone();
    // The element offset, kept as the index moves (one add a step, no mapping call).
    let mut off = start;
    let runs: usize = ext[..last].iter().product();
    for r in 0..runs {
        f(Run { k: r * ext[last], idx: &idx, at: off * es, len: ext[last], step: strides[last] * es });
        for a in (0..last).rev() {
            idx[a] += 1;
            off += strides[a];
            if idx[a] < lo[a] + ext[a] {
                break;
            }
            idx[a] = lo[a];
            off -= ext[a] * strides[a];
        }
    }
}

/// Write the elements of box `b`, packed in `packed` (row-major), into
/// `dst`, a side's bytes as `mapping` lays them out.
fn copy_box_packed(dst: &mut [u8], packed: &[u8], mapping: &Mapping, es: usize, b: &IndexBox) {
    each_run_in_box(mapping, es, b, |run| {
        let src = &packed[(run.k * es).min(packed.len())..((run.k + run.len) * es).min(packed.len())];
        if run.step == es {
            if let Some(d) = dst.get_mut(run.at..run.at + src.len()) {
                d.copy_from_slice(src);
            }
            return;
        }
        for (j, e) in src.chunks_exact(es).enumerate() {
            let at = run.at + j * run.step;
            if let Some(d) = dst.get_mut(at..at + es) {
                d.copy_from_slice(e);
            }
        }
    });
}

/// [`first_change`] over box `b` only, its elements packed in `now`
/// (row-major): the changed element with the lowest address for which `bad` holds.
fn first_change_in_box(before: &[u8], now: &[u8], mapping: &Mapping, es: usize, b: &IndexBox, mut bad: impl FnMut(&[usize]) -> bool) -> Option<Vec<usize>> {
    let mut found: Option<(usize, Vec<usize>)> = None;
    each_run_in_box(mapping, es, b, |run| {
        let new = &now[(run.k * es).min(now.len())..((run.k + run.len) * es).min(now.len())];
        if run.step == es && before.get(run.at..run.at + new.len()) == Some(new) {
            return; // the whole run unchanged: one comparison
        }
        let mut idx = run.idx.to_vec();
        for (j, e) in new.chunks_exact(es).enumerate() {
            let at = run.at + j * run.step;
            if before.get(at..at + es).is_none_or(|old| old == e) || found.as_ref().is_some_and(|(a, _)| *a <= at) {
                continue;
            }
            if let Some(last) = idx.len().checked_sub(1) {
                idx[last] = run.idx[last] + j;
            }
            if bad(&idx) {
                found = Some((at, idx.clone()));
            }
        }
    });
    found.map(|(_, idx)| idx)
}

/// The index at element offset `off` of `mapping` (`None`: a gap between elements).
fn index_of(mapping: &Mapping, mut off: usize) -> Option<Vec<usize>> {
    let ext = mapping.extents().as_slice();
    let strides = mapping.strides().as_slice();
    let mut axes: Vec<usize> = (0..ext.len()).collect();
    axes.sort_by(|&a, &b| strides[b].cmp(&strides[a]).then(ext[a].cmp(&ext[b])));
    let mut idx = vec![0; ext.len()];
    for a in axes {
        let s = strides[a].max(1);
        let i = (off / s).min(ext[a].saturating_sub(1));
        idx[a] = i;
        off -= i * s;
    }
    (off == 0).then_some(idx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extents::DynRank;
    use crate::layout::Layout;

    fn mapping(layout: Layout, ext: &[usize]) -> Mapping {
        Mapping::new(layout, DynRank::new(ext).unwrap()).unwrap()
    }

    #[test]
    fn index_of_inverts_every_layout() {
        for layout in [Layout::Left, Layout::Right] {
            let m = mapping(layout, &[3, 4, 5]);
            for i in 0..3 {
                for j in 0..4 {
                    for k in 0..5 {
                        assert_eq!(index_of(&m, m.offset(&[i, j, k]).unwrap()), Some(vec![i, j, k]), "{layout:?}");
                    }
                }
            }
        }
        let padded = Mapping::with_strides(DynRank::new(&[3, 2]).unwrap(), &[1, 4]).unwrap();
        assert_eq!(index_of(&padded, 5), Some(vec![1, 1]));
        assert_eq!(index_of(&padded, 3), None, "a gap holds no element");
    }

    #[test]
    fn a_box_is_compared_and_recorded_by_its_own_elements_only() {
        // A 4 x 3 LayoutLeft array of u16; the box rows 1..3, columns 1..3.
        let m = mapping(Layout::Left, &[4, 3]);
        let whole = IndexBox::whole(&DynRank::new(&[4, 3]).unwrap());
        let b = whole.narrow(&[0, 1], &[crate::Slice::Range(1, 3), crate::Slice::Range(1, 3)]).0;
        let es = 2;
        let before: Vec<u8> = (0..24).collect();
        // The box packed row-major: (1,1) (1,2) (2,1) (2,2), at offsets 5, 9, 6, 10.
        let mut packed: Vec<u8> = [5usize, 9, 6, 10].iter().flat_map(|&o| [before[o * es], before[o * es + 1]]).collect();
        assert_eq!(first_change_in_box(&before, &packed, &m, es, &b, |_| true), None, "unchanged");
        packed[3 * es] ^= 1; // (2, 2), offset 10
        packed[es + 1] ^= 1; // (1, 2), offset 9: the lower address
        assert_eq!(first_change_in_box(&before, &packed, &m, es, &b, |_| true), Some(vec![1, 2]));
        assert_eq!(first_change_in_box(&before, &packed, &m, es, &b, |i| i != [1, 2]), Some(vec![2, 2]), "an allowed change is skipped");
        let mut rec = before.clone();
        copy_box_packed(&mut rec, &packed, &m, es, &b);
        let changed: Vec<usize> = (0..12).filter(|&o| rec[o * es..(o + 1) * es] != before[o * es..(o + 1) * es]).collect();
        assert_eq!(changed, vec![9, 10], "only the box's changed elements are written, at their offsets");
    }

    #[test]
    fn a_rank_0_box_is_its_one_element() {
        let m = Mapping::new(Layout::Right, DynRank::new(&[]).unwrap()).unwrap();
        let b = IndexBox::whole(&DynRank::new(&[]).unwrap());
        let (before, now) = (vec![1u8, 2], vec![1u8, 3]);
        assert_eq!(first_change_in_box(&before, &now, &m, 2, &b, |_| true), Some(vec![]));
        let mut rec = before.clone();
        copy_box_packed(&mut rec, &now, &m, 2, &b);
        assert_eq!(rec, now);
    }

    #[test]
    fn first_change_skips_allowed_elements_and_finds_the_lowest_address() {
        let m = mapping(Layout::Right, &[4, 3]);
        let before = vec![0u8; 12 * 8];
        let mut now = before.clone();
        now[(3 * 3 + 2) * 8] = 1; // (3, 2)
        now[3 * 8 + 7] = 1; // (1, 0), last byte
        assert_eq!(first_change(&before, &now, &m, 8, |_| true), Some(vec![1, 0]));
        let row1 = IndexBox::whole(&DynRank::new(&[4, 3]).unwrap()).narrow(&[0, 1], &[crate::Slice::Index(1), crate::Slice::All]).0;
        assert_eq!(first_change(&before, &now, &m, 8, |i| !row1.holds(i)), Some(vec![3, 2]));
        assert_eq!(first_change(&before, &before, &m, 8, |_| true), None);
    }
}
