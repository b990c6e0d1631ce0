//! Multi-indices: `[usize; R]` when the rank is in the type, [`DynIndex`] otherwise.
//!
//! | extents | `Extents::Index` | accepted by `get` / `[]` |
//! | --- | --- | --- |
//! | `Dims<R>`, tuples of arity `R` | `[usize; R]` | `[usize; R]`, `&[usize; R]` (wrong length: compile error) |
//! | `DynRank` | [`DynIndex`] | any `[usize; N]`, `&[usize; N]`, `&[usize]` (wrong length: `RankMismatch`) |

use super::{DynRank, Extents, MAX_RANK};
use std::fmt;
use std::ops::{Deref, DerefMut};

/// A multi-index of run-time rank (at most [`MAX_RANK`]), stored inline.
///
/// ```
/// use dualview::DynIndex;
/// let i = DynIndex::from([2, 5]);
/// assert_eq!(i.len(), 2);
/// assert_eq!(&*i, &[2, 5]);
/// assert_eq!(i, [2, 5]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DynIndex {
    len: u8,
    v: [usize; MAX_RANK],
}

impl DynIndex {
    /// The index `values`; `None` past [`MAX_RANK`] values.
    ///
    /// ```
    /// # use dualview::DynIndex;
    /// assert_eq!(&*DynIndex::new(&[1, 2, 3]).unwrap(), &[1, 2, 3]);
    /// assert!(DynIndex::new(&[0; 9]).is_none());
    /// ```
    pub fn new(values: &[usize]) -> Option<DynIndex> {
        if values.len() > MAX_RANK {
            return None;
        }
        let mut v = [0; MAX_RANK];
        v[..values.len()].copy_from_slice(values);
        Some(DynIndex { len: values.len() as u8, v })
    }
}

impl Deref for DynIndex {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.v[..self.len as usize]
    }
}

impl DerefMut for DynIndex {
    fn deref_mut(&mut self) -> &mut [usize] {
        &mut self.v[..self.len as usize]
    }
}

impl AsRef<[usize]> for DynIndex {
    fn as_ref(&self) -> &[usize] {
        self
    }
}

impl AsMut<[usize]> for DynIndex {
    fn as_mut(&mut self) -> &mut [usize] {
        self
    }
}

impl fmt::Debug for DynIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<const N: usize> From<[usize; N]> for DynIndex {
    /// # Panics
    /// At compile time when `N > MAX_RANK`.
    fn from(a: [usize; N]) -> DynIndex {
        const { assert!(N <= MAX_RANK, "DynIndex: more than MAX_RANK (8) indices") };
        DynIndex::new(&a).expect("checked at compile time")
    }
}

impl<const N: usize> PartialEq<[usize; N]> for DynIndex {
    fn eq(&self, other: &[usize; N]) -> bool {
        **self == other[..]
    }
}

/// Extents whose rank `R` is part of the type: `Dims<R>` and tuples of
/// arity `R` (sealed). Bounds on it make a wrong index count a type error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not have rank {R}",
    label = "give exactly one index per axis of `{Self}`"
)]
pub trait Rank<const R: usize>: Extents<Index = [usize; R]> {}

impl<const R: usize> Rank<R> for super::Dims<R> {}

macro_rules! tuple_rank {
    ($r:literal; $($T:ident),*) => {
        impl<$($T: super::Dim),*> Rank<$r> for ($($T,)*) {}
    };
}
tuple_rank!(0;);
tuple_rank!(1; A);
tuple_rank!(2; A, B);
tuple_rank!(3; A, B, C);
tuple_rank!(4; A, B, C, D);
tuple_rank!(5; A, B, C, D, E);
tuple_rank!(6; A, B, C, D, E, F);
tuple_rank!(7; A, B, C, D, E, F, G);
tuple_rank!(8; A, B, C, D, E, F, G, H);

/// What the access guards take as a multi-index of extents `E` (sealed; see
/// the table in the module docs).
///
/// ```
/// use dualview::{DualView, Dims};
/// let a = DualView::<u8, Dims<2>>::new("a", Dims::from([2, 3])).unwrap();
/// let h = a.host().unwrap();
/// assert_eq!(*h.get([1, 2]).unwrap(), 0);
/// assert_eq!(*h.get(&[1, 2]).unwrap(), 0);
/// ```
///
/// A wrong number of indices does not compile for a rank in the type:
///
/// ```compile_fail
/// use dualview::{DualView, Dims};
/// let a = DualView::<u8, Dims<2>>::new("a", Dims::from([2, 3])).unwrap();
/// let _ = a.host().unwrap().get([1]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a multi-index of `{E}`",
    label = "give `[i, j, ..]` with exactly one index per axis"
)]
pub trait AsIndex<E: Extents>: super::Sealed {
    /// The indices, one per axis.
    fn indices(&self) -> &[usize];
}

impl<const R: usize> super::Sealed for [usize; R] {}
impl<const R: usize> super::Sealed for &[usize; R] {}
impl super::Sealed for &[usize] {}
impl super::Sealed for DynIndex {}
impl super::Sealed for &DynIndex {}

impl<E: Rank<R>, const R: usize> AsIndex<E> for [usize; R] {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        self
    }
}

impl<E: Rank<R>, const R: usize> AsIndex<E> for &[usize; R] {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        &self[..]
    }
}

impl<const N: usize> AsIndex<DynRank> for [usize; N] {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        self
    }
}

impl<const N: usize> AsIndex<DynRank> for &[usize; N] {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        &self[..]
    }
}

impl AsIndex<DynRank> for &[usize] {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        self
    }
}

impl AsIndex<DynRank> for DynIndex {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        self
    }
}

impl AsIndex<DynRank> for &DynIndex {
    #[inline(always)]
    fn indices(&self) -> &[usize] {
        self
    }
}
