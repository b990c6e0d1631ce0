//! The CUDA driver under the device engine (`src/memory/device/`): each
//! [`Driver`] call is one CUDA driver API call, through `cudarc` (the only
//! module that names it), loaded at run time. Allocations live in each
//! device's primary context, so kernels launched with the runtime API
//! (`<<<>>>`, `cudaMemcpy`) use them directly. Without libcuda or without the
//! device, every space answers `NoDevice`; nothing panics (the driver is
//! probed with `is_culib_present` before any call).
//!
//! | layer | here |
//! | --- | --- |
//! | raw calls | `cudarc::driver::sys`, where no `result` wrapper fits (below) |
//! | checked results | `cudarc::driver::result` (`DriverError`); [`check`] maps it to [`Error`] with the driver's name and text |
//! | policy | the device engine, for every vendor |
//!
//! Calls that stay on `sys` (each checked by `.result()` and [`check`]; DECISIONS G12):
//! `cuMemcpyHtoD_v2`, `cuMemcpyDtoH_v2`, `cuMemcpyDtoD_v2`, `cuMemcpyHtoDAsync_v2`,
//! `cuMemcpyDtoHAsync_v2` (the wrappers take typed slices; ours are raw ranges),
//! `cuMemcpy2DAsync_v2`, `cuMemsetD16Async`, `cuMemsetD32Async`,
//! `cuMemHostRegister_v2`, `cuMemHostUnregister`, `cuPointerGetAttributes`
//! (no wrapper; the plural call answers pageable memory without an error),
//! `cuMemPrefetchAsync` (the wrapper calls the `_v2` of CUDA 12.2+, G1). Every
//! other call goes through its `result` wrapper.

use crate::memory::device::{Addr, Copy2D, DeviceBackend, Dir, Driver, Engine, EnginePolicy, EventHandle, HostFn, Mem, StreamHandle, Word};
use crate::memory::Backend;
use crate::space::{Space, SpaceKind, Stream};
use crate::error::{bail, Error, ErrorKind, Result};
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

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

/// Driver call `name`: `f` run, timed when `DV_TRACE_DRIVER` is on (one trace line: the
/// call, its thread, how long it took, when it ended), its result as it returned.
fn timed<T>(name: &str, f: impl FnOnce() -> std::result::Result<T, DriverError>) -> std::result::Result<T, DriverError> {
    static ON: OnceLock<Option<Instant>> = OnceLock::new();
    let Some(epoch) = ON.get_or_init(|| crate::env::switch("DV_TRACE_DRIVER").then(Instant::now)) else {
        return f();
    };
    let t0 = Instant::now();
    let r = f();
    let t1 = Instant::now();
    let me = std::thread::current();
    let who = me.name().map_or_else(|| format!("{:?}", me.id()), str::to_owned);
    let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
    let end = us(t1.duration_since(*epoch));
    crate::stats::trace(format_args!("driver {name} {:.1} us on {who}, ended at {end:.0} us{}", us(t1 - t0), if r.is_ok() { "" } else { " (error)" }));
    r
}

/// [`timed`], then [`check`]: a driver call as the crate's result.
fn call<T>(name: &str, f: impl FnOnce() -> std::result::Result<T, DriverError>) -> Result<T> {
    check(timed(name, f), name)
}

/// Every device's retained primary context, after `cuInit`.
struct Contexts(Vec<sys::CUcontext>);

// SAFETY: CUcontext values are opaque driver handles usable from any thread;
// the Vec is never mutated after initialisation.
unsafe impl Send for Contexts {}
// SAFETY: as above.
unsafe impl Sync for Contexts {}

fn contexts() -> Result<&'static Contexts> {
    static CONTEXTS: OnceLock<std::result::Result<Contexts, Error>> = OnceLock::new();
    CONTEXTS
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
            let mut all = Vec::new();
            for i in 0..n {
                let dev = check(result::device::get(i), "cuDeviceGet")?;
                // SAFETY: `dev` was just returned by `cuDeviceGet`.
                all.push(check(unsafe { result::primary_ctx::retain(dev) }, "cuDevicePrimaryCtxRetain")?);
            }
            Ok(Contexts(all))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Device `ordinal`'s primary context, or `NoDevice`.
fn context(ordinal: u32) -> Result<sys::CUcontext> {
    let c = contexts()?;
    match c.0.get(ordinal as usize) {
        Some(&ctx) => Ok(ctx),
        None => bail!(NoDevice, "CUDA device {ordinal} does not exist ({} device(s) present)", c.0.len()),
    }
}

/// The number of CUDA devices (0 without a driver). Never panics.
pub(crate) fn device_count() -> usize {
    contexts().map(|c| c.0.len()).unwrap_or(0)
}

/// The CUDA driver API.
struct Cuda;

/// Every CUDA device: mirrors registered unless `DV_PAGEABLE_MIRROR` (read
/// when a DualView is made, docs/ENVIRONMENT.md), small blocks kept, no
/// block grown in place (the driver cannot).
const POLICY: EnginePolicy = EnginePolicy {
    registers_mirrors: |_| !crate::env::switch("DV_PAGEABLE_MIRROR"),
    keeps_small_blocks: |_| true,
    grows_in_place: |_| false,
};

static ENGINE: Engine = Engine::new(&Cuda, POLICY);
static DEVICE: DeviceBackend = DeviceBackend::new(&ENGINE, SpaceKind::Cuda);
static MANAGED: DeviceBackend = DeviceBackend::new(&ENGINE, SpaceKind::CudaUvm);
static PINNED: DeviceBackend = DeviceBackend::new(&ENGINE, SpaceKind::HostPinned);

/// The backend of a CUDA space, once its device is known to exist (no driver
/// call: the contexts were retained once). Pinned host memory belongs to device 0.
pub(crate) fn backend(space: Space) -> Result<&'static dyn Backend> {
    let (ordinal, b) = match space.kind() {
        SpaceKind::Cuda => (space.ordinal(), &DEVICE),
        SpaceKind::CudaUvm => (space.ordinal(), &MANAGED),
        _ => (0, &PINNED),
    };
    context(ordinal).map(|_| b as &dyn Backend)
}

/// The driver's stream (null: the default stream).
fn raw(s: Option<StreamHandle>) -> sys::CUstream {
    s.map_or(0, StreamHandle::get) as sys::CUstream
}

/// The driver's event.
fn ev(e: &EventHandle) -> sys::CUevent {
    e.get() as sys::CUevent
}

/// How the driver sees an address of a memory.
fn memtype(m: Mem) -> sys::CUmemorytype {
    match m {
        Mem::Device => sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        Mem::Managed => sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        Mem::Pageable | Mem::Pinned => sys::CUmemorytype::CU_MEMORYTYPE_HOST,
    }
}

/// The host function every `launch_host_fn` queues: runs the boxed closure once.
unsafe extern "C" fn run_host_fn(arg: *mut c_void) {
    // SAFETY: `arg` is the Box<HostFn> leaked by `launch_host_fn`, handed over once.
    let f = unsafe { Box::from_raw(arg as *mut HostFn) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
}

// SAFETY (every unsafe block below): one driver call on the bound context,
// with the ranges, streams and events the `Driver` contract makes valid.
impl Driver for Cuda {
    fn device_count(&self) -> usize {
        device_count()
    }
    fn bind(&self, ordinal: u32) -> Result<Option<usize>> {
        let ctx = context(ordinal)?;
        let cur = call("cuCtxGetCurrent", result::ctx::get_current)?.unwrap_or(std::ptr::null_mut());
        if cur == ctx {
            return Ok(None);
        }
        call("cuCtxSetCurrent", || unsafe { result::ctx::set_current(ctx) })?;
        Ok(Some(cur as usize))
    }
    fn restore(&self, previous: usize) {
        // `previous` was current on this thread a moment ago (or NULL, which
        // unbinds); failure leaves ours bound, which is harmless.
        let _ = call("cuCtxSetCurrent", || unsafe { result::ctx::set_current(previous as sys::CUcontext) });
    }
    fn alloc(&self, bytes: usize, mem: Mem) -> Result<Addr> {
        let a = unsafe {
            match mem {
                Mem::Pinned => call("cuMemHostAlloc", || result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)).map(|p| p as usize),
                Mem::Managed => call("cuMemAllocManaged", || result::malloc_managed(bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL)).map(|p| p as usize),
                _ => call("cuMemAlloc", || result::malloc_sync(bytes)).map(|p| p as usize),
            }
        }?;
        Addr::new(a).ok_or_else(|| crate::error::err!(Device, "the driver returned address 0"))
    }
    unsafe fn free(&self, addr: Addr, _bytes: usize, mem: Mem) {
        let addr = addr.get();
        let _ = match mem {
            Mem::Pinned => call("cuMemFreeHost", || unsafe { result::free_host(addr as *mut c_void) }),
            _ => call("cuMemFree", || unsafe { result::free_sync(addr as sys::CUdeviceptr) }),
        };
    }
    unsafe fn copy(&self, dst: Addr, src: Addr, bytes: usize, dir: Dir) -> Result<()> {
        let (dst, src) = (dst.get(), src.get());
        let (d, s) = (dst as sys::CUdeviceptr, src as sys::CUdeviceptr);
        unsafe {
            match dir {
                Dir::HtoD => call("cuMemcpyHtoD", || sys::cuMemcpyHtoD_v2(d, src as *const c_void, bytes).result()),
                Dir::DtoH => call("cuMemcpyDtoH", || sys::cuMemcpyDtoH_v2(dst as *mut c_void, s, bytes).result()),
                Dir::DtoD => call("cuMemcpyDtoD", || sys::cuMemcpyDtoD_v2(d, s, bytes).result()),
            }
        }
    }
    unsafe fn copy_async(&self, dst: Addr, src: Addr, bytes: usize, dir: Dir, stream: Option<StreamHandle>) -> Result<()> {
        let (dst, src) = (dst.get(), src.get());
        let (d, s, st) = (dst as sys::CUdeviceptr, src as sys::CUdeviceptr, raw(stream));
        call("cuMemcpyAsync", || unsafe {
            match dir {
                Dir::HtoD => sys::cuMemcpyHtoDAsync_v2(d, src as *const c_void, bytes, st).result(),
                Dir::DtoH => sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, s, bytes, st).result(),
                Dir::DtoD => result::memcpy_dtod_async(d, s, bytes, st),
            }
        })
    }
    unsafe fn copy_peer_async(&self, dst: Addr, dst_device: u32, src: Addr, src_device: u32, bytes: usize, stream: Option<StreamHandle>) -> Result<()> {
        let (dc, sc) = (context(dst_device)?, context(src_device)?);
        call("cuMemcpyPeerAsync", || unsafe { result::memcpy_peer_async(dc, dst.get() as _, sc, src.get() as _, bytes, raw(stream)) })
    }
    unsafe fn copy_2d_async(&self, c: &Copy2D, stream: Option<StreamHandle>) -> Result<()> {
        let p = sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: memtype(c.src_mem),
            srcHost: c.src.get() as *const c_void,
            srcDevice: c.src.get() as sys::CUdeviceptr,
            srcArray: std::ptr::null_mut(),
            srcPitch: c.src_pitch,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: memtype(c.dst_mem),
            dstHost: c.dst.get() as *mut c_void,
            dstDevice: c.dst.get() as sys::CUdeviceptr,
            dstArray: std::ptr::null_mut(),
            dstPitch: c.dst_pitch,
            WidthInBytes: c.width,
            Height: c.height,
        };
        call("cuMemcpy2DAsync", || unsafe { sys::cuMemcpy2DAsync_v2(&p, raw(stream)) }.result())
    }
    unsafe fn memset_async(&self, dst: Addr, word: Word, count: usize, stream: Option<StreamHandle>) -> Result<()> {
        let (d, s) = (dst.get() as sys::CUdeviceptr, raw(stream));
        unsafe {
            match word {
                Word::W8(v) => call("cuMemsetD8Async", || result::memset_d8_async(d, v, count, s)),
                Word::W16(v) => call("cuMemsetD16Async", || sys::cuMemsetD16Async(d, v, count, s).result()),
                Word::W32(v) => call("cuMemsetD32Async", || sys::cuMemsetD32Async(d, v, count, s).result()),
            }
        }
    }
    unsafe fn prefetch_async(&self, addr: Addr, bytes: usize, to: Option<u32>, stream: Option<StreamHandle>) -> Result<()> {
        let target = to.map_or(-1, |o| o as sys::CUdevice); // -1: CU_DEVICE_CPU
        call("cuMemPrefetchAsync", || unsafe { sys::cuMemPrefetchAsync(addr.get() as _, bytes, target, raw(stream)) }.result())
    }
    fn synchronize(&self) -> Result<()> {
        call("cuCtxSynchronize", result::ctx::synchronize)
    }
    fn stream_synchronize(&self, stream: Option<StreamHandle>) -> Result<()> {
        call("cuStreamSynchronize", || unsafe { result::stream::synchronize(raw(stream)) })
    }
    fn stream_create(&self) -> Result<StreamHandle> {
        let s = call("cuStreamCreate", || result::stream::create(result::stream::StreamKind::NonBlocking))?;
        crate::memory::device::on(Stream::from_raw(s as usize)).ok_or_else(|| crate::error::err!(Device, "cuStreamCreate returned a null stream"))
    }
    unsafe fn stream_destroy(&self, stream: StreamHandle) -> Result<()> {
        call("cuStreamDestroy", || unsafe { result::stream::destroy(raw(Some(stream))) })
    }
    fn launch_host_fn(&self, stream: Option<StreamHandle>, f: HostFn) -> std::result::Result<(), (Error, HostFn)> {
        let arg = Box::into_raw(Box::new(f)) as *mut c_void;
        // SAFETY: `run_host_fn` takes `arg` back exactly once, when the stream reaches it.
        match call("cuLaunchHostFunc", || unsafe { result::stream::launch_host_function(raw(stream), run_host_fn, arg) }) {
            Ok(()) => Ok(()),
            // SAFETY: not queued: `arg` is still ours.
            Err(e) => Err((e, *unsafe { Box::from_raw(arg as *mut HostFn) })),
        }
    }
    fn event_create(&self) -> Result<EventHandle> {
        let e = call("cuEventCreate", || result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?;
        // SAFETY: the event just made; the handle is its only owner.
        unsafe { EventHandle::new(e as usize) }.ok_or_else(|| crate::error::err!(Device, "cuEventCreate returned a null event"))
    }
    unsafe fn event_record(&self, event: &EventHandle, stream: Option<StreamHandle>) -> Result<()> {
        call("cuEventRecord", || unsafe { result::event::record(ev(event), raw(stream)) })
    }
    unsafe fn event_query(&self, event: &EventHandle) -> Result<bool> {
        match timed("cuEventQuery", || unsafe { result::event::query(ev(event)) }) {
            Ok(()) => Ok(true),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            Err(e) => check(Err(e), "cuEventQuery"),
        }
    }
    unsafe fn event_synchronize(&self, event: &EventHandle) -> Result<()> {
        call("cuEventSynchronize", || unsafe { result::event::synchronize(ev(event)) })
    }
    unsafe fn event_destroy(&self, event: EventHandle) {
        let _ = call("cuEventDestroy", || unsafe { result::event::destroy(ev(&event)) });
    }
    unsafe fn stream_wait_event(&self, stream: Option<StreamHandle>, event: &EventHandle) -> Result<()> {
        let flags = sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT;
        call("cuStreamWaitEvent", || unsafe { result::stream::wait_event(raw(stream), ev(event), flags) })
    }
    unsafe fn host_register(&self, addr: Addr, len: usize) -> Result<()> {
        let flags = sys::CU_MEMHOSTREGISTER_PORTABLE;
        call("cuMemHostRegister", || unsafe { sys::cuMemHostRegister_v2(addr.get() as *mut c_void, len, flags) }.result())
    }
    unsafe fn host_unregister(&self, addr: Addr) {
        let _ = call("cuMemHostUnregister", || unsafe { sys::cuMemHostUnregister(addr.get() as *mut c_void) }.result());
    }
    fn is_page_locked(&self, addr: usize) -> bool {
        let mut kind: u32 = 0;
        let mut attr = [sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE];
        let mut data = [(&mut kind as *mut u32).cast::<c_void>()];
        // One attribute, one writable u32 for it (CUmemorytype); nothing at `addr` is read.
        let r = unsafe { sys::cuPointerGetAttributes(1, attr.as_mut_ptr(), data.as_mut_ptr(), addr as sys::CUdeviceptr) };
        r == sys::CUresult::CUDA_SUCCESS && kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
    }
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
