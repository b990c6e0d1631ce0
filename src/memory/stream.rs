//! Streams and events: work ordered on a device's queues without the host
//! waiting (Kokkos execution-space instances, `sync(exec)`).
//!
//! | item | what it is |
//! | --- | --- |
//! | [`create`], [`fence`], [`destroy`] | a stream of a space's device (Kokkos `partition_space`, `exec.fence()`) |
//! | `Event` | a point in a stream's work, recorded after a queued copy: the host waits on it, or another stream is ordered after it |
//!
//! A space whose work completes on return (host memory) answers the default
//! stream from [`create`] and records no event: nothing is ever in flight
//! there. The test device runs streams it made ([`create`]) on a worker
//! thread each, so that "in flight" exists without a GPU
//! ([`crate::memory::test_device::set_stream_delay`]).

use super::device::Mark;
use super::Backend;
use crate::space::{Space, Stream};
use crate::error::Result;

/// A new stream on `space`'s device that does not wait for the default
/// stream (CUDA `CU_STREAM_NON_BLOCKING`). Host spaces answer the default
/// stream: their work completes on return.
///
/// ```
/// use dualview::{memory::stream, Space};
/// let s = stream::create(Space::test_device(0)).unwrap();
/// assert!(!s.is_null());
/// stream::fence(Space::test_device(0), s).unwrap();
/// // SAFETY: made just above, used no more.
/// unsafe { stream::destroy(Space::test_device(0), s) }.unwrap();
/// assert!(stream::create(Space::HOST).unwrap().is_null());
/// ```
pub fn create(space: Space) -> Result<Stream> {
    space.backend()?.stream_create(space.ordinal())
}

/// Wait on the host until the work queued on `stream` (of `space`'s device) is done
/// (Kokkos `exec.fence()`). The default stream: a fence of the device.
///
/// ```
/// use dualview::{memory::stream, Space, Stream};
/// stream::fence(Space::test_device(0), Stream::null()).unwrap();
/// ```
pub fn fence(space: Space, stream: Stream) -> Result<()> {
    let b = space.backend()?;
    if stream.is_null() {
        return b.fence(space.ordinal());
    }
    b.stream_fence(space.ordinal(), stream)
}

/// Release a stream made by [`create`]; work queued on it still runs.
///
/// # Safety
/// `stream` came from [`create`] of `space` and is not used afterwards.
///
/// ```
/// use dualview::{memory::stream, Space};
/// let s = stream::create(Space::test_device(1)).unwrap();
/// // SAFETY: made just above, used no more.
/// unsafe { stream::destroy(Space::test_device(1), s) }.unwrap();
/// ```
pub unsafe fn destroy(space: Space, stream: Stream) -> Result<()> {
    if stream.is_null() {
        return Ok(());
    }
    space.backend()?.stream_destroy(space.ordinal(), stream)
}

/// A point in one stream's work: passed once everything queued on that
/// stream before it has run. Released on drop (the work still runs).
pub(crate) struct Event {
    backend: &'static dyn Backend,
    ordinal: u32,
    /// Taken by drop.
    mark: Option<Mark>,
}

impl Event {
    /// An event after the work queued on `stream` so far by `space`'s backend;
    /// `None` when that work is complete already.
    pub(crate) fn record(space: Space, stream: Stream) -> Result<Option<Event>> {
        if stream.is_null() {
            return Ok(None); // default-stream work of dualview completes on return
        }
        let backend = space.backend()?;
        let ordinal = space.ordinal();
        Ok(backend.event_record(ordinal, stream)?.map(|m| Event { backend, ordinal, mark: Some(m) }))
    }

    /// Wait on the host until the event has passed.
    pub(crate) fn wait(&self) -> Result<()> {
        self.mark.as_ref().map_or(Ok(()), |m| self.backend.event_wait(self.ordinal, m))
    }

    /// Whether the event has passed (never waits).
    pub(crate) fn is_done(&self) -> bool {
        self.mark.as_ref().is_none_or(|m| self.backend.event_done(self.ordinal, m))
    }

    /// Order `stream`'s later work after this event; the host does not wait.
    pub(crate) fn order(&self, stream: Stream) -> Result<()> {
        if stream.is_null() {
            return self.wait(); // the default stream's copies complete on return: the host waits
        }
        self.mark.as_ref().map_or(Ok(()), |m| self.backend.event_order(self.ordinal, m, stream))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Some(m) = self.mark.take() {
            self.backend.event_release(self.ordinal, m);
        }
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event({:?} on device {})", self.mark, self.ordinal)
    }
}
