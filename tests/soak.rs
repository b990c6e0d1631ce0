//! Soak test against the oracle of issue 30 (tests/common/oracle.rs): random
//! programs of DualView calls, on `Space::cuda(0)` when a GPU is present and
//! on `Space::test_device(0)` otherwise, on several host threads (each with
//! its own DualViews and its own seed), with arrays from a few bytes up to
//! `DV_SOAK_MAX_BYTES` (GiB on the GPU).
//!
//! The reference is the oracle, not a model of the library's rules: a ledger
//! of what the program wrote (pattern writes of the host side, raw copies
//! into the device side, `view_fill`, fills, the writes after an access) and
//! what it marked, and a model of Kokkos' two modified counters. It knows
//! nothing of the coherence map. Arrays are large, so the ledger tracks a
//! sample of each DualView's elements (its rules are per element, so a
//! sample is sound): a few thousand random indices (every element of a small
//! array), the corners of every box an operation uses with their neighbours
//! just outside, and after a resize the seam and a sample of the new
//! elements. An element tracked late gets its exact ledger state by
//! replaying the DualView's log of oracle events on it (an element a deep
//! copy wrote becomes unknown there); a test below and a check at the end of
//! every DualView's life hold the replay to the oracle.
//!
//! Checked after every call, as tests/model.rs does:
//! 1. modify, fill, push and deep_copy answer `ConcurrentModification`
//!    exactly when Kokkos' counters refuse them; every other call succeeds;
//! 2. `need_sync(X)` is true through every handle wherever Kokkos' counters
//!    say so;
//! 3. after a sync, `sync_on`, push or Read / ReadWrite / Write access of
//!    side X through a handle, side X holds the ledger's value
//!    (`Elem::expect`) at every tracked element of the handle's box whose
//!    value the ledger knows; and, through every handle whose `need_sync(X)`
//!    is false, the same on its box: after every operation on the test
//!    device (every 4th on a GPU; a burst is one operation of many calls),
//!    and at the end of each DualView's life, then again after a whole sync
//!    of each side. Device memory is read by copies to the host.
//! 4. a sync (push, access) moves at most its box (`stats()` bytes), and only
//!    into the side it brings up to date; modify, fill, `view_fill`,
//!    `clear_sync_state`, deep_copy, an Overwrite access, resize and realloc
//!    move nothing between the sides.
//!
//! The programs: element sizes 1, 4, 8, 16; ranks 1 to 3; LayoutLeft and
//! LayoutRight; three host mirrors; modify, sync, `sync_on` (CUDA streams),
//! fill, `view_fill`, push, the four access modes, `clear_sync_state`,
//! deep_copy (between DualViews and between disjoint boxes of one), resize
//! and realloc, through the parent and through subviews (of subviews); raw
//! writes of either side, marked at once or not at all; several regions
//! written before any mark, then marked in any order through overlapping
//! subviews; the halo idiom (a kernel writes and marks one side, a row is
//! synced to the other, two ghost rows are written there, then each is
//! modified and synced through its own row); and bursts of 80 to a few
//! hundred single-element and short-row subview calls between whole-array
//! calls, so the map passes its 64 boxes to a bitmap, often ended by a
//! resize of the fragmented map.
//!
//! Knobs (environment): `DV_SOAK_SECONDS` (default 8), `DV_SOAK_SEED` (one
//! number: thread k runs seed+k's successor, thread 0 runs it exactly; or a
//! comma-separated list, one per thread), `DV_SOAK_THREADS` (default 4),
//! `DV_SOAK_MAX_BYTES` (largest array; `64M`, `4G`...: default 64 MiB, 16 MiB
//! in an unoptimised build).
//! A failure names the thread's seed and the line that replays it. The run
//! ends with a coverage line and one summary line:
//! `soak: <N> operations (<C> DualView calls), <S> syncs, <B> bytes moved,
//! <E> elements compared against the ledger, most boxes <K>, bitmap ...,
//! <F> refusals matched with Kokkos, <T> threads, seeds [...], <s> s on <space>`.

#![allow(clippy::needless_range_loop)]

mod common;

use common::oracle::{self, Elem, Oracle};
use dualview::memory::cuda_device_count;
use dualview::stats::Stats;
use dualview::{Access, Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Slice, Space, Stream, View};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most axes a soak DualView has (lower ranks pad with extent 1).
const R: usize = 3;
/// Staged device writes go in pieces of at most this.
const CHUNK: usize = 64 << 20;
/// The largest box one pattern write covers (larger handles write a part).
const WRITE_CAP: usize = 32 << 20;
/// The most live subview handles per DualView.
const MAX_SUBS: usize = 4;
/// Random elements the ledger tracks per DualView (every element of one of
/// at most twice as many).
const SAMPLE: usize = 2048;
/// The most elements the ledger tracks per DualView (box corners are added up to it).
const MAX_TRACKED: usize = 12_000;
/// The longest log of oracle events kept for replays; past it a DualView
/// tracks no new elements (until a realloc).
const MAX_LOG: usize = 50_000;
/// Device reads: elements closer than this (bytes) are read in one copy ...
const READ_GAP: usize = 32 << 10;
/// ... of at most this many bytes.
const READ_SPAN: usize = 8 << 20;
/// The largest box of a deep copy between different layouts (elements).
const DEEP_COPY_STRIDED: usize = 1 << 14;

// ---- configuration ------------------------------------------------------------------


struct Config {
    seconds: f64,
    seeds: Vec<u64>,
    max_bytes: usize,
    cuda: bool,
    space: Space,
}

fn parse_bytes(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => {
            let mul = match s[i..].to_ascii_lowercase().trim_end_matches("ib").trim_end_matches('b') {
                "" => 1usize,
                "k" => 1 << 10,
                "m" => 1 << 20,
                "g" => 1 << 30,
                _ => return None,
            };
            (&s[..i], mul)
        }
        None => (s, 1),
    };
    num.trim().parse::<f64>().ok().map(|n| (n * mul as f64) as usize)
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

impl Config {
    fn from_env() -> Config {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let seconds = var("DV_SOAK_SECONDS").map(|v| v.parse::<f64>().expect("DV_SOAK_SECONDS: a number of seconds")).unwrap_or(8.0);
        let max_bytes = var("DV_SOAK_MAX_BYTES")
            .map(|v| parse_bytes(&v).expect("DV_SOAK_MAX_BYTES: bytes, e.g. 67108864, 64M or 4G"))
            // Unoptimised test builds check elements about ten times slower.
            .unwrap_or(if cfg!(debug_assertions) { 16 << 20 } else { 64 << 20 })
            .max(64);
        let given: Option<Vec<u64>> = var("DV_SOAK_SEED")
            .map(|v| v.split(',').map(|x| parse_u64(x).expect("DV_SOAK_SEED: a number (or 0x...), or a comma-separated list")).collect());
        let threads = var("DV_SOAK_THREADS")
            .map(|v| v.parse::<usize>().expect("DV_SOAK_THREADS: a count"))
            .unwrap_or_else(|| given.as_ref().filter(|g| g.len() > 1).map_or(4, |g| g.len()))
            .max(1);
        let base = match &given {
            Some(g) => g.clone(),
            None => {
                let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                vec![mix(t.as_nanos() as u64 ^ u64::from(std::process::id()))]
            }
        };
        // Thread 0 runs the first seed exactly, so that one thread's seed replays it alone.
        let seeds = (0..threads).map(|k| base.get(k).copied().unwrap_or_else(|| mix(base[0].wrapping_add(k as u64)))).collect();
        let cuda = cuda_device_count() > 0;
        let space = if cuda { Space::cuda(0) } else { Space::test_device(0) };
        Config { seconds, seeds, max_bytes, cuda, space }
    }
}

// ---- random numbers and values ------------------------------------------------------

/// splitmix64's output function.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    /// In `[lo, hi)`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn side(&mut self) -> Side {
        if self.next() & 1 == 0 { Side::Host } else { Side::Device }
    }
}

/// The pattern a write of operation `seed` puts at `idx`: distinct per
/// operation and per index, and never a zero element (the low bit is set).
#[inline]
fn pat(seed: u64, idx: [usize; R], es: usize) -> [u8; 16] {
    let h = mix(seed
        ^ (idx[0] as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (idx[1] as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ (idx[2] as u64).wrapping_mul(0x1656_67b1_9e37_79f9));
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&(h | 1).to_le_bytes());
    if es > 8 {
        out[8..].copy_from_slice(&mix(h ^ 0xd6e8_feb8_6659_fd93).to_le_bytes());
    }
    out
}

/// A fill value that is never all zeros: one byte repeated (cuMemsetD8), a
/// 2-byte or 4-byte word repeated (cuMemsetD16/D32), or arbitrary bytes.
fn fill_value(rng: &mut Rng, es: usize) -> [u8; 16] {
    let mut v = [0u8; 16];
    let r = rng.next().to_le_bytes();
    let period = match rng.below(4) {
        0 => 1,
        1 => 2,
        2 => 4,
        _ => 16,
    };
    for (i, b) in v.iter_mut().enumerate() {
        *b = if period == 16 { (rng.next() & 0xff) as u8 } else { r[i % period] };
    }
    if v[..es].iter().all(|&b| b == 0) {
        v[0] = 0x5a;
    }
    v
}

fn si(s: Side) -> usize {
    match s {
        Side::Host => 0,
        Side::Device => 1,
    }
}

// ---- boxes --------------------------------------------------------------------------

/// A box of indices `[lo, hi)` per axis in the parent's index space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Bx {
    lo: [usize; R],
    hi: [usize; R],
}

impl Bx {
    fn whole(ext: &[usize; R]) -> Bx {
        Bx { lo: [0; R], hi: *ext }
    }
    fn ext(&self) -> [usize; R] {
        std::array::from_fn(|a| self.hi[a].saturating_sub(self.lo[a]))
    }
    fn vol(&self) -> usize {
        self.ext().iter().product()
    }
    fn is_empty(&self) -> bool {
        (0..R).any(|a| self.lo[a] >= self.hi[a])
    }
    fn holds(&self, p: &[usize; R]) -> bool {
        (0..R).all(|a| self.lo[a] <= p[a] && p[a] < self.hi[a])
    }
    fn meets(&self, o: &Bx) -> bool {
        (0..R).all(|a| self.lo[a].max(o.lo[a]) < self.hi[a].min(o.hi[a]))
    }
    fn slices(&self, rank: usize) -> Vec<Slice> {
        (0..rank).map(|a| Slice::Range(self.lo[a], self.hi[a])).collect()
    }
    fn show(&self, rank: usize) -> String {
        let parts: Vec<String> = (0..rank).map(|a| format!("{}..{}", self.lo[a], self.hi[a])).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// Split `b` into pieces of at most `max` elements, cutting the slowest
/// axes (in memory) first so that pieces stay as contiguous as they can.
fn split(b: Bx, slow_to_fast: &[usize], max: usize, out: &mut Vec<Bx>) {
    if b.vol() <= max.max(1) {
        out.push(b);
        return;
    }
    let a = *slow_to_fast.iter().find(|&&a| b.hi[a] - b.lo[a] > 1).expect("a box of more than one element");
    let per = b.vol() / (b.hi[a] - b.lo[a]);
    if per <= max {
        let step = max / per;
        let mut lo = b.lo[a];
        while lo < b.hi[a] {
            let mut p = b;
            p.lo[a] = lo;
            p.hi[a] = (lo + step).min(b.hi[a]);
            out.push(p);
            lo = p.hi[a];
        }
    } else {
        for i in b.lo[a]..b.hi[a] {
            let mut p = b;
            p.lo[a] = i;
            p.hi[a] = i + 1;
            split(p, slow_to_fast, max, out);
        }
    }
}

/// A random part of `b` of at most `max` elements.
fn clip(rng: &mut Rng, mut b: Bx, max: usize) -> Bx {
    while b.vol() > max.max(1) {
        let a = (0..R).max_by_key(|&a| b.hi[a] - b.lo[a]).expect("R > 0");
        let half = (b.hi[a] - b.lo[a]).div_ceil(2);
        let lo = b.lo[a] + rng.below(b.hi[a] - b.lo[a] - half + 1);
        b.lo[a] = lo;
        b.hi[a] = lo + half;
    }
    b
}

/// A random box inside `ext` (the first `rank` axes); with `near`, often
/// one that overlaps or touches it.
fn rand_box(rng: &mut Rng, ext: &[usize; R], rank: usize, near: Option<&Bx>) -> Bx {
    let mut b = Bx::whole(ext);
    let close = near.is_some() && rng.chance(0.7);
    for a in 0..rank {
        let e = ext[a];
        let (lo, hi) = match near {
            Some(n) if close => {
                let w = n.hi[a] - n.lo[a];
                let lo = n.lo[a].saturating_sub(rng.below(w + 1)).min(e - 1);
                (lo, (lo + 1 + rng.below(2 * w + 1)).min(e))
            }
            _ => {
                let lo = rng.below(e);
                let short = rng.chance(0.5);
                let len = 1 + rng.below(if short { (e - lo).min(8) } else { e - lo });
                (lo, lo + len)
            }
        };
        (b.lo[a], b.hi[a]) = (lo, hi);
    }
    b
}

/// The corners of `b` and their neighbours just outside it, inside `ext`
/// (per axis: `lo - 1, lo, hi - 1, hi`): where a map's boxes meet.
fn corners(b: &Bx, ext: &[usize; R]) -> Vec<[usize; R]> {
    if b.is_empty() {
        return Vec::new();
    }
    let c: Vec<Vec<usize>> = (0..R)
        .map(|a| {
            let mut v: Vec<usize> = [b.lo[a].checked_sub(1), Some(b.lo[a]), Some(b.hi[a] - 1), Some(b.hi[a])]
                .into_iter()
                .flatten()
                .filter(|&x| x < ext[a])
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut out = Vec::new();
    for &x in &c[0] {
        for &y in &c[1] {
            for &z in &c[2] {
                out.push([x, y, z]);
            }
        }
    }
    out
}

/// `k` random indices of `ext` outside `old` (all of them when there are at most `2k`).
fn sample(rng: &mut Rng, ext: &[usize; R], old: Option<&[usize; R]>, k: usize) -> Vec<[usize; R]> {
    let n: usize = ext.iter().product();
    let kept = old.map_or(0, |o| (0..R).map(|a| o[a].min(ext[a])).product());
    let fresh = |p: &[usize; R]| old.is_none_or(|o| !inside(p, o));
    if n - kept <= 2 * k && n <= 1 << 22 {
        let mut out = Vec::new();
        for x in 0..ext[0] {
            for y in 0..ext[1] {
                for z in 0..ext[2] {
                    if fresh(&[x, y, z]) {
                        out.push([x, y, z]);
                    }
                }
            }
        }
        return out;
    }
    let mut out = Vec::with_capacity(k);
    for _ in 0..4 * k {
        if out.len() == k {
            break;
        }
        let p: [usize; R] = std::array::from_fn(|a| rng.below(ext[a]));
        if fresh(&p) {
            out.push(p);
        }
    }
    out
}

fn inside(p: &[usize; R], ext: &[usize; R]) -> bool {
    (0..R).all(|a| p[a] < ext[a])
}

fn arr(i: &[usize]) -> [usize; R] {
    std::array::from_fn(|a| i[a])
}

// ---- the oracle on a sample ---------------------------------------------------------

/// One element's bytes (the first `es` of them; the rest zero).
type Val = [u8; 16];
const ZERO: Val = [0; 16];

fn ob(b: &Bx) -> oracle::Bx {
    oracle::Bx::new(b.lo.to_vec(), b.hi.to_vec())
}

fn hex(v: &Val, es: usize) -> String {
    v[..es].iter().map(|b| format!("{b:02x}")).collect()
}

fn show(v: &Option<Val>, es: usize) -> String {
    v.as_ref().map_or("unknown".into(), |v| hex(v, es))
}

/// What a write puts in each element.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    Fill(Val),
    Pat(u64),
}

impl Src {
    fn at(self, idx: &[usize], es: usize) -> Val {
        let mut v = match self {
            Src::Fill(v) => v,
            Src::Pat(seed) => pat(seed, arr(idx), es),
        };
        v[es..].fill(0);
        v
    }
}

/// What the oracle of a DualView was told, in order: replayed on elements
/// tracked late. Sides are 0 (host) and 1 (device); only accepted calls.
#[derive(Clone, Debug)]
enum Ev {
    Write(usize, Bx, Src),
    Modify(usize, Bx),
    Sync(usize, Bx),
    Overwrite(usize, Bx),
    Clear,
    Resize([usize; R], [usize; R]),
    /// A deep copy into the box, Kokkos' side given (a replay does not know the values).
    CopyInto(usize, Bx),
}

/// Tell `o` about `ev`; a resize adds the elements of `add` it creates.
fn apply(o: &mut Oracle<Val>, ev: &Ev, es: usize, add: &[[usize; R]]) {
    match ev {
        Ev::Write(s, b, src) => {
            let src = *src;
            o.write(*s, &ob(b), move |i| Some(src.at(i, es)));
        }
        Ev::Modify(s, b) => o.modify(*s, &ob(b)).expect("only accepted modifies are told"),
        Ev::Sync(s, b) => o.sync(*s, &ob(b)),
        Ev::Overwrite(s, b) => o.overwrite(*s, &ob(b)),
        Ev::Clear => o.clear(),
        Ev::Resize(old, new) => {
            let adds = add.iter().filter(|p| inside(p, new) && !inside(p, old)).map(|p| p.to_vec());
            o.resize(old, adds, new);
        }
        Ev::CopyInto(p, b) => {
            o.counters[*p] = o.counters[0].max(o.counters[1]) + 1;
            let b = ob(b);
            for e in o.elems.iter_mut().filter(|e| b.holds(&e.idx)) {
                (e.value, e.pending, e.known, e.open, e.kk, e.newer) = (None, [None, None], [None, None], None, [None, None], Some(*p));
            }
        }
    }
}

/// The ledger of `pts` after `log`, which starts on extents `ext0`, both sides zero.
fn replay(log: &[Ev], ext0: &[usize; R], es: usize, pts: &[[usize; R]]) -> Oracle<Val> {
    let mut o = Oracle::new(pts.iter().filter(|p| inside(p, ext0)).map(|p| p.to_vec()), Some(ZERO));
    for ev in log {
        apply(&mut o, ev, es, pts);
    }
    o
}

/// Whether two ledger entries agree (the replay's own check).
fn same(a: &Elem<Val>, b: &Elem<Val>) -> bool {
    (a.idx == b.idx) && a.value == b.value && a.pending == b.pending && a.known == b.known && a.open == b.open && a.kk == b.kk && a.newer == b.newer
}

// ---- memory: painting ---------------------------------------------------------------

/// Elements of one side (or a copy of a piece of it) in host-readable memory:
/// element `idx` lives at `base + sum((idx - origin) * strides) * es`.
struct Mem {
    base: *mut u8,
    origin: [usize; R],
    strides: [usize; R],
    es: usize,
}

impl Mem {
    fn of(v: &View, origin: [usize; R]) -> Mem {
        let s = v.mapping().strides().as_slice();
        Mem { base: v.data(), origin, strides: std::array::from_fn(|a| s.get(a).copied().unwrap_or(0)), es: v.elem().size() }
    }
    fn at(&self, idx: [usize; R]) -> *mut u8 {
        let off: usize = (0..R).map(|a| (idx[a] - self.origin[a]) * self.strides[a]).sum();
        // SAFETY (by construction): callers pass indices inside the memory's box.
        unsafe { self.base.add(off * self.es) }
    }
}

/// Call `f(start, len)` for each run of `b` along the `inner` axis.
fn runs<E>(b: &Bx, inner: usize, mut f: impl FnMut([usize; R], usize) -> Result<(), E>) -> Result<(), E> {
    if b.is_empty() {
        return Ok(());
    }
    let outer: Vec<usize> = (0..R).filter(|&a| a != inner).collect();
    let (p, q) = (outer[0], outer[1]);
    for i in b.lo[p]..b.hi[p] {
        for j in b.lo[q]..b.hi[q] {
            let mut idx = b.lo;
            idx[p] = i;
            idx[q] = j;
            f(idx, b.hi[inner] - b.lo[inner])?;
        }
    }
    Ok(())
}

/// Paint the pattern of `seed` over box `b` of `mem`.
fn paint(mem: &Mem, b: &Bx, seed: u64, inner: usize) {
    let es = mem.es;
    let step = mem.strides[inner] * es;
    let _ = runs::<()>(b, inner, |start, len| {
        let mut p = mem.at(start);
        let mut idx = start;
        for k in 0..len {
            idx[inner] = start[inner] + k;
            let v = pat(seed, idx, es);
            // SAFETY: `p` addresses element `idx` of host-writable memory the caller owns for the call.
            unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, es) };
            p = p.wrapping_add(step);
        }
        Ok(())
    });
}

// ---- CUDA helpers (only called when a GPU is present) -------------------------------

mod cuda {
    use cudarc::driver::sys;

    fn ok(r: sys::CUresult, what: &str) -> Result<(), String> {
        if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{what}: {r:?}")) }
    }

    /// Device 0's primary context, current on this thread for raw driver calls
    /// (dualview leaves the caller's context current); released on drop.
    pub struct Context {
        dev: sys::CUdevice,
        /// Raw streams of this thread, and whether each is non-blocking.
        pub streams: Vec<(usize, bool)>,
    }

    impl Context {
        pub fn new() -> Result<Context, String> {
            let (mut dev, mut ctx): (sys::CUdevice, sys::CUcontext) = (0, std::ptr::null_mut());
            // SAFETY: plain driver calls with valid out-pointers (the driver is loaded: a device was counted).
            unsafe {
                ok(sys::cuInit(0), "cuInit")?;
                ok(sys::cuDeviceGet(&mut dev, 0), "cuDeviceGet")?;
                ok(sys::cuDevicePrimaryCtxRetain(&mut ctx, dev), "cuDevicePrimaryCtxRetain")?;
                ok(sys::cuCtxSetCurrent(ctx), "cuCtxSetCurrent")?;
            }
            let mut c = Context { dev, streams: Vec::new() };
            // Two ordinary streams and one that does not wait for the legacy default stream.
            for flags in [0u32, 0, 1] {
                let mut s: sys::CUstream = std::ptr::null_mut();
                // SAFETY: a context is current (above).
                unsafe { ok(sys::cuStreamCreate(&mut s, flags), "cuStreamCreate")? };
                c.streams.push((s as usize, flags == 1));
            }
            Ok(c)
        }
    }

    impl Drop for Context {
        fn drop(&mut self) {
            // SAFETY: destroy our streams, make no context current, release the one retained.
            unsafe {
                for &(s, _) in &self.streams {
                    sys::cuStreamSynchronize(s as sys::CUstream);
                    sys::cuStreamDestroy_v2(s as sys::CUstream);
                }
                sys::cuCtxSetCurrent(std::ptr::null_mut());
                sys::cuDevicePrimaryCtxRelease_v2(self.dev);
            }
        }
    }

    pub fn stream_sync(s: usize) -> Result<(), String> {
        // SAFETY: a live stream of this thread's context (or the null stream).
        ok(unsafe { sys::cuStreamSynchronize(s as sys::CUstream) }, "cuStreamSynchronize")
    }

    pub fn ctx_sync() -> Result<(), String> {
        // SAFETY: a context is current on this thread.
        ok(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")
    }

    /// A raw host-to-device copy (what a legacy code does with `d_view.data()`).
    ///
    /// # Safety
    /// `dst` is `bytes` of live device memory, `src` `bytes` of host memory.
    pub unsafe fn htod(dst: *mut u8, src: *const u8, bytes: usize) -> Result<(), String> {
        // SAFETY: forwarded contract.
        ok(unsafe { sys::cuMemcpyHtoD_v2(dst as usize as sys::CUdeviceptr, src as *const _, bytes) }, "cuMemcpyHtoD")
    }

    /// A raw device-to-host copy (reading the device side to compare it with the ledger).
    ///
    /// # Safety
    /// `src` is `bytes` of live device memory, `dst` `bytes` of host memory.
    pub unsafe fn dtoh(dst: *mut u8, src: *const u8, bytes: usize) -> Result<(), String> {
        // SAFETY: forwarded contract.
        ok(unsafe { sys::cuMemcpyDtoH_v2(dst as *mut _, src as usize as sys::CUdeviceptr, bytes) }, "cuMemcpyDtoH")
    }
}


// ---- one DualView, its handles and its ledger ---------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mirror {
    /// Pageable, registered with the driver in the background (CUDA).
    Default,
    /// `desc.host = Space::host_pinned()`.
    Pinned,
    /// `desc.pin_mirror = false`.
    Pageable,
}

/// A handle: the parent or a subview, with its box in the parent and the
/// parent axes it keeps.
#[derive(Clone)]
struct Handle {
    raw: RawDualView,
    b: Bx,
    axes: Vec<usize>,
    parent: bool,
}

impl Handle {
    fn name(&self, rank: usize) -> String {
        if self.parent { "parent".into() } else { format!("subview {}", self.b.show(rank)) }
    }
}

struct Dv {
    id: u64,
    parent: RawDualView,
    layout: Layout,
    rank: usize,
    es: usize,
    mirror: Mirror,
    ext: [usize; R],
    /// The ledger and Kokkos' counters, on the tracked elements.
    o: Oracle<Val>,
    tracked: BTreeSet<[usize; R]>,
    /// Every event the oracle was told since the log began (None: too long, no more tracking).
    log: Option<Vec<Ev>>,
    /// The extents where the log begins (creation or realloc: both sides zero).
    log_ext: [usize; R],
    /// The log holds a deep copy into this DualView (a replay knows less than the oracle there).
    copied_into: bool,
    subs: Vec<Handle>,
    ops_left: u32,
    since_check: u32,
}

impl Dv {
    fn bytes(&self) -> usize {
        self.ext.iter().product::<usize>() * self.es
    }
    fn inner(&self) -> usize {
        match self.layout {
            Layout::Right => self.rank.saturating_sub(1),
            _ => 0,
        }
    }
    fn slowest(&self) -> usize {
        match self.layout {
            Layout::Right => 0,
            _ => self.rank - 1,
        }
    }
    fn slow_to_fast(&self) -> Vec<usize> {
        match self.layout {
            Layout::Right => (0..R).collect(),
            _ => (0..R).rev().collect(),
        }
    }
    fn whole(&self) -> Bx {
        Bx::whole(&self.ext)
    }
    fn handle(&self) -> Handle {
        Handle { raw: self.parent.clone(), b: self.whole(), axes: (0..self.rank).collect(), parent: true }
    }
    fn elem(&self) -> ElemSpec {
        ElemSpec::new(self.es, self.es.min(16)).expect("element size")
    }
    fn describe(&self) -> String {
        format!(
            "dv{} of {}-byte elements, {:?}, extents {:?}, mirror {:?}, {} subview(s); oracle: Kokkos' counters host {} device {}, {} elements tracked, {} where the program broke the rule; map {:?}",
            self.id,
            self.es,
            self.layout,
            &self.ext[..self.rank],
            self.mirror,
            self.subs.len(),
            self.o.counters[0],
            self.o.counters[1],
            self.o.elems.len(),
            self.o.broken,
            self.parent.coherence()
        )
    }

    /// Tell the oracle (and the log).
    fn ev(&mut self, ev: Ev) {
        self.ev_adding(ev, &[]);
    }
    fn ev_adding(&mut self, ev: Ev, add: &[[usize; R]]) {
        apply(&mut self.o, &ev, self.es, add);
        self.log(ev);
    }
    /// Only the log (the oracle was told otherwise).
    fn log(&mut self, ev: Ev) {
        if let Some(l) = &mut self.log {
            if l.len() >= MAX_LOG {
                self.log = None;
            } else {
                l.push(ev);
            }
        }
    }

    /// Track `pts` from now on (up to MAX_TRACKED), each with its ledger state
    /// replayed from the log.
    fn track(&mut self, pts: impl IntoIterator<Item = [usize; R]>) -> Result<(), String> {
        let Some(log) = &self.log else { return Ok(()) };
        let room = MAX_TRACKED.saturating_sub(self.tracked.len());
        let mut new = Vec::new();
        for p in pts {
            if new.len() >= room {
                break;
            }
            if inside(&p, &self.ext) && self.tracked.insert(p) {
                new.push(p);
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let rep = replay(log, &self.log_ext, self.es, &new);
        if rep.counters != self.o.counters || rep.elems.len() != new.len() {
            return Err(format!(
                "soak bug: a replay of {} events ends with counters {:?} and {} of {} elements; the oracle has counters {:?}",
                log.len(),
                rep.counters,
                rep.elems.len(),
                new.len(),
                self.o.counters
            ));
        }
        self.o.elems.extend(rep.elems);
        self.o.reindex(); // not a resize: nothing is forgotten
        Ok(())
    }

    /// A subview of the parent over `b` (a range on every axis), its corners tracked.
    fn sub(&mut self, b: Bx) -> Result<Handle, String> {
        self.track(corners(&b, &self.ext))?;
        let raw = trace(self.parent.subview(&b.slices(self.rank)), &format!("subview {}", b.show(self.rank)))?;
        Ok(Handle { raw, b, axes: (0..self.rank).collect(), parent: false })
    }

    /// The subview of row `i` along axis `a` (an index there, every other axis whole).
    fn row(&mut self, a: usize, i: usize) -> Result<Handle, String> {
        let mut b = self.whole();
        (b.lo[a], b.hi[a]) = (i, i + 1);
        self.track(corners(&b, &self.ext))?;
        let slices: Vec<Slice> = (0..self.rank).map(|x| if x == a { Slice::Index(i) } else { Slice::All }).collect();
        let raw = trace(self.parent.subview(&slices), &format!("subview {slices:?}"))?;
        Ok(Handle { raw, b, axes: (0..self.rank).filter(|&x| x != a).collect(), parent: false })
    }

    fn check_period(&self, cuda: bool) -> u32 {
        if cuda { 4 } else { 1 }
    }
}

/// Extents of about `elems` elements over `rank` axes.
fn shape(rng: &mut Rng, rank: usize, elems: usize) -> [usize; R] {
    let total = (elems.max(1) as f64).ln();
    let w: Vec<f64> = (0..rank).map(|_| if rng.chance(0.1) { 0.0 } else { 0.05 + rng.unit() }).collect();
    let sum: f64 = w.iter().sum::<f64>().max(1e-9);
    let mut ext = [1usize; R];
    for a in 0..rank {
        ext[a] = ((total * w[a] / sum).exp().round() as usize).max(1);
    }
    ext
}

fn trace<T>(r: dualview::Result<T>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("{what}: {e}"))
}

// ---- one thread's program -----------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Op {
    Modify,
    Sync,
    SyncOn,
    Fill,
    ViewFill,
    HostWrite,
    DeviceWrite,
    Push,
    Access,
    Clear,
    Subview,
    DropSub,
    Resize,
    Realloc,
    Check,
    Marks,
    Halo,
    Fragment,
    DeepCopy,
}

const OPS: &[(u32, Op)] = &[
    (8, Op::Modify),
    (8, Op::Sync),
    (4, Op::SyncOn),
    (4, Op::Fill),
    (3, Op::ViewFill),
    (5, Op::HostWrite),
    (5, Op::DeviceWrite),
    (3, Op::Push),
    (6, Op::Access),
    (1, Op::Clear),
    (5, Op::Subview),
    (1, Op::DropSub),
    (3, Op::Resize),
    (1, Op::Realloc),
    (1, Op::Check),
    (4, Op::Marks),
    (2, Op::Halo),
    (2, Op::Fragment),
    (2, Op::DeepCopy),
];

/// What a call may move between the sides.
#[derive(Clone, Copy, Debug)]
enum Moves {
    Nothing,
    /// At most this many elements, into this side.
    Into(Side, usize),
}

#[derive(Default)]
struct Totals {
    /// Steps of the program (one may be many calls: marks, halo, bursts).
    ops: u64,
    /// DualView calls checked.
    calls: u64,
    syncs: u64,
    moved: u64,
    compared: u64,
    /// `ConcurrentModification` answered where Kokkos refuses.
    refusals: u64,
    most_boxes: usize,
    /// Calls after which the map was a bitmap.
    bitmaps: u64,
    /// How often each kind of call and each interesting case came up.
    cov: BTreeMap<String, u64>,
}

impl Totals {
    fn count(&mut self, what: impl Into<String>) {
        *self.cov.entry(what.into()).or_default() += 1;
    }
    fn add(&mut self, o: &Totals) {
        self.ops += o.ops;
        self.calls += o.calls;
        self.syncs += o.syncs;
        self.moved += o.moved;
        self.compared += o.compared;
        self.refusals += o.refusals;
        self.most_boxes = self.most_boxes.max(o.most_boxes);
        self.bitmaps += o.bitmaps;
        for (k, v) in &o.cov {
            *self.cov.entry(k.clone()).or_default() += v;
        }
    }
}

struct Soak<'a> {
    cfg: &'a Config,
    thread: usize,
    seed: u64,
    rng: Rng,
    t: Totals,
    dvs: Vec<Dv>,
    next_id: u64,
    log: VecDeque<String>,
    cuda: Option<cuda::Context>,
}

impl<'a> Soak<'a> {
    fn new(cfg: &'a Config, thread: usize, seed: u64) -> Result<Soak<'a>, String> {
        let cuda = if cfg.cuda { Some(cuda::Context::new()?) } else { None };
        Ok(Soak { cfg, thread, seed, rng: Rng(seed), t: Totals::default(), dvs: Vec::new(), next_id: 0, log: Default::default(), cuda })
    }

    fn note(&mut self, s: String) {
        if self.log.len() == 24 {
            self.log.pop_front();
        }
        self.log.push_back(format!("#{} {s}", self.t.ops));
    }

    fn live_bytes(&self) -> usize {
        self.dvs.iter().map(Dv::bytes).sum()
    }

    fn run(&mut self, deadline: Instant, stop: &AtomicBool) -> Result<(), String> {
        let mut shown = Instant::now();
        while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
            self.step()?;
            if shown.elapsed() >= Duration::from_secs(60) {
                // A sign of life on long runs (a hang shows as silence).
                eprintln!("soak: progress: {} operations, {} DualViews live ({} bytes)", self.t.ops, self.dvs.len(), self.live_bytes());
                shown = Instant::now();
            }
        }
        while let Some(mut dv) = self.dvs.pop() {
            self.note(format!("end of the run: check and drop dv{}", dv.id));
            self.retire(&mut dv).map_err(|e| format!("{e}\n  {}", dv.describe()))?;
        }
        Ok(())
    }

    fn step(&mut self) -> Result<(), String> {
        self.t.ops += 1;
        if self.dvs.is_empty() || (self.dvs.len() < 3 && self.rng.chance(0.04)) {
            return self.create();
        }
        let i = self.rng.below(self.dvs.len());
        let mut dv = self.dvs.swap_remove(i);
        if dv.ops_left == 0 {
            self.note(format!("end of life: check and drop dv{}", dv.id));
            return self.retire(&mut dv).map_err(|e| format!("{e}\n  {}", dv.describe()));
        }
        dv.ops_left -= 1;
        let keep = self.operate(&mut dv).map_err(|e| format!("{e}\n  {}", dv.describe()))?;
        if keep {
            dv.since_check += 1;
            if dv.since_check >= dv.check_period(self.cuda.is_some()) {
                self.check_all(&mut dv, "periodic check").map_err(|e| format!("{e}\n  {}", dv.describe()))?;
            }
            self.dvs.push(dv);
        }
        Ok(())
    }

    fn create(&mut self) -> Result<(), String> {
        let es = [1usize, 4, 8, 16][self.rng.below(4)];
        let rank = self.rng.range(1, R + 1);
        let layout = if self.rng.chance(0.5) { Layout::Left } else { Layout::Right };
        let budget = (2 * self.cfg.max_bytes).saturating_sub(self.live_bytes()).min(self.cfg.max_bytes);
        if budget < 64 {
            let mut dv = self.dvs.swap_remove(0);
            dv.ops_left = 0;
            self.dvs.push(dv);
            return Ok(());
        }
        let bytes = if self.rng.chance(0.08) {
            self.rng.range(budget / 4, budget + 1)
        } else {
            (es as f64 * ((budget as f64 / es as f64).ln() * self.rng.unit()).exp()) as usize
        };
        let mut ext = shape(&mut self.rng, rank, (bytes / es).max(1));
        while ext.iter().product::<usize>() * es > budget {
            let a = (0..rank).max_by_key(|&a| ext[a]).expect("rank > 0");
            ext[a] = (ext[a] * 3 / 4).max(1);
        }
        let mirror = match self.rng.below(if self.cfg.cuda { 3 } else { 2 }) {
            0 => Mirror::Default,
            1 => Mirror::Pageable,
            _ => Mirror::Pinned,
        };
        let id = self.next_id;
        self.next_id += 1;
        let m = Mapping::new(layout, DynRank::new(&ext[..rank]).expect("rank")).expect("mapping");
        let elem = ElemSpec::new(es, es.min(16)).expect("element size");
        let mut desc = Desc::new(elem, m, self.cfg.space);
        // The programs write without marking on purpose: checked mode would refuse them.
        desc.checked = false;
        match mirror {
            Mirror::Default => {}
            Mirror::Pinned => desc.host = Space::host_pinned(),
            Mirror::Pageable => desc.pin_mirror = false,
        }
        let label = format!("soak{}.{id}", self.thread);
        self.note(format!("create dv{id}: {es}-byte elements, {layout:?}, extents {:?}, mirror {mirror:?}", &ext[..rank]));
        let parent = trace(RawDualView::new(&label, &desc), "create")?;
        self.t.count(format!("create with a {mirror:?} mirror"));
        if ext.iter().product::<usize>() * es >= self.cfg.max_bytes / 4 {
            self.t.count("create of a quarter of DV_SOAK_MAX_BYTES or more");
        }
        if self.rng.chance(0.12) {
            // Destroyed while the background registration of its mirror runs.
            self.note(format!("drop dv{id} right after create"));
            self.t.count("drop right after create");
            drop(parent);
            return Ok(());
        }
        let mut pts = sample(&mut self.rng, &ext, None, SAMPLE);
        pts.extend(corners(&Bx::whole(&ext), &ext));
        let tracked: BTreeSet<[usize; R]> = pts.into_iter().collect();
        let o = Oracle::new(tracked.iter().map(|p| p.to_vec()), Some(ZERO));
        let dv = Dv {
            id,
            parent,
            layout,
            rank,
            es,
            mirror,
            ext,
            o,
            tracked,
            log: Some(Vec::new()),
            log_ext: ext,
            copied_into: false,
            subs: Vec::new(),
            ops_left: self.rng.range(5, 90) as u32,
            since_check: 0,
        };
        self.flags(&dv, "create")?;
        self.dvs.push(dv);
        Ok(())
    }

    /// The end of a DualView's life: every handle checked, then a whole sync
    /// of each side and every tracked element checked there; the replay
    /// checked against the oracle.
    fn retire(&mut self, dv: &mut Dv) -> Result<(), String> {
        self.check_all(dv, "final check")?;
        let p = dv.handle();
        for t in if self.rng.chance(0.5) { [Side::Host, Side::Device] } else { [Side::Device, Side::Host] } {
            self.do_sync(dv, &p, t)?;
        }
        self.replay_check(dv)
    }

    /// Replaying the log on some tracked elements gives the oracle's state there.
    fn replay_check(&mut self, dv: &Dv) -> Result<(), String> {
        let Some(log) = &dv.log else { return Ok(()) };
        if dv.copied_into || dv.o.elems.is_empty() {
            return Ok(());
        }
        let step = (dv.o.elems.len() / 48).max(1);
        let pts: Vec<[usize; R]> = dv.o.elems.iter().step_by(step).map(|e| arr(&e.idx)).collect();
        let rep = replay(log, &dv.log_ext, dv.es, &pts);
        for e in &rep.elems {
            let m = dv.o.at(&e.idx).ok_or_else(|| format!("soak bug: the replay tracks {:?}, the oracle does not", e.idx))?;
            if !same(e, m) {
                return Err(format!("soak bug: replaying {} events gives {e:?}; the oracle holds {m:?}", log.len()));
            }
        }
        self.t.count("replays checked against the oracle");
        Ok(())
    }

    /// A handle for an operation: the parent, or one of the subviews.
    fn pick(&mut self, dv: &Dv) -> Handle {
        if dv.subs.is_empty() || self.rng.chance(0.4) {
            return dv.handle();
        }
        dv.subs[self.rng.below(dv.subs.len())].clone()
    }

    fn stream(&mut self) -> (Stream, usize, bool) {
        match &self.cuda {
            Some(c) => {
                let (s, nb) = c.streams[self.rng.below(c.streams.len())];
                (Stream::from_raw(s), s, nb)
            }
            None => (Stream::null(), 0, false),
        }
    }

    // ---- the checks ---------------------------------------------------------------------

    /// A call's outcome: refused (`ConcurrentModification`) exactly when
    /// Kokkos refuses, otherwise Ok; what it moved between the sides; then
    /// `need_sync` against Kokkos' counters.
    fn verify<T>(&mut self, dv: &Dv, what: &str, got: &dualview::Result<T>, refused: bool, moves: Moves, before: Stats) -> Result<(), String> {
        self.t.calls += 1;
        let kind = what.split(['(', ' ']).next().unwrap_or(what).to_string();
        match (got, refused) {
            (Ok(_), false) => {}
            (Err(e), true) if e.kind() == ErrorKind::ConcurrentModification => {
                self.t.refusals += 1;
                self.t.count(format!("{kind} refused, as Kokkos"));
            }
            (Ok(_), true) => {
                return Err(format!(
                    "{what}: returned Ok; Kokkos refuses it (its counters: host {}, device {}): ConcurrentModification expected",
                    dv.o.counters[0], dv.o.counters[1]
                ));
            }
            (Err(e), r) => {
                let want = if r { "ConcurrentModification expected (Kokkos refuses it)".to_string() } else { format!("Kokkos allows it (its counters: host {}, device {})", dv.o.counters[0], dv.o.counters[1]) };
                return Err(format!("{what}: returned {e}; {want}"));
            }
        }
        let s = dv.parent.stats();
        let (h, d) = (s.to_host.bytes - before.to_host.bytes, s.to_device.bytes - before.to_device.bytes);
        match moves {
            Moves::Into(t, n) if !refused => {
                let (into, back) = if t == Side::Host { (h, d) } else { (d, h) };
                let max = (n * dv.es) as u64;
                if back != 0 || into > max {
                    return Err(format!("{what}: moved {into} B into the {t} side and {back} B into the other; a sync moves at most its box ({max} B), into the side it brings up to date"));
                }
                if into > 0 {
                    self.t.count(format!("{kind} that copied"));
                }
            }
            _ if h + d != 0 => {
                return Err(format!("{what}: moved {h} B to the host and {d} B to the device; only a sync copies between the sides"));
            }
            _ => {}
        }
        self.t.moved += h + d;
        self.t.count(kind);
        self.flags(dv, what)
    }

    /// `need_sync` is true through every handle wherever Kokkos' counters say
    /// so; and the map's form, for the summary.
    fn flags(&mut self, dv: &Dv, what: &str) -> Result<(), String> {
        let handles = std::iter::once(&dv.parent).chain(dv.subs.iter().map(|h| &h.raw));
        for (k, h) in handles.enumerate() {
            for s in Side::BOTH {
                if dv.o.kokkos_need_sync(si(s)) && !h.need_sync(s) {
                    return Err(format!(
                        "{what}: need_sync({s}) is false through handle {k}; Kokkos' counters (host {}, device {}) say it is needed",
                        dv.o.counters[0], dv.o.counters[1]
                    ));
                }
            }
        }
        let m = dv.parent.coherence();
        if m.boxes > self.t.most_boxes {
            self.t.most_boxes = m.boxes;
        }
        if m.bitmap {
            self.t.bitmaps += 1;
        }
        Ok(())
    }

    /// Side `s` at `pts` (parent indices), read from memory (the device side
    /// of a GPU by copies to the host, nearby elements in one copy).
    fn read(&self, dv: &Dv, s: Side, pts: &[[usize; R]]) -> Result<Vec<Val>, String> {
        let v = trace(dv.parent.view(s), "view")?;
        let es = dv.es;
        let mut offs = Vec::with_capacity(pts.len());
        for p in pts {
            offs.push(trace(v.mapping().offset(&p[..dv.rank]), "offset")? * es);
        }
        let mut out = vec![ZERO; pts.len()];
        if s == Side::Device && self.cuda.is_some() {
            let mut order: Vec<usize> = (0..pts.len()).collect();
            order.sort_unstable_by_key(|&k| offs[k]);
            let mut buf = Vec::new();
            let mut k = 0;
            while k < order.len() {
                let start = offs[order[k]];
                let mut end = start + es;
                let mut j = k + 1;
                while j < order.len() && offs[order[j]] <= end + READ_GAP && offs[order[j]] + es - start <= READ_SPAN {
                    end = end.max(offs[order[j]] + es);
                    j += 1;
                }
                buf.resize(end - start, 0u8);
                // SAFETY: `end - start` bytes of the live device allocation (elements of its mapping), into `buf`.
                unsafe { cuda::dtoh(buf.as_mut_ptr(), v.data().add(start), end - start)? };
                for &q in &order[k..j] {
                    out[q][..es].copy_from_slice(&buf[offs[q] - start..offs[q] - start + es]);
                }
                k = j;
            }
        } else {
            for (k, &o) in offs.iter().enumerate() {
                // SAFETY: host-readable memory (the host side, or the test device's), an element of the mapping.
                unsafe { std::ptr::copy_nonoverlapping(v.data().add(o), out[k].as_mut_ptr(), es) };
            }
        }
        Ok(out)
    }

    /// Side `s` holds the ledger's value at every tracked element whose value
    /// it knows, in the box of every handle of `hs` that was just synced to
    /// `s` (`true`) or whose `need_sync(s)` is false.
    fn check(&mut self, dv: &Dv, s: Side, hs: &[(&Handle, bool)], what: &str) -> Result<(), String> {
        let live: Vec<(&Handle, bool)> = hs.iter().filter(|(h, synced)| *synced || !h.raw.need_sync(s)).map(|&(h, synced)| (h, synced)).collect();
        if live.is_empty() {
            return Ok(());
        }
        let (mut at, mut pts, mut who) = (Vec::new(), Vec::new(), Vec::new());
        for (k, e) in dv.o.elems.iter().enumerate() {
            if e.expect(si(s)).is_none() {
                continue;
            }
            let p = arr(&e.idx);
            if let Some(h) = live.iter().position(|(h, _)| h.b.holds(&p)) {
                at.push(k);
                pts.push(p);
                who.push(h);
            }
        }
        let got = self.read(dv, s, &pts)?;
        self.t.compared += pts.len() as u64;
        for (n, &k) in at.iter().enumerate() {
            let e = &dv.o.elems[k];
            let want = e.expect(si(s)).expect("known");
            if got[n][..dv.es] != want[..dv.es] {
                let (h, synced) = live[who[n]];
                let es = dv.es;
                return Err(format!(
                    "{what}: element {:?} of the {s} side holds {}; the ledger expects {} (ledger: last marked write {}, pending host {:?} device {:?}, known host {} device {}, open {:?}; Kokkos would hold {}); through the {}{}",
                    &pts[n][..dv.rank],
                    hex(&got[n], es),
                    hex(&want, es),
                    show(&e.value, es),
                    e.pending[0].map(|v| show(&v, es)),
                    e.pending[1].map(|v| show(&v, es)),
                    show(&e.known[0], es),
                    show(&e.known[1], es),
                    e.open,
                    show(&e.kk[si(s)], es),
                    h.name(dv.rank),
                    if synced { format!(" just synced to the {s} side") } else { format!(", whose need_sync({s}) is false") }
                ));
            }
        }
        Ok(())
    }

    /// Both sides through every handle whose `need_sync` says they are up to date.
    fn check_all(&mut self, dv: &mut Dv, what: &str) -> Result<(), String> {
        dv.since_check = 0;
        if dv.parent.extents().as_slice() != &dv.ext[..dv.rank] {
            return Err(format!("extents {:?}, the soak says {:?}", dv.parent.extents().as_slice(), &dv.ext[..dv.rank]));
        }
        let mut hs = vec![dv.handle()];
        hs.extend(dv.subs.iter().cloned());
        for s in Side::BOTH {
            let list: Vec<(&Handle, bool)> = hs.iter().map(|h| (h, false)).collect();
            self.check(dv, s, &list, what)?;
        }
        self.flags(dv, what)
    }

    /// The view an access call returned is the handle's region of that side.
    fn check_view(&self, dv: &Dv, h: &Handle, s: Side, v: &View, what: &str) -> Result<(), String> {
        let want: Vec<usize> = h.axes.iter().map(|&a| h.b.hi[a] - h.b.lo[a]).collect();
        let pv = trace(dv.parent.view(s), "view")?;
        let off = trace(pv.mapping().offset(&h.b.lo[..dv.rank]), "offset")?;
        if v.extents().as_slice() != want.as_slice() || v.data() != pv.data().wrapping_add(off * dv.es) {
            return Err(format!(
                "{what}: the view has extents {:?} at element offset {}, the handle's region is {want:?} at {off}",
                v.extents().as_slice(),
                (v.data() as usize).wrapping_sub(pv.data() as usize) / dv.es
            ));
        }
        Ok(())
    }

    // ---- single calls, each told to the oracle and checked ------------------------------

    /// `modify(s)` through `h`; whether it was accepted.
    fn do_modify(&mut self, dv: &mut Dv, h: &Handle, s: Side, after: &str) -> Result<bool, String> {
        let what = format!("modify({s}) through the {}{after}", h.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let refused = dv.o.refuses(si(s));
        let r = h.raw.modify(s);
        if !refused {
            dv.ev(Ev::Modify(si(s), h.b));
        }
        self.verify(dv, &what, &r, refused, Moves::Nothing, before)?;
        Ok(!refused)
    }

    fn do_sync(&mut self, dv: &mut Dv, h: &Handle, t: Side) -> Result<(), String> {
        let what = format!("sync({t}) through the {}", h.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let r = h.raw.sync(t);
        dv.ev(Ev::Sync(si(t), h.b));
        self.verify(dv, &what, &r, false, Moves::Into(t, h.b.vol()), before)?;
        self.t.syncs += 1;
        self.check(dv, t, &[(h, true)], &what)
    }

    fn do_fill(&mut self, dv: &mut Dv, h: &Handle, s: Side) -> Result<(), String> {
        let v = fill_value(&mut self.rng, dv.es);
        let what = format!("fill({s}, {}) through the {}", hex(&v, dv.es), h.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let refused = dv.o.refuses(si(s));
        let r = h.raw.fill(s, &v[..dv.es]);
        if !refused {
            dv.ev(Ev::Write(si(s), h.b, Src::Fill(v)));
            dv.ev(Ev::Modify(si(s), h.b));
        }
        self.verify(dv, &what, &r, refused, Moves::Nothing, before)
    }

    /// `view_fill`: the program's own write of the handle's box, unmarked.
    fn do_view_fill(&mut self, dv: &mut Dv, h: &Handle, s: Side) -> Result<(), String> {
        let v = fill_value(&mut self.rng, dv.es);
        let what = format!("view_fill({s}, {}) through the {}", hex(&v, dv.es), h.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let r = h.raw.view_fill(s, &v[..dv.es]);
        dv.ev(Ev::Write(si(s), h.b, Src::Fill(v)));
        self.verify(dv, &what, &r, false, Moves::Nothing, before)
    }

    /// The program writes a pattern over `b` (inside `h`'s box) of side `s`,
    /// then, with `mark`, calls `modify(s)` through `h`.
    fn do_write(&mut self, dv: &mut Dv, h: &Handle, s: Side, b: Bx, mark: bool) -> Result<(), String> {
        let seed = self.rng.next();
        self.note(format!(
            "dv{} write a pattern over {} of the {s} side{}",
            dv.id,
            b.show(dv.rank),
            if mark { format!(", then modify({s}) through the {}", h.name(dv.rank)) } else { ", unmarked".into() }
        ));
        dv.track(corners(&b, &dv.ext))?;
        self.paint_box(dv, s, b, seed)?;
        dv.ev(Ev::Write(si(s), b, Src::Pat(seed)));
        self.t.count(if mark { "writes marked at once" } else { "writes left unmarked" });
        if mark {
            self.do_modify(dv, h, s, " after a write")?;
        }
        Ok(())
    }

    /// The halo pattern in one call: write part of `h`'s box of side `s`, then `push(s)`.
    fn do_push(&mut self, dv: &mut Dv, h: &Handle, s: Side) -> Result<(), String> {
        let b = clip(&mut self.rng, h.b, WRITE_CAP / dv.es);
        self.do_write(dv, h, s, b, false)?;
        let t = s.other();
        let what = format!("push({s}) through the {} after a write over {}", h.name(dv.rank), b.show(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let refused = dv.o.refuses(si(s));
        let r = h.raw.push(s);
        if !refused {
            dv.ev(Ev::Modify(si(s), h.b));
            dv.ev(Ev::Sync(si(t), h.b));
        }
        self.verify(dv, &what, &r, refused, Moves::Into(t, h.b.vol()), before)?;
        if !refused {
            self.t.syncs += 1;
            self.check(dv, t, &[(h, true)], &what)?;
        }
        Ok(())
    }

    /// An access with a mode; then the program writes the box for a writing mode.
    fn do_access(&mut self, dv: &mut Dv, h: &Handle, s: Side, mode: Access) -> Result<(), String> {
        let what = format!("access({s}, {mode:?}) through the {}", h.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let r = h.raw.access(s, mode);
        match mode {
            Access::Read => dv.ev(Ev::Sync(si(s), h.b)),
            Access::ReadWrite | Access::Write => {
                dv.ev(Ev::Sync(si(s), h.b));
                dv.ev(Ev::Modify(si(s), h.b));
            }
            Access::Overwrite => dv.ev(Ev::Overwrite(si(s), h.b)),
        }
        let moves = if mode == Access::Overwrite { Moves::Nothing } else { Moves::Into(s, h.b.vol()) };
        self.verify(dv, &what, &r, false, moves, before)?;
        let v = r.map_err(|e| format!("{what}: {e}"))?;
        self.check_view(dv, h, s, &v, &what)?;
        if mode != Access::Overwrite {
            self.t.syncs += 1;
            self.check(dv, s, &[(h, true)], &what)?;
        }
        if mode != Access::Read {
            if h.b.vol() * dv.es <= WRITE_CAP {
                let seed = self.rng.next();
                self.note(format!("dv{} write a pattern over the view it returned", dv.id));
                self.paint_box(dv, s, h.b, seed)?;
                dv.ev(Ev::Write(si(s), h.b, Src::Pat(seed)));
            } else {
                let fv = fill_value(&mut self.rng, dv.es);
                self.note(format!("dv{} fill the view it returned with {}", dv.id, hex(&fv, dv.es)));
                // SAFETY: this thread is the only user of the DualView; nothing else reads the view meanwhile.
                trace(unsafe { v.fill(&fv[..dv.es]) }, "fill of the view access returned")?;
                dv.ev(Ev::Write(si(s), h.b, Src::Fill(fv)));
            }
        }
        Ok(())
    }

    fn do_clear(&mut self, dv: &mut Dv, h: &Handle) -> Result<(), String> {
        let what = format!("clear_sync_state through the {}", h.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let r = h.raw.clear_sync_state();
        dv.ev(Ev::Clear);
        self.verify(dv, &what, &r, false, Moves::Nothing, before)
    }

    /// One random operation on `dv`; false when it dropped the DualView.
    fn operate(&mut self, dv: &mut Dv) -> Result<bool, String> {
        let total: u32 = OPS.iter().map(|o| o.0).sum();
        let mut x = self.rng.below(total as usize) as u32;
        let op = OPS.iter().find(|o| if x < o.0 { true } else { x -= o.0; false }).expect("weights").1;
        match op {
            Op::Modify => {
                let (h, s) = (self.pick(dv), self.rng.side());
                self.do_modify(dv, &h, s, "")?;
            }
            Op::Sync => {
                let (h, t) = (self.pick(dv), self.rng.side());
                self.do_sync(dv, &h, t)?;
            }
            Op::SyncOn => self.sync_on(dv)?,
            Op::Fill => {
                let (h, s) = (self.pick(dv), self.rng.side());
                self.do_fill(dv, &h, s)?;
            }
            Op::ViewFill => {
                let (h, s) = (self.pick(dv), self.rng.side());
                self.do_view_fill(dv, &h, s)?;
            }
            Op::HostWrite | Op::DeviceWrite => {
                let s = if matches!(op, Op::HostWrite) { Side::Host } else { Side::Device };
                let h = self.pick(dv);
                let b = clip(&mut self.rng, h.b, WRITE_CAP / dv.es);
                let mark = self.rng.chance(0.6);
                self.do_write(dv, &h, s, b, mark)?;
            }
            Op::Push => {
                let (h, s) = (self.pick(dv), self.rng.side());
                self.do_push(dv, &h, s)?;
            }
            Op::Access => {
                let (h, s) = (self.pick(dv), self.rng.side());
                let mode = [Access::Read, Access::ReadWrite, Access::Write, Access::Overwrite][self.rng.below(4)];
                self.do_access(dv, &h, s, mode)?;
            }
            Op::Clear => {
                let h = self.pick(dv);
                self.do_clear(dv, &h)?;
            }
            Op::Subview => self.subview(dv)?,
            Op::DropSub => {
                if !dv.subs.is_empty() {
                    let k = self.rng.below(dv.subs.len());
                    self.note(format!("dv{} drop subview {}", dv.id, dv.subs[k].b.show(dv.rank)));
                    dv.subs.swap_remove(k);
                }
            }
            Op::Resize | Op::Realloc => return self.reshape(dv, matches!(op, Op::Resize)),
            Op::Check => {
                self.note(format!("dv{} check every handle", dv.id));
                self.check_all(dv, "check")?;
            }
            Op::Marks => self.marks(dv)?,
            Op::Halo => self.halo(dv)?,
            Op::Fragment => return self.fragment(dv),
            Op::DeepCopy => self.deep_copy(dv)?,
        }
        Ok(true)
    }

    /// Several regions written before any mark, then marked in any order
    /// (each mark sometimes followed by a sync of the other side through the
    /// same handle), through subviews that often overlap.
    fn marks(&mut self, dv: &mut Dv) -> Result<(), String> {
        let s = self.rng.side();
        self.t.count("several regions written, then marked");
        if dv.o.refuses(si(s)) && self.rng.chance(0.7) {
            let p = dv.handle();
            self.do_sync(dv, &p, s)?; // clears Kokkos' other counter, so that the marks land
        }
        let k = self.rng.range(2, 6);
        let mut hs: Vec<Handle> = Vec::new();
        for _ in 0..k {
            let h = match self.rng.below(10) {
                0 => dv.handle(),
                1..=3 if !dv.subs.is_empty() => dv.subs[self.rng.below(dv.subs.len())].clone(),
                _ => {
                    let b = rand_box(&mut self.rng, &dv.ext, dv.rank, hs.last().map(|h| &h.b));
                    let h = dv.sub(b)?;
                    if hs.last().is_some_and(|x| x.b.meets(&b)) {
                        self.t.count("marks through overlapping subviews");
                    }
                    h
                }
            };
            let b = clip(&mut self.rng, h.b, WRITE_CAP / dv.es);
            self.do_write(dv, &h, s, b, false)?;
            hs.push(h);
        }
        for i in (1..hs.len()).rev() {
            hs.swap(i, self.rng.below(i + 1));
        }
        for h in &hs {
            self.do_modify(dv, h, s, " (one of several regions written)")?;
            if self.rng.chance(0.5) {
                self.do_sync(dv, h, s.other())?;
            }
        }
        if self.rng.chance(0.3) {
            let h = hs[self.rng.below(hs.len())].clone();
            if h.parent {
            } else if dv.subs.len() >= MAX_SUBS {
                let k = self.rng.below(dv.subs.len());
                dv.subs[k] = h;
            } else {
                dv.subs.push(h);
            }
        }
        Ok(())
    }

    /// The halo idiom of issue 30: a kernel writes side K and marks it, the row
    /// to send is synced to side O, two ghost rows are written on O, then each
    /// is modified on O and synced to K through its own row subview.
    fn halo(&mut self, dv: &mut Dv) -> Result<(), String> {
        let a = dv.slowest();
        let n = dv.ext[a];
        if n < 3 {
            return self.marks(dv);
        }
        self.t.count("halo steps");
        let k = self.rng.side();
        let o = k.other();
        let p = dv.handle();
        if self.rng.chance(0.7) {
            if dv.o.refuses(si(k)) {
                self.do_sync(dv, &p, k)?;
            }
            let b = clip(&mut self.rng, p.b, WRITE_CAP / dv.es);
            self.do_write(dv, &p, k, b, true)?;
        }
        let send = self.rng.below(n);
        let (g1, g2) = if self.rng.chance(0.5) {
            (0, n - 1)
        } else {
            let g1 = self.rng.below(n);
            (g1, (g1 + 1 + self.rng.below(n - 1)) % n)
        };
        let row = dv.row(a, send)?;
        self.do_sync(dv, &row, o)?;
        let ghosts = [dv.row(a, g1)?, dv.row(a, g2)?];
        for g in &ghosts {
            let b = clip(&mut self.rng, g.b, WRITE_CAP / dv.es);
            self.do_write(dv, g, o, b, false)?; // MPI receives into the ghost row
        }
        let order = if self.rng.chance(0.5) { [0, 1] } else { [1, 0] };
        for i in order {
            self.do_modify(dv, &ghosts[i], o, " (a received ghost row)")?;
            self.do_sync(dv, &ghosts[i], k)?;
        }
        Ok(())
    }

    /// A burst of single-element and short-row subview calls between
    /// whole-array calls: the map passes its box count to a bitmap. Often
    /// ended by a resize of the fragmented map; false when that dropped the DualView.
    fn fragment(&mut self, dv: &mut Dv) -> Result<bool, String> {
        let n = self.rng.range(80, if cfg!(debug_assertions) { 200 } else { 400 });
        let inner = dv.inner();
        let ext = dv.ext;
        // Where the burst's boxes start: their neighbourhoods are tracked now, in one replay.
        let anchors: Vec<[usize; R]> = (0..n).map(|_| std::array::from_fn(|a| self.rng.below(ext[a]))).collect();
        let mut pts = Vec::new();
        for p in &anchors {
            for d in 0..10 {
                let mut q = *p;
                q[inner] = (p[inner] + d).wrapping_sub(1);
                pts.push(q);
            }
            for a in (0..dv.rank).filter(|&a| a != inner) {
                for q in [p[a].wrapping_sub(1), p[a] + 1, p[a] + 2, p[a] + 3] {
                    let mut x = *p;
                    x[a] = q;
                    pts.push(x);
                }
            }
        }
        dv.track(pts.into_iter().filter(|q| inside(q, &ext)))?;
        let s = self.rng.side(); // the side most small syncs bring up to date
        let p = dv.handle();
        self.note(format!("dv{} a burst of {n} small subview calls", dv.id));
        self.t.count("fragmenting bursts");
        // Mostly the whole array newer on the other side first: each small sync then leaves a hole.
        match self.rng.below(20) {
            0..=11 => {
                if dv.o.refuses(si(s.other())) {
                    self.do_sync(dv, &p, s.other())?;
                }
                self.do_modify(dv, &p, s.other(), " (before a burst)")?;
            }
            12..=16 => {
                let t = self.rng.side();
                self.do_sync(dv, &p, t)?;
            }
            _ => {}
        }
        for step in 0..n {
            let a0 = anchors[self.rng.below(anchors.len())];
            let mut b = Bx { lo: a0, hi: std::array::from_fn(|a| a0[a] + 1) };
            match self.rng.below(10) {
                0..=5 => {}
                6..=8 => b.hi[inner] = (a0[inner] + self.rng.range(2, 9)).min(ext[inner]),
                _ => {
                    let a = self.rng.below(dv.rank);
                    b.hi[a] = (a0[a] + self.rng.range(2, 4)).min(ext[a]);
                }
            }
            let h = dv.sub(b)?;
            let side = self.rng.side();
            match self.rng.below(20) {
                0..=10 => {
                    let t = if self.rng.chance(0.85) { s } else { s.other() };
                    self.do_sync(dv, &h, t)?;
                }
                11..=13 => self.do_write(dv, &h, side, b, true)?,
                14 => self.do_write(dv, &h, side, b, false)?,
                15..=16 => {
                    self.do_modify(dv, &h, side, "")?;
                }
                17 => self.do_fill(dv, &h, side)?,
                18 => self.do_push(dv, &h, side)?,
                _ => {
                    let mode = [Access::Read, Access::ReadWrite, Access::Write, Access::Overwrite][self.rng.below(4)];
                    self.do_access(dv, &h, side, mode)?;
                }
            }
            if step % 40 == 39 && self.rng.chance(0.3) {
                self.check_all(dv, "check within a burst")?;
            }
        }
        let m = dv.parent.coherence();
        if m.bitmap {
            self.t.count("bursts that left a bitmap");
        } else if m.boxes > 32 {
            self.t.count("bursts that left more than 32 boxes");
        }
        self.check_all(dv, "check after a burst")?;
        // Then, mostly, whole-array calls: a resize of the fragmented map,
        // and whole syncs, which copy what the map says and so show a lost
        // or coarsened region at every tracked element.
        let mut p = p;
        if self.rng.chance(0.4) {
            self.t.count(if m.bitmap { "resizes of a bitmap map" } else { "resizes after a burst" });
            if !self.reshape(dv, true)? {
                return Ok(false);
            }
            p = dv.handle();
        }
        if self.rng.chance(0.8) {
            let t = self.rng.side();
            self.do_sync(dv, &p, t)?;
            if self.rng.chance(0.6) {
                self.do_sync(dv, &p, t.other())?;
            }
        }
        Ok(true)
    }

    /// deep_copy between equal boxes: of another DualView of the same rank and
    /// element size into this one, or of two disjoint boxes of this one.
    fn deep_copy(&mut self, dv: &mut Dv) -> Result<(), String> {
        let others: Vec<usize> = (0..self.dvs.len()).filter(|&k| self.dvs[k].rank == dv.rank && self.dvs[k].es == dv.es).collect();
        if !others.is_empty() && self.rng.chance(0.6) {
            let mut src = self.dvs.swap_remove(others[self.rng.below(others.len())]);
            let into = self.rng.chance(0.5);
            let r = if into { self.deep_copy_between(dv, Some(&mut src)) } else { self.deep_copy_between(&mut src, Some(dv)) };
            let r = r.and_then(|()| self.flags(&src, "after a deep copy").and_then(|()| self.flags(dv, "after a deep copy")));
            self.dvs.push(src);
            r
        } else {
            self.deep_copy_between(dv, None)
        }
    }

    fn deep_copy_between(&mut self, dst: &mut Dv, mut src: Option<&mut Dv>) -> Result<(), String> {
        let rank = dst.rank;
        let src_ext = src.as_ref().map_or(dst.ext, |s| s.ext);
        let same_layout = src.as_ref().is_none_or(|s| s.layout == dst.layout);
        let mut shape = [1usize; R];
        for a in 0..rank {
            let m = dst.ext[a].min(src_ext[a]);
            shape[a] = if self.rng.chance(0.3) { m } else { 1 + self.rng.below(m) };
        }
        let cap = if same_layout { WRITE_CAP / dst.es } else { DEEP_COPY_STRIDED };
        while shape.iter().product::<usize>() > cap {
            let a = (0..R).max_by_key(|&a| shape[a]).expect("R > 0");
            shape[a] = shape[a].div_ceil(2);
        }
        let place = |rng: &mut Rng, ext: &[usize; R]| {
            let lo: [usize; R] = std::array::from_fn(|a| rng.below(ext[a] - shape[a] + 1));
            Bx { lo, hi: std::array::from_fn(|a| lo[a] + shape[a]) }
        };
        let db = place(&mut self.rng, &dst.ext);
        let mut sb = place(&mut self.rng, &src_ext);
        if src.is_none() {
            let mut tries = 0;
            while sb.meets(&db) && tries < 8 {
                sb = place(&mut self.rng, &src_ext);
                tries += 1;
            }
            if sb.meets(&db) {
                return Ok(()); // no disjoint place for this shape
            }
        }
        let dh = if db == dst.whole() { dst.handle() } else { dst.sub(db)? };
        // Track, in the source, the image of every tracked element of the
        // destination box: the copy keeps them known.
        let image = |p: &[usize; R]| -> [usize; R] { std::array::from_fn(|a| sb.lo[a] + p[a] - db.lo[a]) };
        let mut imgs: Vec<[usize; R]> = dst.o.elems.iter().map(|e| arr(&e.idx)).filter(|p| db.holds(p)).map(|p| image(&p)).collect();
        imgs.extend(corners(&sb, &src_ext));
        let sh = match src.as_deref_mut() {
            Some(s) => {
                s.track(imgs)?;
                if sb == s.whole() { s.handle() } else { s.sub(sb)? }
            }
            None => {
                dst.track(imgs)?;
                dst.sub(sb)?
            }
        };
        let sid = src.as_ref().map_or(dst.id, |s| s.id);
        let what = format!("deep_copy(dv{} {} <- dv{sid} {})", dst.id, db.show(rank), sb.show(rank));
        self.note(what.clone());
        self.t.count(if src.is_some() { "deep copies between DualViews" } else { "deep copies within a DualView" });
        let before = dst.parent.stats();
        let src_before = src.as_ref().map(|s| s.parent.stats());
        let r = RawDualView::deep_copy(&dh.raw, &sh.raw);
        let map = |i: &[usize]| -> Vec<usize> { (0..R).map(|a| sb.lo[a] + i[a] - db.lo[a]).collect() };
        let o = match src.as_deref() {
            Some(s) => oracle::deep_copy(&mut dst.o, Some(&s.o), &ob(&db), map),
            None => oracle::deep_copy(&mut dst.o, None, &ob(&db), map),
        };
        if let Ok(p) = o {
            dst.log(Ev::CopyInto(p, db));
            dst.copied_into = true;
        }
        self.verify(dst, &what, &r, o.is_err(), Moves::Nothing, before)?;
        if let (Some(s), Some(b)) = (src.as_deref(), src_before) {
            let a = s.parent.stats();
            if a.to_host.bytes != b.to_host.bytes || a.to_device.bytes != b.to_device.bytes {
                return Err(format!("{what}: the source moved bytes between its sides"));
            }
        }
        Ok(())
    }

    /// A few async syncs on streams (through the parent or subviews), then a
    /// blocking call: a stream synchronize, or a blocking sync; then each
    /// synced box is checked.
    fn sync_on(&mut self, dv: &mut Dv) -> Result<(), String> {
        let n = self.rng.range(1, 4);
        let calls: Vec<(Handle, Side, (Stream, usize, bool))> = (0..n)
            .map(|_| {
                let h = self.pick(dv);
                let t = self.rng.side();
                (h, t, self.stream())
            })
            .collect();
        if calls.iter().any(|c| c.2 .2) {
            // A non-blocking stream is not ordered after the legacy default
            // stream, where dualview's device fills (memsets) and this test's
            // raw cuMemcpyHtoD run and may still be in flight: order them, as
            // a CUDA program must.
            cuda::ctx_sync()?;
        }
        for (h, t, (stream, raw, _)) in &calls {
            let what = format!("sync_on({t}, stream {raw:#x}) through the {}", h.name(dv.rank));
            self.note(format!("dv{} {what}", dv.id));
            let before = dv.parent.stats();
            let r = h.raw.sync_on(*t, *stream);
            dv.ev(Ev::Sync(si(*t), h.b));
            self.verify(dv, &what, &r, false, Moves::Into(*t, h.b.vol()), before)?;
            self.t.syncs += 1;
        }
        if self.rng.chance(0.5) {
            let t = self.rng.side();
            let p = dv.handle();
            self.do_sync(dv, &p, t)?;
        } else {
            self.note(format!("dv{} synchronize the streams", dv.id));
            for (_, _, (_, raw, _)) in &calls {
                if self.cuda.is_some() {
                    cuda::stream_sync(*raw)?;
                }
            }
        }
        // Only syncs since: each synced box still holds the newest values on its side.
        for (h, t, _) in &calls {
            self.check(dv, *t, &[(h, true)], "after sync_on")?;
        }
        Ok(())
    }

    fn subview(&mut self, dv: &mut Dv) -> Result<(), String> {
        let from = if dv.subs.is_empty() || self.rng.chance(0.6) { dv.handle() } else { dv.subs[self.rng.below(dv.subs.len())].clone() };
        let mut slices = Vec::new();
        let mut b = from.b;
        let mut axes = Vec::new();
        for &a in &from.axes {
            let e = from.b.hi[a] - from.b.lo[a];
            let lo0 = from.b.lo[a];
            match self.rng.below(10) {
                0..=2 => {
                    slices.push(Slice::All);
                    axes.push(a);
                }
                3..=6 => {
                    let lo = self.rng.below(e);
                    let hi = self.rng.range(lo + 1, e + 1);
                    slices.push(Slice::Range(lo, hi));
                    (b.lo[a], b.hi[a]) = (lo0 + lo, lo0 + hi);
                    axes.push(a);
                }
                7 => {
                    let lo = self.rng.below(e);
                    slices.push(Slice::From(lo));
                    b.lo[a] = lo0 + lo;
                    axes.push(a);
                }
                _ => {
                    let i = self.rng.below(e);
                    slices.push(Slice::Index(i));
                    (b.lo[a], b.hi[a]) = (lo0 + i, lo0 + i + 1);
                }
            }
        }
        let what = format!("subview {slices:?} of the {}", from.name(dv.rank));
        self.note(format!("dv{} {what}", dv.id));
        let raw = trace(from.raw.subview(&slices), &what)?;
        let want: Vec<usize> = axes.iter().map(|&a| b.hi[a] - b.lo[a]).collect();
        if raw.extents().as_slice() != want.as_slice() {
            return Err(format!("{what}: extents {:?}, the soak says {want:?}", raw.extents().as_slice()));
        }
        dv.track(corners(&b, &dv.ext))?;
        let h = Handle { raw, b, axes, parent: false };
        if dv.subs.len() >= MAX_SUBS {
            let k = self.rng.below(dv.subs.len());
            dv.subs[k] = h;
        } else {
            dv.subs.push(h);
        }
        self.flags(dv, &what)
    }

    /// Resize (grow 1.1x to 2x along some axes, shrink, or both) or realloc;
    /// false when the DualView was dropped right after (while its new mirror registers).
    fn reshape(&mut self, dv: &mut Dv, keep: bool) -> Result<bool, String> {
        let rank = dv.rank;
        let old = dv.ext;
        let slowest = dv.slowest();
        let mode = self.rng.below(4);
        let mut ext = old;
        for a in 0..rank {
            let grow = 1.1 + 0.9 * self.rng.unit();
            let shrink = 0.5 + 0.45 * self.rng.unit();
            let f = match mode {
                0 if a == slowest => grow, // in place where the space can
                0 => 1.0,
                1 if self.rng.chance(0.6) => grow,
                2 if self.rng.chance(0.6) => shrink,
                3 => if self.rng.chance(0.5) { grow } else { shrink },
                _ => 1.0,
            };
            let n = ((old[a] as f64) * f).round() as usize;
            ext[a] = if f > 1.0 { n.max(old[a] + 1) } else { n.max(1) };
        }
        let others = self.live_bytes();
        let budget = (2 * self.cfg.max_bytes).saturating_sub(others).min(self.cfg.max_bytes);
        while ext.iter().product::<usize>() * dv.es > budget {
            let a = (0..rank).max_by_key(|&a| ext[a]).expect("rank > 0");
            if ext[a] == 1 {
                break;
            }
            ext[a] = (ext[a] * 3 / 4).max(1);
        }
        let drop_after = self.rng.chance(0.08);
        if drop_after {
            // The end of its life as far as values go: check everything first.
            self.check_all(dv, "check before a last resize")?;
        }
        let m = dv.parent.coherence();
        let what = format!("{}({:?} -> {:?}) of a map of {} boxes{}", if keep { "resize" } else { "realloc" }, &old[..rank], &ext[..rank], m.boxes, if m.bitmap { " (a bitmap)" } else { "" });
        self.note(format!("dv{} {what}", dv.id));
        let before = dv.parent.stats();
        let e = DynRank::new(&ext[..rank]).expect("rank");
        let r = if keep { dv.parent.resize(&e) } else { dv.parent.realloc(&e, true) };
        if keep {
            let (grew, shrank) = ((0..rank).any(|a| ext[a] > old[a]), (0..rank).any(|a| ext[a] < old[a]));
            self.t.count(match (grew, shrank) {
                (true, false) => "resize growing",
                (false, true) => "resize shrinking",
                (true, true) => "resize growing and shrinking",
                _ => "resize to the same extents",
            });
            // New elements: a sample of them, and the seam along each axis that changed.
            let room = MAX_TRACKED.saturating_sub(dv.tracked.len()).min(SAMPLE / 2);
            let mut add = sample(&mut self.rng, &ext, Some(&old), room);
            let mut seam = Vec::new();
            for a in (0..rank).filter(|&a| ext[a] != old[a]) {
                for _ in 0..8 {
                    let mut p: [usize; R] = std::array::from_fn(|x| self.rng.below(ext[x]));
                    for c in [old[a].min(ext[a]).wrapping_sub(1), old[a].min(ext[a]), ext[a] - 1] {
                        p[a] = c;
                        seam.push(p);
                    }
                }
            }
            add.extend(seam.iter().filter(|p| inside(p, &ext) && !inside(p, &old)));
            add.sort_unstable();
            add.dedup();
            add.truncate(MAX_TRACKED.saturating_sub(dv.tracked.len()));
            dv.ev_adding(Ev::Resize(old, ext), &add);
            dv.tracked.retain(|p| inside(p, &ext));
            dv.tracked.extend(add.iter().copied());
            dv.ext = ext;
            dv.track(seam.into_iter().filter(|p| inside(p, &ext)))?;
        } else {
            let mut pts = sample(&mut self.rng, &ext, None, SAMPLE);
            pts.extend(corners(&Bx::whole(&ext), &ext));
            dv.tracked = pts.into_iter().collect();
            dv.o.realloc(dv.tracked.iter().map(|p| p.to_vec()), true);
            (dv.log, dv.log_ext, dv.copied_into) = (Some(Vec::new()), ext, false);
            dv.ext = ext;
        }
        dv.subs.clear();
        self.verify(dv, &what, &r, false, Moves::Nothing, before)?;
        if dv.parent.extents().as_slice() != &ext[..rank] {
            return Err(format!("{what}: extents {:?} afterwards", dv.parent.extents().as_slice()));
        }
        if drop_after {
            self.note(format!("dv{} drop right after {what}", dv.id));
            self.t.count("drop right after resize or realloc");
            return Ok(false);
        }
        Ok(true)
    }

    /// Write the pattern of `seed` over box `b` of side `s` (the program's own write).
    fn paint_box(&mut self, dv: &Dv, s: Side, b: Bx, seed: u64) -> Result<(), String> {
        let inner = dv.inner();
        match s {
            Side::Host => {
                let hv = trace(dv.parent.view(Side::Host), "view(host)")?;
                paint(&Mem::of(&hv, [0; R]), &b, seed, inner);
            }
            Side::Device => {
                let dview = trace(dv.parent.view(Side::Device), "view(device)")?;
                let mut pieces = Vec::new();
                split(b, &dv.slow_to_fast(), CHUNK / dv.es, &mut pieces);
                for p in pieces {
                    let m = trace(Mapping::new(dv.layout, DynRank::new(&p.ext()[..dv.rank]).expect("rank")), "mapping")?;
                    let stage = trace(View::new("soak-stage", dv.elem(), m, Space::HOST, false), "staging view")?;
                    paint(&Mem::of(&stage, p.lo), &p, seed, inner);
                    let dst = trace(dview.subview(&p.slices(dv.rank)), "device subview")?;
                    let (ds, ss) = (dst.mapping().strides().as_slice(), stage.mapping().strides().as_slice());
                    let contiguous = (0..dv.rank).all(|a| p.ext()[a] <= 1 || ds[a] == ss[a]);
                    let bytes = p.vol() * dv.es;
                    if contiguous && self.cuda.is_some() {
                        // SAFETY: `bytes` of the live device allocation from `dst`'s first element, and of the staging view.
                        unsafe { cuda::htod(dst.data(), stage.data(), bytes)? };
                    } else if contiguous {
                        // SAFETY: the test device is host memory; `bytes` of it from `dst`'s first element.
                        unsafe { std::ptr::copy_nonoverlapping(stage.data(), dst.data(), bytes) };
                    } else {
                        // SAFETY: this thread is the only user of the DualView's memory.
                        trace(unsafe { dst.copy_from(&stage) }, "staged device write")?;
                    }
                }
            }
        }
        Ok(())
    }

    fn failure(&self, e: &str) -> String {
        let mut s = format!(
            "soak FAILED in thread {} (seed {:#x}) at operation {} on {}:\n  {e}\n  the last calls:\n",
            self.thread, self.seed, self.t.ops, self.cfg.space
        );
        for l in &self.log {
            let _ = writeln!(s, "    {l}");
        }
        let _ = write!(
            s,
            "  replay: DV_SOAK_SEED={:#x} DV_SOAK_THREADS=1 DV_SOAK_MAX_BYTES={} (and DV_SOAK_SECONDS long enough to reach operation {})",
            self.seed, self.cfg.max_bytes, self.t.ops
        );
        s
    }
}

fn say(s: &str) {
    use std::io::Write;
    // Past the test harness's capture.
    let _ = writeln!(std::io::stderr(), "{s}");
}

#[test]
fn soak() {
    let cfg = Config::from_env();
    let seeds: Vec<String> = cfg.seeds.iter().map(|s| format!("{s:#x}")).collect();
    let device = if cfg.cuda { format!("{} (a GPU)", cfg.space) } else { format!("{} (no GPU here)", cfg.space) };
    say(&format!(
        "soak: {} thread(s) on {device} for {} s, arrays up to {} bytes",
        cfg.seeds.len(),
        cfg.seconds,
        cfg.max_bytes
    ));
    for (k, s) in seeds.iter().enumerate() {
        say(&format!("soak: thread {k} seed {s} (replay alone: DV_SOAK_SEED={s} DV_SOAK_THREADS=1)"));
    }
    // Registered blocks another test left in the pool are not this soak's.
    dualview::memory::pool_release();
    dualview::memory::settle();
    let registered = dualview::memory::registered_host_bytes();
    // What device 0 holds, not counting the small blocks the engine keeps for reuse (as on CUDA).
    let held = || {
        use dualview::memory::test_device::{kept_bytes, used_bytes};
        used_bytes(0).unwrap_or(0) - kept_bytes(0).unwrap_or(0)
    };
    let used = held();
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs_f64(cfg.seconds);
    let stop = AtomicBool::new(false);
    let totals = Mutex::new(Totals::default());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = cfg
            .seeds
            .iter()
            .enumerate()
            .map(|(k, &seed)| {
                let (cfg, stop, totals) = (&cfg, &stop, &totals);
                scope.spawn(move || -> Result<(), String> {
                    let mut soak = match Soak::new(cfg, k, seed) {
                        Ok(s) => s,
                        Err(e) => return Err(format!("thread {k} (seed {seed:#x}): {e}")),
                    };
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| soak.run(deadline, stop)));
                    totals.lock().unwrap_or_else(|e| e.into_inner()).add(&soak.t);
                    let e = match r {
                        Ok(Ok(())) => return Ok(()),
                        Ok(Err(e)) => e,
                        Err(p) => {
                            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                            format!("panic: {}", msg.unwrap_or_default())
                        }
                    };
                    stop.store(true, Ordering::Relaxed);
                    Err(soak.failure(&e))
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().expect("a soak thread").err()).collect()
    });
    for f in &failures {
        say(f);
    }
    let t = totals.into_inner().unwrap_or_else(|e| e.into_inner());
    let cov: Vec<String> = t.cov.iter().map(|(k, v)| format!("{k} {v}")).collect();
    say(&format!("soak: coverage: {}", cov.join(", ")));
    say(&format!(
        "soak: {} operations ({} DualView calls), {} syncs, {} bytes moved, {} elements compared against the ledger, most boxes {}, bitmap {}, {} refusals matched with Kokkos, {} threads, seeds [{}], {:.1} s on {}",
        t.ops,
        t.calls,
        t.syncs,
        t.moved,
        t.compared,
        t.most_boxes,
        if t.bitmaps > 0 { format!("reached (after {} calls)", t.bitmaps) } else { "not reached".into() },
        t.refusals,
        cfg.seeds.len(),
        seeds.join(", "),
        t0.elapsed().as_secs_f64(),
        cfg.space
    ));
    let firsts: Vec<&str> = failures.iter().filter_map(|f| f.lines().nth(1)).collect();
    assert!(failures.is_empty(), "{} soak thread(s) failed (seeds, operations and replay lines above):\n{}", failures.len(), firsts.join("\n"));
    let pool = dualview::memory::pool_stats();
    say(&format!("soak: pool of registered blocks: {} kept, {} reused, {} released, {} bytes held at the end", pool.kept, pool.reused, pool.released, pool.held_bytes));
    dualview::memory::pool_release();
    dualview::memory::settle();
    assert_eq!(dualview::memory::registered_host_bytes(), registered, "every mirror registration ended with its DualView or in the pool");
    assert_eq!(held(), used, "every test-device allocation was freed");
}

/// The soak's late tracking: an element added mid-program and replayed from
/// the log has the ledger state of one the oracle tracked from the start
/// (random programs of every event kind on a small array, no DualView).
#[test]
fn a_replayed_element_has_the_state_of_one_tracked_from_the_start() {
    for seed in 0..200u64 {
        let mut rng = Rng(mix(seed));
        let es = [1usize, 8, 16][rng.below(3)];
        let ext0: [usize; R] = [1 + rng.below(6), 1 + rng.below(6), 1 + rng.below(3)];
        let mut ext = ext0;
        let all = |e: &[usize; R]| sample(&mut Rng(0), e, None, usize::MAX / 4);
        let mut o = Oracle::new(all(&ext).iter().map(|p| p.to_vec()), Some(ZERO));
        let mut log = Vec::new();
        for _ in 0..60 {
            let b = rand_box(&mut rng, &ext, R, None);
            let s = rng.below(2);
            let ev = match rng.below(12) {
                0..=2 => Ev::Write(s, b, if rng.chance(0.5) { Src::Pat(rng.next()) } else { Src::Fill(fill_value(&mut rng, es)) }),
                3..=5 if !o.refuses(s) => Ev::Modify(s, b),
                6..=8 => Ev::Sync(s, b),
                9 => Ev::Overwrite(s, b),
                10 => Ev::Clear,
                11 => {
                    let new: [usize; R] = std::array::from_fn(|_| 1 + rng.below(7));
                    let ev = Ev::Resize(ext, new);
                    let add = sample(&mut Rng(0), &new, Some(&ext), usize::MAX / 4);
                    apply(&mut o, &ev, es, &add);
                    log.push(ev);
                    ext = new;
                    continue;
                }
                _ => continue,
            };
            apply(&mut o, &ev, es, &[]);
            log.push(ev);
        }
        let pts: Vec<[usize; R]> = o.elems.iter().map(|e| arr(&e.idx)).filter(|_| rng.chance(0.5)).collect();
        let rep = replay(&log, &ext0, es, &pts);
        assert_eq!((rep.counters, rep.elems.len()), (o.counters, pts.len()), "seed {seed}");
        for e in &rep.elems {
            let m = o.at(&e.idx).expect("tracked");
            assert!(same(e, m), "seed {seed}: the replay gives {e:?}, the oracle {m:?}");
        }
    }
}
