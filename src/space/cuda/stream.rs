//! Streams, events, and asynchronous copies of pageable host memory staged
//! through pinned buffers, so that a copy queued on a stream never makes the
//! host wait for device work (DECISIONS G13).
//!
//! | direction | at the call | on the stream |
//! | --- | --- | --- |
//! | pageable host to device | pack the host region into a pinned buffer | copy the buffer in; a host function returns it to the pool |
//! | device to pageable host | (nothing) | copy into a pinned buffer; a host function unpacks it into the host region and returns it |
//!
//! The driver's own asynchronous copy of pageable memory returns only once
//! the stream has run it (measured: 20 ms behind a 20 ms kernel at 4 KiB and
//! 128 KiB). Copies over [`STAGE_MAX`] keep the driver's path: a mirror that
//! large is registered (page-locked) before its first copy unless the driver
//! refused it or `DV_PAGEABLE_MIRROR` is set.

use super::{bind, check, CudaBackend};
use crate::error::Result;
use crate::extents::DynRank;
use crate::layout::{plan, Strides};
use crate::space::{host, Region, Space, Stream};
use cudarc::driver::result;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::sync::Mutex;

/// The largest asynchronous pageable copy staged through pinned memory.
pub(super) const STAGE_MAX: usize = 64 << 20;
/// The smallest staging buffer (power-of-two sizes from here).
const STAGE_MIN: usize = 64 << 10;

/// A pinned staging buffer (from `cuMemHostAlloc`, portable).
struct Buffer {
    ptr: usize,
    cap: usize,
}

/// Buffers not in use. Taken at a call, given back by a stream's host
/// function (which may not call the driver, so buffers are never freed there).
static POOL: Mutex<Vec<Buffer>> = Mutex::new(Vec::new());

fn pool() -> std::sync::MutexGuard<'static, Vec<Buffer>> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A buffer of at least `bytes`: the smallest free one that fits, or a new one.
fn take(bytes: usize) -> Result<Buffer> {
    {
        let mut p = pool();
        if let Some(i) = (0..p.len()).filter(|&i| p[i].cap >= bytes).min_by_key(|&i| p[i].cap) {
            return Ok(p.swap_remove(i));
        }
    }
    let cap = bytes.next_power_of_two().max(STAGE_MIN);
    let _bound = bind(0)?;
    // SAFETY: a plain allocation; portable, so every context may copy from it.
    let ptr = check(unsafe { result::malloc_host(cap, sys::CU_MEMHOSTALLOC_PORTABLE) }, "cuMemHostAlloc")?;
    Ok(Buffer { ptr: ptr as usize, cap })
}

/// Set by a stream's host function once it has run: the completion of a
/// staged copy, which serves as that copy's event (one submission fewer
/// than recording a CUDA event after it).
struct Flag {
    /// The stream the host function was queued on (its own later work needs no wait).
    stream: usize,
    done: Mutex<bool>,
    ran: std::sync::Condvar,
}

impl Flag {
    fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.ran.notify_all();
    }
    fn is_set(&self) -> bool {
        *self.done.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn wait(&self) {
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*d {
            d = self.ran.wait(d).unwrap_or_else(|e| e.into_inner());
        }
    }
}

thread_local! {
    /// The host function this thread queued last, with its stream, when it is
    /// the last work dualview queued there (cleared by every other copy):
    /// `event_record` hands its flag out instead of recording a CUDA event.
    static LAST_FLAG: std::cell::RefCell<Option<(usize, std::sync::Arc<Flag>)>> = const { std::cell::RefCell::new(None) };
}

/// Forget the host function of `LAST_FLAG`: other work follows it.
pub(super) fn other_work_queued() {
    // At thread (or process) exit the slot may be gone: nothing to forget then.
    let _ = LAST_FLAG.try_with(|f| f.borrow_mut().take());
}

/// What a stream's host function does when the stream reaches it.
struct Job {
    /// Unpack the buffer into this host region (device to host), or nothing.
    unpack: Option<Region>,
    /// The buffer, packed as `packed` describes.
    packed: Region,
    buf: Buffer,
    /// Set once the job has run.
    flag: std::sync::Arc<Flag>,
}

// SAFETY: the regions are host memory that stays live until the job has run
// (the DualView's family waits for its events before freeing, and a view copy's
// caller keeps its views until the stream has run); only the job touches them then.
unsafe impl Send for Job {}

/// The host function: unpack if asked, then return the buffer to the pool.
/// Calls no driver function (the driver forbids it there) and never unwinds.
unsafe extern "C" fn finish(arg: *mut c_void) {
    // SAFETY: `arg` is the Box<Job> leaked by `stage`, handed over once.
    let job = unsafe { Box::from_raw(arg as *mut Job) };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Some(dst) = &job.unpack {
            // SAFETY: as `Job`'s Send says; the stream has written the buffer.
            unsafe { host::copy(dst, &job.packed) };
        }
    }));
    let Job { buf, flag, .. } = *job;
    pool().push(buf);
    flag.set();
}

impl CudaBackend {
    /// Queue a copy between pageable host memory and the device on `stream`
    /// (not the default one) through a pinned buffer: the host packs (to the
    /// device) now, or a host function on the stream unpacks (to the host)
    /// later. The host never waits for the stream.
    ///
    /// # Safety
    /// As `Backend::copy`, until the stream has run the copy; the device's context is bound.
    pub(super) unsafe fn stage(&self, dst: (Space, &Region), src: (Space, &Region), stream: Stream) -> Result<()> {
        let (ds, dr) = dst;
        let (ss, sr) = src;
        let es = dr.elem_size;
        let extents = DynRank::from_slice_unchecked(dr.extents.as_slice());
        let n: usize = extents.as_slice().iter().product();
        let buf = take(n * es)?;
        let packed = Region { ptr: buf.ptr as *mut u8, elem_size: es, extents, strides: Strides::canonical(extents.as_slice(), crate::Layout::Right)? };
        let pinned = Space::host_pinned();
        let to_device = !super::on_device(ss);
        let queued = if to_device {
            // SAFETY: the buffer holds n packed elements; the source is live host memory.
            unsafe { host::copy(&packed, sr) };
            let p = plan(dr.extents.as_slice(), dr.strides.as_slice(), packed.strides.as_slice());
            // SAFETY: forwarded contract; the buffer lives until `finish` runs after this copy.
            p.map_or(Ok(()), |p| unsafe { self.issue((ds, dr), (pinned, &packed), &p, stream) })
        } else {
            let p = plan(packed.extents.as_slice(), packed.strides.as_slice(), sr.strides.as_slice());
            // SAFETY: as above.
            p.map_or(Ok(()), |p| unsafe { self.issue((pinned, &packed), (ss, sr), &p, stream) })
        };
        let flag = std::sync::Arc::new(Flag { stream: stream.as_raw(), done: Mutex::new(false), ran: std::sync::Condvar::new() });
        let job = Box::new(Job { unpack: (!to_device).then_some(*dr), packed, buf, flag: flag.clone() });
        if let Err(e) = queued {
            // Whatever was queued must finish before the buffer is reused.
            // SAFETY: a plain driver call on the bound context.
            let _ = unsafe { result::stream::synchronize(super::stream_of(stream)) };
            pool().push(job.buf);
            return Err(e);
        }
        let arg = Box::into_raw(job) as *mut c_void;
        // SAFETY: `finish` takes `arg` back exactly once, when the stream reaches it.
        if let Err(e) = unsafe { result::stream::launch_host_function(super::stream_of(stream), finish, arg) } {
            // Not queued: run it here once the stream has run the copy.
            // SAFETY: as above; `arg` was not handed to the driver.
            unsafe {
                let _ = result::stream::synchronize(super::stream_of(stream));
                finish(arg);
            }
            return check(Err(e), "cuLaunchHostFunc");
        }
        // Gone at thread exit: event_record then records a CUDA event instead.
        let _ = LAST_FLAG.try_with(|f| *f.borrow_mut() = Some((stream.as_raw(), flag)));
        Ok(())
    }
}

/// Events and streams of a device (the `Backend` methods of the same names).
pub(super) mod driver_calls {
    use super::*;

    /// Events whose work has passed, per device, for the next record: a
    /// create and a destroy per queued copy are two driver calls saved.
    static EVENTS: Mutex<Vec<(u32, usize)>> = Mutex::new(Vec::new());
    /// At most this many idle events are kept.
    const KEPT: usize = 64;

    fn events() -> std::sync::MutexGuard<'static, Vec<(u32, usize)>> {
        EVENTS.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A flag event's raw value: its `Arc<Flag>` pointer with the low bit
    /// set (a `CUevent` is a pointer to an aligned driver object: bit clear).
    const FLAG_BIT: usize = 1;

    fn flag_of<'a>(event: usize) -> Option<&'a Flag> {
        // SAFETY: a tagged value is an `Arc<Flag>` from event_record, alive until event_release.
        (event & FLAG_BIT != 0).then(|| unsafe { &*((event & !FLAG_BIT) as *const Flag) })
    }

    pub(in crate::space::cuda) fn event_record(ordinal: u32, stream: Stream) -> Result<Option<usize>> {
        let last = LAST_FLAG.try_with(|f| f.borrow_mut().take().filter(|(s, _)| *s == stream.as_raw()).map(|(_, f)| f));
        if let Ok(Some(flag)) = last {
            // The last work queued there is our host function: its flag is the event.
            return Ok(Some(std::sync::Arc::into_raw(flag) as usize | FLAG_BIT));
        }
        let _bound = bind(ordinal)?;
        let pooled = {
            let mut p = events();
            p.iter().position(|&(o, _)| o == ordinal).map(|i| p.swap_remove(i).1 as sys::CUevent)
        };
        let ev = match pooled {
            Some(ev) => ev,
            None => check(result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING), "cuEventCreate")?,
        };
        // SAFETY: an idle event of this context and a stream of it.
        if let Err(e) = unsafe { result::event::record(ev, super::super::stream_of(stream)) } {
            // SAFETY: our own event, not recorded by this call.
            let _ = unsafe { result::event::destroy(ev) };
            return check(Err(e), "cuEventRecord");
        }
        Ok(Some(ev as usize))
    }

    pub(in crate::space::cuda) fn event_wait(ordinal: u32, event: usize) -> Result<()> {
        if let Some(f) = flag_of(event) {
            f.wait();
            return Ok(());
        }
        let _bound = bind(ordinal)?;
        // SAFETY: a live event from event_record.
        check(unsafe { result::event::synchronize(event as sys::CUevent) }, "cuEventSynchronize")
    }

    pub(in crate::space::cuda) fn event_done(ordinal: u32, event: usize) -> bool {
        if let Some(f) = flag_of(event) {
            return f.is_set();
        }
        let Ok(_bound) = bind(ordinal) else { return true };
        // SAFETY: a live event from event_record.
        match unsafe { result::event::query(event as sys::CUevent) } {
            Ok(()) => true,
            Err(e) => e.0 != sys::CUresult::CUDA_ERROR_NOT_READY, // an error: the wait reports it
        }
    }

    pub(in crate::space::cuda) fn event_order(ordinal: u32, event: usize, stream: Stream) -> Result<()> {
        if let Some(f) = flag_of(event) {
            // Later work of the same stream follows it already. Another stream cannot wait for
            // a host function: the host waits (rare: one region in flight on two streams).
            if f.stream != stream.as_raw() {
                f.wait();
            }
            return Ok(());
        }
        let _bound = bind(ordinal)?;
        // SAFETY: a live event and a stream of this context.
        check(
            unsafe {
                result::stream::wait_event(super::super::stream_of(stream), event as sys::CUevent, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT)
            },
            "cuStreamWaitEvent",
        )
    }

    pub(in crate::space::cuda) fn event_release(ordinal: u32, event: usize) {
        if event & FLAG_BIT != 0 {
            // SAFETY: the Arc leaked by event_record, released once.
            drop(unsafe { std::sync::Arc::from_raw((event & !FLAG_BIT) as *const Flag) });
            return;
        }
        let Ok(_bound) = bind(ordinal) else { return };
        // SAFETY: a live event from event_record, released once.
        let passed = unsafe { result::event::query(event as sys::CUevent) }.is_ok();
        {
            let mut p = events();
            if passed && p.len() < KEPT {
                p.push((ordinal, event)); // recorded again by a later copy
                return;
            }
        }
        // SAFETY: released once; the driver frees it after its work.
        let _ = unsafe { result::event::destroy(event as sys::CUevent) };
    }

    pub(in crate::space::cuda) fn stream_create(ordinal: u32) -> Result<Stream> {
        let _bound = bind(ordinal)?;
        let s = check(result::stream::create(result::stream::StreamKind::NonBlocking), "cuStreamCreate")?;
        Ok(Stream::from_raw(s as usize))
    }

    pub(in crate::space::cuda) fn stream_destroy(ordinal: u32, stream: Stream) -> Result<()> {
        let _bound = bind(ordinal)?;
        // SAFETY: the caller's stream from stream_create; its work still runs.
        check(unsafe { result::stream::destroy(super::super::stream_of(stream)) }, "cuStreamDestroy")
    }

    pub(in crate::space::cuda) fn stream_fence(ordinal: u32, stream: Stream) -> Result<()> {
        let _bound = bind(ordinal)?;
        // SAFETY: a stream of this context.
        check(unsafe { result::stream::synchronize(super::super::stream_of(stream)) }, "cuStreamSynchronize")
    }
}

/// Whether the driver knows `ptr` as page-locked host memory (pinned or
/// registered): one pointer query, `cuPointerGetAttributes`, which answers
/// pageable memory with a default value rather than an error (compute-sanitizer
/// reports every failing driver call).
pub(super) fn is_page_locked(ptr: *const u8) -> bool {
    let mut kind: u32 = 0;
    let mut attr = [sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE];
    let mut data = [(&mut kind as *mut u32).cast::<c_void>()];
    // SAFETY: one attribute, one writable u32 for it (CUmemorytype); nothing at `ptr` is read.
    let r = unsafe { sys::cuPointerGetAttributes(1, attr.as_mut_ptr(), data.as_mut_ptr(), ptr as usize as sys::CUdeviceptr) };
    r == sys::CUresult::CUDA_SUCCESS && kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
}

/// Whether a copy from `src` into `dst` on `stream` is one to stage: not the
/// default stream, between pageable host memory and device memory, at most
/// [`STAGE_MAX`] bytes.
pub(super) fn wants_stage(dst: Space, src: Space, bytes: usize, stream: Stream, pageable: bool) -> bool {
    use crate::SpaceKind::{Cuda, Host};
    let between = matches!((dst.kind(), src.kind()), (Cuda, Host) | (Host, Cuda));
    !stream.is_null() && pageable && between && bytes > 0 && bytes <= STAGE_MAX
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_small_pageable_copies_on_a_stream_are_staged() {
        use super::{wants_stage, STAGE_MAX};
        use crate::space::{Space, Stream};
        let s = Stream::from_raw(0x10);
        assert!(wants_stage(Space::cuda(0), Space::HOST, 4096, s, true));
        assert!(wants_stage(Space::HOST, Space::cuda(0), STAGE_MAX, s, true));
        assert!(!wants_stage(Space::HOST, Space::cuda(0), STAGE_MAX + 1, s, true), "large: the driver's path");
        assert!(!wants_stage(Space::HOST, Space::cuda(0), 4096, Stream::null(), true), "the default stream: the tiny path");
        assert!(!wants_stage(Space::HOST, Space::cuda(0), 4096, s, false), "page-locked: the driver's own async copy");
        assert!(!wants_stage(Space::host_pinned(), Space::cuda(0), 4096, s, true));
        assert!(!wants_stage(Space::cuda(0), Space::cuda_uvm(0), 4096, s, true));
    }
}
