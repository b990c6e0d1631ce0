//! The test device: host memory posing as a GPU, driven by the same device
//! engine as CUDA (`src/memory/device/`) through a fake driver (`driver.rs`):
//! per-ordinal byte accounting and an optional capacity, streams on worker
//! threads with an optional delay (`streams.rs`), pinned and registered
//! host ranges it tracks, and driver calls that a test can make fail or
//! record. So two-space semantics, leaks, device out-of-memory, staging, the
//! tiny path, 2D copies, events and fills run without a GPU. Never a default space.
//!
//! ```
//! use dualview::memory::test_device;
//! test_device::set_capacity(40, Some(1024)).unwrap();
//! assert_eq!(test_device::capacity(40).unwrap(), Some(1024));
//! test_device::set_capacity(40, None).unwrap();
//! ```

mod driver;
mod streams;

use crate::memory::device::{DeviceBackend, Engine, EnginePolicy};
use crate::memory::Backend;
use crate::space::SpaceKind;
use crate::error::{bail, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How many test-device ordinals exist.
///
/// ```
/// # use dualview::memory::test_device;
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
    /// The engine keeps its small blocks for reuse ([`set_keeps_small_blocks`]).
    keeps: AtomicBool,
    /// Device blocks may grow in place ([`set_grows_in_place`]).
    grows: AtomicBool,
    /// Copies queued on the device's streams, from any thread ([`queued_copies`]).
    queued: AtomicU64,
    /// Calls to fail on any thread that has the device bound ([`fail_device_call`]), and whether any is.
    faults: Mutex<Vec<(&'static str, u64)>>,
    faulty: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const DEVICE: Device = Device {
    used: AtomicUsize::new(0),
    capacity: AtomicUsize::new(usize::MAX),
    registers: AtomicBool::new(true),
    delay_us: AtomicU64::new(0),
    // Not under Miri: it cannot see a block kept by its address (an integer) and calls it leaked.
    keeps: AtomicBool::new(!cfg!(miri)),
    grows: AtomicBool::new(false),
    queued: AtomicU64::new(0),
    faults: Mutex::new(Vec::new()),
    faulty: AtomicBool::new(false),
};
static DEVICES: [Device; ORDINALS as usize] = [DEVICE; ORDINALS as usize];

/// The policy of each test device: its switches (CUDA's by default), and
/// `DV_PAGEABLE_MIRROR` as on CUDA.
const POLICY: EnginePolicy = EnginePolicy {
    registers_mirrors: |o| device(o).is_ok_and(|d| d.registers.load(Ordering::SeqCst)) && !crate::env::switch("DV_PAGEABLE_MIRROR"),
    keeps_small_blocks: |o| device(o).is_ok_and(|d| d.keeps.load(Ordering::SeqCst)),
    grows_in_place: |o| device(o).is_ok_and(|d| d.grows.load(Ordering::SeqCst)),
};

static ENGINE: Engine = Engine::new(&driver::Fake, POLICY);
static BACKEND: DeviceBackend = DeviceBackend::new(&ENGINE, SpaceKind::TestDevice);

fn device(ordinal: u32) -> Result<&'static Device> {
    match DEVICES.get(ordinal as usize) {
        Some(d) => Ok(d),
        None => bail!(NoDevice, "test device {ordinal} does not exist (ordinals 0..{ORDINALS})"),
    }
}

/// The engine the test device runs (the engine's own tests drive its other memories with it).
#[cfg(test)]
pub(crate) fn engine() -> &'static Engine {
    &ENGINE
}

/// How many test devices exist (the fake driver's count).
pub(crate) fn device_count() -> usize {
    use crate::memory::device::Driver;
    driver::Fake.device_count()
}

pub(crate) fn backend(ordinal: u32) -> Result<&'static dyn Backend> {
    device(ordinal)?;
    Ok(&BACKEND)
}

/// Limit test device `ordinal` to `bytes` of live allocations (`None`: no limit).
///
/// ```
/// # use dualview::memory::test_device;
/// assert!(test_device::set_capacity(64, None).is_err());
/// ```
pub fn set_capacity(ordinal: u32, bytes: Option<usize>) -> Result<()> {
    device(ordinal)?.capacity.store(bytes.unwrap_or(usize::MAX), Ordering::SeqCst);
    Ok(())
}

/// The capacity of test device `ordinal` (`None`: no limit).
///
/// ```
/// # use dualview::memory::test_device;
/// assert_eq!(test_device::capacity(41).unwrap(), None);
/// ```
pub fn capacity(ordinal: u32) -> Result<Option<usize>> {
    let c = device(ordinal)?.capacity.load(Ordering::SeqCst);
    Ok((c != usize::MAX).then_some(c))
}

/// Make the DualViews created from now on over test device `ordinal`
/// register their `HostSpace` mirrors, as those of a CUDA device do
/// (docs/GPU.md): blocks of 256 KiB or more, in the background from creation
/// or at the first copying sync (the second after one large copy, G25), again
/// after a grow, undone when freed. The
/// fake driver pins nothing but tracks the range as page-locked (so copies
/// on a stream are no longer staged), so that the registration's path
/// (`DualView::is_mirror_pinned`, [`registered_host_bytes`](crate::memory::registered_host_bytes),
/// failure injection refusing it) runs without a GPU. On by default, as on
/// CUDA (and, as there, `DV_PAGEABLE_MIRROR=1` turns it off for the process).
///
/// ```
/// # use dualview::memory::test_device;
/// test_device::set_registers_mirror(43, true).unwrap();
/// test_device::set_registers_mirror(43, false).unwrap();
/// assert!(test_device::set_registers_mirror(64, true).is_err());
/// ```
pub fn set_registers_mirror(ordinal: u32, on: bool) -> Result<()> {
    device(ordinal)?.registers.store(on, Ordering::SeqCst);
    Ok(())
}

/// Make the device engine keep the small blocks of test device `ordinal`
/// (64 KiB or less, allocated at a power-of-two size class) for reuse when
/// they are freed, as it does on CUDA (DECISIONS G20). On by default, as on
/// CUDA (but under Miri); off, every allocation reaches the driver at its own size. Refused
/// while the device has memory allocated (`InvalidArgument`).
///
/// ```
/// # use dualview::memory::test_device;
/// test_device::set_keeps_small_blocks(49, true).unwrap();
/// test_device::set_keeps_small_blocks(49, false).unwrap();
/// ```
pub fn set_keeps_small_blocks(ordinal: u32, on: bool) -> Result<()> {
    let d = device(ordinal)?;
    if d.used.load(Ordering::SeqCst) != 0 {
        bail!(InvalidArgument, "test device {ordinal} has memory allocated: set_keeps_small_blocks before its first allocation");
    }
    d.keeps.store(on, Ordering::SeqCst);
    Ok(())
}

/// Let the device blocks of test device `ordinal` grow in place (host memory
/// can). Off by default, as on CUDA, whose device blocks never do: a grow
/// allocates a new block and copies.
///
/// ```
/// # use dualview::memory::test_device;
/// test_device::set_grows_in_place(45, true).unwrap();
/// test_device::set_grows_in_place(45, false).unwrap();
/// ```
pub fn set_grows_in_place(ordinal: u32, on: bool) -> Result<()> {
    device(ordinal)?.grows.store(on, Ordering::SeqCst);
    Ok(())
}

/// Make every copy queued on a stream of test device `ordinal` (one made by
/// [`crate::memory::stream::create`]) wait `delay` on that stream's worker
/// before it runs, as a copy behind a long kernel does: a program that reads
/// data before its copy has run then sees the old values. While it is not zero,
/// work queued on the default stream (a copy, a fill) runs late too: at the
/// calling thread's next driver call that waits; so does a synchronous copy to
/// the device from memory not page-locked, as CUDA's may. Zero by default.
///
/// ```
/// # use dualview::memory::test_device;
/// test_device::set_stream_delay(44, std::time::Duration::from_millis(5)).unwrap();
/// test_device::set_stream_delay(44, std::time::Duration::ZERO).unwrap();
/// ```
pub fn set_stream_delay(ordinal: u32, delay: Duration) -> Result<()> {
    device(ordinal)?.delay_us.store(delay.as_micros().min(u64::MAX as u128) as u64, Ordering::SeqCst);
    Ok(())
}

/// Make every registration of a host block with the test devices' fake
/// driver take `delay` more (process-wide; zero by default): the block's
/// registration is then under way that long, for tests of what a program
/// does meanwhile (the pool keeping a mirror freed then, DECISIONS S11).
///
/// ```
/// # use dualview::memory::test_device;
/// test_device::set_register_delay(std::time::Duration::from_millis(1));
/// test_device::set_register_delay(std::time::Duration::ZERO);
/// ```
pub fn set_register_delay(delay: Duration) {
    REGISTER_DELAY_US.store(delay.as_micros().min(u64::MAX as u128) as u64, Ordering::SeqCst);
}

/// See [`set_register_delay`].
static REGISTER_DELAY_US: AtomicU64 = AtomicU64::new(0);

/// The delay of a host registration ([`set_register_delay`]).
fn register_delay() -> Duration {
    Duration::from_micros(REGISTER_DELAY_US.load(Ordering::SeqCst))
}

fn delay(ordinal: u32) -> Duration {
    Duration::from_micros(device(ordinal).map(|d| d.delay_us.load(Ordering::SeqCst)).unwrap_or(0))
}

/// Bytes currently allocated on test device `ordinal` (leak checks).
///
/// ```
/// # use dualview::memory::test_device;
/// assert_eq!(test_device::used_bytes(42).unwrap(), 0);
/// ```
pub fn used_bytes(ordinal: u32) -> Result<usize> {
    Ok(device(ordinal)?.used.load(Ordering::SeqCst))
}

/// Of [`used_bytes`], those of the small blocks the engine keeps for reuse
/// (DECISIONS G20; [`set_keeps_small_blocks`]): a leak check of a device
/// that keeps them compares `used_bytes - kept_bytes` with 0.
///
/// ```
/// # use dualview::memory::test_device;
/// assert_eq!(test_device::kept_bytes(42).unwrap(), 0);
/// ```
pub fn kept_bytes(ordinal: u32) -> Result<usize> {
    device(ordinal)?;
    Ok(ENGINE.kept.bytes(ordinal))
}

/// Make the `nth` call named `call` of the test device's driver from now on
/// with device `ordinal` bound, on any thread, fail (1: the next one; 0 clears
/// it): a failure of work the engine spreads over threads (a pipelined copy's
/// lanes), where [`fail_driver_call`] sees only the caller's own calls.
///
/// ```
/// use dualview::{DualView, Dims, ErrorKind, Space};
/// use dualview::memory::test_device;
/// test_device::set_registers_mirror(40, false).unwrap(); // a pageable mirror: 16 MiB go in pieces
/// let a = DualView::<u8, Dims<1>>::builder("x", Dims::new([16 << 20]).unwrap()).device(Space::test_device(40)).build().unwrap();
/// a.modify_device().unwrap();
/// test_device::fail_device_call(40, "copy_async", 2).unwrap();
/// assert_eq!(a.sync_host().unwrap_err().kind(), ErrorKind::Device); // one of its chunks failed
/// assert!(a.need_sync_host());
/// assert!(test_device::fail_device_call(40, "no_such_call", 1).is_err());
/// ```
pub fn fail_device_call(ordinal: u32, call: &str, nth: u64) -> Result<()> {
    let d = device(ordinal)?;
    let name = driver::call_name(call)?;
    let mut f = d.faults.lock().unwrap_or_else(|e| e.into_inner());
    f.retain(|(c, _)| *c != name);
    if nth > 0 {
        f.push((name, nth));
    }
    d.faulty.store(!f.is_empty(), Ordering::SeqCst);
    Ok(())
}

/// Whether the failure of `call` that [`fail_device_call`] set on `ordinal` is due now (counted).
fn device_fault_due(ordinal: u32, call: &str) -> bool {
    let Ok(d) = device(ordinal) else { return false };
    if !d.faulty.load(Ordering::SeqCst) {
        return false;
    }
    let mut f = d.faults.lock().unwrap_or_else(|e| e.into_inner());
    let Some(i) = f.iter().position(|(c, _)| *c == call) else { return false };
    f[i].1 -= 1;
    let due = f[i].1 == 0;
    if due {
        f.swap_remove(i);
        d.faulty.store(!f.is_empty(), Ordering::SeqCst);
    }
    due
}

/// Count one copy queued on device `ordinal` (see [`queued_copies`]).
fn count_queued(ordinal: u32) {
    if let Ok(d) = device(ordinal) {
        d.queued.fetch_add(1, Ordering::SeqCst);
    }
}

/// How many copies were queued on test device `ordinal`'s streams so far, from any
/// thread (the engine's pieces of a pipelined copy, which [`driver_calls`] sees only on its own thread).
///
/// ```
/// # use dualview::memory::test_device;
/// assert!(test_device::queued_copies(41).is_ok());
/// assert!(test_device::queued_copies(test_device::ORDINALS).is_err());
/// ```
pub fn queued_copies(ordinal: u32) -> Result<u64> {
    Ok(device(ordinal)?.queued.load(Ordering::SeqCst))
}

/// Make the `nth` call named `call` of the test device's driver from now on,
/// on this thread, fail (1: the next one; 0 clears it), with an error that
/// names the call: `OutOfMemory` for `alloc` and `host_register`, `Device`
/// otherwise. The names are the engine's driver calls (`src/memory/device/driver.rs`).
///
/// ```
/// use dualview::{DualView, Dims, ErrorKind, Space};
/// use dualview::memory::test_device;
/// test_device::fail_driver_call("alloc", 1).unwrap();
/// // 8 KiB: one driver allocation of its own (a block of at most 4 KiB whose slab is refused gets another try).
/// let e = DualView::<f64, Dims<1>>::builder("x", Dims::new([1024]).unwrap()).device(Space::test_device(0)).build().unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::OutOfMemory);
/// assert!(e.message().contains("alloc failed"), "{e}");
/// assert!(test_device::fail_driver_call("no_such_call", 1).is_err());
/// ```
pub fn fail_driver_call(call: &str, nth: u64) -> Result<()> {
    driver::fail(call, nth)
}

/// Run `f` and return, with its result, the test device's driver calls it
/// made on this thread, in order (`"bind"`, `"copy"`, `"synchronize"`, ...).
///
/// ```
/// use dualview::{DualView, Dims, Space};
/// use dualview::memory::test_device;
/// let a = DualView::<f64, Dims<1>>::builder("x", Dims::new([8]).unwrap()).device(Space::test_device(0)).build().unwrap();
/// a.modify_host().unwrap();
/// let (r, calls) = test_device::driver_calls(|| a.sync_device());
/// r.unwrap();
/// // One bind, Kokkos' fence, one copy, the wait for it to land.
/// assert_eq!(calls, ["bind", "synchronize", "copy_async", "stream_synchronize"]);
/// ```
pub fn driver_calls<R>(f: impl FnOnce() -> R) -> (R, Vec<&'static str>) {
    driver::record(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Allocation;
    use crate::space::Space;

    #[test]
    fn capacity_is_enforced_and_released() {
        // Every byte counted at its own size: no size classes, no kept blocks on this device.
        set_keeps_small_blocks(63, false).unwrap();
        set_capacity(63, Some(100)).unwrap();
        let label: std::sync::Arc<str> = "cap".into();
        let a = Allocation::new(Space::test_device(63), 80, true, &label).unwrap();
        assert_eq!(used_bytes(63).unwrap(), 80);
        let e = Allocation::new(Space::test_device(63), 40, true, &label).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::OutOfMemory, "{e}");
        assert_eq!(e.message(), "TestDeviceSpace(63): allocation of 40 bytes: over the capacity of 100 bytes");
        assert_eq!(used_bytes(63).unwrap(), 80);
        drop(a);
        assert_eq!(used_bytes(63).unwrap(), 0);
        set_capacity(63, None).unwrap();
    }
}
