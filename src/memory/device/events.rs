//! Events of a device: recorded after queued copies, pooled for reuse (a
//! create and a destroy per queued copy are two driver calls saved), and
//! the flag of a staged copy's host function standing in for an event when
//! that function is the last work on its stream (`stage.rs`).

use super::stage::{self, Flag};
use super::Engine;
use crate::error::Result;
use crate::space::Stream;
use std::sync::Arc;

/// At most this many idle events are kept per engine.
const KEPT: usize = 64;

/// A flag event's raw value: its `Arc<Flag>` pointer with the low bit set
/// (a driver's event is a pointer to an aligned object: bit clear).
const FLAG_BIT: usize = 1;

fn flag_of<'a>(event: usize) -> Option<&'a Flag> {
    // SAFETY: a tagged value is an `Arc<Flag>` from `record`, alive until `release`.
    (event & FLAG_BIT != 0).then(|| unsafe { &*((event & !FLAG_BIT) as *const Flag) })
}

fn pool(e: &Engine) -> std::sync::MutexGuard<'_, Vec<(u32, usize)>> {
    e.events.lock().unwrap_or_else(|p| p.into_inner())
}

/// An event after the work queued on `stream` of device `ordinal` so far.
pub(super) fn record(e: &Engine, ordinal: u32, stream: Stream) -> Result<Option<usize>> {
    if let Some(flag) = stage::take_last(e, stream) {
        // The last work queued there is our host function: its flag is the event.
        return Ok(Some(Arc::into_raw(flag) as usize | FLAG_BIT));
    }
    let _bound = e.bind(ordinal)?;
    let pooled = {
        let mut p = pool(e);
        p.iter().position(|&(o, _)| o == ordinal).map(|i| p.swap_remove(i).1)
    };
    let ev = match pooled {
        Some(ev) => ev,
        None => e.driver.event_create()?,
    };
    // SAFETY: an idle event of this device and a stream of it.
    if let Err(err) = unsafe { e.driver.event_record(ev, stream) } {
        // SAFETY: our own event, not recorded by this call.
        unsafe { e.driver.event_destroy(ev) };
        return Err(err);
    }
    Ok(Some(ev))
}

/// Wait on the host for an event from [`record`].
pub(super) fn wait(e: &Engine, ordinal: u32, event: usize) -> Result<()> {
    if let Some(f) = flag_of(event) {
        f.wait();
        return Ok(());
    }
    let _bound = e.bind(ordinal)?;
    // SAFETY: a live event from `record`.
    unsafe { e.driver.event_synchronize(event) }
}

/// Whether an event from [`record`] has passed. An error counts as not
/// passed: the event is kept, and the wait for it reports the error (its
/// copy may still run, so its memory is not let go).
pub(super) fn done(e: &Engine, ordinal: u32, event: usize) -> bool {
    if let Some(f) = flag_of(event) {
        return f.is_set();
    }
    let Ok(_bound) = e.bind(ordinal) else { return false };
    // SAFETY: a live event from `record`.
    unsafe { e.driver.event_query(event) }.unwrap_or(false)
}

/// Make `stream`'s later work wait for an event from [`record`].
pub(super) fn order(e: &Engine, ordinal: u32, event: usize, stream: Stream) -> Result<()> {
    if let Some(f) = flag_of(event) {
        // Later work of the same stream follows it already. Another stream cannot wait for
        // a host function: the host waits (rare: one region in flight on two streams).
        if f.stream != stream.as_raw() {
            f.wait();
        }
        return Ok(());
    }
    let _bound = e.bind(ordinal)?;
    // SAFETY: a live event and a stream of this device.
    unsafe { e.driver.stream_wait_event(stream, event) }
}

/// Release an event from [`record`]: a passed one goes back to the pool.
pub(super) fn release(e: &Engine, ordinal: u32, event: usize) {
    if event & FLAG_BIT != 0 {
        // SAFETY: the Arc leaked by `record`, released once.
        drop(unsafe { Arc::from_raw((event & !FLAG_BIT) as *const Flag) });
        return;
    }
    let Ok(_bound) = e.bind(ordinal) else { return };
    // SAFETY: a live event from `record`, released once.
    let passed = matches!(unsafe { e.driver.event_query(event) }, Ok(true));
    {
        let mut p = pool(e);
        if passed && p.len() < KEPT {
            p.push((ordinal, event)); // recorded again by a later copy
            return;
        }
    }
    // SAFETY: released once; the driver frees it after its work.
    unsafe { e.driver.event_destroy(event) };
}
