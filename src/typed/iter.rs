//! Iterators over a guard's elements in layout order (memory order: the
//! axis of smallest stride fastest; LayoutLeft: first index fastest,
//! LayoutRight: last index fastest), for contiguous and strided views alike.

use crate::extents::{Extents, MAX_RANK};
use std::marker::PhantomData;

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
    left: usize,
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
    fn step(&mut self) -> Option<([usize; MAX_RANK], usize)> {
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

    fn rank(&self) -> usize {
        self.rank as usize
    }
}

enum Inner {
    /// A contiguous view: memory order is the slice's order.
    Span { next: usize, end: usize },
    Strided(Box<Walk>),
}

macro_rules! iterators {
    ($(#[$m:meta])* $iter:ident, $(#[$mi:meta])* $indexed:ident, $ptr:ty, $item:ty, $deref:ident) => {
        $(#[$m])*
        pub struct $iter<'a, T> {
            base: $ptr,
            inner: Inner,
            _t: PhantomData<$item>,
        }

        impl<'a, T> $iter<'a, T> {
            /// # Safety
            /// `base` addresses a live, host-accessible view of extents `ext`
            /// and strides `strides`, borrowed (exclusively for the mutable
            /// form) for `'a`.
            pub(crate) unsafe fn new(base: $ptr, ext: &[usize], strides: &[usize], contiguous: bool) -> Self {
                let inner = if contiguous {
                    Inner::Span { next: 0, end: ext.iter().product() }
                } else {
                    Inner::Strided(Box::new(Walk::new(ext, strides)))
                };
                $iter { base, inner, _t: PhantomData }
            }
        }

        impl<'a, T> Iterator for $iter<'a, T> {
            type Item = $item;
            #[inline]
            fn next(&mut self) -> Option<$item> {
                let off = match &mut self.inner {
                    Inner::Span { next, end } => {
                        if *next == *end {
                            return None;
                        }
                        *next += 1;
                        *next - 1
                    }
                    Inner::Strided(w) => w.step()?.1,
                };
                // SAFETY: every offset of the walk lies inside the view (`new`'s
                // contract), and each is visited once, so mutable items never alias.
                Some(unsafe { $deref(self.base.add(off)) })
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = match &self.inner {
                    Inner::Span { next, end } => end - next,
                    Inner::Strided(w) => w.left,
                };
                (n, Some(n))
            }
        }

        impl<T> ExactSizeIterator for $iter<'_, T> {}
        impl<T> std::iter::FusedIterator for $iter<'_, T> {}
        // SAFETY: the iterator hands out `&T` / `&mut T` of a borrowed view,
        // like `slice::Iter` / `IterMut`; `Element` types are `Send + Sync`.
        unsafe impl<T: Send + Sync> Send for $iter<'_, T> {}
        // SAFETY: as above.
        unsafe impl<T: Send + Sync> Sync for $iter<'_, T> {}

        $(#[$mi])*
        pub struct $indexed<'a, T, E: Extents> {
            base: $ptr,
            walk: Walk,
            _t: PhantomData<($item, fn() -> E)>,
        }

        impl<'a, T, E: Extents> $indexed<'a, T, E> {
            /// # Safety
            /// As the plain iterator's `new`.
            pub(crate) unsafe fn new(base: $ptr, ext: &[usize], strides: &[usize]) -> Self {
                $indexed { base, walk: Walk::new(ext, strides), _t: PhantomData }
            }
        }

        impl<'a, T, E: Extents> Iterator for $indexed<'a, T, E> {
            type Item = (E::Index, $item);
            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                let (idx, off) = self.walk.step()?;
                let rank = self.walk.rank();
                // SAFETY: as the plain iterator.
                Some((E::index_from(&idx[..rank]), unsafe { $deref(self.base.add(off)) }))
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                (self.walk.left, Some(self.walk.left))
            }
        }

        impl<T, E: Extents> ExactSizeIterator for $indexed<'_, T, E> {}
        impl<T, E: Extents> std::iter::FusedIterator for $indexed<'_, T, E> {}
        // SAFETY: as the plain iterator.
        unsafe impl<T: Send + Sync, E: Extents> Send for $indexed<'_, T, E> {}
        // SAFETY: as the plain iterator.
        unsafe impl<T: Send + Sync, E: Extents> Sync for $indexed<'_, T, E> {}
    };
}

/// # Safety
/// `p` points to a live `T` valid for `'a`.
#[inline(always)]
unsafe fn shared<'a, T>(p: *const T) -> &'a T {
    // SAFETY: the caller's contract.
    unsafe { &*p }
}

/// # Safety
/// `p` points to a live `T`, valid and unaliased for `'a`.
#[inline(always)]
unsafe fn unique<'a, T>(p: *mut T) -> &'a mut T {
    // SAFETY: the caller's contract.
    unsafe { &mut *p }
}

iterators!(
    /// The elements of a guard in layout order (from `iter()`).
    Iter,
    /// `(multi-index, element)` pairs of a guard in layout order (from `indexed()`).
    Indexed,
    *const T, &'a T, shared
);
iterators!(
    /// The elements of a mutable guard in layout order (from `iter_mut()`).
    IterMut,
    /// `(multi-index, element)` pairs of a mutable guard in layout order (from `indexed_mut()`).
    IndexedMut,
    *mut T, &'a mut T, unique
);

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
