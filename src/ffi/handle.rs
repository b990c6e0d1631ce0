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

use super::boundary::null;
use crate::dual_view::RawDualView;
use crate::error::{Error, ErrorKind};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Mutex;

/// An opaque DualView handle. Create with `dv_create`, `dv_wrap`, `dv_clone`
/// or `dv_subview`; release each with `dv_destroy`.
#[allow(non_camel_case_types)]
pub struct dv_dualview_t {
    _private: [u8; 0],
}

/// What a handle owns: the DualView and the C element type it was made with.
pub(crate) struct Entry {
    pub dv: RawDualView,
    pub dtype: u32,
}

const SEG_BITS: u32 = 12;
const SEG_LEN: usize = 1 << SEG_BITS;
const SEGS: usize = 1 << 12;

struct Slot {
    generation: AtomicU32,
    entry: AtomicPtr<Entry>,
}

type Segment = [Slot; SEG_LEN];

static SEGMENTS: [AtomicPtr<Segment>; SEGS] = [const { AtomicPtr::new(null_mut()) }; SEGS];

struct Allocator {
    next: u32,
    free: Vec<u32>,
}

static ALLOC: Mutex<Allocator> = Mutex::new(Allocator { next: 0, free: Vec::new() });

fn slot(index: u32) -> Option<&'static Slot> {
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

#[cold]
fn invalid(h: *const dv_dualview_t) -> Error {
    Error::new(
        ErrorKind::InvalidHandle,
        format!("handle {h:p} is not a live DualView (destroyed, never created, or not from dualview)"),
    )
}

/// Register `entry` and return its new handle.
pub(crate) fn insert(entry: Entry) -> Result<*mut dv_dualview_t, Error> {
    let mut a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    let index = match a.free.pop() {
        Some(i) => i,
        None => {
            let i = a.next;
            if i as usize >= SEG_LEN * SEGS - 1 {
                return Err(Error::new(ErrorKind::OutOfMemory, "too many live DualView handles (16 million)"));
            }
            let seg = &SEGMENTS[(i >> SEG_BITS) as usize];
            if seg.load(Ordering::Acquire).is_null() {
                let fresh: Box<Segment> = Box::new(std::array::from_fn(|_| Slot {
                    generation: AtomicU32::new(1),
                    entry: AtomicPtr::new(null_mut()),
                }));
                seg.store(Box::into_raw(fresh), Ordering::Release);
            }
            a.next += 1;
            i
        }
    };
    let s = slot(index).expect("allocated above");
    let generation = s.generation.load(Ordering::Acquire);
    s.entry.store(Box::into_raw(Box::new(entry)), Ordering::Release);
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
        return Err(null(arg));
    }
    let (low, generation) = decode(h);
    let Some(s) = low.checked_sub(1).and_then(slot) else {
        return Err(invalid(h));
    };
    let p = s.entry.load(Ordering::Acquire);
    if p.is_null() || s.generation.load(Ordering::Acquire) != generation {
        return Err(invalid(h));
    }
    // SAFETY: a live slot owns a Box<Entry> until `remove` bumps its generation
    // and takes it; the caller promises not to race `remove` on this handle.
    Ok(unsafe { &*p })
}

/// Invalidate a handle and return what it owned.
pub(crate) fn remove(h: *const dv_dualview_t) -> Result<Box<Entry>, Error> {
    let (low, generation) = decode(h);
    let index = low.checked_sub(1).ok_or_else(|| invalid(h))?;
    let mut a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    let s = slot(index).ok_or_else(|| invalid(h))?;
    if s.generation.load(Ordering::Acquire) != generation || s.entry.load(Ordering::Acquire).is_null() {
        return Err(invalid(h));
    }
    s.generation.store(generation.wrapping_add(1).max(1), Ordering::Release);
    let p = s.entry.swap(null_mut(), Ordering::AcqRel);
    a.free.push(index);
    // SAFETY: p came from Box::into_raw in `insert` and is now unreachable from the table.
    Ok(unsafe { Box::from_raw(p) })
}

/// How many handles are live (for leak checks in tests).
pub(crate) fn live() -> usize {
    let a = ALLOC.lock().unwrap_or_else(|e| e.into_inner());
    a.next as usize - a.free.len()
}
