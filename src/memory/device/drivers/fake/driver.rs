//! The test device's fake [`Driver`]: host memory stands in for device and
//! pinned memory, streams are worker threads (`streams.rs`), events are
//! points in a worker's sequence, and page-locked ranges (pinned blocks and
//! registrations) are tracked so that the engine's pointer query answers as
//! CUDA's does. Every call can be made to fail ([`fail`]) or recorded
//! ([`record`]), on the calling thread.

use super::streams::{self, Sim};
use super::{delay, device, register_delay, ORDINALS};
use crate::error::{bail, Error, ErrorKind, Result};
use crate::memory::device::{Addr, Copy2D, Dir, Driver, EventHandle, HostFn, Mem, StreamHandle, Word};
use crate::memory::{host, Block};
use crate::space::Stream;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The fake driver (one per process; its state is per test device and per thread).
pub(super) struct Fake;

/// The driver calls, by the names that [`fail`] and [`record`] use.
/// (`restore`, `can_grow_in_place` and `is_page_locked` cannot fail: the
/// first two are not recorded, the last is recorded only.)
const CALLS: [&str; 23] = [
    "bind", "alloc", "free", "grow_in_place", "copy", "copy_async", "copy_peer_async", "copy_2d_async", "memset_async",
    "prefetch_async", "synchronize", "stream_synchronize", "stream_create", "stream_destroy", "launch_host_fn",
    "event_create", "event_record", "event_query", "event_synchronize", "event_destroy", "stream_wait_event",
    "host_register", "host_unregister",
];

thread_local! {
    /// The device bound on this thread (`None`: none yet).
    static BOUND: Cell<Option<u32>> = const { Cell::new(None) };
    /// Calls to fail on this thread: the name and how many calls of it before.
    static FAULTS: RefCell<Vec<(&'static str, u64)>> = const { RefCell::new(Vec::new()) };
    /// The calls made on this thread, while [`record`] runs.
    static LOG: RefCell<Option<Vec<&'static str>>> = const { RefCell::new(None) };
    /// Work (copies, fills, host functions) this thread queued on the default
    /// stream of a device with a delay, not yet run: it runs, in order, at this
    /// thread's next driver call that waits (a synchronize, a synchronous copy,
    /// a free, ...; not a bind, an allocation, an event's creation, record,
    /// query or destruction), or before work it queues on another stream, so
    /// that a reader who did not wait sees old values. Per thread, unlike CUDA's legacy stream: another
    /// thread's waits do not run them, and a thread that ends drops them.
    static DEFAULT_QUEUE: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
}

/// Run the copies of [`DEFAULT_QUEUE`].
fn run_default_queue() {
    let jobs = DEFAULT_QUEUE.try_with(|q| std::mem::take(&mut *q.borrow_mut())).unwrap_or_default();
    jobs.into_iter().for_each(|job| job());
}

/// Page-locked host ranges: start to length (pinned blocks and registrations).
static LOCKED: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

fn locked() -> std::sync::MutexGuard<'static, BTreeMap<usize, usize>> {
    LOCKED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `addr` lies in a page-locked range (not a recorded call).
fn page_locked(addr: usize) -> bool {
    locked().range(..=addr).next_back().is_some_and(|(&a, &len)| addr < a + len)
}

/// The driver call named `call`, or an error that lists them.
pub(super) fn call_name(call: &str) -> Result<&'static str> {
    match CALLS.iter().find(|&&c| c == call) {
        Some(&name) => Ok(name),
        None => bail!(InvalidArgument, "\"{call}\" is not a driver call of the test device (one of {})", CALLS.join(", ")),
    }
}

/// See `test_device::fail_driver_call`.
pub(super) fn fail(call: &str, nth: u64) -> Result<()> {
    let name = call_name(call)?;
    FAULTS.with(|f| {
        let mut f = f.borrow_mut();
        f.retain(|(c, _)| *c != name);
        if nth > 0 {
            f.push((name, nth));
        }
    });
    Ok(())
}

/// See `test_device::driver_calls`.
pub(super) fn record<R>(f: impl FnOnce() -> R) -> (R, Vec<&'static str>) {
    let outer = LOG.with(|l| l.borrow_mut().replace(Vec::new()));
    let r = f();
    let calls = LOG.with(|l| std::mem::replace(&mut *l.borrow_mut(), outer)).unwrap_or_default();
    (r, calls)
}

/// Record one call (while [`record`] runs).
fn log(call: &'static str) {
    let _ = LOG.try_with(|l| l.borrow_mut().as_mut().map(|v| v.push(call)));
}

/// Record one call and answer the failure injected for it, if due.
fn enter(call: &'static str) -> Result<()> {
    log(call);
    // Work queued on a stream orders itself (`on`); these calls do not wait either.
    let queues = matches!(call, "copy_async" | "copy_peer_async" | "copy_2d_async" | "memset_async" | "launch_host_fn");
    if !queues && !matches!(call, "event_record" | "event_query" | "event_create" | "event_destroy" | "bind" | "alloc") {
        run_default_queue(); // even for a call that fails: nothing is left to run after its memory goes
    }
    let due = FAULTS
        .try_with(|f| {
            let mut f = f.borrow_mut();
            let i = f.iter().position(|(c, _)| *c == call)?;
            f[i].1 -= 1;
            (f[i].1 == 0).then(|| f.swap_remove(i))
        })
        .ok()
        .flatten();
    if call == "copy_async" {
        super::count_queued(current());
    }
    if due.is_some() || super::device_fault_due(current(), call) {
        let kind = if matches!(call, "alloc" | "host_register") { ErrorKind::OutOfMemory } else { ErrorKind::Device };
        return Err(Error::new(kind, format!("{call} failed: injected by the test device (test_device::fail_driver_call or fail_device_call)")));
    }
    Ok(())
}

/// The device bound on this thread (0 when none was).
fn current() -> u32 {
    BOUND.with(|b| b.get()).unwrap_or(0)
}

/// Run `job` when `stream` reaches it after `delay`: on a stream of the test
/// device, on its worker, after the default stream's queued work; on the
/// default stream of a device with a delay, at this thread's next waiting call
/// ([`DEFAULT_QUEUE`]); otherwise (a value that is no stream of the test device too) at once.
fn on(stream: Stream, delay: Duration, job: impl FnOnce() + Send + 'static) {
    match streams::lookup(stream) {
        Some(sim) => {
            run_default_queue();
            sim.push(delay, job);
        }
        None if stream.is_null() && !super::delay(current()).is_zero() => {
            let _ = DEFAULT_QUEUE.try_with(|q| q.borrow_mut().push(Box::new(job)));
        }
        None => {
            run_default_queue();
            job();
        }
    }
}

/// The public handle of a driver stream (`None`: the default stream).
fn st(s: Option<StreamHandle>) -> Stream {
    s.map_or(Stream::null(), StreamHandle::stream)
}

/// The delay of a copy queued on `stream` (its device's, [`super::set_stream_delay`]).
fn copy_delay(stream: Stream) -> Duration {
    streams::lookup(stream).map_or(Duration::ZERO, |s| delay(s.ordinal()))
}

/// Copy `bytes` from `src` to `dst`, host memory both.
///
/// # Safety
/// Two live, non-overlapping ranges of `bytes`.
unsafe fn move_bytes(dst: Addr, src: Addr, bytes: usize) {
    // SAFETY: forwarded contract.
    unsafe { std::ptr::copy_nonoverlapping(src.get() as *const u8, dst.get() as *mut u8, bytes) };
}

/// An event: the stream and the job it follows (`None`: passed when recorded).
type SimEvent = Mutex<Option<(Arc<Sim>, u64)>>;

/// The event behind a handle.
///
/// # Safety
/// `h` came from `event_create` and was not destroyed.
unsafe fn event(h: &EventHandle) -> &SimEvent {
    // SAFETY: forwarded contract: a live Box<SimEvent>.
    unsafe { &*(h.get() as *const SimEvent) }
}

fn point(e: &SimEvent) -> Option<(Arc<Sim>, u64)> {
    e.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

// SAFETY (every unsafe block below): the `Driver` contract makes the ranges
// live host memory (every test-device memory is) and the handles ours.
impl Driver for Fake {
    fn device_count(&self) -> usize {
        ORDINALS as usize
    }
    fn bind(&self, ordinal: u32) -> Result<Option<usize>> {
        enter("bind")?;
        device(ordinal)?;
        let prev = BOUND.with(|b| b.replace(Some(ordinal)));
        Ok((prev != Some(ordinal)).then(|| prev.map_or(usize::MAX, |o| o as usize)))
    }
    fn restore(&self, previous: usize) {
        BOUND.with(|b| b.set((previous != usize::MAX).then_some(previous as u32)));
    }
    fn alloc(&self, bytes: usize, mem: Mem) -> Result<Addr> {
        enter("alloc")?;
        let d = device(current())?;
        let on_device = mem != Mem::Pinned;
        if on_device {
            let cap = d.capacity.load(Ordering::SeqCst);
            if d.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| u.checked_add(bytes).filter(|&n| n <= cap)).is_err() {
                bail!(OutOfMemory, "over the capacity of {cap} bytes");
            }
        }
        match host::allocate(bytes, false) {
            Ok(b) => {
                if !on_device {
                    locked().insert(b.addr(), bytes);
                }
                Ok(Addr::new(b.addr()).expect("host blocks are non-null")) // freed by `free`, by address
            }
            Err(e) => {
                if on_device {
                    d.used.fetch_sub(bytes, Ordering::SeqCst);
                }
                Err(e)
            }
        }
    }
    unsafe fn free(&self, addr: Addr, bytes: usize, mem: Mem) {
        let _ = enter("free");
        streams::fence_all(current()); // as the driver's free: after the device's queued work
        if mem == Mem::Pinned {
            locked().remove(&addr.get());
        } else if let Ok(d) = device(current()) {
            d.used.fetch_sub(bytes, Ordering::SeqCst);
        }
        if let Some(p) = NonNull::new(addr.get() as *mut u8) {
            // SAFETY: a host block of `alloc`, freed once.
            host::deallocate(unsafe { Block::from_raw(p, bytes) });
        }
    }
    unsafe fn grow_in_place(&self, ordinal: u32, addr: Addr, old: usize, new: usize) -> Result<bool> {
        enter("grow_in_place")?;
        let d = device(ordinal)?;
        let cap = d.capacity.load(Ordering::SeqCst);
        let extra = new - old;
        if d.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| u.checked_add(extra).filter(|&n| n <= cap)).is_err() {
            bail!(OutOfMemory, "{}: growing by {extra} bytes exceeds the capacity of {cap} bytes", crate::Space::test_device(ordinal));
        }
        let Some(p) = NonNull::new(addr.get() as *mut u8) else { return Ok(false) };
        // SAFETY: forwarded contract; test-device memory is host memory. The token is dropped, not freed.
        let grown = host::grow_in_place(&unsafe { Block::from_raw(p, old) }, new);
        if !matches!(grown, Ok(true)) {
            d.used.fetch_sub(extra, Ordering::SeqCst);
        }
        grown
    }
    fn can_grow_in_place(&self, ordinal: u32, addr: Addr, old: usize, new: usize) -> bool {
        let (Ok(d), Some(p)) = (device(ordinal), NonNull::new(addr.get() as *mut u8)) else { return false };
        let room = d.used.load(Ordering::SeqCst).checked_add(new.saturating_sub(old)).is_some_and(|n| n <= d.capacity.load(Ordering::SeqCst));
        room && host::can_grow_in_place(p, old, new)
    }
    unsafe fn copy(&self, dst: Addr, src: Addr, bytes: usize, dir: Dir) -> Result<()> {
        enter("copy")?;
        if dir == Dir::HtoD && !delay(current()).is_zero() && !page_locked(src.get()) {
            // (The engine makes no such copy since G8 moved it to `copy_async`; kept as CUDA's.)
            // As CUDA's from pageable memory: the source is staged at the call, the device's
            // copy lands later (on the default stream), so a reader that did not wait sees old values.
            // SAFETY: the caller's contract: `bytes` readable at `src`.
            let staged = unsafe { std::slice::from_raw_parts(src.get() as *const u8, bytes) }.to_vec();
            let dst = dst.get();
            // SAFETY: `dst` stays writable until the default stream has run the copy (the caller's contract).
            on(Stream::null(), Duration::ZERO, move || unsafe { std::ptr::copy_nonoverlapping(staged.as_ptr(), dst as *mut u8, staged.len()) });
            return Ok(());
        }
        unsafe { move_bytes(dst, src, bytes) };
        Ok(())
    }
    unsafe fn copy_async(&self, dst: Addr, src: Addr, bytes: usize, _dir: Dir, stream: Option<StreamHandle>) -> Result<()> {
        let stream = st(stream);
        enter("copy_async")?;
        on(stream, copy_delay(stream), move || unsafe { move_bytes(dst, src, bytes) });
        Ok(())
    }
    unsafe fn copy_peer_async(&self, dst: Addr, _dd: u32, src: Addr, _sd: u32, bytes: usize, stream: Option<StreamHandle>) -> Result<()> {
        let stream = st(stream);
        enter("copy_peer_async")?;
        on(stream, copy_delay(stream), move || unsafe { move_bytes(dst, src, bytes) });
        Ok(())
    }
    unsafe fn copy_2d_async(&self, c: &Copy2D, stream: Option<StreamHandle>) -> Result<()> {
        let stream = st(stream);
        enter("copy_2d_async")?;
        let c = *c;
        on(stream, copy_delay(stream), move || {
            for r in 0..c.height {
                unsafe { move_bytes(c.dst.add(r * c.dst_pitch), c.src.add(r * c.src_pitch), c.width) };
            }
        });
        Ok(())
    }
    unsafe fn memset_async(&self, dst: Addr, word: Word, count: usize, stream: Option<StreamHandle>) -> Result<()> {
        let stream = st(stream);
        enter("memset_async")?;
        let dst = dst.get();
        on(stream, copy_delay(stream), move || unsafe {
            match word {
                Word::W8(v) => std::ptr::write_bytes(dst as *mut u8, v, count),
                Word::W16(v) => std::slice::from_raw_parts_mut(dst as *mut u16, count).fill(v),
                Word::W32(v) => std::slice::from_raw_parts_mut(dst as *mut u32, count).fill(v),
            }
        });
        Ok(())
    }
    unsafe fn prefetch_async(&self, _addr: Addr, _bytes: usize, _to: Option<u32>, _stream: Option<StreamHandle>) -> Result<()> {
        enter("prefetch_async")
    }
    fn synchronize(&self) -> Result<()> {
        let r = enter("synchronize");
        if r.is_ok() {
            streams::fence_all(current());
        }
        r
    }
    fn stream_synchronize(&self, stream: Option<StreamHandle>) -> Result<()> {
        let stream = st(stream);
        // An injected failure does not wait: the engine must not free what queued work still uses.
        enter("stream_synchronize")?;
        if let Some(sim) = streams::lookup(stream) {
            sim.drain();
        }
        Ok(())
    }
    fn stream_create(&self) -> Result<StreamHandle> {
        enter("stream_create")?;
        let s = streams::create(current()).map_err(|e| crate::error::err!(Internal, "test device stream: cannot start its worker: {e}"))?;
        crate::memory::device::on(s).ok_or_else(|| crate::error::err!(Internal, "test device stream: a null handle"))
    }
    unsafe fn stream_destroy(&self, stream: StreamHandle) -> Result<()> {
        let stream = stream.stream();
        enter("stream_destroy")?;
        if !streams::destroy(stream) {
            bail!(InvalidArgument, "{stream:?} is not a live stream of the test device");
        }
        Ok(())
    }
    fn launch_host_fn(&self, stream: Option<StreamHandle>, f: HostFn) -> std::result::Result<(), (Error, HostFn)> {
        let stream = st(stream);
        if let Err(e) = enter("launch_host_fn") {
            return Err((e, f));
        }
        on(stream, Duration::ZERO, f);
        Ok(())
    }
    fn event_create(&self) -> Result<EventHandle> {
        enter("event_create")?;
        // SAFETY: the event just made (a leaked Box, taken back by `event_destroy`); the handle is its only owner.
        Ok(unsafe { EventHandle::new(Box::into_raw(Box::new(SimEvent::new(None))) as usize) }.expect("a Box is non-null"))
    }
    unsafe fn event_record(&self, event: &EventHandle, stream: Option<StreamHandle>) -> Result<()> {
        let stream = st(stream);
        enter("event_record")?;
        let at = streams::lookup(stream).map(|s| {
            let seq = s.last();
            (s, seq)
        });
        *unsafe { self::event(event) }.lock().unwrap_or_else(|p| p.into_inner()) = at;
        Ok(())
    }
    unsafe fn event_query(&self, event: &EventHandle) -> Result<bool> {
        enter("event_query")?;
        // An event of the default stream has passed once this thread's queued copies ran (a query waits for none).
        let idle = || DEFAULT_QUEUE.try_with(|q| q.borrow().is_empty()).unwrap_or(true);
        Ok(point(unsafe { self::event(event) }).map_or_else(idle, |(s, seq)| s.has_run(seq)))
    }
    unsafe fn event_synchronize(&self, event: &EventHandle) -> Result<()> {
        enter("event_synchronize")?;
        if let Some((s, seq)) = point(unsafe { self::event(event) }) {
            s.wait(seq);
        }
        Ok(())
    }
    unsafe fn event_destroy(&self, event: EventHandle) {
        let _ = enter("event_destroy");
        // SAFETY: from event_create, destroyed once.
        drop(unsafe { Box::from_raw(event.get() as *mut SimEvent) });
    }
    unsafe fn stream_wait_event(&self, stream: Option<StreamHandle>, event: &EventHandle) -> Result<()> {
        let stream = st(stream);
        enter("stream_wait_event")?;
        let Some((waited, seq)) = point(unsafe { self::event(event) }) else { return Ok(()) };
        match streams::lookup(stream) {
            Some(s) if Arc::ptr_eq(&s, &waited) => {} // one stream runs in order
            Some(s) => {
                s.push(Duration::ZERO, move || waited.wait(seq));
            }
            None => waited.wait(seq), // a stream of no worker completes on return
        }
        Ok(())
    }
    unsafe fn host_register(&self, addr: Addr, len: usize) -> Result<()> {
        enter("host_register")?;
        std::thread::sleep(register_delay());
        locked().insert(addr.get(), len);
        Ok(())
    }
    unsafe fn host_unregister(&self, addr: Addr) {
        let _ = enter("host_unregister");
        locked().remove(&addr.get());
    }
    fn is_page_locked(&self, addr: usize) -> bool {
        log("is_page_locked");
        page_locked(addr)
    }
}
