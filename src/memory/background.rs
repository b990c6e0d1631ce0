//! One background thread for the slow driver work around host mirrors:
//! registering a new mirror with the device's driver while the program fills
//! it, and unregistering and freeing a registered block nobody uses any more.
//! Only DualViews whose space registers mirrors send it work (CUDA ones; test
//! devices when asked); [`settle`] waits until it is idle.

use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

/// A job: any closure that owns what it needs.
type Job = Box<dyn FnOnce() + Send>;

/// The queue of the background thread, once a first job started it.
static Q: OnceLock<Mutex<Option<Sender<Job>>>> = OnceLock::new();

fn queue() -> &'static Mutex<Option<Sender<Job>>> {
    Q.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        let spawned = std::thread::Builder::new().name("dualview-mirrors".into()).spawn(move || {
            for job in rx {
                job();
            }
        });
        Mutex::new(spawned.ok().map(|_| tx))
    })
}

/// Run `job` on the background thread, or here when there is none.
pub(crate) fn submit(job: impl FnOnce() + Send + 'static) {
    let job: Job = Box::new(job);
    let q = queue().lock().unwrap_or_else(|e| e.into_inner());
    let left = match q.as_ref() {
        Some(tx) => tx.send(job).err().map(|e| e.0),
        None => Some(job),
    };
    drop(q);
    if let Some(job) = left {
        job();
    }
}

/// Wait until every job submitted before this call has run.
///
/// ```
/// dualview::memory::settle(); // returns at once when nothing is pending
/// ```
pub fn settle() {
    if Q.get().is_none() {
        return; // never started: nothing pending (and no thread started to say so)
    }
    let (tx, rx) = channel::<()>();
    submit(move || {
        let _ = tx.send(());
    });
    let _ = rx.recv();
}
