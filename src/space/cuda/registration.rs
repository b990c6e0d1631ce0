//! The registration of a pageable host block (the host mirror of a CUDA
//! DualView) with the CUDA driver (`cuMemHostRegister`): one state machine per
//! block, so that a registration always covers exactly the block's current
//! size, and a grow, a free or a copying sync waits only for what it must.
//!
//! | state | meaning | left by |
//! | --- | --- | --- |
//! | `Idle` | nothing registered, nothing pending | `start` -> `Queued` (a background job); `ensure` -> `Populating` (on the caller's thread); free -> `Released` |
//! | `Queued` | a background job will register the block | the job -> `Populating`; `ensure` takes the work over -> `Populating`; grow / free cancel -> `Idle` |
//! | `Populating` | a worker faults the pages in, by chunks of 4 MiB | the worker -> `Registering`; grow / free cancel -> `Idle` without waiting (the worker stops before its next chunk) |
//! | `Registering` | inside `cuMemHostRegister`: not cancellable | the worker -> `Registered(len)` or `Refused`; grow, free and `ensure` wait for it |
//! | `Registered(len)` | `[ptr, ptr + len)` registered, `len` the block's size | grow: unregister -> `Idle`; free: unregister on the background thread -> `Released` |
//! | `Refused` | the driver refused (any error): copies stay pageable, the reason goes to `DV_TRACE` | free -> `Released`; never retried for this block |
//! | `Released` | the block is being freed | - |
//!
//! The block's size lives here (`Inner::len`): a grow changes it under the
//! same lock that a worker reads it under when it enters `Registering`, with
//! nothing registered and nothing pending, so no registration ever covers part
//! of the block. The driver is a trait ([`HostDriver`]) so that the tests
//! below drive the state machine with a fake one, without CUDA.

use crate::error::Result;
use crate::space::{background, host, HostRegistration};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Blocks from this size are registered; smaller ones stay pageable
/// (registering costs more than it saves on them).
pub(crate) const PIN_MIN: usize = 256 << 10;

/// Blocks from this size have their pages faulted in by several threads
/// before registration (the driver would fault them in one by one).
const POPULATE_MIN: usize = 64 << 20;

/// Pages are faulted in by chunks of this size; a cancel is seen between two
/// chunks. Small, because a cancelled worker finishes its chunk while the
/// grow that cancelled it runs (8 threads zeroing pages slow everything else).
const CHUNK: usize = 4 << 20;

/// What the state machine needs from the driver: the CUDA driver
/// (`src/space/cuda/mod.rs`), or a fake in the tests. Addresses are plain
/// numbers: the state machine itself never touches the memory.
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
            inner: Mutex::new(Inner { state: State::Idle, len, workers: 0 }),
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
        let result = self.driver.register(self.addr, len);
        let mut g = self.lock();
        g.workers -= 1;
        g.state = match result {
            Ok(()) => {
                self.driver.registered_bytes().fetch_add(len, Ordering::Relaxed);
                State::Registered(len)
            }
            Err(e) => {
                // Never the user's error: the copies of this block stay pageable.
                if crate::stats::trace_enabled() {
                    eprintln!("dualview: \"{}\": the mirror stays pageable: {}", self.label, e.message());
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
            for _ in 1..host::copy_threads().min(chunks) {
                // A thread that cannot start leaves its chunks to the others.
                let _ = std::thread::Builder::new().spawn_scoped(s, run); // a copy: it holds only references
            }
            run();
        });
        live()
    }

    /// Undo a registration (the lock is held): `Registered` -> `Idle`.
    fn unregister(&self, g: &mut Inner) {
        if let State::Registered(n) = g.state {
            self.driver.unregister(self.addr);
            self.driver.registered_bytes().fetch_sub(n, Ordering::Relaxed);
            g.state = State::Idle;
            self.changed.notify_all();
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
        let b = &self.0;
        let mut g = b.lock();
        loop {
            match g.state {
                State::Registered(_) => return true,
                State::Refused | State::Released => return false,
                State::Idle if g.len < PIN_MIN => return false,
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
        Ok(len)
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
        if g.workers == 0 && matches!(g.state, State::Idle | State::Refused) {
            g.state = State::Released;
            drop(g);
            free();
            return;
        }
        drop(g);
        // A registration to undo (milliseconds per GiB), or a worker that may
        // still touch the pages: off the caller's path, after that worker.
        background::submit(move || {
            let mut g = b.lock();
            while g.workers > 0 {
                g = b.wait(g);
            }
            b.unregister(&mut g);
            g.state = State::Released;
            drop(g);
            free();
        });
    }
}

#[cfg(test)]
mod tests {
    //! The state machine driven by a fake driver that records every call,
    //! can hold a worker at a gate, sleep or refuse, and checks on every call
    //! that no registration overlaps another or covers less (or more) than
    //! its block's size at that moment.

    use super::*;
    use crate::space::settle;
    use std::collections::{BTreeMap, HashMap};
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    /// The tests share the one background thread, and some hold it: one at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn serial() -> MutexGuard<'static, ()> {
        SERIAL.lock().unwrap_or_else(|e| e.into_inner())
    }

    const MIB: usize = 1 << 20;

    /// A door that callers of `pass` go through only once it is open; counts arrivals.
    struct Gate {
        /// (open, arrivals)
        state: Mutex<(bool, usize)>,
        cv: Condvar,
    }

    impl Gate {
        fn new(open: bool) -> Gate {
            Gate { state: Mutex::new((open, 0)), cv: Condvar::new() }
        }
        fn pass(&self) {
            let mut g = self.state.lock().unwrap();
            g.1 += 1;
            self.cv.notify_all();
            while !g.0 {
                g = self.cv.wait(g).unwrap();
            }
        }
        fn wait_arrivals(&self, n: usize) {
            let mut g = self.state.lock().unwrap();
            while g.1 < n {
                g = self.cv.wait(g).unwrap();
            }
        }
        fn open(&self) {
            self.state.lock().unwrap().0 = true;
            self.cv.notify_all();
        }
        fn close(&self) {
            *self.state.lock().unwrap() = (false, 0);
        }
    }

    /// Opens a gate when dropped, so that a failing test never leaves the
    /// shared background thread held (the other tests would hang).
    struct OpenOnDrop<'a>(&'a Gate);

    impl Drop for OpenOnDrop<'_> {
        fn drop(&mut self) {
            self.0.open();
        }
    }

    /// What the fake saw, in order.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Event {
        Populate(usize, usize),
        Register(usize, usize),
        Refused(usize, usize),
        Unregister(usize),
        Resize(usize, usize),
        Free(usize),
    }

    /// A driver that checks the rules instead of pinning memory.
    struct Fake {
        registered: AtomicUsize,
        /// Our registrations: start -> length.
        live: Mutex<BTreeMap<usize, usize>>,
        /// Someone else's registrations (the driver answers ALREADY_REGISTERED over them).
        foreign: Mutex<BTreeMap<usize, usize>>,
        /// Each live block's size now, as the tests' resizes set it.
        sizes: Mutex<HashMap<usize, usize>>,
        events: Mutex<Vec<Event>>,
        violations: Mutex<Vec<String>>,
        /// Refuse every registration.
        fail: AtomicBool,
        populate_gate: Gate,
        register_gate: Gate,
        /// Sleep up to this many microseconds in each call (0: never).
        jitter_us: u64,
        dice: AtomicU64,
    }

    impl Fake {
        fn leak(jitter_us: u64) -> &'static Fake {
            Box::leak(Box::new(Fake {
                registered: AtomicUsize::new(0),
                live: Mutex::default(),
                foreign: Mutex::default(),
                sizes: Mutex::default(),
                events: Mutex::default(),
                violations: Mutex::default(),
                fail: AtomicBool::new(false),
                populate_gate: Gate::new(true),
                register_gate: Gate::new(true),
                jitter_us,
                dice: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
            }))
        }

        fn violation(&self, what: String) {
            self.violations.lock().unwrap().push(what);
        }

        fn event(&self, e: Event) {
            self.events.lock().unwrap().push(e);
        }

        fn events(&self) -> Vec<Event> {
            self.events.lock().unwrap().clone()
        }

        fn jitter(&self) {
            if self.jitter_us > 0 {
                let r = rand(&self.dice);
                std::thread::sleep(Duration::from_micros(r % self.jitter_us));
            }
        }

        /// The live block holding `addr`: (base, size).
        fn block_of(&self, addr: usize) -> Option<(usize, usize)> {
            self.sizes.lock().unwrap().iter().map(|(&b, &n)| (b, n)).find(|&(b, n)| b <= addr && addr < b + n)
        }

        /// A block of `len` bytes at `addr`, known to the fake.
        fn block(&'static self, addr: usize, len: usize) -> Registration {
            self.sizes.lock().unwrap().insert(addr, len);
            Registration::new(self, addr, len, "fake".into())
        }

        /// Grow `r` to `new` bytes as an allocation would; returns the size after.
        fn grow(&self, r: &Registration, new: usize) -> usize {
            let addr = r.0.addr;
            r.resize(&mut || {
                if self.live.lock().unwrap().contains_key(&addr) {
                    self.violation(format!("{addr:#x} grew while registered"));
                }
                self.sizes.lock().unwrap().insert(addr, new);
                self.event(Event::Resize(addr, new));
                Ok(new)
            })
            .unwrap()
        }

        /// Free `r` as an allocation's drop does; the flag is set once the memory is freed.
        fn free(&'static self, r: Registration) -> Arc<AtomicBool> {
            let addr = r.0.addr;
            let freed = Arc::new(AtomicBool::new(false));
            let done = freed.clone();
            Box::new(r).release(Box::new(move || {
                if self.live.lock().unwrap().contains_key(&addr) {
                    self.violation(format!("{addr:#x} freed while registered"));
                }
                self.sizes.lock().unwrap().remove(&addr);
                self.event(Event::Free(addr));
                done.store(true, Ordering::SeqCst);
            }));
            freed
        }

        /// After everything: no rule broken, nothing of ours registered, the count back to 0.
        fn assert_clean(&self) {
            settle();
            assert_eq!(*self.violations.lock().unwrap(), Vec::<String>::new());
            assert_eq!(*self.live.lock().unwrap(), BTreeMap::new(), "registrations left");
            assert_eq!(self.registered.load(Ordering::SeqCst), 0);
            assert!(self.sizes.lock().unwrap().is_empty(), "blocks never freed");
        }

        fn count(&self, what: impl Fn(&Event) -> bool) -> usize {
            self.events().iter().filter(|e| what(e)).count()
        }
    }

    /// A pseudo-random number (xorshift on a shared word).
    fn rand(state: &AtomicU64) -> u64 {
        let mut x = state.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }

    impl HostDriver for Fake {
        fn populate(&self, addr: usize, len: usize) {
            self.populate_gate.pass();
            self.jitter();
            match self.block_of(addr) {
                Some((b, n)) if addr + len <= b + n => {}
                _ => self.violation(format!("populate of {addr:#x}+{len} outside every live block")),
            }
            self.event(Event::Populate(addr, len));
        }

        fn register(&self, addr: usize, len: usize) -> Result<()> {
            self.register_gate.pass();
            self.jitter();
            let size = self.sizes.lock().unwrap().get(&addr).copied();
            if size != Some(len) {
                self.violation(format!("registration of {addr:#x}+{len}, the block is {size:?}"));
            }
            let overlaps = |m: &BTreeMap<usize, usize>| m.iter().any(|(&a, &n)| a < addr + len && addr < a + n);
            if overlaps(&self.live.lock().unwrap()) {
                self.violation(format!("registration of {addr:#x}+{len} overlaps one of ours"));
            }
            if self.fail.load(Ordering::SeqCst) || overlaps(&self.foreign.lock().unwrap()) || overlaps(&self.live.lock().unwrap()) {
                self.event(Event::Refused(addr, len));
                crate::error::bail!(Device, "cuMemHostRegister failed: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (fake)");
            }
            self.live.lock().unwrap().insert(addr, len);
            self.event(Event::Register(addr, len));
            Ok(())
        }

        fn unregister(&self, addr: usize) {
            self.jitter();
            if self.live.lock().unwrap().remove(&addr).is_none() {
                self.violation(format!("unregister of {addr:#x}, which is not registered"));
            }
            self.event(Event::Unregister(addr));
        }

        fn registered_bytes(&self) -> &AtomicUsize {
            &self.registered
        }
    }

    /// Hold the background thread until the returned gate opens (on drop at the latest).
    fn hold_background() -> OpenOnDrop<'static> {
        let gate: &'static Gate = Box::leak(Box::new(Gate::new(false)));
        background::submit(move || gate.pass());
        gate.wait_arrivals(1);
        OpenOnDrop(gate)
    }

    const A: usize = 1 << 40;
    const B: usize = 2 << 40;

    #[test]
    fn a_registration_queued_is_cancelled_by_a_grow() {
        let _s = serial();
        let f = Fake::leak(0);
        let hold = hold_background();
        let r = f.block(A, 256 * MIB);
        r.start();
        assert_eq!(r.state(), State::Queued);
        assert_eq!(f.grow(&r, 512 * MIB), 512 * MIB);
        assert_eq!(r.state(), State::Idle, "cancelled, without waiting for the held background thread");
        r.start();
        hold.0.open();
        settle();
        assert_eq!(r.state(), State::Registered(512 * MIB));
        assert_eq!(f.count(|e| matches!(e, Event::Register(..))), 1, "{:?}", f.events());
        assert!(f.events().contains(&Event::Register(A, 512 * MIB)));
        assert_eq!(f.registered.load(Ordering::SeqCst), 512 * MIB);
        f.free(r);
        f.assert_clean();
    }

    #[test]
    fn a_grow_while_populating_cancels_without_waiting() {
        let _s = serial();
        let f = Fake::leak(0);
        f.populate_gate.close();
        let _open = OpenOnDrop(&f.populate_gate);
        let r = f.block(A, 4096 * MIB); // 64 chunks
        r.start();
        f.populate_gate.wait_arrivals(1);
        assert_eq!(r.state(), State::Populating);
        // The worker is held inside a chunk: the grow returns all the same.
        assert_eq!(f.grow(&r, 5000 * MIB), 5000 * MIB);
        assert_eq!(r.state(), State::Idle);
        f.populate_gate.open();
        settle();
        let chunks = f.count(|e| matches!(e, Event::Populate(..)));
        assert!(chunks < 64, "the worker stopped between chunks ({chunks} of 64 populated)");
        assert_eq!(f.count(|e| matches!(e, Event::Register(..) | Event::Refused(..))), 0, "the old size was never registered");
        r.start();
        settle();
        assert_eq!(r.state(), State::Registered(5000 * MIB));
        f.free(r);
        f.assert_clean();
    }

    #[test]
    fn a_grow_while_registering_waits_for_the_driver_then_unregisters() {
        let _s = serial();
        let f = Fake::leak(0);
        f.register_gate.close();
        let _open = OpenOnDrop(&f.register_gate);
        let r = Arc::new(f.block(A, MIB));
        r.start();
        f.register_gate.wait_arrivals(1);
        assert_eq!(r.state(), State::Registering);
        let grower = {
            let r = r.clone();
            std::thread::spawn(move || f.grow(&r, 2 * MIB))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!grower.is_finished(), "a grow waits while the driver registers");
        f.register_gate.open();
        assert_eq!(grower.join().unwrap(), 2 * MIB);
        assert_eq!(f.events(), vec![Event::Register(A, MIB), Event::Unregister(A), Event::Resize(A, 2 * MIB)]);
        assert_eq!((r.state(), f.registered.load(Ordering::SeqCst)), (State::Idle, 0));
        r.start();
        settle();
        assert_eq!(r.state(), State::Registered(2 * MIB));
        f.free(Arc::into_inner(r).unwrap());
        f.assert_clean();
    }

    #[test]
    fn a_refusal_leaves_nothing_registered_and_is_no_error() {
        let _s = serial();
        let f = Fake::leak(0);
        f.fail.store(true, Ordering::SeqCst);
        let r = f.block(A, 4 * MIB);
        r.start();
        settle();
        assert_eq!(r.state(), State::Refused);
        assert!(!r.ensure() && !r.is_registered(), "copies run pageable");
        r.start(); // never retried
        assert_eq!(f.grow(&r, 8 * MIB), 8 * MIB, "a refused block still grows");
        r.start();
        settle();
        assert_eq!(f.count(|e| matches!(e, Event::Refused(..))), 1);
        assert_eq!(r.state(), State::Refused);
        assert!(f.free(r).load(Ordering::SeqCst), "nothing to undo: freed at once");
        f.assert_clean();

        // Someone else registered part of the block (the driver says ALREADY_REGISTERED):
        // refused too, and their registration is left alone.
        let f = Fake::leak(0);
        f.foreign.lock().unwrap().insert(B + MIB, MIB);
        let r = f.block(B, 4 * MIB);
        assert!(!r.ensure());
        assert_eq!(r.state(), State::Refused);
        f.free(r);
        f.assert_clean();
        assert_eq!(f.foreign.lock().unwrap().get(&(B + MIB)), Some(&MIB));
    }

    #[test]
    fn a_free_while_queued_frees_at_once() {
        let _s = serial();
        let f = Fake::leak(0);
        let hold = hold_background();
        let r = f.block(A, 256 * MIB);
        r.start();
        assert!(f.free(r).load(Ordering::SeqCst), "freed on the caller's thread, the background thread still held");
        hold.0.open();
        f.assert_clean();
        assert_eq!(f.events(), vec![Event::Free(A)]);
    }

    #[test]
    fn a_free_while_populating_waits_for_the_worker_off_the_callers_path() {
        let _s = serial();
        let f = Fake::leak(0);
        f.populate_gate.close();
        let _open = OpenOnDrop(&f.populate_gate);
        let r = f.block(A, 1024 * MIB);
        r.start();
        f.populate_gate.wait_arrivals(1);
        let freed = f.free(r);
        assert!(!freed.load(Ordering::SeqCst), "a worker still touches the pages: not freed yet");
        f.populate_gate.open();
        f.assert_clean();
        assert!(freed.load(Ordering::SeqCst));
        assert_eq!(f.count(|e| matches!(e, Event::Register(..) | Event::Refused(..))), 0);
        assert_eq!(f.events().last(), Some(&Event::Free(A)));
    }

    #[test]
    fn a_free_while_registering_unregisters_then_frees_in_the_background() {
        let _s = serial();
        let f = Fake::leak(0);
        f.register_gate.close();
        let _open = OpenOnDrop(&f.register_gate);
        let r = f.block(A, 8 * MIB);
        r.start();
        f.register_gate.wait_arrivals(1);
        let freed = f.free(r); // returns at once
        assert!(!freed.load(Ordering::SeqCst));
        f.register_gate.open();
        f.assert_clean();
        assert_eq!(f.events(), vec![Event::Register(A, 8 * MIB), Event::Unregister(A), Event::Free(A)]);
    }

    #[test]
    fn a_copying_sync_registers_a_queued_block_itself() {
        let _s = serial();
        let f = Fake::leak(0);
        let hold = hold_background();
        let r = f.block(A, 128 * MIB);
        r.start();
        assert!(r.ensure(), "done on the caller's thread while the background thread is busy");
        assert_eq!(r.state(), State::Registered(128 * MIB));
        hold.0.open();
        settle();
        assert_eq!(f.count(|e| matches!(e, Event::Register(..))), 1, "the queued job saw it done");
        // Small blocks stay pageable.
        let s = f.block(B, PIN_MIN - 1);
        s.start();
        assert!(!s.ensure());
        assert_eq!(s.state(), State::Idle);
        f.free(s);
        f.free(r);
        f.assert_clean();
    }

    #[test]
    fn repeated_grows_end_with_one_registration_of_the_final_size() {
        let _s = serial();
        let f = Fake::leak(50);
        let r = f.block(A, 64 * MIB + 1);
        let mut len = 64 * MIB + 1;
        for k in 0..20 {
            r.start();
            if k % 3 == 1 {
                assert!(r.ensure());
            }
            len += 37 * MIB;
            assert_eq!(f.grow(&r, len), len);
        }
        assert!(r.ensure());
        assert_eq!(r.state(), State::Registered(len));
        assert_eq!(*f.live.lock().unwrap(), BTreeMap::from([(A, len)]));
        f.free(r);
        f.assert_clean();
    }

    #[test]
    fn four_threads_create_grow_sync_and_free_blocks_concurrently() {
        let _s = serial();
        let f = Fake::leak(300);
        std::thread::scope(|s| {
            for t in 0..4usize {
                s.spawn(move || {
                    let dice = AtomicU64::new(t as u64 * 7919 + 1);
                    for i in 0..40usize {
                        let addr = ((t + 1) << 44) + (i << 36);
                        let mut len = PIN_MIN + (rand(&dice) as usize % (200 * MIB));
                        let r = f.block(addr, len);
                        r.start();
                        for _ in 0..6 {
                            match rand(&dice) % 4 {
                                0 => r.start(),
                                1 => {
                                    assert!(r.ensure());
                                    assert!(r.is_registered());
                                }
                                2 => {
                                    len += rand(&dice) as usize % (100 * MIB);
                                    assert_eq!(f.grow(&r, len), len);
                                }
                                _ => std::thread::sleep(Duration::from_micros(rand(&dice) % 500)),
                            }
                        }
                        f.free(r);
                    }
                });
            }
        });
        f.assert_clean();
        assert!(f.count(|e| matches!(e, Event::Register(..))) > 0);
    }

    #[test]
    fn one_block_under_syncs_and_grows_from_two_threads() {
        // The DualView's lock never lets a sync and a grow of one block meet;
        // the state machine stays right when they do.
        let _s = serial();
        let f = Fake::leak(200);
        let r = f.block(A, 70 * MIB);
        let grown = Mutex::new(70 * MIB);
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..40 {
                    r.ensure();
                }
            });
            s.spawn(|| {
                for _ in 0..40 {
                    let mut g = grown.lock().unwrap();
                    *g += 3 * MIB;
                    assert_eq!(f.grow(&r, *g), *g);
                    drop(g);
                    r.start();
                }
            });
        });
        assert!(r.ensure());
        assert_eq!(r.state(), State::Registered(*grown.lock().unwrap()));
        f.free(r);
        f.assert_clean();
    }
}
