//! Subview arguments and the mapping of a subview.

use super::{Layout, Mapping, Strides};
use crate::error::{bail, Result};
use crate::extents::{DynRank, MAX_RANK};
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// One subview argument per axis (Kokkos `ALL`, a pair, or an index).
///
/// ```
/// use dualview::Slice;
/// assert_eq!(Slice::from(..), Slice::All);
/// assert_eq!(Slice::from(2..5), Slice::Range(2, 5));
/// assert_eq!(Slice::from(3usize), Slice::Index(3));
/// assert_eq!(Slice::from(2..), Slice::From(2));
/// assert_eq!(Slice::from(..4), Slice::Range(0, 4));
/// assert_eq!(Slice::from(1..=4), Slice::Range(1, 5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slice {
    /// The whole axis (`Kokkos::ALL`).
    All,
    /// The half-open range `[start, end)` (`std::pair{start, end}`); keeps the axis.
    Range(usize, usize),
    /// One index; removes the axis (rank-reducing).
    Index(usize),
    /// From `start` to the end of the axis (`start..`); keeps the axis.
    From(usize),
}

impl Slice {
    /// This argument for an axis of `extent`, with `From` made a `Range`.
    pub(crate) fn resolve(self, extent: usize) -> Slice {
        match self {
            Slice::From(a) => Slice::Range(a, extent.max(a)),
            s => s,
        }
    }
}

impl From<RangeFrom<usize>> for Slice {
    fn from(r: RangeFrom<usize>) -> Slice {
        Slice::From(r.start)
    }
}

impl From<RangeTo<usize>> for Slice {
    fn from(r: RangeTo<usize>) -> Slice {
        Slice::Range(0, r.end)
    }
}

/// `end + 1`; `usize::MAX` stays (out of range for every extent anyway).
fn after(end: usize) -> usize {
    end.saturating_add(1)
}

impl From<RangeInclusive<usize>> for Slice {
    fn from(r: RangeInclusive<usize>) -> Slice {
        let (a, b) = r.into_inner();
        Slice::Range(a, after(b))
    }
}

impl From<RangeToInclusive<usize>> for Slice {
    fn from(r: RangeToInclusive<usize>) -> Slice {
        Slice::Range(0, after(r.end))
    }
}

impl From<RangeFull> for Slice {
    fn from(_: RangeFull) -> Slice {
        Slice::All
    }
}

impl From<Range<usize>> for Slice {
    fn from(r: Range<usize>) -> Slice {
        Slice::Range(r.start, r.end)
    }
}

impl From<usize> for Slice {
    fn from(i: usize) -> Slice {
        Slice::Index(i)
    }
}

impl Mapping {
    /// The mapping of a subview and its offset (in elements) from the parent's origin.
    ///
    /// The layout stays Left or Right when the subview's strides are the
    /// canonical ones of that layout; otherwise it becomes Stride.
    ///
    /// ```
    /// # use dualview::{DynRank, Layout, Mapping, Slice, ErrorKind};
    /// let m = Mapping::new(Layout::Left, DynRank::new(&[4, 5]).unwrap()).unwrap();
    /// let (sub, off) = m.subview(&[Slice::Range(1, 3), Slice::Index(2)]).unwrap();
    /// assert_eq!((sub.extents().as_slice(), off), (&[2][..], 1 + 2 * 4));
    /// assert_eq!(sub.layout(), Layout::Left);
    /// let err = m.subview(&[Slice::All, Slice::Range(3, 6)]).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::OutOfRange);
    /// ```
    pub fn subview(&self, slices: &[Slice]) -> Result<(Mapping, usize)> {
        let ext = self.extents.as_slice();
        if slices.len() != ext.len() {
            bail!(RankMismatch, "a subview of rank {} needs {} arguments, got {}", ext.len(), ext.len(), slices.len());
        }
        let mut offset = 0usize;
        let mut new_ext = Vec::with_capacity(MAX_RANK);
        let mut new_str = Vec::with_capacity(MAX_RANK);
        for (r, (&s, &e)) in slices.iter().zip(ext).enumerate() {
            let stride = self.strides.as_slice()[r];
            match s.resolve(e) {
                // `From` was resolved to a `Range` above.
                Slice::All | Slice::From(_) => {
                    new_ext.push(e);
                    new_str.push(stride);
                }
                Slice::Range(a, b) => {
                    if a > b || b > e {
                        bail!(OutOfRange, "range [{a}, {b}) of axis {r} is out of range for extent {e}");
                    }
                    offset += a * stride;
                    new_ext.push(b - a);
                    new_str.push(stride);
                }
                Slice::Index(i) => {
                    if i >= e {
                        bail!(OutOfRange, "index {i} of axis {r} is out of range for extent {e}");
                    }
                    offset += i * stride;
                }
            }
        }
        let extents = DynRank::from_slice_unchecked(&new_ext);
        if new_ext.contains(&0) {
            // Nothing is addressable: keep the pointer inside the parent.
            offset = 0;
        }
        let strides = Strides::from_slice(&new_str);
        let mut layout = Layout::Stride;
        for candidate in [self.layout, Layout::Left, Layout::Right] {
            if candidate != Layout::Stride
                && Strides::canonical(&new_ext, candidate).is_ok_and(|c| same_addressing(&new_ext, &c, &strides))
            {
                layout = candidate;
                break;
            }
        }
        let strides = match layout {
            Layout::Stride => strides,
            l => Strides::canonical(&new_ext, l)?,
        };
        Ok((Mapping { layout, extents, strides }, offset))
    }
}

/// Two stride sets address the same offsets when they agree on every axis of extent > 1.
fn same_addressing(ext: &[usize], a: &Strides, b: &Strides) -> bool {
    ext.contains(&0)
        || ext
            .iter()
            .zip(a.as_slice().iter().zip(b.as_slice()))
            .all(|(&e, (x, y))| e <= 1 || x == y)
}
