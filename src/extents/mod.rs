//! Typed tensor extents with mdspan semantics (seed 001, DESIGN.md section 2).
//!
//! Three kinds, one trait ([`Extents`]), and one rule: an integer in a type is
//! never both a size and a rank.
//!
//! | kind | Rust | C++ (`dv::`) | rank | sizes |
//! | --- | --- | --- | --- | --- |
//! | static / mixed | `(Const<4>,)`, `(Dyn, Const<3>)` | `extents<4>`, `extents<dynamic_extent,3>` | in the type | per axis: type or run time |
//! | fixed rank | [`Dims<4>`] | `dims<4>` | in the type | run time |
//! | runtime rank | [`DynRank`] | `dyn_extents` | run time, `0..=8` | run time |
//!
//! Every constructor checks the *size invariant*: the product of the non-zero
//! extents fits in `isize`, so sizes and strides never overflow. Tuples of
//! [`Dyn`] can be written without a check; their [`Extents::check`] and
//! [`Extents::size`] report the overflow instead.

mod dims;
mod dyn_rank;
mod index;
mod tuple;
pub mod ublas;

pub use dims::Dims;
pub use dyn_rank::DynRank;
pub use index::{AsIndex, DynIndex, Rank};

use crate::error::{bail, Result};
use std::fmt::Debug;
use std::hash::Hash;

/// The highest rank of any extents, view or DualView (Kokkos' `ARRAY_LAYOUT_MAX_RANK`).
///
/// ```
/// # use dualview::{DynRank, MAX_RANK};
/// assert!(DynRank::new(&[1; MAX_RANK]).is_ok());
/// ```
pub const MAX_RANK: usize = 8;

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// One axis of a static or mixed extents: a size fixed in the type, or a run-time size.
///
/// ```
/// use dualview::{Const, Dim, Dyn};
/// assert_eq!(<Const<4> as Dim>::STATIC, Some(4));
/// assert_eq!(<Dyn as Dim>::STATIC, None);
/// assert_eq!(Dyn::new(7).get(), 7);
/// assert!(Const::<4>::try_new(5).is_none());
/// ```
pub trait Dim: Copy + Default + Debug + Eq + Hash + Send + Sync + 'static + Sealed {
    /// `Some(n)` when the size is part of the type.
    const STATIC: Option<usize>;
    /// The size of this axis.
    fn get(self) -> usize;
    /// The axis of size `n`, or `None` when `n` contradicts the static size.
    fn try_new(n: usize) -> Option<Self>;
}

/// An axis whose size `N` is part of the type (C++ `extents<N>` entry).
///
/// ```
/// use dualview::{Const, Extents};
/// let e = (Const::<4>,);
/// assert_eq!(e.rank(), 1);
/// assert_eq!(e.size().unwrap(), 4);
/// ```
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Const<const N: usize>;

/// An axis whose size is known at run time (C++ `dynamic_extent` entry).
///
/// ```
/// use dualview::{Const, Dyn, Extents};
/// let e = (Dyn::new(10), Const::<3>);
/// assert_eq!(e.extent(0).unwrap(), 10);
/// assert_eq!(e.rank_dynamic(), 1);
/// ```
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Dyn(usize);

impl Dyn {
    /// An axis of size `n`.
    ///
    /// ```
    /// # use dualview::Dyn;
    /// assert_eq!(Dyn::new(3).get(), 3);
    /// ```
    pub const fn new(n: usize) -> Dyn {
        Dyn(n)
    }

    /// The size of this axis.
    ///
    /// ```
    /// # use dualview::Dyn;
    /// assert_eq!(Dyn::new(0).get(), 0);
    /// ```
    pub const fn get(self) -> usize {
        self.0
    }
}

impl<const N: usize> Sealed for Const<N> {}
impl Sealed for Dyn {}

impl<const N: usize> Dim for Const<N> {
    const STATIC: Option<usize> = Some(N);
    fn get(self) -> usize {
        N
    }
    fn try_new(n: usize) -> Option<Self> {
        (n == N).then_some(Const)
    }
}

impl Dim for Dyn {
    const STATIC: Option<usize> = None;
    fn get(self) -> usize {
        self.0
    }
    fn try_new(n: usize) -> Option<Self> {
        Some(Dyn(n))
    }
}

/// A shape: the rank and the size of each axis, with mdspan semantics.
///
/// Implemented by tuples of [`Const`]/[`Dyn`] (arity 0 to 8), [`Dims<R>`] and
/// [`DynRank`]. The trait is sealed.
///
/// ```
/// use dualview::{Const, Dims, DynRank, Extents};
/// // A static rank-1 extents of 4 and a rank-4 fixed-rank extents never mix up.
/// assert_eq!(<(Const<4>,) as Extents>::RANK, Some(1));
/// assert_eq!(<Dims<4> as Extents>::RANK, Some(4));
/// let d = Dims::new([2, 3]).unwrap();
/// assert_eq!(d.size().unwrap(), 6);
/// assert!(d.same_as(&DynRank::new(&[2, 3]).unwrap()));
/// ```
pub trait Extents: Copy + Debug + Eq + Hash + Send + Sync + 'static + Sealed {
    /// The rank when it is part of the type (`None` for [`DynRank`]).
    const RANK: Option<usize>;
    /// How many axes have run-time sizes, when that is part of the type.
    const RANK_DYNAMIC: Option<usize>;
    /// The number of elements when every size is part of the type (1 for rank 0).
    const STATIC_SIZE: Option<usize>;
    /// A multi-index of this rank: `[usize; R]` when the rank is in the type,
    /// [`DynIndex`] for [`DynRank`].
    type Index: Copy + Debug + Eq + Hash + AsRef<[usize]> + AsMut<[usize]> + Send + Sync + 'static;

    /// The multi-index holding `values` (exactly `rank` of them).
    #[doc(hidden)]
    fn index_from(values: &[usize]) -> Self::Index;

    /// The number of axes.
    fn rank(&self) -> usize;

    /// The size of `axis` when it is part of the type; `None` for run-time axes
    /// and for axes past the rank (mdspan's `static_extent`, with `None` for `dynamic_extent`).
    fn static_extent(axis: usize) -> Option<usize>;

    /// All sizes, padded with 1 past the rank (product-neutral, like Kokkos).
    fn values(&self) -> [usize; MAX_RANK];

    /// Build from exactly `rank` values, checking static entries and the size invariant.
    #[doc(hidden)]
    fn from_full(values: &[usize]) -> Result<Self>;

    /// How many axes have run-time sizes.
    ///
    /// ```
    /// # use dualview::{Const, Dyn, Extents, DynRank};
    /// assert_eq!((Dyn::new(1), Const::<2>).rank_dynamic(), 1);
    /// assert_eq!(DynRank::new(&[1, 2]).unwrap().rank_dynamic(), 2);
    /// ```
    fn rank_dynamic(&self) -> usize {
        match Self::RANK_DYNAMIC {
            Some(r) => r,
            None => self.rank(),
        }
    }

    /// The size of `axis`; an error when `axis >= rank`.
    ///
    /// ```
    /// # use dualview::{Dims, Extents, ErrorKind};
    /// let e = Dims::new([5, 6]).unwrap();
    /// assert_eq!(e.extent(1).unwrap(), 6);
    /// assert_eq!(e.extent(2).unwrap_err().kind(), ErrorKind::OutOfRange);
    /// ```
    fn extent(&self, axis: usize) -> Result<usize> {
        let rank = self.rank();
        if axis >= rank {
            bail!(OutOfRange, "axis {axis} is out of range for rank {rank}");
        }
        Ok(self.values()[axis])
    }

    /// The sizes of the axes, as a slice of length `rank` inside a [`DynRank`].
    ///
    /// ```
    /// # use dualview::{Const, Extents};
    /// assert_eq!((Const::<2>, Const::<3>).to_dyn().as_slice(), &[2, 3]);
    /// ```
    fn to_dyn(&self) -> DynRank {
        DynRank::from_values_unchecked(self.rank(), self.values())
    }

    /// Check the size invariant (product of the non-zero extents fits in `isize`).
    ///
    /// ```
    /// # use dualview::{Dyn, Extents, ErrorKind};
    /// assert!((Dyn::new(3), Dyn::new(4)).check().is_ok());
    /// let big = (Dyn::new(usize::MAX), Dyn::new(2));
    /// assert_eq!(big.check().unwrap_err().kind(), ErrorKind::Overflow);
    /// ```
    fn check(&self) -> Result<()> {
        checked_product(&self.values()[..self.rank()]).map(|_| ())
    }

    /// The number of elements (1 for rank 0), checked for overflow.
    ///
    /// ```
    /// # use dualview::{Dims, Extents};
    /// assert_eq!(Dims::new([]).unwrap().size().unwrap(), 1);
    /// assert_eq!(Dims::new([3, 0]).unwrap().size().unwrap(), 0);
    /// ```
    fn size(&self) -> Result<usize> {
        checked_product(&self.values()[..self.rank()])
    }

    /// Drop every axis of size 1 (numpy `squeeze`); the result may be rank 0.
    ///
    /// ```
    /// # use dualview::{Dims, Extents};
    /// assert_eq!(Dims::new([1, 4, 1]).unwrap().squeeze().as_slice(), &[4]);
    /// assert_eq!(Dims::new([1, 1]).unwrap().squeeze().rank(), 0);
    /// ```
    fn squeeze(&self) -> DynRank {
        let v = self.values();
        let kept: Vec<usize> = v[..self.rank()].iter().copied().filter(|&n| n != 1).collect();
        DynRank::from_slice_unchecked(&kept)
    }

    /// GNU Octave / uBLAS-2020 squeeze: rank <= 2 unchanged; otherwise drop ones
    /// but keep at least two axes (`{n,1}` or `{1,n}` by where `n` sat).
    ///
    /// ```
    /// # use dualview::{Dims, Extents};
    /// assert_eq!(Dims::new([1, 4, 1]).unwrap().squeeze_octave().as_slice(), &[1, 4]);
    /// assert_eq!(Dims::new([1, 1, 2, 1, 1, 1]).unwrap().squeeze_octave().as_slice(), &[2, 1]);
    /// ```
    fn squeeze_octave(&self) -> DynRank {
        let rank = self.rank();
        let v = self.values();
        if rank <= 2 {
            return self.to_dyn();
        }
        let kept: Vec<usize> = v[..rank].iter().copied().filter(|&n| n != 1).collect();
        match kept.len() {
            0 => DynRank::from_slice_unchecked(&[1, 1]),
            1 if v[1] != 1 => DynRank::from_slice_unchecked(&[1, kept[0]]),
            1 => DynRank::from_slice_unchecked(&[kept[0], 1]),
            _ => DynRank::from_slice_unchecked(&kept),
        }
    }

    /// Equality across kinds: same rank and same sizes.
    ///
    /// ```
    /// # use dualview::{Const, Dims, DynRank, Extents};
    /// assert!((Const::<4>,).same_as(&Dims::new([4]).unwrap()));
    /// assert!(!(Const::<4>,).same_as(&Dims::new([4, 4, 4, 4]).unwrap()));
    /// ```
    fn same_as<O: Extents>(&self, other: &O) -> bool {
        self.rank() == other.rank() && self.values() == other.values()
    }

    /// Build from `rank()` values, or from `rank_dynamic()` values (the static
    /// axes then take their type's size): the mdspan constructor rule.
    ///
    /// ```
    /// # use dualview::{Const, Dyn, Extents, ErrorKind};
    /// type E = (Dyn, Const<3>);
    /// assert_eq!(E::try_from_slice(&[5]).unwrap().values()[..2], [5, 3]);
    /// assert_eq!(E::try_from_slice(&[5, 3]).unwrap().values()[..2], [5, 3]);
    /// assert_eq!(E::try_from_slice(&[5, 4]).unwrap_err().kind(), ErrorKind::StaticMismatch);
    /// assert_eq!(E::try_from_slice(&[1, 2, 3]).unwrap_err().kind(), ErrorKind::RankMismatch);
    /// ```
    fn try_from_slice(values: &[usize]) -> Result<Self> {
        let (Some(rank), Some(rank_dyn)) = (Self::RANK, Self::RANK_DYNAMIC) else {
            return Self::from_full(values);
        };
        if values.len() == rank {
            return Self::from_full(values);
        }
        if values.len() != rank_dyn {
            bail!(
                RankMismatch,
                "expected {rank} extents (or {rank_dyn} run-time extents), got {}",
                values.len()
            );
        }
        let mut full = [1usize; MAX_RANK];
        let mut next = values.iter();
        for (axis, slot) in full.iter_mut().enumerate().take(rank) {
            *slot = match Self::static_extent(axis) {
                Some(n) => n,
                None => *next.next().expect("counted above"),
            };
        }
        Self::from_full(&full[..rank])
    }

    /// Checked conversion from any other extents kind: the rank must match and
    /// every static axis must hold its size.
    ///
    /// ```
    /// # use dualview::{Const, Dims, DynRank, Extents, ErrorKind};
    /// let d = DynRank::new(&[1, 2, 3]).unwrap();
    /// assert_eq!(Dims::<2>::try_from_extents(&d).unwrap_err().kind(), ErrorKind::RankMismatch);
    /// let one = Dims::new([5]).unwrap();
    /// assert_eq!(<(Const<4>,)>::try_from_extents(&one).unwrap_err().kind(), ErrorKind::StaticMismatch);
    /// ```
    fn try_from_extents<O: Extents>(other: &O) -> Result<Self> {
        if let Some(rank) = Self::RANK
            && rank != other.rank()
        {
            bail!(RankMismatch, "expected rank {rank}, got rank {}", other.rank());
        }
        Self::from_full(&other.values()[..other.rank()])
    }
}

/// The number of elements of `values`, checking the size invariant: the
/// product of the non-zero values must fit in `isize` (then every partial
/// product, hence every stride, fits too).
pub(crate) fn checked_product(values: &[usize]) -> Result<usize> {
    let mut nonzero: usize = 1;
    let mut any_zero = false;
    for &n in values {
        if n == 0 {
            any_zero = true;
            continue;
        }
        nonzero = match nonzero.checked_mul(n) {
            Some(p) if p <= isize::MAX as usize => p,
            _ => bail!(Overflow, "the product of the extents {values:?} exceeds the largest array size, 2^63 - 1"),
        };
    }
    Ok(if any_zero { 0 } else { nonzero })
}

/// Check that `values` can form extents of `rank` (at most [`MAX_RANK`]).
pub(crate) fn check_rank(rank: usize) -> Result<()> {
    if rank > MAX_RANK {
        bail!(RankTooLarge, "rank {rank} exceeds the maximum rank {MAX_RANK}");
    }
    Ok(())
}

/// `a * b` for optional static sizes; a compile-time error when it overflows.
pub(crate) const fn mul_static(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => match x.checked_mul(y) {
            Some(p) => Some(p),
            None => panic!("static extents: the product overflows usize"),
        },
        _ => None,
    }
}
