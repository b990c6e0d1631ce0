//! Layout mappings: from a multi-index to an element offset.
//!
//! | layout | Kokkos | stride of axis `r` | contiguous |
//! | --- | --- | --- | --- |
//! | [`Layout::Left`] | `LayoutLeft` (column-major, Fortran, CUDA default) | `e0*...*e(r-1)` | always |
//! | [`Layout::Right`] | `LayoutRight` (row-major, C, host default) | `e(r+1)*...*e(rank-1)` | always |
//! | [`Layout::Stride`] | `LayoutStride` | given, checked unique | when `span == size` |
//!
//! Every mapping answers mdspan's questions: [`Mapping::offset`],
//! [`Mapping::span`] (required span size), [`Mapping::stride`],
//! [`Mapping::span_is_contiguous`].

mod runs;
mod slice;

pub(crate) use runs::{for_each_outer, for_each_run, plan, Plan};
pub use slice::Slice;

use crate::abi::{abi_enum, DV_LAYOUT_LEFT, DV_LAYOUT_RIGHT, DV_LAYOUT_STRIDE};
use crate::error::{bail, Result};
use crate::extents::{checked_product, DynRank, Extents, MAX_RANK};


abi_enum! {
    /// How a multi-index maps to memory. The numbers are the C ABI values.
    ///
    /// ```
    /// use dualview::Layout;
    /// assert_eq!(Layout::try_from(1u32).unwrap(), Layout::Right);
    /// assert!(Layout::try_from(7u32).is_err());
    /// ```
    pub enum Layout ("layout") {
        /// Column-major: the first index varies fastest (Kokkos `LayoutLeft`, Fortran).
        Left = DV_LAYOUT_LEFT => "LayoutLeft",
        /// Row-major: the last index varies fastest (Kokkos `LayoutRight`, C).
        Right = DV_LAYOUT_RIGHT => "LayoutRight",
        /// Explicit strides (Kokkos `LayoutStride`).
        Stride = DV_LAYOUT_STRIDE => "LayoutStride",
    }
}

impl Layout {
    /// Canonical strides (in elements) of `extents` for Left or Right.
    ///
    /// Left: `s[r] = e[0]*...*e[r-1]`; Right: `s[r] = e[r+1]*...*e[rank-1]`.
    /// Zero extents are allowed (mdspan). `Layout::Stride` is refused: its
    /// strides are not a function of the extents.
    ///
    /// ```
    /// # use dualview::{Dims, Layout};
    /// let e = Dims::new([4, 2, 3]).unwrap();
    /// assert_eq!(Layout::Left.strides(&e).unwrap().as_slice(), &[1, 4, 8]);
    /// assert_eq!(Layout::Right.strides(&e).unwrap().as_slice(), &[6, 3, 1]);
    /// ```
    pub fn strides<E: Extents>(self, extents: &E) -> Result<Strides> {
        extents.check()?;
        Strides::canonical(&extents.values()[..extents.rank()], self)
    }
}

/// Per-axis strides in elements, `rank` of them, stored inline.
///
/// ```
/// use dualview::{Dims, Layout};
/// let s = Layout::Right.strides(&Dims::new([2, 3]).unwrap()).unwrap();
/// assert_eq!(s.as_slice(), &[3, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Strides {
    rank: u8,
    s: [usize; MAX_RANK],
}

impl Strides {
    /// The strides as a slice of length `rank`.
    ///
    /// ```
    /// # use dualview::{Dims, Layout};
    /// assert_eq!(Layout::Left.strides(&Dims::new([]).unwrap()).unwrap().as_slice(), &[] as &[usize]);
    /// ```
    pub fn as_slice(&self) -> &[usize] {
        &self.s[..self.rank as usize]
    }

    pub(crate) fn from_slice(v: &[usize]) -> Strides {
        let mut s = [0; MAX_RANK];
        s[..v.len()].copy_from_slice(v);
        Strides { rank: v.len() as u8, s }
    }

    /// Canonical strides of `ext` for Left or Right (mdspan: zeros propagate).
    /// The size invariant is checked first, so no partial product overflows.
    pub(crate) fn canonical(ext: &[usize], layout: Layout) -> Result<Strides> {
        checked_product(ext)?;
        let rank = ext.len();
        let mut s = [0usize; MAX_RANK];
        let mut acc = 1usize;
        match layout {
            Layout::Left => {
                for r in 0..rank {
                    s[r] = acc;
                    acc *= ext[r];
                }
            }
            Layout::Right => {
                for r in (0..rank).rev() {
                    s[r] = acc;
                    acc *= ext[r];
                }
            }
            Layout::Stride => bail!(
                InvalidArgument,
                "LayoutStride has no canonical strides: pass them explicitly"
            ),
        }
        Ok(Strides { rank: rank as u8, s })
    }
}

/// A layout mapping: extents, layout and strides (in elements).
///
/// ```
/// use dualview::{DynRank, Layout, Mapping};
/// let m = Mapping::new(Layout::Left, DynRank::new(&[3, 4]).unwrap()).unwrap();
/// assert_eq!(m.offset(&[2, 1]).unwrap(), 2 + 3 * 1);
/// assert_eq!(m.span(), 12);
/// assert!(m.span_is_contiguous());
/// assert_eq!(m.kokkos_strides(), vec![1, 3, 12]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mapping {
    layout: Layout,
    extents: DynRank,
    strides: Strides,
}

impl Mapping {
    /// The canonical Left or Right mapping of `extents`.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping, ErrorKind};
    /// let e = DynRank::new(&[2]).unwrap();
    /// assert_eq!(Mapping::new(Layout::Stride, e).unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// ```
    pub fn new(layout: Layout, extents: DynRank) -> Result<Mapping> {
        let strides = Strides::canonical(extents.as_slice(), layout)?;
        Ok(Mapping { layout, extents, strides })
    }

    /// A LayoutStride mapping with explicit strides (in elements).
    ///
    /// Invariants checked, each an `InvalidArgument` or `Overflow` error:
    /// 1. one stride per axis;
    /// 2. the span `1 + sum((e_r - 1) * s_r)` fits in `isize`;
    /// 3. the mapping is unique: ordering the axes of extent > 1 by stride,
    ///    each stride is at least the previous stride times its extent.
    ///
    /// ```
    /// # use dualview::{DynRank, Mapping, ErrorKind};
    /// let e = DynRank::new(&[3, 4]).unwrap();
    /// let m = Mapping::with_strides(e, &[1, 5]).unwrap(); // padded columns
    /// assert_eq!(m.span(), 1 + 2 + 3 * 5);
    /// assert!(!m.span_is_contiguous());
    /// assert_eq!(Mapping::with_strides(e, &[1, 2]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// ```
    pub fn with_strides(extents: DynRank, strides: &[usize]) -> Result<Mapping> {
        let ext = extents.as_slice();
        if strides.len() != ext.len() {
            bail!(
                InvalidArgument,
                "LayoutStride needs {} strides, got {}",
                ext.len(),
                strides.len()
            );
        }
        checked_product(ext)?;
        if ext.iter().all(|&n| n > 0) {
            let mut span: usize = 1;
            for (&e, &s) in ext.iter().zip(strides) {
                span = (e - 1)
                    .checked_mul(s)
                    .and_then(|x| x.checked_add(span))
                    .filter(|&x| x <= isize::MAX as usize)
                    .ok_or_else(|| {
                        crate::error::err!(Overflow, "the span of strides {strides:?} overflows")
                    })?;
            }
        }
        let mut axes: Vec<usize> = (0..ext.len()).filter(|&r| ext[r] > 1).collect();
        axes.sort_by_key(|&r| strides[r]);
        let mut need = 1usize;
        for &r in &axes {
            if strides[r] < need {
                bail!(
                    InvalidArgument,
                    "strides {strides:?} overlap for extents {ext:?}: axis {r} has stride {} < {need}",
                    strides[r]
                );
            }
            need = strides[r].saturating_mul(ext[r]);
        }
        Ok(Mapping { layout: Layout::Stride, extents, strides: Strides::from_slice(strides) })
    }

    /// Rebuild a mapping of the same layout for new extents (resize, realloc).
    /// A strided mapping keeps its axis order and packs the new extents densely.
    pub(crate) fn with_extents(&self, extents: DynRank) -> Result<Mapping> {
        match self.layout {
            Layout::Stride => {
                let mut order: Vec<usize> = (0..extents.rank()).collect();
                order.sort_by_key(|&r| self.strides.s[r]);
                let mut s = vec![0usize; extents.rank()];
                let mut acc = 1usize;
                for r in order {
                    s[r] = acc;
                    acc = acc.saturating_mul(extents.as_slice()[r].max(1));
                }
                Mapping::with_strides(extents, &s)
            }
            l => Mapping::new(l, extents),
        }
    }

    /// The layout.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2]).unwrap()).unwrap();
    /// assert_eq!(m.layout(), Layout::Right);
    /// ```
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The extents.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 7]).unwrap()).unwrap();
    /// assert_eq!(m.extents().as_slice(), &[2, 7]);
    /// ```
    pub fn extents(&self) -> &DynRank {
        &self.extents
    }

    /// The rank.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// assert_eq!(Mapping::new(Layout::Left, DynRank::new(&[2, 7]).unwrap()).unwrap().rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.extents.rank()
    }

    /// The per-axis strides in elements.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[2, 7]).unwrap()).unwrap();
    /// assert_eq!(m.strides().as_slice(), &[1, 2]);
    /// ```
    pub fn strides(&self) -> &Strides {
        &self.strides
    }

    /// The stride of `axis`; an error when `axis >= rank`.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping, ErrorKind};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 7]).unwrap()).unwrap();
    /// assert_eq!(m.stride(0).unwrap(), 7);
    /// assert_eq!(m.stride(2).unwrap_err().kind(), ErrorKind::OutOfRange);
    /// ```
    pub fn stride(&self, axis: usize) -> Result<usize> {
        if axis >= self.rank() {
            bail!(OutOfRange, "axis {axis} is out of range for rank {}", self.rank());
        }
        Ok(self.strides.s[axis])
    }

    /// Kokkos' `View::stride(int*)` convention: `rank` strides, then the span.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// assert_eq!(m.kokkos_strides(), vec![3, 1, 6]);
    /// ```
    pub fn kokkos_strides(&self) -> Vec<usize> {
        let mut v = self.strides.as_slice().to_vec();
        v.push(self.span());
        v
    }

    /// The number of elements (1 for rank 0).
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// assert_eq!(Mapping::new(Layout::Left, DynRank::new(&[]).unwrap()).unwrap().size(), 1);
    /// ```
    pub fn size(&self) -> usize {
        self.extents.as_slice().iter().product()
    }

    /// The required span size: one past the largest offset, 0 when empty.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping};
    /// assert_eq!(Mapping::new(Layout::Left, DynRank::new(&[3, 0]).unwrap()).unwrap().span(), 0);
    /// ```
    pub fn span(&self) -> usize {
        let ext = self.extents.as_slice();
        if ext.contains(&0) {
            return 0;
        }
        1 + ext.iter().zip(self.strides.as_slice()).map(|(&e, &s)| (e - 1) * s).sum::<usize>()
    }

    /// True when the span holds no gaps (`span == size`).
    ///
    /// ```
    /// # use dualview::{DynRank, Mapping};
    /// let m = Mapping::with_strides(DynRank::new(&[2, 2]).unwrap(), &[2, 1]).unwrap();
    /// assert!(m.span_is_contiguous());
    /// ```
    pub fn span_is_contiguous(&self) -> bool {
        self.span() == self.size()
    }

    /// The offset of `idx` in elements; errors on a wrong count or an index out of range.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping, ErrorKind};
    /// let m = Mapping::new(Layout::Right, DynRank::new(&[2, 3]).unwrap()).unwrap();
    /// assert_eq!(m.offset(&[1, 2]).unwrap(), 5);
    /// assert_eq!(m.offset(&[2, 0]).unwrap_err().kind(), ErrorKind::OutOfRange);
    /// assert_eq!(m.offset(&[0]).unwrap_err().kind(), ErrorKind::RankMismatch);
    /// ```
    pub fn offset(&self, idx: &[usize]) -> Result<usize> {
        let ext = self.extents.as_slice();
        if idx.len() != ext.len() {
            bail!(RankMismatch, "expected {} indices, got {}", ext.len(), idx.len());
        }
        for (r, (&i, &e)) in idx.iter().zip(ext).enumerate() {
            if i >= e {
                bail!(OutOfRange, "index {i} of axis {r} is out of range for extent {e}");
            }
        }
        Ok(idx.iter().zip(self.strides.as_slice()).map(|(&i, &s)| i * s).sum())
    }
}
