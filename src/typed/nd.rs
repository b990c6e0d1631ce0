//! `ndarray` feature: access guards as `ArrayView` / `ArrayViewMut`, with
//! the view's own strides (LayoutLeft, LayoutRight and strided subviews).
//!
//! | guard | method | ndarray type |
//! | --- | --- | --- |
//! | rank in the type, up to 6 | `array()` / `array_mut()` | `ArrayView<T, Ix{R}>` / `ArrayViewMut<T, Ix{R}>` |
//! | any | `array_dyn()` / `array_dyn_mut()` | `ArrayViewD<T>` / `ArrayViewMutD<T>` |
//!
//! The views borrow the guard, so the DualView's borrow rules hold for them;
//! raw.rs makes them from the guard's pointer.

use super::guard::{ViewMut, ViewRef};
use crate::element::Element;
use crate::error::Result;
use crate::extents::Extents;
use ndarray::{ArrayView, ArrayViewD, ArrayViewMut, ArrayViewMutD, IntoDimension, IxDyn};

fn fixed<E: Extents>(v: &[usize]) -> <E::Index as IntoDimension>::Dim
where
    E::Index: IntoDimension,
{
    E::index_from(v).into_dimension()
}

macro_rules! nd_read {
    ($t:ident) => {
        impl<T: Element, E: Extents> $t<'_, T, E>
        where
            E::Index: IntoDimension,
        {
            /// The view as an ndarray `ArrayView` of the type's rank, with its strides.
            ///
            /// ```
            /// use dualview::{DualView, Dims, Layout};
            /// let a = DualView::<f64, Dims<2>>::builder("a", Dims::from([2, 3])).layout(Layout::Left).build().unwrap();
            /// a.host_mut().unwrap()[[1, 2]] = 5.0;
            /// let h = a.host().unwrap();
            /// let v = h.array().unwrap();
            /// assert_eq!(v[[1, 2]], 5.0);
            /// assert_eq!(v.strides(), &[1, 2]);
            /// ```
            pub fn array(&self) -> Result<ArrayView<'_, T, <E::Index as IntoDimension>::Dim>> {
                self.b.array(fixed::<E>)
            }
        }

        impl<T: Element, E: Extents> $t<'_, T, E> {
            /// The view as an ndarray `ArrayViewD` (any rank), with its strides.
            ///
            /// ```
            /// use dualview::{s, DualView, Dims};
            /// let a = DualView::<u32, Dims<2>>::new("a", Dims::from([3, 4])).unwrap();
            /// a.fill_host(1).unwrap();
            /// let col = a.slice(s![.., 1]).unwrap();
            /// let h = col.host().unwrap();
            /// assert_eq!(h.array_dyn().unwrap().sum(), 3);
            /// ```
            pub fn array_dyn(&self) -> Result<ArrayViewD<'_, T>> {
                self.b.array(IxDyn)
            }
        }
    };
}
nd_read!(ViewRef);
nd_read!(ViewMut);

impl<T: Element, E: Extents> ViewMut<'_, T, E>
where
    E::Index: IntoDimension,
{
    /// The view as an ndarray `ArrayViewMut` of the type's rank, with its strides.
    ///
    /// ```
    /// use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("a", Dims::from([2, 3])).device(Space::test_device(0)).build().unwrap();
    /// a.host_mut().unwrap().array_mut().unwrap().fill(2.0);
    /// assert_eq!(a.device().unwrap().array().unwrap().sum(), 12.0);
    /// ```
    pub fn array_mut(&mut self) -> Result<ArrayViewMut<'_, T, <E::Index as IntoDimension>::Dim>> {
        self.b.array_mut(fixed::<E>)
    }
}

impl<T: Element, E: Extents> ViewMut<'_, T, E> {
    /// The view as an ndarray `ArrayViewMutD` (any rank), with its strides.
    ///
    /// ```
    /// use dualview::{DualView, DynRank};
    /// let a = DualView::<i64>::new("a", DynRank::new(&[2, 2]).unwrap()).unwrap();
    /// a.host_mut().unwrap().array_dyn_mut().unwrap()[[1, 0]] = 3;
    /// assert_eq!(a.host().unwrap()[[1, 0]], 3);
    /// ```
    pub fn array_dyn_mut(&mut self) -> Result<ArrayViewMutD<'_, T>> {
        self.b.array_mut(IxDyn)
    }
}
