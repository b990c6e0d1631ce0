//! Large synchronous copies between pageable host memory and a device,
//! through pinned buffers (DECISIONS G24): the device's copy of one part runs
//! while the host's threads pack or unpack another. The driver's own pageable
//! copy moves one chunk at a time through its small buffers and, into
//! never-written memory, faults the pages in on one thread (1 GiB: 82 ms into
//! pages faulted in, 307 ms into fresh ones; docs/BENCHMARKS.md, "Host memory
//! and the driver's floor").
//!
//! | direction | how |
//! | --- | --- |
//! | host to device, and to the host below [`LANES_MIN`] | a ring: the host's threads pack chunk `k` into a buffer the device has finished with; the device copies it in |
//! | device to host, from [`LANES_MIN`] | lanes: each copy thread has its own stream, [`DEPTH`] buffers and its own slice of the host region, cut into pieces at [`PIECE`] boundaries of the host's addresses (one huge page each); the device copies its next piece while it unpacks the last, meeting no other thread (1 GiB into never-written memory on an H100: 35.5 ms against the ring's 44.1 in `benches/pipeline_probe.cu`) |
//!
//! The buffers come from the engine's staging pool (`stage.rs`), the lanes'
//! streams from the engine's own (kept once made).

use super::{events, mem, raw, stage, Engine, Mark, StreamHandle};
use crate::error::{bail, err, Error, Result};
use crate::memory::{host, Held, Pair, LARGE_COPY};
use crate::space::Stream;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The bytes of one buffer, the largest chunk. A copy is cut into chunks of
/// a quarter of it, from [`SPLIT`] to this, so that its first and last
/// chunks, which nothing overlaps, are short.
const CHUNK: usize = 32 << 20;
/// The smallest chunk; a pack or unpack of half of it or more runs on every copy thread.
const SPLIT: usize = 2 << 20;
/// Buffers in the ring: the device runs up to `RING - 1` chunks ahead.
const RING: usize = 3;
/// The bytes of a lane's piece and buffer: one huge page of the host region.
const PIECE: usize = 2 << 20;
/// A lane's buffers: its device copies up to `DEPTH - 1` pieces ahead.
const DEPTH: usize = 2;
/// The largest element copied in lanes (larger ones take the ring).
const LANE_ELEM_MAX: usize = 4096;
/// The smallest copy to the host that runs in lanes (smaller ones take the ring,
/// measured in the gate runs; with up to 16 copy threads every lane has two pieces or more).
const LANES_MIN: usize = 64 << 20;

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
    // By memory, not by host access: the test device's memory is host-readable.
    let to_device = mem(pair.dst().space()).on_device();
    if !to_device && bytes >= LANES_MIN && pair.dst().region().elem_size <= LANE_ELEM_MAX {
        return lanes(e, pair, ordinal);
    }
    ring(e, pair, bytes, ordinal, to_device)
}

/// [`copy`] through a ring of [`RING`] buffers, every chunk packed or unpacked by every copy thread.
fn ring(e: &'static Engine, pair: &Pair<'_>, bytes: usize, ordinal: u32, to_device: bool) -> Result<()> {
    let es = pair.dst().region().elem_size;
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
            marks[k % RING].take().map_or(Ok(()), |m| wait_for(e, ordinal, m))
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
    finish(e, ordinal, None, outcome, marks, bufs)
}

/// The end of a ring or a lane on `stream`: its marks released, its buffers back
/// in the pool. Failed part way, the copies queued still run into (or from) the
/// buffers: they go back once the stream is idle, and are leaked when that wait fails too.
fn finish(e: &Engine, ordinal: u32, stream: Option<StreamHandle>, outcome: Result<()>, marks: Vec<Option<Mark>>, bufs: Vec<stage::Buffer>) -> Result<()> {
    let idle = outcome.is_ok() || e.driver.stream_synchronize(stream).is_ok();
    for m in marks.into_iter().flatten() {
        events::release(e, ordinal, m);
    }
    if idle {
        bufs.into_iter().for_each(|b| stage::give_back(e, b));
    } // else dropped: a `Buffer` is never freed, so leaked
    outcome
}

/// Wait on the host for `m`, then release it.
fn wait_for(e: &Engine, ordinal: u32, m: Mark) -> Result<()> {
    let waited = events::wait(e, ordinal, &m);
    events::release(e, ordinal, m);
    waited
}

/// [`copy`] to the host in lanes: one per copy thread (at most one per piece),
/// each over its own run of pieces, on its own stream.
fn lanes(e: &'static Engine, pair: &Pair<'_>, ordinal: u32) -> Result<()> {
    let dst = pair.dst().region();
    let cuts = Cuts::new(dst.ptr as usize, dst.elem_size, pair.dst().len());
    let lanes = host::copy_threads().min(cuts.pieces);
    // After the default stream's work so far, as the driver's copy on it would be (a
    // blocking sync has fenced the device already, G5: this covers any other caller).
    if let Some(m) = events::record(e, ordinal, Stream::null())? {
        wait_for(e, ordinal, m)?;
    }
    let streams = take_streams(e, ordinal, lanes)?;
    // The lanes that failed, in the order they did: the first error is the copy's, and their
    // streams may still hold work, so they are not kept.
    let failed: Mutex<Vec<(usize, Error)>> = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let shared = raw::Shared(pair);
    let each = |i: usize| {
        let run = i * cuts.pieces / lanes..(i + 1) * cuts.pieces / lanes;
        // A panic stays in its lane: the others finish, the streams go back, the copy fails.
        let done = std::panic::catch_unwind(AssertUnwindSafe(|| lane(e, shared.pair(), ordinal, streams[i], run, &cuts, &stop)))
            .unwrap_or_else(|_| Err(err!(Internal, "a lane of a copy to the host panicked (a dualview bug)")));
        if let Err(err) = done {
            // The error first, then the stop: a lane that stops never reports before it.
            failed.lock().unwrap_or_else(|p| p.into_inner()).push((i, err));
            stop.store(true, Ordering::Release);
        }
    };
    host::run_scoped(lanes, &each);
    let failed = failed.into_inner().unwrap_or_else(|p| p.into_inner());
    let kept = streams.iter().enumerate().filter(|(i, _)| !failed.iter().any(|(f, _)| f == i)).map(|(_, &s)| s).collect();
    give_streams(e, ordinal, kept);
    failed.into_iter().next().map_or(Ok(()), |(_, err)| Err(err))
}

/// How a copy of `n` elements of `es` bytes to host address `addr` is cut into
/// pieces: piece 0 ends at the first [`PIECE`] boundary of the host addresses (or
/// holds a piece's elements when that boundary lies within the first element),
/// each later one holds `per` elements; every piece is of 1 to [`PIECE`] bytes.
#[derive(Clone, Copy, Debug)]
struct Cuts {
    n: usize,
    first: usize,
    per: usize,
    pieces: usize,
}

impl Cuts {
    /// The cuts of `n` (at least 1) elements of `es` bytes (1 to [`PIECE`]) from `addr`.
    fn new(addr: usize, es: usize, n: usize) -> Cuts {
        let per = PIECE / es;
        let first = match (PIECE - addr % PIECE) / es {
            0 => per,
            f => f,
        };
        let pieces = if n <= first { 1 } else { 1 + (n - first).div_ceil(per) };
        Cuts { n, first, per, pieces }
    }

    /// The first element of piece `k` (`n` for `k == pieces`).
    fn at(&self, k: usize) -> usize {
        if k == 0 { 0 } else { (self.first + (k - 1) * self.per).min(self.n) }
    }
}

/// One lane: pieces `run` of `pair` (piece `k`: elements `cuts.at(k)..cuts.at(k + 1)`),
/// copied on `stream` into the lane's buffers and unpacked on this thread; it
/// stops before its next piece once `stop` is set (another lane failed).
/// Complete on return, failed or not (a buffer whose copy may still run is leaked).
fn lane(e: &'static Engine, pair: &Pair<'_>, ordinal: u32, handle: StreamHandle, run: Range<usize>, cuts: &Cuts, stop: &AtomicBool) -> Result<()> {
    let stream = handle.stream();
    let _bound = e.bind(ordinal)?;
    let mut bufs = Vec::with_capacity(DEPTH);
    let mut marks: Vec<Option<Mark>> = (0..DEPTH).map(|_| None).collect();
    let outcome = (|| {
        for _ in 0..DEPTH.min(run.len()) {
            bufs.push(stage::take(e, PIECE)?); // one size: the pool keeps them
        }
        // The slot (buffer and mark) of piece `k`: the lane's own count, from its first piece.
        let slot = |k: usize| (k - run.start) % DEPTH;
        // Piece `k` of both regions, and the buffer of its slot holding it packed.
        let part = |k: usize| -> Result<(Held<'_>, Held<'_>, Held<'_>)> {
            let (a, len) = (cuts.at(k), cuts.at(k + 1) - cuts.at(k));
            let (d, s) = (pair.dst().window(a, len)?, pair.src().window(a, len)?);
            let b = raw::buffer_held(&bufs[slot(k)], d.region())?;
            Ok((d, s, b))
        };
        let issue = |marks: &mut [Option<Mark>], k: usize| -> Result<()> {
            let (_, s, b) = part(k)?;
            raw::issue_pair(e, &Pair::new(b, s)?, stream)?;
            marks[slot(k)] = events::record(e, ordinal, stream)?;
            Ok(())
        };
        for k in run.start..(run.start + DEPTH).min(run.end) {
            issue(&mut marks, k)?;
        }
        for k in run.clone() {
            if stop.load(Ordering::Acquire) {
                bail!(Internal, "stopped: another lane of the copy failed"); // the first error is reported
            }
            if let Some(m) = marks[slot(k)].take() {
                wait_for(e, ordinal, m)?;
            }
            let (d, _, b) = part(k)?;
            host::copy_split(&Pair::new(d, b.read_only())?, usize::MAX)?; // on this thread
            if k + DEPTH < run.end {
                issue(&mut marks, k + DEPTH)?;
            }
        }
        Ok(())
    })();
    finish(e, ordinal, Some(handle), outcome, marks, bufs)
}

/// `n` streams of device `ordinal` for lanes: idle ones of the engine, or new ones.
fn take_streams(e: &Engine, ordinal: u32, n: usize) -> Result<Vec<StreamHandle>> {
    let mut got: Vec<StreamHandle> = {
        let mut idle = e.lanes.lock().unwrap_or_else(|p| p.into_inner());
        let mut got = Vec::with_capacity(n);
        idle.retain(|&(o, s)| {
            let take = o == ordinal && got.len() < n;
            if take {
                got.push(s);
            }
            !take
        });
        got
    };
    while got.len() < n {
        let made = e.bind(ordinal).and_then(|_bound| e.driver.stream_create());
        match made {
            Ok(s) => got.push(s),
            Err(err) => {
                give_streams(e, ordinal, got);
                return Err(err);
            }
        }
    }
    Ok(got)
}

/// Give streams from [`take_streams`] back to the engine (never released: kept for the process).
fn give_streams(e: &Engine, ordinal: u32, streams: Vec<StreamHandle>) {
    e.lanes.lock().unwrap_or_else(|p| p.into_inner()).extend(streams.into_iter().map(|s| (ordinal, s)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cut covers `0..n` exactly, in pieces of 1 to `PIECE` bytes, at piece
    /// boundaries of the host addresses where the element size divides `PIECE`.
    #[test]
    fn cuts_cover_every_element_once_in_pieces_of_at_most_a_buffer() {
        let sizes = [1, 2, 3, 4, 8, 12, 16, 24, 40, 100, 1000, 4096, PIECE / 2 + 1, PIECE];
        let offsets = [0, 1, 8, 4095, 4096, PIECE / 2, PIECE - 8, PIECE - 1];
        for es in sizes {
            for off in offsets {
                let addr = 7 * PIECE + off;
                for n in [1, 2, 3, PIECE / es, PIECE / es + 1, 3 * PIECE / es + 5, 40 * PIECE / es] {
                    let n = n.max(1);
                    let c = Cuts::new(addr, es, n);
                    assert_eq!(c.at(0), 0);
                    assert_eq!(c.at(c.pieces), n, "es {es} off {off} n {n}: the last cut is the end");
                    for k in 0..c.pieces {
                        let bytes = (c.at(k + 1) - c.at(k)) * es;
                        assert!(bytes > 0 && bytes <= PIECE, "es {es} off {off} n {n} piece {k}: {bytes} bytes");
                        if k > 0 && PIECE.is_multiple_of(es) && off.is_multiple_of(es) {
                            assert_eq!((addr + c.at(k) * es) % PIECE, 0, "es {es} off {off} piece {k} starts on a boundary");
                        }
                    }
                }
            }
        }
    }
}
