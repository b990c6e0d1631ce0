//! Access guards: a borrowed view of one side, held while the guard lives.
//!
//! A guard keeps the allocation alive and borrows its side at run time:
//! while it lives, a sync, fill or resize that would write that side answers
//! `Busy`, and a second mutable guard is refused.

use crate::dual_view::RawDualView;
use crate::element::Element;
use crate::error::{bail, Result};
use crate::side::Side;
use crate::extents::DynRank;
use crate::layout::for_each_run;
use crate::view::View;
use std::marker::PhantomData;

/// Shared state of both guard kinds; releases the borrow on drop.
struct Borrow<'a> {
    dv: &'a RawDualView,
    side: Side,
    view: View,
    exclusive: bool,
}

impl<'a> Borrow<'a> {
    fn new(dv: &'a RawDualView, side: Side, view: View, exclusive: bool) -> Result<Self> {
        dv.try_borrow(side, exclusive)?;
        Ok(Borrow { dv, side, view, exclusive })
    }

    fn host_ptr<T>(&self) -> Result<*mut T> {
        if !self.view.space().is_host_accessible() {
            bail!(Incompatible, "{} memory in {} is not accessible from the host", self.side, self.view.space());
        }
        Ok(self.view.data() as *mut T)
    }

    fn offset(&self, idx: &[usize]) -> Result<usize> {
        self.view.mapping().offset(idx)
    }

    fn contiguous_len(&self) -> Result<usize> {
        if !self.view.span_is_contiguous() {
            bail!(InvalidArgument, "the {} view is not contiguous (use get or to_vec)", self.side);
        }
        Ok(self.view.span())
    }

    /// Every element in row-major index order (last index fastest).
    fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let p = self.host_ptr::<T>()?;
        let m = self.view.mapping();
        let ext = m.extents().as_slice();
        let n = m.size();
        let mut out = Vec::with_capacity(n);
        if n == 0 {
            return Ok(out);
        }
        let mut idx = vec![0usize; ext.len()];
        for _ in 0..n {
            let off: usize = idx.iter().zip(m.strides().as_slice()).map(|(i, s)| i * s).sum();
            // SAFETY: off < span, inside the live, host-accessible, borrowed allocation.
            out.push(unsafe { *p.add(off) });
            for r in (0..ext.len()).rev() {
                idx[r] += 1;
                if idx[r] < ext[r] {
                    break;
                }
                idx[r] = 0;
            }
        }
        Ok(out)
    }
}

impl Drop for Borrow<'_> {
    fn drop(&mut self) {
        self.dv.release_borrow(self.side, self.exclusive);
    }
}

/// Shared access to one side (from `host()` / `device()`).
///
/// ```
/// # use dualview::{DualView, Dims};
/// let a = DualView::<u8, Dims<1>>::new("a", Dims::new([3]).unwrap()).unwrap();
/// let h = a.host().unwrap();
/// assert_eq!(h.as_slice().unwrap(), &[0, 0, 0]);
/// assert_eq!(a.host_mut().unwrap_err().kind(), dualview::ErrorKind::Busy);
/// ```
pub struct ViewRef<'a, T: Element> {
    b: Borrow<'a>,
    _t: PhantomData<&'a T>,
}

/// Exclusive access to one side (from `host_mut()` / `device_mut()` and the `_write` forms).
///
/// ```
/// # use dualview::{DualView, Dims};
/// let a = DualView::<u8, Dims<2>>::new("a", Dims::new([2, 2]).unwrap()).unwrap();
/// let mut h = a.host_mut().unwrap();
/// h.set(&[1, 0], 4).unwrap();
/// assert_eq!(h.as_slice().unwrap(), &[0, 0, 4, 0]);
/// ```
pub struct ViewMut<'a, T: Element> {
    b: Borrow<'a>,
    _t: PhantomData<&'a mut T>,
}

impl<'a, T: Element> ViewRef<'a, T> {
    pub(crate) fn new(dv: &'a RawDualView, side: Side, view: View) -> Result<Self> {
        Ok(ViewRef { b: Borrow::new(dv, side, view, false)?, _t: PhantomData })
    }
}

impl<'a, T: Element> ViewMut<'a, T> {
    pub(crate) fn new(dv: &'a RawDualView, side: Side, view: View) -> Result<Self> {
        Ok(ViewMut { b: Borrow::new(dv, side, view, true)?, _t: PhantomData })
    }
}

macro_rules! read_methods {
    ($t:ident) => {
        impl<T: Element> std::fmt::Debug for $t<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).field("side", &self.b.side).field("view", &self.b.view).finish()
            }
        }

        impl<T: Element> $t<'_, T> {
            /// Which side this guard borrows.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert_eq!(a.host().unwrap().side(), dualview::Side::Host);
            /// ```
            pub fn side(&self) -> Side {
                self.b.side
            }

            /// The underlying untyped view (label, mapping, space, pointer).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert_eq!(a.host().unwrap().view().label(), "A");
            /// ```
            pub fn view(&self) -> &View {
                &self.b.view
            }

            /// The extents.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert_eq!(a.host().unwrap().extents().as_slice(), &[2, 3]);
            /// ```
            pub fn extents(&self) -> &DynRank {
                self.b.view.extents()
            }

            /// The number of elements in view.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// let h = a.host().unwrap();
            /// assert_eq!((h.len(), h.is_empty()), (6, false));
            /// ```
            pub fn len(&self) -> usize {
                self.b.view.extents().as_slice().iter().product()
            }

            /// Whether no element is in view.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// Address of the element at index 0 (a device address for device memory).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert!(!a.host().unwrap().as_ptr().is_null());
            /// ```
            pub fn as_ptr(&self) -> *const T {
                self.b.view.data() as *const T
            }

            /// The element at `idx`; errors on a bad index or memory the host cannot read.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert_eq!(*a.host().unwrap().get(&[1, 2]).unwrap(), 0);
            /// ```
            pub fn get(&self, idx: &[usize]) -> Result<&T> {
                let off = self.b.offset(idx)?;
                let p = self.b.host_ptr::<T>()?;
                // SAFETY: off < span inside the live, host-accessible allocation,
                // borrowed for the guard's lifetime.
                Ok(unsafe { &*p.add(off) })
            }

            /// The whole span as a slice, when it is contiguous and host-accessible.
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert_eq!(a.host().unwrap().as_slice().unwrap().len(), 6);
            /// ```
            pub fn as_slice(&self) -> Result<&[T]> {
                let n = self.b.contiguous_len()?;
                let p = self.b.host_ptr::<T>()?;
                // SAFETY: n contiguous, initialised elements, borrowed for the guard's lifetime.
                Ok(unsafe { std::slice::from_raw_parts(p, n) })
            }

            /// Every element in row-major index order (last index fastest).
            ///
            /// ```
            /// # use dualview::{DualView, Dims};
            /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
            /// assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![0; 6]);
            /// ```
            pub fn to_vec(&self) -> Result<Vec<T>> {
                self.b.to_vec()
            }
        }
    };
}
read_methods!(ViewRef);
read_methods!(ViewMut);

impl<T: Element> ViewMut<'_, T> {
    /// Address of the element at index 0, for writing.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// // SAFETY: element 0 of 6, host memory, exclusively borrowed.
    /// unsafe { *h.as_mut_ptr() = 3 };
    /// assert_eq!(*h.get(&[0, 0]).unwrap(), 3);
    /// ```
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.b.view.data() as *mut T
    }

    /// The element at `idx`, mutably.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// *h.get_mut(&[1, 1]).unwrap() += 2;
    /// assert_eq!(*h.get(&[1, 1]).unwrap(), 2);
    /// ```
    pub fn get_mut(&mut self, idx: &[usize]) -> Result<&mut T> {
        let off = self.b.offset(idx)?;
        let p = self.b.host_ptr::<T>()?;
        // SAFETY: as `get`, and the borrow is exclusive.
        Ok(unsafe { &mut *p.add(off) })
    }

    /// Write `value` at `idx`.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// h.set(&[0, 2], 7).unwrap();
    /// assert_eq!(h.to_vec().unwrap()[2], 7);
    /// ```
    pub fn set(&mut self, idx: &[usize], value: T) -> Result<()> {
        *self.get_mut(idx)? = value;
        Ok(())
    }

    /// The whole span as a mutable slice, when contiguous and host-accessible.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// h.as_mut_slice().unwrap()[5] = 1;
    /// assert_eq!(*h.get(&[1, 2]).unwrap(), 1);
    /// ```
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        let n = self.b.contiguous_len()?;
        let p = self.b.host_ptr::<T>()?;
        // SAFETY: n contiguous elements, exclusively borrowed for the guard's lifetime.
        Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
    }

    /// Set every element to `value`.
    ///
    /// ```
    /// # use dualview::{DualView, Dims};
    /// let a = DualView::<u16, Dims<2>>::new("A", Dims::new([2, 3]).unwrap()).unwrap();
    /// let mut h = a.host_mut().unwrap();
    /// h.fill(4).unwrap();
    /// assert_eq!(h.to_vec().unwrap(), vec![4; 6]);
    /// ```
    pub fn fill(&mut self, value: T) -> Result<()> {
        let p = self.b.host_ptr::<T>()?;
        let m = *self.b.view.mapping();
        for_each_run(m.extents().as_slice(), m.strides().as_slice(), |off, n| {
            // SAFETY: every run lies inside the exclusively borrowed allocation.
            unsafe { std::slice::from_raw_parts_mut(p.add(off), n) }.fill(value);
        });
        Ok(())
    }
}
