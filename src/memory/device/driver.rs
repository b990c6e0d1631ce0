//! The raw calls the device engine makes: one [`Driver`] per GPU vendor
//! (`src/memory/device/drivers/cuda.rs`) and one fake (`src/memory/device/drivers/fake/driver.rs`).
//! Every call acts on the device bound to the calling thread by
//! [`Driver::bind`], as CUDA's current context does; addresses are plain
//! numbers, streams and events raw handles.
//!
//! | group | calls |
//! | --- | --- |
//! | devices | `device_count`, `bind`, `restore` |
//! | memory | `alloc`, `free`, `grow_in_place`, `can_grow_in_place` |
//! | copies | `copy` (synchronous), `copy_async`, `copy_peer_async`, `copy_2d_async`, `memset_async`, `prefetch_async` |
//! | waiting | `synchronize`, `stream_synchronize` |
//! | streams | `stream_create`, `stream_destroy`, `launch_host_fn` |
//! | events | `event_create`, `event_record`, `event_query`, `event_synchronize`, `event_destroy`, `stream_wait_event` |
//! | host memory | `host_register`, `host_unregister`, `is_page_locked`, `registers_mirrors` |
//! | policy | `keeps_small_blocks` |

use crate::error::{Error, Result};
use crate::space::Stream;

pub(crate) use crate::space::Mem;

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
    pub dst: usize,
    /// What the destination is.
    pub dst_mem: Mem,
    /// Bytes from one destination row to the next.
    pub dst_pitch: usize,
    /// First source row.
    pub src: usize,
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
/// the call (or, when queued, the stream) has run, and streams and events are
/// handles this driver made and has not released.
pub(crate) trait Driver: Send + Sync {
    /// Devices this process can use through this driver; 0 when the driver is absent.
    fn device_count(&self) -> usize;
    /// Make device `ordinal` current on this thread: `Some(previous)` when that
    /// changed what was current (for [`Driver::restore`]).
    fn bind(&self, ordinal: u32) -> Result<Option<usize>>;
    /// Make `previous`, from [`Driver::bind`], current again.
    fn restore(&self, previous: usize);

    /// `bytes` (more than 0) of `mem` (`Pinned`, `Device` or `Managed`), aligned to 64 bytes.
    fn alloc(&self, bytes: usize, mem: Mem) -> Result<usize>;
    /// Free a block from [`Driver::alloc`] (waits for the device's work on it).
    ///
    /// # Safety
    /// `addr`, `bytes` and `mem` are those of one `alloc` on the bound device, not used afterwards.
    unsafe fn free(&self, addr: usize, bytes: usize, mem: Mem);
    /// Grow a `Device` block to `new` bytes in place, keeping its contents
    /// (the new bytes zero): `Ok(false)` when it cannot.
    ///
    /// # Safety
    /// `addr` and `old` describe a live block of device `ordinal`; `new >= old`.
    unsafe fn grow_in_place(&self, _ordinal: u32, _addr: usize, _old: usize, _new: usize) -> Result<bool> {
        Ok(false)
    }
    /// Whether [`Driver::grow_in_place`] would succeed.
    fn can_grow_in_place(&self, _ordinal: u32, _addr: usize, _old: usize, _new: usize) -> bool {
        false
    }

    /// A contiguous copy that is complete on return.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy(&self, dst: usize, src: usize, bytes: usize, dir: Dir) -> Result<()>;
    /// A contiguous copy queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy_async(&self, dst: usize, src: usize, bytes: usize, dir: Dir, stream: Stream) -> Result<()>;
    /// A contiguous copy between two devices, queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy_peer_async(&self, dst: usize, dst_device: u32, src: usize, src_device: u32, bytes: usize, stream: Stream) -> Result<()>;
    /// A 2D copy queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn copy_2d_async(&self, c: &Copy2D, stream: Stream) -> Result<()>;
    /// Write `word` `count` times from `dst` (device memory), queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn memset_async(&self, dst: usize, word: Word, count: usize, stream: Stream) -> Result<()>;
    /// Move managed memory towards device `to` (`None`: the host), queued on `stream`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn prefetch_async(&self, addr: usize, bytes: usize, to: Option<u32>, stream: Stream) -> Result<()>;

    /// Wait for all work of the bound device.
    fn synchronize(&self) -> Result<()>;
    /// Wait for the work queued on `stream` (the default stream: its own work).
    fn stream_synchronize(&self, stream: Stream) -> Result<()>;
    /// A stream that does not wait for the default one.
    fn stream_create(&self) -> Result<Stream>;
    /// Release a stream (its work still runs).
    ///
    /// # Safety
    /// See the trait.
    unsafe fn stream_destroy(&self, stream: Stream) -> Result<()>;
    /// Run `f` on the host once `stream` reaches this point. When it cannot be
    /// queued, `f` comes back with the error.
    fn launch_host_fn(&self, stream: Stream, f: HostFn) -> std::result::Result<(), (Error, HostFn)>;

    /// A new event (timing off).
    fn event_create(&self) -> Result<usize>;
    /// Record `event` after the work queued on `stream` so far.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_record(&self, event: usize, stream: Stream) -> Result<()>;
    /// Whether `event` has passed: `Ok(false)` while its work runs.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_query(&self, event: usize) -> Result<bool>;
    /// Wait on the host for `event`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_synchronize(&self, event: usize) -> Result<()>;
    /// Release `event` (its work still runs).
    ///
    /// # Safety
    /// See the trait.
    unsafe fn event_destroy(&self, event: usize);
    /// Make `stream`'s later work wait for `event`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn stream_wait_event(&self, stream: Stream, event: usize) -> Result<()>;

    /// Page-lock `[addr, addr + len)` of pageable host memory for every device.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn host_register(&self, addr: usize, len: usize) -> Result<()>;
    /// Undo the [`Driver::host_register`] that starts at `addr`.
    ///
    /// # Safety
    /// See the trait.
    unsafe fn host_unregister(&self, addr: usize);
    /// Whether `addr` is page-locked host memory (pinned or registered). Never an error.
    fn is_page_locked(&self, addr: usize) -> bool;
    /// Whether DualViews over device `ordinal` register their pageable mirrors (docs/GPU.md).
    fn registers_mirrors(&self, ordinal: u32) -> bool;
    /// Whether the engine keeps the small device blocks of `ordinal` for reuse (DECISIONS G20).
    /// Constant while the device has memory allocated.
    fn keeps_small_blocks(&self, ordinal: u32) -> bool;
}
