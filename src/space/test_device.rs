//! The test device: host memory with its own allocation, per-ordinal byte
//! accounting and an optional capacity, so that two-space semantics, leaks and
//! device out-of-memory can be tested without a GPU. Never a default space.
//! On request ([`set_registers_mirror`]) its DualViews register their host
//! mirrors as CUDA DualViews do, through the same state machine
//! (`src/space/registration.rs`) and a stand-in driver that pins nothing.
//!
//! ```
//! use dualview::space::test_device;
//! test_device::set_capacity(40, Some(1024)).unwrap();
//! assert_eq!(test_device::capacity(40).unwrap(), Some(1024));
//! test_device::set_capacity(40, None).unwrap();
//! ```

use super::registration::{HostDriver, Registration};
use super::{allocation_point, host, test_streams, Backend, HostRegistration, Region, Space, Stream};
use std::time::Duration;
use crate::error::{bail, Error, Result};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// How many test-device ordinals exist.
///
/// ```
/// # use dualview::space::test_device;
/// assert!(test_device::used_bytes(test_device::ORDINALS).is_err());
/// ```
pub const ORDINALS: u32 = 64;

struct Device {
    used: AtomicUsize,
    capacity: AtomicUsize,
    /// DualViews made now register their host mirrors ([`set_registers_mirror`]).
    registers: AtomicBool,
    /// Microseconds each job of its streams waits before running ([`set_stream_delay`]).
    delay_us: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const DEVICE: Device = Device {
    used: AtomicUsize::new(0),
    capacity: AtomicUsize::new(usize::MAX),
    registers: AtomicBool::new(false),
    delay_us: AtomicU64::new(0),
};
static DEVICES: [Device; ORDINALS as usize] = [DEVICE; ORDINALS as usize];

struct TestBackend;
static BACKEND: TestBackend = TestBackend;

fn device(ordinal: u32) -> Result<&'static Device> {
    match DEVICES.get(ordinal as usize) {
        Some(d) => Ok(d),
        None => bail!(NoDevice, "test device {ordinal} does not exist (ordinals 0..{ORDINALS})"),
    }
}

pub(super) fn backend(ordinal: u32) -> Result<&'static dyn Backend> {
    device(ordinal)?;
    Ok(&BACKEND)
}

/// Limit test device `ordinal` to `bytes` of live allocations (`None`: no limit).
///
/// ```
/// # use dualview::space::test_device;
/// assert!(test_device::set_capacity(64, None).is_err());
/// ```
pub fn set_capacity(ordinal: u32, bytes: Option<usize>) -> Result<()> {
    device(ordinal)?.capacity.store(bytes.unwrap_or(usize::MAX), Ordering::SeqCst);
    Ok(())
}

/// The capacity of test device `ordinal` (`None`: no limit).
///
/// ```
/// # use dualview::space::test_device;
/// assert_eq!(test_device::capacity(41).unwrap(), None);
/// ```
pub fn capacity(ordinal: u32) -> Result<Option<usize>> {
    let c = device(ordinal)?.capacity.load(Ordering::SeqCst);
    Ok((c != usize::MAX).then_some(c))
}

/// Make the DualViews created from now on over test device `ordinal`
/// register their `HostSpace` mirrors, as those of a CUDA device do
/// (docs/GPU.md): blocks of 256 KiB or more, in the background from creation
/// or at the first copying sync, again after a grow, undone when freed. The
/// driver is a stand-in that pins nothing, so that the registration's path
/// (`DualView::is_mirror_pinned`, [`registered_host_bytes`](super::registered_host_bytes),
/// failure injection refusing it) runs without a GPU. Off by default.
///
/// ```
/// # use dualview::space::test_device;
/// test_device::set_registers_mirror(43, true).unwrap();
/// test_device::set_registers_mirror(43, false).unwrap();
/// assert!(test_device::set_registers_mirror(64, true).is_err());
/// ```
pub fn set_registers_mirror(ordinal: u32, on: bool) -> Result<()> {
    device(ordinal)?.registers.store(on, Ordering::SeqCst);
    Ok(())
}

/// Make every copy queued on a stream of test device `ordinal` (one made by
/// [`crate::space::stream::create`]) wait `delay` on that stream's worker
/// before it runs, as a copy behind a long kernel does: a program that reads
/// data before its copy has run then sees the old values. Zero by default.
///
/// ```
/// # use dualview::space::test_device;
/// test_device::set_stream_delay(44, std::time::Duration::from_millis(5)).unwrap();
/// test_device::set_stream_delay(44, std::time::Duration::ZERO).unwrap();
/// ```
pub fn set_stream_delay(ordinal: u32, delay: Duration) -> Result<()> {
    device(ordinal)?.delay_us.store(delay.as_micros().min(u64::MAX as u128) as u64, Ordering::SeqCst);
    Ok(())
}

fn delay(ordinal: u32) -> Duration {
    Duration::from_micros(device(ordinal).map(|d| d.delay_us.load(Ordering::SeqCst)).unwrap_or(0))
}

/// An event of a test-device stream: the stream and the job it follows.
struct SimEvent(Arc<test_streams::Sim>, u64);

/// The event behind a raw value from `event_record`.
///
/// # Safety
/// `raw` came from `event_record` and was not released.
unsafe fn sim_event<'a>(raw: usize) -> &'a SimEvent {
    // SAFETY: forwarded contract: a live Box<SimEvent>.
    unsafe { &*(raw as *const SimEvent) }
}

/// Regions captured by a queued job. SAFETY of `Send`: the job runs before
/// the family that owns the memory releases it (it waits for its events),
/// and no one else accesses the regions meanwhile (the caller's borrows and
/// locks, then the events).
struct Queued(Region, Region);
// SAFETY: see above.
unsafe impl Send for Queued {}

/// The test device's stand-in for a driver that registers host memory: it
/// faults the pages in as the CUDA one does and registers nothing; the
/// failure injection of the tests reaches its refusal path.
struct StandIn {
    registered: AtomicUsize,
}

static STAND_IN: StandIn = StandIn { registered: AtomicUsize::new(0) };

impl HostDriver for StandIn {
    fn populate(&self, addr: usize, len: usize) {
        host::populate(addr as *mut u8, len);
    }

    fn register(&self, _addr: usize, _len: usize) -> Result<()> {
        allocation_point("mirror registration")
    }

    fn unregister(&self, _addr: usize) {}

    fn registered_bytes(&self) -> &AtomicUsize {
        &self.registered
    }
}

/// Bytes currently allocated on test device `ordinal` (leak checks).
///
/// ```
/// # use dualview::space::test_device;
/// assert_eq!(test_device::used_bytes(42).unwrap(), 0);
/// ```
pub fn used_bytes(ordinal: u32) -> Result<usize> {
    Ok(device(ordinal)?.used.load(Ordering::SeqCst))
}

impl Backend for TestBackend {
    fn allocate(&self, ordinal: u32, bytes: usize, zeroed: bool) -> Result<NonNull<u8>> {
        let d = device(ordinal)?;
        let cap = d.capacity.load(Ordering::SeqCst);
        let reserved = d.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| {
            u.checked_add(bytes).filter(|&n| n <= cap)
        });
        if reserved.is_err() {
            bail!(
                OutOfMemory,
                "{}: allocation of {bytes} bytes exceeds the capacity of {cap} bytes",
                Space::test_device(ordinal)
            );
        }
        host::allocate(bytes, zeroed).map_err(|e| {
            d.used.fetch_sub(bytes, Ordering::SeqCst);
            Error::new(e.kind(), format!("{}: {}", Space::test_device(ordinal), e.message()))
        })
    }
    unsafe fn deallocate(&self, ordinal: u32, ptr: NonNull<u8>, bytes: usize) {
        // SAFETY: forwarded contract; the memory came from host::allocate.
        unsafe { host::deallocate(ptr, bytes) };
        if let Ok(d) = device(ordinal) {
            d.used.fetch_sub(bytes, Ordering::SeqCst);
        }
    }
    unsafe fn fill(&self, _ordinal: u32, dst: &Region, value: &[u8], _stream: Stream) -> Result<()> {
        // SAFETY: forwarded contract; test-device memory is host memory.
        unsafe { host::fill(dst, value) };
        Ok(())
    }
    unsafe fn copy(&self, dst: (Space, &Region), src: (Space, &Region), stream: Stream) -> Result<()> {
        if !dst.0.is_host_accessible() || !src.0.is_host_accessible() {
            bail!(Incompatible, "no copy path between {} and {}", src.0, dst.0);
        }
        if let Some(sim) = test_streams::lookup(stream) {
            let ordinal = if dst.0.kind() == crate::SpaceKind::TestDevice { dst.0.ordinal() } else { src.0.ordinal() };
            let q = Queued(*dst.1, *src.1);
            sim.push(delay(ordinal), move || {
                let q = q;
                // SAFETY: as `Queued` says; both spaces are host memory.
                unsafe { host::copy(&q.0, &q.1) }
            });
            return Ok(());
        }
        // SAFETY: forwarded contract; both spaces are host memory.
        unsafe { host::copy(dst.1, src.1) };
        Ok(())
    }
    fn fence(&self, ordinal: u32) -> Result<()> {
        test_streams::fence_all(ordinal);
        Ok(())
    }
    fn event_record(&self, _ordinal: u32, stream: Stream) -> Result<Option<usize>> {
        Ok(test_streams::lookup(stream).map(|sim| {
            let seq = sim.last();
            Box::into_raw(Box::new(SimEvent(sim, seq))) as usize
        }))
    }
    fn event_wait(&self, _ordinal: u32, event: usize) -> Result<()> {
        // SAFETY: the Event type passes only live raw values from event_record.
        let e = unsafe { sim_event(event) };
        e.0.wait(e.1);
        Ok(())
    }
    fn event_done(&self, _ordinal: u32, event: usize) -> bool {
        // SAFETY: as in event_wait.
        let e = unsafe { sim_event(event) };
        e.0.has_run(e.1)
    }
    fn event_order(&self, ordinal: u32, event: usize, stream: Stream) -> Result<()> {
        // SAFETY: as in event_wait.
        let e = unsafe { sim_event(event) };
        match test_streams::lookup(stream) {
            Some(sim) if Arc::ptr_eq(&sim, &e.0) => {} // one stream runs in order
            Some(sim) => {
                let (waited, seq) = (e.0.clone(), e.1);
                sim.push(Duration::ZERO, move || waited.wait(seq));
            }
            None => self.event_wait(ordinal, event)?, // a stream of no worker completes on return
        }
        Ok(())
    }
    fn event_release(&self, _ordinal: u32, event: usize) {
        // SAFETY: from event_record, released once (Event's drop).
        drop(unsafe { Box::from_raw(event as *mut SimEvent) });
    }
    fn stream_create(&self, ordinal: u32) -> Result<Stream> {
        device(ordinal)?;
        test_streams::create(ordinal).map_err(|e| crate::error::err!(Internal, "test device stream: cannot start its worker: {e}"))
    }
    fn stream_destroy(&self, _ordinal: u32, stream: Stream) -> Result<()> {
        if !test_streams::destroy(stream) {
            bail!(InvalidArgument, "{stream:?} is not a live stream of the test device");
        }
        Ok(())
    }
    fn stream_fence(&self, _ordinal: u32, stream: Stream) -> Result<()> {
        if let Some(sim) = test_streams::lookup(stream) {
            sim.drain();
        }
        Ok(())
    }
    unsafe fn grow_in_place(&self, ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> Result<bool> {
        let d = device(ordinal)?;
        let cap = d.capacity.load(Ordering::SeqCst);
        let extra = new - old;
        if d.used.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| u.checked_add(extra).filter(|&n| n <= cap)).is_err() {
            bail!(OutOfMemory, "{}: growing by {extra} bytes exceeds the capacity of {cap} bytes", Space::test_device(ordinal));
        }
        // SAFETY: forwarded contract; test-device memory is host memory.
        let grown = unsafe { host::grow_in_place(ptr, old, new) };
        if !matches!(grown, Ok(true)) {
            d.used.fetch_sub(extra, Ordering::SeqCst);
        }
        grown.map_err(|e| Error::new(e.kind(), format!("{}: {}", Space::test_device(ordinal), e.message())))
    }
    fn can_grow_in_place(&self, ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> bool {
        let Ok(d) = device(ordinal) else { return false };
        let room = d.used.load(Ordering::SeqCst).checked_add(new.saturating_sub(old)).is_some_and(|n| n <= d.capacity.load(Ordering::SeqCst));
        room && host::can_grow_in_place(ptr, old, new)
    }
    fn registers_mirror(&self, ordinal: u32, host: Space) -> bool {
        host == Space::HOST && device(ordinal).is_ok_and(|d| d.registers.load(Ordering::SeqCst))
    }
    fn mirror_registration(&self, _ordinal: u32, ptr: NonNull<u8>, bytes: usize, label: &Arc<str>) -> Option<Box<dyn HostRegistration>> {
        Some(Box::new(Registration::new(&STAND_IN, ptr.as_ptr() as usize, bytes, label.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_enforced_and_released() {
        set_capacity(63, Some(100)).unwrap();
        let b = backend(63).unwrap();
        let p = b.allocate(63, 80, true).unwrap();
        assert_eq!(used_bytes(63).unwrap(), 80);
        assert_eq!(b.allocate(63, 40, true).unwrap_err().kind(), crate::ErrorKind::OutOfMemory);
        assert_eq!(used_bytes(63).unwrap(), 80);
        // SAFETY: p came from allocate(63, 80).
        unsafe { b.deallocate(63, p, 80) };
        assert_eq!(used_bytes(63).unwrap(), 0);
        set_capacity(63, None).unwrap();
    }
}
