//! Where a subview sits in its parent, and which regions were modified.
//!
//! Kokkos clears the whole DualView's flags when a subview syncs its own
//! region, so the rest of a parent modified as a whole stays silently stale.
//! dualview records what each modify covered instead:
//!
//! | modified through | recorded | a sync (through any handle) copies |
//! | --- | --- | --- |
//! | the parent (or a clone) | the whole array | the whole array |
//! | subviews only | their boxes ([`IndexBox`], at most [`MAX_BOXES`]; more become the whole array) | exactly those boxes |
//!
//! So a subview sync never leaves data stale, and the LAMMPS pattern (modify a
//! subview, sync it) still copies only that subview's region.

use crate::extents::{DynRank, Extents, MAX_RANK};
use crate::layout::Slice;

/// The most boxes kept before the change counts as the whole array.
pub(crate) const MAX_BOXES: usize = 16;

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

    /// The slices that cut this box out of the parent.
    pub(crate) fn slices(&self) -> Vec<Slice> {
        (0..self.rank as usize).map(|r| Slice::Range(self.lo[r], self.hi[r])).collect()
    }

    /// Whether the box holds no index.
    pub(crate) fn is_empty(&self) -> bool {
        (0..self.rank as usize).any(|r| self.lo[r] >= self.hi[r])
    }

    /// Whether the two boxes share an index (an empty box shares none).
    pub(crate) fn overlaps(&self, other: &IndexBox) -> bool {
        (0..self.rank.min(other.rank) as usize).all(|r| self.lo[r].max(other.lo[r]) < self.hi[r].min(other.hi[r]))
    }

    /// Whether `other` lies inside this box.
    pub(crate) fn contains(&self, other: &IndexBox) -> bool {
        (0..self.rank as usize).all(|r| self.lo[r] <= other.lo[r] && other.hi[r] <= self.hi[r])
    }
}

/// Add `b` to the recorded boxes; false when the list is full (then the
/// change counts as the whole array).
pub(crate) fn record(boxes: &mut Vec<IndexBox>, b: IndexBox) -> bool {
    if b.is_empty() || boxes.iter().any(|x| x.contains(&b)) {
        return true;
    }
    boxes.retain(|x| !b.contains(x));
    if boxes.len() >= MAX_BOXES {
        return false;
    }
    boxes.push(b);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_composes_and_recording_merges() {
        let e = DynRank::new(&[10, 6]).unwrap();
        let whole = IndexBox::whole(&e);
        let (rows, axes) = whole.narrow(&[0, 1], &[Slice::Range(2, 8), Slice::All]);
        assert_eq!(axes, vec![0, 1]);
        let (col, axes) = rows.narrow(&axes, &[Slice::Range(1, 3), Slice::Index(4)]);
        assert_eq!(axes, vec![0]);
        assert_eq!(col.slices(), vec![Slice::Range(3, 5), Slice::Range(4, 5)]);
        let mut boxes = vec![];
        assert!(record(&mut boxes, col));
        assert!(record(&mut boxes, col));
        assert_eq!(boxes.len(), 1);
        assert!(record(&mut boxes, rows));
        assert_eq!(boxes, vec![rows]);
        let (empty, _) = whole.narrow(&[0, 1], &[Slice::Range(3, 3), Slice::All]);
        assert!(record(&mut boxes, empty) && boxes.len() == 1);
        let mut cells = vec![];
        for i in 0..MAX_BOXES {
            let (b, _) = whole.narrow(&[0, 1], &[Slice::Index(i % 10), Slice::Index(i / 10)]);
            assert!(record(&mut cells, b));
        }
        let (b, _) = whole.narrow(&[0, 1], &[Slice::Index(9), Slice::Index(5)]);
        assert!(!record(&mut cells, b), "a full list refuses");
    }
}
