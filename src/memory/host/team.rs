//! The host's copy threads, started once and parked between jobs: a large
//! copy, zeroing, pack or unpack runs its pieces on them and on its caller.
//! Spawning the 15 threads of a 16-thread copy costs about 0.2 ms, as much as
//! copying 4 MiB; the device engine's pipeline (`device/pipeline.rs`) splits
//! every chunk of a copy so.
//!
//! | case | pieces run on |
//! | --- | --- |
//! | the team is free | its `copy_threads() - 1` threads and the caller |
//! | another job holds it (two threads copying at once) | threads spawned for this job, and the caller |
//! | one piece | the caller |

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// One piece of a job, by its index.
pub(crate) type Piece = Arc<dyn Fn(usize) + Send + Sync>;

/// A job: its pieces are handed out in order, and counted when done.
struct Job {
    f: Piece,
    pieces: usize,
    next: AtomicUsize,
    left: Mutex<usize>,
    done: Condvar,
    panicked: AtomicBool,
}

impl Job {
    /// Run pieces until none is left to take.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.pieces {
                return;
            }
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.f)(i))).is_err() {
                self.panicked.store(true, Ordering::Relaxed);
            }
            let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
            *left -= 1;
            if *left == 0 {
                self.done.notify_all();
            }
        }
    }

    /// Wait until every piece is done.
    fn wait(&self) {
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        while *left > 0 {
            left = self.done.wait(left).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The parked threads: the job posted last, with its number.
struct Team {
    posted: Mutex<(u64, Option<Arc<Job>>)>,
    wake: Condvar,
    /// Held by the one caller whose job the team runs.
    busy: Mutex<()>,
}

static TEAM: Team = Team { posted: Mutex::new((0, None)), wake: Condvar::new(), busy: Mutex::new(()) };

/// A team thread: run each job posted, then park again.
fn park() {
    let mut seen = 0;
    loop {
        let job = {
            let mut p = TEAM.posted.lock().unwrap_or_else(|e| e.into_inner());
            while p.0 == seen {
                p = TEAM.wake.wait(p).unwrap_or_else(|e| e.into_inner());
            }
            seen = p.0;
            p.1.clone()
        };
        if let Some(job) = job {
            job.work();
        }
    }
}

/// Start the team once (`copy_threads() - 1` threads; one that cannot start leaves its pieces to the others).
fn started() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        for k in 1..super::copy_threads() {
            let _ = std::thread::Builder::new().name(format!("dv-copy-{k}")).spawn(park);
        }
    });
}

/// Run `f(0)` to `f(pieces - 1)`, each once, on the team and this thread;
/// returns when all have run. Panics (after all have run) when one did.
pub(crate) fn run(pieces: usize, f: Piece) {
    let job = Arc::new(Job { f, pieces, next: AtomicUsize::new(0), left: Mutex::new(pieces), done: Condvar::new(), panicked: AtomicBool::new(false) });
    if pieces > 1 {
        if let Ok(_team) = TEAM.busy.try_lock() {
            started();
            {
                let mut p = TEAM.posted.lock().unwrap_or_else(|e| e.into_inner());
                *p = (p.0 + 1, Some(job.clone()));
            }
            TEAM.wake.notify_all();
            job.work();
            job.wait();
            TEAM.posted.lock().unwrap_or_else(|e| e.into_inner()).1 = None;
        } else {
            std::thread::scope(|s| {
                for _ in 1..super::copy_threads().min(pieces) {
                    // A thread that cannot start leaves its pieces to the others.
                    let _ = std::thread::Builder::new().spawn_scoped(s, || job.work());
                }
                job.work();
            });
        }
    } else {
        job.work();
    }
    assert!(!job.panicked.load(Ordering::Relaxed), "a piece of a host copy panicked");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_piece_runs_once_also_from_several_callers_at_once() {
        let runs: Arc<Vec<AtomicUsize>> = Arc::new((0..4 * 64).map(|_| AtomicUsize::new(0)).collect());
        std::thread::scope(|s| {
            for c in 0..4 {
                let runs = runs.clone();
                s.spawn(move || {
                    for _ in 0..50 {
                        let r = runs.clone();
                        run(64, Arc::new(move |i| {
                            r[c * 64 + i].fetch_add(1, Ordering::Relaxed);
                        }));
                    }
                });
            }
        });
        assert!(runs.iter().all(|n| n.load(Ordering::Relaxed) == 50), "each piece ran once per job");
        run(0, Arc::new(|_| unreachable!()));
    }

    #[test]
    fn a_panicking_piece_is_reported_after_the_others_ran() {
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let outcome = std::panic::catch_unwind(|| {
            run(32, Arc::new(move |i| {
                r.fetch_add(1, Ordering::Relaxed);
                assert_ne!(i, 7, "piece 7");
            }))
        });
        assert!(outcome.is_err());
        assert_eq!(ran.load(Ordering::Relaxed), 32);
        // The team still runs jobs.
        let again = Arc::new(AtomicUsize::new(0));
        let a = again.clone();
        run(8, Arc::new(move |_| {
            a.fetch_add(1, Ordering::Relaxed);
        }));
        assert_eq!(again.load(Ordering::Relaxed), 8);
    }
}
