//! The Boost.uBLAS (develop) shape predicates, kept verbatim for users porting
//! uBLAS code. They overlap on purpose: `{1,1}` is a scalar, a vector and a matrix.
//!
//! | predicate | formula (`e` = extents, `r` = rank) |
//! | --- | --- |
//! | `is_scalar` | `r > 0 && all(e == 1)` |
//! | `is_vector` | `r == 1 ? e0 >= 1 : r > 1 && any(e[0..2] >= 1) && any(e[0..2] == 1) && all(e[2..] == 1)` |
//! | `is_matrix` | `r == 1 ? e0 >= 1 : r > 1 && any(e[0..2] >= 1) && all(e[2..] == 1)` |
//! | `is_tensor` | `r > 2 && all(e[0..2] >= 1) && any(e[2..] > 1)` |
//! | `is_valid` | `all(e >= 1)` (rank 0 included) |
//! | `product` | `r == 0 ? 0 : prod(e)` (the core's `size()` is 1 for rank 0) |

use super::Extents;

fn dims<E: Extents>(e: &E) -> Vec<usize> {
    e.values()[..e.rank()].to_vec()
}

/// uBLAS `is_scalar`: rank > 0 and every extent is 1.
///
/// ```
/// # use dualview::{Dims, extents::ublas};
/// assert!(ublas::is_scalar(&Dims::new([1, 1, 1]).unwrap()));
/// assert!(!ublas::is_scalar(&Dims::new([]).unwrap()));
/// ```
pub fn is_scalar<E: Extents>(e: &E) -> bool {
    let d = dims(e);
    !d.is_empty() && d.iter().all(|&n| n == 1)
}

/// uBLAS `is_vector` (develop formula).
///
/// ```
/// # use dualview::{Dims, extents::ublas};
/// assert!(ublas::is_vector(&Dims::new([1, 2]).unwrap()));
/// assert!(!ublas::is_vector(&Dims::new([2, 2]).unwrap()));
/// ```
pub fn is_vector<E: Extents>(e: &E) -> bool {
    let d = dims(e);
    match d.len() {
        0 => false,
        1 => d[0] >= 1,
        _ => {
            d[..2].iter().any(|&n| n >= 1)
                && d[..2].contains(&1)
                && d[2..].iter().all(|&n| n == 1)
        }
    }
}

/// uBLAS `is_matrix` (develop formula).
///
/// ```
/// # use dualview::{Dims, extents::ublas};
/// assert!(ublas::is_matrix(&Dims::new([3, 2, 1]).unwrap()));
/// assert!(!ublas::is_matrix(&Dims::new([1, 1, 2]).unwrap()));
/// ```
pub fn is_matrix<E: Extents>(e: &E) -> bool {
    let d = dims(e);
    match d.len() {
        0 => false,
        1 => d[0] >= 1,
        _ => d[..2].iter().any(|&n| n >= 1) && d[2..].iter().all(|&n| n == 1),
    }
}

/// uBLAS `is_tensor` (develop formula).
///
/// ```
/// # use dualview::{Dims, extents::ublas};
/// assert!(ublas::is_tensor(&Dims::new([1, 1, 2]).unwrap()));
/// assert!(!ublas::is_tensor(&Dims::new([3, 2, 1]).unwrap()));
/// ```
pub fn is_tensor<E: Extents>(e: &E) -> bool {
    let d = dims(e);
    d.len() > 2 && d[..2].iter().all(|&n| n >= 1) && d[2..].iter().any(|&n| n > 1)
}

/// uBLAS `is_valid`: every extent is at least 1 (the core itself allows zeros).
///
/// ```
/// # use dualview::{Dims, extents::ublas};
/// assert!(ublas::is_valid(&Dims::new([]).unwrap()));
/// assert!(!ublas::is_valid(&Dims::new([2, 0]).unwrap()));
/// ```
pub fn is_valid<E: Extents>(e: &E) -> bool {
    dims(e).iter().all(|&n| n >= 1)
}

/// uBLAS `product`: 0 for rank 0, otherwise the product of the extents
/// (saturating; a checked product is [`Extents::size`]).
///
/// ```
/// # use dualview::{Dims, extents::ublas};
/// assert_eq!(ublas::product(&Dims::new([]).unwrap()), 0);
/// assert_eq!(ublas::product(&Dims::new([4, 3, 2]).unwrap()), 24);
/// ```
pub fn product<E: Extents>(e: &E) -> usize {
    let d = dims(e);
    if d.is_empty() {
        0
    } else {
        d.iter().fold(1usize, |p, &n| p.saturating_mul(n))
    }
}

/// uBLAS storage orders: first order is column-major (Kokkos `LayoutLeft`),
/// last order row-major (`LayoutRight`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// `first_order`: the first index varies fastest.
    First,
    /// `last_order`: the last index varies fastest.
    Last,
}

/// uBLAS `to_strides` with its vector/scalar shortcut: all ones when
/// [`is_vector`] or [`is_scalar`], the canonical strides otherwise. Addressing
/// agrees with the canonical strides; only the arrays differ on extent-1 axes.
///
/// ```
/// # use dualview::{Dims, extents::ublas::{self, Order}};
/// assert_eq!(ublas::to_strides(&Dims::new([2, 1]).unwrap(), Order::First), vec![1, 1]);
/// assert_eq!(ublas::to_strides(&Dims::new([4, 2, 3]).unwrap(), Order::First), vec![1, 4, 8]);
/// assert_eq!(ublas::to_strides(&Dims::new([4, 2, 3]).unwrap(), Order::Last), vec![6, 3, 1]);
/// ```
pub fn to_strides<E: Extents>(e: &E, order: Order) -> Vec<usize> {
    let d = dims(e);
    let mut s = vec![1usize; d.len()];
    if is_vector(e) || is_scalar(e) || e.check().is_err() {
        return s;
    }
    let axes: Vec<usize> = match order {
        Order::First => (0..d.len()).collect(),
        Order::Last => (0..d.len()).rev().collect(),
    };
    let mut acc = 1usize;
    for r in axes {
        s[r] = acc;
        acc *= d[r];
    }
    s
}
