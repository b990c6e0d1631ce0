//! The test device's streams: each one a worker thread that runs its queued
//! copies in order, each after the device's delay
//! ([`super::set_stream_delay`]), so that work in flight, events
//! and cross-stream ordering exist without a GPU. Only streams made by
//! [`create`] are such; any other non-null value is treated as the default
//! stream (the copy completes on return), as before streams existed here.

use crate::space::Stream;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send>;

/// One simulated stream.
pub(super) struct Sim {
    ordinal: u32,
    tx: Mutex<Option<Sender<Job>>>,
    /// Jobs queued so far (the sequence number of the last one).
    queued: AtomicU64,
    /// Jobs run so far.
    done: Mutex<u64>,
    ran: Condvar,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// Live streams by raw value.
static STREAMS: Mutex<Vec<(usize, Arc<Sim>)>> = Mutex::new(Vec::new());
/// The next raw value (distinctive, never 0).
static NEXT: AtomicUsize = AtomicUsize::new(0x7e57_0000);

fn streams() -> std::sync::MutexGuard<'static, Vec<(usize, Arc<Sim>)>> {
    STREAMS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new stream of test device `ordinal`, with its worker.
pub(super) fn create(ordinal: u32) -> std::io::Result<Stream> {
    let (tx, rx) = channel::<Job>();
    let raw = NEXT.fetch_add(0x10, Ordering::Relaxed);
    let sim = Arc::new(Sim {
        ordinal,
        tx: Mutex::new(Some(tx)),
        queued: AtomicU64::new(0),
        done: Mutex::new(0),
        ran: Condvar::new(),
        worker: Mutex::new(None),
    });
    let me = sim.clone();
    let worker = std::thread::Builder::new().name(format!("dv-test-stream-{raw:#x}")).spawn(move || {
        for job in rx {
            // A job is dualview's own copy or wait; a panic in one must not stop the stream.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            *me.done.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            me.ran.notify_all();
        }
    })?;
    *sim.worker.lock().unwrap_or_else(|e| e.into_inner()) = Some(worker);
    streams().push((raw, sim));
    Ok(Stream::from_raw(raw))
}

/// The simulated stream `stream` names, if it is one.
pub(super) fn lookup(stream: Stream) -> Option<Arc<Sim>> {
    if stream.is_null() {
        return None;
    }
    streams().iter().find(|(raw, _)| *raw == stream.as_raw()).map(|(_, s)| s.clone())
}

/// Wait for `stream`'s queued work, take it off the list and stop its worker.
/// False when it is not a stream of ours.
pub(super) fn destroy(stream: Stream) -> bool {
    let Some(sim) = lookup(stream) else { return false };
    sim.drain();
    streams().retain(|(raw, _)| *raw != stream.as_raw());
    sim.tx.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(w) = sim.worker.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let _ = w.join();
    }
    true
}

/// Wait for the queued work of every stream of test device `ordinal`.
pub(super) fn fence_all(ordinal: u32) {
    let all: Vec<Arc<Sim>> = streams().iter().filter(|(_, s)| s.ordinal == ordinal).map(|(_, s)| s.clone()).collect();
    for s in all {
        s.drain();
    }
}

impl Sim {
    /// The test device this stream belongs to.
    pub(super) fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// Queue `job` after `delay`; returns its sequence number.
    pub(super) fn push(&self, delay: Duration, job: impl FnOnce() + Send + 'static) -> u64 {
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        let seq = self.queued.fetch_add(1, Ordering::AcqRel) + 1;
        let job: Job = Box::new(move || {
            if !delay.is_zero() {
                std::thread::sleep(delay);
            }
            job()
        });
        let job = match tx.as_ref() {
            Some(tx) => match tx.send(job) {
                Ok(()) => return seq,
                Err(back) => back.0,
            },
            None => job,
        };
        // Destroyed meanwhile (a caller's bug): run it here, after the drained work.
        job();
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.ran.notify_all();
        seq
    }

    /// Wait until job `seq` has run.
    pub(super) fn wait(&self, seq: u64) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while *done < seq {
            done = self.ran.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether job `seq` has run.
    pub(super) fn has_run(&self, seq: u64) -> bool {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) >= seq
    }

    /// The sequence number of the last job queued.
    pub(super) fn last(&self) -> u64 {
        self.queued.load(Ordering::Acquire)
    }

    /// Wait for everything queued so far.
    pub(super) fn drain(&self) {
        self.wait(self.last());
    }
}
