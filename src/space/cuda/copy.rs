//! The CUDA copies: one copy planned once ([`CudaBackend::copy_bound`]), queued
//! as contiguous, peer or 2D driver copies ([`CudaBackend::issue`]), the tiny
//! synchronous path (G8), strided copies between two devices through a host
//! buffer (G3), and the pattern fill by doubling.

use super::{check, driver, on_device, stream_of, CudaBackend, TINY_BYTES};
use crate::extents::DynRank;
use crate::layout::{for_each_outer, plan, Plan, Strides};
use crate::space::{host, Backend, Region, Space, SpaceKind, Stream};
use crate::error::{err, Result};
use cudarc::driver::{result, sys};
use std::ffi::c_void;

/// How the driver sees an address of a space.
fn memtype(space: Space) -> sys::CUmemorytype {
    match space.kind() {
        SpaceKind::Cuda => sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        SpaceKind::CudaUvm => sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        _ => sys::CUmemorytype::CU_MEMORYTYPE_HOST,
    }
}

impl CudaBackend {
    /// One copy of `Backend::copy` on the bound context, planned once: the
    /// tiny path (one synchronous driver copy) on the default stream when it
    /// applies, otherwise queued on `stream`. True when something was queued
    /// (the caller synchronises the default stream). On another stream a copy
    /// with `pageable` host memory is staged (`stream.rs`): never synchronous.
    ///
    /// # Safety
    /// As `Backend::copy`; the context of the device involved is bound.
    pub(super) unsafe fn copy_bound(&self, dst: (Space, &Region), src: (Space, &Region), stream: Stream, pageable: bool) -> Result<bool> {
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
        super::stream::other_work_queued(); // this copy follows any host function queued before
        // SAFETY (both): forwarded contract.
        if stream.is_null() && unsafe { self.tiny(dst, src, &p)? } {
            return Ok(false);
        }
        let bytes = dr.extents.as_slice().iter().product::<usize>() * dr.elem_size;
        if super::stream::wants_stage(ds, ss, bytes, stream, pageable) {
            // SAFETY: forwarded contract.
            unsafe { self.stage(dst, src, stream)? };
            return Ok(true);
        }
        unsafe { self.issue(dst, src, &p, stream)? };
        Ok(true)
    }

    /// Queue the copy of `Backend::copy` on `stream`, as `plan` lays it out.
    ///
    /// # Safety
    /// As `Backend::copy`; the context of the device involved is bound.
    pub(super) unsafe fn issue(&self, dst: (Space, &Region), src: (Space, &Region), plan: &Plan, stream: Stream) -> Result<()> {
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
                    unsafe { result::memcpy_peer_async(dctx, dr.ptr as usize as _, sctx, sr.ptr as usize as _, run * es, s) },
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
                    (true, false) => sys::cuMemcpyHtoDAsync_v2(dr.ptr as usize as _, sr.ptr as *const c_void, bytes, s).result(),
                    (false, true) => sys::cuMemcpyDtoHAsync_v2(dr.ptr as *mut c_void, sr.ptr as usize as _, bytes, s).result(),
                    _ => result::memcpy_dtod_async(dr.ptr as usize as _, sr.ptr as usize as _, bytes, s),
                }
            };
            return check(r, "cuMemcpyAsync");
        }
        // Strided: one 2D copy per combination of the outer axes beyond the first.
        let (height, dpitch, spitch) = outer[0];
        let mut outcome = Ok(());
        for_each_outer(&outer[1..], |doff, soff| {
            if outcome.is_err() {
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
            outcome = check(unsafe { sys::cuMemcpy2DAsync_v2(&p, s) }.result(), "cuMemcpy2DAsync");
        });
        outcome
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
                check(sys::cuMemcpyHtoD_v2(dr.ptr as usize as _, sr.ptr as *const c_void, bytes).result(), "cuMemcpyHtoD")?;
            } else {
                check(sys::cuMemcpyDtoH_v2(dr.ptr as *mut c_void, sr.ptr as usize as _, bytes).result(), "cuMemcpyDtoH")?;
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
            check(result::stream::synchronize(stream_of(stream)), "cuStreamSynchronize")?;
            self.copy(dst, (Space::HOST, &tmp), stream)?;
            check(result::stream::synchronize(stream_of(stream)), "cuStreamSynchronize")
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
pub(super) unsafe fn fill_by_doubling(d: sys::CUdeviceptr, value: &[u8], n: usize, s: sys::CUstream) -> Result<()> {
    let es = value.len();
    let seed_n = n.min((64usize << 10).div_ceil(es).max(1));
    let seed: Vec<u8> = value.iter().copied().cycle().take(seed_n * es).collect();
    // SAFETY: the seed lies in the first `seed_n` elements; the host buffer
    // lives until the stream has run the copy (synchronised below).
    unsafe {
        check(result::memcpy_htod_async(d, seed.as_slice(), s), "cuMemcpyHtoDAsync")?;
        let mut filled = seed_n;
        while filled < n {
            let k = filled.min(n - filled);
            check(result::memcpy_dtod_async(d + (filled * es) as sys::CUdeviceptr, d, k * es, s), "cuMemcpyDtoDAsync")?;
            filled += k;
        }
        check(result::stream::synchronize(s), "cuStreamSynchronize")
    }
}
