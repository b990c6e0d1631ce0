//! The contract every space's backend keeps (`Backend`), the registration
//! of a host block with a device's driver (`HostRegistration`), the copies
//! of one sync (`Transfer`), and the two proofs the backends' methods take
//! instead of `unsafe` contracts: [`Held`] (a region live and held for a
//! fill or a copy) and [`Block`] (a block of one `allocate`, owned).
//!
//! | proof | made by | states |
//! | --- | --- | --- |
//! | [`Held`] | `unsafe` [`Held::new`]: the exclusive-access proof after its checks, `View`'s unsafe methods, the engines for their own buffers | the region lies in live memory until the work on it has run; no one else writes it, nor reads it where it is written |
//! | [`Block`] | `unsafe` [`Block::from_raw`]: the `Allocation` that owns the block | the address and size of one `allocate` (or grow) of this backend, used by no one else |

use super::device::Mark;
use crate::space::{Region, Space, Stream};
use crate::error::Result;
use crate::side::Side;
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::ptr::NonNull;
use std::sync::Arc;

/// A region proven live and held for the work on it: what fills, copies and
/// prefetches take. Only [`Held::new`] (unsafe) makes one, or an engine for
/// memory of its own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held<'a> {
    region: Region,
    _held: PhantomData<&'a ()>,
}

impl<'a> Held<'a> {
    /// `region`, held for `'a`.
    ///
    /// # Safety
    /// The region lies inside live memory of the space it is used with, and
    /// stays live for `'a` and, for work queued on a stream, until the stream
    /// has run it; meanwhile no one else writes it, nor reads it where the
    /// work writes it.
    pub(crate) const unsafe fn new(region: Region) -> Held<'a> {
        Held { region, _held: PhantomData }
    }

    /// A region a unit test holds, taking [`Held::new`]'s contract on itself.
    #[cfg(test)]
    pub(crate) const fn for_test(region: Region) -> Held<'a> {
        Held { region, _held: PhantomData }
    }

    /// The region.
    pub(crate) const fn region(&self) -> &Region {
        &self.region
    }
}

/// One block from [`Backend::allocate`], owned: what freeing and growing
/// take. Not `Clone`: a block is freed once.
#[derive(Debug)]
pub(crate) struct Block {
    addr: NonZeroUsize,
    bytes: usize,
}

impl Block {
    /// The block at `ptr` of `bytes`.
    ///
    /// # Safety
    /// `ptr` and `bytes` are those of one `allocate` (or a grow since) of the
    /// backend and ordinal the block goes back to; nobody uses the block
    /// through another `Block` or after it is freed.
    pub(crate) unsafe fn from_raw(ptr: NonNull<u8>, bytes: usize) -> Block {
        Block { addr: NonZeroUsize::new(ptr.as_ptr() as usize).unwrap_or(NonZeroUsize::MIN), bytes }
    }

    /// A token a unit test makes, taking [`Block::from_raw`]'s contract on
    /// itself (made-up addresses for bookkeeping, or a block it allocated).
    #[cfg(test)]
    pub(crate) fn for_test(addr: usize, bytes: usize) -> Block {
        Block { addr: NonZeroUsize::new(addr).expect("a test address is not 0"), bytes }
    }

    /// The base address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        std::ptr::with_exposed_provenance_mut(self.addr.get())
    }

    /// The base address as a number (driver calls take them so).
    pub(crate) const fn addr(&self) -> usize {
        self.addr.get()
    }

    /// The size in bytes.
    pub(crate) const fn bytes(&self) -> usize {
        self.bytes
    }
}

/// What a space must provide. Only `memory/*` implements it.
pub(crate) trait Backend: Send + Sync {
    /// `bytes` of memory aligned to [`ALIGNMENT`](super::ALIGNMENT), zeroed when asked.
    fn allocate(&self, ordinal: u32, bytes: usize, zeroed: bool) -> Result<NonNull<u8>>;

    /// Release a block from [`Backend::allocate`] of this ordinal.
    fn deallocate(&self, ordinal: u32, block: Block);

    /// Write `value` (one element's bytes) into every element of `dst`, a
    /// region of this space.
    fn fill(&self, ordinal: u32, dst: &Held<'_>, value: &[u8], stream: Stream) -> Result<()>;

    /// Wait for all outstanding work on the device.
    fn fence(&self, ordinal: u32) -> Result<()>;

    /// Record an event after the work queued on `stream` so far; `None` when
    /// that work is complete already (host memory, the default stream, and a
    /// backend whose copies complete on return). See [`stream::Event`](super::stream::Event).
    fn event_record(&self, _ordinal: u32, _stream: Stream) -> Result<Option<Mark>> {
        Ok(None)
    }

    /// Wait on the host until an event from [`Backend::event_record`] has passed.
    fn event_wait(&self, _ordinal: u32, _event: &Mark) -> Result<()> {
        Ok(())
    }

    /// Whether an event has passed (never waits; an error counts as passed:
    /// the wait reports it).
    fn event_done(&self, _ordinal: u32, _event: &Mark) -> bool {
        true
    }

    /// Make `stream` wait for an event before its later work; the host does not wait.
    fn event_order(&self, _ordinal: u32, _event: &Mark, _stream: Stream) -> Result<()> {
        Ok(())
    }

    /// Release an event (its work may still run).
    fn event_release(&self, _ordinal: u32, _event: Mark) {}

    /// A new stream of device `ordinal` that does not wait for the default
    /// stream; the default stream where work completes on return (host).
    fn stream_create(&self, _ordinal: u32) -> Result<Stream> {
        Ok(Stream::null())
    }

    /// Release a stream from [`Backend::stream_create`] (its queued work still runs).
    fn stream_destroy(&self, _ordinal: u32, _stream: Stream) -> Result<()> {
        Ok(())
    }

    /// Wait on the host for the work queued on `stream`.
    fn stream_fence(&self, ordinal: u32, stream: Stream) -> Result<()> {
        let _ = stream;
        self.fence(ordinal)
    }

    /// Every copy, as one call (a sync's regions, a deep copy, a view copy):
    /// a fence when asked, then each pair's copy (same extents and element
    /// size), where this backend owns at least one of the two spaces and
    /// `ordinal` is its device. On the default stream all of it is complete
    /// on return. A backend that binds a context binds it once here and plans
    /// each copy once (the CUDA one does).
    fn transfer(&self, ordinal: u32, t: &Transfer<'_>) -> Result<()>;

    /// Move managed memory towards `to` (managed spaces only; others do nothing).
    fn prefetch(&self, _ordinal: u32, _region: &Held<'_>, _to: Side, _stream: Stream) -> Result<()> {
        Ok(())
    }

    /// Grow `block` to `new` bytes (`new` at least its size) keeping its
    /// address and contents, the new bytes zero; `Ok(false)` when this
    /// backend cannot (the caller allocates anew and copies). The bytes past
    /// the block's size are no one's yet.
    fn grow_in_place(&self, _ordinal: u32, _block: &Block, _new: usize) -> Result<bool> {
        Ok(false)
    }

    /// Whether [`Backend::grow_in_place`] would succeed (nothing changes).
    fn can_grow_in_place(&self, _ordinal: u32, _ptr: NonNull<u8>, _old: usize, _new: usize) -> bool {
        false
    }

    /// Whether a DualView over this (device) space registers its host mirror,
    /// a pageable block of `host`, with this space's driver (see
    /// [`Backend::mirror_registration`]). No, unless the space says so.
    fn registers_mirror(&self, _ordinal: u32, _host: Space) -> bool {
        false
    }

    /// The registration with this space's driver of the host block
    /// `[ptr, ptr + bytes)`, the mirror of a DualView over this space, for
    /// the block's allocation to drive; `None` where this space registers
    /// nothing.
    fn mirror_registration(&self, _ordinal: u32, _ptr: NonNull<u8>, _bytes: usize, _label: &Arc<str>) -> Option<Box<dyn HostRegistration>> {
        None
    }
}

/// The registration of one host block with a device's driver (page-locked,
/// so that copies run at full speed), as a device backend hands it out
/// ([`Backend::mirror_registration`]). The block's `Allocation` drives it; the
/// implementation owns the state and its rules: it never leaves part of the
/// block registered, and a refusal by the driver is never an error (the
/// copies stay pageable). The CUDA one is `src/memory/registration.rs`.
pub(crate) trait HostRegistration: Send + Sync {
    /// Register the whole block in the background (again after a grow);
    /// nothing when it is registered, pending or refused.
    fn start(&self);

    /// Register the block now unless it is already (a copying sync wants it);
    /// waits for a registration under way. True when the whole block is registered.
    fn ensure(&self) -> bool;

    /// [`HostRegistration::ensure`], for a block of any size: a copy queued on
    /// a stream from or into a pageable block would be staged (DECISIONS G13).
    fn ensure_any_size(&self) -> bool;

    /// Change the block's size: cancel a pending registration, wait for one
    /// inside the driver and undo any, then run `change` (it returns the new
    /// size) under the lock the registration reads the size under.
    fn resize(&self, change: &mut dyn FnMut() -> Result<usize>) -> Result<usize>;

    /// Whether the whole block is registered now. Never waits for a
    /// registration under way.
    fn is_registered(&self) -> bool;

    /// The block is being freed: cancel what is pending, undo the
    /// registration, then run `free`, on the background thread when the driver
    /// has work to do or a worker still touches the pages.
    fn release(self: Box<Self>, free: Box<dyn FnOnce() + Send>);
}

/// The copies of one sync (or one resize step) between two spaces, for
/// [`Backend::transfer`]: `(dst, src)` region pairs of equal extents and
/// element size, each held.
#[derive(Clone, Copy)]
pub(crate) struct Transfer<'a> {
    /// The space every destination region lies in.
    pub dst: Space,
    /// The space every source region lies in.
    pub src: Space,
    /// `(destination, source)` pairs; the two regions of a pair do not overlap.
    pub pairs: &'a [(Held<'a>, Held<'a>)],
    /// Where the copies are ordered; the default stream completes them before returning.
    pub stream: Stream,
    /// A host region of the pairs is pageable (not page-locked): a backend
    /// whose asynchronous copies of pageable memory would block stages them.
    /// `None`: the caller does not know (a view copy): the backend asks its
    /// driver about the host party.
    pub pageable_host: Option<bool>,
    /// Wait for all outstanding device work first (a Kokkos fence).
    pub fence: bool,
}

impl<'a> Transfer<'a> {
    /// The copies of `pairs` from `src` into `dst` on `stream`, no fence
    /// (the door, `memory::run`, sets it).
    pub(crate) fn new(dst: Space, src: Space, pairs: &'a [(Held<'a>, Held<'a>)], stream: Stream, pageable_host: Option<bool>) -> Transfer<'a> {
        Transfer { dst, src, pairs, stream, pageable_host, fence: false }
    }
}

