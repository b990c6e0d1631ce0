//! The device engine: every GPU policy that is not a vendor's, written once
//! over a small [`Driver`] (`driver.rs`). The CUDA driver (`src/memory/device/drivers/cuda.rs`)
//! and the test device's fake one (`src/memory/device/drivers/fake/driver.rs`) run the
//! same code, so every CPU test exercises what the H200 runs.
//!
//! | file | policy |
//! | --- | --- |
//! | `mod.rs` | [`Engine`] and the [`Backend`] of each of its memories; binding a device once per call |
//! | `blocks.rs` | small device blocks kept for reuse instead of freed (G20) |
//! | `copy.rs` | a copy planned once: the tiny synchronous path (G8), contiguous, peer and 2D copies (G3), strided copies between devices through a host buffer |
//! | `stage.rs` | asynchronous copies of pageable memory staged through a pool of pinned buffers, a host function as the completion (G13) |
//! | `events.rs` | the event pool, host-function flags as events, streams |
//! | `fill.rs` | fills by memset widths, by doubling, and through a packed scratch block |
//! | `driver.rs` | the [`Driver`] trait: the raw calls, about 25 |

mod blocks;
mod copy;
pub(crate) mod driver;
pub(crate) mod drivers;
mod events;
mod fill;
mod stage;

use super::registration::{HostDriver, Registration};
use super::{allocation_point, host, Backend, HostRegistration, Transfer};
use crate::space::{Region, Space, SpaceKind, Stream};
use crate::error::{bail, Error, Result};
use crate::side::Side;
use copy::End;
pub(crate) use driver::{Copy2D, Dir, Driver, HostFn, Mem, Word};
use std::ptr::NonNull;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// One driver with the engine's state: the pools of pinned staging buffers
/// and of idle events, and the registered mirror bytes.
pub(crate) struct Engine {
    driver: &'static dyn Driver,
    /// Pinned staging buffers not in use (`stage.rs`).
    pool: Mutex<Vec<stage::Buffer>>,
    /// Idle events by device, recorded again by later copies (`events.rs`).
    events: Mutex<Vec<(u32, usize)>>,
    /// Bytes of mirrors registered through this driver now.
    registered: AtomicUsize,
    /// Small device blocks freed by their DualViews, kept for the next ones (`blocks.rs`).
    kept: blocks::Kept,
}

impl Engine {
    /// An engine over `driver`.
    pub(crate) const fn new(driver: &'static dyn Driver) -> Engine {
        Engine { driver, pool: Mutex::new(Vec::new()), events: Mutex::new(Vec::new()), registered: AtomicUsize::new(0), kept: blocks::Kept::new() }
    }

    /// Make device `ordinal` current until the guard drops (what was current comes back).
    fn bind(&self, ordinal: u32) -> Result<Bound> {
        let restore = self.driver.bind(ordinal)?;
        Ok(Bound { driver: self.driver, restore })
    }
}

/// A device made current by [`Engine::bind`]; the caller's own binding comes
/// back on drop, so code that manages its own contexts is never switched behind its back.
struct Bound {
    driver: &'static dyn Driver,
    restore: Option<usize>,
}

impl Drop for Bound {
    fn drop(&mut self) {
        if let Some(prev) = self.restore {
            self.driver.restore(prev);
        }
    }
}

/// The backend of one space kind of an engine, whose memory is `Device`, `Managed` or `Pinned`.
pub(crate) struct DeviceBackend {
    engine: &'static Engine,
    kind: SpaceKind,
    mem: Mem,
}

impl DeviceBackend {
    /// The backend of `kind`'s memory through `engine`.
    pub(crate) const fn new(engine: &'static Engine, kind: SpaceKind) -> DeviceBackend {
        DeviceBackend { engine, kind, mem: kind.memory() }
    }

    /// The device an ordinal of this memory names (pinned host memory: device 0).
    fn device(&self, ordinal: u32) -> u32 {
        if self.mem == Mem::Pinned { 0 } else { ordinal }
    }

    fn driver(&self) -> &'static dyn Driver {
        self.engine.driver
    }
}

/// The memory a space's addresses are (the space table's `memory`).
fn mem(space: Space) -> Mem {
    space.kind().memory()
}

/// The device a copy between `dst` and `src` runs on: the destination's
/// when both are on a device; pinned host memory belongs to device 0.
fn device_of(dst: Space, src: Space) -> u32 {
    if mem(dst).on_device() {
        dst.ordinal()
    } else if mem(src).on_device() {
        src.ordinal()
    } else {
        0
    }
}

impl DeviceBackend {
    /// The size class of a block of `bytes` when it is small device memory of a
    /// device whose driver keeps such blocks (G20): then it is allocated at that
    /// size and kept for reuse when freed. `None`: allocated and freed as it is.
    fn kept_size(&self, ordinal: u32, bytes: usize) -> Option<usize> {
        (self.mem == Mem::Device && bytes <= blocks::SMALL_MAX && self.driver().keeps_small_blocks(ordinal)).then(|| blocks::size_of(bytes))
    }

    /// A new block from the driver; when it is out of memory, the device's
    /// kept blocks are freed and the allocation tried once more.
    fn alloc_or_drain(&self, ordinal: u32, size: usize) -> Result<usize> {
        let d = self.driver();
        match d.alloc(size, self.mem) {
            Err(e) if e.kind() == crate::error::ErrorKind::OutOfMemory && self.mem == Mem::Device => {
                let kept = self.engine.kept.drain(ordinal);
                if kept.is_empty() {
                    return Err(e);
                }
                for (a, s) in kept {
                    // SAFETY: kept blocks are idle blocks of this device's memory, of `s` bytes, handed out no more.
                    unsafe { d.free(a, s, self.mem) };
                }
                d.alloc(size, self.mem)
            }
            r => r,
        }
    }

    /// The device parties of a copy this engine drives are its own memory
    /// (host memory, pinned by any driver, is host memory to every one).
    fn check_parties(&self, dst: Space, src: Space) -> Result<()> {
        for s in [dst, src] {
            if mem(s).on_device() && !s.backend().is_ok_and(|b| b.engine().is_some_and(|e| std::ptr::eq(e, self.engine))) {
                bail!(Incompatible, "no copy path between {} and {}", src, dst);
            }
        }
        Ok(())
    }
}

impl Backend for DeviceBackend {
    fn engine(&self) -> Option<&'static Engine> {
        Some(self.engine)
    }

    fn allocate(&self, ordinal: u32, bytes: usize, zeroed: bool) -> Result<NonNull<u8>> {
        if bytes == 0 {
            return Ok(host::dangling());
        }
        let d = self.driver();
        let _bound = self.engine.bind(self.device(ordinal))?;
        let space = Space::new(self.kind, ordinal);
        let class = self.kept_size(ordinal, bytes);
        let size = class.unwrap_or(bytes);
        let kept = class.and_then(|c| self.engine.kept.take(ordinal, c));
        let a = match kept {
            Some(a) => a,
            None => self.alloc_or_drain(ordinal, size).map_err(|e| Error::new(e.kind(), format!("{space}: allocation of {bytes} bytes: {}", e.message())))?,
        };
        if zeroed {
            let z = if self.mem == Mem::Pinned {
                // SAFETY: the `bytes` of host memory just allocated.
                unsafe { std::ptr::write_bytes(a as *mut u8, 0, bytes) };
                Ok(())
            } else {
                // SAFETY: the block just allocated, on the bound device.
                unsafe { d.memset_async(a, Word::W8(0), bytes, Stream::null()) }.and_then(|()| d.synchronize())
            };
            if let Err(e) = z {
                // SAFETY: our own block, unused.
                unsafe { d.free(a, size, self.mem) };
                return Err(e);
            }
        }
        NonNull::new(a as *mut u8).ok_or_else(|| crate::error::err!(Device, "the driver returned address 0"))
    }

    unsafe fn deallocate(&self, ordinal: u32, ptr: NonNull<u8>, bytes: usize) {
        if bytes == 0 {
            return;
        }
        // Errors cannot be reported from a drop: they leave the memory to the driver.
        if let Ok(_bound) = self.engine.bind(self.device(ordinal)) {
            let idle = self.mem == Mem::Pinned || self.driver().synchronize().is_ok();
            let class = self.kept_size(ordinal, bytes);
            let size = class.unwrap_or(bytes);
            // Kept only once the synchronize above succeeded: no queued work uses it when it is
            // handed out again. Otherwise the driver's free (which waits for the device) takes it.
            if idle && class.is_some_and(|c| self.engine.kept.keep(ordinal, c, ptr.as_ptr() as usize)) {
                return;
            }
            // SAFETY: forwarded contract: a block of `allocate` with this memory, of `size` bytes.
            unsafe { self.driver().free(ptr.as_ptr() as usize, size, self.mem) };
        }
    }

    unsafe fn fill(&self, ordinal: u32, dst: &Region, value: &[u8], stream: Stream) -> Result<()> {
        if self.mem == Mem::Pinned {
            // SAFETY: forwarded contract; pinned memory is host memory.
            unsafe { host::fill(dst, value) };
            return Ok(());
        }
        let _bound = self.engine.bind(ordinal)?;
        stage::other_work_queued();
        // SAFETY: forwarded contract; the device is bound.
        unsafe { fill::fill(self.engine, ordinal, dst, value, stream) }
    }

    unsafe fn transfer(&self, _ordinal: u32, t: &Transfer<'_>) -> Result<()> {
        if !mem(t.dst).on_device() && !mem(t.src).on_device() {
            // Pinned and pageable host memory: plain copies, no device (and a fence only when asked).
            if t.fence {
                self.fence(0)?;
            }
            for (d, s) in t.pairs {
                // SAFETY: both host memory (pageable or pinned); forwarded contract.
                unsafe { host::copy(d, s) };
            }
            return Ok(());
        }
        self.check_parties(t.dst, t.src)?;
        // One bind for the fence and every copy.
        let _bound = self.engine.bind(device_of(t.dst, t.src))?;
        let d = self.driver();
        if t.fence {
            d.synchronize()?;
        }
        let mut queued = false;
        for (dr, sr) in t.pairs {
            // A view copy's host memory may be a registered mirror: on a stream, ask the driver.
            let pageable = t.pageable_host.unwrap_or_else(|| {
                let host = if mem(t.dst).on_device() { sr.ptr } else { dr.ptr };
                !t.stream.is_null() && !d.is_page_locked(host as usize)
            });
            // SAFETY: forwarded contract; the device is bound.
            match unsafe { copy::copy_bound(self.engine, End::of(t.dst, dr), End::of(t.src, sr), t.stream, pageable) } {
                Ok(q) => queued |= q,
                Err(e) => {
                    if t.stream.is_null() {
                        // The copies queued before this one (and part of this one, a 2D copy) still
                        // run: let them finish before the caller's borrows go (a default-stream sync
                        // is complete on return, even failed).
                        let _ = d.stream_synchronize(Stream::null());
                    }
                    return Err(e);
                }
            }
        }
        if queued && t.stream.is_null() {
            d.stream_synchronize(Stream::null())?;
        }
        Ok(())
    }

    fn fence(&self, ordinal: u32) -> Result<()> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        self.driver().synchronize()
    }

    fn event_record(&self, ordinal: u32, stream: Stream) -> Result<Option<usize>> {
        events::record(self.engine, self.device(ordinal), stream)
    }

    fn event_wait(&self, ordinal: u32, event: usize) -> Result<()> {
        events::wait(self.engine, self.device(ordinal), event)
    }

    fn event_done(&self, ordinal: u32, event: usize) -> bool {
        events::done(self.engine, self.device(ordinal), event)
    }

    fn event_order(&self, ordinal: u32, event: usize, stream: Stream) -> Result<()> {
        events::order(self.engine, self.device(ordinal), event, stream)
    }

    fn event_release(&self, ordinal: u32, event: usize) {
        events::release(self.engine, self.device(ordinal), event)
    }

    fn stream_create(&self, ordinal: u32) -> Result<Stream> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        self.driver().stream_create()
    }

    fn stream_destroy(&self, ordinal: u32, stream: Stream) -> Result<()> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        // SAFETY: the caller's stream from stream_create; its work still runs.
        unsafe { self.driver().stream_destroy(stream) }
    }

    fn stream_fence(&self, ordinal: u32, stream: Stream) -> Result<()> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        self.driver().stream_synchronize(stream)
    }

    unsafe fn grow_in_place(&self, ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> Result<bool> {
        if self.mem != Mem::Device {
            return Ok(false);
        }
        // SAFETY: forwarded contract.
        unsafe { self.driver().grow_in_place(ordinal, ptr.as_ptr() as usize, old, new) }
    }

    fn can_grow_in_place(&self, ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> bool {
        self.mem == Mem::Device && self.driver().can_grow_in_place(ordinal, ptr.as_ptr() as usize, old, new)
    }

    fn registers_mirror(&self, ordinal: u32, host: Space) -> bool {
        self.mem == Mem::Device && host == Space::HOST && self.driver().registers_mirrors(ordinal)
    }

    fn mirror_registration(&self, _ordinal: u32, ptr: NonNull<u8>, bytes: usize, label: &Arc<str>) -> Option<Box<dyn HostRegistration>> {
        if self.mem != Mem::Device {
            return None;
        }
        Some(Box::new(Registration::new(self.engine, ptr.as_ptr() as usize, bytes, label.clone())))
    }

    unsafe fn prefetch(&self, ordinal: u32, region: &Region, to: Side, stream: Stream) -> Result<()> {
        if self.mem != Mem::Managed {
            return Ok(());
        }
        stage::other_work_queued();
        let span = crate::layout::Mapping::with_strides(region.extents, region.strides.as_slice()).map(|m| m.span()).unwrap_or(0);
        if span == 0 {
            return Ok(());
        }
        let _bound = self.engine.bind(ordinal)?;
        let target = match to {
            Side::Device => Some(ordinal),
            Side::Host => None,
        };
        let d = self.driver();
        // SAFETY: the range lies inside a live managed allocation (forwarded contract).
        unsafe { d.prefetch_async(region.ptr as usize, span * region.elem_size, target, stream)? };
        if stream.is_null() {
            d.stream_synchronize(Stream::null())?;
        }
        Ok(())
    }
}

/// The engine as the registration state machine sees it.
impl HostDriver for Engine {
    fn populate(&self, addr: usize, len: usize) {
        host::populate(addr as *mut u8, len);
    }

    fn register(&self, addr: usize, len: usize) -> Result<()> {
        // The failure injection of the tests reaches the refusal path here.
        allocation_point("mirror registration")?;
        let _bound = self.bind(0)?;
        // SAFETY: a live host block the state machine owns the registration of;
        // registration only pins its pages.
        unsafe { self.driver.host_register(addr, len) }
    }

    fn unregister(&self, addr: usize) {
        if let Ok(_bound) = self.bind(0) {
            // SAFETY: a range registered by `register`; errors leave it to the driver.
            unsafe { self.driver.host_unregister(addr) };
        }
    }

    fn registered_bytes(&self) -> &AtomicUsize {
        &self.registered
    }
}

#[cfg(test)]
mod tests;
