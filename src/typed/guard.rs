//! Access guards: a borrowed view of one side, held while the guard lives.
//!
//! A guard keeps the allocation alive and borrows its side (or its
//! subview's region of it) at run time: while it lives, a sync, fill or
//! resize that would write that side answers `Busy`, and an overlapping
//! mutable guard is refused. Guards of disjoint subviews coexist. What a
//! guard lends (elements, slices, iterators) comes from raw.rs.
//!
//! Element order, for both layouts (pinned by `tests/rust_api.rs`):
//!
//! | access | order |
//! | --- | --- |
//! | `Deref` (`&h[..]`), `as_slice`, `h[i]`, `iter`, `indexed` | memory order: LayoutLeft first index fastest, LayoutRight last index fastest |
//! | `h[[i, j]]`, `h[(i, j)]`, `get([i, j])` | by multi-index, whatever the layout |
//! | `to_vec` | row-major index order (last index fastest), whatever the layout |

use super::raw::{Indexed, IndexedMut, Iter, IterMut};
use crate::dual_view::RawDualView;
use crate::element::Element;
use crate::error::Result;
use crate::extents::{AsIndex, DynIndex, DynRank, Extents, Rank};
use crate::side::Side;
use crate::view::View;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut, Index, IndexMut, Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};
use super::borrow::Borrow;

/// Shared access to one side (from `host()` / `device()`), typed by the
/// DualView's extents `E`: `h[[i, j]]` (or `h[(i, j)]`, from rank 2) takes
/// exactly `rank` indices.
///
/// ```
/// # use dualview::{DualView, Dims};
/// let a = DualView::<u8, Dims<1>>::new("a", Dims::from([3])).unwrap();
/// let h = a.host().unwrap();
/// assert_eq!(&h[..], &[0, 0, 0]);
/// assert_eq!(h[[2]], 0);
/// assert_eq!(a.host_mut().unwrap_err().kind(), dualview::ErrorKind::Busy);
/// let b = DualView::<u8, Dims<2>>::new("b", Dims::from([2, 3])).unwrap();
/// assert_eq!(b.host().unwrap()[(1, 2)], b.host().unwrap()[[1, 2]]);
/// ```
pub struct ViewRef<'a, T: Element, E: Extents = DynRank> {
    pub(super) b: Borrow<'a>,
    _t: PhantomData<&'a T>,
    _e: PhantomData<fn() -> E>,
}

/// Exclusive access to one side (from `host_mut()` / `device_mut()` and the `_write` forms).
///
/// ```
/// # use dualview::{DualView, Dims};
/// let a = DualView::<u8, Dims<2>>::new("a", Dims::from([2, 2])).unwrap();
/// let mut h = a.host_mut().unwrap();
/// h[[1, 0]] = 4;
/// h[(0, 1)] = 2; // the same as h[[0, 1]]
/// assert_eq!(&h[..], &[0, 2, 4, 0]);
/// ```
pub struct ViewMut<'a, T: Element, E: Extents = DynRank> {
    pub(super) b: Borrow<'a>,
    _t: PhantomData<&'a mut T>,
    _e: PhantomData<fn() -> E>,
}

impl<'a, T: Element, E: Extents> ViewRef<'a, T, E> {
    pub(crate) fn new(dv: &'a RawDualView, side: Side, view: View) -> Result<Self> {
        Ok(ViewRef { b: Borrow::new::<E>(dv, side, view, false)?, _t: PhantomData, _e: PhantomData })
    }
}

impl<'a, T: Element, E: Extents> ViewMut<'a, T, E> {
    pub(crate) fn new(dv: &'a RawDualView, side: Side, view: View) -> Result<Self> {
        Ok(ViewMut { b: Borrow::new::<E>(dv, side, view, true)?, _t: PhantomData, _e: PhantomData })
    }
}

/// `h[a..b]` and friends: sub-slices of the span, as on `[T]`.
macro_rules! span_ranges {
    ($t:ident; $($r:ty)*) => { $(
        impl<T: Element, E: Extents> Index<$r> for $t<'_, T, E> {
            type Output = [T];
            #[inline]
            #[track_caller]
            fn index(&self, r: $r) -> &[T] {
                &(**self)[r]
            }
        }
    )* };
}

/// The mutable forms of `span_ranges`.
macro_rules! span_ranges_mut {
    ($($r:ty)*) => { $(
        impl<T: Element, E: Extents> IndexMut<$r> for ViewMut<'_, T, E> {
            #[inline]
            #[track_caller]
            fn index_mut(&mut self, r: $r) -> &mut [T] {
                &mut (**self)[r]
            }
        }
    )* };
}
span_ranges_mut!(RangeFull Range<usize> RangeFrom<usize> RangeTo<usize> RangeInclusive<usize> RangeToInclusive<usize>);

macro_rules! read_methods {
    ($t:ident) => {
        impl<T: Element, E: Extents> std::fmt::Debug for $t<'_, T, E> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).field("side", &self.b.side).field("view", &self.b.view).finish()
            }
        }

        impl<T: Element, E: Extents> $t<'_, T, E> {
            /// Which side this guard borrows.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// assert_eq!(a.host().unwrap().side(), dualview::Side::Host);
            /// ```
            pub fn side(&self) -> Side {
                self.b.side
            }

            /// The underlying untyped view (label, mapping, space, pointer).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// assert_eq!(a.host().unwrap().view().label(), "A");
            /// ```
            pub fn view(&self) -> &View {
                &self.b.view
            }

            /// The extents.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// assert_eq!(a.host().unwrap().extents().as_slice(), &[2, 3]);
            /// ```
            pub fn extents(&self) -> &DynRank {
                self.b.view.extents()
            }

            /// The extents as a multi-index type (`[usize; R]` for a rank in the type).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// let [nx, ny] = a.host().unwrap().shape();
            /// assert_eq!((nx, ny), (2, 3));
            /// ```
            pub fn shape(&self) -> E::Index {
                E::index_from(&self.b.ext[..self.b.rank])
            }

            /// The stride of each axis in elements (Left: `[1, nx]`, Right: `[ny, 1]` for rank 2).
            ///
            /// ```
            /// # use dualview::{DualView, Dims, Layout};
            /// let a = DualView::<u16, Dims<2>>::builder("A", Dims::from([2, 3])).layout(Layout::Left).build().unwrap();
            /// assert_eq!(a.host().unwrap().strides(), [1, 2]);
            /// ```
            pub fn strides(&self) -> E::Index {
                E::index_from(&self.b.strides[..self.b.rank])
            }

            /// The number of elements in view.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// let h = a.host().unwrap();
            /// assert_eq!((h.len(), h.is_empty()), (6, false));
            /// ```
            pub fn len(&self) -> usize {
                self.b.len
            }

            /// Whether no element is in view.
            pub fn is_empty(&self) -> bool {
                self.b.len == 0
            }

            /// Address of the element at index 0 (a device address for device memory).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// assert!(!a.host().unwrap().as_ptr().is_null());
            /// ```
            pub fn as_ptr(&self) -> *const T {
                self.b.ptr as *const T
            }

            /// The element at `idx` (`[i, j]` for a rank-2 type); errors on a
            /// bad index or memory the host cannot read. `h[[i, j]]` is the
            /// panicking form.
            ///
            /// ```
            /// # use dualview::{DualView, Dims, ErrorKind};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// let h = a.host().unwrap();
            /// assert_eq!(*h.get([1, 2]).unwrap(), 0);
            /// assert_eq!(h.get([2, 0]).unwrap_err().kind(), ErrorKind::OutOfRange);
            /// ```
            #[inline]
            pub fn get(&self, idx: impl AsIndex<E>) -> Result<&T> {
                self.b.get(idx.indices())
            }

            /// The whole span as a slice, in memory order, when it is
            /// contiguous and host-accessible (`&h[..]` is the panicking form).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
            /// assert_eq!(a.host().unwrap().as_slice().unwrap().len(), 6);
            /// ```
            pub fn as_slice(&self) -> Result<&[T]> {
                self.b.as_slice()
            }

            /// Every element in row-major index order (last index fastest),
            /// whatever the layout; `iter()` gives memory order.
            ///
            /// ```
            /// # use dualview::{DualView, Dims, Layout};
            /// let a = DualView::<u16, Dims<2>>::builder("A", Dims::from([2, 2])).layout(Layout::Left).build().unwrap();
            /// a.host_mut().unwrap()[[0, 1]] = 7;
            /// let h = a.host().unwrap();
            /// assert_eq!(h.to_vec().unwrap(), vec![0, 7, 0, 0]);
            /// assert_eq!(&h[..], &[0, 0, 7, 0]); // LayoutLeft memory order
            /// ```
            pub fn to_vec(&self) -> Result<Vec<T>> {
                self.b.to_vec()
            }

            /// The elements in memory order, for contiguous and strided views.
            ///
            /// # Panics
            /// When the memory is not host-accessible (a CUDA device guard).
            ///
            /// ```
            /// # use dualview::{DualView, Dims, Slice};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([3, 3])).unwrap();
            /// a.fill_host(2).unwrap();
            /// let col = a.slice(dualview::s![.., 1]).unwrap(); // strided
            /// assert_eq!(col.host().unwrap().iter().sum::<u16>(), 6);
            /// ```
            #[track_caller]
            pub fn iter(&self) -> Iter<'_, T> {
                self.b.iter()
            }

            /// `(multi-index, element)` pairs in memory order.
            ///
            /// # Panics
            /// When the memory is not host-accessible (a CUDA device guard).
            ///
            /// ```
            /// # use dualview::{DualView, Dims, Layout};
            /// let a = DualView::<u16, Dims<2>>::builder("A", Dims::from([2, 2])).layout(Layout::Left).build().unwrap();
            /// let h = a.host().unwrap();
            /// let order: Vec<[usize; 2]> = h.indexed().map(|(i, _)| i).collect();
            /// assert_eq!(order, vec![[0, 0], [1, 0], [0, 1], [1, 1]]);
            /// ```
            #[track_caller]
            pub fn indexed(&self) -> Indexed<'_, T, E> {
                self.b.indexed()
            }
        }

        impl<T: Element, E: Extents> Deref for $t<'_, T, E> {
            type Target = [T];
            /// The span in memory order.
            ///
            /// # Panics
            /// When the view is strided or not host-accessible; `as_slice()`
            /// is the checked form, `iter()` works on strided views.
            #[inline]
            #[track_caller]
            fn deref(&self) -> &[T] {
                self.b.span_slice()
            }
        }

        impl<T: Element, E: Extents> Index<usize> for $t<'_, T, E> {
            type Output = T;
            /// Element `i` of the span in memory order (`(*h)[i]`).
            #[inline]
            #[track_caller]
            fn index(&self, i: usize) -> &T {
                &(**self)[i]
            }
        }

        span_ranges!($t; RangeFull Range<usize> RangeFrom<usize> RangeTo<usize> RangeInclusive<usize> RangeToInclusive<usize>);

        impl<'b, T: Element, E: Extents> IntoIterator for &'b $t<'_, T, E> {
            type Item = &'b T;
            type IntoIter = Iter<'b, T>;
            fn into_iter(self) -> Iter<'b, T> {
                self.iter()
            }
        }

        impl<T: Element, E: Rank<R>, const R: usize> Index<[usize; R]> for $t<'_, T, E> {
            type Output = T;
            /// The element at a multi-index of exactly the type's rank.
            ///
            /// # Panics
            /// Out of bounds, or memory the host cannot read.
            #[inline(always)]
            #[track_caller]
            fn index(&self, idx: [usize; R]) -> &T {
                self.b.at_fixed(&idx)
            }
        }

        impl<T: Element, const N: usize> Index<[usize; N]> for $t<'_, T, DynRank> {
            type Output = T;
            /// The element at a multi-index (run-time rank: a wrong length panics).
            #[inline]
            #[track_caller]
            fn index(&self, idx: [usize; N]) -> &T {
                self.b.at(&idx)
            }
        }

        impl<T: Element> Index<&[usize]> for $t<'_, T, DynRank> {
            type Output = T;
            /// The element at a multi-index (run-time rank: a wrong length panics).
            #[inline]
            #[track_caller]
            fn index(&self, idx: &[usize]) -> &T {
                self.b.at(idx)
            }
        }

        impl<T: Element> Index<DynIndex> for $t<'_, T, DynRank> {
            type Output = T;
            /// The element at a multi-index (run-time rank: a wrong length panics).
            #[inline]
            #[track_caller]
            fn index(&self, idx: DynIndex) -> &T {
                self.b.at(&idx)
            }
        }
    };
}
read_methods!(ViewRef);
read_methods!(ViewMut);

impl<T: Element, E: Extents> ViewMut<'_, T, E> {
    /// The element at `idx`, mutably (`h[[i, j]]` is the panicking form).
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// *h.get_mut([1, 1]).unwrap() += 2;
    /// assert_eq!(h[[1, 1]], 2);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, idx: impl AsIndex<E>) -> Result<&mut T> {
        self.b.get_mut(idx.indices())
    }

    /// Write `value` at `idx`.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// h.set([0, 2], 7).unwrap();
    /// assert_eq!(h.to_vec().unwrap()[2], 7);
    /// ```
    pub fn set(&mut self, idx: impl AsIndex<E>, value: T) -> Result<()> {
        *self.get_mut(idx)? = value;
        Ok(())
    }

    /// The whole span as a mutable slice in memory order, when contiguous
    /// and host-accessible (`&mut h[..]` is the panicking form).
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// h.as_mut_slice().unwrap()[5] = 1;
    /// assert_eq!(h[[1, 2]], 1);
    /// ```
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.b.as_mut_slice()
    }

    /// Set every element to `value`.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// h.fill(4).unwrap();
    /// assert_eq!(h.to_vec().unwrap(), vec![4; 6]);
    /// ```
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.b.fill(value)
    }

    /// Copy every element of `src` (the same extents, any layout, either
    /// side of any DualView) into this guard's region: Kokkos `deep_copy` of
    /// two views, host or device memory. The safe form of `View::copy_from`:
    /// this guard holds the exclusive borrow of its region and `src` a shared
    /// borrow of its own, so no one else writes either meanwhile.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("a", Dims::new([3, 2]).unwrap()).device(Space::test_device(0)).build().unwrap();
    /// let b = DualView::<f64, Dims<2>>::builder("b", Dims::new([3, 2]).unwrap()).device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(2.5).unwrap();
    /// b.device_write().unwrap().copy_from(&a.host().unwrap()).unwrap(); // host of a -> device of b
    /// assert_eq!(b.host().unwrap().to_vec().unwrap(), vec![2.5; 6]);
    /// ```
    pub fn copy_from<E2: Extents>(&mut self, src: &ViewRef<'_, T, E2>) -> Result<()> {
        self.b.copy_from(&src.b)
    }

    /// The elements in memory order, mutably, for contiguous and strided views.
    ///
    /// # Panics
    /// When the memory is not host-accessible (a CUDA device guard).
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u32, Dims<2>>::new("A", Dims::from([3, 3])).unwrap();
    /// let col = a.slice(dualview::s![.., 2]).unwrap();
    /// col.host_mut().unwrap().iter_mut().for_each(|x| *x = 5);
    /// assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![0, 0, 5, 0, 0, 5, 0, 0, 5]);
    /// ```
    #[track_caller]
    pub fn iter_mut(&mut self) -> IterMut<'_, T> {
        self.b.iter_mut()
    }

    /// `(multi-index, element)` pairs in memory order, mutably.
    ///
    /// # Panics
    /// When the memory is not host-accessible (a CUDA device guard).
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<usize, Dims<2>>::new("A", Dims::from([2, 3])).unwrap();
    /// for ([i, j], x) in a.host_mut().unwrap().indexed_mut() {
    ///     *x = 10 * i + j;
    /// }
    /// assert_eq!(a.host().unwrap()[[1, 2]], 12);
    /// ```
    #[track_caller]
    pub fn indexed_mut(&mut self) -> IndexedMut<'_, T, E> {
        self.b.indexed_mut()
    }
}

impl<T: Element, E: Extents> DerefMut for ViewMut<'_, T, E> {
    /// The span in memory order, mutably.
    ///
    /// # Panics
    /// When the view is strided or not host-accessible.
    #[inline]
    #[track_caller]
    fn deref_mut(&mut self) -> &mut [T] {
        self.b.span_slice_mut()
    }
}

impl<T: Element, E: Extents> IndexMut<usize> for ViewMut<'_, T, E> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut (**self)[i]
    }
}

impl<'b, T: Element, E: Extents> IntoIterator for &'b mut ViewMut<'_, T, E> {
    type Item = &'b mut T;
    type IntoIter = IterMut<'b, T>;
    fn into_iter(self) -> IterMut<'b, T> {
        self.iter_mut()
    }
}

impl<T: Element, E: Rank<R>, const R: usize> IndexMut<[usize; R]> for ViewMut<'_, T, E> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, idx: [usize; R]) -> &mut T {
        self.b.at_fixed_mut(&idx)
    }
}

impl<T: Element, const N: usize> IndexMut<[usize; N]> for ViewMut<'_, T, DynRank> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, idx: [usize; N]) -> &mut T {
        self.b.at_mut(&idx)
    }
}

impl<T: Element> IndexMut<&[usize]> for ViewMut<'_, T, DynRank> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, idx: &[usize]) -> &mut T {
        self.b.at_mut(idx)
    }
}

impl<T: Element> IndexMut<DynIndex> for ViewMut<'_, T, DynRank> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, idx: DynIndex) -> &mut T {
        self.b.at_mut(&idx)
    }
}

/// `usize`, once per index name: the element type of the index tuples.
macro_rules! usize_for {
    ($i:ident) => {
        usize
    };
}

/// `h[(i, j)]`, `m[(i, j)] = x` for ranks 2 to 8 in the type: the tuple is
/// turned into `[i, j]` and handed to `Index<[usize; R]>`, so it is the
/// same element, check and panic, at the same cost. Rank 1 has no tuple
/// form: `h[i]` is the span's element `i` (the same one for a contiguous view).
macro_rules! tuple_index {
    ($($r:literal: $($i:ident)+;)+) => { $(
        impl<T: Element, E: Rank<$r>> Index<($(usize_for!($i),)+)> for ViewRef<'_, T, E> {
            type Output = T;
            /// The element at `(i, j, ..)`: `h[[i, j, ..]]` written as a tuple.
            ///
            /// # Panics
            /// As `h[[i, j, ..]]`: out of bounds, or memory the host cannot read.
            #[inline(always)]
            #[track_caller]
            fn index(&self, ($($i,)+): ($(usize_for!($i),)+)) -> &T {
                &self[[$($i),+]]
            }
        }

        impl<T: Element, E: Rank<$r>> Index<($(usize_for!($i),)+)> for ViewMut<'_, T, E> {
            type Output = T;
            /// The element at `(i, j, ..)`: `h[[i, j, ..]]` written as a tuple.
            ///
            /// # Panics
            /// As `h[[i, j, ..]]`: out of bounds, or memory the host cannot read.
            #[inline(always)]
            #[track_caller]
            fn index(&self, ($($i,)+): ($(usize_for!($i),)+)) -> &T {
                &self[[$($i),+]]
            }
        }

        impl<T: Element, E: Rank<$r>> IndexMut<($(usize_for!($i),)+)> for ViewMut<'_, T, E> {
            /// The element at `(i, j, ..)`, mutably: `h[[i, j, ..]]` written as a tuple.
            #[inline(always)]
            #[track_caller]
            fn index_mut(&mut self, ($($i,)+): ($(usize_for!($i),)+)) -> &mut T {
                &mut self[[$($i),+]]
            }
        }
    )+ };
}
tuple_index! {
    2: a b;
    3: a b c;
    4: a b c d;
    5: a b c d e;
    6: a b c d e f;
    7: a b c d e f g;
    8: a b c d e f g h;
}
