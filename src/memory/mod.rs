//! Memory, served: everything that allocates, frees, registers, fills and
//! copies the memory of a [`Space`] (the vocabulary, `src/space/`).
//!
//! | module | what it holds |
//! | --- | --- |
//! | `table.rs` | which backend serves each space kind, its device count |
//! | `backend.rs` | the `Backend` contract every engine implements, a `Transfer` |
//! | `allocation.rs` | an `Allocation`: a block, its space, its mirror registration, Kokkos Tools events |
//! | `registration.rs` | the state machine that registers pageable mirrors with a device driver |
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

pub(crate) use allocation::{allocation_point, Allocation};
pub use allocation::{inject_allocation_failure, live_allocations, LiveAllocation};
pub use background::settle;
pub(crate) use backend::{Backend, HostRegistration, Transfer};

/// Bytes of host mirrors that dualview has registered with a device's driver
/// (CUDA; the test device's fake driver when asked,
/// [`test_device::set_registers_mirror`]) and not yet unregistered. Every
/// registration ends when its block is freed, so this returns to 0 when the
/// last DualView goes (after [`settle`]: the background thread unregisters).
///
/// ```
/// assert_eq!(dualview::memory::registered_host_bytes(), 0); // no registering DualView here
/// ```
pub fn registered_host_bytes() -> usize {
    registration::registered_bytes()
}

use crate::error::Result;
use crate::side::Side;
use crate::space::{Mem, Region, Space, Stream};

/// The space whose backend drives a copy from `src` into `dst`: the device
/// party, the destination when both are devices (host to host is plain memory).
pub(crate) fn copy_driver(dst: Space, src: Space) -> Space {
    if dst.kind().policy().is_device || !dst.is_host_accessible() {
        dst
    } else {
        src
    }
}

/// Fill `dst` in `space` with one element's bytes.
///
/// # Safety
/// `dst` lies inside a live allocation of `space`, and no one else accesses it meanwhile.
pub(crate) unsafe fn fill(space: Space, dst: &Region, value: &[u8], stream: Stream) -> Result<()> {
    // SAFETY: forwarded contract.
    unsafe { space.backend()?.fill(space.ordinal(), dst, value, stream)? };
    if stream.is_null() {
        fence(space)?;
    }
    Ok(())
}

/// Copy `src` (in `src_space`) into `dst` (in `dst_space`): one pair through
/// the driving backend's [`Backend::transfer`], the route every copy takes.
///
/// # Safety
/// Both regions lie in live allocations of their spaces, do not overlap, and
/// no one else writes them meanwhile.
pub(crate) unsafe fn copy(
    dst_space: Space,
    dst: &Region,
    src_space: Space,
    src: &Region,
    stream: Stream,
) -> Result<()> {
    let driver = copy_driver(dst_space, src_space);
    let pair = [(*dst, *src)];
    let t = Transfer { dst: dst_space, src: src_space, pairs: &pair, stream, pageable_host: None, fence: false };
    // SAFETY: forwarded contract. On the default stream the backend completes
    // the copy before returning (no device-wide fence needed).
    unsafe { driver.backend()?.transfer(driver.ordinal(), &t) }
}

/// Copy `src` (in `src_space`) into `dst` (in `dst_space`) on the default
/// stream after a fence of both spaces' devices (Kokkos' `deep_copy`, G5):
/// the space driving the copy fences and copies under one binding.
///
/// # Safety
/// As [`copy`].
pub(crate) unsafe fn copy_fenced(dst_space: Space, dst: &Region, src_space: Space, src: &Region) -> Result<()> {
    let driver = copy_driver(dst_space, src_space);
    let other = if driver == dst_space { src_space } else { dst_space };
    if other != driver && other.kind().memory() != Mem::Pageable {
        fence(other)?; // the other party's device too (pinned memory: CUDA device 0's)
    }
    let pair = [(*dst, *src)];
    let t = Transfer { dst: dst_space, src: src_space, pairs: &pair, stream: Stream::null(), pageable_host: Some(false), fence: true };
    // SAFETY: forwarded contract; on the default stream the copy is complete on return.
    unsafe { driver.backend()?.transfer(driver.ordinal(), &t) }
}

/// Prefetch managed memory of `space` towards side `to`.
///
/// # Safety
/// `region` lies inside a live allocation of `space`.
pub(crate) unsafe fn prefetch(space: Space, region: &Region, to: Side, stream: Stream) -> Result<()> {
    // SAFETY: forwarded contract.
    unsafe { space.backend()?.prefetch(space.ordinal(), region, to, stream) }
}

/// Wait for outstanding device work in `space` (a no-op for host spaces).
pub(crate) fn fence(space: Space) -> Result<()> {
    space.backend()?.fence(space.ordinal())
}
