//! Copies planned once ([`copy_bound`]): the tiny path (G8, part of it
//! staged), a staged copy (`stage.rs`), or the driver copies `raw::issue` queues
//! (contiguous, peer, 2D; strided copies between two devices through a
//! packed host buffer, G3).

use super::{mem, pipeline, raw, stage, Engine, Mem};
use crate::error::Result;
use crate::extents::DynRank;
use crate::layout::Strides;
use crate::memory::{Held, Pair};
use crate::space::{Region, Stream};

/// Copies up to this many contiguous bytes between pageable host memory and a
/// device take the tiny path (one driver copy on the default stream, G8).
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

/// One side of a copy: the held region, what memory it is and its device,
/// both read from the region's space.
#[derive(Clone, Copy)]
pub(super) struct End<'a> {
    mem: Mem,
    device: u32,
    held: Held<'a>,
}

impl<'a> End<'a> {
    /// The side `held` is.
    pub(super) fn of(held: &Held<'a>) -> End<'a> {
        End { mem: mem(held.space()), device: held.space().ordinal(), held: *held }
    }

    /// What memory it is.
    pub(super) fn mem(&self) -> Mem {
        self.mem
    }

    /// Its device.
    pub(super) fn device(&self) -> u32 {
        self.device
    }

    /// The region.
    pub(super) fn region(&self) -> &Region {
        self.held.region()
    }
}

/// One copy on the bound device (a device party at least), planned once: the tiny path (one
/// driver copy) on the default stream when it applies, otherwise queued on
/// `stream`. True when something was queued, the tiny path's copy to the
/// device from `pageable` memory included (the caller synchronises the
/// default stream). With `pageable` host memory (not page-locked now), a large
/// copy on the default stream takes the pipeline (`pipeline.rs`, complete on
/// return), and one on another stream is staged (`stage.rs`): never synchronous.
pub(super) fn copy_bound(e: &'static Engine, pair: &Pair<'_>, stream: Stream, pageable: bool) -> Result<bool> {
    let Some(p) = raw::plan_of(pair) else {
        return Ok(false); // nothing to copy
    };
    let (dst, src) = (End::of(pair.dst()), End::of(pair.src()));
    stage::other_work_queued(); // this copy follows any host function queued before
    if stream.is_null() && tiny(dst, src, &p) {
        if pageable && staged(dst.mem() == Mem::Device, &p) {
            stage::small(e, pair)?; // complete on return
            return Ok(false);
        }
        if dst.mem() == Mem::Device && pageable {
            // Landed by the caller's wait for the default stream (G8); the synchronous copy
            // would land no sooner and first waits for that stream, which G5's fence has
            // already emptied.
            raw::issue(e, &p, stream)?;
            return Ok(true);
        }
        raw::copy_now(e, &p)?; // complete on return: to the host, or from page-locked memory
        return Ok(false);
    }
    if let Some(bytes) = p.contiguous_bytes().filter(|&b| between_pageable(dst, src) && pipeline::wants(b, dst.region().elem_size, stream, pageable)) {
        let device = if dst.mem() == Mem::Device { dst.device() } else { src.device() };
        pipeline::copy(e, pair, bytes, device)?;
        return Ok(false);
    }
    let bytes = pair.dst().len() * dst.region().elem_size;
    if stage::wants_stage(dst.mem, src.mem, bytes, stream, pageable) {
        stage::stage(e, pair, stream)?;
        return Ok(true);
    }
    raw::issue(e, &p, stream)?;
    Ok(true)
}

/// Whether a copy takes the tiny path: small and contiguous, between
/// pageable host memory and device memory (G8): with memory not page-locked,
/// through a pinned buffer to the host, and to the device above
/// [`STAGED_TO_DEVICE`]; otherwise one driver copy (with page-locked memory
/// the synchronous copy, complete on return; to the device from pageable
/// memory the asynchronous one on the default stream, landed by the caller's
/// wait for that stream).
fn tiny(dst: End<'_>, src: End<'_>, p: &raw::Planned<'_, '_>) -> bool {
    between_pageable(dst, src) && p.contiguous_bytes().is_some_and(|b| b <= TINY_BYTES)
}

/// A blocking tiny copy to the device from memory not page-locked runs through
/// a pinned buffer above this many bytes (G8: faster from 64 KiB, slower up to
/// 16 KiB, even at 32 KiB on an H100); one to the host at any size.
const STAGED_TO_DEVICE: usize = 32 << 10;

/// Whether a tiny copy of pageable memory runs through a pinned buffer ([`stage::small`]).
fn staged(to_device: bool, p: &raw::Planned<'_, '_>) -> bool {
    !to_device || p.contiguous_bytes().is_some_and(|b| b > STAGED_TO_DEVICE)
}

/// Whether a copy runs between pageable host memory and device memory.
fn between_pageable(dst: End<'_>, src: End<'_>) -> bool {
    matches!((dst.mem, src.mem), (Mem::Device, Mem::Pageable) | (Mem::Pageable, Mem::Device))
}
