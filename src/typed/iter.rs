//! [`Walk`]: every multi-index of a view in layout order (memory order: the
//! axis of smallest stride fastest; LayoutLeft: first index fastest,
//! LayoutRight: last index fastest), with its offset, for contiguous and
//! strided views alike. The iterators that follow it are in raw.rs.

use crate::extents::MAX_RANK;

/// A walk over every multi-index of a view in layout order, with its offset.
#[derive(Clone, Debug)]
pub(crate) struct Walk {
    /// Axes, fastest first.
    order: [u8; MAX_RANK],
    rank: u8,
    ext: [usize; MAX_RANK],
    strides: [usize; MAX_RANK],
    idx: [usize; MAX_RANK],
    off: usize,
    pub(super) left: usize,
}

impl Walk {
    pub(crate) fn new(ext: &[usize], strides: &[usize]) -> Walk {
        let rank = ext.len();
        let mut order = [0u8; MAX_RANK];
        for (k, o) in order.iter_mut().enumerate().take(rank) {
            *o = k as u8;
        }
        order[..rank].sort_by_key(|&a| (strides[a as usize], a));
        let mut w = Walk { order, rank: rank as u8, ext: [0; MAX_RANK], strides: [0; MAX_RANK], idx: [0; MAX_RANK], off: 0, left: ext.iter().product() };
        w.ext[..rank].copy_from_slice(ext);
        w.strides[..rank].copy_from_slice(strides);
        w
    }

    /// The current multi-index and offset, then step to the next one.
    #[inline]
    pub(super) fn step(&mut self) -> Option<([usize; MAX_RANK], usize)> {
        if self.left == 0 {
            return None;
        }
        let here = (self.idx, self.off);
        self.left -= 1;
        for &a in &self.order[..self.rank as usize] {
            let a = a as usize;
            self.idx[a] += 1;
            self.off += self.strides[a];
            if self.idx[a] < self.ext[a] {
                break;
            }
            self.off -= self.ext[a] * self.strides[a];
            self.idx[a] = 0;
        }
        Some(here)
    }

    pub(super) fn rank(&self) -> usize {
        self.rank as usize
    }
}

#[cfg(test)]
mod tests {
    use super::Walk;

    fn offsets(ext: &[usize], strides: &[usize]) -> Vec<(Vec<usize>, usize)> {
        let mut w = Walk::new(ext, strides);
        std::iter::from_fn(|| w.step().map(|(i, o)| (i[..ext.len()].to_vec(), o))).collect()
    }

    #[test]
    fn walks_in_memory_order() {
        // LayoutLeft 2x3: first index fastest.
        let left = offsets(&[2, 3], &[1, 2]);
        assert_eq!(left.iter().map(|p| p.1).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(left[1].0, vec![1, 0]);
        // LayoutRight 2x3: last index fastest.
        let right = offsets(&[2, 3], &[3, 1]);
        assert_eq!(right.iter().map(|p| p.1).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(right[1].0, vec![0, 1]);
        // A strided column block: offsets with gaps, still increasing.
        let strided = offsets(&[2, 2], &[1, 10]);
        assert_eq!(strided.iter().map(|p| p.1).collect::<Vec<_>>(), vec![0, 1, 10, 11]);
        // Rank 0: one element; an empty axis: none.
        assert_eq!(offsets(&[], &[]), vec![(vec![], 0)]);
        assert!(offsets(&[3, 0], &[1, 3]).is_empty());
    }
}
