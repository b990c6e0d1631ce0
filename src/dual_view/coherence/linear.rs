//! Elements in memory order: the linear index the bitmap uses.
//!
//! The axes are ordered fastest first (by stride), so a run of linear
//! indices is a run of memory for a contiguous layout, and a box spanning
//! whole rows is one run.
//!
//! | question | answer |
//! | --- | --- |
//! | the linear runs of a box | [`Order::runs`]: one per row of its outer axes, fewer when it spans whole rows |
//! | the boxes of a linear run | [`Order::boxes_of`]: at most `2 * rank - 1`, disjoint |
//! | a box as rows and columns | [`Order::rects`]: columns along the fastest axis of extent above 1, rows along the next; one rectangle per position of the axes above those (axes the box covers whole join the rows) |

use crate::dual_view::regions::IndexBox;
use crate::extents::MAX_RANK;
use crate::layout::Mapping;

/// The axes of a parent's index space, fastest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Order {
    rank: u8,
    /// `axis[k]` is the `k`-th fastest axis.
    axis: [u8; MAX_RANK],
    /// The extent of `axis[k]`.
    dims: [usize; MAX_RANK],
    /// The number of elements.
    len: usize,
}

impl Order {
    /// The memory order of `mapping`: axes by stride, ties by axis number.
    pub(crate) fn of(mapping: &Mapping) -> Order {
        let ext = mapping.extents().as_slice();
        let strides = mapping.strides().as_slice();
        let mut axes: Vec<usize> = (0..ext.len()).collect();
        axes.sort_by_key(|&a| (strides[a], a));
        let mut o = Order { rank: ext.len() as u8, axis: [0; MAX_RANK], dims: [0; MAX_RANK], len: ext.iter().product() };
        for (k, &a) in axes.iter().enumerate() {
            o.axis[k] = a as u8;
            o.dims[k] = ext[a];
        }
        o
    }

    /// The number of elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The extents, by axis.
    pub(crate) fn extents(&self) -> [usize; MAX_RANK] {
        let mut e = [0; MAX_RANK];
        for k in 0..self.rank as usize {
            e[self.axis[k] as usize] = self.dims[k];
        }
        e
    }

    /// The rank.
    pub(crate) fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The elements of a row: the extent of the fastest axis of extent above 1
    /// (1 when there is none; axes of extent 1 add nothing to a linear index).
    pub(crate) fn row_len(&self) -> usize {
        (0..self.rank as usize).map(|k| self.dims[k]).find(|&d| d > 1).unwrap_or(1)
    }

    /// Call `f(r0, r1, c0, c1)` for rectangles of rows `[r0, r1)` (of
    /// [`Order::row_len`] elements) and columns `[c0, c1)` that together hold
    /// exactly the elements of `b` (a box inside the extents): the columns
    /// along the fastest axis of extent above 1, the rows along the next, one
    /// rectangle per position of the others (fewer where the box covers them
    /// whole: their rows are then one range).
    pub(crate) fn rects(&self, b: &IndexBox, mut f: impl FnMut(usize, usize, usize, usize)) {
        if b.is_empty() {
            return;
        }
        let (lo, hi) = (b.lo(), b.hi());
        // The axes of extent above 1, fastest first, by their position in the order.
        let mut ks = [0usize; MAX_RANK];
        let mut m = 0;
        for k in 0..self.rank as usize {
            if self.dims[k] > 1 {
                ks[m] = k;
                m += 1;
            }
        }
        let range = |k: usize| (lo[self.axis[k] as usize], hi[self.axis[k] as usize]);
        if m == 0 {
            return f(0, 1, 0, 1);
        }
        let (c0, c1) = range(ks[0]);
        if m == 1 {
            return f(0, 1, c0, c1);
        }
        // Rows: the second axis, and with it the next ones while the box covers it whole.
        let (mut r0, mut r1) = range(ks[1]);
        let mut rows = self.dims[ks[1]];
        let mut j = 2;
        while j < m && r0 == 0 && r1 == rows {
            let (l, h) = range(ks[j]);
            (r0, r1, rows) = (l * rows, h * rows, rows * self.dims[ks[j]]);
            j += 1;
        }
        // Odometer over the axes left, each with its stride in rows.
        let mut stride = [0usize; MAX_RANK];
        let mut s = rows;
        for q in j..m {
            stride[q] = s;
            s *= self.dims[ks[q]];
        }
        let mut idx = [0usize; MAX_RANK];
        for q in j..m {
            idx[q] = range(ks[q]).0;
        }
        let mut base: usize = (j..m).map(|q| idx[q] * stride[q]).sum();
        loop {
            f(base + r0, base + r1, c0, c1);
            let mut q = j;
            loop {
                if q >= m {
                    return;
                }
                idx[q] += 1;
                base += stride[q];
                let (l, h) = range(ks[q]);
                if idx[q] < h {
                    break;
                }
                base -= (idx[q] - l) * stride[q];
                idx[q] = l;
                q += 1;
            }
        }
    }

    /// The fastest axis of extent above 1 (the fastest axis when there is
    /// none; 0 for rank 0): a run along it is a run of linear indices.
    pub(crate) fn fastest(&self) -> usize {
        let r = self.rank as usize;
        // Axes of extent 1 add nothing to a linear index: the first longer one is the fastest.
        (0..r).find(|&k| self.dims[k] > 1).map_or(self.axis[0], |k| self.axis[k]) as usize
    }

    /// Whether every element of this order keeps its linear index under
    /// `other`: the same axes in the same order and extents, except that the
    /// slowest may be longer there.
    pub(crate) fn is_prefix_of(&self, other: &Order) -> bool {
        let r = self.rank as usize;
        r > 0
            && r == other.rank as usize
            && self.axis[..r] == other.axis[..r]
            && self.dims[..r - 1] == other.dims[..r - 1]
            && self.dims[r - 1] <= other.dims[r - 1]
    }

    /// The linear index of `idx` (by axis).
    pub(crate) fn linear(&self, idx: &[usize]) -> usize {
        let (mut at, mut stride) = (0, 1);
        for k in 0..self.rank as usize {
            at += idx[self.axis[k] as usize] * stride;
            stride *= self.dims[k];
        }
        at
    }

    /// Call `f(start, end)` for each linear run of `b` (a box inside the
    /// extents), in increasing order.
    pub(crate) fn runs(&self, b: &IndexBox, mut f: impl FnMut(usize, usize)) {
        let r = self.rank as usize;
        if b.is_empty() {
            return;
        }
        let (lo, hi) = (b.lo(), b.hi());
        // The leading axes the box covers whole make one run with the next axis.
        let (mut k, mut inner) = (0, 1usize);
        while k < r && lo[self.axis[k] as usize] == 0 && hi[self.axis[k] as usize] == self.dims[k] {
            inner *= self.dims[k];
            k += 1;
        }
        if k == r {
            f(0, self.len);
            return;
        }
        let run = (hi[self.axis[k] as usize] - lo[self.axis[k] as usize]) * inner;
        let first = lo[self.axis[k] as usize] * inner;
        // Odometer over the outer axes k+1..r.
        let mut stride = [0usize; MAX_RANK];
        let mut s = inner * self.dims[k];
        for (st, &d) in stride.iter_mut().zip(&self.dims).take(r).skip(k + 1) {
            *st = s;
            s *= d;
        }
        let mut idx = [0usize; MAX_RANK];
        for (i, &a) in idx.iter_mut().zip(&self.axis).take(r).skip(k + 1) {
            *i = lo[a as usize];
        }
        // The run's start, kept as the odometer moves (one add a step).
        let mut start = first + (k + 1..r).map(|j| idx[j] * stride[j]).sum::<usize>();
        loop {
            f(start, start + run);
            let mut j = k + 1;
            loop {
                if j == r {
                    return;
                }
                idx[j] += 1;
                start += stride[j];
                if idx[j] < hi[self.axis[j] as usize] {
                    break;
                }
                let back = idx[j] - lo[self.axis[j] as usize];
                idx[j] = lo[self.axis[j] as usize];
                start -= back * stride[j];
                j += 1;
            }
        }
    }

    /// The disjoint boxes (at most `2 * rank - 1`) whose elements are the
    /// linear indices `[a, e)`, appended to `out`.
    pub(crate) fn boxes_of(&self, mut a: usize, mut e: usize, out: &mut Vec<IndexBox>) {
        let r = self.rank as usize;
        if a >= e {
            return;
        }
        if r == 0 {
            out.push(IndexBox::new(&[], &[]));
            return;
        }
        // At level k, a and e are multiples of `unit` (the stride of axis k).
        let mut unit = 1usize;
        for k in 0..r {
            if k == r - 1 {
                out.push(self.slab(k, unit, a, e));
                return;
            }
            let next = unit * self.dims[k];
            if !a.is_multiple_of(next) {
                let end = e.min(a.next_multiple_of(next));
                out.push(self.slab(k, unit, a, end));
                a = end;
            }
            if a >= e {
                return;
            }
            if !e.is_multiple_of(next) {
                let start = a.max(e - e % next);
                out.push(self.slab(k, unit, start, e));
                e = start;
            }
            if a >= e {
                return;
            }
            unit = next;
        }
    }

    /// The box of `[a, e)` (multiples of `unit`, the stride of axis `k`,
    /// inside one block of axis `k + 1`): axes below `k` whole, axis `k` a
    /// range, the axes above at the coordinates of `a`.
    fn slab(&self, k: usize, unit: usize, a: usize, e: usize) -> IndexBox {
        let r = self.rank as usize;
        let (mut lo, mut hi) = ([0usize; MAX_RANK], [0usize; MAX_RANK]);
        let mut stride = 1usize;
        for j in 0..r {
            let ax = self.axis[j] as usize;
            let c = (a / stride) % self.dims[j].max(1);
            if j < k {
                (lo[ax], hi[ax]) = (0, self.dims[j]);
            } else if j == k {
                (lo[ax], hi[ax]) = (c, c + (e - a) / unit);
            } else {
                (lo[ax], hi[ax]) = (c, c + 1);
            }
            stride *= self.dims[j];
        }
        IndexBox::new(&lo[..r], &hi[..r])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extents::DynRank;
    use crate::layout::Layout;

    fn order(layout: Layout, ext: &[usize]) -> Order {
        Order::of(&Mapping::new(layout, DynRank::new(ext).unwrap()).unwrap())
    }

    /// Every index of `ext` (row-major), as vectors.
    fn indices(ext: &[usize]) -> Vec<Vec<usize>> {
        let n: usize = ext.iter().product();
        (0..n)
            .map(|mut k| {
                let mut idx = vec![0; ext.len()];
                for r in (0..ext.len()).rev() {
                    idx[r] = k % ext[r];
                    k /= ext[r];
                }
                idx
            })
            .collect()
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn the_linear_index_follows_memory_order() {
        let m = Mapping::new(Layout::Right, DynRank::new(&[3, 4, 5]).unwrap()).unwrap();
        let o = Order::of(&m);
        for idx in indices(&[3, 4, 5]) {
            assert_eq!(o.linear(&idx), m.offset(&idx).unwrap());
        }
        let m = Mapping::new(Layout::Left, DynRank::new(&[3, 4]).unwrap()).unwrap();
        let o = Order::of(&m);
        for idx in indices(&[3, 4]) {
            assert_eq!(o.linear(&idx), m.offset(&idx).unwrap());
        }
        assert_eq!(o.extents()[..2], [3, 4]);
    }

    #[test]
    #[cfg_attr(miri, ignore = "thousands of boxes are too slow under Miri")]
    fn runs_and_boxes_cover_exactly_what_they_say() {
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for (layout, ext) in [
            (Layout::Right, vec![4usize, 3, 5]),
            (Layout::Left, vec![4, 3, 5]),
            (Layout::Right, vec![7]),
            (Layout::Left, vec![2, 1, 3, 2]),
            (Layout::Right, vec![]),
            (Layout::Right, vec![6, 5]),
            (Layout::Left, vec![1, 4, 3]),
            (Layout::Right, vec![3, 4, 1]),
            (Layout::Right, vec![2, 3, 1, 2, 3]),
            (Layout::Left, vec![2, 1, 2, 3, 1, 2]),
        ] {
            let o = order(layout, &ext);
            let all = indices(&ext);
            for _ in 0..200 {
                let (mut lo, mut hi) = (vec![0; ext.len()], vec![0; ext.len()]);
                for r in 0..ext.len() {
                    lo[r] = next(ext[r] + 1);
                    hi[r] = lo[r] + next(ext[r] + 1 - lo[r]);
                    if next(3) == 0 {
                        (lo[r], hi[r]) = (0, ext[r]);
                    }
                }
                let b = IndexBox::new(&lo, &hi);
                let mut lin: Vec<usize> = Vec::new();
                let mut last = 0;
                o.runs(&b, |s, e| {
                    assert!(s < e && s >= last, "runs ascend and are not empty");
                    last = e;
                    lin.extend(s..e);
                });
                let mut want: Vec<usize> = all.iter().filter(|i| b.holds(i)).map(|i| o.linear(i)).collect();
                want.sort();
                assert_eq!(lin, want, "runs of {b:?} in {ext:?}");
                // Rows and columns: the same elements.
                let w = o.row_len();
                let mut rect: Vec<usize> = Vec::new();
                o.rects(&b, |r0, r1, c0, c1| {
                    assert!(r0 < r1 && c0 < c1 && c1 <= w, "rectangles are not empty and lie in the rows");
                    rect.extend((r0..r1).flat_map(|r| (c0..c1).map(move |c| r * w + c)));
                });
                rect.sort();
                assert_eq!(rect, want, "rects of {b:?} in {ext:?}");
                // An arbitrary interval becomes disjoint boxes holding exactly it.
                let a = next(o.len() + 1);
                let e = a + next(o.len() + 1 - a);
                let mut boxes = Vec::new();
                o.boxes_of(a, e, &mut boxes);
                assert!(boxes.len() < (2 * ext.len()).max(2), "{boxes:?}");
                let mut got: Vec<usize> =
                    boxes.iter().flat_map(|x| all.iter().filter(|i| x.holds(i)).map(|i| o.linear(i))).collect();
                assert_eq!(got.len(), boxes.iter().map(IndexBox::len).sum::<usize>(), "boxes inside the extents");
                got.sort();
                assert_eq!(got, (a..e).collect::<Vec<_>>(), "[{a}, {e}) in {ext:?}: {boxes:?}");
            }
        }
    }
}
