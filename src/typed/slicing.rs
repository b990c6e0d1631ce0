//! Typed subviews: a tuple of slice arguments (or [`s!`](crate::s)) whose
//! types fix the rank of the result at compile time.
//!
//! | argument | Kokkos | keeps the axis |
//! | --- | --- | --- |
//! | `i: usize` | an index | no (rank - 1) |
//! | `..` | `Kokkos::ALL` | yes |
//! | `a..b`, `a..`, `..b`, `a..=b`, `..=b` | `std::pair{a, b}` | yes |
//!
//! So `a.slice(s![3, ..])` of a `DualView<T, Dims<2>>` is a
//! `DualView<T, Dims<1>>`. The number of arguments must equal the rank (a
//! type error for a rank in the type, `RankMismatch` for `DynRank`).

use crate::extents::{Dims, DynRank, Extents, Rank};
use crate::layout::Slice;
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

mod sealed {
    /// Only this module's argument types and tuples of them.
    pub trait Sealed {}
}
use sealed::Sealed;

/// `Dims<R>` to `Dims<R + 1>` (saturating at the maximum rank, which a
/// slice of at most 8 arguments never passes).
#[doc(hidden)]
pub trait RankUp: Extents {
    /// One axis more.
    type Up: RankUp;
}

macro_rules! rank_up {
    ($($r:literal => $u:literal),*) => { $(impl RankUp for Dims<$r> { type Up = Dims<$u>; })* };
}
rank_up!(0 => 1, 1 => 2, 2 => 3, 3 => 4, 4 => 5, 5 => 6, 6 => 7, 7 => 8, 8 => 8);

/// One typed subview argument (see the table in the module docs). Sealed.
pub trait SliceArg: Sealed {
    /// The extents after this argument, given those before it.
    #[doc(hidden)]
    type Apply<D: RankUp>: RankUp;
    /// The untyped argument.
    fn to_slice(self) -> Slice;
}

impl Sealed for usize {}
impl SliceArg for usize {
    type Apply<D: RankUp> = D;
    fn to_slice(self) -> Slice {
        Slice::Index(self)
    }
}

macro_rules! keeps {
    ($($t:ty => |$r:ident| $e:expr),* $(,)?) => { $(
        impl Sealed for $t {}
        impl SliceArg for $t {
            type Apply<D: RankUp> = D::Up;
            fn to_slice(self) -> Slice {
                let $r = self;
                $e
            }
        }
    )* };
}
keeps!(
    RangeFull => |_r| Slice::All,
    Range<usize> => |r| Slice::Range(r.start, r.end),
    RangeFrom<usize> => |r| Slice::From(r.start),
    RangeTo<usize> => |r| Slice::Range(0, r.end),
    RangeInclusive<usize> => |r| Slice::from(r),
    RangeToInclusive<usize> => |r| Slice::from(r),
);

/// A whole subview argument list for extents `E`: a tuple of [`SliceArg`]s
/// with one per axis of a rank in the type (any arity, 0 to 8, for `DynRank`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` are not subview arguments for `{E}`",
    label = "give one argument per axis: an index, `..` or a range of `usize`"
)]
pub trait SliceSpec<E: Extents>: Sealed {
    /// The extents of the subview: `Dims<k>` for `k` kept axes.
    type Out: Extents;
    /// The untyped arguments.
    fn to_slices(self) -> Vec<Slice>;
}

macro_rules! out {
    ($d:ty;) => { $d };
    ($d:ty; $a:ident $($rest:ident)*) => { out!(<$a as SliceArg>::Apply<$d>; $($rest)*) };
}

macro_rules! spec {
    ($n:literal; $($a:ident $i:tt),*) => {
        impl<$($a: SliceArg),*> Sealed for ($($a,)*) {}
        impl<Ext: Rank<$n>, $($a: SliceArg),*> SliceSpec<Ext> for ($($a,)*) {
            type Out = out!(Dims<0>; $($a)*);
            fn to_slices(self) -> Vec<Slice> {
                vec![$(self.$i.to_slice()),*]
            }
        }
        impl<$($a: SliceArg),*> SliceSpec<DynRank> for ($($a,)*) {
            type Out = out!(Dims<0>; $($a)*);
            fn to_slices(self) -> Vec<Slice> {
                vec![$(self.$i.to_slice()),*]
            }
        }
    };
}
spec!(0;);
spec!(1; A 0);
spec!(2; A 0, B 1);
spec!(3; A 0, B 1, C 2);
spec!(4; A 0, B 1, C 2, D 3);
spec!(5; A 0, B 1, C 2, D 3, E 4);
spec!(6; A 0, B 1, C 2, D 3, E 4, F 5);
spec!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
spec!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// Typed subview arguments: `s![i, .., a..b]` is the tuple `(i, .., a..b)`,
/// for [`DualView::slice`](crate::DualView::slice).
///
/// ```
/// use dualview::{s, DualView, Dims};
/// let a = DualView::<f64, Dims<3>>::new("a", Dims::from([4, 5, 6])).unwrap();
/// let plane: DualView<f64, Dims<2>> = a.slice(s![2, .., 1..4]).unwrap();
/// assert_eq!(plane.extents().unwrap().get(), [5, 3]);
/// let row: DualView<f64, Dims<1>> = plane.slice(s![0, ..]).unwrap();
/// assert_eq!(row.len(), 3);
/// ```
#[macro_export]
macro_rules! s {
    ($($arg:expr),* $(,)?) => { ($($arg,)*) };
}
