//! Memory, served: everything that allocates, frees, registers, fills and
//! copies the memory of a [`Space`] (the vocabulary, `src/space/`).
//!
//! | module | what it holds |
//! | --- | --- |
//! | `table.rs` | which backend serves each space kind, its device count |
//! | `backend.rs` | the `Backend` contract every engine implements, a `Transfer` |
//! | `proof.rs` | the proofs the backends take: held regions, checked copy pairs, owned blocks |
//! | `allocation.rs` | an `Allocation`: a block, its space, its mirror registration, Kokkos Tools events |
//! | `registration.rs` | the state machine that registers pageable mirrors with a device driver |
//! | `pool.rs` | registered mirror blocks kept for reuse, up to a cap |
//! | `background.rs` | the thread that frees and unregisters off the caller's path |
//! | `stream.rs` | streams and events of a space's device (public: [`stream`]) |
//! | `host/` | the host engine: pageable memory, parallel copies |
//! | `device/` | the device engine over a small driver; `device/drivers/` holds CUDA's and the fake one the test device runs |
//!
//! Only the backends touch raw memory; the DualView logic sees `Allocation`
//! and the free functions here. Every device backend is the device engine
//! over one driver: GPU policy is written once. A device space whose
//! DualViews register their pageable host mirrors hands out the registration
//! as a `HostRegistration` (`Backend::mirror_registration`), made by the
//! shared state machine of `registration` over the engine; the mirror's
//! `Allocation` drives it and never names the space.
//!
//! A new space is a row of `src/space/rows.rs` and of `table.rs`, a driver
//! file and its feature (docs/ARCHITECTURE.md, "Adding a memory space").

mod allocation;
mod background;
mod backend;
mod pool;
mod proof;
pub(crate) mod device;
pub(crate) mod host;
mod registration;
pub mod stream;
mod table;

pub use device::drivers::fake as test_device;

/// The number of CUDA devices this process can use (0 without a driver),
/// [`SpaceKind::device_count`](crate::SpaceKind::device_count) of [`SpaceKind::Cuda`](crate::SpaceKind::Cuda). Never panics.
///
/// ```
/// use dualview::{ErrorKind, Space};
/// // A CUDA space is usable exactly when a device is counted.
/// let n = dualview::memory::cuda_device_count();
/// match Space::cuda(0).probe() {
///     Ok(()) => assert!(n > 0),
///     Err(e) => assert!(n == 0 && e.kind() == ErrorKind::NoDevice),
/// }
/// ```
pub fn cuda_device_count() -> usize {
    crate::SpaceKind::Cuda.device_count()
}

/// A synchronous copy of at least this many contiguous bytes between pageable
/// host memory and a device runs through the device engine's pipeline of
/// pinned buffers (`device/pipeline.rs`, DECISIONS G24); a DualView's first such
/// copy does not wait for its mirror's pending registration.
pub(crate) const LARGE_COPY: usize = 8 << 20;

pub(crate) use allocation::{allocation_point, Allocation};
pub use allocation::{inject_allocation_failure, live_allocations, LiveAllocation};
pub use background::settle;
pub use pool::{release as pool_release, set_cap as set_pool_cap, stats as pool_stats, PoolStats};
pub(crate) use backend::{Backend, Deferral, HostRegistration, Transfer};
pub(crate) use proof::{Block, Held, Pair};

/// Bytes of host mirrors that dualview has registered with a device's driver
/// (CUDA; the test device's fake driver when asked,
/// [`test_device::set_registers_mirror`]) and not yet unregistered: the
/// mirrors of live DualViews and the blocks the pool keeps for reuse
/// ([`pool_stats`], DECISIONS S11). It returns to 0 when the last DualView
/// goes and [`pool_release`] has run (after [`settle`]: the background thread unregisters).
///
/// ```
/// assert_eq!(dualview::memory::registered_host_bytes(), 0); // no registering DualView here
/// ```
pub fn registered_host_bytes() -> usize {
    registration::registered_bytes()
}

use crate::error::Result;
use crate::side::Side;
use crate::space::{Mem, Space, Stream};

/// The space whose backend drives a copy from `src` into `dst`: the device
/// party, the destination when both are devices (host to host is plain memory).
pub(crate) fn copy_driver(dst: Space, src: Space) -> Space {
    if dst.kind().policy().is_device || !dst.is_host_accessible() {
        dst
    } else {
        src
    }
}

/// What a [`run`] waits for before its copies (Kokkos fences before a `deep_copy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fence {
    /// Nothing: the caller orders the copies (a stream, a fenced sync).
    Nothing,
    /// All outstanding work of this space's device.
    Space(Space),
    /// All outstanding work of both parties' devices (Kokkos' `deep_copy`, G5).
    Parties,
}

/// The door every copy between two spaces goes through (a sync's regions,
/// a resize copy, a view copy, a deep copy, checked mode's read-back): the
/// fence, fused into the driving backend's call when it fences that
/// backend's own device; the copies, as one [`Backend::transfer`]; and, when
/// a Kokkos tool listens and `labels` name the two sides, one `deep_copy`
/// event around each pair's copy. A fence of both parties (Kokkos'
/// `deep_copy`) falls inside the first event, as Kokkos fences inside its
/// deep copy; a sync's fence of its device space comes before. On the
/// default stream all of it is complete on return.
pub(crate) fn run(t: &Transfer<'_>, fence: Fence, labels: Option<(&str, &str)>) -> Result<()> {
    let driver = copy_driver(t.dst(), t.src());
    let backend = driver.backend()?;
    let other = if driver == t.dst() { t.src() } else { t.dst() };
    // The fence as the driving backend's own call sees it: fused when it is that backend's device.
    let fence_parties = || -> Result<bool> {
        if other != driver && other.kind().memory() != Mem::Pageable {
            self::fence(other)?; // the other party's device too (pinned memory: CUDA device 0's)
        }
        Ok(true)
    };
    let mut parties = false;
    let fused = match fence {
        Fence::Nothing => false,
        Fence::Space(f) if f == driver => true,
        Fence::Space(f) => {
            self::fence(f)?;
            false
        }
        Fence::Parties => {
            parties = true;
            false
        }
    };
    let tools = labels.filter(|_| crate::tools::wants_deep_copy());
    let Some((dl, sl)) = tools else {
        let fused = fused || (parties && fence_parties()?);
        return backend.transfer(driver.ordinal(), &t.fenced(fused));
    };
    if fused {
        backend.fence(driver.ordinal())?;
    }
    for pair in t.pairs() {
        let (d, s) = (pair.dst(), pair.src());
        if d.len() == 0 {
            continue;
        }
        let ends = ((t.dst(), dl, d.region().ptr as *const u8), (t.src(), sl, s.region().ptr as *const u8));
        as_deep_copy(ends, d.len() * d.region().elem_size, || {
            let first = std::mem::take(&mut parties) && fence_parties()?;
            backend.transfer(driver.ordinal(), &t.one(pair).fenced(first))
        })?;
    }
    if parties && fence_parties()? {
        backend.fence(driver.ordinal())?; // no pair to copy: Kokkos fences all the same
    }
    Ok(())
}

/// One side of a Kokkos Tools `deep_copy` event: its space, label and address.
pub(crate) type CopyEnd<'a> = (Space, &'a str, *const u8);

/// Run `copy` inside one Kokkos Tools `deep_copy` event of `bytes` between
/// the two ends `(dst, src)`, when a tool listens: the one place the events are written.
pub(crate) fn as_deep_copy<R>(ends: (CopyEnd<'_>, CopyEnd<'_>), bytes: usize, copy: impl FnOnce() -> Result<R>) -> Result<R> {
    if !crate::tools::wants_deep_copy() {
        return copy();
    }
    crate::tools::begin_deep_copy(ends.0, ends.1, bytes);
    let r = copy();
    crate::tools::end_deep_copy();
    r
}

/// Fill `dst`, held in `space`, with one element's bytes; when a Kokkos
/// tool listens and `label` names the view, as Kokkos' `deep_copy(view,
/// scalar)` reports it: destination the view, source HostSpace "Scalar" at
/// the value, `span * sizeof(element)` bytes (core/src/Kokkos_CopyViews.hpp).
pub(crate) fn fill(space: Space, dst: &Held<'_>, value: &[u8], stream: Stream, label: Option<(&str, usize)>) -> Result<()> {
    let run = || {
        space.backend()?.fill(space.ordinal(), dst, value, stream)?;
        if stream.is_null() { fence(space) } else { Ok(()) }
    };
    match label {
        Some((l, bytes)) => as_deep_copy(((space, l, dst.region().ptr), (Space::HOST, "Scalar", value.as_ptr())), bytes, run),
        None => run(),
    }
}

/// Prefetch managed memory of `space` towards side `to`.
pub(crate) fn prefetch(space: Space, region: &Held<'_>, to: Side, stream: Stream) -> Result<()> {
    region.check_space(space)?;
    space.backend()?.prefetch(space.ordinal(), region, to, stream)
}

/// Wait for outstanding device work in `space` (a no-op for host spaces).
pub(crate) fn fence(space: Space) -> Result<()> {
    space.backend()?.fence(space.ordinal())
}
