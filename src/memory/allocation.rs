//! [`Allocation`]: one block of memory in one space, reference-counted by
//! views, DualViews and guards, freed on drop when owned.
//!
//! Every owned allocation is also
//! - announced to Kokkos Tools (`kokkosp_allocate_data` / `_deallocate_data`);
//! - listed in a registry of live allocations (label, space, bytes), which
//!   the exit report of `DV_LEAK_REPORT=1` prints and tests read;
//! - subject to the test-only failure injection ([`inject_allocation_failure`]);
//! - for the host mirror of a DualView whose device space registers mirrors
//!   (CUDA), registered with that space's driver through the
//!   [`HostRegistration`] the space hands out: in the background as soon as it
//!   is allocated, or at the latest by its first copying sync (after a grow,
//!   from 64 MiB, its second when the first is one large copy); a grow and the
//!   free go through it, so that no part of the block stays registered
//!   ([`Allocation::new_mirror`]).

use super::{Backend, Block, Deferral, HostRegistration};
use crate::space::{Space, SpaceKind};
use crate::error::{bail, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock};

/// A block of memory in one space.
pub(crate) struct Allocation {
    space: Space,
    /// The space's backend, resolved once (`None` for wrapped memory of a
    /// space unusable here: every use then answers the space's error).
    backend: Option<&'static dyn Backend>,
    ptr: NonNull<u8>,
    /// The block's size; changes only by [`Allocation::grow_in_place`].
    bytes: AtomicUsize,
    /// The bytes asked for (what tools, reports and bounds see): `bytes`, or
    /// less for a mirror given whole pages ([`Allocation::new_mirror`]).
    len: AtomicUsize,
    /// Whole pages: the block is `len` rounded up to a page.
    pages: bool,
    owned: bool,
    label: Arc<str>,
    /// Key in the registry of live allocations (0 for wrapped memory).
    id: u64,
    /// The registration with a device's driver, for the host mirror of a
    /// DualView whose device space registers mirrors; set once, by
    /// [`Allocation::new_mirror`].
    registration: OnceLock<Option<Box<dyn HostRegistration>>>,
    /// The device kind whose driver the registration is with (the pool's key).
    registered_with: OnceLock<SpaceKind>,
    /// For wrapped memory whose owner was handed over (a `Vec` adopted as a
    /// host side): what frees it when this block goes.
    release: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

// SAFETY: an Allocation is an address range plus bookkeeping; whoever reads or
// writes the memory synchronises (DualView locks and borrow flags; `View`'s
// writing methods are `unsafe` and state that contract).
unsafe impl Send for Allocation {}
// SAFETY: as above; the interior mutability (`bytes`, the registration) is
// atomic or locked.
unsafe impl Sync for Allocation {}

/// A live owned allocation, as listed by [`live_allocations`].
///
/// ```
/// use dualview::{DualView, Dims, Space};
/// let a = DualView::<u32, Dims<1>>::builder("listed", Dims::new([10]).unwrap())
///     .device(Space::test_device(0))
///     .build()
///     .unwrap();
/// let mine: Vec<_> = dualview::memory::live_allocations().into_iter().filter(|x| x.label.starts_with("listed")).collect();
/// // The device side and the host mirror, 40 bytes each (the array's bytes).
/// assert_eq!(mine.len(), 2);
/// assert!(mine.iter().all(|x| x.bytes == 40));
/// assert!(mine.iter().any(|x| x.label == "listed_mirror" && x.space == Space::HOST));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveAllocation {
    /// The view's label (`"A"`, or `"A_mirror"` for a host mirror).
    pub label: String,
    /// Where it lives.
    pub space: Space,
    /// Its size in bytes.
    pub bytes: usize,
}

/// Live owned allocations by id: label, space, bytes (for the leak report). A
/// BTreeMap, whose nodes valgrind sees as reachable (a HashMap points inside its block).
type Registry = BTreeMap<u64, (Arc<str>, Space, usize)>;
static LIVE: Mutex<Option<Registry>> = Mutex::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Every owned allocation alive now, largest first.
///
/// ```
/// use dualview::{DualView, Dims};
/// let a = DualView::<f64, Dims<1>>::new("leak_probe", Dims::new([1000]).unwrap()).unwrap();
/// assert!(dualview::memory::live_allocations().iter().any(|x| x.label == "leak_probe" && x.bytes == 8000));
/// drop(a);
/// assert!(!dualview::memory::live_allocations().iter().any(|x| x.label == "leak_probe"));
/// ```
pub fn live_allocations() -> Vec<LiveAllocation> {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut v: Vec<LiveAllocation> = live
        .iter()
        .flat_map(|m| m.values())
        .map(|(l, s, b)| LiveAllocation { label: l.to_string(), space: *s, bytes: *b })
        .collect();
    v.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.label.cmp(&b.label)));
    v
}

/// Allocations from now on until the failing one (0: injection off).
static FAIL_AFTER: AtomicU64 = AtomicU64::new(0);

/// Test hook: make the `n`-th allocation point from now (1 = the next one)
/// fail with `OutOfMemory`, as if the space were full; 0 turns it off. The
/// points are data allocations (host and device), handle-table slots and
/// host-mirror registration. Process-wide: tests that use it run alone.
///
/// ```
/// use dualview::{DualView, Dims, ErrorKind};
/// dualview::memory::inject_allocation_failure(1);
/// let e = DualView::<u8, Dims<1>>::new("x", Dims::new([4]).unwrap()).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::OutOfMemory);
/// assert!(DualView::<u8, Dims<1>>::new("x", Dims::new([4]).unwrap()).is_ok());
/// ```
#[doc(hidden)]
pub fn inject_allocation_failure(n: u64) {
    FAIL_AFTER.store(n, Ordering::SeqCst);
}

/// Count one allocation point; `Err` when the injected failure is due.
pub(crate) fn allocation_point(what: &str) -> Result<()> {
    if FAIL_AFTER.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    let hit = FAIL_AFTER.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n > 0).then(|| n - 1));
    if hit == Ok(1) {
        bail!(OutOfMemory, "{what}: injected allocation failure (test hook)");
    }
    Ok(())
}

/// Print the allocations still alive when the process exits (`DV_LEAK_REPORT=1`
/// or `DV_DEBUG_MEMORY=1`).
fn arm_exit_report() {
    static ARM: Once = Once::new();
    ARM.call_once(|| {
        let on = crate::env::switch;
        if on("DV_LEAK_REPORT") || on("DV_DEBUG_MEMORY") {
            extern "C" fn report() {
                let live = live_allocations();
                if live.is_empty() {
                    eprintln!("dualview: leak report: every DualView and View was destroyed");
                    return;
                }
                let total: usize = live.iter().map(|a| a.bytes).sum();
                eprintln!("dualview: leak report: {} allocation(s), {total} bytes never freed:", live.len());
                for a in live {
                    eprintln!("dualview:   \"{}\" {} bytes in {}", a.label, a.bytes, a.space);
                }
            }
            // SAFETY: `report` is a plain extern "C" function; it only reads the
            // registry and writes to stderr.
            unsafe { libc::atexit(report) };
        }
    });
}

impl Allocation {
    /// Allocate `bytes` in `space`, zeroed when `zeroed`, labelled for tools and reports.
    pub(crate) fn new(space: Space, bytes: usize, zeroed: bool, label: &Arc<str>) -> Result<Arc<Allocation>> {
        Self::new_in(space, bytes, false, zeroed, label)
    }

    /// A host mirror of `len` bytes, decided, sized and given its
    /// registration here: registering with `device` (the device space of a
    /// DualView whose mirror registers, [`Space::registers_mirror`]), a block
    /// of whole pages of its own, so that its registration never meets
    /// another block's (DECISIONS G13), with the registration made but not
    /// started ([`Allocation::start_registration`], or the first copying
    /// sync); `None`, a plain block. Tools, reports and bounds still see
    /// `len` bytes, as Kokkos reports a View's.
    ///
    /// A registering mirror first looks in the pool of registered blocks
    /// (`pool.rs`): a kept block comes registered, its pages faulted in.
    pub(crate) fn new_mirror(space: Space, len: usize, registering_with: Option<Space>, zeroed: bool, label: &Arc<str>) -> Result<Arc<Allocation>> {
        // Under a page, a mirror never registers: a page of its own would be most of the
        // DualView's memory, and a blocking copy of a few bytes is faster from pageable
        // memory (DECISIONS G13); its copies on a stream are staged.
        let Some(device) = registering_with.filter(|_| len >= crate::space::HOST_PAGE) else {
            return Self::new_in(space, len, false, zeroed, label);
        };
        super::pool::cap()?;
        Self::check_len(len)?;
        space.backend()?;
        allocation_point("allocation")?;
        let kept = if space == Space::HOST { super::pool::take(device.kind(), Self::block_for(len, true)) } else { None };
        if let Some((block, registration)) = kept {
            // The pool zeroed it whole before it kept it (pool.rs).
            let a = Self::from_block(space, space.backend()?, block, len, true, label)?;
            a.registration.get_or_init(|| Some(registration));
            a.registered_with.get_or_init(|| device.kind());
            return Ok(a);
        }
        let a = Self::fresh(space, len, true, zeroed, label)?;
        a.registration.get_or_init(|| {
            let b = device.backend().ok()?;
            b.mirror_registration(device.ordinal(), a.ptr, a.bytes(), &a.label)
        });
        a.registered_with.get_or_init(|| device.kind());
        Ok(a)
    }

    /// `Overflow` for a request no array may make.
    fn check_len(len: usize) -> Result<()> {
        if len > isize::MAX as usize - crate::space::HOST_PAGE {
            bail!(Overflow, "an allocation of {len} bytes exceeds the largest array, 2^63 - 1 bytes");
        }
        Ok(())
    }

    /// The block a request of `len` bytes takes.
    fn block_for(len: usize, pages: bool) -> usize {
        if pages { len.next_multiple_of(crate::space::HOST_PAGE) } else { len }
    }

    fn new_in(space: Space, len: usize, pages: bool, zeroed: bool, label: &Arc<str>) -> Result<Arc<Allocation>> {
        Self::check_len(len)?;
        space.backend()?;
        allocation_point("allocation")?;
        Self::fresh(space, len, pages, zeroed, label)
    }

    /// A new block from the space's backend (the request checked and its allocation point counted).
    fn fresh(space: Space, len: usize, pages: bool, zeroed: bool, label: &Arc<str>) -> Result<Arc<Allocation>> {
        let bytes = Self::block_for(len, pages);
        let backend = space.backend()?;
        let _range = crate::tools::nvtx::range(|| format!("dualview allocate \"{label}\" {space} {}", crate::tools::nvtx::bytes(len)));
        // The block as the backend made it: at least `bytes` (a kept device block: its size class).
        let block = match backend.allocate(space.ordinal(), bytes, zeroed) {
            // Registered blocks kept for reuse hold host memory: given back, the request may fit.
            Err(e) if e.kind() == crate::ErrorKind::OutOfMemory && space.kind() == SpaceKind::Host && super::pool::drain() > 0 => {
                backend.allocate(space.ordinal(), bytes, zeroed)?
            }
            other => other?,
        };
        Self::from_block(space, backend, block, len, pages, label)
    }

    /// The allocation of `block` (from `backend`, or a kept one) for `len` bytes, listed and announced.
    fn from_block(space: Space, backend: &'static dyn Backend, block: Block, len: usize, pages: bool, label: &Arc<str>) -> Result<Arc<Allocation>> {
        let ptr = NonNull::new(block.ptr()).ok_or_else(|| crate::error::err!(Internal, "a block at address 0"))?;
        let bytes = block.bytes();
        arm_exit_report();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(BTreeMap::new).insert(id, (label.clone(), space, len));
        crate::tools::allocate(space, label, ptr.as_ptr(), len);
        Ok(Arc::new(Allocation {
            space,
            backend: Some(backend),
            ptr,
            bytes: AtomicUsize::new(bytes),
            len: AtomicUsize::new(len),
            pages,
            owned: true,
            label: label.clone(),
            id,
            registration: OnceLock::new(),
            registered_with: OnceLock::new(),
            release: Mutex::new(None),
        }))
    }

    /// Memory owned by the caller: never freed here, announced to nobody.
    ///
    /// # Safety
    /// `ptr` addresses `bytes` bytes of `space` that outlive every user of the result.
    pub(crate) unsafe fn wrap(space: Space, ptr: NonNull<u8>, bytes: usize, label: &Arc<str>) -> Arc<Allocation> {
        Arc::new(Allocation {
            space,
            backend: space.backend().ok(),
            ptr,
            bytes: AtomicUsize::new(bytes),
            len: AtomicUsize::new(bytes),
            pages: false,
            owned: false,
            label: label.clone(),
            id: 0,
            registration: OnceLock::new(),
            registered_with: OnceLock::new(),
            release: Mutex::new(None),
        })
    }

    /// Wrapped memory whose owner is handed over: `free` runs when this block
    /// goes (after every view, guard and queued copy of it). Owned blocks free
    /// themselves: nothing to do.
    pub(crate) fn on_release(&self, free: Box<dyn FnOnce() + Send>) {
        debug_assert!(!self.owned, "an owned block frees itself");
        if !self.owned {
            *self.release.lock().unwrap_or_else(|e| e.into_inner()) = Some(free);
        }
    }

    /// The space's backend, resolved when the block was made.
    pub(crate) fn backend(&self) -> Result<&'static dyn Backend> {
        match self.backend {
            Some(b) => Ok(b),
            None => self.space.backend(),
        }
    }

    /// The label tools and reports see (`"A"`, `"A_mirror"`).
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// The base address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The block's size in bytes (what the driver holds).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Acquire)
    }

    /// The bytes asked for: the array's (at most [`Allocation::bytes`]).
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Whether this block can grow to hold `new` bytes in place. An
    /// allocation point: a failure injected here answers `OutOfMemory`.
    pub(crate) fn prepare_grow(&self, new: usize) -> Result<bool> {
        let (old, block) = (self.len(), Self::block_for(new, self.pages));
        if new < old || !self.owned || (block == self.bytes() && new != old) {
            return Ok(false);
        }
        allocation_point("grow in place")?;
        Ok(new == old || self.backend()?.can_grow_in_place(self.space.ordinal(), self.ptr, self.bytes(), block))
    }

    /// Grow to `new` bytes keeping the address and contents (the new bytes
    /// zero), when the space can: `Ok(false)` otherwise (nothing changed).
    /// The caller holds the DualView's lock and both sides' borrows. A
    /// registered block goes through its registration, which takes the old
    /// registration out of the way first (the caller registers the grown
    /// block again).
    pub(crate) fn grow_in_place(&self, new: usize) -> Result<bool> {
        let (old_len, old, block) = (self.len(), self.bytes(), Self::block_for(new, self.pages));
        if new < old_len || !self.owned || (block == old && new != old_len) {
            return Ok(false);
        }
        if new == old_len {
            return Ok(true);
        }
        let mut change = || -> Result<usize> {
            // SAFETY: our own live block of `old` bytes from this backend; this
            // token is dropped (not freed) on return, the Allocation keeps the block.
            let owned = unsafe { Block::from_raw(self.ptr, old) };
            let grown = self.backend()?.grow_in_place(self.space.ordinal(), &owned, block)?;
            if !grown {
                return Ok(old);
            }
            crate::tools::deallocate(self.space, &self.label, self.ptr.as_ptr(), old_len);
            self.bytes.store(block, Ordering::Release);
            self.len.store(new, Ordering::Release);
            if let Some((_, _, b)) = LIVE.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|m| m.get_mut(&self.id)) {
                *b = new;
            }
            crate::tools::allocate(self.space, &self.label, self.ptr.as_ptr(), new);
            Ok(block)
        };
        let now = match self.registration() {
            Some(r) => r.resize(&mut change)?,
            None => change()?,
        };
        Ok(now == block)
    }

    /// The registration with a device's driver, once made.
    fn registration(&self) -> Option<&dyn HostRegistration> {
        self.registration.get().and_then(|r| r.as_deref())
    }

    /// Start registering this mirror in the background (from
    /// [`Allocation::new_mirror`]), so that the driver's work overlaps the
    /// program filling it; again after a grow. Nothing for a block that does
    /// not register; without this call, the first copying sync registers it
    /// (or the second, G25: [`Allocation::defer_registration`]),
    /// [`Allocation::ensure_registered`].
    pub(crate) fn start_registration(&self) {
        if let Some(r) = self.registration() {
            r.start();
        }
    }

    /// Make sure the block is registered before a copy (waits for a
    /// registration under way, or does it here). False when it is not (not
    /// a registered mirror, too small, or refused by the driver: the copy runs
    /// pageable). Never an error.
    pub(crate) fn ensure_registered(&self) -> bool {
        self.registration().is_some_and(|r| r.ensure())
    }

    /// Before a large copy on the caller's thread: whether the block's
    /// registration was put off (`HostRegistration::defer`): the copy runs
    /// pageable, then [`Allocation::start_registration`] resumes it
    /// (`Resume`), or the next copying sync registers it (`NextSync`).
    pub(crate) fn defer_registration(&self) -> Deferral {
        self.registration().map_or(Deferral::No, |r| r.defer())
    }

    /// [`Allocation::ensure_registered`] for a copy queued on a stream: a
    /// registering mirror of any size is registered (at its first such copy).
    pub(crate) fn ensure_registered_for_stream(&self) -> bool {
        self.registration().is_some_and(|r| r.ensure_any_size())
    }

    /// Whether the whole block is page-locked now: pinned memory, or a
    /// registered mirror. Does not wait for a registration under way.
    pub(crate) fn is_page_locked(&self) -> bool {
        self.space.is_page_locked() || self.registration().is_some_and(|r| r.is_registered())
    }

    /// Whether this is plain (pageable) host memory, not page-locked now: a
    /// device's asynchronous copy of it may block, so a backend stages it.
    pub(crate) fn is_pageable_host(&self) -> bool {
        self.space.kind() == SpaceKind::Host && !self.is_page_locked()
    }

    /// The space.
    pub(crate) fn space(&self) -> Space {
        self.space
    }

    /// False for memory wrapped with `dv_wrap`.
    pub(crate) fn is_owned(&self) -> bool {
        self.owned
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if !self.owned {
            if let Some(free) = self.release.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
                free();
            }
            return;
        }
        if let Some(m) = LIVE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            m.remove(&self.id);
        }
        let (bytes, len) = (self.bytes(), self.len());
        let _range = crate::tools::nvtx::range(|| format!("dualview free \"{}\" {} {}", self.label, self.space, crate::tools::nvtx::bytes(len)));
        crate::tools::deallocate(self.space, &self.label, self.ptr.as_ptr(), len);
        // SAFETY: ptr/bytes came from `allocate` (or a grow) on this backend,
        // and the last Arc is gone, so nobody uses the memory (the
        // registration runs `free` once its workers are done).
        let owned = unsafe { Block::from_raw(self.ptr, bytes) };
        let (space, backend) = (self.space, self.backend().ok());
        let free = move |block: Block| {
            if let Some(b) = backend {
                b.deallocate(space.ordinal(), block);
            }
        };
        // Cancels what is pending; unregisters off the caller's path, then frees.
        let release = move |block: Block, r: Box<dyn HostRegistration>| r.release(Box::new(move || free(block)));
        match (self.registration.take().flatten(), self.registered_with.get()) {
            // Of a size the pool takes: registered whole, kept for the next mirror; still
            // registering, kept by the background thread once that ends (its job runs first).
            // A registration that ends between the two reads is released: safe, only not reused.
            (Some(r), Some(&kind)) if space == Space::HOST => {
                let registered = r.is_registered();
                let pending = !registered && r.is_pending();
                if !super::pool::wants(owned.bytes(), registered, pending) {
                    release(owned, r);
                } else if registered {
                    if let Err((block, r)) = super::pool::keep(kind, owned, r) {
                        release(block, r);
                    }
                } else {
                    super::background::submit(move || {
                        if let Err((block, r)) = super::pool::keep_pending(kind, owned, r) {
                            release(block, r);
                        }
                    });
                }
            }
            (Some(r), _) => release(owned, r),
            (None, _) => free(owned),
        }
    }
}

impl fmt::Debug for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Allocation")
            .field("label", &self.label)
            .field("space", &self.space)
            .field("bytes", &self.bytes())
            .field("owned", &self.owned)
            .finish()
    }
}
