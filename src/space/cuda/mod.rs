//! The CUDA spaces (device, managed, pinned host) through the CUDA driver API,
//! loaded at run time by `cudarc` (the only module that names it).
//!
//! | layer | here |
//! | --- | --- |
//! | raw calls | `cudarc::driver::sys`, where no `result` wrapper fits (table below) |
//! | checked results | `cudarc::driver::result` (`DriverError`); [`check`] maps it to [`Error`] with the driver's name and text |
//! | safe types | [`CudaBackend`], behind the crate's `Backend` trait |
//! | host mirrors | `super::registration`: the state machine registering a DualView's pageable mirror, handed out as a `HostRegistration` |
//!
//! Allocations live in each device's primary context, so kernels launched
//! with the runtime API (`<<<>>>`, `cudaMemcpy`) use them directly. Without
//! libcuda or without the device, every call answers `NoDevice`; nothing
//! panics (the driver is probed with `is_culib_present` before any call).
//!
//! Which driver calls go through cudarc's `result` wrappers (same entry point,
//! same arguments) and which stay on `sys` (each then checked by
//! `.result()` and [`check`]; DECISIONS G12):
//!
//! | calls | layer | why |
//! | --- | --- | --- |
//! | `cuInit`, `cuDeviceGetCount`, `cuDeviceGet`, `cuDevicePrimaryCtxRetain`, `cuCtxGetCurrent`, `cuCtxSetCurrent`, `cuCtxSynchronize`, `cuStreamSynchronize` | `result` | a wrapper per call |
//! | `cuMemAlloc_v2`, `cuMemAllocManaged`, `cuMemFree_v2`, `cuMemHostAlloc`, `cuMemFreeHost`, `cuMemsetD8Async` | `result` | a wrapper per call |
//! | `cuMemcpyDtoDAsync_v2`, `cuMemcpyPeerAsync`; `cuMemcpyHtoDAsync_v2` of the fill's seed (`copy.rs`) | `result` | raw addresses and a byte count; the seed is a `Vec<u8>` |
//! | `cuGetErrorName`, `cuGetErrorString` | `result` (`DriverError`) | asked only once libcuda was found: cudarc panics without it |
//! | `cuMemcpyHtoDAsync_v2`, `cuMemcpyDtoHAsync_v2` of regions, `cuMemcpyHtoD_v2`, `cuMemcpyDtoH_v2` (`copy.rs`) | `sys` | the wrappers take typed slices; the regions are raw addresses and byte counts (a slice over them would assert what the driver's asynchronous access does not keep) |
//! | `cuMemcpy2DAsync_v2`, `cuMemsetD16Async`, `cuMemsetD32Async`, `cuMemHostRegister_v2`, `cuMemHostUnregister` | `sys` | no wrapper |
//! | `cuMemPrefetchAsync` | `sys` | the wrapper calls `cuMemPrefetchAsync_v2` (CUDA 12.2+, absent from the `cuda-11040` bindings, G1) |
//! | `cuEventCreate`, `cuEventRecord`, `cuEventQuery`, `cuEventSynchronize`, `cuEventDestroy`, `cuStreamCreate`, `cuStreamDestroy_v2`, `cuStreamWaitEvent`, `cuLaunchHostFunc` (`stream.rs`) | `result` | a wrapper per call |
//! | `cuPointerGetAttributes` (`stream.rs`) | `sys` | no wrapper; the plural call answers pageable memory without an error |

mod copy;
mod stream;

use super::{allocation_point, host, Backend, HostRegistration, Region, Space, SpaceKind, Stream, Transfer};
use crate::error::{bail, err, Error, ErrorKind, Result};
use crate::side::Side;
use crate::extents::DynRank;
use crate::layout::{plan, Strides};
use copy::fill_by_doubling;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use super::registration::{HostDriver, Registration};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// libcuda was found (set before the first driver call): only then may
/// [`check`] ask the driver for an error's name and text (cudarc panics without it).
static LIBCUDA: AtomicBool = AtomicBool::new(false);

/// A driver result as the crate's: `"{call} failed: {name}: {text}"`, with the
/// driver's name and text of the code (`CUresult <number>` where it has none,
/// or without libcuda), and its kind.
fn check<T>(r: std::result::Result<T, DriverError>, call: &str) -> Result<T> {
    r.map_err(|e| {
        let kind = match e.0 {
            sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
            sys::CUresult::CUDA_ERROR_NO_DEVICE | sys::CUresult::CUDA_ERROR_INVALID_DEVICE => ErrorKind::NoDevice,
            _ => ErrorKind::Device,
        };
        let loaded = LIBCUDA.load(Ordering::Relaxed);
        let say = |s: Option<std::result::Result<&std::ffi::CStr, DriverError>>| match s {
            Some(Ok(s)) => s.to_string_lossy().into_owned(),
            _ => format!("CUresult {}", e.0 as u32),
        };
        let (name, text) = (say(loaded.then(|| e.error_name())), say(loaded.then(|| e.error_string())));
        Error::new(kind, format!("{call} failed: {name}: {text}"))
    })
}

/// One device: its handle and retained primary context.
struct Device {
    ctx: sys::CUcontext,
}

/// The driver after `cuInit`, with every device's primary context.
struct Driver {
    devices: Vec<Device>,
}

// SAFETY: CUcontext values are opaque driver handles usable from any thread.
unsafe impl Send for Driver {}
// SAFETY: as above; the Vec is never mutated after initialisation.
unsafe impl Sync for Driver {}

fn driver() -> Result<&'static Driver> {
    static DRIVER: OnceLock<std::result::Result<Driver, Error>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            if cfg!(miri) {
                bail!(NoDevice, "no CUDA driver under Miri (it cannot load libraries)");
            }
            // SAFETY: only probes for the library; loads nothing else.
            if !unsafe { sys::is_culib_present() } {
                bail!(NoDevice, "no CUDA driver (libcuda.so) on this machine");
            }
            LIBCUDA.store(true, Ordering::Relaxed);
            check(result::init(), "cuInit")?;
            let n = check(result::device::get_count(), "cuDeviceGetCount")?;
            let mut devices = Vec::new();
            for i in 0..n {
                let dev = check(result::device::get(i), "cuDeviceGet")?;
                // SAFETY: `dev` was just returned by `cuDeviceGet`.
                let ctx = check(unsafe { result::primary_ctx::retain(dev) }, "cuDevicePrimaryCtxRetain")?;
                devices.push(Device { ctx });
            }
            Ok(Driver { devices })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The number of CUDA devices (0 without a driver). Never panics.
pub(crate) fn device_count() -> usize {
    driver().map(|d| d.devices.len()).unwrap_or(0)
}

/// Device `ordinal`'s primary context, current on this thread while the
/// guard lives; the caller's own current context comes back on drop, so code
/// that manages its own contexts is never switched behind its back.
struct Bound {
    /// The context to restore, when binding changed it.
    restore: Option<sys::CUcontext>,
}

impl Drop for Bound {
    fn drop(&mut self) {
        if let Some(prev) = self.restore {
            // SAFETY: `prev` was current on this thread a moment ago (or is
            // NULL, which unbinds); failure leaves ours bound, which is harmless.
            let _ = unsafe { result::ctx::set_current(prev) };
        }
    }
}

/// Make device `ordinal`'s primary context current until the guard drops.
fn bind(ordinal: u32) -> Result<Bound> {
    let d = driver()?;
    let Some(dev) = d.devices.get(ordinal as usize) else {
        bail!(NoDevice, "CUDA device {ordinal} does not exist ({} device(s) present)", d.devices.len());
    };
    let cur = check(result::ctx::get_current(), "cuCtxGetCurrent")?.unwrap_or(std::ptr::null_mut());
    if cur == dev.ctx {
        return Ok(Bound { restore: None });
    }
    // SAFETY: a retained primary context.
    check(unsafe { result::ctx::set_current(dev.ctx) }, "cuCtxSetCurrent")?;
    Ok(Bound { restore: Some(cur) })
}

/// Check that a CUDA space is usable (driver and device present).
pub(crate) fn probe(space: Space) -> Result<()> {
    let ordinal = if space.kind() == SpaceKind::HostPinned { 0 } else { space.ordinal() };
    bind(ordinal).map(drop)
}

fn stream_of(s: Stream) -> sys::CUstream {
    s.as_raw() as sys::CUstream
}

/// The CUDA backend, for `Cuda`, `CudaUvm` and `HostPinned` spaces.
pub(crate) struct CudaBackend(pub SpaceKind);

impl CudaBackend {
    /// The device an ordinal of this backend names (pinned host memory: device 0).
    fn device(&self, ordinal: u32) -> u32 {
        if self.0 == SpaceKind::HostPinned { 0 } else { ordinal }
    }
}

pub(crate) static DEVICE: CudaBackend = CudaBackend(SpaceKind::Cuda);
pub(crate) static MANAGED: CudaBackend = CudaBackend(SpaceKind::CudaUvm);
pub(crate) static PINNED: CudaBackend = CudaBackend(SpaceKind::HostPinned);

fn on_device(space: Space) -> bool {
    matches!(space.kind(), SpaceKind::Cuda | SpaceKind::CudaUvm)
}

/// The device a copy between `dst` and `src` runs on (the destination's
/// when both are on a device; pinned host memory belongs to device 0).
fn device_of(dst: Space, src: Space) -> u32 {
    if on_device(dst) {
        dst.ordinal()
    } else if on_device(src) {
        src.ordinal()
    } else {
        0
    }
}

impl Backend for CudaBackend {
    fn allocate(&self, ordinal: u32, bytes: usize, zeroed: bool) -> Result<NonNull<u8>> {
        if bytes == 0 {
            return Ok(host::dangling());
        }
        let space = Space::new(self.0, ordinal);
        // SAFETY (all arms): driver calls on a bound context; the zeroing
        // writes the `bytes` of the block just allocated.
        unsafe {
            match self.0 {
                SpaceKind::HostPinned => {
                    let _bound = bind(0)?;
                    let p = check(result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc")
                        .map_err(|e| with_bytes(e, space, bytes))?;
                    if zeroed {
                        std::ptr::write_bytes(p as *mut u8, 0, bytes);
                    }
                    NonNull::new(p as *mut u8).ok_or_else(|| err!(Device, "cuMemHostAlloc returned NULL"))
                }
                kind => {
                    let _bound = bind(ordinal)?;
                    let d = if kind == SpaceKind::CudaUvm {
                        check(result::malloc_managed(bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged")
                    } else {
                        check(result::malloc_sync(bytes), "cuMemAlloc")
                    }
                    .map_err(|e| with_bytes(e, space, bytes))?;
                    if zeroed {
                        let z = check(result::memset_d8_async(d, 0, bytes, std::ptr::null_mut()), "cuMemsetD8Async")
                            .and_then(|()| check(result::ctx::synchronize(), "cuCtxSynchronize"));
                        if let Err(e) = z {
                            let _ = result::free_sync(d);
                            return Err(e);
                        }
                    }
                    NonNull::new(d as usize as *mut u8).ok_or_else(|| err!(Device, "the driver returned address 0"))
                }
            }
        }
    }

    unsafe fn deallocate(&self, ordinal: u32, ptr: NonNull<u8>, bytes: usize) {
        if bytes == 0 {
            return;
        }
        // SAFETY: ptr came from `allocate` of this kind; errors cannot be
        // reported from a drop and leave the memory to the driver.
        unsafe {
            match self.0 {
                SpaceKind::HostPinned => {
                    if let Ok(_bound) = bind(0) {
                        let _ = result::free_host(ptr.as_ptr() as *mut c_void);
                    }
                }
                _ => {
                    if let Ok(_bound) = bind(ordinal) {
                        let _ = result::ctx::synchronize();
                        let _ = result::free_sync(ptr.as_ptr() as usize as sys::CUdeviceptr);
                    }
                }
            }
        }
    }

    unsafe fn fill(&self, ordinal: u32, dst: &Region, value: &[u8], stream: Stream) -> Result<()> {
        if self.0 == SpaceKind::HostPinned {
            // SAFETY: forwarded contract; pinned memory is host memory.
            unsafe { host::fill(dst, value) };
            return Ok(());
        }
        let _bound = bind(ordinal)?;
        stream::other_work_queued();
        let es = dst.elem_size;
        let n: usize = dst.extents.as_slice().iter().product();
        if n == 0 {
            return Ok(());
        }
        let contiguous = plan(dst.extents.as_slice(), dst.strides.as_slice(), dst.strides.as_slice())
            .is_some_and(|(_, outer)| outer.is_empty());
        let s = stream_of(stream);
        let d = dst.ptr as usize as sys::CUdeviceptr;
        if contiguous {
            // SAFETY: the region is n contiguous elements of live device memory.
            unsafe {
                if value.iter().all(|&b| b == value[0]) {
                    return check(result::memset_d8_async(d, value[0], n * es, s), "cuMemsetD8Async");
                }
                if es.is_multiple_of(4) && value.chunks(4).all(|c| c == &value[..4]) {
                    let w = u32::from_ne_bytes(value[..4].try_into().expect("4 bytes"));
                    return check(sys::cuMemsetD32Async(d, w, n * es / 4, s).result(), "cuMemsetD32Async");
                }
                if es.is_multiple_of(2) && value.chunks(2).all(|c| c == &value[..2]) {
                    let w = u16::from_ne_bytes(value[..2].try_into().expect("2 bytes"));
                    return check(sys::cuMemsetD16Async(d, w, n * es / 2, s).result(), "cuMemsetD16Async");
                }
            }
        }
        if contiguous {
            // SAFETY: n contiguous elements of live device memory.
            unsafe { fill_by_doubling(d, value, n, s)? };
        } else {
            // Any strides: fill a packed device scratch block, then one strided device copy.
            let packed = DynRank::from_slice_unchecked(dst.extents.as_slice());
            let strides = Strides::canonical(packed.as_slice(), crate::Layout::Right)?;
            // SAFETY: a plain allocation on the bound context.
            let scratch = check(unsafe { result::malloc_sync(n * es) }, "cuMemAlloc")?;
            let src = Region { ptr: scratch as usize as *mut u8, elem_size: es, extents: packed, strides };
            let space = Space::new(self.0, ordinal);
            // SAFETY: the scratch block is n packed elements, freed only after the stream has run both steps.
            let p = plan(dst.extents.as_slice(), dst.strides.as_slice(), src.strides.as_slice())
                .ok_or_else(|| err!(Internal, "fill: an empty strided region"))?;
            let done = unsafe {
                fill_by_doubling(scratch, value, n, s)
                    .and_then(|()| self.issue((space, dst), (space, &src), &p, stream))
                    .and_then(|()| check(result::stream::synchronize(s), "cuStreamSynchronize"))
            };
            // SAFETY: our own block; the stream work using it is complete (or failed).
            let _ = unsafe { result::free_sync(scratch) };
            done?;
        }
        Ok(()) // both paths synchronised the stream
    }

    unsafe fn copy(&self, dst: (Space, &Region), src: (Space, &Region), stream: Stream) -> Result<()> {
        if !on_device(dst.0) && !on_device(src.0) {
            // SAFETY: both host memory (pageable or pinned); forwarded contract.
            unsafe { host::copy(dst.1, src.1) };
            return Ok(());
        }
        let _bound = bind(device_of(dst.0, src.0))?;
        // A view copy's host memory may be a registered mirror: on a stream, ask the driver.
        let host = if on_device(dst.0) { src.1.ptr } else { dst.1.ptr };
        let pageable = !stream.is_null() && !stream::is_page_locked(host);
        // SAFETY: forwarded contract; the context is bound.
        let queued = unsafe { self.copy_bound(dst, src, stream, pageable)? };
        if queued && stream.is_null() {
            // The default stream means complete on return: wait for that stream only.
            // SAFETY: a plain driver call on the bound context.
            check(unsafe { result::stream::synchronize(std::ptr::null_mut()) }, "cuStreamSynchronize")?;
        }
        Ok(())
    }

    unsafe fn transfer(&self, ordinal: u32, t: &Transfer<'_>) -> Result<()> {
        let _ = ordinal; // the pairs' spaces name the device
        if !on_device(t.dst) && !on_device(t.src) {
            // Pinned and pageable host memory: plain copies, no context (and a fence only when asked).
            if t.fence {
                self.fence(0)?;
            }
            for (d, s) in t.pairs {
                // SAFETY: both host memory (pageable or pinned); forwarded contract.
                unsafe { host::copy(d, s) };
            }
            return Ok(());
        }
        // One bind for the fence and every copy.
        let _bound = bind(device_of(t.dst, t.src))?;
        if t.fence {
            check(result::ctx::synchronize(), "cuCtxSynchronize")?;
        }
        let mut queued = false;
        for (d, s) in t.pairs {
            // SAFETY: forwarded contract; the context is bound.
            match unsafe { self.copy_bound((t.dst, d), (t.src, s), t.stream, t.pageable_host) } {
                Ok(q) => queued |= q,
                Err(e) => {
                    if queued && t.stream.is_null() {
                        // The copies queued before this one still run: let them finish before the
                        // caller's borrows go (a default-stream sync is complete on return, even failed).
                        // SAFETY: a plain driver call on the bound context.
                        let _ = unsafe { result::stream::synchronize(std::ptr::null_mut()) };
                    }
                    return Err(e);
                }
            }
        }
        if queued && t.stream.is_null() {
            // SAFETY: a plain driver call on the bound context.
            check(unsafe { result::stream::synchronize(std::ptr::null_mut()) }, "cuStreamSynchronize")?;
        }
        Ok(())
    }

    fn fence(&self, ordinal: u32) -> Result<()> {
        let ordinal = if self.0 == SpaceKind::HostPinned { 0 } else { ordinal };
        let _bound = bind(ordinal)?;
        check(result::ctx::synchronize(), "cuCtxSynchronize")
    }

    fn event_record(&self, ordinal: u32, stream: Stream) -> Result<Option<usize>> {
        stream::driver_calls::event_record(self.device(ordinal), stream)
    }

    fn event_wait(&self, ordinal: u32, event: usize) -> Result<()> {
        stream::driver_calls::event_wait(self.device(ordinal), event)
    }

    fn event_done(&self, ordinal: u32, event: usize) -> bool {
        stream::driver_calls::event_done(self.device(ordinal), event)
    }

    fn event_order(&self, ordinal: u32, event: usize, stream: Stream) -> Result<()> {
        stream::driver_calls::event_order(self.device(ordinal), event, stream)
    }

    fn event_release(&self, ordinal: u32, event: usize) {
        stream::driver_calls::event_release(self.device(ordinal), event)
    }

    fn stream_create(&self, ordinal: u32) -> Result<Stream> {
        stream::driver_calls::stream_create(self.device(ordinal))
    }

    fn stream_destroy(&self, ordinal: u32, stream: Stream) -> Result<()> {
        stream::driver_calls::stream_destroy(self.device(ordinal), stream)
    }

    fn stream_fence(&self, ordinal: u32, stream: Stream) -> Result<()> {
        stream::driver_calls::stream_fence(self.device(ordinal), stream)
    }

    fn registers_mirror(&self, _ordinal: u32, host: Space) -> bool {
        self.0 == SpaceKind::Cuda && host == Space::HOST && !pageable_by_environment()
    }

    fn mirror_registration(&self, _ordinal: u32, ptr: NonNull<u8>, bytes: usize, label: &Arc<str>) -> Option<Box<dyn HostRegistration>> {
        if self.0 != SpaceKind::Cuda {
            return None;
        }
        Some(Box::new(Registration::new(&CUDA_HOST, ptr.as_ptr() as usize, bytes, label.clone())))
    }

    unsafe fn prefetch(&self, ordinal: u32, region: &Region, to: Side, stream: Stream) -> Result<()> {
        if self.0 != SpaceKind::CudaUvm {
            return Ok(());
        }
        stream::other_work_queued();
        let span = crate::layout::Mapping::with_strides(region.extents, region.strides.as_slice())
            .map(|m| m.span())
            .unwrap_or(0);
        if span == 0 {
            return Ok(());
        }
        let _bound = bind(ordinal)?;
        let target = match to {
            Side::Device => ordinal as sys::CUdevice,
            Side::Host => -1, // CU_DEVICE_CPU
        };
        // SAFETY: the range lies inside a live managed allocation.
        unsafe {
            check(
                sys::cuMemPrefetchAsync(region.ptr as usize as _, span * region.elem_size, target, stream_of(stream)).result(),
                "cuMemPrefetchAsync",
            )?;
            if stream.is_null() {
                check(result::stream::synchronize(std::ptr::null_mut()), "cuStreamSynchronize")?;
            }
        }
        Ok(())
    }
}

/// Copies up to this many contiguous bytes between pageable host memory and a
/// device take the tiny path (one synchronous driver copy).
const TINY_BYTES: usize = 64 << 10;

/// `DV_PAGEABLE_MIRROR=1` (any value but empty and 0): DualViews made now keep their mirrors pageable.
fn pageable_by_environment() -> bool {
    std::env::var("DV_PAGEABLE_MIRROR").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The CUDA driver as the registration state machine sees it (one per process).
struct CudaHost {
    /// Bytes registered now (`space::registered_host_bytes` sums every driver's).
    registered: AtomicUsize,
}

static CUDA_HOST: CudaHost = CudaHost { registered: AtomicUsize::new(0) };

impl HostDriver for CudaHost {
    fn populate(&self, addr: usize, len: usize) {
        host::populate(addr as *mut u8, len);
    }

    fn register(&self, addr: usize, len: usize) -> Result<()> {
        // The failure injection of the tests reaches the refusal path here.
        allocation_point("mirror registration")?;
        let _bound = bind(0)?;
        // SAFETY: a live host block the state machine owns the registration of;
        // registration only pins its pages.
        check(
            unsafe { sys::cuMemHostRegister_v2(addr as *mut c_void, len, sys::CU_MEMHOSTREGISTER_PORTABLE) }.result(),
            "cuMemHostRegister",
        )
    }

    fn unregister(&self, addr: usize) {
        if let Ok(_bound) = bind(0) {
            // SAFETY: a range registered by `register`; errors leave it to the driver.
            let _ = unsafe { sys::cuMemHostUnregister(addr as *mut c_void) };
        }
    }

    fn registered_bytes(&self) -> &AtomicUsize {
        &self.registered
    }
}

fn with_bytes(e: Error, space: Space, bytes: usize) -> Error {
    Error::new(e.kind(), format!("{space}: allocation of {bytes} bytes: {}", e.message()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_errors_keep_their_kind_and_name_the_call() {
        use sys::CUresult::*;
        for (code, kind) in [
            (CUDA_ERROR_OUT_OF_MEMORY, ErrorKind::OutOfMemory),
            (CUDA_ERROR_NO_DEVICE, ErrorKind::NoDevice),
            (CUDA_ERROR_INVALID_DEVICE, ErrorKind::NoDevice),
            (CUDA_ERROR_INVALID_VALUE, ErrorKind::Device),
        ] {
            let e = check::<()>(Err(DriverError(code)), "cuMemAlloc").unwrap_err();
            assert_eq!(e.kind(), kind, "{code:?}");
            let expected = if LIBCUDA.load(Ordering::Relaxed) {
                format!("cuMemAlloc failed: {code:?}: ") // the driver's name, then its text
            } else {
                let n = code as u32; // without libcuda, the number (cudarc would panic)
                format!("cuMemAlloc failed: CUresult {n}: CUresult {n}")
            };
            assert!(e.message().starts_with(&expected), "{}", e.message());
        }
        assert_eq!(check(Ok(7), "cuDeviceGetCount").ok(), Some(7));
    }
}
