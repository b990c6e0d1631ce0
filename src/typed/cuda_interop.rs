//! `cudarc-interop` feature: a CUDA device guard lent to cudarc, and cudarc
//! streams accepted wherever a [`Stream`] is.
//!
//! | dualview | cudarc |
//! | --- | --- |
//! | `ViewRef::cuda(&stream)` -> [`CudaRef`] | derefs to `&CudaSlice<T>`; `.arg(&r)` in a launch |
//! | `ViewMut::cuda_mut(&stream)` -> [`CudaMut`] | `.arg(&mut m)` in a launch, `view_mut()` is a `CudaViewMut<T>` |
//! | `sync_host_on(&stream)`, `sync_device_on(&stream)` | the copy is queued on that `CudaStream` |
//!
//! Ordering: when a [`CudaRef`] / [`CudaMut`] drops, the legacy default
//! stream is made to wait (on the GPU, without blocking the host) for the
//! work queued on its stream so far. So a later blocking `sync_host()` or
//! guard never reads device data a kernel is still writing.

use super::guard::{ViewMut, ViewRef};
use crate::element::Element;
use crate::error::{bail, Result};
use crate::extents::Extents;
use crate::space::{SpaceKind, Stream};
use super::borrow::Borrow;
use cudarc::driver::{CudaSlice, CudaStream, CudaViewMut, LaunchArgs, PushKernelArg};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;

impl From<&CudaStream> for Stream {
    /// The stream's raw `CUstream`.
    fn from(s: &CudaStream) -> Stream {
        Stream::from_raw(s.cu_stream() as usize)
    }
}

impl From<&Arc<CudaStream>> for Stream {
    /// The stream's raw `CUstream`.
    fn from(s: &Arc<CudaStream>) -> Stream {
        Stream::from(&**s)
    }
}

/// The guard's device memory as a cudarc slice that is never freed by cudarc.
struct Lent<T> {
    slice: ManuallyDrop<CudaSlice<T>>,
}

impl<T> Lent<T> {
    fn new(b: &Borrow<'_>, stream: &Arc<CudaStream>) -> Result<Lent<T>> {
        let space = b.view.space();
        if !matches!(space.kind(), SpaceKind::Cuda | SpaceKind::CudaUvm) {
            bail!(Incompatible, "{space} memory is not CUDA device memory: only a CUDA device guard can be lent to cudarc");
        }
        let ordinal = stream.context().ordinal();
        if ordinal != space.ordinal() as usize {
            bail!(Incompatible, "the cudarc stream belongs to CUDA device {ordinal}, the view to {space}");
        }
        if !b.contiguous {
            bail!(InvalidArgument, "a strided view cannot be lent to cudarc as a slice (it is not contiguous)");
        }
        // SAFETY: `b` addresses `len` live elements of device memory in this
        // stream's context, borrowed for the guard's lifetime, which the
        // wrapper's lifetime does not exceed. ManuallyDrop plus `leak` in
        // Drop keep cudarc from ever freeing it.
        let slice = unsafe { stream.upgrade_device_ptr::<T>(b.ptr as u64, b.len) };
        Ok(Lent { slice: ManuallyDrop::new(slice) })
    }
}

impl<T> Drop for Lent<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; the field is never used again.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        let stream = slice.stream().clone();
        // Order the legacy default stream (dualview's blocking copies) after
        // the work queued on `stream`; errors leave the caller's own sync.
        if let Ok(ev) = stream.record_event(None) {
            let _ = stream.context().default_stream().wait(&ev);
        }
        // Gives the pointer back without freeing it.
        let _ = slice.leak();
    }
}

/// A shared CUDA device guard lent to cudarc (from [`ViewRef::cuda`]):
/// derefs to `&CudaSlice<T>`, and `.arg(&r)` passes it to a kernel.
pub struct CudaRef<'g, T> {
    lent: Lent<T>,
    _g: PhantomData<&'g [T]>,
}

/// An exclusive CUDA device guard lent to cudarc (from [`ViewMut::cuda_mut`]):
/// `.arg(&mut m)` passes it to a kernel that writes it.
pub struct CudaMut<'g, T> {
    lent: Lent<T>,
    _g: PhantomData<&'g mut [T]>,
}

macro_rules! debug {
    ($($t:ident)*) => { $(
        impl<T> std::fmt::Debug for $t<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let s = &*self.lent.slice;
                f.debug_struct(stringify!($t)).field("len", &s.len()).field("ordinal", &s.ordinal()).finish()
            }
        }
    )* };
}
debug!(CudaRef CudaMut);

impl<T> Deref for CudaRef<'_, T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.lent.slice
    }
}

impl<T> Deref for CudaMut<'_, T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.lent.slice
    }
}

impl<T> CudaMut<'_, T> {
    /// The memory as a cudarc `CudaViewMut` (for copies and cudarc's libraries).
    pub fn view_mut(&mut self) -> CudaViewMut<'_, T> {
        self.lent.slice.as_view_mut()
    }
}

// SAFETY: forwards to cudarc's own `&CudaSlice<T>` argument, which records
// the kernel's read of the borrowed slice for 'b.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b CudaRef<'_, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaRef<'_, T>) -> &mut Self {
        self.arg(&*arg.lent.slice)
    }
}

// SAFETY: forwards to cudarc's own `&mut CudaSlice<T>` argument.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut CudaMut<'_, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaMut<'_, T>) -> &mut Self {
        self.arg(&mut *arg.lent.slice)
    }
}

macro_rules! lend_ref {
    ($t:ident) => {
        impl<T: Element, E: Extents> $t<'_, T, E> {
            /// Lend this CUDA device guard to cudarc work on `stream`
            /// (`Incompatible` for memory of another device or the host,
            /// `InvalidArgument` for a strided view).
            pub fn cuda(&self, stream: &Arc<CudaStream>) -> Result<CudaRef<'_, T>> {
                Ok(CudaRef { lent: Lent::new(&self.b, stream)?, _g: PhantomData })
            }
        }
    };
}
lend_ref!(ViewRef);
lend_ref!(ViewMut);

impl<T: Element, E: Extents> ViewMut<'_, T, E> {
    /// Lend this CUDA device guard to cudarc kernels that write it, on `stream`.
    pub fn cuda_mut(&mut self, stream: &Arc<CudaStream>) -> Result<CudaMut<'_, T>> {
        Ok(CudaMut { lent: Lent::new(&self.b, stream)?, _g: PhantomData })
    }
}
