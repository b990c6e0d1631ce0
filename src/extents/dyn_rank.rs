//! `DynRank`: rank chosen at run time (0 to 8), stored inline.

use super::{check_rank, checked_product, Extents, Sealed, MAX_RANK};
use crate::error::Result;

/// Run-time rank (at most [`MAX_RANK`]) and run-time sizes; no heap.
///
/// The rank is the number of values given, never inferred from a sentinel.
///
/// ```
/// use dualview::{DynRank, Extents};
/// assert_eq!(DynRank::new(&[4]).unwrap().rank(), 1);
/// assert_eq!(DynRank::new(&[4, 4]).unwrap().rank(), 2);
/// let scalar = DynRank::new(&[]).unwrap();
/// assert_eq!((scalar.rank(), scalar.size().unwrap()), (0, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DynRank {
    rank: u8,
    // Invariant: ext[r] == 1 for r >= rank.
    ext: [usize; MAX_RANK],
}

impl DynRank {
    /// Extents with `values.len()` axes; errors for rank > 8 or an overflowing product.
    ///
    /// ```
    /// # use dualview::{DynRank, ErrorKind};
    /// assert_eq!(DynRank::new(&[1; 9]).unwrap_err().kind(), ErrorKind::RankTooLarge);
    /// ```
    pub fn new(values: &[usize]) -> Result<DynRank> {
        check_rank(values.len())?;
        checked_product(values)?;
        Ok(DynRank::from_slice_unchecked(values))
    }

    /// The sizes, `rank` of them.
    ///
    /// ```
    /// # use dualview::DynRank;
    /// assert_eq!(DynRank::new(&[2, 5]).unwrap().as_slice(), &[2, 5]);
    /// ```
    pub fn as_slice(&self) -> &[usize] {
        &self.ext[..self.rank as usize]
    }

    /// Build from at most 8 values without checking the product.
    pub(crate) fn from_slice_unchecked(values: &[usize]) -> DynRank {
        debug_assert!(values.len() <= MAX_RANK);
        let mut ext = [1; MAX_RANK];
        ext[..values.len()].copy_from_slice(values);
        DynRank { rank: values.len() as u8, ext }
    }

    /// Build from a padded array without checking the product.
    pub(crate) fn from_values_unchecked(rank: usize, mut ext: [usize; MAX_RANK]) -> DynRank {
        debug_assert!(rank <= MAX_RANK);
        ext[rank..].fill(1);
        DynRank { rank: rank as u8, ext }
    }
}

impl Default for DynRank {
    /// Rank 0 (a scalar, size 1).
    fn default() -> Self {
        DynRank::from_slice_unchecked(&[])
    }
}

impl Sealed for DynRank {}

impl Extents for DynRank {
    const RANK: Option<usize> = None;
    const RANK_DYNAMIC: Option<usize> = None;
    const STATIC_SIZE: Option<usize> = None;
    type Index = super::DynIndex;

    fn index_from(values: &[usize]) -> super::DynIndex {
        super::DynIndex::new(values).expect("a rank of at most MAX_RANK")
    }

    fn rank(&self) -> usize {
        self.rank as usize
    }
    fn static_extent(_axis: usize) -> Option<usize> {
        None
    }
    fn values(&self) -> [usize; MAX_RANK] {
        self.ext
    }
    fn from_full(values: &[usize]) -> Result<Self> {
        DynRank::new(values)
    }
}
