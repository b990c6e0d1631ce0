//! The registration of a pageable host block (the host mirror of a DualView
//! over a device space that registers mirrors) with the device's driver
//! (CUDA: `cuMemHostRegister`): one state machine per block, so that a
//! registration always covers exactly the block's current size, and a grow, a
//! free or a copying sync waits only for what it must. Any backend uses it:
//! it implements [`HostDriver`] and hands out [`Registration`]s from
//! `Backend::mirror_registration` (the device engine: the CUDA space, and the
//! test device when asked, `test_device::set_registers_mirror`).
//!
//! | state | meaning | left by |
//! | --- | --- | --- |
//! | `Idle` | nothing registered, nothing pending | `start` -> `Queued` (a background job); `ensure` -> `Populating` (on the caller's thread); free -> `Released` |
//! | `Queued` | a background job will register the block | the job -> `Populating`; `ensure` takes the work over -> `Populating`; grow / free / `defer` cancel -> `Idle` (a free of a block the pool takes lets the job run, then the pool keeps it: `pool.rs`) |
//! | `Populating` | a worker faults the pages in, by chunks of 4 MiB | the worker -> `Registering`; grow / free / `defer` cancel -> `Idle` without waiting (the worker stops before its next chunk; a free of a block the pool takes: as `Queued`) |
//! | `Registering` | inside `cuMemHostRegister`: not cancellable | the worker -> `Registered(len)` or `Refused`; grow, free and `ensure` wait for it |
//! | `Registered(len)` | `[ptr, ptr + len)` registered, `len` the block's size | grow: unregister -> `Idle`; free: unregister (on the background thread; a block under `PIN_MIN`, registered at its first copy on a stream, on the caller's) -> `Released` |
//! | `Refused` | the driver refused (any error): copies stay pageable, the reason goes to `DV_TRACE` | free -> `Released`; never retried for this block |
//! | `Released` | the block is being freed | - |
//!
//! The block's size lives here (`Inner::len`): a grow changes it under the
//! same lock that a worker reads it under when it enters `Registering`, with
//! nothing registered and nothing pending, so no registration ever covers part
//! of the block. The driver is a trait ([`HostDriver`]), so that each backend
//! brings its own and the tests below drive the state machine with a fake one.
//! Every driver's registered bytes are also summed here ([`registered_bytes`],
//! behind `memory::registered_host_bytes`).

use crate::error::Result;
use crate::memory::{background, host, pool, Deferral, HostRegistration};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Blocks from this size are registered; smaller ones stay pageable
/// (registering costs more than it saves on them).
pub(crate) const PIN_MIN: usize = 256 << 10;

/// Blocks from this size have their pages faulted in by several threads
/// before registration (the driver would fault them in one by one).
const POPULATE_MIN: usize = 64 << 20;

/// At most this many threads fault a mirror's pages in: the work is usually in
/// the background, and the program's own threads (writing that mirror, often)
/// keep the other cores. Copies, which the caller waits for, take up to 16
/// (`host::copy_threads`).
const POPULATE_THREADS: usize = 8;

/// Pages are faulted in by chunks of this size; a cancel is seen between two
/// chunks. Small, because a cancelled worker finishes its chunk while the
/// grow that cancelled it runs (8 threads zeroing pages slow everything else).
const CHUNK: usize = 4 << 20;

/// What the state machine needs from a device's driver: the device engine
/// over any driver (`src/memory/device/mod.rs`: CUDA's, the test device's), or
/// a fake in the tests below. Addresses are plain numbers: the state machine itself never touches
/// the memory.
pub(crate) trait HostDriver: Send + Sync {
    /// Fault in the pages of `[addr, addr + len)` (one chunk), keeping their contents.
    fn populate(&self, addr: usize, len: usize);
    /// Register `[addr, addr + len)` as one range.
    fn register(&self, addr: usize, len: usize) -> Result<()>;
    /// Undo the registration that starts at `addr`.
    fn unregister(&self, addr: usize);
    /// The count of bytes registered through this driver now.
    fn registered_bytes(&self) -> &AtomicUsize;
}

/// Bytes registered now through every driver (the sum of their
/// [`HostDriver::registered_bytes`]).
static REGISTERED: AtomicUsize = AtomicUsize::new(0);

/// Bytes of host blocks registered with any device's driver now.
pub(crate) fn registered_bytes() -> usize {
    REGISTERED.load(Ordering::Relaxed)
}

/// Where one block's registration stands (the table of the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Nothing registered, nothing pending.
    Idle,
    /// A background job will register the block.
    Queued,
    /// A worker faults the pages in (cancellable between chunks).
    Populating,
    /// A worker is inside the driver's register call (not cancellable).
    Registering,
    /// The whole block, of this many bytes, is registered.
    Registered(usize),
    /// The driver refused: copies stay pageable.
    Refused,
    /// The block is being freed.
    Released,
}

/// The state of one block, under [`Block::inner`].
struct Inner {
    state: State,
    /// The block's size: changed only by `resize`, with nothing registered
    /// and nothing pending.
    len: usize,
    /// Workers still running (populating or registering), cancelled ones
    /// included: the block is not freed while one runs.
    workers: usize,
    /// A large copy went ahead of the registration since the last grow
    /// (`defer`): the next one waits for it.
    deferred: bool,
}

/// One registered (or to be registered) host block, shared by its
/// [`Registration`] and the background jobs working on it.
struct Block {
    driver: &'static dyn HostDriver,
    addr: usize,
    /// The label of the block, for `DV_TRACE`.
    label: Arc<str>,
    inner: Mutex<Inner>,
    /// Signalled whenever a worker ends or the state changes.
    changed: Condvar,
    /// The ticket of the one worker allowed to go on. Every claim and every
    /// cancel takes a new one (under the lock); workers read it without the
    /// lock between chunks.
    ticket: AtomicU64,
}

/// The registration of one host block with a driver: the state machine of
/// the module, driven through [`HostRegistration`].
pub(crate) struct Registration(Arc<Block>);

impl Registration {
    /// A block of `len` bytes at `addr`, nothing registered yet (`Idle`).
    pub(crate) fn new(driver: &'static dyn HostDriver, addr: usize, len: usize, label: Arc<str>) -> Registration {
        Registration(Arc::new(Block {
            driver,
            addr,
            label,
            inner: Mutex::new(Inner { state: State::Idle, len, workers: 0, deferred: false }),
            changed: Condvar::new(),
            ticket: AtomicU64::new(0),
        }))
    }

    /// The current state (tests).
    #[cfg(test)]
    fn state(&self) -> State {
        self.0.lock().state
    }
}

impl Block {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every transition is one assignment: a panic elsewhere leaves a valid state.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, Inner>) -> MutexGuard<'a, Inner> {
        self.changed.wait(g).unwrap_or_else(|e| e.into_inner())
    }

    /// A new ticket: every earlier worker stops at its next check. Taken with
    /// the lock held (the `Inner` borrow says so).
    fn new_ticket(&self, _locked: &mut Inner) -> u64 {
        self.ticket.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Cancel a pending registration (`Queued` or `Populating`) without
    /// waiting: back to `Idle`; a populating worker stops before its next chunk.
    fn cancel(&self, g: &mut Inner) {
        if matches!(g.state, State::Queued | State::Populating) {
            g.state = State::Idle;
            self.new_ticket(g);
            self.changed.notify_all();
        }
    }

    /// Become the worker: `Populating`, counted; returns the ticket and the size to register.
    fn claim(&self, g: &mut Inner) -> (u64, usize) {
        g.state = State::Populating;
        g.workers += 1;
        (self.new_ticket(g), g.len)
    }

    /// The background job that `start` queued with `ticket`.
    fn run_queued(&self, ticket: u64) {
        let mut g = self.lock();
        if g.state != State::Queued || self.ticket.load(Ordering::Acquire) != ticket {
            return; // cancelled, taken over by a sync, or released
        }
        let (ticket, len) = self.claim(&mut g);
        drop(g);
        self.work(ticket, len);
    }

    /// Populate and register `len` bytes as the worker holding `ticket`
    /// (state `Populating`, counted in `workers`).
    fn work(&self, ticket: u64, len: usize) {
        let populated = len < POPULATE_MIN || self.populate(ticket, len);
        let mut g = self.lock();
        if !populated || self.ticket.load(Ordering::Acquire) != ticket {
            // Cancelled: the canceller has set the state already.
            g.workers -= 1;
            self.changed.notify_all();
            return;
        }
        // The ticket is ours, so nobody resized meanwhile (a resize cancels first).
        debug_assert_eq!((g.state, g.len), (State::Populating, len));
        g.state = State::Registering;
        drop(g);
        let result = {
            let _range = crate::tools::nvtx::range(|| format!("dualview register \"{}\" {}", self.label, crate::tools::nvtx::bytes(len)));
            // Refused while the pool keeps registered blocks: given back, the driver may take this one.
            self.driver.register(self.addr, len).or_else(|e| if pool::drain() > 0 { self.driver.register(self.addr, len) } else { Err(e) })
        };
        let mut g = self.lock();
        g.workers -= 1;
        g.state = match result {
            Ok(()) => {
                self.driver.registered_bytes().fetch_add(len, Ordering::Relaxed);
                REGISTERED.fetch_add(len, Ordering::Relaxed);
                State::Registered(len)
            }
            Err(e) => {
                // Never the user's error: the copies of this block stay pageable.
                if crate::stats::trace_enabled() {
                    crate::stats::trace(format_args!("\"{}\": the mirror stays pageable: {}", self.label, e.message()));
                }
                State::Refused
            }
        };
        self.changed.notify_all();
    }

    /// Fault the block's pages in, chunk by chunk, on several threads; false
    /// when cancelled (`ticket` is no longer the current one).
    fn populate(&self, ticket: u64, len: usize) -> bool {
        let live = || self.ticket.load(Ordering::Acquire) == ticket;
        let chunks = len.div_ceil(CHUNK);
        let next = AtomicUsize::new(0);
        let run = || {
            while live() {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= chunks {
                    break;
                }
                let off = k * CHUNK;
                self.driver.populate(self.addr + off, CHUNK.min(len - off));
            }
        };
        std::thread::scope(|s| {
            for _ in 1..host::copy_threads().min(POPULATE_THREADS).min(chunks) {
                // A thread that cannot start leaves its chunks to the others.
                let _ = std::thread::Builder::new().spawn_scoped(s, run); // a copy: it holds only references
            }
            run();
        });
        live()
    }

    /// The end of a released block: wait for its workers, undo its
    /// registration, then `free` it.
    fn finish(&self, free: Box<dyn FnOnce() + Send>) {
        let mut g = self.lock();
        while g.workers > 0 {
            g = self.wait(g);
        }
        self.unregister(&mut g);
        g.state = State::Released;
        drop(g);
        free();
    }

    /// Undo a registration (the lock is held): `Registered` -> `Idle`.
    fn unregister(&self, g: &mut Inner) {
        if let State::Registered(n) = g.state {
            self.driver.unregister(self.addr);
            self.driver.registered_bytes().fetch_sub(n, Ordering::Relaxed);
            REGISTERED.fetch_sub(n, Ordering::Relaxed);
            g.state = State::Idle;
            self.changed.notify_all();
        }
    }
}

impl Registration {
    /// [`HostRegistration::ensure`] for blocks of `min` bytes or more (smaller ones stay as they are).
    fn ensure_from(&self, min: usize) -> bool {
        let b = &self.0;
        let mut g = b.lock();
        loop {
            match g.state {
                State::Registered(_) => return true,
                State::Refused | State::Released => return false,
                State::Idle if g.len < min => return false,
                // Queued: the background thread has not begun (it may be busy
                // with other blocks), so doing the work here is never slower
                // than waiting for it. Idle: nobody else will.
                State::Idle | State::Queued => {
                    let (ticket, len) = b.claim(&mut g);
                    drop(g);
                    b.work(ticket, len);
                    g = b.lock();
                }
                // A worker is doing exactly this work, populating with every
                // thread it may use: taking over would repeat its chunks on the
                // same cores, so waiting is the fastest way to the end.
                State::Populating | State::Registering => g = b.wait(g),
            }
        }
    }
}

impl HostRegistration for Registration {
    fn start(&self) {
        let b = &self.0;
        let mut g = b.lock();
        if g.state != State::Idle || g.len < PIN_MIN {
            return;
        }
        g.state = State::Queued;
        let ticket = b.new_ticket(&mut g);
        drop(g);
        let me = Arc::clone(b);
        background::submit(move || me.run_queued(ticket));
    }

    fn ensure(&self) -> bool {
        self.ensure_from(PIN_MIN)
    }

    fn ensure_any_size(&self) -> bool {
        self.ensure_from(1)
    }

    fn defer(&self) -> Deferral {
        let b = &self.0;
        let mut g = b.lock();
        // A small block registers in less time than a copy into it takes (and is never populated).
        if g.deferred || g.len < POPULATE_MIN {
            return Deferral::No;
        }
        let deferral = match g.state {
            State::Queued | State::Populating => {
                b.cancel(&mut g);
                Deferral::Resume
            }
            // Left by a resize for its first copying sync (G10; a failed grow leaves it so too):
            // a block copied once, then freed, is never registered, nor unregistered while the
            // program's next calls wait (G25).
            State::Idle => Deferral::NextSync,
            _ => return Deferral::No,
        };
        g.deferred = true;
        deferral
    }

    fn resize(&self, change: &mut dyn FnMut() -> Result<usize>) -> Result<usize> {
        let b = &self.0;
        let mut g = b.lock();
        loop {
            match g.state {
                State::Queued | State::Populating => b.cancel(&mut g),
                // Inside the driver: the only state a grow waits for.
                State::Registering => {
                    g = b.wait(g);
                    continue;
                }
                State::Registered(_) => b.unregister(&mut g),
                State::Idle | State::Refused | State::Released => {}
            }
            break;
        }
        // Under the lock: no worker reads the size before it has changed.
        let len = change()?;
        g.len = len;
        g.deferred = false;
        Ok(len)
    }

    fn is_pending(&self) -> bool {
        matches!(self.0.lock().state, State::Queued | State::Populating | State::Registering)
    }

    fn is_registered(&self) -> bool {
        // The lock is never held across populating or the driver's register
        // call (only across a grow's unregistration, under the DualView's
        // exclusive lock, which keeps queries away): this does not wait.
        matches!(self.0.lock().state, State::Registered(_))
    }

    fn release(self: Box<Self>, free: Box<dyn FnOnce() + Send>) {
        let b = self.0;
        let mut g = b.lock();
        b.cancel(&mut g);
        // A block under PIN_MIN was registered on a caller's thread, at its first copy on a
        // stream: it is unregistered here too. On the background thread the unregistration
        // would wait for whatever kernel runs then, and hold up every driver call of the
        // program's threads meanwhile (a `sync_host(exec)` behind a kernel returned after it,
        // docs/GPU.md); here it is done before the freeing call returns (DECISIONS G13 (7)).
        if g.workers == 0 && matches!(g.state, State::Registered(n) if n < PIN_MIN) {
            b.unregister(&mut g);
        }
        if g.workers == 0 && matches!(g.state, State::Idle | State::Refused) {
            g.state = State::Released;
            drop(g);
            free();
            return;
        }
        drop(g);
        // A registration to undo (milliseconds per GiB), or a worker that may
        // still touch the pages: off the caller's path, after that worker.
        background::submit(move || b.finish(free));
    }

    fn release_now(self: Box<Self>, free: Box<dyn FnOnce() + Send>) {
        let b = self.0;
        b.cancel(&mut b.lock());
        b.finish(free);
    }
}

#[cfg(test)]
mod tests;
