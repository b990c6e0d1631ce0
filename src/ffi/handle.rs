//! Handles: generation-checked indices into a global table, so that a
//! destroyed, never-created or foreign handle is detected instead of being
//! dereferenced.
//!
//! A handle's bits are `generation << 32 | (slot + 1)`; C sees an opaque
//! pointer that is never dereferenced. Lookup is lock-free: two atomic loads.
//! Creating and destroying handles take a mutex (not a hot path).
//!
//! | misuse | caught |
//! | --- | --- |
//! | use or destroy after `dv_destroy` (double destroy included) | yes, until the slot's generation wraps (2^32 reuses) |
//! | a pointer that never came from dualview | yes, unless its bits happen to match a live slot and generation |
//! | destroying a handle while another thread is using the same handle | no: a data race in the caller |
//!
//! Each slot also holds an ownership [`Mark`], for languages without move
//! semantics (the Fortran module's function results, docs/FORTRAN.md): a
//! handle marked as a result is handed over once by `dv_take`, and after that
//! `dv_release` by any holder other than its taker only detaches.

use super::holder::Holder;
use crate::dual_view::RawDualView;
use crate::error::{Error, ErrorKind};
use std::ptr::null_mut;
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

/// An opaque DualView handle. Create with `dv_create`, `dv_wrap`, `dv_clone`
/// or `dv_subview`; release each with `dv_destroy`.
#[allow(non_camel_case_types)]
pub struct dv_dualview_t {
    _private: [u8; 0],
}

/// What a handle owns: the DualView, the C element type it was made with,
/// and the label's bytes when they are not UTF-8 (given back by `dv_label`).
#[derive(Clone)]
pub(crate) struct Entry {
    pub dv: RawDualView,
    pub dtype: u32,
    pub raw_label: Option<std::sync::Arc<[u8]>>,
}

impl Entry {
    /// The same element type and label bytes, on another DualView.
    pub(crate) fn with(&self, dv: RawDualView) -> Entry {
        Entry { dv, dtype: self.dtype, raw_label: self.raw_label.clone() }
    }
}

const SEG_BITS: u32 = 12;
const SEG_LEN: usize = 1 << SEG_BITS;
const SEGS: usize = 1 << 12;

/// A table slot. `state` is the generation of the live handle, or 0 when the
/// slot is free; `entry` is written only under the allocator lock while
/// `state` is 0, and read only after `state` is seen equal to a handle's
/// generation (one load and one compare on the hot path).
struct Slot {
    state: AtomicU32,
    /// The live handle's [`Mark`] (0 when it is made).
    mark: AtomicU8,
    /// Which objects of a language without copy control hold it (under the lock).
    holder: UnsafeCell<Holder>,
    /// The holder's first user, readable without the lock (0: none).
    first_user: AtomicUsize,
    /// The generation the next handle of this slot gets (under the lock).
    next: UnsafeCell<u32>,
    entry: UnsafeCell<MaybeUninit<Entry>>,
}

// SAFETY: `next` and `entry` are written only under ALLOC's mutex while
// `state` is 0 (no reader can match); readers check `state` (Acquire), which
// the writer published with Release. Destroying a handle while another
// thread uses that same handle is the documented caller error.
unsafe impl Sync for Slot {}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    state: AtomicU32::new(0),
    mark: AtomicU8::new(0),
    holder: UnsafeCell::new(Holder::NONE),
    first_user: AtomicUsize::new(0),
    next: UnsafeCell::new(1),
    entry: UnsafeCell::new(MaybeUninit::uninit()),
};

type Segment = [Slot; SEG_LEN];

/// The first segment lives in static memory: the common case takes one load less.
#[allow(clippy::declare_interior_mutable_const)]
static FIRST: Segment = [EMPTY; SEG_LEN];
/// Further segments, allocated on demand and never freed (index 0 unused).
static SEGMENTS: [AtomicPtr<Segment>; SEGS] = [const { AtomicPtr::new(null_mut()) }; SEGS];

struct Allocator {
    next: u32,
    free: Vec<u32>,
}

static ALLOC: Mutex<Allocator> = Mutex::new(Allocator { next: 0, free: Vec::new() });

#[inline(always)]
fn slot(index: u32) -> Option<&'static Slot> {
    if (index as usize) < SEG_LEN {
        return Some(&FIRST[index as usize]);
    }
    let seg = SEGMENTS.get((index >> SEG_BITS) as usize)?.load(Ordering::Acquire);
    if seg.is_null() {
        return None;
    }
    // SAFETY: segments are allocated once and never freed.
    Some(unsafe { &(*seg)[index as usize & (SEG_LEN - 1)] })
}

fn decode(h: *const dv_dualview_t) -> (u32, u32) {
    let bits = h as usize as u64;
    ((bits & 0xffff_ffff) as u32, (bits >> 32) as u32)
}

/// A NULL handle: name the argument and the likely cause.
#[cold]
fn null_handle(arg: &str) -> Error {
    Error::new(
        ErrorKind::NullArgument,
        format!("argument `{arg}` is NULL: no DualView (never created, or destroyed and reset to NULL)"),
    )
}

#[cold]
fn invalid(h: *const dv_dualview_t) -> Error {
    Error::new(
        ErrorKind::InvalidHandle,
        format!("handle {h:p} is not a live DualView (destroyed, never created, or not from dualview)"),
    )
}

/// Register `entry` and return its new handle.
pub(crate) fn insert(entry: Entry) -> Result<*mut dv_dualview_t, Error> {
    crate::memory::allocation_point("handle table")?;
    let mut a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    let index = match a.free.pop() {
        Some(i) => i,
        None => {
            let i = a.next;
            if i as usize >= SEG_LEN * SEGS - 1 {
                return Err(Error::new(ErrorKind::OutOfMemory, "too many live DualView handles (16 million)"));
            }
            let seg = &SEGMENTS[(i >> SEG_BITS) as usize];
            if i as usize >= SEG_LEN && seg.load(Ordering::Acquire).is_null() {
                let fresh: Box<Segment> = Box::new(std::array::from_fn(|_| EMPTY));
                seg.store(Box::into_raw(fresh), Ordering::Release);
            }
            a.next += 1;
            i
        }
    };
    let s = slot(index).expect("allocated above");
    // SAFETY: under the allocator lock, and the slot is free (`state` 0): no
    // reader can reach `next` or `entry`.
    let generation = unsafe {
        (*s.entry.get()).write(entry);
        *s.next.get()
    };
    s.mark.store(Mark::Plain as u8, Ordering::Relaxed);
    // SAFETY: under the allocator lock, which every access to `holder` takes.
    unsafe { *s.holder.get() = Holder::NONE };
    s.first_user.store(0, Ordering::Relaxed);
    s.state.store(generation, Ordering::Release);
    let bits = ((generation as u64) << 32) | (index as u64 + 1);
    Ok(bits as usize as *mut dv_dualview_t)
}

/// The entry of a live handle; errors for NULL and for dead or foreign handles.
///
/// The reference stays valid until `remove` is called for this handle, which
/// the caller must not do concurrently (documented in the header).
#[inline]
pub(crate) fn get<'a>(h: *const dv_dualview_t, arg: &str) -> Result<&'a Entry, Error> {
    if h.is_null() {
        return Err(null_handle(arg));
    }
    let (low, generation) = decode(h);
    let Some(s) = low.checked_sub(1).and_then(slot) else {
        return Err(invalid(h));
    };
    if generation == 0 || s.state.load(Ordering::Acquire) != generation {
        return Err(invalid(h));
    }
    // SAFETY: `state` equals the handle's generation, so `entry` holds this
    // handle's Entry until `remove`, which the caller does not race.
    Ok(unsafe { (*s.entry.get()).assume_init_ref() })
}

/// The entry of a live handle, or `None`: the error-free lookup of the hot paths.
#[inline(always)]
pub(crate) fn peek<'a>(h: *const dv_dualview_t) -> Option<&'a Entry> {
    let (low, generation) = decode(h);
    let s = slot(low.checked_sub(1)?)?;
    if generation == 0 || s.state.load(Ordering::Acquire) != generation {
        return None;
    }
    // SAFETY: as in `get`.
    Some(unsafe { (*s.entry.get()).assume_init_ref() })
}

/// A handle's ownership mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Mark {
    /// Released by whoever holds it.
    Plain = 0,
    /// A function's result: the next [`take`] hands it over.
    Result = 1,
    /// Handed over by [`take`]: only its taker releases it.
    Taken = 2,
}

/// The slot of a live handle (errors as [`get`]).
fn live_slot(h: *const dv_dualview_t, arg: &str) -> Result<&'static Slot, Error> {
    get(h, arg)?;
    let (low, _) = decode(h);
    Ok(slot(low - 1).expect("get found it"))
}

/// Mark a live handle as a function's result (again, after a take).
pub(crate) fn mark_result(h: *const dv_dualview_t, arg: &str) -> Result<(), Error> {
    live_slot(h, arg)?.mark.store(Mark::Result as u8, Ordering::Release);
    Ok(())
}

/// Hand over a live handle marked as a result: `Ok(true)` once (it is
/// [`Mark::Taken`] from then on), `Ok(false)` when it is not a result.
pub(crate) fn take(h: *const dv_dualview_t, arg: &str) -> Result<bool, Error> {
    let s = live_slot(h, arg)?;
    Ok(s.mark.compare_exchange(Mark::Result as u8, Mark::Taken as u8, Ordering::AcqRel, Ordering::Acquire).is_ok())
}

/// A live handle's mark.
pub(crate) fn mark(h: *const dv_dualview_t, arg: &str) -> Result<Mark, Error> {
    Ok(match live_slot(h, arg)?.mark.load(Ordering::Acquire) {
        1 => Mark::Result,
        2 => Mark::Taken,
        _ => Mark::Plain,
    })
}

/// Read or change a live handle's [`Holder`] under the allocator lock (the
/// handle is checked under it too, so a concurrent destroy is seen).
pub(crate) fn with_holder<R>(h: *const dv_dualview_t, arg: &str, f: impl FnOnce(&mut Holder) -> R) -> Result<R, Error> {
    let _a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    let s = live_slot(h, arg)?;
    // SAFETY: `holder` is read and written only under the allocator lock, held here.
    let holder = unsafe { &mut *s.holder.get() };
    let r = f(holder);
    s.first_user.store(holder.users.first().copied().unwrap_or(0), Ordering::Release);
    Ok(r)
}

/// Whether the object at `at` is a live handle's first user: the lock-free
/// answer to a repeated use (`Ok(false)` sends the caller to [`with_holder`]).
#[inline]
pub(crate) fn is_first_user(h: *const dv_dualview_t, arg: &str, at: usize) -> Result<bool, Error> {
    Ok(at != 0 && live_slot(h, arg)?.first_user.load(Ordering::Acquire) == at)
}

/// Invalidate a handle and return what it owned.
pub(crate) fn remove(h: *const dv_dualview_t) -> Result<Entry, Error> {
    let (low, generation) = decode(h);
    let index = low.checked_sub(1).ok_or_else(|| invalid(h))?;
    let mut a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    let s = slot(index).ok_or_else(|| invalid(h))?;
    if generation == 0 || s.state.load(Ordering::Acquire) != generation {
        return Err(invalid(h));
    }
    s.state.store(0, Ordering::Release);
    // SAFETY: under the allocator lock; `state` is 0, so no new reader can
    // reach `entry`, which held an initialised Entry while live.
    let entry = unsafe {
        *s.next.get() = generation.wrapping_add(1).max(1);
        *s.holder.get() = Holder::NONE;
        (*s.entry.get()).assume_init_read()
    };
    a.free.push(index);
    Ok(entry)
}

/// How many handles are live (for leak checks in tests).
pub(crate) fn live() -> usize {
    let a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    a.next as usize - a.free.len()
}
