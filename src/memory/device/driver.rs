//! The raw calls the device engine makes: one [`Driver`] per GPU vendor
//! (`src/memory/device/drivers/cuda.rs`) and one fake (`src/memory/device/drivers/fake/driver.rs`).
//! Every call acts on the device bound to the calling thread by
//! [`Driver::bind`], as CUDA's current context does. The raw layer, as
//! cudarc's `result` is: addresses are [`Addr`] (never null), events
//! [`EventHandle`] (never null, not `Clone`: destroyed once), streams
//! [`StreamHandle`] (never null; `None`: the default stream). Only `raw.rs` calls the `unsafe` ones.
//!
//! | group | calls |
//! | --- | --- |
//! | devices | `device_count`, `bind`, `restore` |
//! | memory | `alloc`, `free`, `grow_in_place`, `can_grow_in_place` |
//! | copies | `copy` (synchronous), `copy_async`, `copy_peer_async`, `copy_2d_async`, `memset_async`, `prefetch_async` |
//! | waiting | `synchronize`, `stream_synchronize` |
//! | streams | `stream_create`, `stream_destroy`, `launch_host_fn` |
//! | events | `event_create`, `event_record`, `event_query`, `event_synchronize`, `event_destroy`, `stream_wait_event` |
//! | host memory | `host_register`, `host_unregister`, `is_page_locked` |
//!
//! What the engine does differently by device (register mirrors, keep small
//! blocks, grow in place) is no question to the driver: an `EnginePolicy`
//! the engine's maker gives it (`mod.rs`).

use crate::error::{Error, Result};
use crate::space::Stream;
use std::num::NonZeroUsize;

pub(crate) use crate::space::Mem;

/// An address a driver call reads or writes: device memory, or the host
/// memory of a copy. Never null.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Addr(NonZeroUsize);

impl Addr {
    /// `a`, unless it is 0.
    pub(crate) const fn new(a: usize) -> Option<Addr> {
        match NonZeroUsize::new(a) {
            Some(a) => Some(Addr(a)),
            None => None,
        }
    }

    /// The address of a pointer, unless it is null.
    pub(crate) fn of<T>(p: *const T) -> Option<Addr> {
        Addr::new(p as usize)
    }

    /// The address as a number.
    pub(crate) const fn get(self) -> usize {
        self.0.get()
    }

    /// `bytes` further on (an offset inside the range the address starts).
    pub(crate) const fn add(self, bytes: usize) -> Addr {
        Addr(self.0.saturating_add(bytes))
    }
}

/// A stream of the driver (made by [`Driver::stream_create`], or a
/// caller's, handed in): never null. A call that takes
/// `Option<StreamHandle>` runs on the default stream for `None` ([`on`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StreamHandle(NonZeroUsize);

impl StreamHandle {
    /// The driver's raw handle.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the CUDA driver's
    pub(crate) const fn get(self) -> usize {
        self.0.get()
    }

    /// The public handle of this stream.
    pub(crate) const fn stream(self) -> Stream {
        Stream::from_raw(self.0.get())
    }
}

/// The driver's form of `s`: `None` for the default (null) stream.
pub(crate) const fn on(s: Stream) -> Option<StreamHandle> {
    match NonZeroUsize::new(s.as_raw()) {
        Some(h) => Some(StreamHandle(h)),
        None => None,
    }
}

/// An event a driver made ([`Driver::event_create`]), until
/// [`Driver::event_destroy`] takes it. Never null; not `Clone`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct EventHandle(NonZeroUsize);

impl EventHandle {
    /// The driver's handle `raw`, unless it is 0.
    ///
    /// # Safety
    /// `raw` is an event the driver just made, handed to no one else: the
    /// handle is its only owner (it is destroyed through it, once).
    pub(crate) const unsafe fn new(raw: usize) -> Option<EventHandle> {
        match NonZeroUsize::new(raw) {
            Some(r) => Some(EventHandle(r)),
            None => None,
        }
    }

    /// The raw handle, for the driver's own call.
    pub(crate) const fn get(&self) -> usize {
        self.0.get()
    }
}

/// The direction of a contiguous copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Host to device.
    HtoD,
    /// Device to host.
    DtoH,
    /// Device to device (one device).
    DtoD,
}

/// One 2D copy: `height` rows of `width` bytes, each row `pitch` bytes after the last.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the memories: read by the CUDA driver
pub(crate) struct Copy2D {
    /// First destination row.
    pub dst: Addr,
    /// What the destination is.
    pub dst_mem: Mem,
    /// Bytes from one destination row to the next.
    pub dst_pitch: usize,
    /// First source row.
    pub src: Addr,
    /// What the source is.
    pub src_mem: Mem,
    /// Bytes from one source row to the next.
    pub src_pitch: usize,
    /// Bytes per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

/// The word a device memset repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Word {
    /// One byte.
    W8(u8),
    /// Two bytes.
    W16(u16),
    /// Four bytes.
    W32(u32),
}

/// Work a stream runs on the host when it reaches it (CUDA `cuLaunchHostFunc`).
/// It may not call the driver.
pub(crate) type HostFn = Box<dyn FnOnce() + Send>;

/// The raw calls of one GPU driver, on the device bound to the calling thread.
/// Each error names the call (`"cuMemcpyAsync failed: ..."`).
///
/// # Safety of the `unsafe` calls
/// Every address lies in live memory of the kind named (or implied by the
/// direction) for the whole range, the caller keeps it live and unshared until
/// the call (or, when queued, the stream) has run, and streams are handles
/// this driver made and has not released (events: [`EventHandle`]s).
pub(crate) trait Driver: Send + Sync {
    /// Devices this process can use through this driver; 0 when the driver is absent.
    fn device_count(&self) -> usize;
    /// Make device `ordinal` current on this thread: `Some(previous)` when that
    /// changed what was current (for [`Driver::restore`]).
    fn bind(&self, ordinal: u32) -> Result<Option<usize>>;
    /// Make `previous`, from [`Driver::bind`], current again.
    fn restore(&self, previous: usize);

    /// `bytes` (more than 0) of `mem` (`Pinned`, `Device` or `Managed`), aligned to 64 bytes.
    fn alloc(&self, bytes: usize, mem: Mem) -> Result<Addr>;
    /// Free a block from [`Driver::alloc`] (waits for the device's work on it).
    ///
    /// # Safety
    /// `addr`, `bytes` and `mem` are those of one `alloc` on the bound device, not used afterwards.
    unsafe fn free(&self, addr: Addr, bytes: usize, mem: Mem);
    /// Grow a `Device` block to `new` bytes in place, keeping its contents
    /// (the new bytes zero): `Ok(false)` when it cannot.
    ///
    /// # Safety
    /// `addr` and `old` describe a live block of device `ordinal`; `new >= old`.
    unsafe fn grow_in_place(&self, _ordinal: u32, _addr: Addr, _old: usize, _new: usize) -> Result<bool> {
        Ok(false)
    }
    /// Whether [`Driver::grow_in_place`] would succeed.
    fn can_grow_in_place(&self, _ordinal: u32, _addr: Addr, _old: usize, _new: usize) -> bool {
        false
    }

    /// A synchronous contiguous copy (`cuMemcpyHtoD` / `cuMemcpyDtoH`): the
    /// source may be reused on return, and a copy to the host, or from
    /// page-locked memory, is complete. One from pageable host memory to the
    /// device may land later, on the default stream (CUDA's API
    /// synchronization behavior): the engine makes none (G8), and a caller
    /// that did would wait for that stream before work not ordered after it.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy(&self, dst: Addr, src: Addr, bytes: usize, dir: Dir) -> Result<()>;
    /// A contiguous copy queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy_async(&self, dst: Addr, src: Addr, bytes: usize, dir: Dir, stream: Option<StreamHandle>) -> Result<()>;
    /// A contiguous copy between two devices, queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy_peer_async(&self, dst: Addr, dst_device: u32, src: Addr, src_device: u32, bytes: usize, stream: Option<StreamHandle>) -> Result<()>;
    /// A 2D copy queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy_2d_async(&self, c: &Copy2D, stream: Option<StreamHandle>) -> Result<()>;
    /// Write `word` `count` times from `dst` (device memory), queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn memset_async(&self, dst: Addr, word: Word, count: usize, stream: Option<StreamHandle>) -> Result<()>;
    /// Move managed memory towards device `to` (`None`: the host), queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn prefetch_async(&self, addr: Addr, bytes: usize, to: Option<u32>, stream: Option<StreamHandle>) -> Result<()>;

    /// Wait for all work of the bound device.
    fn synchronize(&self) -> Result<()>;
    /// Wait for the work queued on `stream` (the default stream: its own work).
    fn stream_synchronize(&self, stream: Option<StreamHandle>) -> Result<()>;
    /// A stream that does not wait for the default one.
    fn stream_create(&self) -> Result<StreamHandle>;
    /// Release a stream (its work still runs).
    ///
    /// # Safety
    /// See the trait.
    unsafe fn stream_destroy(&self, stream: StreamHandle) -> Result<()>;
    /// Run `f` on the host once `stream` reaches this point. When it cannot be
    /// queued, `f` comes back with the error.
    fn launch_host_fn(&self, stream: Option<StreamHandle>, f: HostFn) -> std::result::Result<(), (Error, HostFn)>;

    /// A new event (timing off).
    fn event_create(&self) -> Result<EventHandle>;
    /// Record `event` after the work queued on `stream` so far.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_record(&self, event: &EventHandle, stream: Option<StreamHandle>) -> Result<()>;
    /// Whether `event` has passed: `Ok(false)` while its work runs.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_query(&self, event: &EventHandle) -> Result<bool>;
    /// Wait on the host for `event`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_synchronize(&self, event: &EventHandle) -> Result<()>;
    /// Release `event` (its work still runs).
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_destroy(&self, event: EventHandle);
    /// Make `stream`'s later work wait for `event`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn stream_wait_event(&self, stream: Option<StreamHandle>, event: &EventHandle) -> Result<()>;

    /// Page-lock `[addr, addr + len)` of pageable host memory for every device.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn host_register(&self, addr: Addr, len: usize) -> Result<()>;
    /// Undo the [`Driver::host_register`] that starts at `addr`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn host_unregister(&self, addr: Addr);
    /// Whether `addr` is page-locked host memory (pinned or registered). Never an error.
    fn is_page_locked(&self, addr: usize) -> bool;
}
