//! The contract every space's backend keeps (`Backend`), the registration
//! of a host block with a device's driver (`HostRegistration`), and the
//! copies of one sync (`Transfer`). The proofs its methods take (held
//! regions, copy pairs, owned blocks) are `proof.rs`.

use super::device::Mark;
use super::proof::{Block, Held, Pair};
use crate::space::{Space, Stream};
use crate::error::{err, Result};
use crate::side::Side;
use std::ptr::NonNull;
use std::sync::Arc;

/// What a space must provide. Only `memory/*` implements it.
pub(crate) trait Backend: Send + Sync {
    /// `bytes` of memory aligned to [`ALIGNMENT`](super::ALIGNMENT), zeroed
    /// when asked: the block, with the size the backend gave it (at least `bytes`).
    fn allocate(&self, ordinal: u32, bytes: usize, zeroed: bool) -> Result<Block>;

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

/// What [`HostRegistration::defer`] did before a large copy (DECISIONS G24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deferral {
    /// Nothing put off: the copy waits for the registration, or makes it.
    No,
    /// A pending registration was cancelled: the copy runs pageable, then
    /// [`HostRegistration::start`] queues it again.
    Resume,
    /// A block a grow left unregistered: the copy runs pageable, and the
    /// block's next copying sync registers it.
    NextSync,
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

    /// A large copy on the caller's thread is about to run (DECISIONS G24).
    /// Once per block (until the next grow), for a block of 64 MiB or more:
    /// a registration [`HostRegistration::start`]ed and still pending
    /// (queued or faulting the pages in, not inside the driver) is cancelled
    /// without waiting ([`Deferral::Resume`]); a block a grow left
    /// unregistered stays so ([`Deferral::NextSync`]). Otherwise
    /// [`Deferral::No`]: [`HostRegistration::ensure`] as before.
    fn defer(&self) -> Deferral;

    /// Change the block's size: cancel a pending registration, wait for one
    /// inside the driver and undo any, then run `change` (it returns the new
    /// size) under the lock the registration reads the size under.
    fn resize(&self, change: &mut dyn FnMut() -> Result<usize>) -> Result<usize>;

    /// Whether the whole block is registered now. Never waits for a
    /// registration under way.
    fn is_registered(&self) -> bool;

    /// Whether a registration started in the background is still under way
    /// (queued, faulting the pages in, or inside the driver): its job ends it
    /// registered or refused. Never waits.
    fn is_pending(&self) -> bool;

    /// The block is being freed: cancel what is pending, undo the
    /// registration, then run `free`, on the background thread when the driver
    /// has work to do or a worker still touches the pages.
    fn release(self: Box<Self>, free: Box<dyn FnOnce() + Send>);

    /// [`HostRegistration::release`] on the caller's thread: returns once the
    /// block is unregistered and `free` has run (the pool drains so before a retry).
    fn release_now(self: Box<Self>, free: Box<dyn FnOnce() + Send>);
}

/// The copies of one sync (or one resize step) between two spaces, for
/// [`Backend::transfer`]: checked pairs whose regions lie in `dst` and `src`.
#[derive(Clone, Copy)]
pub(crate) struct Transfer<'a> {
    dst: Space,
    src: Space,
    pairs: &'a [Pair<'a>],
    stream: Stream,
    pageable_host: Option<bool>,
    fence: bool,
}

impl<'a> Transfer<'a> {
    /// The copies of `pairs` from `src` into `dst` on `stream`, no fence
    /// (the door, `memory::run`, asks for one). `pageable_host`: whether a
    /// host region of the pairs is pageable (not page-locked), so that a
    /// backend whose asynchronous copies of pageable memory would block
    /// stages them; `None`: the caller does not know (a view copy), the
    /// backend asks its driver. `Internal` when a pair lies in other spaces.
    pub(crate) fn new(dst: Space, src: Space, pairs: &'a [Pair<'a>], stream: Stream, pageable_host: Option<bool>) -> Result<Transfer<'a>> {
        if pairs.iter().any(|p| p.dst().space() != dst || p.src().space() != src) {
            return Err(err!(Internal, "a transfer {src} -> {dst} with a region of another space (a dualview bug)"));
        }
        Ok(Transfer { dst, src, pairs, stream, pageable_host, fence: false })
    }

    /// This transfer, a fence of the driving backend's device first when `fence`.
    pub(crate) fn fenced(self, fence: bool) -> Transfer<'a> {
        Transfer { fence, ..self }
    }

    /// The one pair `pair` of this transfer, no fence.
    pub(crate) fn one<'b>(&self, pair: &'b Pair<'a>) -> Transfer<'b>
    where
        'a: 'b,
    {
        Transfer { pairs: std::slice::from_ref(pair), fence: false, ..*self }
    }

    /// The space every destination lies in.
    pub(crate) const fn dst(&self) -> Space {
        self.dst
    }

    /// The space every source lies in.
    pub(crate) const fn src(&self) -> Space {
        self.src
    }

    /// The copies.
    pub(crate) const fn pairs(&self) -> &'a [Pair<'a>] {
        self.pairs
    }

    /// Where the copies are ordered; the default stream completes them before returning.
    pub(crate) const fn stream(&self) -> Stream {
        self.stream
    }

    /// Whether a host region is pageable (`None`: ask the driver).
    pub(crate) const fn pageable_host(&self) -> Option<bool> {
        self.pageable_host
    }

    /// Wait for all outstanding device work first (a Kokkos fence).
    pub(crate) const fn fence(&self) -> bool {
        self.fence
    }
}
