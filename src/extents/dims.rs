//! `Dims<R>`: rank fixed in the type, sizes at run time (C++26 `std::dims<R>`).

use super::{check_rank, checked_product, DynRank, Extents, Sealed, MAX_RANK};
use crate::error::{bail, Result};

/// Rank `R` with run-time sizes: the integer is a rank, never a size.
///
/// `Dims<4>` is rank 4; a static rank-1 extents of 4 is `(Const<4>,)`.
///
/// ```
/// use dualview::{Dims, Extents};
/// let e = Dims::new([4, 4, 4, 4]).unwrap();
/// assert_eq!(e.rank(), 4);
/// assert_eq!(e.size().unwrap(), 256);
/// assert_eq!(Dims::<2>::default().size().unwrap(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dims<const R: usize>([usize; R]);

impl<const R: usize> Dims<R> {
    const RANK_OK: () = assert!(R <= MAX_RANK, "Dims<R>: R exceeds MAX_RANK (8)");

    /// Extents with the given sizes; an error when their product overflows.
    ///
    /// ```
    /// # use dualview::{Dims, ErrorKind};
    /// assert!(Dims::new([2, 3]).is_ok());
    /// assert_eq!(Dims::new([usize::MAX, 2]).unwrap_err().kind(), ErrorKind::Overflow);
    /// ```
    pub fn new(values: [usize; R]) -> Result<Self> {
        let () = Self::RANK_OK;
        checked_product(&values)?;
        Ok(Dims(values))
    }

    /// The sizes.
    ///
    /// ```
    /// # use dualview::Dims;
    /// assert_eq!(Dims::new([2, 3]).unwrap().get(), [2, 3]);
    /// ```
    pub fn get(&self) -> [usize; R] {
        self.0
    }
}

impl<const R: usize> Default for Dims<R> {
    /// All zeros: valid, empty extents (unlike uBLAS #121).
    fn default() -> Self {
        let () = Self::RANK_OK;
        Dims([0; R])
    }
}

impl<const R: usize> Sealed for Dims<R> {}

impl<const R: usize> Extents for Dims<R> {
    const RANK: Option<usize> = Some(R);
    const RANK_DYNAMIC: Option<usize> = Some(R);
    const STATIC_SIZE: Option<usize> = if R == 0 { Some(1) } else { None };
    type Index = [usize; R];

    #[inline(always)]
    fn index_from(values: &[usize]) -> [usize; R] {
        let mut a = [0; R];
        a.copy_from_slice(values);
        a
    }

    fn rank(&self) -> usize {
        R
    }
    fn static_extent(_axis: usize) -> Option<usize> {
        None
    }
    fn values(&self) -> [usize; MAX_RANK] {
        let mut v = [1; MAX_RANK];
        v[..R].copy_from_slice(&self.0);
        v
    }
    fn from_full(values: &[usize]) -> Result<Self> {
        check_rank(values.len())?;
        if values.len() != R {
            bail!(RankMismatch, "expected {R} extents, got {}", values.len());
        }
        let mut a = [0; R];
        a.copy_from_slice(values);
        Dims::new(a)
    }
}

impl<const R: usize> From<[usize; R]> for Dims<R> {
    /// Unchecked, like a tuple of [`Dyn`](super::Dyn): [`Extents::check`],
    /// [`Extents::size`] and every DualView constructor report an overflowing product.
    ///
    /// ```
    /// # use dualview::{Dims, Extents, ErrorKind};
    /// assert_eq!(Dims::from([2, 3]).size().unwrap(), 6);
    /// assert_eq!(Dims::from([usize::MAX, 2]).check().unwrap_err().kind(), ErrorKind::Overflow);
    /// ```
    fn from(values: [usize; R]) -> Dims<R> {
        let () = Self::RANK_OK;
        Dims(values)
    }
}

impl<const R: usize> From<Dims<R>> for DynRank {
    fn from(d: Dims<R>) -> DynRank {
        d.to_dyn()
    }
}

impl<const R: usize> TryFrom<DynRank> for Dims<R> {
    type Error = crate::Error;
    fn try_from(d: DynRank) -> Result<Self> {
        Dims::try_from_extents(&d)
    }
}

impl<const R: usize> PartialEq<DynRank> for Dims<R> {
    fn eq(&self, other: &DynRank) -> bool {
        self.same_as(other)
    }
}

impl<const R: usize> PartialEq<Dims<R>> for DynRank {
    fn eq(&self, other: &Dims<R>) -> bool {
        self.same_as(other)
    }
}
