//! [`Allocation`]: one block of memory in one space, reference-counted by
//! views, DualViews and guards, freed on drop when owned.
//!
//! Every owned allocation is also
//! - announced to Kokkos Tools (`kokkosp_allocate_data` / `_deallocate_data`);
//! - listed in a registry of live allocations (label, space, bytes), which
//!   the exit report of `DV_LEAK_REPORT=1` prints and tests read;
//! - subject to the test-only failure injection ([`inject_allocation_failure`]);
//! - for the host mirror of a CUDA DualView, registered with the driver as one
//!   range (page-locked, so copies run at full speed): in the background as
//!   soon as it is allocated, or at the latest by its first copying sync; and
//!   unregistered before it is freed or grown ([`Allocation::pin`]).

use super::Space;
use crate::error::{bail, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};

/// Bytes of pageable mirrors registered with the CUDA driver now.
static REGISTERED: AtomicUsize = AtomicUsize::new(0);

/// Bytes of host mirrors that dualview has registered with the CUDA driver
/// and not yet unregistered (0 without CUDA). Every registration ends when its
/// block is freed, so this returns to 0 when the last DualView goes.
///
/// ```
/// assert_eq!(dualview::space::registered_host_bytes(), 0); // no CUDA DualView here
/// ```
pub fn registered_host_bytes() -> usize {
    REGISTERED.load(Ordering::Relaxed)
}

/// A block address handed to the background thread with the block's ownership.
struct SendPtr(NonNull<u8>);
// SAFETY: the block has no other owner left (its Allocation is being dropped).
unsafe impl Send for SendPtr {}

/// A block of memory in one space.
pub(crate) struct Allocation {
    space: Space,
    ptr: NonNull<u8>,
    /// The size; changes only by [`Allocation::grow_in_place`].
    bytes: AtomicUsize,
    owned: bool,
    label: Arc<str>,
    /// Key in the registry of live allocations (0 for wrapped memory).
    id: u64,
    /// Whether this host block is registered with the CUDA driver.
    pinned: Mutex<Pinned>,
}

/// The registration state of a host block. One registration covers the
/// whole block, so that any host range inside it (a raw `cudaMemcpy` of part
/// of `h_view` included) lies in a single registration.
#[derive(Default)]
struct Pinned {
    /// Bytes registered from the base (0: none; else the block's size).
    registered: usize,
    /// The driver refused once: copies stay pageable.
    refused: bool,
}

/// Host mirrors from this size are registered; smaller ones stay pageable
/// (registering costs more than it saves on them).
pub(crate) const PIN_MIN: usize = 256 << 10;

/// Mirrors from this size have their pages faulted in by several threads
/// before registration (see `host::populate`).
const POPULATE_MIN: usize = 64 << 20;

// SAFETY: an Allocation is an address range plus bookkeeping; whoever reads or
// writes the memory synchronises (DualView locks and borrow flags; `View`'s
// writing methods are `unsafe` and state that contract).
unsafe impl Send for Allocation {}
// SAFETY: as above; `&Allocation` exposes no interior mutability.
unsafe impl Sync for Allocation {}

/// A live owned allocation, as listed by [`live_allocations`].
///
/// ```
/// let all = dualview::space::live_allocations();
/// assert!(all.iter().all(|a| a.bytes > 0 || a.bytes == 0));
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
/// assert!(dualview::space::live_allocations().iter().any(|x| x.label == "leak_probe" && x.bytes == 8000));
/// drop(a);
/// assert!(!dualview::space::live_allocations().iter().any(|x| x.label == "leak_probe"));
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
/// dualview::space::inject_allocation_failure(1);
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
        let on = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0");
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
        if bytes > isize::MAX as usize {
            bail!(Overflow, "an allocation of {bytes} bytes exceeds isize::MAX");
        }
        let backend = space.backend()?;
        allocation_point("allocation")?;
        let ptr = backend.allocate(space.ordinal(), bytes, zeroed)?;
        arm_exit_report();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(BTreeMap::new).insert(id, (label.clone(), space, bytes));
        crate::tools::allocate(space, label, ptr.as_ptr(), bytes);
        Ok(Arc::new(Allocation {
            space,
            ptr,
            bytes: AtomicUsize::new(bytes),
            owned: true,
            label: label.clone(),
            id,
            pinned: Mutex::default(),
        }))
    }

    /// Memory owned by the caller: never freed here, announced to nobody.
    ///
    /// # Safety
    /// `ptr` addresses `bytes` bytes of `space` that outlive every user of the result.
    pub(crate) unsafe fn wrap(space: Space, ptr: NonNull<u8>, bytes: usize, label: &Arc<str>) -> Arc<Allocation> {
        Arc::new(Allocation {
            space,
            ptr,
            bytes: AtomicUsize::new(bytes),
            owned: false,
            label: label.clone(),
            id: 0,
            pinned: Mutex::default(),
        })
    }

    /// The base address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The size in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Acquire)
    }

    /// Whether this block can grow to `new` bytes in place. An allocation
    /// point: a failure injected here answers `OutOfMemory`.
    pub(crate) fn prepare_grow(&self, new: usize) -> Result<bool> {
        let old = self.bytes();
        if new < old || !self.owned {
            return Ok(false);
        }
        allocation_point("grow in place")?;
        Ok(new == old || self.space.backend()?.can_grow_in_place(self.space.ordinal(), self.ptr, old, new))
    }

    /// Grow to `new` bytes keeping the address and contents (the new bytes
    /// zero), when the space can: `Ok(false)` otherwise (nothing changed).
    /// The caller holds the DualView's lock and both sides' borrows.
    pub(crate) fn grow_in_place(&self, new: usize) -> Result<bool> {
        let old = self.bytes();
        if new < old || !self.owned {
            return Ok(false);
        }
        if new == old {
            return Ok(true);
        }
        // SAFETY: our own live block of `old` bytes from this backend; the
        // caller excludes every other user of the bytes past `old`.
        self.unpin();
        let grown = unsafe { self.space.backend()?.grow_in_place(self.space.ordinal(), self.ptr, old, new)? };
        if grown {
            crate::tools::deallocate(self.space, &self.label, self.ptr.as_ptr(), old);
            self.bytes.store(new, Ordering::Release);
            if let Some((_, _, b)) = LIVE.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|m| m.get_mut(&self.id)) {
                *b = new;
            }
            crate::tools::allocate(self.space, &self.label, self.ptr.as_ptr(), new);
        }
        Ok(grown)
    }

    /// Register this (pageable host) block with the CUDA driver as one range,
    /// unless it is already; waits while the background thread is doing it.
    /// False when the driver refuses (then it is not tried again and copies
    /// stay pageable).
    pub(crate) fn pin(&self) -> bool {
        let mut p = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        let bytes = self.bytes();
        if p.registered == bytes {
            return true;
        }
        if p.refused {
            return false;
        }
        if bytes >= POPULATE_MIN {
            super::host::populate(self.ptr.as_ptr(), bytes);
        }
        let registered = allocation_point("mirror registration").and_then(|()| super::cuda::register_host(self.ptr.as_ptr(), bytes));
        match registered {
            Ok(()) => {
                p.registered = bytes;
                REGISTERED.fetch_add(bytes, Ordering::Relaxed);
                true
            }
            Err(e) => {
                if crate::stats::trace_enabled() {
                    eprintln!("dualview: \"{}\": the mirror stays pageable: {}", self.label, e.message());
                }
                p.refused = true;
                false
            }
        }
    }

    /// Register this block on the background thread, so that the driver's
    /// work overlaps the program filling the mirror (see [`Allocation::pin`]).
    pub(crate) fn pin_in_background(self: &Arc<Self>) {
        let me = Arc::clone(self);
        super::background::submit(move || {
            me.pin();
        });
    }

    /// Drop the registration (before the block grows: a registration must
    /// cover the whole block or nothing).
    fn unpin(&self) {
        let mut p = self.pinned.lock().unwrap_or_else(|e| e.into_inner());
        if p.registered > 0 {
            super::cuda::unregister_host(self.ptr.as_ptr());
            REGISTERED.fetch_sub(p.registered, Ordering::Relaxed);
            p.registered = 0;
        }
    }

    /// Whether the whole block is registered.
    /// Does not wait: while a registration is running (the lock is held), false.
    pub(crate) fn is_pinned(&self) -> bool {
        let p = match self.pinned.try_lock() {
            Ok(p) => p,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return false,
        };
        p.registered > 0 && p.registered == self.bytes()
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
            return;
        }
        if let Some(m) = LIVE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            m.remove(&self.id);
        }
        let bytes = self.bytes();
        let registered = self.pinned.get_mut().unwrap_or_else(|e| e.into_inner()).registered;
        crate::tools::deallocate(self.space, &self.label, self.ptr.as_ptr(), bytes);
        let (space, ptr) = (self.space, SendPtr(self.ptr));
        let release = move || {
            let ptr = ptr;
            if registered > 0 {
                super::cuda::unregister_host(ptr.0.as_ptr());
                REGISTERED.fetch_sub(registered, Ordering::Relaxed);
            }
            if let Ok(b) = space.backend() {
                // SAFETY: ptr/bytes came from `allocate` (or a grow) on this
                // backend, and the last Arc is gone, so nobody uses the memory.
                unsafe { b.deallocate(space.ordinal(), ptr.0, bytes) };
            }
        };
        if registered > 0 {
            // Unregistering takes the driver milliseconds per GiB: off the caller's path.
            super::background::submit(release);
        } else {
            release();
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
