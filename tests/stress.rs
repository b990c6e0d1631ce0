//! Thread stress through the C ABI: 8 threads share clones and subviews of
//! one two-space DualView `S` (rows x W elements of i64, test device) and
//! hammer modify / need_sync / sync / fill / view_copy / deep_copy / clone /
//! resize / destroy for about two seconds.
//!
//! Design, so that "no update is lost" can be checked:
//! - thread `t` owns row `t`: it writes it only with `dv_fill_and_modify_*`
//!   through its own row subview, values `(t + 1) << 32 | seq` with `seq`
//!   increasing; `CONCURRENT_MODIFICATION` is answered by syncing that side
//!   and retrying, `STALE` (another thread resized `S`) by making the row
//!   subview again from the thread's clone and retrying;
//! - resizes only switch the number of rows between 8 and 12 (the extra
//!   rows belong to nobody), so every owned row survives each resize;
//! - each thread copies random rows of `S` (either side) into its own scratch
//!   DualView with `dv_view_copy` and `dv_deep_copy`, and checks that the
//!   copy is never torn: a row holds one value, tagged with its owner (or 0);
//! - at the end, after `dv_sync_host` and `dv_sync_device`, every row holds
//!   its thread's last written value on both sides, nothing needs a sync,
//!   and `dv_handle_count` is back where it started.
//!
//! - a bare `dv_modify_*` claims a write, so a thread marks only what it
//!   wrote: its own row, on the side of its last write.
//!
//! Not done on purpose (the caller's contract, docs/RELIABILITY.md):
//! `dv_destroy` of a handle another thread uses, writes through raw data
//! pointers, `dv_clear_sync_state` and write-only access (they drop pending
//! changes by design, so they would lose updates), `dv_view_fill` into `S`
//! (writes without marking), and a `dv_modify_*` of a region the thread did
//! not write: after a subview sync left the other side's rest, such a modify
//! overwrites that rest inside its region (Kokkos semantics: the later write
//! wins, docs/SEMANTICS.md), so a whole-array modify from a thread that wrote
//! one row drops the other rows' unsynced changes (R6 in docs/RELIABILITY.md).

use dualview::ffi::dv_status_t::{self, *};
use dualview::ffi::*;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const THREADS: usize = 8;
const W: usize = 16;
/// A test-device ordinal no other test of this binary uses.
const ORDINAL: u32 = 7;

/// A handle shared between threads (the ABI allows concurrent use of one
/// handle for everything but `dv_destroy`).
#[derive(Clone, Copy)]
struct Shared(*mut dv_dualview_t);
// SAFETY: dv_dualview_t handles are thread-safe except for dv_destroy, which
// only the owner calls after every thread has stopped.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

fn desc(ext: &[u64], space: u32) -> dv_desc_t {
    let mut e = dv_extents_t { rank: ext.len() as u32, reserved: 0, extent: [1; 8] };
    e.extent[..ext.len()].copy_from_slice(ext);
    dv_desc_t {
        dtype: DV_DTYPE_INT64,
        elem_size: 0,
        elem_align: 0,
        layout: DV_LAYOUT_RIGHT,
        space,
        ordinal: ORDINAL,
        flags: 0,
        reserved: 0,
        extents: e,
        strides: [0; 8],
    }
}

#[track_caller]
fn ok(st: dv_status_t) {
    if st != DV_OK {
        // SAFETY: dv_last_error never returns NULL.
        let msg = unsafe { std::ffi::CStr::from_ptr(dv_last_error()) }.to_string_lossy().into_owned();
        panic!("{st:?}: {msg}");
    }
}

fn create(label: &std::ffi::CStr, ext: &[u64]) -> *mut dv_dualview_t {
    let mut out = null_mut();
    // SAFETY: valid label, description and output.
    ok(unsafe { dv_create(label.as_ptr(), &desc(ext, DV_SPACE_TEST_DEVICE), &mut out) });
    out
}

fn handles() -> usize {
    let mut n = 0;
    // SAFETY: n is writable.
    ok(unsafe { dv_handle_count(&mut n) });
    n
}

/// The subview of row `t`: `[INDEX t, ALL]`.
fn row(src: *mut dv_dualview_t, t: usize) -> Result<*mut dv_dualview_t, dv_status_t> {
    let r = [
        dv_range_t { kind: DV_INDEX, reserved: 0, begin: t as u64, end: 0 },
        dv_range_t { kind: DV_ALL, reserved: 0, begin: 0, end: 0 },
    ];
    let mut out = null_mut();
    // SAFETY: two ranges, writable output.
    match unsafe { dv_subview(src, r.as_ptr(), 2, &mut out) } {
        DV_OK => Ok(out),
        e => Err(e),
    }
}

/// Read `n` i64 of one side of a handle whose data only this thread touches.
fn read(h: *mut dv_dualview_t, side: u32) -> Vec<i64> {
    let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
    // SAFETY: live handle; writable output.
    ok(unsafe { if side == DV_SIDE_HOST { dv_host_view(h, v.as_mut_ptr()) } else { dv_device_view(h, v.as_mut_ptr()) } });
    // SAFETY: written on success.
    let v = unsafe { v.assume_init() };
    let n: u64 = v.extent[..v.rank as usize].iter().product();
    let s = if v.rank == 0 { 1 } else { v.stride[v.rank as usize - 1] as usize };
    // SAFETY: test-device and host memory are host memory; n elements with stride s.
    (0..n as usize).map(|i| unsafe { *(v.data as *const i64).add(i * s) }).collect()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What one thread did.
#[derive(Default, Debug)]
struct Report {
    writes: u64,
    retries_concurrent: u64,
    retries_stale: u64,
    copies: u64,
    resizes: u64,
    clones: u64,
}

fn check_uniform(vals: &[i64], what: &str) {
    let first = vals[0];
    assert!(vals.iter().all(|&x| x == first), "{what}: torn row {vals:?}");
    let owner = (first as u64) >> 32;
    assert!(owner <= THREADS as u64, "{what}: value {first:#x} has no owner");
}

fn worker(t: usize, s: Shared, last: Arc<Vec<AtomicU64>>, deadline: Instant) -> Report {
    let mut rep = Report::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (t as u64 + 1).wrapping_mul(0x1234_5678_9abc_def1));
    let mut mine = null_mut();
    // SAFETY: S lives until every thread is joined.
    ok(unsafe { dv_clone(s.0, &mut mine) });
    let mut myrow = row(mine, t).expect("row subview");
    let label = std::ffi::CString::new(format!("stress_scratch_{t}")).unwrap();
    let scratch = create(&label, &[W as u64]);
    let mut seq = 0u64;
    // The side of this thread's last write of its row (None before the first).
    let mut last_side = None;
    while Instant::now() < deadline {
        match rng.below(20) {
            // Write the own row, never losing the value.
            0..=5 => {
                seq += 1;
                let v = (((t as u64) + 1) << 32 | seq) as i64;
                let side = rng.below(2) as u32;
                let mut tries = 0;
                loop {
                    tries += 1;
                    assert!(tries < 100_000, "thread {t}: a write never got through");
                    // SAFETY: live handles; value points to one i64.
                    let st = unsafe {
                        if side == DV_SIDE_HOST {
                            dv_fill_and_modify_host(myrow, (&v as *const i64).cast())
                        } else {
                            dv_fill_and_modify_device(myrow, (&v as *const i64).cast())
                        }
                    };
                    match st {
                        DV_OK => break,
                        DV_ERROR_CONCURRENT_MODIFICATION => {
                            rep.retries_concurrent += 1;
                            // SAFETY: live handle.
                            let st = unsafe { if side == DV_SIDE_HOST { dv_sync_host(myrow) } else { dv_sync_device(myrow) } };
                            assert!(st == DV_OK || st == DV_ERROR_STALE, "sync: {st:?}");
                        }
                        DV_ERROR_STALE => {
                            rep.retries_stale += 1;
                            // SAFETY: this thread's own handle.
                            ok(unsafe { dv_destroy(myrow) });
                            myrow = row(mine, t).expect("row subview of the resized DualView");
                        }
                        e => panic!("thread {t}: fill answered {e:?}"),
                    }
                }
                last[t].store(v as u64, Ordering::SeqCst);
                last_side = Some(side);
                rep.writes += 1;
            }
            // Flags: queries and syncs through the own row or the clone; a
            // modify only where this thread wrote (its row, its last side).
            6..=9 => {
                let h = if rng.below(2) == 0 { myrow } else { mine };
                let mut b = false;
                // SAFETY: live handles, writable outputs.
                unsafe {
                    for st in [dv_need_sync_host(h, &mut b), dv_need_sync_device(h, &mut b)] {
                        assert!(st == DV_OK || st == DV_ERROR_STALE, "need_sync: {st:?}");
                    }
                    let st = if rng.below(2) == 0 { dv_sync_host(h) } else { dv_sync_device(h) };
                    assert!(st == DV_OK || st == DV_ERROR_STALE, "sync: {st:?}");
                    if let Some(side) = last_side {
                        let st = if side == DV_SIDE_HOST { dv_modify_host(myrow) } else { dv_modify_device(myrow) };
                        assert!(matches!(st, DV_OK | DV_ERROR_STALE | DV_ERROR_CONCURRENT_MODIFICATION), "modify: {st:?}");
                    }
                    let mut p = null_mut();
                    let st = dv_host_access(h, DV_ACCESS_READ, &mut p);
                    assert!(st == DV_OK || st == DV_ERROR_STALE, "access: {st:?}");
                }
            }
            // Copy a random row (either side) into the scratch: never torn.
            10..=14 => {
                let r = rng.below(THREADS as u64) as usize;
                let Ok(src) = row(mine, r) else { continue };
                let (ss, ds) = (rng.below(2) as u32, rng.below(2) as u32);
                // SAFETY: live handles.
                let st = unsafe {
                    if rng.below(3) == 0 {
                        let st = dv_deep_copy(scratch, src);
                        if st == DV_ERROR_CONCURRENT_MODIFICATION {
                            // The scratch's other side is newer: bring it over (own data only).
                            ok(dv_sync_host(scratch));
                            ok(dv_sync_device(scratch));
                            dv_deep_copy(scratch, src)
                        } else {
                            st
                        }
                    } else {
                        dv_view_copy(scratch, ds, src, ss)
                    }
                };
                assert!(st == DV_OK || st == DV_ERROR_STALE, "copy of row {r}: {st:?}");
                if st == DV_OK {
                    rep.copies += 1;
                    for side in [DV_SIDE_HOST, DV_SIDE_DEVICE] {
                        check_uniform(&read(scratch, side), &format!("thread {t} copy of row {r} side {side}"));
                    }
                }
                // SAFETY: this thread's own handle.
                ok(unsafe { dv_destroy(src) });
            }
            // A short-lived clone (sometimes const): use it, destroy it.
            15..=17 => {
                let mut c = null_mut();
                // SAFETY: live handle; this thread destroys its own clone.
                unsafe {
                    if rng.below(2) == 0 { ok(dv_clone(mine, &mut c)) } else { ok(dv_clone_const(mine, &mut c)) }
                    let mut info = dv_info_t::default();
                    ok(dv_info(c, &mut info));
                    assert!(info.use_count >= 2);
                    let st = dv_sync_device(c);
                    assert!(st == DV_OK || st == DV_ERROR_CONST_SYNC, "sync through a clone: {st:?}");
                    let mut e = dv_extents_t { rank: 0, reserved: 0, extent: [0; 8] };
                    ok(dv_extents(c, &mut e));
                    assert!(e.rank == 2 && (e.extent[0] == 8 || e.extent[0] == 12) && e.extent[1] == W as u64, "{e:?}");
                    ok(dv_destroy(c));
                }
                rep.clones += 1;
            }
            // Resize: 8 <-> 12 rows (owned rows survive, their subviews go stale).
            _ => {
                if rng.below(4) == 0 {
                    let rows = if rng.below(2) == 0 { 8 } else { 12 };
                    let e = dv_extents_t { rank: 2, reserved: 0, extent: [rows, W as u64, 1, 1, 1, 1, 1, 1] };
                    // SAFETY: live handle.
                    ok(unsafe { dv_resize(mine, &e) });
                    rep.resizes += 1;
                }
            }
        }
    }
    // SAFETY: this thread's own handles.
    unsafe {
        ok(dv_destroy(myrow));
        ok(dv_destroy(scratch));
        ok(dv_destroy(mine));
    }
    rep
}

#[test]
fn eight_threads_lose_no_update() {
    let start_handles = handles();
    let s = create(c"stress", &[8, W as u64]);
    let last: Arc<Vec<AtomicU64>> = Arc::new((0..THREADS).map(|_| AtomicU64::new(0)).collect());
    let ms = std::env::var("DV_STRESS_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let deadline = Instant::now() + Duration::from_millis(ms);
    let (tx, rx) = std::sync::mpsc::channel();
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (last, sh, tx) = (last.clone(), Shared(s), tx.clone());
            std::thread::spawn(move || {
                let sh = sh;
                let r = worker(t, sh, last, deadline);
                tx.send(()).unwrap();
                r
            })
        })
        .collect();
    // A watchdog instead of a hang: every thread must finish soon after the deadline.
    for _ in 0..THREADS {
        rx.recv_timeout(Duration::from_millis(ms) + Duration::from_secs(120)).expect("a thread is stuck (deadlock?)");
    }
    let reports: Vec<Report> = threads.into_iter().map(|h| h.join().expect("worker panicked")).collect();
    let total: u64 = reports.iter().map(|r| r.writes).sum();
    eprintln!("{THREADS} threads, {ms} ms: {total} writes; {reports:?}");
    assert!(reports.iter().all(|r| r.writes > 0), "every thread wrote");

    // Bring both sides up to date; then nothing needs a sync.
    // SAFETY: every other thread has stopped; s is live.
    unsafe {
        ok(dv_sync_host(s));
        ok(dv_sync_device(s));
        let (mut h, mut d) = (true, true);
        ok(dv_need_sync_host(s, &mut h));
        ok(dv_need_sync_device(s, &mut d));
        assert!(!h && !d, "flags not clean after syncing both ways");
        let mut word: *const u8 = std::ptr::null();
        ok(dv_sync_state_word(s, &mut word));
        assert_eq!((*(word as *const AtomicU8)).load(Ordering::Acquire), DV_SYNC_CLEAN);
    }
    let host = read(s, DV_SIDE_HOST);
    let device = read(s, DV_SIDE_DEVICE);
    assert_eq!(host.len() % W, 0);
    for (side, vals) in [("host", &host), ("device", &device)] {
        for t in 0..THREADS {
            let want = last[t].load(Ordering::SeqCst) as i64;
            let got = &vals[t * W..(t + 1) * W];
            assert!(got.iter().all(|&x| x == want), "row {t} on the {side}: {got:x?}, last write {want:#x}: an update was lost");
        }
        assert!(vals[THREADS * W..].iter().all(|&x| x == 0), "rows nobody owns changed on the {side}");
    }
    // SAFETY: the last use of s.
    ok(unsafe { dv_destroy(s) });
    assert_eq!(handles(), start_handles, "handles leaked");
    assert!(
        !dualview::memory::live_allocations().iter().any(|a| a.label.starts_with("stress")),
        "allocations leaked: {:?}",
        dualview::memory::live_allocations()
    );
}
