//! Fills of device memory: one memset of the widest word that repeats the
//! element (1, 2 or 4 bytes), otherwise a seed doubled by device copies, and
//! any strides through a packed scratch block and one strided copy.

use super::copy::{issue, packed_like, End};
use super::{Dir, Engine, Mem, Word};
use crate::error::{err, Result};
use crate::layout::plan;
use crate::space::{Region, Stream};

/// Fill `dst` (device memory of device `ordinal`, bound) with `value`, one
/// element's bytes, on `stream`. Returns once queued (memset) or run (the rest).
///
/// # Safety
/// `dst` lies inside live device memory of the bound device; nobody else accesses it meanwhile.
pub(super) unsafe fn fill(e: &'static Engine, ordinal: u32, dst: &Region, value: &[u8], stream: Stream) -> Result<()> {
    let es = dst.elem_size;
    let n: usize = dst.extents.as_slice().iter().product();
    if n == 0 {
        return Ok(());
    }
    let d = e.driver;
    let contiguous = plan(dst.extents.as_slice(), dst.strides.as_slice(), dst.strides.as_slice()).is_some_and(|(_, outer)| outer.is_empty());
    let at = dst.ptr as usize;
    if contiguous {
        let word = if value.iter().all(|&b| b == value[0]) {
            Some((Word::W8(value[0]), n * es))
        } else if es.is_multiple_of(4) && value.chunks(4).all(|c| c == &value[..4]) {
            Some((Word::W32(u32::from_ne_bytes(value[..4].try_into().expect("4 bytes"))), n * es / 4))
        } else if es.is_multiple_of(2) && value.chunks(2).all(|c| c == &value[..2]) {
            Some((Word::W16(u16::from_ne_bytes(value[..2].try_into().expect("2 bytes"))), n * es / 2))
        } else {
            None
        };
        // SAFETY (both): the region is n contiguous elements of live device memory.
        return match word {
            Some((w, count)) => unsafe { d.memset_async(at, w, count, stream) },
            None => unsafe { by_doubling(e, at, value, n, stream) },
        };
    }
    // Any strides: fill a packed scratch block, then one strided device copy.
    let scratch = d.alloc(n * es, Mem::Device)?;
    let src = packed_like(dst, scratch as *mut u8);
    let p = plan(dst.extents.as_slice(), dst.strides.as_slice(), src.strides.as_slice()).ok_or_else(|| err!(Internal, "fill: an empty strided region"))?;
    let (to, from) = (End { mem: Mem::Device, device: ordinal, region: dst }, End { mem: Mem::Device, device: ordinal, region: &src });
    // SAFETY: the scratch block is n packed elements, freed only after the stream has run both steps.
    let done = unsafe { by_doubling(e, scratch, value, n, stream).and_then(|()| issue(e, to, from, &p, stream)) };
    let synced = d.stream_synchronize(stream);
    if synced.is_ok() {
        // SAFETY: our own block; the stream work using it is complete.
        unsafe { d.free(scratch, n * es, Mem::Device) };
    } // else: work may still use it: leaked, never freed under it
    done.and(synced)
}

/// Fill `n` contiguous elements at device address `at` with `value` on
/// `stream`, as a memset cannot: one small host seed copied in, then
/// device-to-device copies that double the filled prefix. About
/// `n * value.len()` bytes of device traffic; no host buffer of the array's
/// size. Returns once the stream has run it (the seed lives only until then).
///
/// # Safety
/// `[at, at + n * value.len())` is live device (or managed) memory of the bound device.
unsafe fn by_doubling(e: &Engine, at: usize, value: &[u8], n: usize, stream: Stream) -> Result<()> {
    let es = value.len();
    let d = e.driver;
    let seed_n = n.min((64usize << 10).div_ceil(es).max(1));
    let seed: Vec<u8> = value.iter().copied().cycle().take(seed_n * es).collect();
    // SAFETY: the seed lies in the first `seed_n` elements; the host buffer
    // lives until the stream has run the copies (synchronised below, also on failure).
    let queued = (|| unsafe {
        d.copy_async(at, seed.as_ptr() as usize, seed.len(), Dir::HtoD, stream)?;
        let mut filled = seed_n;
        while filled < n {
            let k = filled.min(n - filled);
            d.copy_async(at + filled * es, at, k * es, Dir::DtoD, stream)?;
            filled += k;
        }
        Ok(())
    })();
    let synced = d.stream_synchronize(stream);
    if synced.is_err() {
        std::mem::forget(seed); // a copy may still read it: leaked, never freed under it
    }
    queued.and(synced)
}
