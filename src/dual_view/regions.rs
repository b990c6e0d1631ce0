//! Index boxes: where a subview sits in its parent's index space.
//!
//! A box is `[lo[r], hi[r])` per axis of the parent. A subview's box is the
//! region its calls cover (`narrow`); the coherence map (`coherence/`) records
//! the state of every element and answers in boxes.

use crate::extents::{DynRank, Extents, MAX_RANK};
use crate::layout::Slice;

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

    /// The box `[lo[r], hi[r])` per axis (same lengths, at most `MAX_RANK`).
    pub(crate) fn new(lo: &[usize], hi: &[usize]) -> IndexBox {
        debug_assert!(lo.len() == hi.len() && lo.len() <= MAX_RANK);
        let mut b = IndexBox { rank: lo.len() as u8, lo: [0; MAX_RANK], hi: [0; MAX_RANK] };
        b.lo[..lo.len()].copy_from_slice(lo);
        b.hi[..hi.len()].copy_from_slice(hi);
        b
    }

    /// The rank of the parent's index space.
    pub(crate) fn rank(&self) -> usize {
        self.rank as usize
    }

    /// One past the last index of the box on each axis.
    pub(crate) fn hi(&self) -> &[usize] {
        &self.hi[..self.rank as usize]
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
            .filter(|idx| boxes.iter().any(|b| b.holds(idx)))
            .collect()
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
        assert_eq!(col.hi(), &[5, 5]);
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only; thousands of cell sets are too slow under Miri")]
    fn subtraction_is_exact_and_disjoint_against_cell_sets() {
        let e = [5usize, 4, 3];
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut pick = || {
            let (mut lo, mut hi) = ([0; 3], [0; 3]);
            for r in 0..3 {
                lo[r] = next(e[r] + 1);
                hi[r] = lo[r] + next(e[r] + 1 - lo[r]);
            }
            IndexBox::new(&lo, &hi)
        };
        for _ in 0..500 {
            let (a, b) = (pick(), pick());
            let parts = a.subtract(&b);
            assert!(parts.len() <= 6);
            let want: BTreeSet<_> = cells(&[a], &e).difference(&cells(&[b], &e)).cloned().collect();
            assert_eq!(cells(&parts, &e), want);
            assert_eq!(parts.iter().map(IndexBox::len).sum::<usize>(), want.len(), "disjoint");
            assert_eq!(a.overlaps(&b), a.intersect(&b).is_some());
            assert_eq!(a.intersect(&b).map_or(0, |x| x.len()), cells(&[a], &e).intersection(&cells(&[b], &e)).count());
        }
    }

    #[test]
    fn subtraction_and_clipping_edges() {
        let a = IndexBox::new(&[0, 0], &[4, 4]);
        assert_eq!(a.subtract(&IndexBox::new(&[5, 5], &[6, 6])), vec![a]);
        assert!(a.subtract(&a).is_empty());
        assert_eq!(a.subtract(&IndexBox::new(&[1, 1], &[3, 3])).len(), 4);
        let scalar = IndexBox::whole(&DynRank::new(&[]).unwrap());
        assert_eq!(scalar.len(), 1);
        assert!(scalar.subtract(&scalar).is_empty());
        let b = IndexBox::new(&[2, 1], &[6, 3]);
        assert_eq!(b.clip(&DynRank::new(&[4, 8]).unwrap()), IndexBox::new(&[2, 1], &[4, 3]));
        assert!(b.clip(&DynRank::new(&[1, 8]).unwrap()).is_empty());
    }
}
