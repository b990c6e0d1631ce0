//! Copies queued on a stream that may still run (`sync_on`, `deep_copy_on`):
//! one event and the index boxes of each, kept in the family's `State`, and
//! the `IN_FLIGHT` bit of the flag word while any is kept (DECISIONS G13).
//!
//! | call | what it does with copies in flight |
//! | --- | --- |
//! | blocking `sync`, `access`, fill, deep and view copies, resize, realloc, the family's end | waits for all of them on the host ([`RawDualView::settle_locked`]) |
//! | `sync_on(stream)`, `deep_copy_on(stream)`, `view_copy_on(stream)` | orders its stream after those that touch its box; the host does not wait ([`RawDualView::order_after_locked`]), unless the copy reads pageable host memory at the call (a staged copy packs it then) |
//! | `modify`, `need_sync` | nothing (a modify marks work the caller already ordered) |
//!
//! The bit is set before a copy is queued and cleared, under the family
//! lock, once no copy is kept: a reader of the flag word (the C++ inline
//! fast paths) never sees a clean word while a copy into its data may run.

use super::regions::IndexBox;
use super::{RawDualView, State};
use crate::error::Result;
use crate::memory::stream::Event;
use crate::memory::Allocation;
use crate::space::{Space, Stream};
use std::sync::Arc;

/// One queued copy: its event, what it writes or reads (the family's index
/// boxes), and the blocks it uses that another family owns (kept alive until
/// the record goes, which is after the copy has run).
pub(super) struct InFlight {
    event: Arc<Event>,
    boxes: Vec<IndexBox>,
    _keep: Vec<Arc<Allocation>>,
}

impl RawDualView {
    /// Under the family lock: wait on the host for every copy in flight, then
    /// clear `IN_FLIGHT`. An event's error is returned; the copies not yet
    /// waited for stay recorded.
    pub(super) fn settle_locked(&self, st: &mut State) -> Result<()> {
        while let Some(f) = st.in_flight.first() {
            f.event.wait().map_err(|e| self.err_on(e, None))?;
            st.in_flight.remove(0);
        }
        if self.shared.flags.in_flight() {
            self.shared.flags.set_in_flight(false);
        }
        Ok(())
    }

    /// [`RawDualView::settle_locked`], taking the lock; free when nothing is in flight.
    pub(super) fn settle(&self) -> Result<()> {
        if !self.shared.flags.in_flight() {
            return Ok(());
        }
        self.settle_locked(&mut self.shared.write())
    }

    /// Under the family lock: order `stream` after every copy in flight whose
    /// boxes meet `bounds` (the host does not wait), and forget those that
    /// have run. `host_reads`: the next copy reads pageable host memory at the
    /// call (a staged copy packs it then), so the host waits for them instead.
    pub(super) fn order_after_locked(&self, st: &mut State, bounds: &IndexBox, stream: Stream, host_reads: bool) -> Result<()> {
        st.in_flight.retain(|f| !f.event.is_done());
        self.order_after(st, bounds, stream, host_reads)?;
        if st.in_flight.is_empty() {
            self.shared.flags.set_in_flight(false);
        }
        Ok(())
    }

    /// [`RawDualView::order_after_locked`] under a shared lock (nothing forgotten).
    pub(super) fn order_after(&self, st: &State, bounds: &IndexBox, stream: Stream, host_reads: bool) -> Result<()> {
        for f in &st.in_flight {
            if f.boxes.iter().any(|b| b.overlaps(bounds)) {
                let r = if host_reads { f.event.wait() } else { f.event.order(stream) };
                r.map_err(|e| self.err_on(e, None))?;
            }
        }
        Ok(())
    }

    /// Under the family lock, before queuing a copy on a stream: readers of
    /// the flag word must see it in flight from now on.
    pub(super) fn begin_in_flight(&self) {
        self.shared.flags.set_in_flight(true);
    }

    /// Under the family lock, after queuing copies of `boxes`: keep their
    /// event and `keep`, the blocks of another family they use. Clears
    /// `IN_FLIGHT` again when nothing is in flight after all.
    pub(super) fn end_in_flight(&self, st: &mut State, event: Option<Arc<Event>>, boxes: Vec<IndexBox>, keep: Vec<Arc<Allocation>>) {
        if let Some(event) = event {
            st.in_flight.push(InFlight { event, boxes, _keep: keep });
        }
        if st.in_flight.is_empty() {
            self.shared.flags.set_in_flight(false);
        }
    }
}

/// The event after the copies just queued on `stream` by `space`'s backend
/// (`None`: they are complete).
pub(super) fn record(space: Space, stream: Stream) -> Result<Option<Arc<Event>>> {
    Ok(Event::record(space, stream)?.map(Arc::new))
}

impl Drop for State {
    fn drop(&mut self) {
        // The family's memory goes with it: no queued copy may still use it.
        for f in self.in_flight.drain(..) {
            let _ = f.event.wait();
        }
    }
}
