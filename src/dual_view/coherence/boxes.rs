//! The compact form of the map: a base state and a short list of disjoint
//! boxes in other states. After a whole-array modify and a few subview calls
//! (the LAMMPS ghost rows, an MPI halo) this is a base and one box a call.
//!
//! Cost: each operation is `O(k^2 * rank)` for `k <= MAX_BOXES` boxes for the
//! subtraction, and `O(k^3 * rank)` at worst for joining neighbours. An operation that would need more
//! boxes answers `None`; the map then moves to the bitmap.

use super::Cell;
use crate::dual_view::regions::IndexBox;

/// The most boxes kept before the map becomes a bitmap.
pub(crate) const MAX_BOXES: usize = 64;

/// Every element is `base`, except those of `list` (disjoint, none `base`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Boxes {
    pub(super) base: Cell,
    pub(super) list: Vec<(IndexBox, Cell)>,
}

impl Boxes {
    /// Every element `cell`.
    pub(super) fn uniform(cell: Cell) -> Boxes {
        Boxes { base: cell, list: Vec::new() }
    }

    /// The heap bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.list.capacity() * std::mem::size_of::<(IndexBox, Cell)>()
    }

    /// How many elements are `cell` (of `n`).
    pub(super) fn count(&self, cell: Cell, n: usize) -> usize {
        let listed: usize = self.list.iter().map(|(b, _)| b.len()).sum();
        let mine: usize = self.list.iter().filter(|(_, c)| *c == cell).map(|(b, _)| b.len()).sum();
        mine + if self.base == cell { n - listed } else { 0 }
    }

    /// The state of the element at `idx`.
    pub(super) fn get(&self, idx: &[usize]) -> Cell {
        self.list.iter().find(|(b, _)| b.holds(idx)).map_or(self.base, |(_, c)| *c)
    }

    /// Whether an element of `b` is `cell`.
    pub(super) fn any(&self, b: &IndexBox, cell: Cell) -> bool {
        if b.is_empty() {
            return false;
        }
        let mut covered = 0;
        for (x, c) in &self.list {
            if let Some(i) = x.intersect(b) {
                if *c == cell {
                    return true;
                }
                covered += i.len();
            }
        }
        self.base == cell && covered < b.len()
    }

    /// The elements of `b` that are `cell`, as disjoint boxes; `None` when
    /// that takes more than `limit` boxes.
    pub(super) fn parts(&self, b: &IndexBox, cell: Cell, limit: usize) -> Option<Vec<IndexBox>> {
        let mut out: Vec<IndexBox> =
            self.list.iter().filter(|(_, c)| *c == cell).filter_map(|(x, _)| x.intersect(b)).collect();
        if self.base == cell && !b.is_empty() {
            let mut rest = vec![*b];
            for (x, _) in self.list.iter().filter(|(x, _)| x.overlaps(b)) {
                rest = rest.iter().flat_map(|p| p.subtract(x)).collect();
                if rest.len() + out.len() > limit {
                    return None;
                }
            }
            out.extend(rest);
        }
        (out.len() <= limit).then_some(out)
    }

    /// This map with `b` (inside `whole`) set to `cell`; `None` when that
    /// needs more than [`MAX_BOXES`] boxes.
    pub(super) fn assigned(&self, b: &IndexBox, cell: Cell, whole: &IndexBox) -> Option<Boxes> {
        if b.contains(whole) {
            return Some(Boxes::uniform(cell));
        }
        if b.is_empty() {
            return Some(self.clone());
        }
        // The boxes `b` leaves alone stay as they are (no two of them join: this map
        // was joined); the pieces cut from the others and `b` itself are added one
        // at a time, each joined with what it touches.
        let mut list: Vec<(IndexBox, Cell)> = Vec::with_capacity(self.list.len() + 2 * b.rank() + 1);
        let mut new: Vec<(IndexBox, Cell)> = Vec::new();
        for &(x, c) in &self.list {
            if x.overlaps(b) {
                new.extend(x.subtract(b).into_iter().map(|p| (p, c)));
            } else {
                list.push((x, c));
            }
            if list.len() + new.len() > 4 * MAX_BOXES {
                return None;
            }
        }
        if cell != self.base {
            new.push((*b, cell));
        }
        join_into(&mut list, new);
        (list.len() <= MAX_BOXES).then(|| {
            list.shrink_to_fit();
            Boxes { base: self.base, list }
        })
    }
}

/// Add `new` to `list`, in which no two boxes join, joining each added box
/// with a box of its cell it touches (neighbours along one axis, equal on the
/// others) until it touches none: every pair is tried once, when the later of
/// the two comes in, so a mark costs the map's length times the boxes it adds.
fn join_into(list: &mut Vec<(IndexBox, Cell)>, mut new: Vec<(IndexBox, Cell)>) {
    while let Some((b, c)) = new.pop() {
        if b.is_empty() {
            continue;
        }
        match list.iter().enumerate().find_map(|(k, (x, xc))| if *xc == c { union(x, &b).map(|u| (k, u)) } else { None }) {
            Some((k, u)) => {
                list.swap_remove(k);
                new.push((u, c));
            }
            None => list.push((b, c)),
        }
    }
}

/// The box holding exactly `a` and `b`, when there is one: they touch along
/// one axis and agree on all others.
fn union(a: &IndexBox, b: &IndexBox) -> Option<IndexBox> {
    let r = a.rank();
    let (al, ah, bl, bh) = (a.lo(), a.hi(), b.lo(), b.hi());
    let mut axis = None;
    for k in 0..r {
        if al[k] == bl[k] && ah[k] == bh[k] {
            continue;
        }
        if axis.is_some() || !(ah[k] == bl[k] || bh[k] == al[k]) {
            return None;
        }
        axis = Some(k);
    }
    let k = axis?;
    let (mut lo, mut hi) = (al.to_vec(), ah.to_vec());
    lo[k] = al[k].min(bl[k]);
    hi[k] = ah[k].max(bh[k]);
    Some(IndexBox::new(&lo, &hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn the_ghost_rows_are_one_box_on_a_base() {
        let whole = IndexBox::new(&[0, 0], &[1000, 3]);
        let m = Boxes::uniform(Cell::Device);
        let ghost = IndexBox::new(&[900, 0], &[1000, 3]);
        assert_eq!(m.parts(&ghost, Cell::Device, 8).unwrap(), vec![ghost]);
        let m = m.assigned(&ghost, Cell::Clean, &whole).unwrap();
        assert_eq!(m.list, vec![(ghost, Cell::Clean)]);
        assert!(m.parts(&ghost, Cell::Device, 8).unwrap().is_empty(), "a second ghost sync copies nothing");
        assert_eq!(m.count(Cell::Device, 3000), 2700);
        assert!(m.any(&IndexBox::new(&[899, 0], &[901, 1]), Cell::Device));
        assert!(!m.any(&ghost, Cell::Device));
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn neighbours_join_and_rows_marked_one_by_one_stay_one_box() {
        let whole = IndexBox::new(&[0, 0], &[100, 10]);
        let mut m = Boxes::uniform(Cell::Clean);
        for i in 0..100 {
            m = m.assigned(&IndexBox::new(&[i, 0], &[i + 1, 10]), Cell::Host, &whole).unwrap();
        }
        assert_eq!(m.list, vec![(whole, Cell::Host)]);
        assert_eq!(union(&IndexBox::new(&[0, 0], &[1, 2]), &IndexBox::new(&[1, 1], &[2, 2])), None);
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn too_many_boxes_answer_none() {
        let whole = IndexBox::new(&[0], &[1000]);
        let mut m = Boxes::uniform(Cell::Device);
        for i in 0..MAX_BOXES {
            m = m.assigned(&IndexBox::new(&[2 * i], &[2 * i + 1]), Cell::Clean, &whole).unwrap();
        }
        assert!(m.assigned(&IndexBox::new(&[999], &[1000]), Cell::Clean, &whole).is_none());
        assert!(m.parts(&whole, Cell::Device, 10).is_none());
        assert_eq!(m.parts(&whole, Cell::Device, MAX_BOXES).unwrap().len(), MAX_BOXES);
    }
}
