//! Model-based soak test (issue 18): random programs of DualView calls, on
//! `Space::cuda(0)` when a GPU is present and on `Space::test_device(0)`
//! otherwise, on several host threads (each with its own DualViews and its own
//! seed). After every call the result is checked against a reference model:
//! the return value (Ok or the error kind), `need_sync` of both sides, and the
//! bytes the call moved (`stats()`), and periodically (always at the end of a
//! DualView's life) every element of both sides.
//!
//! The model, per DualView: which side *owns* each element (holds a change
//! the other side lacks; at most one side owns anything at a time), a flag
//! `rest` (a subview sync left owned elements outside its box), and what each
//! side holds, as layers of boxes painted in order (zero, a fill value, or a
//! pattern that mixes the writing operation with the element's index).
//! Region-exact rules (DESIGN.md 5.3, docs/SEMANTICS.md):
//! - `modify(S)` through a handle of box B: if the other side O owns
//!   anything and `rest` is false, `ConcurrentModification`; if `rest` is
//!   true, O's elements are first copied to S. Then B is S-owned, `rest` false.
//! - `sync(T)` through B copies the O-owned elements inside B, and only
//!   those; O keeps the rest (`rest` true while it owns any).
//! - `fill(S)` = that rule, the fill, and B S-owned; `view_fill` changes no owner.
//! - `access`: Read = sync; ReadWrite = sync + modify; Write = all S-owned
//!   without a copy (a parent) or sync + modify (a subview).
//! - `resize` keeps value and owner in the overlap; `realloc` zeroes and cleans.
//!
//! Knobs (environment): `DV_SOAK_SECONDS` (default 8), `DV_SOAK_SEED` (one
//! number: thread k runs seed+k's successor, thread 0 runs it exactly; or a
//! comma-separated list, one per thread), `DV_SOAK_THREADS` (default 4),
//! `DV_SOAK_MAX_BYTES` (largest array; `64M`, `4G`...: default 64 MiB, 16 MiB
//! in an unoptimised build).
//! A failure names the thread's seed and the line that replays it.

#![allow(clippy::needless_range_loop)]

use dualview::space::cuda_device_count;
use dualview::stats::Stats;
use dualview::{Access, Desc, DynRank, ElemSpec, ErrorKind, Layout, Mapping, RawDualView, Side, Slice, Space, Stream, View};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The most axes a soak DualView has (lower ranks pad with extent 1).
const R: usize = 3;
/// Subview calls allowed between two moments where nothing is owned (the
/// library's region record is exact up to a cap; this stays well under it).
const MAX_SUB_OPS: u32 = 6;
/// Device reads and staged device writes go in pieces of at most this.
const CHUNK: usize = 64 << 20;
/// The largest box one pattern write covers (larger handles write a part).
const WRITE_CAP: usize = 32 << 20;
/// More value layers than this and the DualView is repainted (view_fill of both sides).
const MAX_LAYERS: usize = 40;
/// The most live subview handles per DualView.
const MAX_SUBS: usize = 4;

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

// ---- boxes and regions --------------------------------------------------------------

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
    fn inter(&self, o: &Bx) -> Option<Bx> {
        let b = Bx { lo: std::array::from_fn(|a| self.lo[a].max(o.lo[a])), hi: std::array::from_fn(|a| self.hi[a].min(o.hi[a])) };
        (!b.is_empty()).then_some(b)
    }
    fn contains(&self, o: &Bx) -> bool {
        (0..R).all(|a| self.lo[a] <= o.lo[a] && o.hi[a] <= self.hi[a])
    }
    /// `self` without `o`, as disjoint boxes.
    fn minus(&self, o: &Bx) -> Vec<Bx> {
        let Some(i) = self.inter(o) else { return vec![*self] };
        let (mut out, mut rest) = (Vec::new(), *self);
        for a in 0..R {
            if rest.lo[a] < i.lo[a] {
                out.push(Bx { hi: { let mut h = rest.hi; h[a] = i.lo[a]; h }, ..rest });
                rest.lo[a] = i.lo[a];
            }
            if i.hi[a] < rest.hi[a] {
                out.push(Bx { lo: { let mut l = rest.lo; l[a] = i.hi[a]; l }, ..rest });
                rest.hi[a] = i.hi[a];
            }
        }
        out
    }
    fn slices(&self, rank: usize) -> Vec<Slice> {
        (0..rank).map(|a| Slice::Range(self.lo[a], self.hi[a])).collect()
    }
    fn show(&self, rank: usize) -> String {
        let parts: Vec<String> = (0..rank).map(|a| format!("{}..{}", self.lo[a], self.hi[a])).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// Add `b` to a list of disjoint boxes (keeping them disjoint).
fn region_add(list: &mut Vec<Bx>, b: Bx) {
    let mut pieces = vec![b];
    for x in list.iter() {
        pieces = pieces.iter().flat_map(|p| p.minus(x)).collect();
    }
    list.extend(pieces);
}

fn region_sub(list: &mut Vec<Bx>, b: &Bx) {
    *list = list.iter().flat_map(|x| x.minus(b)).collect();
}

fn region_inter(list: &[Bx], b: &Bx) -> Vec<Bx> {
    list.iter().filter_map(|x| x.inter(b)).collect()
}

fn region_vol(list: &[Bx]) -> usize {
    list.iter().map(Bx::vol).sum()
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

// ---- the model ----------------------------------------------------------------------

/// What one side holds over a box.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    Zero,
    Fill([u8; 16]),
    Pat(u64),
}

#[derive(Clone, Copy, Debug)]
struct Layer {
    b: Bx,
    src: Src,
    /// The operation that wrote it (for failure messages).
    op: u64,
}

/// What a call should do: its error, and the bytes it moves each way.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Effect {
    err: Option<ErrorKind>,
    to_host: u64,
    to_device: u64,
}

impl Effect {
    fn moved(to: Side, bytes: u64) -> Effect {
        match to {
            Side::Host => Effect { to_host: bytes, ..Effect::default() },
            Side::Device => Effect { to_device: bytes, ..Effect::default() },
        }
    }
    fn refused() -> Effect {
        Effect { err: Some(ErrorKind::ConcurrentModification), ..Effect::default() }
    }
    fn then(self, o: Effect) -> Effect {
        Effect { err: self.err.or(o.err), to_host: self.to_host + o.to_host, to_device: self.to_device + o.to_device }
    }
}

/// One DualView family in the model.
struct Model {
    ext: [usize; R],
    es: usize,
    /// The side holding changes the other lacks (the library's flags: set
    /// even while what it owns is empty, as after a modify of an empty array).
    owner: Option<Side>,
    /// The owner's change covers the whole array, new elements of a resize
    /// included (the library's flags without `DV_SYNC_PARTIAL`).
    whole: bool,
    /// Disjoint boxes, while not `whole`.
    owned: Vec<Bx>,
    rest: bool,
    vals: [Vec<Layer>; 2],
}

impl Model {
    fn new(ext: [usize; R], es: usize) -> Model {
        Model { ext, es, owner: None, whole: false, owned: Vec::new(), rest: false, vals: [Vec::new(), Vec::new()] }
    }
    fn whole(&self) -> Bx {
        Bx::whole(&self.ext)
    }
    fn owns(&self, s: Side) -> bool {
        self.owner == Some(s)
    }
    fn need_sync(&self, t: Side) -> bool {
        self.owns(t.other())
    }
    /// What the owner changed, as disjoint boxes.
    fn changed(&self) -> Vec<Bx> {
        if self.whole { vec![self.whole()] } else { self.owned.clone() }
    }
    fn clean(&mut self) {
        (self.owner, self.whole, self.rest) = (None, false, false);
        self.owned.clear();
    }
    /// Paint `src` over `b` on side `s`.
    fn write(&mut self, s: Side, b: Bx, src: Src, op: u64) {
        let v = &mut self.vals[si(s)];
        v.push(Layer { b, src, op });
        prune(v);
    }
    /// Copy side `from`'s values over `region` to the other side; the bytes moved.
    fn copy(&mut self, from: Side, region: &[Bx]) -> u64 {
        let src = self.vals[si(from)].clone();
        let dst = &mut self.vals[si(from.other())];
        for r in region {
            dst.push(Layer { b: *r, src: Src::Zero, op: 0 });
            for l in &src {
                if let Some(i) = l.b.inter(r) {
                    dst.push(Layer { b: i, ..*l });
                }
            }
            prune(dst);
        }
        (region_vol(region) * self.es) as u64
    }
    /// A modify of side `s` through a handle whose box is `b` (`parent`: the whole DualView).
    fn modify(&mut self, s: Side, b: Bx, parent: bool) -> Effect {
        let mut e = Effect::default();
        if self.owns(s.other()) {
            if !self.rest {
                return Effect::refused();
            }
            // The rest outside this handle's box is copied into `s`; inside it, `s` has just written.
            let mut outside = self.changed();
            region_sub(&mut outside, &b);
            if !outside.is_empty() {
                e = Effect::moved(s, self.copy(s.other(), &outside));
            }
            self.clean();
        }
        if parent {
            (self.whole, self.owned) = (true, Vec::new());
        } else if !(self.owns(s) && self.whole) {
            if !self.owns(s) {
                self.owned.clear();
            }
            region_add(&mut self.owned, b);
        }
        self.owner = Some(s);
        self.rest = false;
        e
    }
    fn sync(&mut self, t: Side, b: Bx) -> Effect {
        if !self.owns(t.other()) {
            return Effect::default();
        }
        let mut owned = self.changed();
        let part = region_inter(&owned, &b);
        let e = Effect::moved(t, self.copy(t.other(), &part));
        region_sub(&mut owned, &b);
        if owned.is_empty() {
            self.clean();
        } else {
            (self.owned, self.whole, self.rest) = (owned, false, true);
        }
        e
    }
    /// Fill and mark, ruled like modify: refused only while the other side
    /// owns elements and no subview sync left them (`rest`); otherwise those
    /// are copied first. (On the branch this test was written on, `fill`
    /// refuses whenever the other side owns anything: `fill_locked`.)
    fn fill(&mut self, s: Side, b: Bx, parent: bool, v: [u8; 16], op: u64) -> Effect {
        if self.owns(s.other()) && !self.rest {
            return Effect::refused();
        }
        // Any copy of the other side's elements comes before the fill.
        let e = self.modify(s, b, parent);
        self.write(s, b, Src::Fill(v), op);
        e
    }
    fn clear(&mut self) {
        self.clean();
    }
    /// A push of side `s` through a handle whose box is `b`: `b` copied to the
    /// other side whatever the flags say; the record loses `b` and keeps the
    /// rest for its holder (a rest of the other side stays the other side's).
    /// Refused while the other side holds a change that no subview sync left.
    fn push(&mut self, s: Side, b: Bx) -> Effect {
        let t = s.other();
        let (holder, mut left) = if self.owns(t) {
            if !self.rest {
                return Effect::refused();
            }
            (t, self.changed())
        } else if self.owns(s) {
            (s, self.changed())
        } else {
            (s, Vec::new())
        };
        region_sub(&mut left, &b);
        let e = Effect::moved(t, self.copy(s, &[b]));
        if left.is_empty() {
            self.clean();
        } else {
            (self.owner, self.whole, self.owned, self.rest) = (Some(holder), false, left, true);
        }
        e
    }
    fn access(&mut self, s: Side, mode: Access, b: Bx, parent: bool) -> Effect {
        match mode {
            Access::Read => self.sync(s, b),
            Access::Overwrite if parent => {
                self.owner = Some(s);
                (self.whole, self.owned, self.rest) = (true, Vec::new(), false);
                Effect::default()
            }
            Access::ReadWrite | Access::Write | Access::Overwrite => {
                let e = self.sync(s, b);
                e.then(self.modify(s, b, parent))
            }
        }
    }
    fn resize(&mut self, ext: [usize; R]) {
        let w = Bx::whole(&ext);
        let old_ext = self.ext;
        self.ext = ext;
        // A whole change stays whole (it covers the new elements too); regions keep their
        // kept indices and gain the new ones (the newer side may write them before its sync).
        if self.owner.is_some() && !self.whole {
            let old = Bx::whole(&old_ext);
            self.owned = region_inter(&self.owned, &w);
            let mut added = vec![w];
            region_sub(&mut added, &old);
            for b in added {
                region_add(&mut self.owned, b);
            }
            if self.owned.is_empty() {
                self.clean();
            }
        }
        for v in &mut self.vals {
            *v = v.iter().filter_map(|l| l.b.inter(&w).map(|b| Layer { b, ..*l })).collect();
        }
    }
    fn realloc(&mut self, ext: [usize; R]) {
        *self = Model::new(ext, self.es);
    }
    fn show(&self, rank: usize) -> String {
        let owned: Vec<String> = self.owned.iter().map(|b| b.show(rank)).collect();
        format!(
            "owner {:?}, owned {} element(s) [{}], rest {}, layers host {} device {}",
            self.owner.map(|s| s.to_string()),
            region_vol(&self.owned),
            owned.join(" "),
            self.rest,
            self.vals[0].len(),
            self.vals[1].len()
        )
    }
}

/// Drop layers hidden under a later one.
fn prune(v: &mut Vec<Layer>) {
    let mut keep = vec![true; v.len()];
    for i in 0..v.len() {
        keep[i] = !v[i].b.is_empty() && !v[i + 1..].iter().any(|l| l.b.contains(&v[i].b));
    }
    let mut k = keep.iter();
    v.retain(|_| *k.next().expect("one flag per layer"));
}

// ---- memory: checking and painting --------------------------------------------------

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

/// A mismatch: the index, what the model expects, what memory holds, and the layer.
struct Mismatch {
    idx: [usize; R],
    want: Vec<u8>,
    got: Vec<u8>,
    layer: Option<Layer>,
}

/// Check one cell (a box the same layer covers everywhere) against `src`.
fn check_cell(mem: &Mem, cell: &Bx, layer: Option<&Layer>, inner: usize) -> Result<u64, Box<Mismatch>> {
    let es = mem.es;
    let src = layer.map_or(Src::Zero, |l| l.src);
    let konst = match src {
        Src::Zero => Some([0u8; 16]),
        Src::Fill(v) => Some(v),
        Src::Pat(_) => None,
    };
    let step = mem.strides[inner] * es;
    // Runs of one value in contiguous memory: one comparison per run.
    let run: Vec<u8> = match konst {
        Some(c) if step == es => c[..es].repeat(cell.hi[inner] - cell.lo[inner]),
        _ => Vec::new(),
    };
    runs(cell, inner, |start, len| {
        let mut p = mem.at(start) as *const u8;
        // SAFETY: a run of `len` contiguous elements of host-readable memory the caller holds.
        if !run.is_empty() && unsafe { std::slice::from_raw_parts(p, len * es) } == run.as_slice() {
            return Ok(());
        }
        let mut idx = start;
        for k in 0..len {
            idx[inner] = start[inner] + k;
            let want = match (konst, src) {
                (Some(c), _) => c,
                (None, Src::Pat(seed)) => pat(seed, idx, es),
                _ => unreachable!(),
            };
            // SAFETY: `p` addresses element `idx` of host-readable memory the caller holds.
            let got = unsafe { std::slice::from_raw_parts(p, es) };
            if got != &want[..es] {
                return Err(Box::new(Mismatch { idx, want: want[..es].to_vec(), got: got.to_vec(), layer: layer.copied() }));
            }
            p = p.wrapping_add(step);
        }
        Ok(())
    })?;
    Ok(cell.vol() as u64)
}

/// Check box `c` of memory `mem` against the layers: returns the elements checked.
fn check_box(mem: &Mem, c: &Bx, layers: &[Layer], inner: usize) -> Result<u64, Box<Mismatch>> {
    let ls: Vec<Layer> = layers.iter().filter_map(|l| l.b.inter(c).map(|b| Layer { b, ..*l })).collect();
    let cuts: Vec<Vec<usize>> = (0..R)
        .map(|a| {
            let mut v = vec![c.lo[a], c.hi[a]];
            for l in &ls {
                v.push(l.b.lo[a]);
                v.push(l.b.hi[a]);
            }
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut n = 0;
    for x in cuts[0].windows(2) {
        for y in cuts[1].windows(2) {
            for z in cuts[2].windows(2) {
                let cell = Bx { lo: [x[0], y[0], z[0]], hi: [x[1], y[1], z[1]] };
                let top = ls.iter().rev().find(|l| l.b.contains(&cell));
                n += check_cell(mem, &cell, top, inner)?;
            }
        }
    }
    Ok(n)
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
}

// ---- one DualView and its handles ---------------------------------------------------

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
    m: Model,
    subs: Vec<Handle>,
    sub_ops: u32,
    ops_left: u32,
    since_check: u32,
}

impl Dv {
    fn bytes(&self) -> usize {
        self.m.ext.iter().product::<usize>() * self.es
    }
    fn inner(&self) -> usize {
        match self.layout {
            Layout::Right => self.rank.saturating_sub(1),
            _ => 0,
        }
    }
    fn slow_to_fast(&self) -> Vec<usize> {
        match self.layout {
            Layout::Right => (0..R).collect(),
            _ => (0..R).rev().collect(),
        }
    }
    fn handle(&self) -> Handle {
        Handle { raw: self.parent.clone(), b: self.m.whole(), axes: (0..self.rank).collect(), parent: true }
    }
    fn elem(&self) -> ElemSpec {
        ElemSpec::new(self.es, self.es.min(16)).expect("element size")
    }
    fn describe(&self) -> String {
        format!(
            "dv{} of {}-byte elements, {:?}, extents {:?}, mirror {:?}, {} subview(s); model: {}",
            self.id,
            self.es,
            self.layout,
            &self.m.ext[..self.rank],
            self.mirror,
            self.subs.len(),
            self.m.show(self.rank)
        )
    }
    fn check_period(&self) -> u32 {
        (self.m.ext.iter().product::<usize>() / (64 << 10)).clamp(1, 40) as u32
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
}

const OPS: &[(u32, Op)] = &[
    (8, Op::Modify),
    (8, Op::Sync),
    (4, Op::SyncOn),
    (4, Op::Fill),
    (2, Op::ViewFill),
    (5, Op::HostWrite),
    (5, Op::DeviceWrite),
    (3, Op::Push),
    (6, Op::Access),
    (2, Op::Clear),
    (5, Op::Subview),
    (1, Op::DropSub),
    (3, Op::Resize),
    (1, Op::Realloc),
    (1, Op::Check),
];

#[derive(Default)]
struct Totals {
    ops: u64,
    checked: u64,
    moved: u64,
    /// How often each kind of call and each interesting case came up.
    cov: std::collections::BTreeMap<String, u64>,
}

impl Totals {
    fn count(&mut self, what: impl Into<String>) {
        *self.cov.entry(what.into()).or_default() += 1;
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
    log: std::collections::VecDeque<String>,
    cuda: Option<cuda::Context>,
}

impl<'a> Soak<'a> {
    fn new(cfg: &'a Config, thread: usize, seed: u64) -> Result<Soak<'a>, String> {
        let cuda = if cfg.cuda { Some(cuda::Context::new()?) } else { None };
        Ok(Soak { cfg, thread, seed, rng: Rng(seed), t: Totals::default(), dvs: Vec::new(), next_id: 0, log: Default::default(), cuda })
    }

    fn note(&mut self, s: String) {
        if self.log.len() == 16 {
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
        while let Some(dv) = self.dvs.pop() {
            self.note(format!("end of the run: check and drop dv{}", dv.id));
            self.retire(dv)?;
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
            return self.retire(dv);
        }
        dv.ops_left -= 1;
        let r = self.operate(&mut dv);
        let keep = match r {
            Ok(keep) => keep,
            Err(e) => return Err(format!("{e}\n  {}", dv.describe())),
        };
        if keep {
            dv.since_check += 1;
            if dv.since_check >= dv.check_period() {
                self.note(format!("periodic check of dv{}", dv.id));
                self.check_all(&mut dv).map_err(|e| format!("{e}\n  {}", dv.describe()))?;
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
        let dv = Dv {
            id,
            parent,
            layout,
            rank,
            es,
            mirror,
            m: Model::new(ext, es),
            subs: Vec::new(),
            sub_ops: 0,
            ops_left: self.rng.range(5, 90) as u32,
            since_check: 0,
        };
        self.verify_flags(&dv, "create")?;
        self.dvs.push(dv);
        Ok(())
    }

    fn retire(&mut self, mut dv: Dv) -> Result<(), String> {
        self.check_all(&mut dv).map_err(|e| format!("{e}\n  {}", dv.describe()))
    }

    /// A handle for an operation; `marks`: the call records regions (only
    /// MAX_SUB_OPS such subview calls between two clean states).
    fn pick(&mut self, dv: &mut Dv, marks: bool) -> Handle {
        if dv.subs.is_empty() || self.rng.chance(0.4) || (marks && dv.sub_ops >= MAX_SUB_OPS) {
            return dv.handle();
        }
        let h = dv.subs[self.rng.below(dv.subs.len())].clone();
        if marks {
            dv.sub_ops += 1;
        }
        h
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

    /// Compare a call's outcome with the model's: error kind, bytes moved, flags.
    fn verify<T>(&mut self, dv: &mut Dv, what: &str, got: &dualview::Result<T>, want: Effect, before: Stats) -> Result<(), String> {
        let kind = got.as_ref().err().map(|e| e.kind());
        if kind != want.err {
            let text = match got {
                Ok(_) => "Ok".to_string(),
                Err(e) => format!("{e}"),
            };
            return Err(format!("{what}: returned {text}; the model expects {:?}", want.err));
        }
        let s = dv.parent.stats();
        let moved = (s.to_host.bytes - before.to_host.bytes, s.to_device.bytes - before.to_device.bytes);
        if moved != (want.to_host, want.to_device) {
            return Err(format!(
                "{what}: moved {} B to the host and {} B to the device; the model moves {} B and {} B",
                moved.0, moved.1, want.to_host, want.to_device
            ));
        }
        self.t.moved += moved.0 + moved.1;
        let kind = what.split(['(', ' ']).next().unwrap_or(what);
        self.t.count(kind);
        if want.err.is_some() {
            self.t.count("calls refused (ConcurrentModification)");
        } else if moved.0 + moved.1 > 0 {
            self.t.count(format!("{kind} that copied"));
        }
        if dv.m.rest {
            self.t.count("calls leaving rest = true");
        }
        if dv.m.owned.is_empty() {
            dv.sub_ops = 0;
        }
        self.verify_flags(dv, what)
    }

    fn verify_flags(&self, dv: &Dv, what: &str) -> Result<(), String> {
        let handles = std::iter::once(&dv.parent).chain(dv.subs.iter().map(|h| &h.raw));
        for (k, h) in handles.enumerate() {
            for side in Side::BOTH {
                if h.need_sync(side) != dv.m.need_sync(side) {
                    return Err(format!(
                        "{what}: need_sync({side}) is {} through handle {k}; the model says {}",
                        h.need_sync(side),
                        dv.m.need_sync(side)
                    ));
                }
            }
        }
        Ok(())
    }

    /// One random operation on `dv`; false when it dropped the DualView.
    fn operate(&mut self, dv: &mut Dv) -> Result<bool, String> {
        let op_id = mix(self.seed ^ self.t.ops.wrapping_mul(0x2545_f491_4f6c_dd1d));
        if dv.m.vals.iter().any(|v| v.len() > MAX_LAYERS) {
            return self.repaint(dv, op_id).map(|()| true);
        }
        if dv.sub_ops >= MAX_SUB_OPS && dv.m.owner.is_some() && self.rng.chance(0.3) {
            let t = dv.m.owner.expect("owned").other();
            let before = dv.parent.stats();
            self.note(format!("dv{} sync({t}) through the parent (subview budget spent)", dv.id));
            let want = dv.m.sync(t, dv.m.whole());
            let r = dv.parent.sync(t);
            return self.verify(dv, &format!("sync({t}) through the parent"), &r, want, before).map(|()| true);
        }
        let total: u32 = OPS.iter().map(|o| o.0).sum();
        let mut x = self.rng.below(total as usize) as u32;
        let op = OPS.iter().find(|o| if x < o.0 { true } else { x -= o.0; false }).expect("weights").1;
        let before = dv.parent.stats();
        let rank = dv.rank;
        match op {
            Op::Modify => {
                let h = self.pick(dv, true);
                let s = self.rng.side();
                let what = format!("modify({s}) through the {}", h.name(rank));
                self.note(format!("dv{} {what}", dv.id));
                let want = dv.m.modify(s, h.b, h.parent);
                let r = h.raw.modify(s);
                self.verify(dv, &what, &r, want, before)?;
            }
            Op::Sync => {
                let h = self.pick(dv, true);
                let t = self.rng.side();
                let what = format!("sync({t}) through the {}", h.name(rank));
                self.note(format!("dv{} {what}", dv.id));
                let want = dv.m.sync(t, h.b);
                let r = h.raw.sync(t);
                self.verify(dv, &what, &r, want, before)?;
            }
            Op::SyncOn => self.sync_on(dv)?,
            Op::Fill | Op::ViewFill => {
                let h = self.pick(dv, matches!(op, Op::Fill));
                let s = self.rng.side();
                let v = fill_value(&mut self.rng, dv.es);
                let what = format!("{}({s}, {:02x?}) through the {}", if matches!(op, Op::Fill) { "fill" } else { "view_fill" }, &v[..dv.es], h.name(rank));
                self.note(format!("dv{} {what}", dv.id));
                let (want, r) = if matches!(op, Op::Fill) {
                    (dv.m.fill(s, h.b, h.parent, v, op_id), h.raw.fill(s, &v[..dv.es]))
                } else {
                    dv.m.write(s, h.b, Src::Fill(v), op_id);
                    (Effect::default(), h.raw.view_fill(s, &v[..dv.es]))
                };
                self.verify(dv, &what, &r, want, before)?;
            }
            Op::HostWrite | Op::DeviceWrite => {
                let s = if matches!(op, Op::HostWrite) { Side::Host } else { Side::Device };
                let mark = self.rng.chance(0.85);
                let h = self.pick(dv, mark);
                let b = clip(&mut self.rng, h.b, WRITE_CAP / dv.es);
                self.note(format!("dv{} write a pattern over {} of the {s} side{}", dv.id, b.show(rank), if mark { format!(", then modify({s}) through the {}", h.name(rank)) } else { String::new() }));
                self.write(dv, s, b, op_id)?;
                if mark {
                    let what = format!("modify({s}) through the {} after a write", h.name(rank));
                    let before = dv.parent.stats();
                    let want = dv.m.modify(s, h.b, h.parent);
                    let r = h.raw.modify(s);
                    self.verify(dv, &what, &r, want, before)?;
                }
            }
            Op::Push => {
                // The halo pattern: write part of a handle's box on one side, push the box.
                let s = self.rng.side();
                let h = self.pick(dv, true);
                let b = clip(&mut self.rng, h.b, WRITE_CAP / dv.es);
                let what = format!("push({s}) through the {} after a write over {}", h.name(rank), b.show(rank));
                self.note(format!("dv{} {what}", dv.id));
                self.write(dv, s, b, op_id)?;
                let before = dv.parent.stats();
                let want = dv.m.push(s, h.b);
                let r = h.raw.push(s);
                self.verify(dv, &what, &r, want, before)?;
            }
            Op::Access => {
                let h = self.pick(dv, true);
                let s = self.rng.side();
                let mode = [Access::Read, Access::ReadWrite, Access::Write, Access::Overwrite][self.rng.below(4)];
                let what = format!("access({s}, {mode:?}) through the {}", h.name(rank));
                self.note(format!("dv{} {what}", dv.id));
                let want = dv.m.access(s, mode, h.b, h.parent);
                let r = h.raw.access(s, mode);
                self.verify(dv, &what, &r, want, before)?;
                let v = r.map_err(|e| format!("{what}: {e}"))?;
                self.check_view(dv, &h, s, &v, &what)?;
                if mode != Access::Read {
                    if h.b.vol() * dv.es <= WRITE_CAP {
                        self.write(dv, s, h.b, op_id)?;
                    } else {
                        let fv = fill_value(&mut self.rng, dv.es);
                        // SAFETY: this thread is the only user of the DualView; nothing else reads the view meanwhile.
                        trace(unsafe { v.fill(&fv[..dv.es]) }, "fill of the view access returned")?;
                        dv.m.write(s, h.b, Src::Fill(fv), op_id);
                    }
                }
            }
            Op::Clear => {
                let h = self.pick(dv, false);
                let what = format!("clear_sync_state through the {}", h.name(rank));
                self.note(format!("dv{} {what}", dv.id));
                dv.m.clear();
                let r = h.raw.clear_sync_state();
                self.verify(dv, &what, &r, Effect::default(), before)?;
            }
            Op::Subview => self.subview(dv)?,
            Op::DropSub => {
                if !dv.subs.is_empty() {
                    let k = self.rng.below(dv.subs.len());
                    self.note(format!("dv{} drop subview {}", dv.id, dv.subs[k].b.show(rank)));
                    dv.subs.swap_remove(k);
                }
            }
            Op::Resize | Op::Realloc => return self.reshape(dv, matches!(op, Op::Resize)),
            Op::Check => {
                self.note(format!("dv{} check every element", dv.id));
                self.check_all(dv)?;
            }
        }
        Ok(true)
    }

    /// A few async syncs on streams (through the parent or subviews), then a
    /// blocking call: a stream synchronize, or a blocking sync that copies.
    fn sync_on(&mut self, dv: &mut Dv) -> Result<(), String> {
        let n = self.rng.range(1, 4);
        let calls: Vec<(Handle, Side, (Stream, usize, bool))> = (0..n)
            .map(|_| {
                let h = self.pick(dv, true);
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
            let want = dv.m.sync(*t, h.b);
            let r = h.raw.sync_on(*t, *stream);
            self.verify(dv, &what, &r, want, before)?;
        }
        let stale = Side::BOTH.into_iter().find(|&s| dv.m.need_sync(s));
        match stale {
            Some(t) if self.rng.chance(0.5) => {
                let what = format!("sync({t}) through the parent after sync_on");
                self.note(format!("dv{} {what}", dv.id));
                let before = dv.parent.stats();
                let want = dv.m.sync(t, dv.m.whole());
                let r = dv.parent.sync(t);
                self.verify(dv, &what, &r, want, before)?;
            }
            _ => {
                self.note(format!("dv{} synchronize the streams", dv.id));
                for (_, _, (_, raw, _)) in &calls {
                    if self.cuda.is_some() {
                        cuda::stream_sync(*raw)?;
                    }
                }
            }
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
            return Err(format!("{what}: extents {:?}, the model says {want:?}", raw.extents().as_slice()));
        }
        let h = Handle { raw, b, axes, parent: false };
        if dv.subs.len() >= MAX_SUBS {
            let k = self.rng.below(dv.subs.len());
            dv.subs[k] = h;
        } else {
            dv.subs.push(h);
        }
        self.verify_flags(dv, &what)
    }

    /// Resize (grow 1.1x to 2x along some axes, shrink, or both) or realloc;
    /// false when the DualView was dropped right after (while its new mirror registers).
    fn reshape(&mut self, dv: &mut Dv, keep: bool) -> Result<bool, String> {
        let rank = dv.rank;
        let old = dv.m.ext;
        let slowest = match dv.layout {
            Layout::Right => 0,
            _ => rank - 1,
        };
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
            self.note(format!("dv{} check every element before a last resize", dv.id));
            self.check_all(dv)?;
        }
        let what = format!("{}({:?} -> {:?})", if keep { "resize" } else { "realloc" }, &old[..rank], &ext[..rank]);
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
        }
        if keep {
            dv.m.resize(ext);
        } else {
            dv.m.realloc(ext);
        }
        dv.subs.clear();
        self.verify(dv, &what, &r, Effect::default(), before)?;
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

    /// Too many value layers: overwrite both sides with one fill each (view_fill, no flags).
    fn repaint(&mut self, dv: &mut Dv, op: u64) -> Result<(), String> {
        for s in Side::BOTH {
            let v = fill_value(&mut self.rng, dv.es);
            self.note(format!("dv{} view_fill({s}) of the parent (repaint)", dv.id));
            let before = dv.parent.stats();
            let r = dv.parent.view_fill(s, &v[..dv.es]);
            dv.m.write(s, dv.m.whole(), Src::Fill(v), op);
            self.verify(dv, "view_fill (repaint)", &r, Effect::default(), before)?;
        }
        Ok(())
    }

    /// Write the pattern of `seed` over box `b` of side `s`, then tell the model.
    fn write(&mut self, dv: &mut Dv, s: Side, b: Bx, seed: u64) -> Result<(), String> {
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
        dv.m.write(s, b, Src::Pat(seed), seed);
        Ok(())
    }

    /// The view an access call returned is the handle's region of that side.
    fn check_view(&self, dv: &Dv, h: &Handle, s: Side, v: &View, what: &str) -> Result<(), String> {
        let want: Vec<usize> = h.axes.iter().map(|&a| h.b.hi[a] - h.b.lo[a]).collect();
        let pv = trace(dv.parent.view(s), "view")?;
        let off = trace(pv.mapping().offset(&h.b.lo[..dv.rank]), "offset")?;
        if v.extents().as_slice() != want.as_slice() || v.data() != pv.data().wrapping_add(off * dv.es) {
            return Err(format!("{what}: the view has extents {:?} at element offset {}, the handle's region is {want:?} at {off}", v.extents().as_slice(), (v.data() as usize).wrapping_sub(pv.data() as usize) / dv.es));
        }
        Ok(())
    }

    /// Check every element of both sides against the model.
    fn check_all(&mut self, dv: &mut Dv) -> Result<(), String> {
        dv.since_check = 0;
        let whole = dv.m.whole();
        let inner = dv.inner();
        if dv.parent.extents().as_slice() != &dv.m.ext[..dv.rank] {
            return Err(format!("extents {:?}, the model says {:?}", dv.parent.extents().as_slice(), &dv.m.ext[..dv.rank]));
        }
        let hv = trace(dv.parent.view(Side::Host), "view(host)")?;
        let n = check_box(&Mem::of(&hv, [0; R]), &whole, &dv.m.vals[0], inner).map_err(|m| self.mismatch(dv, Side::Host, &m))?;
        self.t.checked += n;
        let dview = trace(dv.parent.view(Side::Device), "view(device)")?;
        let mut pieces = Vec::new();
        split(whole, &dv.slow_to_fast(), CHUNK / dv.es, &mut pieces);
        for p in pieces {
            let m = trace(Mapping::new(dv.layout, DynRank::new(&p.ext()[..dv.rank]).expect("rank")), "mapping")?;
            let copy = trace(View::new("soak-read", dv.elem(), m, Space::HOST, false), "readback view")?;
            let src = trace(dview.subview(&p.slices(dv.rank)), "device subview")?;
            // SAFETY: this thread is the only user of the DualView's memory.
            trace(unsafe { copy.copy_from(&src) }, "device readback")?;
            let n = check_box(&Mem::of(&copy, p.lo), &p, &dv.m.vals[1], inner).map_err(|m| self.mismatch(dv, Side::Device, &m))?;
            self.t.checked += n;
        }
        self.verify_flags(dv, "check")
    }

    fn mismatch(&self, dv: &Dv, s: Side, m: &Mismatch) -> String {
        let written = match m.layer {
            None => "never written (zero)".to_string(),
            Some(l) => format!("{:?} over {}, written by operation {:#x}", l.src, l.b.show(dv.rank), l.op),
        };
        format!(
            "element {:?} of the {s} side holds {:02x?}; the model expects {:02x?} ({written})",
            &m.idx[..dv.rank],
            m.got,
            m.want
        )
    }

    fn failure(&self, e: &str) -> String {
        let mut s = format!(
            "soak FAILED in thread {} (seed {:#x}) at operation {} on {}:\n  {e}\n  the last operations:\n",
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
    let registered = dualview::space::registered_host_bytes();
    let used = dualview::space::test_device::used_bytes(0).unwrap_or(0);
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs_f64(cfg.seconds);
    let stop = AtomicBool::new(false);
    let (ops, checked, moved) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let cov = std::sync::Mutex::new(std::collections::BTreeMap::<String, u64>::new());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = cfg
            .seeds
            .iter()
            .enumerate()
            .map(|(k, &seed)| {
                let (cfg, stop, ops, checked, moved, cov) = (&cfg, &stop, &ops, &checked, &moved, &cov);
                scope.spawn(move || -> Result<(), String> {
                    let mut soak = match Soak::new(cfg, k, seed) {
                        Ok(s) => s,
                        Err(e) => return Err(format!("thread {k} (seed {seed:#x}): {e}")),
                    };
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| soak.run(deadline, stop)));
                    ops.fetch_add(soak.t.ops, Ordering::Relaxed);
                    checked.fetch_add(soak.t.checked, Ordering::Relaxed);
                    moved.fetch_add(soak.t.moved, Ordering::Relaxed);
                    for (k, v) in &soak.t.cov {
                        *cov.lock().unwrap_or_else(|e| e.into_inner()).entry(k.clone()).or_default() += v;
                    }
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
    let cov = cov.into_inner().unwrap_or_else(|e| e.into_inner());
    let cov: Vec<String> = cov.iter().map(|(k, v)| format!("{k} {v}")).collect();
    say(&format!("soak: coverage: {}", cov.join(", ")));
    say(&format!(
        "soak: {} operations, {} elements checked, {} bytes moved (model-checked), {} threads, seeds [{}], {:.1} s on {}",
        ops.load(Ordering::Relaxed),
        checked.load(Ordering::Relaxed),
        moved.load(Ordering::Relaxed),
        cfg.seeds.len(),
        seeds.join(", "),
        t0.elapsed().as_secs_f64(),
        cfg.space
    ));
    let firsts: Vec<&str> = failures.iter().filter_map(|f| f.lines().nth(1)).collect();
    assert!(failures.is_empty(), "{} soak thread(s) failed (seeds, operations and replay lines above):\n{}", failures.len(), firsts.join("\n"));
    dualview::space::settle();
    assert_eq!(dualview::space::registered_host_bytes(), registered, "every mirror registration ended with its DualView");
    assert_eq!(dualview::space::test_device::used_bytes(0).unwrap_or(0), used, "every test-device allocation was freed");
}

/// The model's own rules, on the cases DESIGN.md 5.3 names (no DualView involved).
#[test]
fn the_model_follows_the_region_exact_rules() {
    use Side::{Device, Host};
    let b = |lo: [usize; 2], hi: [usize; 2]| Bx { lo: [lo[0], lo[1], 0], hi: [hi[0], hi[1], 1] };
    let value = |m: &Model, s: Side, i: usize, j: usize| {
        let cell = b([i, j], [i + 1, j + 1]);
        m.vals[si(s)].iter().rev().find(|l| l.b.contains(&cell)).map_or(Src::Zero, |l| l.src)
    };
    let es = 8;

    // The LAMMPS border exchange: the whole device side changes, the ghost rows go to the host.
    let mut m = Model::new([100, 8, 1], es);
    let whole = m.whole();
    m.write(Device, whole, Src::Pat(1), 1);
    assert_eq!(m.modify(Device, whole, true), Effect::default());
    let ghosts = b([90, 0], [100, 8]);
    assert_eq!(m.sync(Host, ghosts), Effect::moved(Host, 10 * 8 * 8), "the ghost rows only");
    assert!(m.need_sync(Host) && m.rest, "nothing left silently stale");
    assert_eq!((value(&m, Host, 95, 3), value(&m, Host, 5, 3)), (Src::Pat(1), Src::Zero));
    assert_eq!(m.sync(Host, ghosts), Effect::default(), "copied once");
    assert_eq!(m.sync(Host, whole), Effect::moved(Host, 90 * 8 * 8), "a later whole sync copies the rest, each byte once");
    assert!(!m.need_sync(Host) && !m.rest && m.owner.is_none());
    assert_eq!(value(&m, Host, 5, 3), Src::Pat(1));

    // After a subview sync, a whole-array modify of the other side is allowed, as in Kokkos:
    // the host wrote everything, so the device's rest is dropped, nothing copied.
    let mut m = Model::new([10, 10, 1], es);
    let whole = m.whole();
    m.modify(Device, whole, true);
    assert_eq!(m.sync(Host, b([0, 0], [2, 10])), Effect::moved(Host, 20 * 8));
    assert_eq!(m.modify(Host, whole, true), Effect::default());
    assert_eq!((m.owner, region_vol(&m.changed()), m.rest), (Some(Host), 100, false));
    // Without a subview sync, modify and fill of the other side are refused and change nothing.
    assert_eq!(m.modify(Device, b([0, 0], [1, 1]), false), Effect::refused());
    assert_eq!(m.fill(Device, b([0, 0], [1, 1]), false, [7; 16], 2), Effect::refused());
    assert_eq!((m.owner, region_vol(&m.changed())), (Some(Host), 100));

    // Overlapping subview changes: every element moves once.
    let mut m = Model::new([10, 10, 1], es);
    m.modify(Host, b([0, 0], [4, 4]), false);
    m.modify(Host, b([2, 2], [6, 6]), false);
    assert_eq!(region_vol(&m.changed()), 28);
    // Rows 3.. of the union: [3..4, 0..4] and [3..6, 2..6] share [3..4, 2..4]: 4 + 12 - 2.
    assert_eq!(m.sync(Device, b([3, 0], [10, 10])), Effect::moved(Device, 14 * 8));
    assert!(m.rest && m.need_sync(Device));
    // ReadWrite through a subview: its region (one element), then the rest (13), then it is device-owned.
    assert_eq!(m.access(Device, Access::ReadWrite, b([0, 0], [1, 1]), false), Effect::moved(Device, 14 * 8));
    assert_eq!((m.owner, region_vol(&m.changed()), m.rest), (Some(Device), 1, false));
    // Overwrite through a whole DualView: the other side's change is dropped, nothing is copied.
    assert_eq!(m.access(Host, Access::Overwrite, m.whole(), true), Effect::default());
    assert_eq!((m.owner, region_vol(&m.changed())), (Some(Host), 100));
    // A fill of a subview after a subview sync copies the rest outside its box first, then fills and marks it.
    m.clear();
    m.modify(Device, b([0, 0], [10, 10]), false);
    m.sync(Host, b([0, 0], [5, 10]));
    assert_eq!(m.fill(Host, b([5, 0], [6, 1]), false, [9; 16], 3), Effect::moved(Host, 49 * 8));
    assert_eq!((m.owner, region_vol(&m.changed()), value(&m, Host, 5, 0)), (Some(Host), 1, Src::Fill([9; 16])));
    m.clear();
    m.modify(Device, b([0, 0], [10, 10]), false);
    m.sync(Host, b([0, 0], [5, 10]));
    assert_eq!(m.fill(Host, b([0, 0], [1, 1]), false, [9; 16], 3), Effect::moved(Host, 50 * 8));
    assert_eq!((m.owner, region_vol(&m.changed()), value(&m, Host, 0, 0)), (Some(Host), 1, Src::Fill([9; 16])));

    // Resize keeps owner and value in the overlap; new elements are zeros on both sides, and
    // count as changed by the newer side (it may write them before its sync, as Kokkos assumes).
    let mut m = Model::new([4, 4, 1], es);
    m.write(Host, m.whole(), Src::Pat(3), 3);
    m.modify(Host, b([2, 2], [4, 4]), false);
    m.resize([3, 8, 1]);
    assert_eq!(region_vol(&m.changed()), 2 + 3 * 4);
    m.resize([8, 8, 1]);
    assert_eq!(m.sync(Device, m.whole()), Effect::moved(Device, (2 + 3 * 4 + 5 * 8) * 8));
    assert_eq!((value(&m, Device, 2, 3), value(&m, Device, 3, 3), value(&m, Host, 3, 3)), (Src::Pat(3), Src::Zero, Src::Zero));
    assert_eq!(value(&m, Device, 1, 1), Src::Zero, "never synced");
    m.modify(Device, m.whole(), true);
    m.resize([9, 8, 1]);
    assert_eq!(m.sync(Host, m.whole()), Effect::moved(Host, 72 * 8), "the whole change covers the new rows");
    // Realloc: everything zero and unowned.
    m.modify(Device, b([0, 0], [1, 1]), false);
    m.realloc([2, 2, 1]);
    assert!(m.owner.is_none() && m.vals.iter().all(Vec::is_empty));
}
