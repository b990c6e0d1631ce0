//! Events of a device: recorded after queued copies, pooled for reuse (a
//! create and a destroy per queued copy are two driver calls saved), and
//! the flag of a staged copy's host function standing in for an event when
//! that function is the last work on its stream (`stage.rs`): a [`Mark`].

use super::stage::{self, Flag};
use super::{raw, Engine, EventHandle};
use crate::error::Result;
use crate::space::Stream;
use std::sync::Arc;

/// At most this many idle events are kept per engine.
const KEPT: usize = 64;

/// A point in one stream's work, as the engine hands it out.
#[derive(Debug)]
pub(crate) enum Mark {
    /// A driver event recorded on the stream.
    Event(EventHandle),
    /// The flag a staged copy's host function sets, the last work queued on its stream.
    HostFn(Arc<Flag>),
}

impl std::fmt::Debug for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Flag(stream {:#x}, set: {})", self.stream, self.is_set())
    }
}

fn pool(e: &Engine) -> std::sync::MutexGuard<'_, Vec<(u32, EventHandle)>> {
    e.events.lock().unwrap_or_else(|p| p.into_inner())
}

/// A mark after the work queued on `stream` of device `ordinal` so far.
pub(super) fn record(e: &Engine, ordinal: u32, stream: Stream) -> Result<Option<Mark>> {
    if let Some(flag) = stage::take_last(e, stream) {
        // The last work queued there is our host function: its flag is the event.
        return Ok(Some(Mark::HostFn(flag)));
    }
    let _bound = e.bind(ordinal)?;
    let pooled = {
        let mut p = pool(e);
        p.iter().position(|(o, _)| *o == ordinal).map(|i| p.swap_remove(i).1)
    };
    let ev = match pooled {
        Some(ev) => ev,
        None => e.driver.event_create()?,
    };
    if let Err(err) = raw::event_record(e, &ev, stream) {
        raw::event_destroy(e, ev);
        return Err(err);
    }
    Ok(Some(Mark::Event(ev)))
}

/// Wait on the host for a mark from [`record`].
pub(super) fn wait(e: &Engine, ordinal: u32, mark: &Mark) -> Result<()> {
    match mark {
        Mark::HostFn(f) => {
            f.wait();
            Ok(())
        }
        Mark::Event(ev) => {
            let _bound = e.bind(ordinal)?;
            raw::event_synchronize(e, ev)
        }
    }
}

/// Whether a mark from [`record`] has passed. An error counts as not
/// passed: the mark is kept, and the wait for it reports the error (its
/// copy may still run, so its memory is not let go).
pub(super) fn done(e: &Engine, ordinal: u32, mark: &Mark) -> bool {
    match mark {
        Mark::HostFn(f) => f.is_set(),
        Mark::Event(ev) => {
            let Ok(_bound) = e.bind(ordinal) else { return false };
            raw::event_query(e, ev).unwrap_or(false)
        }
    }
}

/// Make `stream`'s later work wait for a mark from [`record`].
pub(super) fn order(e: &Engine, ordinal: u32, mark: &Mark, stream: Stream) -> Result<()> {
    match mark {
        Mark::HostFn(f) => {
            // Later work of the same stream follows it already. Another stream cannot wait for
            // a host function: the host waits (rare: one region in flight on two streams).
            if f.stream != stream.as_raw() {
                f.wait();
            }
            Ok(())
        }
        Mark::Event(ev) => {
            let _bound = e.bind(ordinal)?;
            raw::stream_wait_event(e, stream, ev)
        }
    }
}

/// Release a mark from [`record`]: a passed event goes back to the pool.
pub(super) fn release(e: &Engine, ordinal: u32, mark: Mark) {
    let Mark::Event(ev) = mark else { return };
    let Ok(_bound) = e.bind(ordinal) else { return };
    let passed = matches!(raw::event_query(e, &ev), Ok(true));
    {
        let mut p = pool(e);
        if passed && p.len() < KEPT {
            p.push((ordinal, ev)); // recorded again by a later copy
            return;
        }
    }
    raw::event_destroy(e, ev);
}
