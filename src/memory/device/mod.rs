//! The device engine: every GPU policy that is not a vendor's, written once
//! over a small [`Driver`] (`driver.rs`). The CUDA driver (`src/memory/device/drivers/cuda.rs`)
//! and the test device's fake one (`src/memory/device/drivers/fake/driver.rs`) run the
//! same code, so every CPU test exercises what the H200 runs.
//!
//! | file | policy |
//! | --- | --- |
//! | `mod.rs` | [`Engine`] and the [`Backend`] of each of its memories; binding a device once per call |
//! | `blocks.rs` | small device blocks kept for reuse instead of freed (G20) |
//! | `copy.rs` | a copy planned once: the tiny path (G8), contiguous, peer and 2D copies (G3), strided copies between devices through a host buffer |
//! | `stage.rs` | asynchronous copies of pageable memory staged through a pool of pinned buffers, a host function as the completion (G13) |
//! | `pipeline.rs` | large synchronous copies of pageable memory through those buffers, the device's copy overlapping the host's threads: to the device a ring, to the host lanes (G24) |
//! | `events.rs` | the event pool, host-function flags as events ([`Mark`]) |
//! | `fill.rs` | fills by memset widths, by doubling, and through a packed scratch block |
//! | `raw.rs` | every driver call that reads, writes or releases, with the address arithmetic of copies and fills: the engine's only `unsafe` |
//! | `driver.rs` | the [`Driver`] trait: the raw calls, about 25, on typed handles |

mod blocks;
mod copy;
pub(crate) mod driver;
pub(crate) mod drivers;
mod events;
mod fill;
mod pipeline;
mod raw;
mod stage;

use super::registration::{HostDriver, Registration};
use super::{allocation_point, host, Backend, Block, Held, HostRegistration, Transfer};
use crate::space::{Space, SpaceKind, Stream};
use crate::error::{bail, Error, Result};
use crate::side::Side;
pub(crate) use driver::{on, Addr, Copy2D, Dir, Driver, EventHandle, HostFn, Mem, StreamHandle, Word};
pub(crate) use events::Mark;
use std::ptr::NonNull;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// What an engine does differently by device, one rule a function of the
/// device ordinal: given by whoever makes the engine (the CUDA driver's
/// module: constants but `DV_PAGEABLE_MIRROR`, read when a DualView is made;
/// the test device: its switches per ordinal), never asked of the raw driver.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EnginePolicy {
    /// DualViews over the device register their pageable host mirrors (docs/GPU.md, G13).
    pub registers_mirrors: fn(u32) -> bool,
    /// Small device blocks are kept for reuse (G20); constant while the device has memory allocated.
    pub keeps_small_blocks: fn(u32) -> bool,
    /// Device blocks may grow in place (CUDA's never do).
    pub grows_in_place: fn(u32) -> bool,
}

/// One driver with the engine's state: the pools of pinned staging buffers
/// and of idle events, and the registered mirror bytes.
pub(crate) struct Engine {
    driver: &'static dyn Driver,
    /// The policy of each device.
    policy: EnginePolicy,
    /// Pinned staging buffers not in use (`stage.rs`).
    pool: Mutex<Vec<stage::Buffer>>,
    /// Idle events by device, recorded again by later copies (`events.rs`).
    events: Mutex<Vec<(u32, EventHandle)>>,
    /// Bytes of mirrors registered through this driver now.
    registered: AtomicUsize,
    /// Small device blocks freed by their DualViews, kept for the next ones (`blocks.rs`).
    kept: blocks::Kept,
    /// Idle streams of the pipeline's lanes by device, kept for the process (`pipeline.rs`).
    lanes: Mutex<Vec<(u32, StreamHandle)>>,
}

impl Engine {
    /// An engine over `driver`, run by `policy`.
    pub(crate) const fn new(driver: &'static dyn Driver, policy: EnginePolicy) -> Engine {
        Engine {
            driver,
            policy,
            pool: Mutex::new(Vec::new()),
            events: Mutex::new(Vec::new()),
            registered: AtomicUsize::new(0),
            kept: blocks::Kept::new(),
            lanes: Mutex::new(Vec::new()),
        }
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
        (self.mem == Mem::Device && bytes <= blocks::SMALL_MAX && (self.engine.policy.keeps_small_blocks)(ordinal)).then(|| blocks::size_of(bytes))
    }

    /// A new block from the driver; when it is out of memory, the device's
    /// kept blocks are freed and the allocation tried once more.
    fn alloc_or_drain(&self, ordinal: u32, size: usize) -> Result<Block> {
        match raw::alloc(self.engine, size, self.mem) {
            Err(e) if e.kind() == crate::error::ErrorKind::OutOfMemory && self.mem == Mem::Device => {
                let kept = self.engine.kept.drain(ordinal);
                if kept.is_empty() {
                    return Err(e);
                }
                for b in kept {
                    raw::free(self.engine, b, self.mem);
                }
                raw::alloc(self.engine, size, self.mem)
            }
            r => r,
        }
    }

    /// A zeroed slot of `first`'s class: `first`, dirty, is zeroed with the class's
    /// other dirty slots (one synchronize for all, DECISIONS G20); one of them is
    /// returned, the others go back clean. On a failure every one goes back dirty
    /// once a synchronize succeeds (else none ever does).
    fn zero_dirty(&self, ordinal: u32, first: Block) -> Result<Block> {
        let blocks::Dirty { mut slots, runs } = self.engine.kept.take_dirty(ordinal, first);
        match raw::zero_runs(self.engine, &runs) {
            Ok(()) => {
                let mine = slots.swap_remove(0);
                for slab in self.engine.kept.give_clean(ordinal, slots) {
                    raw::free(self.engine, slab, self.mem);
                }
                Ok(mine)
            }
            Err(e) => {
                let idle = self.driver().synchronize().is_ok();
                for b in slots {
                    self.give_back(ordinal, b, idle);
                }
                Err(e)
            }
        }
    }

    /// Free `block`: a slot back to its slab (an idle slab past the few kept
    /// then goes to the driver) when `idle` (no queued work can still use it;
    /// else it is never handed out again), any other block to the driver.
    fn give_back(&self, ordinal: u32, block: Block, idle: bool) {
        if !idle && self.engine.kept.is_slot(ordinal, block.addr()) {
            return;
        }
        match self.engine.kept.give_slot(ordinal, block) {
            Ok(None) => {}
            Ok(Some(b)) | Err(b) => raw::free(self.engine, b, self.mem),
        }
    }

    /// The device parties of a copy this engine drives are its own memory
    /// (host memory, pinned by any driver, is host memory to every one): a
    /// space of the same driver's feature.
    fn check_parties(&self, dst: Space, src: Space) -> Result<()> {
        let mine = crate::space::feature_of(self.kind);
        for s in [dst, src] {
            // The backend's own kind first: a sync's device party is (no string compared).
            if mem(s).on_device() && s.kind() != self.kind && crate::space::feature_of(s.kind()) != mine {
                bail!(Incompatible, "no copy path between {} and {}", src, dst);
            }
        }
        Ok(())
    }
}

impl Backend for DeviceBackend {
    fn allocate(&self, ordinal: u32, bytes: usize, zeroed: bool) -> Result<Block> {
        if bytes == 0 {
            return Ok(Block::empty(host::dangling()));
        }
        let _bound = self.engine.bind(self.device(ordinal))?;
        let space = Space::new(self.kind, ordinal);
        let class = self.kept_size(ordinal, bytes);
        let size = class.unwrap_or(bytes);
        let failed = |e: Error| Error::new(e.kind(), format!("{space}: allocation of {bytes} bytes: {}", e.message()));
        // A slot comes zeroed from its slab (a clean slot, a new slab zeroed whole, or dirty
        // slots zeroed together); any other block is zeroed here.
        let (block, zero_here) = if class.is_some_and(blocks::is_slot_size) {
            match self.engine.kept.take_slot(ordinal, size, zeroed) {
                Some((b, clean)) if zeroed && !clean => (self.zero_dirty(ordinal, b)?, false),
                Some((b, _)) => (b, false),
                None => match self.alloc_or_drain(ordinal, blocks::SLAB) {
                    Ok(slab) => {
                        if zeroed && let Err(e) = raw::zero_new(self.engine, &slab, self.mem, blocks::SLAB) {
                            // Never carved: the driver's free (which waits for the device) takes it.
                            raw::free(self.engine, slab, self.mem);
                            return Err(e);
                        }
                        (self.engine.kept.add_slab(ordinal, size, slab, zeroed), false)
                    }
                    // No room for a slab: a block of its own, as before slabs (its free, not a
                    // slot, goes to the driver).
                    Err(e) if e.kind() == crate::error::ErrorKind::OutOfMemory => (self.alloc_or_drain(ordinal, size).map_err(failed)?, zeroed),
                    Err(e) => return Err(failed(e)),
                },
            }
        } else {
            let b = match class.and_then(|c| self.engine.kept.take(ordinal, c)) {
                Some(b) => b,
                None => self.alloc_or_drain(ordinal, size).map_err(failed)?,
            };
            (b, zeroed)
        };
        if let Err(e) = if zero_here { raw::zero_new(self.engine, &block, self.mem, bytes) } else { Ok(()) } {
            // A slot goes back only once no queued zeroing can still write it (as in `deallocate`).
            let idle = self.driver().synchronize().is_ok();
            self.give_back(ordinal, block, idle);
            return Err(e);
        }
        Ok(block) // its size class when small: what `deallocate` keeps or frees
    }

    fn deallocate(&self, ordinal: u32, block: Block) {
        if block.bytes() == 0 {
            return;
        }
        // Errors cannot be reported from a drop: they leave the memory to the driver.
        if let Ok(_bound) = self.engine.bind(self.device(ordinal)) {
            let idle = self.mem == Mem::Pinned || self.driver().synchronize().is_ok();
            // A small block was allocated at its size class: the block's own size.
            let class = self.kept_size(ordinal, block.bytes()).filter(|&c| c == block.bytes());
            if class.is_some_and(blocks::is_slot_size) {
                // A slot goes back to its slab (its memory is the slab's, never the driver's
                // alone), once no queued work can use it; a block of its own (no room for a
                // slab) goes to the driver.
                self.give_back(ordinal, block, idle);
                return;
            }
            // Kept only once the synchronize above succeeded: no queued work uses it when it is
            // handed out again. Otherwise the driver's free (which waits for the device) takes it.
            let block = match class {
                Some(c) if idle => match self.engine.kept.keep(ordinal, c, block) {
                    Ok(()) => return,
                    Err(b) => b,
                },
                _ => block,
            };
            raw::free(self.engine, block, self.mem);
        }
    }

    fn fill(&self, ordinal: u32, dst: &Held<'_>, value: &[u8], stream: Stream) -> Result<()> {
        dst.check_fill(Space::new(self.kind, ordinal), value)?;
        if self.mem == Mem::Pinned {
            return host::fill(dst, value); // pinned memory is host memory
        }
        let _bound = self.engine.bind(ordinal)?;
        stage::other_work_queued();
        fill::fill(self.engine, dst, value, stream)
    }

    fn transfer(&self, _ordinal: u32, t: &Transfer<'_>) -> Result<()> {
        let (dst, src, stream) = (t.dst(), t.src(), t.stream());
        if !mem(dst).on_device() && !mem(src).on_device() {
            // Pinned and pageable host memory: plain copies, no device (and a fence only when asked).
            if t.fence() {
                self.fence(0)?;
            }
            return t.pairs().iter().try_for_each(host::copy);
        }
        self.check_parties(dst, src)?;
        // One bind for the fence and every copy.
        let _bound = self.engine.bind(device_of(dst, src))?;
        let d = self.driver();
        if t.fence() {
            d.synchronize()?;
        }
        let mut queued = false;
        for p in t.pairs() {
            // Wrapped host memory may be page-locked by its program (a copy of pageable memory is
            // staged, pipelined or waited for): ask the driver.
            let pageable = t.pageable_host().unwrap_or_else(|| {
                let host = if mem(dst).on_device() { p.src().region().ptr } else { p.dst().region().ptr };
                !d.is_page_locked(host as usize)
            });
            match copy::copy_bound(self.engine, p, stream, pageable) {
                Ok(q) => queued |= q,
                Err(e) => {
                    if stream.is_null() {
                        // The copies queued before this one (and part of this one, a 2D copy) still
                        // run: let them finish before the caller's borrows go (a default-stream sync
                        // is complete on return, even failed).
                        let _ = d.stream_synchronize(None);
                    }
                    return Err(e);
                }
            }
        }
        if queued && stream.is_null() {
            d.stream_synchronize(None)?;
        }
        Ok(())
    }

    fn fence(&self, ordinal: u32) -> Result<()> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        self.driver().synchronize()
    }

    fn event_record(&self, ordinal: u32, stream: Stream) -> Result<Option<Mark>> {
        events::record(self.engine, self.device(ordinal), stream)
    }

    fn event_wait(&self, ordinal: u32, event: &Mark) -> Result<()> {
        events::wait(self.engine, self.device(ordinal), event)
    }

    fn event_done(&self, ordinal: u32, event: &Mark) -> bool {
        events::done(self.engine, self.device(ordinal), event)
    }

    fn event_order(&self, ordinal: u32, event: &Mark, stream: Stream) -> Result<()> {
        events::order(self.engine, self.device(ordinal), event, stream)
    }

    fn event_release(&self, ordinal: u32, event: Mark) {
        events::release(self.engine, self.device(ordinal), event)
    }

    fn stream_create(&self, ordinal: u32) -> Result<Stream> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        self.driver().stream_create().map(StreamHandle::stream)
    }

    fn stream_destroy(&self, ordinal: u32, stream: Stream) -> Result<()> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        raw::stream_destroy(self.engine, stream)
    }

    fn stream_fence(&self, ordinal: u32, stream: Stream) -> Result<()> {
        let _bound = self.engine.bind(self.device(ordinal))?;
        self.driver().stream_synchronize(on(stream))
    }

    fn grow_in_place(&self, ordinal: u32, block: &Block, new: usize) -> Result<bool> {
        // A slot shares its slab: it never grows where it is.
        if self.mem != Mem::Device || !(self.engine.policy.grows_in_place)(ordinal) || self.engine.kept.is_slot(ordinal, block.addr()) {
            return Ok(false);
        }
        raw::grow_in_place(self.engine, ordinal, block, new)
    }

    fn can_grow_in_place(&self, ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> bool {
        self.mem == Mem::Device
            && (self.engine.policy.grows_in_place)(ordinal)
            && !self.engine.kept.is_slot(ordinal, ptr.as_ptr() as usize)
            && Addr::of(ptr.as_ptr()).is_some_and(|a| self.driver().can_grow_in_place(ordinal, a, old, new))
    }

    fn registers_mirror(&self, ordinal: u32, host: Space) -> bool {
        self.mem == Mem::Device && host == Space::HOST && (self.engine.policy.registers_mirrors)(ordinal)
    }

    fn mirror_registration(&self, _ordinal: u32, ptr: NonNull<u8>, bytes: usize, label: &Arc<str>) -> Option<Box<dyn HostRegistration>> {
        if self.mem != Mem::Device {
            return None;
        }
        Some(Box::new(Registration::new(self.engine, ptr.as_ptr() as usize, bytes, label.clone())))
    }

    fn prefetch(&self, ordinal: u32, region: &Held<'_>, to: Side, stream: Stream) -> Result<()> {
        if self.mem != Mem::Managed {
            return Ok(());
        }
        region.check_space(Space::new(self.kind, ordinal))?;
        stage::other_work_queued();
        let r = region.region();
        if r.extents.as_slice().contains(&0) {
            return Ok(());
        }
        let _bound = self.engine.bind(ordinal)?;
        let target = match to {
            Side::Device => Some(ordinal),
            Side::Host => None,
        };
        raw::prefetch(self.engine, region, target, stream)?;
        if stream.is_null() {
            self.driver().stream_synchronize(None)?;
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
        raw::host_register(self, addr, len)
    }

    fn unregister(&self, addr: usize) {
        if let Ok(_bound) = self.bind(0) {
            raw::host_unregister(self, addr);
        }
    }

    fn registered_bytes(&self) -> &AtomicUsize {
        &self.registered
    }
}

#[cfg(test)]
mod tests;
