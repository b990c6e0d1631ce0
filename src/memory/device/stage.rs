//! Copies of pageable host memory staged through pinned buffers: queued on
//! a stream, so that they never make the host wait for device work
//! (DECISIONS G13), and blocking ones of at most 64 KiB (to the host, and to
//! the device above 32 KiB), faster than the driver's own staging ([`small`], G8).
//!
//! | copy | at the call | on the stream |
//! | --- | --- | --- |
//! | pageable host to device, queued | pack the host region into a pinned buffer | copy the buffer in; a host function returns it to the pool |
//! | device to pageable host, queued | (nothing) | copy into a pinned buffer; a host function unpacks it into the host region and returns it |
//! | pageable host to device, blocking, over 32 KiB | pack; copy the buffer in; wait; return it | (the default stream) |
//! | device to pageable host, blocking, up to 64 KiB | copy into the buffer; wait; unpack; return it | (the default stream) |
//!
//! The driver's own asynchronous copy of pageable memory returns only once
//! the stream has run it (measured with CUDA: 20 ms behind a 20 ms kernel at
//! 4 KiB and 128 KiB). Copies over [`STAGE_MAX`] keep the driver's path: a
//! mirror that large is registered (page-locked) before its first copy unless
//! the driver refused it or `DV_PAGEABLE_MIRROR` is set.

use super::raw::{self, Job};
use super::{mem, on, Engine, Mem};
use crate::error::Result;
use crate::memory::{host, Block, Pair};
use crate::space::Stream;
use std::sync::{Arc, Condvar, Mutex};

/// The largest asynchronous pageable copy staged through pinned memory.
pub(crate) const STAGE_MAX: usize = 64 << 20;
/// The smallest staging buffer (power-of-two sizes from here).
const STAGE_MIN: usize = 64 << 10;

/// A pinned staging buffer (never freed: the pool keeps it).
pub(super) struct Buffer {
    pub(super) block: Block,
}

impl Buffer {
    fn cap(&self) -> usize {
        self.block.bytes()
    }
}

fn pool(e: &Engine) -> std::sync::MutexGuard<'_, Vec<Buffer>> {
    e.pool.lock().unwrap_or_else(|p| p.into_inner())
}

/// A buffer of at least `bytes`: the smallest free one that fits, or a new one.
pub(super) fn take(e: &Engine, bytes: usize) -> Result<Buffer> {
    {
        let mut p = pool(e);
        if let Some(i) = (0..p.len()).filter(|&i| p[i].cap() >= bytes).min_by_key(|&i| p[i].cap()) {
            return Ok(p.swap_remove(i));
        }
    }
    let cap = bytes.next_power_of_two().max(STAGE_MIN);
    let _bound = e.bind(0)?;
    Ok(Buffer { block: raw::alloc(e, cap, Mem::Pinned)? })
}

/// Return a buffer to the pool (a job that has run).
pub(super) fn give_back(e: &Engine, buf: Buffer) {
    pool(e).push(buf);
}

/// Set by a stream's host function once it has run: the completion of a
/// staged copy, which serves as that copy's event (one submission fewer
/// than recording an event after it).
pub(crate) struct Flag {
    /// The stream the host function was queued on (its own later work needs no wait).
    pub(super) stream: usize,
    done: Mutex<bool>,
    ran: Condvar,
}

impl Flag {
    pub(super) fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.ran.notify_all();
    }
    pub(super) fn is_set(&self) -> bool {
        *self.done.lock().unwrap_or_else(|e| e.into_inner())
    }
    pub(super) fn wait(&self) {
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*d {
            d = self.ran.wait(d).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The host function this thread queued last: its engine, stream and flag.
type Last = Option<(usize, usize, Arc<Flag>)>;

thread_local! {
    /// The host function this thread queued last, when it is the last work
    /// dualview queued on that stream (cleared by every other copy):
    /// `events::record` hands its flag out instead of recording an event.
    static LAST_FLAG: std::cell::RefCell<Last> = const { std::cell::RefCell::new(None) };
}

/// Forget the host function of `LAST_FLAG`: other work follows it.
pub(super) fn other_work_queued() {
    // At thread (or process) exit the slot may be gone: nothing to forget then.
    let _ = LAST_FLAG.try_with(|f| f.borrow_mut().take());
}

/// The flag of the last host function this thread queued, when it was on
/// `stream` of engine `e` and nothing followed it (taken).
pub(super) fn take_last(e: &Engine, stream: Stream) -> Option<Arc<Flag>> {
    let me = e as *const Engine as usize;
    LAST_FLAG
        .try_with(|f| f.borrow_mut().take().filter(|(en, s, _)| *en == me && *s == stream.as_raw()).map(|(_, _, f)| f))
        .ok()
        .flatten()
}

/// Whether a copy from `src` into `dst` on `stream` is one to stage: not the
/// default stream, between pageable host memory and device memory, at most
/// [`STAGE_MAX`] bytes.
pub(super) fn wants_stage(dst: Mem, src: Mem, bytes: usize, stream: Stream, pageable: bool) -> bool {
    let between = matches!((dst, src), (Mem::Device, Mem::Pageable) | (Mem::Pageable, Mem::Device));
    !stream.is_null() && pageable && between && bytes > 0 && bytes <= STAGE_MAX
}

/// Queue a copy between pageable host memory and the device on `stream` (not
/// the default one) through a pinned buffer: the host packs (to the device)
/// now, or a host function on the stream unpacks (to the host) later. The
/// host never waits for the stream.
pub(super) fn stage(e: &'static Engine, pair: &Pair<'_>, stream: Stream) -> Result<()> {
    let (dst, src) = (pair.dst(), pair.src());
    let to_device = !mem(src.space()).on_device();
    let buf = take(e, dst.len() * dst.region().elem_size)?;
    // Packed in the device region's order: its copy keeps the device side's runs.
    let like = if to_device { *dst.region() } else { *src.region() };
    let unpack = (!to_device).then_some(dst);
    if let Err(err) = Job::check(unpack, &like, &buf) {
        give_back(e, buf);
        return Err(err);
    }
    let queued = (|| {
        let w = raw::buffer_held(&buf, &like)?;
        if to_device {
            host::copy(&Pair::new(w, *src)?)?;
            raw::issue_pair(e, &Pair::new(*dst, w.read_only())?, stream)
        } else {
            raw::issue_pair(e, &Pair::new(w, *src)?, stream)
        }
    })();
    let flag = Arc::new(Flag { stream: stream.as_raw(), done: Mutex::new(false), ran: Condvar::new() });
    let job = Job::new(e, unpack, &like, buf, flag.clone());
    if let Err(err) = queued {
        // Whatever was queued must finish before the buffer is reused; when
        // that wait fails too, the buffer is leaked, never reused under a copy.
        if e.driver.stream_synchronize(on(stream)).is_ok() {
            give_back(e, job.into_buffer());
        } else {
            std::mem::forget(job);
        }
        return Err(err);
    }
    if let Err((err, f)) = e.driver.launch_host_fn(on(stream), Box::new(move || job.finish())) {
        // Not queued: run it here once the stream has run the copy (leaked when that wait fails).
        if e.driver.stream_synchronize(on(stream)).is_ok() {
            f();
        } else {
            std::mem::forget(f);
        }
        return Err(err);
    }
    // Gone at thread exit: events::record then records an event instead.
    let me = e as *const Engine as usize;
    let _ = LAST_FLAG.try_with(|f| *f.borrow_mut() = Some((me, stream.as_raw(), flag)));
    Ok(())
}

/// A blocking copy (the default stream) of at most the tiny path's 64 KiB
/// between pageable host memory and the device through a pinned buffer
/// (DECISIONS G8): the host packs it, the device copies it and the caller
/// waits for the stream (to the device), or the device copies it, the caller
/// waits and the host unpacks it (to the host). Complete on return.
pub(super) fn small(e: &'static Engine, pair: &Pair<'_>) -> Result<()> {
    let (dst, src) = (pair.dst(), pair.src());
    let to_device = !mem(src.space()).on_device();
    let buf = take(e, dst.len() * dst.region().elem_size)?;
    let like = if to_device { *dst.region() } else { *src.region() };
    let copied = (|| {
        let w = raw::buffer_held(&buf, &like)?;
        if to_device {
            host::copy(&Pair::new(w, *src)?)?;
            raw::issue_pair(e, &Pair::new(*dst, w.read_only())?, Stream::null())?;
            e.driver.stream_synchronize(None)
        } else {
            raw::issue_pair(e, &Pair::new(w, *src)?, Stream::null())?;
            e.driver.stream_synchronize(None)?;
            host::copy(&Pair::new(*dst, w.read_only())?)
        }
    })();
    // After a failure a copy may still be queued: the buffer goes back once the stream has
    // run it, and is leaked when that wait fails too (a dropped `Block` frees nothing), never
    // reused under a copy.
    if copied.is_ok() || e.driver.stream_synchronize(None).is_ok() {
        if cfg!(miri) {
            // Miri reports a buffer kept for the process's life as leaked (the pool holds its
            // address as an integer): there, each is freed after its copy.
            raw::free(e, buf.block, Mem::Pinned);
        } else {
            give_back(e, buf);
        }
    }
    copied
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_small_pageable_copies_on_a_stream_are_staged() {
        use super::{wants_stage, Mem, STAGE_MAX};
        use crate::space::Stream;
        let s = Stream::from_raw(0x10);
        assert!(wants_stage(Mem::Device, Mem::Pageable, 4096, s, true));
        assert!(wants_stage(Mem::Pageable, Mem::Device, STAGE_MAX, s, true));
        assert!(!wants_stage(Mem::Pageable, Mem::Device, STAGE_MAX + 1, s, true), "large: the driver's path");
        assert!(!wants_stage(Mem::Pageable, Mem::Device, 4096, Stream::null(), true), "the default stream: the tiny path");
        assert!(!wants_stage(Mem::Pageable, Mem::Device, 4096, s, false), "page-locked: the driver's own async copy");
        assert!(!wants_stage(Mem::Pinned, Mem::Device, 4096, s, true));
        assert!(!wants_stage(Mem::Device, Mem::Managed, 4096, s, true));
    }
}
