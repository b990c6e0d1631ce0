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
    now: [Option<Vec<u8>>; 2],
    /// Buffers to reuse (a read of a GiB array must not fault in fresh pages).
    spare: Vec<Vec<u8>>,
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
            r.spare.extend(n.take());
        }
        if r.generation != st.generation {
            return Ok(()); // the arrays were replaced: the record is taken afresh afterwards
        }
        let cur = self.map_locked(st);
        let bounds = if call == Call::Resize { st.map.whole() } else { self.bounds(st) };
        for side in Side::BOTH {
            let Some(before) = &r.sides[side as usize] else { continue };
            // Nothing to look at when every element may have changed.
            let uniform = super::flags::uniform(cur);
            if uniform.is_some_and(|c| call.allows(side, c)) {
                continue;
            }
            let Some(now) = self.read_side(st, side, r.spare.pop())? else { continue };
            let es = self.shared.elem.size();
            let changed = first_change(before, &now, &st.mapping, es, |idx| {
                bounds.holds(idx) && !call.allows(side, uniform.unwrap_or_else(|| st.map.get(idx)))
            });
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
        let whole = wrote == Wrote::Everything || r.generation != st.generation || self.sub.is_none();
        let bounds = self.bounds(st);
        let es = self.shared.elem.size();
        for side in Side::BOTH {
            let i = side as usize;
            let reusable = r.generation == st.generation
                && match wrote {
                    Wrote::Nothing => true,
                    Wrote::Side(x) => x != side,
                    Wrote::Unknown | Wrote::Everything => false,
                };
            let now = match r.now[i].take().filter(|_| reusable) {
                Some(n) => Some(n),
                None => self.read_side(st, side, r.spare.pop())?,
            };
            match (now, &mut r.sides[i]) {
                (Some(now), Some(old)) if !whole => {
                    copy_box(old, &now, &st.mapping, es, &bounds);
                    r.spare.push(now);
                }
                (now, slot) => {
                    r.spare.extend(slot.take());
                    *slot = now;
                }
            }
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

/// Copy the elements of box `b` from `src` into `dst` (both a side's bytes).
fn copy_box(dst: &mut [u8], src: &[u8], mapping: &Mapping, es: usize, b: &IndexBox) {
    for b in std::iter::once(b).filter(|b| !b.is_empty()) {
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
