//! Access guards of a typed DualView: read or write one side, synced and
//! marked as the access mode says (Kokkos `view_host()` / `view_device()`
//! with `sync` and `modify` done for you).

use super::{DualView, ViewMut, ViewRef};
use crate::dual_view::Access;
use crate::element::Element;
use crate::error::Result;
use crate::extents::Extents;
use crate::side::Side;
use crate::view::View;

impl<T: Element, E: Extents> DualView<T, E> {
    fn guard_ref(&self, side: Side) -> Result<ViewRef<'_, T, E>> {
        self.extents()?; // refused before any sync or mark (the guard checks again, for its indexing)
        self.raw.check_borrowable(side, false)?;
        let view = self.raw.access(side, Access::Read)?;
        ViewRef::new(&self.raw, side, view)
    }

    fn guard_mut(&self, side: Side, mode: Access) -> Result<ViewMut<'_, T, E>> {
        self.extents()?;
        self.raw.check_borrowable(side, true)?;
        let view: View = self.raw.access(side, mode)?;
        ViewMut::new(&self.raw, side, view)
    }

    /// Read the host side, syncing it first when stale.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_device(1.0).unwrap();
    /// assert_eq!(a.host().unwrap().to_vec().unwrap(), vec![1.0; 6]); // synced first
    /// ```
    pub fn host(&self) -> Result<ViewRef<'_, T, E>> {
        self.guard_ref(Side::Host)
    }

    /// Read and write the host side: synced first when stale, marked modified.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.host_mut().unwrap().set([0, 0], 9.0).unwrap();
    /// assert!(a.need_sync_device());
    /// ```
    pub fn host_mut(&self) -> Result<ViewMut<'_, T, E>> {
        self.guard_mut(Side::Host, Access::ReadWrite)
    }

    /// Write the host side: synced first when stale (nothing is lost, as a
    /// SYCL 2020 `write` accessor), marked modified. To discard the device's
    /// change instead, [`DualView::host_overwrite`].
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_device(2.0).unwrap();
    /// a.host_write().unwrap().set([0, 0], 0.5).unwrap(); // the device's 2.0 elsewhere is kept
    /// assert_eq!(*a.host().unwrap().get([2, 1]).unwrap(), 2.0);
    /// assert!(a.need_sync_device());
    /// ```
    pub fn host_write(&self) -> Result<ViewMut<'_, T, E>> {
        self.guard_mut(Side::Host, Access::Write)
    }

    /// Overwrite the host side: no copy, the device's pending change is
    /// discarded (SYCL `no_init`), host marked modified. Write every element.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.modify_device().unwrap();
    /// a.host_overwrite().unwrap().fill(0.5).unwrap(); // device change discarded, nothing copied
    /// assert_eq!(a.stats().to_host.count, 0);
    /// assert!(a.need_sync_device());
    /// ```
    pub fn host_overwrite(&self) -> Result<ViewMut<'_, T, E>> {
        self.guard_mut(Side::Host, Access::Overwrite)
    }

    /// Read the device side, syncing it first when stale.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.fill_host(1.0).unwrap();
    /// assert_eq!(*a.device().unwrap().get([1, 1]).unwrap(), 1.0);
    /// ```
    pub fn device(&self) -> Result<ViewRef<'_, T, E>> {
        self.guard_ref(Side::Device)
    }

    /// Read and write the device side: synced first when stale, marked modified.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.device_mut().unwrap().set([2, 0], 4.0).unwrap();
    /// assert!(a.need_sync_host());
    /// ```
    pub fn device_mut(&self) -> Result<ViewMut<'_, T, E>> {
        self.guard_mut(Side::Device, Access::ReadWrite)
    }

    /// Write the device side: synced first when stale (nothing is lost),
    /// marked modified. To discard the host's change, [`DualView::device_overwrite`].
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<2>>::builder("A", Dims::new([3, 2]).unwrap())
    ///     .device(Space::test_device(0)).build().unwrap();
    /// a.device_write().unwrap().fill(2.0).unwrap();
    /// assert!(a.need_sync_host());
    /// ```
    pub fn device_write(&self) -> Result<ViewMut<'_, T, E>> {
        self.guard_mut(Side::Device, Access::Write)
    }

    /// Overwrite the device side: no copy, the host's pending change is
    /// discarded, device marked modified. Write every element.
    ///
    /// ```
    /// # use dualview::{DualView, Dims, Space};
    /// let a = DualView::<f64, Dims<1>>::builder("A", Dims::new([4]).unwrap()).device(Space::test_device(0)).build().unwrap();
    /// a.modify_host().unwrap();
    /// a.device_overwrite().unwrap().fill(2.0).unwrap();
    /// assert_eq!(a.stats().to_device.count, 0);
    /// ```
    pub fn device_overwrite(&self) -> Result<ViewMut<'_, T, E>> {
        self.guard_mut(Side::Device, Access::Overwrite)
    }
}
