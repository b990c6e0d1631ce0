//! The state machine driven by a fake driver that records every call,
//! can hold a worker at a gate, sleep or refuse, and checks on every call
//! that no registration overlaps another or covers less (or more) than
//! its block's size at that moment.

use super::*;
use crate::memory::settle;
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

impl Fake {
    /// A block of `len` at `addr`, started while the background thread is held:
    /// `Queued` until the returned gate opens.
    fn queued(&'static self, addr: usize, len: usize) -> (Registration, OpenOnDrop<'static>) {
        let hold = hold_background();
        let r = self.block(addr, len);
        r.start();
        assert_eq!(r.state(), State::Queued);
        (r, hold)
    }

    /// A block of `len` at `addr`, started, its worker held inside its first
    /// chunk: `Populating` until the returned gate opens.
    fn populating(&'static self, addr: usize, len: usize) -> (Registration, OpenOnDrop<'static>) {
        self.populate_gate.close();
        let open = OpenOnDrop(&self.populate_gate);
        let r = self.block(addr, len);
        r.start();
        self.populate_gate.wait_arrivals(1);
        assert_eq!(r.state(), State::Populating);
        (r, open)
    }
}

#[test]
fn a_registration_queued_is_cancelled_by_a_grow() {
    let _s = serial();
    let f = Fake::leak(0);
    let (r, hold) = f.queued(A, 256 * MIB);
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
    let (r, _open) = f.populating(A, 4096 * MIB); // 64 chunks
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
fn a_small_block_registered_for_a_stream_is_unregistered_and_freed_on_the_callers_thread() {
    let _s = serial();
    let f = Fake::leak(0);
    let r = f.block(A, PIN_MIN - 4096);
    assert!(r.ensure_any_size(), "a copy queued on a stream registers it");
    let hold = hold_background(); // nothing of this free may wait for the background thread
    let freed = f.free(r);
    assert!(freed.load(Ordering::SeqCst), "unregistered and freed before release returned");
    assert_eq!(f.registered.load(Ordering::SeqCst), 0);
    hold.0.open();
    f.assert_clean();
    assert_eq!(f.events(), vec![Event::Register(A, PIN_MIN - 4096), Event::Unregister(A), Event::Free(A)]);
    // From PIN_MIN (registered in the background, or here by a copying sync): unregistered
    // on the background thread, off the caller's path.
    let r = f.block(B, PIN_MIN);
    assert!(r.ensure());
    let hold = hold_background();
    let freed = f.free(r);
    assert!(!freed.load(Ordering::SeqCst), "left to the background thread");
    hold.0.open();
    f.assert_clean();
    assert!(freed.load(Ordering::SeqCst));
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

#[test]
fn a_large_copy_goes_ahead_of_a_pending_registration_once_then_it_resumes() {
    let _s = serial();
    let f = Fake::leak(0);
    // Queued (the background thread is held): put off at once, and only once.
    let (r, hold) = f.queued(A, 256 * MIB);
    assert_eq!(r.defer(), Deferral::Resume, "a queued registration gives way to the copy");
    assert_eq!(r.state(), State::Idle);
    assert_eq!(r.defer(), Deferral::No, "once: the next copy registers");
    r.start();
    hold.0.open();
    settle();
    assert_eq!(r.state(), State::Registered(256 * MIB), "resumed by start");
    assert_eq!(r.defer(), Deferral::No, "registered: nothing to put off");
    // A grow leaves a new block unregistered (G10): its first large copy runs pageable and
    // leaves it so; the next copying sync registers it.
    assert_eq!(f.grow(&r, 512 * MIB), 512 * MIB);
    assert_eq!(r.defer(), Deferral::NextSync, "idle after a grow: put off to the next copying sync");
    settle();
    assert_eq!(r.state(), State::Idle, "nothing registered, nothing queued");
    assert_eq!(f.count(|e| matches!(e, Event::Register(A, n) if *n == 512 * MIB)), 0);
    assert_eq!(r.defer(), Deferral::No, "once per grow: the next copy registers");
    assert!(r.ensure());
    assert_eq!(r.state(), State::Registered(512 * MIB));
    // Populating (the worker is held inside a chunk): cancelled without waiting for it.
    let (r2, open) = f.populating(B, 4096 * MIB);
    assert_eq!(r2.defer(), Deferral::Resume);
    assert_eq!(r2.state(), State::Idle);
    drop(open);
    settle();
    assert_eq!(f.count(|e| matches!(e, Event::Register(B, _))), 0, "the cancelled worker registered nothing");
    r2.start();
    settle();
    assert_eq!(r2.state(), State::Registered(4096 * MIB));
    f.free(r);
    f.free(r2);
    f.assert_clean();
}

#[test]
fn a_registration_inside_the_driver_or_of_a_small_block_is_not_put_off() {
    let _s = serial();
    let f = Fake::leak(0);
    f.register_gate.close();
    let open = OpenOnDrop(&f.register_gate);
    let r = f.block(A, 256 * MIB);
    r.start();
    f.register_gate.wait_arrivals(1);
    assert_eq!(r.state(), State::Registering);
    assert_eq!(r.defer(), Deferral::No, "inside the driver: the copy waits for it");
    drop(open);
    let (small, hold) = f.queued(B, 32 * MIB); // under POPULATE_MIN
    assert_eq!(small.defer(), Deferral::No, "a small block registers faster than it is copied");
    assert_eq!(small.state(), State::Queued);
    drop(hold);
    settle();
    assert_eq!((r.state(), small.state()), (State::Registered(256 * MIB), State::Registered(32 * MIB)));
    // Grown, still under POPULATE_MIN: its first large copy registers it (G25 is for 64 MiB and more).
    assert_eq!(f.grow(&small, 48 * MIB), 48 * MIB);
    assert_eq!(small.defer(), Deferral::No, "a small grown block registers faster than it is copied");
    assert!(small.ensure());
    assert_eq!(small.state(), State::Registered(48 * MIB));
    f.free(r);
    f.free(small);
    f.assert_clean();
}
