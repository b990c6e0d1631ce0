//! Checked mode (`DV_CHECK=1`, `DV_FLAG_CHECKED`, [`Desc::checked`]): the
//! library verifies the protocol it relies on. Each side's bytes are kept as
//! they were at the end of the last flag call; the next flag call compares
//! them with the side now, and fails when a side changed where it was not
//! allowed to:
//!
//! | side | may change between two flag calls |
//! | --- | --- |
//! | the newer side (flags say so) | in its recorded regions (everywhere for a whole-array change) |
//! | the side a `modify` marks now | in the marking handle's box (write first, then mark, as Kokkos) |
//! | the side an overwrite access takes | everywhere |
//! | any other side | nowhere |
//!
//! A violation is `UnmarkedChange` naming the side, the first changed index
//! (lowest address) and the call; nothing is copied or marked, and the record
//! stays, so the call fails again until the missing `modify` is made or
//! `clear_sync_state` accepts both sides. What it cannot see is in
//! docs/DECISIONS.md (D29).
//!
//! [`Desc::checked`]: super::Desc::checked

use super::exclusive::Part;
use super::flags;
use super::regions::IndexBox;
use super::{RawDualView, State};
use crate::error::{err, Error, ErrorKind, Result};
use crate::layout::Mapping;
use crate::side::Side;
use std::sync::OnceLock;

/// Whether `DV_CHECK` (read once) asks for checked mode for every DualView.
pub(crate) fn env_default() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("DV_CHECK").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The flag call being checked, for the allowances and the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Call {
    /// `modify_<side>`.
    Modify(Side),
    /// `sync_<side>`.
    Sync(Side),
    /// Access of `side` that overwrites it whole, dropping the other side's change.
    Overwrite(Side),
    /// resize or realloc.
    Resize,
}

impl Call {
    fn name(self) -> String {
        match self {
            Call::Modify(s) => format!("modify_{s}()"),
            Call::Sync(s) => format!("sync_{s}()"),
            Call::Overwrite(s) => format!("an overwrite access of the {s} side"),
            Call::Resize => "resize".into(),
        }
    }
}

/// Each side's bytes at the end of the last flag call (`None`: not known,
/// as after a side could not be read: the next call takes it afresh).
#[derive(Default)]
pub(super) struct Record {
    generation: u64,
    sides: [Option<Vec<u8>>; 2],
    /// What this call's verification read, for the record after it.
    now: [Option<Vec<u8>>; 2],
    /// Buffers to reuse (a read of a GiB array must not fault in fresh pages).
    spare: Vec<Vec<u8>>,
    /// A mark through a subview (`modify`, `push`): the marking side is not
    /// verified there, and its record takes the current bytes only in these
    /// boxes (the mark's, and a rest the call may copy in), so a write
    /// elsewhere waits for its own mark and fails at the next other call.
    marked: Option<(Side, Vec<IndexBox>)>,
}

/// What a flag call wrote between its verification and its record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wrote {
    /// Nothing: what the verification read is still there.
    Nothing,
    /// This side (a sync's target).
    Side(Side),
    /// Unknown, or there was no verification (create, resize, clear): read both.
    Unknown,
}

/// Where a side may have changed since the last flag call.
enum Allowed {
    Everywhere,
    In(Vec<IndexBox>),
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
    /// when a side changed where it may not (see the module's table).
    /// Waits for copies in flight and device work first.
    pub(super) fn verify_locked(&self, st: &mut State, call: Call) -> Result<()> {
        let Some(mut record) = self.settled_record(st)? else { return Ok(()) };
        let r = &mut *record;
        for n in &mut r.now {
            r.spare.extend(n.take());
        }
        r.marked = None;
        if r.generation != st.generation {
            return Ok(()); // the arrays were replaced: the record is taken afresh afterwards
        }
        let state = self.shared.flags.load();
        let bounds = self.bounds(st);
        let whole = IndexBox::whole(st.mapping.extents());
        for side in Side::BOTH {
            if call == Call::Modify(side) && bounds != whole {
                // Several regions may be written first and marked one by one.
                let mut boxes = vec![bounds];
                if flags::is_stale(state, side) && state & flags::REST != 0 {
                    boxes.extend_from_slice(&st.dirty); // a modify may copy the other side's rest in
                }
                r.marked = Some((side, boxes));
                continue;
            }
            let Some(before) = &r.sides[side as usize] else { continue };
            let boxes = match self.allowed(st, state, side, call) {
                Allowed::Everywhere => continue,
                Allowed::In(b) => b,
            };
            let Some(now) = self.read_side(st, side, r.spare.pop())? else { continue };
            let changed = first_change(before, &now, &st.mapping, self.shared.elem.size(), &boxes);
            r.now[side as usize] = Some(now);
            if let Some(idx) = changed {
                return Err(self.unmarked(side, state, call, &idx, !boxes.is_empty()));
            }
        }
        Ok(())
    }

    /// After a flag call (or a resize, or `clear_sync_state`): record both
    /// sides as they are now, reusing what the verification read unless the
    /// call wrote it since.
    pub(super) fn record_locked(&self, st: &mut State, wrote: Wrote) -> Result<()> {
        let Some(mut record) = self.settled_record(st)? else { return Ok(()) };
        let r = &mut *record;
        let same = r.generation == st.generation;
        let marked = r.marked.take().filter(|_| same && wrote != Wrote::Unknown);
        for side in Side::BOTH {
            let i = side as usize;
            if let Some((s, boxes)) = &marked
                && *s == side
                && r.sides[i].is_some()
            {
                // Only the marked boxes (and what the call copied in) are taken afresh.
                if let Some(now) = self.read_side(st, side, r.spare.pop())? {
                    let old = r.sides[i].as_mut().expect("checked above");
                    copy_boxes(old, &now, &st.mapping, self.shared.elem.size(), boxes);
                    r.spare.push(now);
                }
                continue;
            }
            r.spare.extend(r.sides[i].take());
            let now = r.now[i].take().filter(|_| same && wrote != Wrote::Unknown && wrote != Wrote::Side(side));
            r.sides[i] = match now {
                Some(n) => Some(n),
                None => self.read_side(st, side, r.spare.pop())?,
            };
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
        crate::space::fence(self.shared.device_space).map_err(|e| self.err_on(e, None))?;
        Ok(Some(check.lock().unwrap_or_else(|e| e.into_inner())))
    }

    fn allowed(&self, st: &State, state: u8, side: Side, call: Call) -> Allowed {
        if call == Call::Overwrite(side) {
            return Allowed::Everywhere;
        }
        let mut boxes = Vec::new();
        if flags::is_stale(state, side.other()) {
            // This side is the newer one: its recorded regions, or all of it.
            if !flags::is_partial(state) {
                return Allowed::Everywhere;
            }
            boxes.extend_from_slice(&st.dirty);
        }
        if call == Call::Modify(side) {
            boxes.push(self.bounds(st));
        }
        let whole = IndexBox::whole(st.mapping.extents());
        if boxes.iter().any(|b| b.contains(&whole)) { Allowed::Everywhere } else { Allowed::In(boxes) }
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

    #[cold]
    fn unmarked(&self, side: Side, state: u8, call: Call, idx: &[usize], in_part: bool) -> Error {
        let other = side.other();
        let what = if flags::is_stale(state, side) {
            format!(
                "the {side} side was written while the {other} side held changes not yet synced to it (both sides \
                 written): sync_{side}() would overwrite these writes. Write one side between syncs; to keep this \
                 side's writes drop the {other} side's change with clear_sync_state() and call modify_{side}()"
            )
        } else if in_part {
            format!(
                "the {side} side changed outside the regions marked modified (a subview's modify_{side}() covers its \
                 region only): mark what was written with modify_{side}()"
            )
        } else {
            format!("the {side} side changed without modify_{side}(): call modify_{side}() after writing the {side} side")
        };
        let at = idx.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        self.err_on(
            err!(UnmarkedChange, "checked mode: {what}. First changed index: ({at}); found at {}; nothing was copied or marked", call.name()),
            Some(side),
        )
    }
}

/// The first index (lowest address) whose bytes differ between `before` and
/// `now` outside `allowed`; `None` when there is none.
fn first_change(before: &[u8], now: &[u8], mapping: &Mapping, es: usize, allowed: &[IndexBox]) -> Option<Vec<usize>> {
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
                    && !allowed.iter().any(|bx| bx.holds(&idx))
                {
                    return Some(idx);
                }
            }
        }
        start = end;
    }
    None
}

/// Copy the elements of `boxes` from `src` into `dst` (both a side's bytes).
fn copy_boxes(dst: &mut [u8], src: &[u8], mapping: &Mapping, es: usize, boxes: &[IndexBox]) {
    for b in boxes.iter().filter(|b| !b.is_empty()) {
        let (lo, ext) = (b.lo().to_vec(), b.extents());
        let ext = ext.as_slice();
        let mut idx = lo.clone();
        for _ in 0..ext.iter().product::<usize>() {
            if let Ok(off) = mapping.offset(&idx) {
                let (a, e) = (off * es, off * es + es);
                if e <= dst.len().min(src.len()) {
                    dst[a..e].copy_from_slice(&src[a..e]);
                }
            }
            for r in (0..idx.len()).rev() {
                idx[r] += 1;
                if idx[r] < lo[r] + ext[r] {
                    break;
                }
                idx[r] = lo[r];
            }
        }
    }
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
    fn first_change_skips_allowed_boxes_and_finds_the_lowest_address() {
        let m = mapping(Layout::Right, &[4, 3]);
        let before = vec![0u8; 12 * 8];
        let mut now = before.clone();
        now[(3 * 3 + 2) * 8] = 1; // (3, 2)
        now[3 * 8 + 7] = 1; // (1, 0), last byte
        assert_eq!(first_change(&before, &now, &m, 8, &[]), Some(vec![1, 0]));
        let row1 = IndexBox::whole(&DynRank::new(&[4, 3]).unwrap()).narrow(&[0, 1], &[crate::Slice::Index(1), crate::Slice::All]).0;
        assert_eq!(first_change(&before, &now, &m, 8, &[row1]), Some(vec![3, 2]));
        assert_eq!(first_change(&before, &before, &m, 8, &[]), None);
    }
}
