//! Static and mixed extents: tuples of `Const<N>` / `Dyn`, arity 0 to 8.

use super::{checked_product, mul_static, Dim, DynRank, Extents, Sealed, MAX_RANK};
use crate::error::{bail, Result};

macro_rules! tuple_extents {
    ($rank:expr; $($T:ident $i:tt),*) => {
        impl<$($T: Dim),*> Sealed for ($($T,)*) {}

        impl<$($T: Dim),*> Extents for ($($T,)*) {
            const RANK: Option<usize> = Some($rank);
            const RANK_DYNAMIC: Option<usize> = Some(0 $(+ $T::STATIC.is_none() as usize)*);
            const STATIC_SIZE: Option<usize> = {
                let p = Some(1usize);
                $(let p = mul_static(p, $T::STATIC);)*
                p
            };
            type Index = [usize; $rank];

            #[inline(always)]
            fn index_from(values: &[usize]) -> [usize; $rank] {
                let mut a = [0; $rank];
                a.copy_from_slice(values);
                a
            }

            fn rank(&self) -> usize {
                $rank
            }
            fn static_extent(axis: usize) -> Option<usize> {
                let statics: [Option<usize>; $rank] = [$($T::STATIC),*];
                statics.get(axis).copied().flatten()
            }
            #[allow(unused_mut)]
            fn values(&self) -> [usize; MAX_RANK] {
                let mut v = [1; MAX_RANK];
                $(v[$i] = self.$i.get();)*
                v
            }
            #[allow(unused_variables)]
            fn from_full(values: &[usize]) -> Result<Self> {
                if values.len() != $rank {
                    bail!(RankMismatch, "expected {} extents, got {}", $rank, values.len());
                }
                $(
                    let Some(_) = $T::try_new(values[$i]) else {
                        bail!(
                            StaticMismatch,
                            "extent {} of axis {} does not match the static extent {}",
                            values[$i], $i, $T::STATIC.unwrap_or(0)
                        );
                    };
                )*
                checked_product(values)?;
                Ok(($($T::try_new(values[$i]).expect("checked above"),)*))
            }
        }

        impl<$($T: Dim),*> PartialEq<DynRank> for ($($T,)*) {
            fn eq(&self, other: &DynRank) -> bool {
                self.same_as(other)
            }
        }

        impl<$($T: Dim),*> PartialEq<($($T,)*)> for DynRank {
            fn eq(&self, other: &($($T,)*)) -> bool {
                self.same_as(other)
            }
        }
    };
}

tuple_extents!(0;);
tuple_extents!(1; A 0);
tuple_extents!(2; A 0, B 1);
tuple_extents!(3; A 0, B 1, C 2);
tuple_extents!(4; A 0, B 1, C 2, D 3);
tuple_extents!(5; A 0, B 1, C 2, D 3, E 4);
tuple_extents!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_extents!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_extents!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
