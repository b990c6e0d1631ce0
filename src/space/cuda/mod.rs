//! The CUDA spaces (device, managed, pinned host) through the CUDA driver API,
//! loaded at run time by `cudarc` (the only module that names it).
//!
//! | layer | here |
//! | --- | --- |
//! | raw calls | `cudarc::driver::sys` |
//! | checked results | [`check`]: `CUresult` to [`Error`] with the driver's name and text |
//! | safe types | [`CudaBackend`], behind the crate's `Backend` trait |
//! | host mirrors | `super::registration`: the state machine registering a DualView's pageable mirror, handed out as a `HostRegistration` |
//!
//! Allocations live in each device's primary context, so kernels launched
//! with the runtime API (`<<<>>>`, `cudaMemcpy`) use them directly. Without
//! libcuda or without the device, every call answers `NoDevice`; nothing
//! panics (the driver is probed with `is_culib_present` before any call).

use super::{allocation_point, host, Backend, HostRegistration, Region, Space, SpaceKind, Stream, Transfer};
use crate::error::{bail, err, Error, ErrorKind, Result};
use crate::side::Side;
use crate::extents::DynRank;
use crate::layout::{for_each_outer, plan, Plan, Strides};
use cudarc::driver::sys;
use super::registration::{HostDriver, Registration};
use std::ffi::{c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

/// Turn a driver result into an error naming the call and the driver's name and text.
fn check(r: sys::CUresult, call: &str) -> Result<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let (name, text) = describe(r);
    let kind = match r {
        sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
        sys::CUresult::CUDA_ERROR_NO_DEVICE | sys::CUresult::CUDA_ERROR_INVALID_DEVICE => ErrorKind::NoDevice,
        _ => ErrorKind::Device,
    };
    Err(Error::new(kind, format!("{call} failed: {name}: {text}")))
}

fn describe(r: sys::CUresult) -> (String, String) {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: the driver is loaded (we only get here after a driver call) and
    // writes static strings or leaves the pointers NULL.
    unsafe {
        let _ = sys::cuGetErrorName(r, &mut name);
        let _ = sys::cuGetErrorString(r, &mut text);
    }
    let s = |p: *const std::ffi::c_char| {
        if p.is_null() {
            format!("CUresult {}", r as u32)
        } else {
            // SAFETY: the driver returns NUL-terminated static strings.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    (s(name), s(text))
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
            // SAFETY: plain driver calls with valid out-pointers.
            unsafe {
                check(sys::cuInit(0), "cuInit")?;
                let mut n = 0;
                check(sys::cuDeviceGetCount(&mut n), "cuDeviceGetCount")?;
                let mut devices = Vec::new();
                for i in 0..n {
                    let mut dev = 0;
                    check(sys::cuDeviceGet(&mut dev, i), "cuDeviceGet")?;
                    let mut ctx = std::ptr::null_mut();
                    check(sys::cuDevicePrimaryCtxRetain(&mut ctx, dev), "cuDevicePrimaryCtxRetain")?;
                    devices.push(Device { ctx });
                }
                Ok(Driver { devices })
            }
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
            let _ = unsafe { sys::cuCtxSetCurrent(prev) };
        }
    }
}

/// Make device `ordinal`'s primary context current until the guard drops.
fn bind(ordinal: u32) -> Result<Bound> {
    let d = driver()?;
    let Some(dev) = d.devices.get(ordinal as usize) else {
        bail!(NoDevice, "CUDA device {ordinal} does not exist ({} device(s) present)", d.devices.len());
    };
    let mut cur: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: a plain query with a valid out-pointer.
    check(unsafe { sys::cuCtxGetCurrent(&mut cur) }, "cuCtxGetCurrent")?;
    if cur == dev.ctx {
        return Ok(Bound { restore: None });
    }
    // SAFETY: a retained primary context.
    check(unsafe { sys::cuCtxSetCurrent(dev.ctx) }, "cuCtxSetCurrent")?;
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

pub(crate) static DEVICE: CudaBackend = CudaBackend(SpaceKind::Cuda);
pub(crate) static MANAGED: CudaBackend = CudaBackend(SpaceKind::CudaUvm);
pub(crate) static PINNED: CudaBackend = CudaBackend(SpaceKind::HostPinned);

/// How the driver sees an address of a space.
fn memtype(space: Space) -> sys::CUmemorytype {
    match space.kind() {
        SpaceKind::Cuda => sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        SpaceKind::CudaUvm => sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        _ => sys::CUmemorytype::CU_MEMORYTYPE_HOST,
    }
}

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
        // SAFETY (all arms): driver calls with valid out-pointers on a bound context.
        unsafe {
            match self.0 {
                SpaceKind::HostPinned => {
                    let _bound = bind(0)?;
                    let mut p: *mut c_void = std::ptr::null_mut();
                    check(sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc")
                        .map_err(|e| with_bytes(e, space, bytes))?;
                    if zeroed {
                        std::ptr::write_bytes(p as *mut u8, 0, bytes);
                    }
                    NonNull::new(p as *mut u8).ok_or_else(|| err!(Device, "cuMemHostAlloc returned NULL"))
                }
                kind => {
                    let _bound = bind(ordinal)?;
                    let mut d: sys::CUdeviceptr = 0;
                    let r = if kind == SpaceKind::CudaUvm {
                        sys::cuMemAllocManaged(&mut d, bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32)
                    } else {
                        sys::cuMemAlloc_v2(&mut d, bytes)
                    };
                    check(r, if kind == SpaceKind::CudaUvm { "cuMemAllocManaged" } else { "cuMemAlloc" })
                        .map_err(|e| with_bytes(e, space, bytes))?;
                    if zeroed {
                        let z = check(sys::cuMemsetD8Async(d, 0, bytes, std::ptr::null_mut()), "cuMemsetD8Async")
                            .and_then(|()| check(sys::cuCtxSynchronize(), "cuCtxSynchronize"));
                        if let Err(e) = z {
                            let _ = sys::cuMemFree_v2(d);
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
                        let _ = sys::cuMemFreeHost(ptr.as_ptr() as *mut c_void);
                    }
                }
                _ => {
                    if let Ok(_bound) = bind(ordinal) {
                        let _ = sys::cuCtxSynchronize();
                        let _ = sys::cuMemFree_v2(ptr.as_ptr() as usize as sys::CUdeviceptr);
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
                    return check(sys::cuMemsetD8Async(d, value[0], n * es, s), "cuMemsetD8Async");
                }
                if es.is_multiple_of(4) && value.chunks(4).all(|c| c == &value[..4]) {
                    let w = u32::from_ne_bytes(value[..4].try_into().expect("4 bytes"));
                    return check(sys::cuMemsetD32Async(d, w, n * es / 4, s), "cuMemsetD32Async");
                }
                if es.is_multiple_of(2) && value.chunks(2).all(|c| c == &value[..2]) {
                    let w = u16::from_ne_bytes(value[..2].try_into().expect("2 bytes"));
                    return check(sys::cuMemsetD16Async(d, w, n * es / 2, s), "cuMemsetD16Async");
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
            let mut scratch: sys::CUdeviceptr = 0;
            // SAFETY: a plain allocation with a valid out-pointer on the bound context.
            check(unsafe { sys::cuMemAlloc_v2(&mut scratch, n * es) }, "cuMemAlloc")?;
            let src = Region { ptr: scratch as usize as *mut u8, elem_size: es, extents: packed, strides };
            let space = Space::new(self.0, ordinal);
            // SAFETY: the scratch block is n packed elements, freed only after the stream has run both steps.
            let p = plan(dst.extents.as_slice(), dst.strides.as_slice(), src.strides.as_slice())
                .ok_or_else(|| err!(Internal, "fill: an empty strided region"))?;
            let done = unsafe {
                fill_by_doubling(scratch, value, n, s)
                    .and_then(|()| self.issue((space, dst), (space, &src), &p, stream))
                    .and_then(|()| check(sys::cuStreamSynchronize(s), "cuStreamSynchronize"))
            };
            // SAFETY: our own block; the stream work using it is complete (or failed).
            let _ = unsafe { sys::cuMemFree_v2(scratch) };
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
        // SAFETY: forwarded contract; the context is bound.
        let queued = unsafe { self.copy_bound(dst, src, stream)? };
        if queued && stream.is_null() {
            // The default stream means complete on return: wait for that stream only.
            // SAFETY: a plain driver call on the bound context.
            check(unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) }, "cuStreamSynchronize")?;
        }
        Ok(())
    }

    unsafe fn transfer(&self, ordinal: u32, t: &Transfer<'_>) -> Result<()> {
        let device = if on_device(t.dst) || on_device(t.src) { device_of(t.dst, t.src) } else { 0 };
        let _ = ordinal; // the pairs' spaces name the device
        // One bind for the fence and every copy.
        let _bound = bind(device)?;
        if t.fence {
            // SAFETY: a plain driver call on the bound context.
            check(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")?;
        }
        let mut queued = false;
        for (d, s) in t.pairs {
            // SAFETY: forwarded contract; the context is bound.
            queued |= unsafe { self.copy_bound((t.dst, d), (t.src, s), t.stream)? };
        }
        if queued && t.stream.is_null() {
            // SAFETY: a plain driver call on the bound context.
            check(unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) }, "cuStreamSynchronize")?;
        }
        Ok(())
    }

    fn fence(&self, ordinal: u32) -> Result<()> {
        let ordinal = if self.0 == SpaceKind::HostPinned { 0 } else { ordinal };
        let _bound = bind(ordinal)?;
        // SAFETY: a plain driver call on a bound context.
        check(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")
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
                sys::cuMemPrefetchAsync(region.ptr as usize as _, span * region.elem_size, target, stream_of(stream)),
                "cuMemPrefetchAsync",
            )?;
            if stream.is_null() {
                check(sys::cuStreamSynchronize(std::ptr::null_mut()), "cuStreamSynchronize")?;
            }
        }
        Ok(())
    }
}

impl CudaBackend {
    /// One copy of `Backend::copy` on the bound context, planned once: the
    /// tiny path (one synchronous driver copy) on the default stream when it
    /// applies, otherwise queued on `stream`. True when something was queued
    /// (the caller synchronises the default stream).
    ///
    /// # Safety
    /// As `Backend::copy`; the context of the device involved is bound.
    unsafe fn copy_bound(&self, dst: (Space, &Region), src: (Space, &Region), stream: Stream) -> Result<bool> {
        let (ds, dr) = dst;
        let (ss, sr) = src;
        if !on_device(ds) && !on_device(ss) {
            // SAFETY: both host memory (pageable or pinned); forwarded contract.
            unsafe { host::copy(dr, sr) };
            return Ok(false);
        }
        let Some(p) = plan(dr.extents.as_slice(), dr.strides.as_slice(), sr.strides.as_slice()) else {
            return Ok(false); // nothing to copy
        };
        // SAFETY (both): forwarded contract.
        if stream.is_null() && unsafe { self.tiny(dst, src, &p)? } {
            return Ok(false);
        }
        unsafe { self.issue(dst, src, &p, stream)? };
        Ok(true)
    }

    /// Queue the copy of `Backend::copy` on `stream`, as `plan` lays it out.
    ///
    /// # Safety
    /// As `Backend::copy`; the context of the device involved is bound.
    unsafe fn issue(&self, dst: (Space, &Region), src: (Space, &Region), plan: &Plan, stream: Stream) -> Result<()> {
        let (ds, dr) = dst;
        let (ss, sr) = src;
        let (run, outer) = (plan.0, &plan.1);
        let es = dr.elem_size;
        let s = stream_of(stream);
        if on_device(ds) && on_device(ss) && ds.ordinal() != ss.ordinal() {
            let d = driver()?;
            let ctx = |o: u32| d.devices.get(o as usize).map(|d| d.ctx).ok_or_else(|| err!(NoDevice, "CUDA device {o} does not exist"));
            let (dctx, sctx) = (ctx(ds.ordinal())?, ctx(ss.ordinal())?);
            if outer.is_empty() {
                // SAFETY: contiguous device ranges inside live allocations on two devices.
                return check(
                    unsafe { sys::cuMemcpyPeerAsync(dr.ptr as usize as _, dctx, sr.ptr as usize as _, sctx, run * es, s) },
                    "cuMemcpyPeerAsync",
                );
            }
            // Strided across devices: through a packed host buffer.
            // SAFETY: forwarded contract; the staging buffer outlives both copies.
            return unsafe { self.staged(dst, src, stream) };
        }
        if outer.is_empty() {
            let bytes = run * es;
            // SAFETY: one contiguous range in each live allocation; the driver
            // reads the memory kinds from the calls' names.
            let r = unsafe {
                match (on_device(ds), on_device(ss)) {
                    (true, false) => sys::cuMemcpyHtoDAsync_v2(dr.ptr as usize as _, sr.ptr as *const c_void, bytes, s),
                    (false, true) => sys::cuMemcpyDtoHAsync_v2(dr.ptr as *mut c_void, sr.ptr as usize as _, bytes, s),
                    _ => sys::cuMemcpyDtoDAsync_v2(dr.ptr as usize as _, sr.ptr as usize as _, bytes, s),
                }
            };
            return check(r, "cuMemcpyAsync");
        }
        // Strided: one 2D copy per combination of the outer axes beyond the first.
        let (height, dpitch, spitch) = outer[0];
        let mut result = Ok(());
        for_each_outer(&outer[1..], |doff, soff| {
            if result.is_err() {
                return;
            }
            let p = sys::CUDA_MEMCPY2D {
                srcXInBytes: 0,
                srcY: 0,
                srcMemoryType: memtype(ss),
                srcHost: sr.ptr.wrapping_add(soff * es) as *const c_void,
                srcDevice: sr.ptr.wrapping_add(soff * es) as usize as sys::CUdeviceptr,
                srcArray: std::ptr::null_mut(),
                srcPitch: spitch * es,
                dstXInBytes: 0,
                dstY: 0,
                dstMemoryType: memtype(ds),
                dstHost: dr.ptr.wrapping_add(doff * es) as *mut c_void,
                dstDevice: dr.ptr.wrapping_add(doff * es) as usize as sys::CUdeviceptr,
                dstArray: std::ptr::null_mut(),
                dstPitch: dpitch * es,
                WidthInBytes: run * es,
                Height: height,
            };
            // SAFETY: every field is set; the rows lie inside both live regions.
            result = check(unsafe { sys::cuMemcpy2DAsync_v2(&p, s) }, "cuMemcpy2DAsync");
        });
        result
    }

    /// A small contiguous copy between pageable host memory and device memory:
    /// one synchronous driver copy, which for small pageable sources the driver
    /// writes inline (measured faster than staging through pinned memory and
    /// then synchronising; docs/BENCHMARKS.md). `Ok(false)` when the copy is
    /// not such a one.
    ///
    /// # Safety
    /// As `Backend::copy`; the device's context is bound.
    unsafe fn tiny(&self, dst: (Space, &Region), src: (Space, &Region), plan: &Plan) -> Result<bool> {
        let (ds, dr) = dst;
        let (ss, sr) = src;
        let to_device = ds.kind() == SpaceKind::Cuda && ss.kind() == SpaceKind::Host;
        let to_host = ss.kind() == SpaceKind::Cuda && ds.kind() == SpaceKind::Host;
        if !to_device && !to_host {
            return Ok(false);
        }
        let (run, outer) = (plan.0, &plan.1);
        let bytes = run * dr.elem_size;
        if !outer.is_empty() || bytes > TINY_BYTES {
            return Ok(false);
        }
        // SAFETY: contiguous runs of `bytes` in live allocations; the calls
        // return when the copy is complete.
        unsafe {
            if to_device {
                check(sys::cuMemcpyHtoD_v2(dr.ptr as usize as _, sr.ptr as *const c_void, bytes), "cuMemcpyHtoD")?;
            } else {
                check(sys::cuMemcpyDtoH_v2(dr.ptr as *mut c_void, sr.ptr as usize as _, bytes), "cuMemcpyDtoH")?;
            }
        }
        Ok(true)
    }

    /// Copy through a packed host buffer (strided copies between two devices).
    ///
    /// # Safety
    /// As `Backend::copy`.
    unsafe fn staged(&self, dst: (Space, &Region), src: (Space, &Region), stream: Stream) -> Result<()> {
        let (_, dr) = dst;
        let es = dr.elem_size;
        let packed = DynRank::from_slice_unchecked(dr.extents.as_slice());
        let n: usize = packed.as_slice().iter().product();
        let mut buf = vec![0u8; n * es];
        let tmp = Region {
            ptr: buf.as_mut_ptr(),
            elem_size: es,
            extents: packed,
            strides: Strides::canonical(packed.as_slice(), crate::Layout::Right)?,
        };
        // SAFETY: forwarded contract; `buf` lives until both copies are complete.
        unsafe {
            self.copy((Space::HOST, &tmp), src, stream)?;
            check(sys::cuStreamSynchronize(stream_of(stream)), "cuStreamSynchronize")?;
            self.copy(dst, (Space::HOST, &tmp), stream)?;
            check(sys::cuStreamSynchronize(stream_of(stream)), "cuStreamSynchronize")
        }
    }
}

/// Fill `n` contiguous elements at device address `d` with `value` (an
/// element's bytes) on stream `s`, as a device memset cannot: one small host
/// seed copied in, then device-to-device copies that double the filled
/// prefix. About `n * value.len()` bytes of device traffic; no host buffer of
/// the array's size. Returns once the stream has run it (the seed's host
/// buffer lives only until then).
///
/// # Safety
/// `[d, d + n * value.len())` is live device (or managed) memory; the context is bound.
unsafe fn fill_by_doubling(d: sys::CUdeviceptr, value: &[u8], n: usize, s: sys::CUstream) -> Result<()> {
    let es = value.len();
    let seed_n = n.min((64usize << 10).div_ceil(es).max(1));
    let seed: Vec<u8> = value.iter().copied().cycle().take(seed_n * es).collect();
    // SAFETY: the seed lies in the first `seed_n` elements; the host buffer
    // lives until the stream has run the copy (synchronised below).
    unsafe {
        check(sys::cuMemcpyHtoDAsync_v2(d, seed.as_ptr() as *const c_void, seed_n * es, s), "cuMemcpyHtoDAsync")?;
        let mut filled = seed_n;
        while filled < n {
            let k = filled.min(n - filled);
            check(sys::cuMemcpyDtoDAsync_v2(d + (filled * es) as sys::CUdeviceptr, d, k * es, s), "cuMemcpyDtoDAsync")?;
            filled += k;
        }
        check(sys::cuStreamSynchronize(s), "cuStreamSynchronize")
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
            unsafe { sys::cuMemHostRegister_v2(addr as *mut c_void, len, sys::CU_MEMHOSTREGISTER_PORTABLE) },
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
