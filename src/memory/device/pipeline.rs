//! Large synchronous copies between pageable host memory and a device,
//! through a ring of pinned buffers (DECISIONS G24): the device's copy of one
//! chunk runs while the host's threads pack or unpack another. The driver's
//! own pageable copy moves one chunk at a time through its small buffers and,
//! into never-written memory, faults the pages in on one thread (1 GiB: 82 ms
//! into pages faulted in, 307 ms into fresh ones, against 47.5 ms staged on
//! 16 threads; docs/BENCHMARKS.md, "Host memory and the driver's floor").
//!
//! | direction | per chunk, in order |
//! | --- | --- |
//! | device to host | the device copies chunk `k + RING` into a free buffer while the host's threads unpack chunk `k` |
//! | host to device | the host's threads pack chunk `k` into a buffer the device has finished with; the device copies it in |
//!
//! The buffers come from the engine's staging pool (`stage.rs`), kept once made.

use super::{events, mem, raw, stage, Engine, Mark};
use crate::error::Result;
use crate::memory::{host, Held, Pair, LARGE_COPY};
use crate::space::Stream;

/// The bytes of one buffer, the largest chunk. A copy is cut into chunks of
/// a quarter of it, from [`SPLIT`] to this, so that its first and last
/// chunks, which nothing overlaps, are short.
const CHUNK: usize = 32 << 20;
/// The smallest chunk; a pack or unpack of half of it or more runs on every copy thread.
const SPLIT: usize = 2 << 20;
/// Buffers in the ring: the device runs up to `RING - 1` chunks ahead.
const RING: usize = 3;

/// Whether a copy of `bytes` contiguous bytes of `elem_size`-byte elements,
/// pageable host memory on one side, on `stream`, takes the pipeline: the
/// default stream, from [`LARGE_COPY`] bytes, an element that fits a buffer.
pub(super) fn wants(bytes: usize, elem_size: usize, stream: Stream, pageable: bool) -> bool {
    stream.is_null() && pageable && bytes >= LARGE_COPY && elem_size <= CHUNK
}

/// Copy `pair` (one contiguous run of `bytes` in both regions, one of them
/// pageable host memory, the other on device `ordinal`, which is bound) on
/// the default stream; complete on return, failed or not.
pub(super) fn copy(e: &'static Engine, pair: &Pair<'_>, bytes: usize, ordinal: u32) -> Result<()> {
    let es = pair.dst().region().elem_size;
    // By memory, not by host access: the test device's memory is host-readable.
    let to_device = mem(pair.dst().space()).on_device();
    let chunk = ((bytes / 4).clamp(SPLIT, CHUNK) / es).max(1);
    let n = pair.dst().len();
    let chunks = n.div_ceil(chunk);
    let mut bufs = Vec::with_capacity(RING);
    let mut marks: Vec<Option<Mark>> = Vec::new();
    let outcome = (|| {
        for _ in 0..RING.min(chunks) {
            bufs.push(stage::take(e, CHUNK)?); // one size: the pool keeps RING of them
            marks.push(None);
        }
        // Chunk `k` of both regions, and the buffer of its slot holding it packed.
        let part = |k: usize| -> Result<(Held<'_>, Held<'_>, Held<'_>)> {
            let (first, len) = (k * chunk, chunk.min(n - k * chunk));
            let (d, s) = (pair.dst().window(first, len)?, pair.src().window(first, len)?);
            let b = raw::buffer_held(&bufs[k % RING], d.region())?;
            Ok((d, s, b))
        };
        let device_copy = |marks: &mut [Option<Mark>], k: usize, p: Pair<'_>| -> Result<()> {
            raw::issue_pair(e, &p, Stream::null())?;
            marks[k % RING] = events::record(e, ordinal, Stream::null())?;
            Ok(())
        };
        // The buffer of chunk `k`'s slot is free once the device is done with chunk `k - RING`.
        let wait = |marks: &mut [Option<Mark>], k: usize| -> Result<()> {
            match marks[k % RING].take() {
                Some(m) => {
                    let waited = events::wait(e, ordinal, &m);
                    events::release(e, ordinal, m);
                    waited
                }
                None => Ok(()),
            }
        };
        if to_device {
            for k in 0..chunks {
                wait(&mut marks, k)?;
                let (d, s, b) = part(k)?;
                host::copy_split(&Pair::new(b, s)?, SPLIT / 2)?;
                device_copy(&mut marks, k, Pair::new(d, b.read_only())?)?;
            }
            return (0..chunks).try_for_each(|k| wait(&mut marks, k));
        }
        for k in 0..RING.min(chunks) {
            let (_, s, b) = part(k)?;
            device_copy(&mut marks, k, Pair::new(b, s)?)?;
        }
        for k in 0..chunks {
            wait(&mut marks, k)?;
            let (d, _, b) = part(k)?;
            host::copy_split(&Pair::new(d, b.read_only())?, SPLIT / 2)?;
            if k + RING < chunks {
                let (_, s, b) = part(k + RING)?;
                device_copy(&mut marks, k + RING, Pair::new(b, s)?)?;
            }
        }
        Ok(())
    })();
    // Failed part way: the copies queued still run into (or from) the buffers; they go back to
    // the pool once the stream is idle, and are leaked when that wait fails too.
    let idle = outcome.is_ok() || e.driver.stream_synchronize(None).is_ok();
    for m in marks.into_iter().flatten() {
        events::release(e, ordinal, m);
    }
    if idle {
        bufs.into_iter().for_each(|b| stage::give_back(e, b));
    } // else dropped: a `Buffer` is never freed, so leaked
    outcome
}
