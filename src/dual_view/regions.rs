//! Where a subview sits in its parent, and which regions hold unsynced changes.
//!
//! Kokkos clears the whole DualView's flags when a subview syncs its own
//! region, so the rest of a parent modified as a whole stays silently stale.
//! dualview records, as disjoint boxes of the parent's index space, what the
//! newer side changed and has not yet copied:
//!
//! | call | the record afterwards |
//! | --- | --- |
//! | modify through the parent (or a clone) | the whole array |
//! | modify through subviews only | their boxes ([`IndexBox`], made disjoint) |
//! | sync through a subview | what it held minus the subview's box (the rest stays recorded) |
//! | sync through the parent | nothing |
//!
//! A sync copies the record's part inside its own box, so each changed byte
//! is copied once: a subview sync moves only its region (the LAMMPS ghost
//! rows), and a later whole sync moves the rest. Exact while the record holds
//! at most [`MAX_BOXES`] boxes; beyond that the change counts as the whole
//! array (more is copied, nothing is missed).

use crate::extents::{DynRank, Extents, MAX_RANK};
use crate::layout::Slice;

/// The most boxes kept before the change counts as the whole array.
pub(crate) const MAX_BOXES: usize = 64;

/// A box of indices in the parent's index space: `[lo[r], hi[r])` per axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IndexBox {
    rank: u8,
    lo: [usize; MAX_RANK],
    hi: [usize; MAX_RANK],
}

impl IndexBox {
    /// Every index of `extents`.
    pub(crate) fn whole(extents: &DynRank) -> IndexBox {
        let mut hi = [0; MAX_RANK];
        hi[..extents.rank()].copy_from_slice(extents.as_slice());
        IndexBox { rank: extents.rank() as u8, lo: [0; MAX_RANK], hi }
    }

    /// Apply subview `slices` (already checked against the extents) to this
    /// box, whose kept axes are `axes` (a subview's axis `k` is parent axis
    /// `axes[k]`). Returns the new box and the new kept axes.
    pub(crate) fn narrow(&self, axes: &[u8], slices: &[Slice]) -> (IndexBox, Vec<u8>) {
        let mut b = *self;
        let mut kept = Vec::with_capacity(axes.len());
        for (&p, s) in axes.iter().zip(slices) {
            let p = p as usize;
            let lo = b.lo[p];
            match s.resolve(b.hi[p] - lo) {
                // `From` was resolved to a `Range` above.
                Slice::All | Slice::From(_) => kept.push(p as u8),
                Slice::Range(a, e) => {
                    b.lo[p] = lo + a;
                    b.hi[p] = lo + e;
                    kept.push(p as u8);
                }
                Slice::Index(i) => {
                    b.lo[p] = lo + i;
                    b.hi[p] = lo + i + 1;
                }
            }
        }
        (b, kept)
    }

    /// The first index of the box (its lowest corner).
    pub(crate) fn lo(&self) -> &[usize] {
        &self.lo[..self.rank as usize]
    }

    /// The box's extent along each axis.
    pub(crate) fn extents(&self) -> DynRank {
        let mut e = [0; MAX_RANK];
        for (r, x) in e.iter_mut().enumerate().take(self.rank as usize) {
            *x = self.hi[r].saturating_sub(self.lo[r]);
        }
        DynRank::from_slice_unchecked(&e[..self.rank as usize])
    }

    /// Whether the box holds no index.
    pub(crate) fn is_empty(&self) -> bool {
        (0..self.rank as usize).any(|r| self.lo[r] >= self.hi[r])
    }

    /// Whether index `idx` (of this box's rank) lies in the box.
    pub(crate) fn holds(&self, idx: &[usize]) -> bool {
        idx.len() == self.rank as usize && idx.iter().enumerate().all(|(r, &i)| self.lo[r] <= i && i < self.hi[r])
    }

    /// Whether the two boxes share an index (an empty box shares none).
    pub(crate) fn overlaps(&self, other: &IndexBox) -> bool {
        (0..self.rank.min(other.rank) as usize).all(|r| self.lo[r].max(other.lo[r]) < self.hi[r].min(other.hi[r]))
    }

    /// Whether `other` lies inside this box (an empty `other` always does).
    pub(crate) fn contains(&self, other: &IndexBox) -> bool {
        other.is_empty() || (0..self.rank as usize).all(|r| self.lo[r] <= other.lo[r] && other.hi[r] <= self.hi[r])
    }

    /// The indices both boxes hold (`None` when they share none).
    pub(crate) fn intersect(&self, other: &IndexBox) -> Option<IndexBox> {
        let mut b = *self;
        for r in 0..self.rank as usize {
            b.lo[r] = self.lo[r].max(other.lo[r]);
            b.hi[r] = self.hi[r].min(other.hi[r]);
        }
        (!b.is_empty()).then_some(b)
    }

    /// The indices of this box outside `other`, as at most `2 * rank`
    /// disjoint boxes: per axis in turn, the slabs below and above `other`,
    /// then the rest narrowed to `other` on that axis.
    pub(crate) fn subtract(&self, other: &IndexBox) -> Vec<IndexBox> {
        if self.intersect(other).is_none() {
            return if self.is_empty() { vec![] } else { vec![*self] };
        }
        let mut out = Vec::new();
        let mut rest = *self;
        for r in 0..self.rank as usize {
            if rest.lo[r] < other.lo[r] {
                let mut below = rest;
                below.hi[r] = other.lo[r];
                out.push(below);
                rest.lo[r] = other.lo[r];
            }
            if other.hi[r] < rest.hi[r] {
                let mut above = rest;
                above.lo[r] = other.hi[r];
                out.push(above);
                rest.hi[r] = other.hi[r];
            }
        }
        out
    }

    /// The number of indices in the box.
    pub(crate) fn len(&self) -> usize {
        (0..self.rank as usize).map(|r| self.hi[r].saturating_sub(self.lo[r])).product()
    }

    /// This box clipped to `extents` (same rank): what survives a resize,
    /// which keeps every index both shapes hold.
    pub(crate) fn clip(&self, extents: &DynRank) -> IndexBox {
        let mut b = *self;
        for (r, &e) in extents.as_slice().iter().enumerate() {
            b.hi[r] = b.hi[r].min(e);
            b.lo[r] = b.lo[r].min(b.hi[r]);
        }
        b
    }
}

/// Add the indices of `b` to the recorded boxes, keeping them disjoint;
/// false when that needs more than [`MAX_BOXES`] (then the change counts as
/// the whole array).
pub(crate) fn record(boxes: &mut Vec<IndexBox>, b: IndexBox) -> bool {
    if b.is_empty() || boxes.iter().any(|x| x.contains(&b)) {
        return true;
    }
    boxes.retain(|x| !b.contains(x));
    let mut parts = vec![b];
    for x in boxes.iter() {
        parts = parts.iter().flat_map(|p| p.subtract(x)).collect();
        if parts.len() > 4 * MAX_BOXES {
            return false; // bound the work; the change then counts as the whole array
        }
    }
    if boxes.len() + parts.len() > MAX_BOXES {
        return false;
    }
    boxes.extend(parts);
    true
}

/// Remove the indices of `b` from the recorded (disjoint) boxes; false when
/// what remains needs more than [`MAX_BOXES`] boxes (the record is then unchanged).
pub(crate) fn remove(boxes: &mut Vec<IndexBox>, b: &IndexBox) -> bool {
    let rest: Vec<IndexBox> = boxes.iter().flat_map(|x| x.subtract(b)).collect();
    if rest.len() > MAX_BOXES {
        return false;
    }
    *boxes = rest;
    true
}

/// The parts of the recorded (disjoint) boxes inside `b`: what a sync through
/// a handle whose box is `b` copies.
pub(crate) fn inside(boxes: &[IndexBox], b: &IndexBox) -> Vec<IndexBox> {
    boxes.iter().filter_map(|x| x.intersect(b)).collect()
}

/// The recorded boxes clipped to new extents (a resize keeps the indices both
/// shapes hold; the new ones are zero on both sides, so nothing to sync).
pub(crate) fn clip(boxes: &mut Vec<IndexBox>, extents: &DynRank) {
    for b in boxes.iter_mut() {
        *b = b.clip(extents);
    }
    boxes.retain(|b| !b.is_empty());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The indices of `e` that lie in some box.
    fn cells(boxes: &[IndexBox], e: &[usize]) -> BTreeSet<Vec<usize>> {
        let total: usize = e.iter().product();
        (0..total)
            .map(|mut k| {
                e.iter()
                    .map(|&n| {
                        let i = k % n;
                        k /= n;
                        i
                    })
                    .collect::<Vec<usize>>()
            })
            .filter(|idx| boxes.iter().any(|b| idx.iter().enumerate().all(|(r, &i)| b.lo[r] <= i && i < b.hi[r])))
            .collect()
    }

    fn bx(lo: &[usize], hi: &[usize]) -> IndexBox {
        let mut b = IndexBox { rank: lo.len() as u8, lo: [0; MAX_RANK], hi: [0; MAX_RANK] };
        b.lo[..lo.len()].copy_from_slice(lo);
        b.hi[..hi.len()].copy_from_slice(hi);
        b
    }

    fn disjoint(boxes: &[IndexBox]) -> bool {
        boxes.iter().enumerate().all(|(i, a)| boxes[i + 1..].iter().all(|b| !a.overlaps(b)))
    }

    #[test]
    fn narrowing_composes() {
        let e = DynRank::new(&[10, 6]).unwrap();
        let whole = IndexBox::whole(&e);
        let (rows, axes) = whole.narrow(&[0, 1], &[Slice::Range(2, 8), Slice::All]);
        assert_eq!(axes, vec![0, 1]);
        let (col, axes) = rows.narrow(&axes, &[Slice::Range(1, 3), Slice::Index(4)]);
        assert_eq!(axes, vec![0]);
        assert_eq!((col.lo(), col.extents().as_slice()), (&[3, 4][..], &[2, 1][..]));
    }

    #[test]
    fn the_ghost_rows_leave_two_slabs() {
        // LAMMPS: the whole array changed, the ghost rows [100, 120) synced.
        let whole = bx(&[0, 0], &[1000, 3]);
        let ghost = bx(&[100, 0], &[120, 3]);
        let mut rec = vec![whole];
        assert_eq!(inside(&rec, &ghost), vec![ghost]);
        assert!(remove(&mut rec, &ghost));
        assert_eq!(rec, vec![bx(&[0, 0], &[100, 3]), bx(&[120, 0], &[1000, 3])]);
        assert_eq!(rec.iter().map(IndexBox::len).sum::<usize>(), 980 * 3);
        assert!(inside(&rec, &ghost).is_empty(), "a second ghost sync copies nothing");
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only; thousands of cell sets are too slow under Miri")]
    fn records_stay_disjoint_and_exact_against_cell_sets() {
        // Deterministic pseudo-random boxes in a 7 x 5 x 3 array.
        let e = [7usize, 5, 3];
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let mut rec: Vec<IndexBox> = Vec::new();
            let mut want: BTreeSet<Vec<usize>> = BTreeSet::new();
            for _ in 0..8 {
                let mut lo = [0; 3];
                let mut hi = [0; 3];
                for r in 0..3 {
                    lo[r] = next(e[r] + 1);
                    hi[r] = lo[r] + next(e[r] + 1 - lo[r]);
                }
                let b = bx(&lo, &hi);
                let c = cells(&[b], &e);
                if next(2) == 0 {
                    assert!(record(&mut rec, b));
                    want.extend(c);
                } else {
                    let got = cells(&inside(&rec, &b), &e);
                    let expect: BTreeSet<_> = want.intersection(&c).cloned().collect();
                    assert_eq!(got, expect, "inside");
                    assert_eq!(inside(&rec, &b).iter().map(IndexBox::len).sum::<usize>(), expect.len(), "each index once");
                    assert!(remove(&mut rec, &b));
                    want.retain(|x| !c.contains(x));
                }
                assert!(disjoint(&rec), "{rec:?}");
                assert_eq!(cells(&rec, &e), want);
            }
        }
    }

    #[test]
    fn subtraction_clipping_and_the_cap() {
        let a = bx(&[0, 0], &[4, 4]);
        assert_eq!(a.subtract(&bx(&[5, 5], &[6, 6])), vec![a]);
        assert!(a.subtract(&a).is_empty());
        assert_eq!(a.subtract(&bx(&[1, 1], &[3, 3])).len(), 4);
        assert!(IndexBox::whole(&DynRank::new(&[]).unwrap()).subtract(&IndexBox::whole(&DynRank::new(&[]).unwrap())).is_empty());
        let mut rec = vec![bx(&[2, 1], &[6, 3])];
        clip(&mut rec, &DynRank::new(&[4, 8]).unwrap());
        assert_eq!(rec, vec![bx(&[2, 1], &[4, 3])]);
        clip(&mut rec, &DynRank::new(&[1, 8]).unwrap());
        assert!(rec.is_empty());
        let whole = IndexBox::whole(&DynRank::new(&[200, 200]).unwrap());
        let mut cellwise = vec![];
        for i in 0..MAX_BOXES {
            assert!(record(&mut cellwise, bx(&[2 * i, 0], &[2 * i + 1, 1])));
        }
        assert!(!record(&mut cellwise, bx(&[199, 199], &[200, 200])), "a full list refuses");
        let mut holes = vec![whole];
        let mut ok = true;
        for i in 0..MAX_BOXES {
            ok &= remove(&mut holes, &bx(&[2 * i + 1, 2 * i + 1], &[2 * i + 2, 2 * i + 2]));
        }
        assert!(!ok, "removing many holes overflows the record, which then stays as it was");
        assert!(holes.len() <= MAX_BOXES);
    }
}
