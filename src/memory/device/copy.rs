//! Copies planned once ([`copy_bound`]), queued as contiguous, peer or 2D
//! driver copies ([`issue`]), the tiny synchronous path (G8), and strided
//! copies between two devices through a packed host buffer (G3).

use super::{mem, stage, Copy2D, Dir, Engine, Mem};
use crate::error::{err, Result};
use crate::extents::DynRank;
use crate::layout::{for_each_outer, plan, Plan, Strides};
use crate::space::{Region, Space, Stream};

/// Copies up to this many contiguous bytes between pageable host memory and a
/// device take the tiny path (one synchronous driver copy).
pub(crate) const TINY_BYTES: usize = 64 << 10;

/// A dense block with `r`'s extents, its axes ordered as `r`'s strides order
/// them, at `ptr`: a copy between the two keeps `r`'s contiguous runs (a
/// packed Left subview stays Left, so its copies stay 2D, never per element).
pub(super) fn packed_like(r: &Region, ptr: *mut u8) -> Region {
    let ext = r.extents.as_slice();
    let mut axes: Vec<usize> = (0..ext.len()).collect();
    axes.sort_by_key(|&k| (r.strides.as_slice()[k], k));
    let mut strides = vec![0; ext.len()];
    let mut acc = 1;
    for k in axes {
        strides[k] = acc;
        acc *= ext[k];
    }
    Region { ptr, elem_size: r.elem_size, extents: DynRank::from_slice_unchecked(ext), strides: Strides::from_slice(&strides) }
}

/// One side of a copy: the region, what memory it is, and its device.
#[derive(Clone, Copy)]
pub(super) struct End<'a> {
    pub mem: Mem,
    pub device: u32,
    pub region: &'a Region,
}

impl<'a> End<'a> {
    /// `region` of `space`.
    pub(super) fn of(space: Space, region: &'a Region) -> End<'a> {
        End { mem: mem(space), device: space.ordinal(), region }
    }
}

/// One copy on the bound device (a device party at least), planned once: the tiny path (one
/// synchronous driver copy) on the default stream when it applies, otherwise
/// queued on `stream`. True when something was queued (the caller
/// synchronises the default stream). On another stream a copy with
/// `pageable` host memory is staged (`stage.rs`): never synchronous.
///
/// # Safety
/// Both regions lie inside live allocations of their memories and do not
/// overlap; nobody else accesses them until the copy has run; the device of
/// the copy is bound.
pub(super) unsafe fn copy_bound(e: &'static Engine, dst: End<'_>, src: End<'_>, stream: Stream, pageable: bool) -> Result<bool> {
    let (dr, sr) = (dst.region, src.region);
    let Some(p) = plan(dr.extents.as_slice(), dr.strides.as_slice(), sr.strides.as_slice()) else {
        return Ok(false); // nothing to copy
    };
    stage::other_work_queued(); // this copy follows any host function queued before
    // SAFETY (both): forwarded contract.
    if stream.is_null() && unsafe { tiny(e, dst, src, &p)? } {
        return Ok(false);
    }
    let bytes = dr.extents.as_slice().iter().product::<usize>() * dr.elem_size;
    if stage::wants_stage(dst.mem, src.mem, bytes, stream, pageable) {
        // SAFETY: forwarded contract.
        unsafe { stage::stage(e, dst, src, stream)? };
        return Ok(true);
    }
    // SAFETY: forwarded contract.
    unsafe { issue(e, dst, src, &p, stream)? };
    Ok(true)
}

/// Queue the copy of [`copy_bound`] on `stream`, as `plan` lays it out.
///
/// # Safety
/// As [`copy_bound`].
pub(super) unsafe fn issue(e: &'static Engine, dst: End<'_>, src: End<'_>, plan: &Plan, stream: Stream) -> Result<()> {
    let (dr, sr) = (dst.region, src.region);
    let (run, outer) = (plan.0, &plan.1);
    let es = dr.elem_size;
    let d = e.driver;
    if dst.mem.on_device() && src.mem.on_device() && dst.device != src.device {
        if outer.is_empty() {
            // SAFETY: contiguous device ranges inside live allocations on two devices.
            return unsafe { d.copy_peer_async(dr.ptr as usize, dst.device, sr.ptr as usize, src.device, run * es, stream) };
        }
        // Strided across devices: through a packed host buffer.
        // SAFETY: forwarded contract; the buffer outlives both copies.
        return unsafe { through_host(e, dst, src, stream) };
    }
    if outer.is_empty() {
        let dir = match (dst.mem.on_device(), src.mem.on_device()) {
            (true, false) => Dir::HtoD,
            (false, true) => Dir::DtoH,
            _ => Dir::DtoD,
        };
        // SAFETY: one contiguous range in each live allocation.
        return unsafe { d.copy_async(dr.ptr as usize, sr.ptr as usize, run * es, dir, stream) };
    }
    // Strided: one 2D copy per combination of the outer axes beyond the first.
    let (height, dpitch, spitch) = outer[0];
    let mut outcome = Ok(());
    for_each_outer(&outer[1..], |doff, soff| {
        if outcome.is_err() {
            return;
        }
        let c = Copy2D {
            dst: dr.ptr as usize + doff * es,
            dst_mem: dst.mem,
            dst_pitch: dpitch * es,
            src: sr.ptr as usize + soff * es,
            src_mem: src.mem,
            src_pitch: spitch * es,
            width: run * es,
            height,
        };
        // SAFETY: the rows lie inside both live regions.
        outcome = unsafe { d.copy_2d_async(&c, stream) };
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
/// As [`copy_bound`].
unsafe fn tiny(e: &Engine, dst: End<'_>, src: End<'_>, plan: &Plan) -> Result<bool> {
    let dir = match (dst.mem, src.mem) {
        (Mem::Device, Mem::Pageable) => Dir::HtoD,
        (Mem::Pageable, Mem::Device) => Dir::DtoH,
        _ => return Ok(false),
    };
    let bytes = plan.0 * dst.region.elem_size;
    if !plan.1.is_empty() || bytes > TINY_BYTES {
        return Ok(false);
    }
    // SAFETY: contiguous runs of `bytes` in live allocations; complete on return.
    unsafe { e.driver.copy(dst.region.ptr as usize, src.region.ptr as usize, bytes, dir)? };
    Ok(true)
}

/// Copy through a packed host buffer (strided copies between two devices).
///
/// # Safety
/// As [`copy_bound`].
unsafe fn through_host(e: &'static Engine, dst: End<'_>, src: End<'_>, stream: Stream) -> Result<()> {
    let dr = dst.region;
    let es = dr.elem_size;
    let n: usize = dr.extents.as_slice().iter().product();
    let mut buf = vec![0u8; n * es];
    let tmp = packed_like(dr, buf.as_mut_ptr());
    let host_end = End { mem: Mem::Pageable, device: 0, region: &tmp };
    let d = e.driver;
    let step = |to: End<'_>, from: End<'_>, device: u32| -> Result<()> {
        let p = plan(to.region.extents.as_slice(), to.region.strides.as_slice(), from.region.strides.as_slice())
            .ok_or_else(|| err!(Internal, "a copy through the host of an empty region"))?;
        let _bound = e.bind(device)?;
        // SAFETY: forwarded contract; `buf` lives until both copies are complete (each synchronised).
        let queued = unsafe { issue(e, to, from, &p, stream) };
        let synced = d.stream_synchronize(stream);
        queued.and(synced)
    };
    let r = step(host_end, src, src.device).and_then(|()| step(dst, host_end, dst.device));
    if r.is_err() {
        std::mem::forget(buf); // a failed wait may leave a copy using it: leaked, never freed under it
    }
    r
}
