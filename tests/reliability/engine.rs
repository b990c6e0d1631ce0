//! A program of C ABI calls, checked against the oracle of what it wrote.
//!
//! Shared by the libFuzzer target (`fuzz/fuzz_targets/c_abi.rs`, which
//! includes this file by path) and by `cargo test --test reliability`, which
//! replays the committed corpus and random programs through it.
//!
//! The input bytes are read as a sequence of operations. Each operation
//! picks handles and arguments from the bytes, sometimes replaces one
//! argument by a bad one (NULL pointer, destroyed or foreign handle, unknown
//! enum value, bad extents, out-of-range axis...), calls the `dv_*` function
//! through its C ABI, and checks the status. After every operation each live
//! handle of the DualViews it touched is checked: flags (`dv_need_sync_*`,
//! the sync-state byte), shape, `dv_info`, transfer statistics and the data
//! of both sides, read from memory through the view the library reports.
//! Any disagreement panics (a finding). At the end every handle is destroyed
//! and the handle count and the live allocations must be back where they were.
//!
//! **Coherence** is checked against the oracle of issue 30
//! (`tests/common/oracle.rs`): a ledger of what the program wrote (through
//! the data pointers, unmarked, or with `dv_view_fill` / `dv_view_copy`) and
//! marked, and a model of Kokkos' two modified counters. It follows the
//! program's calls and knows nothing of the library's coherence map, so a
//! wrong rule in the library cannot pass by agreeing with itself. As in
//! `tests/model.rs`:
//!
//! - a modify, `dv_fill_and_modify_*`, `dv_push_*` or `dv_deep_copy` answers
//!   `DV_ERROR_CONCURRENT_MODIFICATION` exactly when Kokkos' counters refuse
//!   it (`Oracle::refuses`, `deep_copy_side`), and otherwise succeeds (apart
//!   from the statuses of bad input);
//! - `dv_need_sync_*` is true wherever Kokkos' counters say so;
//! - wherever `dv_need_sync_X` of a handle answers false, and right after a
//!   successful sync, push or access through it, side `X` of the handle's box
//!   holds the ledger's value (`Elem::expect`) of every element the ledger
//!   knows (the program's own pending write where it has one);
//! - a sync (or push, or access) moves at most its handle's box, in one
//!   transfer into the side it syncs (`dv_stats`), and no other call moves
//!   anything between the sides;
//! - the sync-state byte's counter bits (`DV_SYNC_HOST_MODIFIED`,
//!   `DV_SYNC_DEVICE_MODIFIED`) are the oracle's counters, the byte is
//!   `DV_SYNC_ONE_SPACE` for one memory; the map bits are only checked for
//!   consistency (none after `dv_clear_sync_state` or `dv_realloc`, one side
//!   after a whole-array modify, none of the other side after a whole-array
//!   sync, `DV_SYNC_PARTIAL` only with a side newer);
//! - a const handle may answer `DV_ERROR_CONST_SYNC` (sync, read access) or
//!   `DV_ERROR_INVALID_ARGUMENT` (modify) where its box may hold elements
//!   newer on the other side (its `dv_need_sync` said so just before; the
//!   oracle cannot know the map); then nothing changes.
//!
//! A one-space DualView (host space, or `DV_FLAG_SINGLE_SPACE`) is one
//! memory: the engine keeps the last value written there.
//!
//! The programs include, besides every call with good and bad arguments:
//! the program's own writes through the data pointers, unmarked
//! (`op_write`); several regions written before any mark, then marked in
//! any order through overlapping subviews (`op_marks`); the halo idiom
//! (`op_halo`: write two rows, then mark and sync each); fragmented maps
//! (`op_create_big` makes 1-D and 2-D DualViews of 2,048 to 8,191, or
//! 32,768 to 65,535 elements; `op_scatter` runs 64 to 255 calls through
//! small subviews in one operation, with a resize of the fragmented map
//! in between; `fragmentation_program` builds such programs). Every
//! write stores values of its own (a hash of the write and the element), so
//! a copy that lands in the wrong place is seen. Uninitialised memory
//! (`DV_FLAG_WITHOUT_INITIALIZING`, `dv_realloc_without_initializing`) is
//! unknown to the oracle until written.
//!
//! Statuses of bad input, shapes, `dv_info`, labels, handle counts, leaks,
//! stale subviews (D8: made before a resize or realloc to new extents) and
//! const handles' refusals are predicted exactly, as before the oracle; and
//! no two allocations of live DualViews overlap. After an operation, a
//! family of more than `SMALL` elements is compared through the handles the
//! operation named only (time); every handle is compared at the end.
//!
//! `DV_ENGINE_TRACE=1` prints each operation and each coherence call (to
//! read a finding; `replay_input` in `main.rs` replays a saved program).

#![allow(dead_code, clippy::too_many_arguments, clippy::needless_range_loop)]

use dualview::ffi::dv_status_t::{self, *};
use dualview::ffi::*;
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU8, Ordering};
#[path = "../common/mod.rs"]
mod common;
use common::oracle::{self, Bx, Oracle};
use common::{flat, for_each_index, row_major, two_mut};

/// `DV_ENGINE_TRACE=1`: print each operation and each coherence call (to read a finding).
fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("DV_ENGINE_TRACE").is_some_and(|v| v == "1"))
}

macro_rules! trace {
    ($($t:tt)*) => {
        if tracing() {
            eprintln!($($t)*);
        }
    };
}

/// An element whose value the engine does not know (one-space memory never initialised).
const UNDEF: u64 = u64::MAX;
const MAX_HANDLES: usize = 24;
const MAX_FAMILIES: usize = 8;
const MAX_OPS: usize = 64;
/// No operation may allocate more than this (a fuzzer must never ask for terabytes).
const MAX_BYTES: u128 = 1 << 20;
/// The smallest DualView `op_create_big` makes (small under Miri, which is slow).
const BIG: usize = if cfg!(miri) { 16 } else { 2048 };
/// `op_create_big`'s sizes: `BIG` to `BIG + BIG_SPAN - 1` elements, or
/// `HUGE` to `2 * HUGE - 1`: from about 40,000 elements a map of 2 bits an
/// element outweighs 64 boxes, so only there does a map reach its box cap
/// (rather than turning into a bitmap for its memory first).
const BIG_SPAN: usize = if cfg!(miri) { 16 } else { 8192 - 2048 };
const HUGE: usize = if cfg!(miri) { 16 } else { 32768 };
/// Two-space families of more elements than this track a sample of about
/// this many in the oracle (the library works on every element; the oracle
/// checks the sample, a different one in each program): the fuzzer's speed.
/// `run_tracking_all` (the fragmentation programs) tracks every element.
const TRACK: usize = 4096;

/// Whether a family of `size` elements tracks the element at `idx` ([`TRACK`]):
/// a hash of the multi-index and the family's salt, so that a resize keeps the choice.
fn sampled(idx: &[usize], size: usize, track: usize, salt: u64) -> bool {
    let rate = size.div_ceil(track) as u64;
    if rate <= 1 {
        return true;
    }
    let mut h = salt ^ 0x9e37_79b9_7f4a_7c15;
    for &i in idx {
        h = (h ^ i as u64).wrapping_mul(0x0100_0000_01b3);
        h ^= h >> 29;
    }
    h.is_multiple_of(rate)
}

/// After an operation, families above this many elements are compared only
/// through the handles it named (time); at the end, through every handle.
const SMALL: usize = 1024;

// ---- input ------------------------------------------------------------------------

/// The fuzzer's bytes, read front to back; zeros once exhausted.
pub struct Input<'a> {
    d: &'a [u8],
    i: usize,
}

impl<'a> Input<'a> {
    pub fn new(d: &'a [u8]) -> Self {
        Input { d, i: 0 }
    }
    fn done(&self) -> bool {
        self.i >= self.d.len()
    }
    fn u8(&mut self) -> u8 {
        let v = self.d.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        v
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        (self.u32() as u64) | ((self.u32() as u64) << 32)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.u8() as usize % n }
    }
    /// A number below `n`, from two bytes when one cannot reach it.
    fn below_wide(&mut self, n: usize) -> usize {
        if n <= 256 { self.below(n) } else { self.u16() as usize % n }
    }
    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    /// `Some(kind)` for about one operation in eight: which argument to make bad.
    fn fault(&mut self, kinds: usize) -> Option<usize> {
        let f = self.u8();
        if f < 32 { Some(f as usize % kinds) } else { None }
    }
}


// ---- model --------------------------------------------------------------------------

/// The value the program's write number `w` stores at the `k`-th element of
/// its region (splitmix64 of both: distinct per write and element), masked
/// to the element's bytes.
fn value(w: u64, k: usize, mask: u64) -> u64 {
    let mut z = (w << 24 ^ k as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) & mask
}

/// The row-major place of parent index `idx` in the box `lo..hi`.
fn place(lo: &[usize], hi: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(lo.iter().zip(hi)).fold(0, |acc, (&x, (&l, &u))| acc * (u - l) + (x - l))
}

/// The element offsets (in elements) of a view of `ext` and `strides`, in row-major order.
fn offsets(ext: &[usize], strides: &[usize]) -> Vec<usize> {
    let n: usize = ext.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; ext.len()];
    let mut off = 0usize;
    for _ in 0..n {
        out.push(off);
        let mut ax = ext.len();
        while ax > 0 {
            ax -= 1;
            idx[ax] += 1;
            off += strides[ax];
            if idx[ax] < ext[ax] {
                break;
            }
            off -= strides[ax] * ext[ax];
            idx[ax] = 0;
        }
    }
    out
}

/// Side `side` as the oracle counts them (0 host, 1 device).
fn six(side: u32) -> usize {
    side as usize
}

/// `DV_SYNC_*_NEWER` of a side.
fn newer_bit(side: u32) -> u8 {
    if side == DV_SIDE_HOST { DV_SYNC_HOST_NEWER } else { DV_SYNC_DEVICE_NEWER }
}

const MAP_BITS: u8 = DV_SYNC_HOST_NEWER | DV_SYNC_DEVICE_NEWER | DV_SYNC_PARTIAL;

/// One DualView (all its handles share it).
struct Fam {
    label: Vec<u8>,
    dtype: u32,
    elem: usize,
    align: usize,
    layout: u32,
    strides: Vec<usize>,
    ext: Vec<usize>,
    /// A separate host mirror (two spaces, two allocations).
    two: bool,
    space: u32,
    ordinal: u32,
    /// One space over the test device (`DV_FLAG_SINGLE_SPACE`).
    single_flag: bool,
    /// Two spaces: the oracle of what the program wrote and marked, and of
    /// Kokkos' counters (indexed by parent multi-index).
    oracle: Oracle<u64>,
    /// Two spaces: where the element of row-major parent index `k` sits in
    /// `oracle.elems` (`usize::MAX`: not tracked, [`sampled`]).
    pos: Vec<usize>,
    /// Which elements a large family tracks ([`sampled`]): about `track` of them.
    salt: u64,
    track: usize,
    /// One space (one memory): the last value written at each element (`UNDEF`: unknown).
    mem: Vec<u64>,
    /// A statistic, never checked: per element 0 clean, 1 host-newer, 2
    /// device-newer, as docs/SEMANTICS.md says the map goes; its runs say
    /// how fragmented the programs made the map. Empty for a family the
    /// oracle samples (TRACK).
    shadow: Vec<u8>,
    generation: u64,
    owned: bool,
    /// The transfer statistics the family must show (to_device count, bytes,
    /// to_host count, bytes): each sync's share is checked when it returns.
    stats: [u64; 4],
    /// Memory given to `dv_wrap`: it must outlive the handles.
    bufs: Vec<Vec<u64>>,
}

impl Fam {
    fn size(&self) -> usize {
        self.ext.iter().product()
    }
    fn mask(&self) -> u64 {
        if self.elem >= 8 { u64::MAX } else { (1u64 << (8 * self.elem)) - 1 }
    }
    /// Start afresh: every element `init` on both sides (`None`: uninitialised).
    fn reset_model(&mut self, init: Option<u64>) {
        let n = self.size();
        if self.two {
            let mut tracked = Vec::new();
            for_each_index(&self.ext, |idx| {
                if sampled(idx, n, self.track, self.salt) {
                    tracked.push(idx.to_vec());
                }
            });
            self.oracle = Oracle::new(tracked, init);
            self.reindex();
        } else {
            self.oracle = Oracle::new(std::iter::empty(), init);
            self.mem = vec![init.unwrap_or(UNDEF); n];
        }
        // The statistic, where the oracle tracks every element (time: TRACK).
        self.shadow = if n <= self.track { vec![0; n] } else { Vec::new() };
    }
    fn reindex(&mut self) {
        self.pos = vec![usize::MAX; self.size()];
        for (k, e) in self.oracle.elems.iter().enumerate() {
            self.pos[flat(&self.ext, &e.idx)] = k;
        }
    }
    /// The oracle's element at row-major parent index `k`, when tracked.
    fn elem_at(&self, k: usize) -> Option<&oracle::Elem<u64>> {
        self.oracle.elems.get(self.pos[k])
    }
    /// What `side` of element `k` (row-major parent index) must hold where it
    /// is up to date (`None`: anything).
    fn expect(&self, side: u32, k: usize) -> Option<u64> {
        if self.two {
            self.elem_at(k)?.expect(six(side))
        } else {
            (self.mem[k] != UNDEF).then_some(self.mem[k])
        }
    }
    /// What the program knows `side` of element `k` holds (a copy's source).
    fn known(&self, side: u32, k: usize) -> Option<u64> {
        if self.two {
            self.elem_at(k)?.known[six(side)]
        } else {
            (self.mem[k] != UNDEF).then_some(self.mem[k])
        }
    }
    /// The program wrote `side` of box `b`, unmarked: `val(k)` at its `k`-th element (row-major).
    fn write(&mut self, side: u32, b: &Bx, val: impl Fn(usize) -> Option<u64>) {
        if self.two {
            let (lo, hi) = (b.lo.clone(), b.hi.clone());
            self.oracle.write(six(side), b, |i| val(place(&lo, &hi, i)));
        } else {
            for (k, idx) in b.indices().enumerate() {
                self.mem[flat(&self.ext, &idx)] = val(k).unwrap_or(UNDEF);
            }
        }
    }
    /// The counter bits of the sync-state byte by the oracle.
    fn counter_bits(&self) -> u8 {
        let c = self.oracle.counters;
        (if c[0] != 0 { DV_SYNC_HOST_MODIFIED } else { 0 }) | (if c[1] != 0 { DV_SYNC_DEVICE_MODIFIED } else { 0 })
    }
    /// The statistic: box `b` set to `f(old state)`.
    fn shade(&mut self, b: &Bx, f: impl Fn(u8) -> u8) {
        if !self.two || self.shadow.is_empty() {
            return; // one memory, or a sampled family (the statistic is kept where every element is)
        }
        for idx in b.indices() {
            let k = flat(&self.ext, &idx);
            self.shadow[k] = f(self.shadow[k]);
        }
    }
    /// The statistic: maximal runs of one non-clean state, in row-major order
    /// (for a 1-D DualView, at least the boxes an exact map needs).
    fn fragments(&self) -> usize {
        let mut n = 0;
        let mut prev = 0;
        for &s in &self.shadow {
            if s != 0 && s != prev {
                n += 1;
            }
            prev = s;
        }
        n
    }
    /// The model after a resize (contents kept) to `new` extents: oracle, memory, statistic.
    /// `o` is the oracle to resize (this family's, or a copy of it).
    fn resized_model(&self, new: &[usize], mut o: Oracle<u64>) -> (Oracle<u64>, Vec<u64>, Vec<u8>) {
        let n: usize = new.iter().product();
        let inside = |idx: &[usize]| idx.iter().zip(&self.ext).all(|(i, e)| i < e);
        if self.two {
            // Only the new elements are made (the kept ones are tracked already).
            let mut fresh = Vec::new();
            for_each_index(new, |idx| {
                if !inside(idx) && sampled(idx, n, self.track, self.salt) {
                    fresh.push(idx.to_vec());
                }
            });
            o.resize(&self.ext, fresh, new);
        }
        let mut mem = if self.two { Vec::new() } else { vec![0; n] };
        let fill = if o.counters[0] > o.counters[1] {
            1
        } else if o.counters[1] > o.counters[0] {
            2
        } else {
            0
        };
        let keep_shadow = self.two && n <= self.track && self.shadow.len() == self.size();
        let mut shadow = if keep_shadow { vec![fill; n] } else { Vec::new() };
        if keep_shadow || !self.two {
            for_each_index(new, |idx| {
                if inside(idx) {
                    let (k, old) = (flat(new, idx), flat(&self.ext, idx));
                    if keep_shadow {
                        shadow[k] = self.shadow[old];
                    }
                    if !self.two {
                        mem[k] = self.mem[old];
                    }
                }
            });
        }
        (o, mem, shadow)
    }
}

/// One C handle.
#[derive(Clone)]
struct H {
    p: *mut dv_dualview_t,
    fam: usize,
    /// Parent flat indices (row-major over the family's extents) of this
    /// handle's elements in row-major order; `None` for the whole array.
    region: Option<Vec<usize>>,
    /// The handle's box in parent indices (`lo..hi` per parent axis).
    lo: Vec<usize>,
    hi: Vec<usize>,
    /// Handle axis `k` is parent axis `axes[k]`.
    axes: Vec<usize>,
    ext: Vec<usize>,
    strides: Vec<usize>,
    /// `DV_LAYOUT_*` of this handle's mapping.
    layout: u32,
    generation: u64,
    konst: bool,
    live: bool,
}

impl H {
    /// The handle of a whole family.
    fn whole(p: *mut dv_dualview_t, fam: usize, f: &Fam) -> H {
        H {
            p,
            fam,
            region: None,
            lo: vec![0; f.ext.len()],
            hi: f.ext.clone(),
            axes: (0..f.ext.len()).collect(),
            ext: f.ext.clone(),
            strides: f.strides.clone(),
            layout: f.layout,
            generation: 0,
            konst: false,
            live: true,
        }
    }
    fn bx(&self) -> Bx {
        Bx::new(self.lo.clone(), self.hi.clone())
    }
    fn len(&self) -> usize {
        self.ext.iter().product()
    }
}

/// A subview's mapping: canonical strides when they address the same
/// elements as a Left or Right mapping (the parent's layout first), else strided.
fn sub_mapping(parent_layout: u32, ext: &[usize], raw: &[usize]) -> (u32, Vec<usize>) {
    for cand in [parent_layout, DV_LAYOUT_LEFT, DV_LAYOUT_RIGHT] {
        if cand == DV_LAYOUT_STRIDE {
            continue;
        }
        let c = canonical(cand, ext);
        if ext.contains(&0) || ext.iter().zip(c.iter().zip(raw)).all(|(&e, (x, y))| e <= 1 || x == y) {
            return (cand, c);
        }
    }
    (DV_LAYOUT_STRIDE, raw.to_vec())
}

fn canonical(layout: u32, ext: &[usize]) -> Vec<usize> {
    let mut s = vec![0; ext.len()];
    let mut acc = 1usize;
    if layout == DV_LAYOUT_LEFT {
        for r in 0..ext.len() {
            s[r] = acc;
            acc = acc.wrapping_mul(ext[r]);
        }
    } else {
        for r in (0..ext.len()).rev() {
            s[r] = acc;
            acc = acc.wrapping_mul(ext[r]);
        }
    }
    s
}

/// The strides a strided mapping gets on resize: its axis order, packed.
fn repack(old: &[usize], ext: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ext.len()).collect();
    order.sort_by_key(|&r| old[r]);
    let mut s = vec![0; ext.len()];
    let mut acc = 1usize;
    for r in order {
        s[r] = acc;
        acc = acc.saturating_mul(ext[r].max(1));
    }
    s
}

fn span(ext: &[usize], strides: &[usize]) -> usize {
    if ext.contains(&0) {
        return 0;
    }
    1 + ext.iter().zip(strides).map(|(&e, &s)| (e - 1) * s).sum::<usize>()
}

/// Whether LayoutStride strides are valid (unique mapping) for `ext`.
fn strides_ok(ext: &[usize], strides: &[usize]) -> bool {
    let mut axes: Vec<usize> = (0..ext.len()).filter(|&r| ext[r] > 1).collect();
    axes.sort_by_key(|&r| strides[r]);
    let mut need = 1usize;
    for &r in &axes {
        if strides[r] < need {
            return false;
        }
        need = strides[r].saturating_mul(ext[r]);
    }
    true
}

/// What the library answers for extents given through the C ABI, before
/// any handle state is looked at (`extents_from`), or the element count.
fn parse_extents(e: &dv_extents_t) -> Result<Vec<usize>, dv_status_t> {
    if e.reserved != 0 {
        return Err(DV_ERROR_INVALID_ARGUMENT);
    }
    if e.rank > 8 {
        return Err(DV_ERROR_RANK);
    }
    let vals = &e.extent[..e.rank as usize];
    if vals.iter().any(|&v| v > i64::MAX as u64) {
        return Err(DV_ERROR_INVALID_ARGUMENT);
    }
    let mut p: u128 = 1;
    for &v in vals {
        if v != 0 {
            p = p.saturating_mul(v as u128);
            if p > isize::MAX as u128 {
                return Err(DV_ERROR_OVERFLOW);
            }
        }
    }
    Ok(vals.iter().map(|&v| v as usize).collect())
}

/// Bytes of a dense array of `ext` (u128: no overflow here).
fn dense_bytes(ext: &[usize], elem: usize) -> u128 {
    ext.iter().fold(1u128, |a, &e| a.saturating_mul(e as u128)).saturating_mul(elem as u128)
}

fn ext_c(ext: &[usize]) -> dv_extents_t {
    let mut e = dv_extents_t { rank: ext.len() as u32, reserved: 0, extent: [1; 8] };
    for (o, &v) in e.extent.iter_mut().zip(ext) {
        *o = v as u64;
    }
    e
}

unsafe fn rd(p: *const u8, es: usize) -> u64 {
    // SAFETY (each arm): the caller passes `es` readable bytes.
    unsafe {
        match es {
            1 => u64::from(*p),
            2 => u64::from(u16::from_le((p as *const u16).read_unaligned())),
            4 => u64::from(u32::from_le((p as *const u32).read_unaligned())),
            8 => u64::from_le((p as *const u64).read_unaligned()),
            _ => (0..es).fold(0, |v, b| v | (u64::from(*p.add(b)) << (8 * b))),
        }
    }
}

unsafe fn wr(p: *mut u8, es: usize, v: u64) {
    for b in 0..es {
        // SAFETY: the caller passes `es` writable bytes.
        unsafe { *p.add(b) = (v >> (8 * b)) as u8 };
    }
}

fn last_error() -> String {
    // SAFETY: dv_last_error never returns NULL.
    unsafe { CStr::from_ptr(dv_last_error()) }.to_string_lossy().into_owned()
}

/// A handle value that no table slot can match (slot past every segment, generation 0).
const FOREIGN: [usize; 3] = [0xdead_beef, 0x0000_0000_ffff_fff0, 8];

// ---- the world ---------------------------------------------------------------------

pub struct World {
    /// The oracle's sample size per family ([`TRACK`]; `usize::MAX`: every element).
    track: usize,
    fams: Vec<Fam>,
    hs: Vec<H>,
    dead: Vec<*mut dv_dualview_t>,
    handles_at_start: usize,
    allocs_at_start: usize,
    cuda: bool,
    /// Families an operation touched (checked after it); `None`: all.
    touched: Option<Vec<usize>>,
    /// Handles an operation named (compared in full even in a large family).
    named: Vec<usize>,
    /// Writes made so far (each stores values of its own).
    writes: u64,
    /// Operations run (for the statistics of a replay).
    pub ops: usize,
    /// Failing statuses seen, by code (coverage of the error paths).
    pub statuses: [u64; 19],
    /// Elements compared with the oracle.
    pub compared: u64,
    /// The most fragments (runs of one newer side, [`Fam::fragments`]) a map reached.
    pub fragments: usize,
    /// Calls made through the small subviews of `op_scatter`.
    pub scattered: u64,
}

/// What a run did (for the statistics of a replay).
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    pub ops: usize,
    pub statuses: [u64; 19],
    pub compared: u64,
    pub fragments: usize,
    pub scattered: u64,
}

impl Summary {
    pub fn add(&mut self, o: &Summary) {
        self.ops += o.ops;
        for (a, b) in self.statuses.iter_mut().zip(o.statuses) {
            *a += b;
        }
        self.compared += o.compared;
        self.fragments = self.fragments.max(o.fragments);
        self.scattered += o.scattered;
    }
}

/// The handle argument an operation passes.
#[derive(Clone, Copy)]
enum HArg {
    Live(usize),
    Null,
    Dead(*mut dv_dualview_t),
    Foreign(*mut dv_dualview_t),
}

impl HArg {
    fn ptr(self, w: &World) -> *mut dv_dualview_t {
        match self {
            HArg::Live(i) => w.hs[i].p,
            HArg::Null => null_mut(),
            HArg::Dead(p) | HArg::Foreign(p) => p,
        }
    }
    /// The status a bad handle gets before anything else is checked.
    fn error(self) -> Option<dv_status_t> {
        match self {
            HArg::Live(_) => None,
            HArg::Null => Some(DV_ERROR_NULL_ARGUMENT),
            HArg::Dead(_) | HArg::Foreign(_) => Some(DV_ERROR_INVALID_HANDLE),
        }
    }
    fn live(self) -> Option<usize> {
        match self {
            HArg::Live(i) => Some(i),
            _ => None,
        }
    }
}

fn handle_count() -> usize {
    let mut n = 0usize;
    // SAFETY: n is writable.
    assert_eq!(unsafe { dv_handle_count(&mut n) }, DV_OK);
    n
}

fn fam_allocs() -> usize {
    dualview::memory::live_allocations().iter().filter(|a| a.label.starts_with("fz")).count()
}

/// The sync-state byte of a live handle's family.
fn state_byte(p: *mut dv_dualview_t) -> u8 {
    let mut word: *const u8 = null();
    // SAFETY: live handle, writable output.
    assert_eq!(unsafe { dv_sync_state_word(p, &mut word) }, DV_OK);
    // SAFETY: the byte lives while the family does; read atomically as documented.
    unsafe { (*(word as *const AtomicU8)).load(Ordering::Acquire) }
}

/// `dv_need_sync_*` of a live, fresh handle.
fn need_sync(p: *mut dv_dualview_t, side: u32) -> bool {
    let mut b = false;
    // SAFETY: live handle, writable output.
    let st = unsafe { if side == DV_SIDE_HOST { dv_need_sync_host(p, &mut b) } else { dv_need_sync_device(p, &mut b) } };
    assert_eq!(st, DV_OK, "need_sync: {}", last_error());
    b
}

/// `dv_stats` of a live handle: to_device count, bytes, to_host count, bytes.
fn stats_of(p: *mut dv_dualview_t) -> [u64; 4] {
    let mut s = dv_stats_t::default();
    // SAFETY: live handle, writable output.
    assert_eq!(unsafe { dv_stats(p, &mut s) }, DV_OK);
    [s.to_device_count, s.to_device_bytes, s.to_host_count, s.to_host_bytes]
}

/// The view of one side of a live, fresh handle.
fn view_of(p: *mut dv_dualview_t, side: u32) -> dv_view_info_t {
    let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
    // SAFETY: live handle, writable output.
    let st = unsafe { if side == DV_SIDE_HOST { dv_host_view(p, v.as_mut_ptr()) } else { dv_device_view(p, v.as_mut_ptr()) } };
    assert_eq!(st, DV_OK, "view: {}", last_error());
    // SAFETY: written on success.
    unsafe { v.assume_init() }
}

impl World {
    pub fn new() -> World {
        let mut cuda = false;
        // SAFETY: cuda is writable.
        assert_eq!(unsafe { dv_cuda_available(&mut cuda) }, DV_OK);
        World {
            track: TRACK,
            fams: vec![],
            hs: vec![],
            dead: vec![],
            handles_at_start: handle_count(),
            allocs_at_start: fam_allocs(),
            cuda,
            touched: None,
            named: vec![],
            writes: 0,
            ops: 0,
            statuses: [0; 19],
            compared: 0,
            fragments: 0,
            scattered: 0,
        }
    }

    pub fn summary(&self) -> Summary {
        Summary { ops: self.ops, statuses: self.statuses, compared: self.compared, fragments: self.fragments, scattered: self.scattered }
    }

    fn live_handles(&self) -> Vec<usize> {
        (0..self.hs.len()).filter(|&i| self.hs[i].live).collect()
    }

    /// A live handle picked by the input, or `None` when there is none.
    fn pick(&self, inp: &mut Input) -> Option<usize> {
        let live = self.live_handles();
        if live.is_empty() {
            return None;
        }
        Some(live[inp.below(live.len())])
    }

    /// A handle argument: live, or (when `bad`) NULL, destroyed or foreign.
    fn harg(&mut self, inp: &mut Input, bad: bool) -> Option<HArg> {
        if bad {
            return Some(match inp.below(3) {
                0 => HArg::Null,
                1 if !self.dead.is_empty() => HArg::Dead(self.dead[inp.below(self.dead.len())]),
                _ => HArg::Foreign(FOREIGN[inp.below(FOREIGN.len())] as *mut dv_dualview_t),
            });
        }
        let a = self.pick(inp).map(HArg::Live);
        if let Some(a) = a {
            self.touch(a);
        }
        a
    }

    fn is_stale(&self, h: usize) -> bool {
        let h = &self.hs[h];
        h.region.is_some() && h.generation != self.fams[h.fam].generation
    }

    fn region(&self, h: usize) -> Vec<usize> {
        let h = &self.hs[h];
        h.region.clone().unwrap_or_else(|| (0..self.fams[h.fam].size()).collect())
    }

    /// A handle's box, for the oracle.
    fn bx(&self, h: usize) -> Bx {
        self.hs[h].bx()
    }

    fn two(&self, h: usize) -> bool {
        self.fams[self.hs[h].fam].two
    }

    fn oracle_of(&mut self, h: usize) -> &mut Oracle<u64> {
        let f = self.hs[h].fam;
        &mut self.fams[f].oracle
    }

    /// Compare a status with the expected one, and check the error message.
    #[track_caller]
    fn expect(&mut self, what: &str, got: dv_status_t, want: dv_status_t) {
        assert_eq!(got, want, "{what}: status {got:?}, expected {want:?} (last error: {})", last_error());
        if got != DV_OK {
            self.statuses[got as usize] += 1;
            let msg = last_error();
            assert!(msg.starts_with("dv_"), "{what}: the message does not name the function: {msg:?}");
        }
    }

    /// A fresh write number.
    fn fresh(&mut self) -> u64 {
        self.writes += 1;
        self.writes
    }

    fn add_handle(&mut self, h: H) {
        trace!("  handle {} of family {}: box {:?}..{:?}, const {}", self.hs.len(), h.fam, h.lo, h.hi, h.konst);
        self.touched.get_or_insert_with(Vec::new).push(h.fam);
        self.named.push(self.hs.len());
        self.hs.push(h);
    }

    fn forget(&mut self, p: *mut dv_dualview_t) {
        if self.dead.len() < 64 {
            self.dead.push(p);
        } else {
            let k = p as usize % 64;
            self.dead[k] = p;
        }
    }

    // ---- what the program does -------------------------------------------------------

    /// The program writes `side` of handle `h`'s box through the data pointer
    /// (values of a fresh write), without marking; the model learns it.
    fn program_write(&mut self, h: usize, side: u32) {
        let w = self.fresh();
        let hh = self.hs[h].clone();
        let (es, mask) = (self.fams[hh.fam].elem, self.fams[hh.fam].mask());
        let v = view_of(hh.p, side);
        let strides: Vec<usize> = v.stride[..hh.ext.len()].iter().map(|&s| s as usize).collect();
        for (k, off) in offsets(&hh.ext, &strides).into_iter().enumerate() {
            // SAFETY: host or test-device memory inside the view's span; one thread.
            unsafe { wr((v.data as *mut u8).add(off * es), es, value(w, k, mask)) };
        }
        self.fams[hh.fam].write(side, &hh.bx(), |k| Some(value(w, k, mask)));
        trace!("  write side {side} of handle {h} (family {}, box {:?}..{:?}): write {w}", hh.fam, hh.lo, hh.hi);
    }

    /// A sync of `target` through `h` returned; the statistics moved from
    /// `before` to `after`: at most the handle's box, in at most one
    /// transfer, into `target` only.
    #[track_caller]
    fn account_sync(&mut self, h: usize, target: u32, before: [u64; 4], after: [u64; 4]) {
        let hh = &self.hs[h];
        let f = &self.fams[hh.fam];
        assert_eq!(before, f.stats, "the transfer statistics of family {} moved outside a sync", hh.fam);
        let (k, o) = if target == DV_SIDE_DEVICE { (0, 2) } else { (2, 0) };
        let (dc, db) = (after[k] - before[k], after[k + 1] - before[k + 1]);
        let most = (hh.len() * f.elem) as u64;
        assert_eq!((after[o], after[o + 1]), (before[o], before[o + 1]), "a sync of side {target} moved data the other way");
        assert!(dc <= 1 && db <= most && (dc == 1 || db == 0), "a sync of side {target} moved {db} bytes in {dc} transfers; its box holds {most}");
        assert_eq!(db % f.elem as u64, 0, "a sync moved part of an element");
        let fam = hh.fam;
        self.fams[fam].stats = after;
    }

    /// `dv_modify_*` through live handle `h`, checked against the oracle; whether it succeeded.
    fn modify_through(&mut self, h: usize, side: u32) -> bool {
        let (p, fam) = (self.hs[h].p, self.hs[h].fam);
        let stale = self.is_stale(h);
        let two = self.fams[fam].two;
        // A const handle refuses to drop the other side's newer elements in its box (D17).
        let may_drop = !stale && two && self.hs[h].konst && need_sync(p, side);
        let before = state_byte(p);
        // SAFETY: a live handle.
        let st = unsafe { if side == DV_SIDE_HOST { dv_modify_host(p) } else { dv_modify_device(p) } };
        let want = if stale {
            DV_ERROR_STALE
        } else if two && self.fams[fam].oracle.refuses(six(side)) {
            DV_ERROR_CONCURRENT_MODIFICATION
        } else if may_drop && st == DV_ERROR_INVALID_ARGUMENT {
            DV_ERROR_INVALID_ARGUMENT
        } else {
            DV_OK
        };
        trace!("  modify side {side} through handle {h} (family {fam}, box {:?}..{:?}): {st:?}", self.hs[h].lo, self.hs[h].hi);
        self.expect("dv_modify", st, want);
        if st != DV_OK {
            if !stale {
                assert_eq!(state_byte(p), before, "a refused modify changed the sync state");
            }
            return false;
        }
        if two {
            let b = self.bx(h);
            let f = &mut self.fams[fam];
            f.oracle.modify(six(side), &b).expect("the oracle refuses what the library did");
            f.shade(&b, |_| 1 + side as u8);
            if self.hs[h].region.is_none() {
                self.check_map_bits(h, MAP_BITS, newer_bit(side), "after a whole-array modify: every element newer there");
            }
        }
        true
    }

    /// `dv_sync_*` (or `_async` on the default stream) through live handle
    /// `h`, checked; whether it succeeded.
    fn sync_through(&mut self, h: usize, side: u32, asynchronous: bool) -> bool {
        let (p, fam) = (self.hs[h].p, self.hs[h].fam);
        let stale = self.is_stale(h);
        let two = self.fams[fam].two;
        let may_refuse = !stale && two && self.hs[h].konst && need_sync(p, side);
        let (before, byte) = (stats_of(p), if stale { 0 } else { state_byte(p) });
        // SAFETY: a live handle; NULL is the default stream.
        let st = unsafe {
            match (side, asynchronous) {
                (DV_SIDE_HOST, false) => dv_sync_host(p),
                (_, false) => dv_sync_device(p),
                (DV_SIDE_HOST, true) => dv_sync_host_async(p, null_mut()),
                (_, true) => dv_sync_device_async(p, null_mut()),
            }
        };
        let want = if stale {
            DV_ERROR_STALE
        } else if may_refuse && st == DV_ERROR_CONST_SYNC {
            DV_ERROR_CONST_SYNC
        } else {
            DV_OK
        };
        trace!("  sync side {side} through handle {h} (family {fam}, box {:?}..{:?}): {st:?}", self.hs[h].lo, self.hs[h].hi);
        self.expect("dv_sync", st, want);
        if st != DV_OK {
            if !stale {
                assert_eq!(state_byte(p), byte, "a refused sync changed the sync state");
            }
            assert_eq!(stats_of(p), before, "a refused sync moved data");
            return false;
        }
        if two {
            let b = self.bx(h);
            let f = &mut self.fams[fam];
            f.oracle.sync(six(side), &b);
            let other = 2 - side as u8;
            f.shade(&b, |s| if s == other { 0 } else { s });
        }
        self.account_sync(h, side, before, stats_of(p));
        self.compare(h, side, "right after a sync through it");
        if two && self.hs[h].region.is_none() {
            self.check_map_bits(h, newer_bit(1 - side), 0, "after a whole-array sync: no element newer on the other side");
        }
        true
    }

    // ---- checks ----------------------------------------------------------------------

    /// After a whole-array call through `h`: the bits `mask` of the
    /// sync-state byte are `want` (every element is in one state now).
    #[track_caller]
    fn check_map_bits(&self, h: usize, mask: u8, want: u8, what: &str) {
        let hh = &self.hs[h];
        if self.fams[hh.fam].size() == 0 {
            return;
        }
        let state = state_byte(hh.p);
        assert_eq!(state & mask, want, "sync state {state:#x} {what}");
    }

    /// Everything observable about every live handle agrees with the model.
    pub fn check_all(&mut self) {
        self.check_disjoint();
        for h in self.live_handles() {
            self.check(h, true);
        }
        for f in 0..self.fams.len() {
            self.check_stats(f);
        }
    }

    /// No two allocations of the live families overlap (the host and device
    /// sides of a two-space DualView included): a block handed out twice
    /// would pass data between them.
    fn check_disjoint(&self) {
        let mut ranges: Vec<(usize, usize, usize, u32)> = vec![];
        for (fi, f) in self.fams.iter().enumerate() {
            let Some(h) = self.hs.iter().find(|x| x.live && x.fam == fi && x.region.is_none()) else { continue };
            let n = span(&f.ext, &f.strides) * f.elem;
            if n == 0 {
                continue;
            }
            for side in if f.two { vec![DV_SIDE_HOST, DV_SIDE_DEVICE] } else { vec![DV_SIDE_HOST] } {
                let a = view_of(h.p, side).data as usize;
                ranges.push((a, a + n, fi, side));
            }
        }
        ranges.sort();
        for w in ranges.windows(2) {
            assert!(w[0].1 <= w[1].0, "the memory of family {} side {} and family {} side {} overlaps: {:x?}", w[0].2, w[0].3, w[1].2, w[1].3, w);
        }
    }

    /// [`World::check_all`] restricted to the families the last operation touched
    /// (the data of a large family only through the handles it named).
    pub fn check_touched(&mut self) {
        let Some(fams) = self.touched.take() else { return self.check_all() };
        self.check_disjoint();
        let named = std::mem::take(&mut self.named);
        for h in self.live_handles() {
            let f = self.hs[h].fam;
            if fams.contains(&f) {
                let data = self.fams[f].size() <= SMALL || named.contains(&h);
                self.check(h, data);
            }
        }
        for f in fams {
            self.check_stats(f);
        }
    }

    /// What the last operation costs against the fuel: one, and the elements of each
    /// family it touched (of every family where it touched all).
    fn cost(&self) -> usize {
        let mut fams: Vec<usize> = self.touched.clone().unwrap_or_else(|| (0..self.fams.len()).collect());
        fams.sort_unstable();
        fams.dedup();
        1 + fams.iter().map(|&f| self.fams[f].size()).sum::<usize>()
    }

    /// Note the family of a handle argument as touched.
    fn touch(&mut self, a: HArg) {
        if let HArg::Live(h) = a {
            let f = self.hs[h].fam;
            self.touched.get_or_insert_with(Vec::new).push(f);
            self.named.push(h);
        }
    }

    fn check_stats(&self, f: usize) {
        let Some(h) = self.live_handles().into_iter().find(|&h| self.hs[h].fam == f) else { return };
        assert_eq!(stats_of(self.hs[h].p), self.fams[f].stats, "transfer statistics of family {f}: data moved outside a sync");
    }

    /// Side `side` of handle `h`'s box holds what the oracle expects, read
    /// from memory through the view the library reports.
    #[track_caller]
    fn compare(&mut self, h: usize, side: u32, why: &str) {
        if self.is_stale(h) {
            return;
        }
        let hh = &self.hs[h];
        let f = &self.fams[hh.fam];
        let v = view_of(hh.p, side);
        let r = hh.ext.len();
        let strides: Vec<usize> = v.stride[..r].iter().map(|&s| s as usize).collect();
        let mut n = 0;
        // A handle with more elements than its sampled family (TRACK) tracks: only the tracked
        // ones inside its box, each at the offset its handle-local index gives; else every
        // element of the handle (a small subview of a large family: a few).
        let positions: Vec<(usize, usize)> = if f.two && f.oracle.elems.len() < f.size() && f.oracle.elems.len() < hh.len() {
            f.oracle
                .elems
                .iter()
                .filter(|e| hh.region.is_none() || e.idx.iter().zip(hh.lo.iter().zip(&hh.hi)).all(|(&i, (&l, &u))| l <= i && i < u))
                .map(|e| {
                    let off: usize = hh.axes.iter().zip(&strides).map(|(&pa, &st)| (e.idx[pa] - hh.lo[pa]) * st).sum();
                    (flat(&f.ext, &e.idx), off)
                })
                .collect()
        } else {
            offsets(&hh.ext, &strides).into_iter().enumerate().map(|(k, off)| (hh.region.as_ref().map_or(k, |reg| reg[k]), off)).collect()
        };
        for (at, off) in positions {
            let Some(want) = f.expect(side, at) else { continue };
            // SAFETY: host or test-device memory; the offset lies inside the view's span.
            let got = unsafe { rd((v.data as *const u8).add(off * f.elem), f.elem) };
            n += 1;
            if got != want {
                let idx = row_major(&f.ext).swap_remove(at);
                let detail = if f.two { format!("{:?}", f.elem_at(at)) } else { "one memory".into() };
                panic!(
                    "handle {h} (family {}, ext {:?}, box {:?}..{:?}, const {}) side {side} element {idx:?} {why}: memory {got:#x}, \
                     the oracle expects {want:#x}; need_sync {}; sync state {:#x}; oracle element {detail}; Kokkos' counters {:?}",
                    hh.fam,
                    hh.ext,
                    hh.lo,
                    hh.hi,
                    hh.konst,
                    need_sync(hh.p, side),
                    state_byte(hh.p),
                    f.oracle.counters,
                );
            }
        }
        self.compared += n;
    }

    fn check(&mut self, hi: usize, data: bool) {
        let h = self.hs[hi].clone();
        let f = &self.fams[h.fam];
        let p = h.p;
        let mut b = false;
        // Shape (answered even by stale subviews).
        let mut e = dv_extents_t { rank: 99, reserved: 0, extent: [0; 8] };
        // SAFETY: live handle, writable outputs (here and below).
        assert_eq!(unsafe { dv_extents(p, &mut e) }, DV_OK);
        assert_eq!(e, ext_c(&h.ext), "extents of handle {hi}");
        let mut info = dv_info_t::default();
        assert_eq!(unsafe { dv_info(p, &mut info) }, DV_OK);
        let stale = self.is_stale(hi);
        let mut bits = 0;
        for (on, bit) in [
            (!f.two, DV_INFO_SINGLE_SPACE),
            (!f.two, DV_INFO_ONE_ALLOCATION),
            (h.konst, DV_INFO_CONST),
            (h.region.is_some(), DV_INFO_SUBVIEW),
            (f.owned, DV_INFO_OWNED),
            (stale, DV_INFO_STALE),
        ] {
            if on {
                bits |= bit;
            }
        }
        let uses = self.hs.iter().filter(|x| x.live && x.fam == h.fam).count() as u64;
        // Whether the mirror is page-locked is the driver's answer (the test device registers
        // mirrors as a CUDA device does, and a registration may be refused): not compared here
        // (tests/mirror_registration.rs checks it).
        assert_eq!(info.bits & !DV_INFO_MIRROR_PINNED, bits, "info bits of handle {hi}");
        assert_eq!(
            (info.dtype, info.rank, info.elem_size, info.use_count),
            (f.dtype, h.ext.len() as u32, f.elem as u64, uses),
            "info of handle {hi}"
        );
        let device_space = if f.space == DV_SPACE_HOST { DV_SPACE_HOST } else { DV_SPACE_TEST_DEVICE };
        let host_space = if f.single_flag { DV_SPACE_TEST_DEVICE } else { DV_SPACE_HOST };
        assert_eq!((info.host_space, info.device_space), (host_space, device_space));
        // The sync-state byte: Kokkos' counters as the oracle's, the map bits consistent.
        let state = state_byte(p);
        if f.two {
            let counters = f.counter_bits();
            assert_eq!(
                state & (DV_SYNC_HOST_MODIFIED | DV_SYNC_DEVICE_MODIFIED),
                counters,
                "sync state {state:#x} of family {}: Kokkos' counters are {:?}",
                h.fam,
                f.oracle.counters
            );
            assert_eq!(state & !(MAP_BITS | DV_SYNC_HOST_MODIFIED | DV_SYNC_DEVICE_MODIFIED | DV_SYNC_IN_FLIGHT), 0, "sync state {state:#x}: unknown bits");
            assert!(
                state & DV_SYNC_PARTIAL == 0 || state & (DV_SYNC_HOST_NEWER | DV_SYNC_DEVICE_NEWER) != 0,
                "sync state {state:#x}: elements in several states, none newer"
            );
        } else {
            assert_eq!(state, DV_SYNC_ONE_SPACE, "sync state of one-space family {}", h.fam);
        }
        if stale {
            for side in [DV_SIDE_HOST, DV_SIDE_DEVICE] {
                let st = unsafe { if side == DV_SIDE_HOST { dv_need_sync_host(p, &mut b) } else { dv_need_sync_device(p, &mut b) } };
                assert_eq!(st, DV_ERROR_STALE, "need_sync of a stale subview");
                let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
                let st = unsafe { if side == DV_SIDE_HOST { dv_host_view(p, v.as_mut_ptr()) } else { dv_device_view(p, v.as_mut_ptr()) } };
                assert_eq!(st, DV_ERROR_STALE, "view of a stale subview");
            }
            return;
        }
        let mut ptrs = [0usize; 2];
        for side in [DV_SIDE_HOST, DV_SIDE_DEVICE] {
            let f = &self.fams[h.fam];
            let ns = need_sync(p, side);
            if f.two {
                if f.oracle.kokkos_need_sync(six(side)) {
                    assert!(ns, "need_sync({side}) of handle {hi} is false where Kokkos' counters {:?} say true", f.oracle.counters);
                }
                if h.region.is_none() {
                    let other = 1 - side;
                    let by_byte = state & ((if other == DV_SIDE_HOST { DV_SYNC_HOST_MODIFIED } else { DV_SYNC_DEVICE_MODIFIED }) | newer_bit(other)) != 0;
                    assert_eq!(ns, by_byte, "need_sync({side}) of a whole handle disagrees with the sync state {state:#x}");
                }
            } else {
                assert!(!ns, "need_sync({side}) on one space");
            }
            let v = view_of(p, side);
            let r = h.ext.len();
            assert_eq!(v.rank as usize, r);
            assert_eq!(&v.extent[..r], &ext_c(&h.ext).extent[..r], "view extents of handle {hi}");
            let strides: Vec<usize> = v.stride[..r].iter().map(|&s| s as usize).collect();
            assert_eq!(
                strides, h.strides,
                "strides of handle {hi} (side {side}, ext {:?}, family layout {} ext {:?} strides {:?}, subview {})",
                h.ext, f.layout, f.ext, f.strides, h.region.is_some()
            );
            assert_eq!(v.span as usize, span(&h.ext, &h.strides), "span of handle {hi}");
            assert_eq!(v.elem_size as usize, f.elem);
            ptrs[side as usize] = v.data as usize;
            if data && !ns {
                self.compare(hi, side, "where need_sync is false");
            }
        }
        let f = &self.fams[h.fam];
        if !f.two && !h.ext.contains(&0) {
            assert_eq!(ptrs[0], ptrs[1], "a one-space DualView has one allocation");
        }
    }

    /// Destroy every handle; the handle count and the allocations must be back.
    pub fn finish(mut self) {
        for h in 0..self.hs.len() {
            if self.hs[h].live {
                // SAFETY: a live handle, destroyed once.
                assert_eq!(unsafe { dv_destroy(self.hs[h].p) }, DV_OK);
                self.hs[h].live = false;
            }
        }
        assert_eq!(handle_count(), self.handles_at_start, "handles leaked");
        assert_eq!(fam_allocs(), self.allocs_at_start, "allocations leaked: {:?}", dualview::memory::live_allocations());
        // Wrapped buffers are dropped here, after every handle.
        self.fams.clear();
    }

    // ---- the operations ----------------------------------------------------------------

    /// Run one operation read from `inp`.
    pub fn step(&mut self, inp: &mut Input) {
        self.ops += 1;
        self.touched = Some(Vec::new());
        self.named.clear();
        let op = inp.u8() % 34;
        trace!("op {} ({op})", self.ops);
        match op {
            0 | 1 => self.op_create(inp),
            2 => self.op_wrap(inp),
            3 => self.op_clone(inp, false),
            4 => self.op_clone(inp, true),
            5 | 6 => self.op_subview(inp),
            7 => self.op_destroy(inp),
            8 => self.op_modify(inp),
            9 => self.op_sync(inp),
            10 => self.op_need_sync(inp),
            11 => self.op_clear(inp),
            12 => self.op_access(inp),
            13 => self.op_fill(inp),
            14 => self.op_view_fill(inp),
            15 => self.op_view_copy(inp),
            16 => self.op_deep_copy(inp),
            17 => self.op_resize(inp),
            18 => self.op_resized(inp),
            19 => self.op_query(inp),
            20 => self.op_extents_fns(inp),
            21 => self.op_misc(inp),
            22 => self.op_stats(inp),
            23 => self.op_raw_create(inp),
            24 => self.op_modify(inp),
            25 => self.op_sync(inp),
            26 | 27 => self.op_write(inp),
            28 => self.op_push(inp),
            29 => self.op_halo(inp),
            30 => self.op_marks(inp),
            31 => self.op_scatter(inp),
            32 => self.op_create_big(inp),
            _ => self.op_write(inp),
        }
    }

    fn gen_desc(&mut self, inp: &mut Input) -> (dv_desc_t, bool, bool) {
        let kind = inp.below(6);
        let (space, ordinal, single_flag) = match kind {
            0 => (DV_SPACE_HOST, 0, false),
            5 => (DV_SPACE_TEST_DEVICE, inp.below(3) as u32, true),
            _ => (DV_SPACE_TEST_DEVICE, inp.below(3) as u32, false),
        };
        let (dtype, elem_size, elem_align) = match inp.below(6) {
            0 => (DV_DTYPE_UINT8, 0, 0),
            1 => (DV_DTYPE_INT16, 0, 0),
            2 => (DV_DTYPE_INT32, 0, 0),
            3 => (DV_DTYPE_INT64, 0, 0),
            4 => (DV_DTYPE_FLOAT64, 8, 0),
            _ => (DV_DTYPE_BYTES, 3, 0),
        };
        let layout = [DV_LAYOUT_LEFT, DV_LAYOUT_RIGHT, DV_LAYOUT_STRIDE][inp.below(3)];
        let rank = inp.below(4);
        let mut ext = vec![0usize; rank];
        for e in ext.iter_mut() {
            *e = inp.below(5);
        }
        let mut strides = [0u64; 8];
        if layout == DV_LAYOUT_STRIDE {
            // A valid padded order: left or right, each axis padded by 0..2.
            let left = inp.bool();
            let order: Vec<usize> = if left { (0..rank).collect() } else { (0..rank).rev().collect() };
            let mut acc = 1usize;
            for r in order {
                strides[r] = acc as u64;
                acc = acc * ext[r].max(1) + inp.below(3);
            }
        }
        let mut flags = if single_flag { DV_FLAG_SINGLE_SPACE } else { 0 };
        let uninit = inp.below(8) == 0;
        if uninit {
            flags |= DV_FLAG_WITHOUT_INITIALIZING;
        }
        let d = dv_desc_t {
            dtype,
            elem_size,
            elem_align,
            layout,
            space,
            ordinal,
            flags,
            reserved: 0,
            extents: ext_c(&ext),
            strides,
        };
        (d, single_flag, uninit)
    }

    fn fam_from_desc(&self, label: Vec<u8>, d: &dv_desc_t, owned: bool, uninit: bool) -> Fam {
        let ext: Vec<usize> = d.extents.extent[..d.extents.rank as usize].iter().map(|&v| v as usize).collect();
        let elem = match d.dtype {
            DV_DTYPE_UINT8 => 1,
            DV_DTYPE_INT16 => 2,
            DV_DTYPE_INT32 => 4,
            DV_DTYPE_BYTES => d.elem_size as usize,
            _ => 8,
        };
        let align = if d.dtype == DV_DTYPE_BYTES { 1 << (elem.trailing_zeros().min(4)) } else { elem };
        let strides = if d.layout == DV_LAYOUT_STRIDE {
            d.strides[..ext.len()].iter().map(|&s| s as usize).collect()
        } else {
            canonical(d.layout, &ext)
        };
        let single_flag = d.flags & DV_FLAG_SINGLE_SPACE != 0;
        let mut f = Fam {
            label,
            dtype: d.dtype,
            elem,
            align,
            layout: d.layout,
            strides,
            ext,
            two: d.space != DV_SPACE_HOST && !single_flag,
            space: d.space,
            ordinal: d.ordinal,
            single_flag,
            oracle: Oracle::new(std::iter::empty(), None),
            pos: vec![],
            salt: self.ops as u64 ^ (self.fams.len() as u64) << 32,
            track: self.track,
            mem: vec![],
            shadow: vec![],
            generation: 0,
            owned,
            stats: [0; 4],
            bufs: vec![],
        };
        f.reset_model(if uninit { None } else { Some(0) });
        trace!("  family {}: ext {:?}, layout {}, strides {:?}, element {} bytes, two spaces {}, uninitialised {uninit}", self.fams.len(), f.ext, f.layout, f.strides, f.elem, f.two);
        f
    }

    fn gen_label(&mut self, inp: &mut Input) -> Vec<u8> {
        let mut l = b"fz".to_vec();
        for _ in 0..inp.below(4) {
            let c = inp.u8();
            if c != 0 {
                l.push(c);
            }
        }
        l.push(0);
        l
    }

    fn op_create(&mut self, inp: &mut Input) {
        if self.fams.len() >= MAX_FAMILIES || self.live_handles().len() >= MAX_HANDLES {
            return;
        }
        let label = self.gen_label(inp);
        let (mut d, _single, uninit) = self.gen_desc(inp);
        let fault = inp.fault(19);
        let mut label_p = label.as_ptr() as *const c_char;
        let mut desc_null = false;
        let mut out: *mut dv_dualview_t = null_mut();
        let mut out_p: *mut *mut dv_dualview_t = &mut out;
        let rank = d.extents.rank as usize;
        let mut want = DV_OK;
        match fault {
            None => {}
            Some(0) => (label_p, want) = (null(), DV_ERROR_NULL_ARGUMENT),
            Some(1) => (desc_null, want) = (true, DV_ERROR_NULL_ARGUMENT),
            Some(2) => (out_p, want) = (null_mut(), DV_ERROR_NULL_ARGUMENT),
            Some(3) => (d.reserved, want) = (1 + inp.u8() as u32, DV_ERROR_INVALID_ARGUMENT),
            Some(4) => {
                // A bit above every DV_FLAG_* (DV_FLAG_ALL, src/abi.rs), up to bit 30.
                let unknown = (DV_FLAG_ALL + 1).next_power_of_two();
                (d.flags, want) = (d.flags | unknown << inp.below(unknown.leading_zeros() as usize), DV_ERROR_INVALID_ARGUMENT)
            }
            Some(5) => {
                // A value past every DV_DTYPE_* (the Rust enum is that family, tests/abi.rs).
                let unknown = dualview::element::Dtype::ALL.iter().map(|&t| t as u32).max().unwrap_or(0) + 1;
                (d.dtype, want) = (unknown + inp.u32() % 1000, DV_ERROR_INVALID_ARGUMENT)
            }
            Some(6) => {
                // A size that contradicts the type (or a zero-byte element).
                d.elem_size = if d.dtype == DV_DTYPE_BYTES { 0 } else { 5 };
                want = DV_ERROR_INVALID_ARGUMENT;
            }
            Some(7) => (d.elem_align, want) = ([3, 5, 128, 7][inp.below(4)], DV_ERROR_INVALID_ARGUMENT),
            Some(8) => (d.layout, want) = (3 + inp.u8() as u32, DV_ERROR_INVALID_ARGUMENT),
            Some(9) => (d.space, want) = (5 + inp.u8() as u32, DV_ERROR_INVALID_ARGUMENT),
            Some(10) => (d.extents.rank, want) = (9 + inp.u8() as u32, DV_ERROR_RANK),
            Some(11) if rank > 0 => {
                d.extents.extent[inp.below(rank)] = u64::MAX - inp.u8() as u64;
                want = DV_ERROR_INVALID_ARGUMENT;
            }
            Some(12) if rank >= 2 => {
                d.extents.extent[0] = 1 << 62;
                d.extents.extent[1] = 2 + inp.below(3) as u64;
                want = DV_ERROR_OVERFLOW;
                if d.layout == DV_LAYOUT_STRIDE {
                    d.layout = DV_LAYOUT_LEFT;
                }
            }
            Some(13) if rank >= 2 && d.extents.extent[0] > 1 && d.extents.extent[1] > 1 => {
                d.layout = DV_LAYOUT_STRIDE;
                d.strides[0] = 1;
                d.strides[1] = 1;
                want = DV_ERROR_INVALID_ARGUMENT;
            }
            Some(14) => (d.flags, want) = (d.flags | DV_FLAG_PINNED_HOST | DV_FLAG_SINGLE_SPACE, DV_ERROR_INVALID_ARGUMENT),
            Some(15 | 18) if !self.cuda => {
                d.space = if fault == Some(15) { DV_SPACE_CUDA } else { DV_SPACE_CUDA_UVM };
                d.flags &= !DV_FLAG_SINGLE_SPACE;
                want = DV_ERROR_NO_DEVICE;
            }
            Some(16) if !self.cuda && d.space == DV_SPACE_TEST_DEVICE && d.flags & DV_FLAG_SINGLE_SPACE == 0 => {
                d.flags |= DV_FLAG_PINNED_HOST;
                want = DV_ERROR_NO_DEVICE;
            }
            Some(17) if d.space == DV_SPACE_TEST_DEVICE => {
                d.ordinal = 64 + inp.u8() as u32;
                want = DV_ERROR_NO_DEVICE;
            }
            Some(_) => {}
        }
        if d.layout == DV_LAYOUT_STRIDE && want == DV_OK {
            let ext: Vec<usize> = d.extents.extent[..rank].iter().map(|&v| v as usize).collect();
            let s: Vec<usize> = d.strides[..rank].iter().map(|&v| v as usize).collect();
            assert!(strides_ok(&ext, &s), "generator made bad strides {s:?} for {ext:?}");
        }
        // Taken after the last change of `d`.
        let desc_p: *const dv_desc_t = if desc_null { null() } else { &d };
        // SAFETY: every pointer is NULL or valid (label NUL-terminated).
        let st = unsafe { dv_create(label_p, desc_p, out_p) };
        self.expect("dv_create", st, want);
        if st == DV_OK {
            let fam = self.fam_from_desc(label, &d, true, uninit);
            let h = H::whole(out, self.fams.len(), &fam);
            self.fams.push(fam);
            self.add_handle(h);
        } else {
            assert!(out.is_null(), "dv_create wrote *out on failure");
        }
    }

    fn op_wrap(&mut self, inp: &mut Input) {
        if self.fams.len() >= MAX_FAMILIES || self.live_handles().len() >= MAX_HANDLES {
            return;
        }
        let label = self.gen_label(inp);
        let (mut d, single, _) = self.gen_desc(inp);
        d.flags &= !DV_FLAG_WITHOUT_INITIALIZING;
        let fam0 = self.fam_from_desc(label.clone(), &d, false, false);
        let bytes = span(&fam0.ext, &fam0.strides) * fam0.elem;
        let words = bytes.div_ceil(8) + 2;
        let mut hb = vec![0u64; words];
        let mut db = vec![0u64; words];
        let one = !fam0.two;
        let mut host = hb.as_mut_ptr() as *mut c_void;
        let mut device = if one { if inp.bool() { null_mut() } else { host } } else { db.as_mut_ptr() as *mut c_void };
        let fault = inp.fault(9);
        let mut label_p = label.as_ptr() as *const c_char;
        let mut desc_null = false;
        let mut out: *mut dv_dualview_t = null_mut();
        let mut out_p: *mut *mut dv_dualview_t = &mut out;
        let mut want = DV_OK;
        match fault {
            None => {}
            Some(0) => (label_p, want) = (null(), DV_ERROR_NULL_ARGUMENT),
            Some(1) => (desc_null, want) = (true, DV_ERROR_NULL_ARGUMENT),
            Some(2) => (host, want) = (null_mut(), DV_ERROR_NULL_ARGUMENT),
            Some(3) => (out_p, want) = (null_mut(), DV_ERROR_NULL_ARGUMENT),
            // Over two spaces a NULL device adopts the host array (issue 20): the device side is dualview's.
            Some(4) => device = null_mut(),
            Some(5) => {
                device = host;
                want = if one || bytes == 0 { DV_OK } else { DV_ERROR_INVALID_ARGUMENT };
            }
            Some(6) if one => (device, want) = (db.as_mut_ptr() as *mut c_void, DV_ERROR_INVALID_ARGUMENT),
            Some(7) if fam0.align > 1 => {
                // SAFETY: inside the buffer (two spare words).
                host = unsafe { (host as *mut u8).add(1) } as *mut c_void;
                if one && !device.is_null() {
                    device = host;
                }
                want = DV_ERROR_INVALID_ARGUMENT;
            }
            Some(8) if !self.cuda => {
                d.space = DV_SPACE_CUDA;
                d.flags &= !DV_FLAG_SINGLE_SPACE;
                device = db.as_mut_ptr() as *mut c_void;
                want = DV_ERROR_NO_DEVICE;
            }
            Some(_) => {}
        }
        let _ = single;
        let desc_p: *const dv_desc_t = if desc_null { null() } else { &d };
        // SAFETY: the buffers hold the span (plus slack) and outlive the handles.
        let st = unsafe { dv_wrap(label_p, desc_p, host, device, out_p) };
        self.expect("dv_wrap", st, want);
        if st == DV_OK {
            let mut fam = fam0;
            if device.is_null() && fam.two {
                // Adopted: the host holds the data, marked modified everywhere (the program's write, then its mark).
                let b = Bx::whole(&fam.ext);
                fam.oracle.modify(0, &b).expect("a fresh oracle refuses nothing");
                fam.shade(&b, |_| 1);
            }
            fam.bufs = vec![hb, db];
            let h = H::whole(out, self.fams.len(), &fam);
            self.fams.push(fam);
            self.add_handle(h);
        }
    }

    fn op_clone(&mut self, inp: &mut Input, konst: bool) {
        if self.live_handles().len() >= MAX_HANDLES {
            return;
        }
        let fault = inp.fault(2);
        let Some(src) = self.harg(inp, fault == Some(0)) else { return };
        let mut out: *mut dv_dualview_t = null_mut();
        let out_p: *mut *mut dv_dualview_t = if fault == Some(1) { null_mut() } else { &mut out };
        let want = src.error().unwrap_or(if out_p.is_null() { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
        let sp = src.ptr(self);
        // SAFETY: handles are checked by the library; out is NULL or writable.
        let st = unsafe { if konst { dv_clone_const(sp, out_p) } else { dv_clone(sp, out_p) } };
        self.expect(if konst { "dv_clone_const" } else { "dv_clone" }, st, want);
        if st == DV_OK {
            let mut h = self.hs[src.live().unwrap()].clone();
            h.p = out;
            h.konst |= konst;
            self.add_handle(h);
        }
    }

    fn op_destroy(&mut self, inp: &mut Input) {
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        let want = match a {
            HArg::Null => DV_OK,
            other => other.error().unwrap_or(DV_OK),
        };
        // SAFETY: the library checks the handle.
        let st = unsafe { dv_destroy(a.ptr(self)) };
        self.expect("dv_destroy", st, want);
        if let (DV_OK, HArg::Live(i)) = (st, a) {
            self.hs[i].live = false;
            self.forget(self.hs[i].p);
        }
    }

    fn op_subview(&mut self, inp: &mut Input) {
        if self.live_handles().len() >= MAX_HANDLES {
            return;
        }
        let fault = inp.fault(6);
        let Some(src) = self.harg(inp, fault == Some(0)) else { return };
        let ext: Vec<usize> = src.live().map(|i| self.hs[i].ext.clone()).unwrap_or_default();
        let mut n = ext.len();
        if fault == Some(1) {
            n = (n + 1 + inp.below(2)) % 9; // another count: RANK_MISMATCH
        }
        let mut ranges = vec![];
        for r in 0..n {
            let e = ext.get(r).copied().unwrap_or(1) as u64;
            let k = inp.below(3) as u32;
            let x = inp.u8() as u64 % (e + 1);
            let y = inp.u8() as u64 % (e + 1 - x);
            let range = match k {
                DV_RANGE => dv_range_t { kind: DV_RANGE, reserved: 0, begin: x, end: x + y },
                DV_INDEX if e > 0 => dv_range_t { kind: DV_INDEX, reserved: 0, begin: x % e, end: 0 },
                _ => dv_range_t { kind: DV_ALL, reserved: 0, begin: inp.u8() as u64, end: 0 },
            };
            ranges.push(range);
        }
        let mut arg_error = None;
        if !ranges.is_empty() {
            let r = inp.below(ranges.len());
            match fault {
                Some(2) => {
                    ranges[r].reserved = 1;
                    arg_error = Some(DV_ERROR_INVALID_ARGUMENT);
                }
                Some(3) => {
                    ranges[r].kind = 3 + inp.u8() as u32;
                    arg_error = Some(DV_ERROR_INVALID_ARGUMENT);
                }
                Some(4) => {
                    // Out of range: past the end, reversed, or an index at the end.
                    let e = ext.get(r).copied().unwrap_or(0) as u64;
                    ranges[r] = match inp.below(3) {
                        0 => dv_range_t { kind: DV_RANGE, reserved: 0, begin: 0, end: e + 1 + inp.u8() as u64 },
                        1 if e > 0 => dv_range_t { kind: DV_RANGE, reserved: 0, begin: e, end: e - 1 },
                        _ => dv_range_t { kind: DV_INDEX, reserved: 0, begin: e + inp.u8() as u64, end: 0 },
                    };
                }
                _ => {}
            }
        }
        let mut out: *mut dv_dualview_t = null_mut();
        let out_p: *mut *mut dv_dualview_t = if fault == Some(5) { null_mut() } else { &mut out };
        let ranges_p = if fault == Some(5) && inp.bool() && n > 0 { null() } else { ranges.as_ptr() };
        // Expected: handle, ranges NULL, out NULL, each range's reserved/kind, then state.
        let want = if let Some(e) = src.error() {
            e
        } else if ranges_p.is_null() || out_p.is_null() {
            DV_ERROR_NULL_ARGUMENT
        } else if let Some(e) = arg_error {
            e
        } else {
            let h = src.live().unwrap();
            if self.is_stale(h) {
                DV_ERROR_STALE
            } else if n != ext.len() {
                DV_ERROR_RANK_MISMATCH
            } else if ranges.iter().zip(&ext).any(|(r, &e)| match r.kind {
                DV_RANGE => r.begin > r.end || r.end > e as u64,
                DV_INDEX => r.begin >= e as u64,
                _ => false,
            }) {
                DV_ERROR_OUT_OF_RANGE
            } else {
                DV_OK
            }
        };
        // SAFETY: ranges holds n entries (or is NULL); out is NULL or writable.
        let st = unsafe { dv_subview(src.ptr(self), ranges_p, n, out_p) };
        self.expect("dv_subview", st, want);
        if st != DV_OK {
            return;
        }
        self.add_subview(src.live().unwrap(), &ranges, out);
    }

    /// Record the subview `out` made of handle `hi` with `ranges` (valid ones).
    fn add_subview(&mut self, hi: usize, ranges: &[dv_range_t], out: *mut dv_dualview_t) -> usize {
        let parent = self.hs[hi].clone();
        let ext = parent.ext.clone();
        let mut new_ext = vec![];
        let mut new_strides = vec![];
        let (mut lo, mut hi_, mut axes) = (parent.lo.clone(), parent.hi.clone(), vec![]);
        for (r, rg) in ranges.iter().enumerate() {
            let a = parent.axes[r];
            match rg.kind {
                DV_ALL => {
                    new_ext.push(ext[r]);
                    new_strides.push(parent.strides[r]);
                    axes.push(a);
                }
                DV_RANGE => {
                    new_ext.push((rg.end - rg.begin) as usize);
                    new_strides.push(parent.strides[r]);
                    (lo[a], hi_[a]) = (parent.lo[a] + rg.begin as usize, parent.lo[a] + rg.end as usize);
                    axes.push(a);
                }
                _ => (lo[a], hi_[a]) = (parent.lo[a] + rg.begin as usize, parent.lo[a] + rg.begin as usize + 1),
            }
        }
        // The parent indices of the box, row-major: the subview's elements in its own row-major order.
        let fext = &self.fams[parent.fam].ext;
        let region = Bx::new(lo.clone(), hi_.clone()).indices().map(|idx| flat(fext, &idx)).collect();
        let generation = self.fams[parent.fam].generation;
        let (layout, new_strides) = sub_mapping(parent.layout, &new_ext, &new_strides);
        self.add_handle(H {
            p: out,
            fam: parent.fam,
            region: Some(region),
            lo,
            hi: hi_,
            axes,
            ext: new_ext,
            strides: new_strides,
            layout,
            generation,
            konst: parent.konst,
            live: true,
        });
        self.hs.len() - 1
    }

    /// A subview of live, fresh handle `hi` made for an operation of the
    /// engine (valid ranges); its index.
    fn temp_subview(&mut self, hi: usize, ranges: &[dv_range_t]) -> usize {
        let mut out: *mut dv_dualview_t = null_mut();
        // SAFETY: ranges holds one entry per axis; out is writable.
        let st = unsafe { dv_subview(self.hs[hi].p, ranges.as_ptr(), ranges.len(), &mut out) };
        self.expect("dv_subview", st, DV_OK);
        self.add_subview(hi, ranges, out)
    }

    /// Destroy the handles from index `base` on (an operation's own subviews).
    fn drop_temps(&mut self, base: usize) {
        for h in base..self.hs.len() {
            if self.hs[h].live {
                // SAFETY: a live handle, destroyed once.
                assert_eq!(unsafe { dv_destroy(self.hs[h].p) }, DV_OK);
                self.forget(self.hs[h].p);
            }
        }
        self.hs.truncate(base);
        self.named.retain(|&h| h < base);
    }

    fn op_modify(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        if let Some(h) = a.live() {
            self.modify_through(h, side);
            return;
        }
        let p = a.ptr(self);
        // SAFETY: the library checks the handle.
        let st = unsafe { if side == DV_SIDE_HOST { dv_modify_host(p) } else { dv_modify_device(p) } };
        self.expect("dv_modify", st, a.error().unwrap());
    }

    fn op_sync(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let asynchronous = inp.below(4) == 0;
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        if let Some(h) = a.live() {
            self.sync_through(h, side, asynchronous);
            return;
        }
        let p = a.ptr(self);
        // SAFETY: the library checks the handle; NULL is the default stream.
        let st = unsafe {
            match (side, asynchronous) {
                (DV_SIDE_HOST, false) => dv_sync_host(p),
                (_, false) => dv_sync_device(p),
                (DV_SIDE_HOST, true) => dv_sync_host_async(p, null_mut()),
                (_, true) => dv_sync_device_async(p, null_mut()),
            }
        };
        self.expect("dv_sync", st, a.error().unwrap());
    }

    /// `dv_push_*`: modify `side` and sync the other side through the handle's box.
    fn op_push(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        let p = a.ptr(self);
        let Some(h) = a.live() else {
            // SAFETY: the library checks the handle.
            let st = unsafe { if side == DV_SIDE_HOST { dv_push_host(p) } else { dv_push_device(p) } };
            return self.expect("dv_push", st, a.error().unwrap());
        };
        self.push_through(h, side);
    }

    /// `dv_push_*` through live handle `h`, checked; whether it succeeded.
    fn push_through(&mut self, h: usize, side: u32) -> bool {
        let (p, fam) = (self.hs[h].p, self.hs[h].fam);
        let two = self.fams[fam].two;
        let stale = self.is_stale(h);
        let want = if self.hs[h].konst {
            DV_ERROR_INVALID_ARGUMENT
        } else if stale {
            DV_ERROR_STALE
        } else if two && self.fams[fam].oracle.refuses(six(side)) {
            DV_ERROR_CONCURRENT_MODIFICATION
        } else {
            DV_OK
        };
        let (before, byte) = (stats_of(p), if stale { 0 } else { state_byte(p) });
        // SAFETY: a live handle.
        let st = unsafe { if side == DV_SIDE_HOST { dv_push_host(p) } else { dv_push_device(p) } };
        trace!("  push side {side} through handle {h} (family {fam}, box {:?}..{:?}): {st:?}", self.hs[h].lo, self.hs[h].hi);
        self.expect("dv_push", st, want);
        if st != DV_OK {
            if !stale {
                assert_eq!(state_byte(p), byte, "a refused push changed the sync state");
            }
            assert_eq!(stats_of(p), before, "a refused push moved data");
            return false;
        }
        let target = 1 - side;
        if two {
            let b = self.bx(h);
            let f = &mut self.fams[fam];
            f.oracle.push(six(side), &b).expect("the oracle refuses what the library did");
            f.shade(&b, |_| 0);
            if self.hs[h].region.is_none() {
                self.check_map_bits(h, MAP_BITS, 0, "after a whole-array push: every element clean");
            }
        }
        self.account_sync(h, target, before, stats_of(p));
        self.compare(h, target, "right after a push through it");
        true
    }

    fn op_need_sync(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let fault = inp.fault(2);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let mut b = false;
        let out: *mut bool = if fault == Some(1) { null_mut() } else { &mut b };
        let want = a.error().unwrap_or_else(|| {
            if out.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if self.is_stale(a.live().unwrap()) {
                DV_ERROR_STALE
            } else {
                DV_OK
            }
        });
        let p = a.ptr(self);
        // SAFETY: out is NULL or writable.
        let st = unsafe { if side == DV_SIDE_HOST { dv_need_sync_host(p, out) } else { dv_need_sync_device(p, out) } };
        self.expect("dv_need_sync", st, want);
        if st == DV_OK {
            let h = a.live().unwrap();
            let f = &self.fams[self.hs[h].fam];
            if f.two && f.oracle.kokkos_need_sync(six(side)) {
                assert!(b, "need_sync({side}) is false where Kokkos' counters {:?} say true", f.oracle.counters);
            }
            if !b {
                self.compare(h, side, "where need_sync is false");
            }
        }
    }

    fn op_clear(&mut self, inp: &mut Input) {
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            if self.hs[h].konst {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(h) {
                DV_ERROR_STALE
            } else {
                DV_OK
            }
        });
        // SAFETY: the library checks the handle.
        let st = unsafe { dv_clear_sync_state(a.ptr(self)) };
        trace!("  clear_sync_state: {st:?}");
        self.expect("dv_clear_sync_state", st, want);
        if st == DV_OK {
            let h = a.live().unwrap();
            let f = &mut self.fams[self.hs[h].fam];
            if f.two {
                f.oracle.clear();
                f.shadow.fill(0);
                let state = state_byte(self.hs[h].p);
                assert_eq!(state & !DV_SYNC_IN_FLIGHT, DV_SYNC_CLEAN, "sync state {state:#x} after clear_sync_state");
            }
        }
    }

    fn op_access(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let mode = 1 + inp.below(4) as u32;
        let _ = inp.u16(); // (the value written once came from here; now each write has its own)
        let fault = inp.fault(3);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let mut ptr: *mut c_void = null_mut();
        let out: *mut *mut c_void = if fault == Some(1) { null_mut() } else { &mut ptr };
        let mode = if fault == Some(2) { [0, 5, 7, 0x100][inp.below(4)] } else { mode };
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            if out.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if !(1..=4).contains(&mode) || (mode != DV_ACCESS_READ && self.hs[h].konst) {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(h) {
                DV_ERROR_STALE
            } else {
                DV_OK
            }
        });
        let p = a.ptr(self);
        // A read through a const handle syncs: it may refuse where the box may hold the other side's newer elements.
        let may_refuse = want == DV_OK && {
            let h = a.live().unwrap();
            mode == DV_ACCESS_READ && self.hs[h].konst && self.two(h) && need_sync(p, side)
        };
        let before = a.live().map(|_| (stats_of(p), state_byte(p)));
        // SAFETY: out is NULL or writable.
        let st = unsafe { if side == DV_SIDE_HOST { dv_host_access(p, mode, out) } else { dv_device_access(p, mode, out) } };
        if may_refuse && st == DV_ERROR_CONST_SYNC {
            self.expect("dv_access", st, DV_ERROR_CONST_SYNC);
            let (stats, byte) = before.unwrap();
            assert_eq!((stats_of(p), state_byte(p)), (stats, byte), "a refused read access changed something");
            return;
        }
        trace!("  access side {side} mode {mode} through {:?}: {st:?}", a.live().map(|h| (h, self.hs[h].fam, self.hs[h].lo.clone(), self.hs[h].hi.clone())));
        self.expect("dv_access", st, want);
        if st != DV_OK {
            return;
        }
        let h = a.live().unwrap();
        let fam = self.hs[h].fam;
        if self.fams[fam].two {
            let b = self.bx(h);
            let f = &mut self.fams[fam];
            let (s, other) = (six(side), 2 - side as u8);
            match mode {
                DV_ACCESS_READ => f.oracle.access(s, false, &b),
                DV_ACCESS_OVERWRITE => f.oracle.overwrite(s, &b),
                _ => f.oracle.access(s, true, &b),
            }
            match mode {
                DV_ACCESS_READ => f.shade(&b, |x| if x == other { 0 } else { x }),
                _ => f.shade(&b, |_| 1 + side as u8),
            }
            if mode != DV_ACCESS_READ && self.hs[h].region.is_none() {
                self.check_map_bits(h, MAP_BITS, newer_bit(side), "after a whole-array write access: every element newer there");
            }
        }
        let (stats, _) = before.unwrap();
        if mode == DV_ACCESS_OVERWRITE {
            assert_eq!(stats_of(p), stats, "an overwrite access moved data");
        } else {
            self.account_sync(h, side, stats, stats_of(p));
            self.compare(h, side, "right after an access through it");
        }
        if mode == DV_ACCESS_READ {
            return;
        }
        assert_eq!(view_of(p, side).data, ptr, "access and view disagree on the data pointer");
        // What the program does with the view: write every element (marked already).
        self.program_write(h, side);
    }

    fn elem_bytes(&self, fam: usize, v: u64) -> Vec<u8> {
        let es = self.fams[fam].elem;
        (0..es).map(|b| (v >> (8 * b)) as u8).collect()
    }

    fn op_fill(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let _ = inp.u16(); // (the value once came from here)
        let fault = inp.fault(2);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let p = a.ptr(self);
        match a.live() {
            Some(h) if fault != Some(1) => {
                self.fill_through(h, side);
            }
            _ => {
                let v = [0u8; 8];
                let vp = if fault == Some(1) { null() } else { v.as_ptr() as *const c_void };
                // SAFETY: value is NULL or one element (of up to 8 bytes).
                let st = unsafe { if side == DV_SIDE_HOST { dv_fill_and_modify_host(p, vp) } else { dv_fill_and_modify_device(p, vp) } };
                self.expect("dv_fill_and_modify", st, a.error().unwrap_or(DV_ERROR_NULL_ARGUMENT));
            }
        }
    }

    /// `dv_fill_and_modify_*` through live handle `h` with a fresh value, checked; whether it succeeded.
    fn fill_through(&mut self, h: usize, side: u32) -> bool {
        let (p, fam) = (self.hs[h].p, self.hs[h].fam);
        let v = value(self.fresh(), 0, self.fams[fam].mask());
        let bytes = self.elem_bytes(fam, v);
        let two = self.fams[fam].two;
        let want = if self.hs[h].konst {
            DV_ERROR_INVALID_ARGUMENT
        } else if self.is_stale(h) {
            DV_ERROR_STALE
        } else if two && self.fams[fam].oracle.refuses(six(side)) {
            DV_ERROR_CONCURRENT_MODIFICATION
        } else {
            DV_OK
        };
        // SAFETY: value is one element.
        let st = unsafe {
            let vp = bytes.as_ptr() as *const c_void;
            if side == DV_SIDE_HOST { dv_fill_and_modify_host(p, vp) } else { dv_fill_and_modify_device(p, vp) }
        };
        trace!("  fill side {side} through handle {h} (family {fam}, box {:?}..{:?}) with {v:#x}: {st:?}", self.hs[h].lo, self.hs[h].hi);
        self.expect("dv_fill_and_modify", st, want);
        if st != DV_OK {
            return false;
        }
        let b = self.bx(h);
        let f = &mut self.fams[fam];
        if two {
            f.oracle.fill(six(side), &b, v).expect("the oracle refuses what the library did");
            f.shade(&b, |_| 1 + side as u8);
            if self.hs[h].region.is_none() {
                self.check_map_bits(h, MAP_BITS, newer_bit(side), "after a whole-array fill: every element newer there");
            }
        } else {
            f.write(side, &b, |_| Some(v));
        }
        true
    }

    fn op_view_fill(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let _ = inp.u16(); // (the value once came from here)
        let fault = inp.fault(3);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let v = a.live().map(|h| value(self.fresh(), 0, self.fams[self.hs[h].fam].mask())).unwrap_or(0);
        let bytes = a.live().map(|h| self.elem_bytes(self.hs[h].fam, v)).unwrap_or(vec![0; 8]);
        let vp = if fault == Some(1) { null() } else { bytes.as_ptr() as *const c_void };
        let side_arg = if fault == Some(2) { 2 + inp.u8() as u32 } else { side };
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            if side_arg > 1 {
                DV_ERROR_INVALID_ARGUMENT
            } else if vp.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if self.hs[h].konst {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(h) {
                DV_ERROR_STALE
            } else {
                DV_OK
            }
        });
        // SAFETY: value is NULL or one element.
        let st = unsafe { dv_view_fill(a.ptr(self), side_arg, vp) };
        trace!("  view_fill side {side} of {:?} with {v:#x}: {st:?}", a.live().map(|h| (h, self.hs[h].fam, self.hs[h].lo.clone(), self.hs[h].hi.clone())));
        self.expect("dv_view_fill", st, want);
        if st == DV_OK {
            // The program's write (Kokkos deep_copy(view, scalar)), unmarked.
            let h = a.live().unwrap();
            let b = self.bx(h);
            self.fams[self.hs[h].fam].write(side, &b, |_| Some(v));
        }
    }

    fn op_view_copy(&mut self, inp: &mut Input) {
        let (ds, ss) = (inp.below(2) as u32, inp.below(2) as u32);
        let fault = inp.fault(4);
        let Some(dst) = self.harg(inp, fault == Some(0)) else { return };
        let Some(src) = self.harg(inp, fault == Some(1)) else { return };
        let ds_arg = if fault == Some(2) { 2 + inp.u8() as u32 } else { ds };
        let ss_arg = if fault == Some(3) { 2 + inp.u8() as u32 } else { ss };
        let want = dst.error().or(src.error()).unwrap_or_else(|| {
            let (d, s) = (dst.live().unwrap(), src.live().unwrap());
            let (fd, fs) = (&self.fams[self.hs[d].fam], &self.fams[self.hs[s].fam]);
            if ds_arg > 1 || ss_arg > 1 || self.hs[d].konst {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(d) || self.is_stale(s) {
                DV_ERROR_STALE
            } else if self.hs[d].ext != self.hs[s].ext || fd.elem != fs.elem {
                DV_ERROR_INCOMPATIBLE
            } else {
                DV_OK
            }
        });
        // SAFETY: the library checks the handles.
        let st = unsafe { dv_view_copy(dst.ptr(self), ds_arg, src.ptr(self), ss_arg) };
        trace!("  view_copy side {ds} of {:?} <- side {ss} of {:?}: {st:?}", dst.live().map(|h| (h, self.hs[h].fam, self.hs[h].lo.clone(), self.hs[h].hi.clone())), src.live().map(|h| (h, self.hs[h].fam, self.hs[h].lo.clone(), self.hs[h].hi.clone())));
        self.expect("dv_view_copy", st, want);
        if st == DV_OK {
            // The program's write of `ds` with what `ss` of the source holds, unmarked.
            let (d, s) = (dst.live().unwrap(), src.live().unwrap());
            let vals: Vec<Option<u64>> = {
                let f = &self.fams[self.hs[s].fam];
                self.region(s).into_iter().map(|k| f.known(ss, k)).collect()
            };
            let b = self.bx(d);
            self.fams[self.hs[d].fam].write(ds, &b, |k| vals[k]);
        }
    }

    fn op_deep_copy(&mut self, inp: &mut Input) {
        let fault = inp.fault(2);
        let Some(dst) = self.harg(inp, fault == Some(0)) else { return };
        let Some(src) = self.harg(inp, fault == Some(1)) else { return };
        // Kokkos' side: the host when the source's host counter is set (never on one space).
        let side = src.live().map_or(1, |s| {
            let f = &self.fams[self.hs[s].fam];
            if f.two { f.oracle.deep_copy_side() } else { 1 }
        });
        let want = dst.error().or(src.error()).unwrap_or_else(|| {
            let (d, s) = (dst.live().unwrap(), src.live().unwrap());
            let (fd, fs) = (&self.fams[self.hs[d].fam], &self.fams[self.hs[s].fam]);
            if self.hs[d].konst {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(d) || self.is_stale(s) {
                DV_ERROR_STALE
            } else if fd.two && fd.oracle.refuses(side) {
                DV_ERROR_CONCURRENT_MODIFICATION
            } else if self.hs[d].ext != self.hs[s].ext || fd.elem != fs.elem {
                DV_ERROR_INCOMPATIBLE
            } else {
                DV_OK
            }
        });
        // SAFETY: the library checks the handles.
        let st = unsafe { dv_deep_copy(dst.ptr(self), src.ptr(self)) };
        trace!("  deep_copy {:?} <- {:?} (side {side}): {st:?}", dst.live().map(|h| (h, self.hs[h].fam, self.hs[h].lo.clone(), self.hs[h].hi.clone())), src.live().map(|h| (h, self.hs[h].fam, self.hs[h].lo.clone(), self.hs[h].hi.clone())));
        self.expect("dv_deep_copy", st, want);
        if st == DV_OK {
            self.model_deep_copy(dst.live().unwrap(), src.live().unwrap(), side);
        }
    }

    /// The oracle after `dv_deep_copy(d, s)` of Kokkos' side `side`.
    fn model_deep_copy(&mut self, d: usize, s: usize, side: usize) {
        let (dh, sh) = (self.hs[d].clone(), self.hs[s].clone());
        // The source index of each destination index: the same index in each handle.
        let map = |i: &[usize]| -> Vec<usize> {
            let mut p = sh.lo.clone();
            for (&da, &sa) in dh.axes.iter().zip(&sh.axes) {
                p[sa] = sh.lo[sa] + (i[da] - dh.lo[da]);
            }
            p
        };
        let db = dh.bx();
        let (two_d, two_s) = (self.fams[dh.fam].two, self.fams[sh.fam].two);
        if !two_d {
            // One memory: the source's newest value (unknown where it has an unmarked write).
            let vals: Vec<u64> = {
                let f = &self.fams[sh.fam];
                self.region(s)
                    .into_iter()
                    .map(|k| {
                        if !two_s {
                            f.mem[k]
                        } else {
                            match f.elem_at(k) {
                                Some(e) if e.pending.iter().all(Option::is_none) => e.value.unwrap_or(UNDEF),
                                _ => UNDEF, // an unmarked write there, or not tracked
                            }
                        }
                    })
                    .collect()
            };
            self.fams[dh.fam].write(side as u32, &db, |k| (vals[k] != UNDEF).then_some(vals[k]));
            return;
        }
        let r = if dh.fam == sh.fam {
            oracle::deep_copy(&mut self.fams[dh.fam].oracle, None, &db, map)
        } else if two_s {
            let (fd, fs) = two_mut(&mut self.fams, dh.fam, sh.fam);
            oracle::deep_copy(&mut fd.oracle, Some(&fs.oracle), &db, map)
        } else {
            // A one-memory source: an oracle of it, both sides its memory, counters clear.
            let fs = &self.fams[sh.fam];
            let mut o: Oracle<u64> = Oracle::new(row_major(&fs.ext), None);
            for e in &mut o.elems {
                let v = fs.mem[flat(&fs.ext, &e.idx)];
                let v = (v != UNDEF).then_some(v);
                (e.value, e.known, e.kk) = (v, [v, v], [v, v]);
            }
            oracle::deep_copy(&mut self.fams[dh.fam].oracle, Some(&o), &db, map)
        };
        assert_eq!(r, Ok(side), "the oracle's deep copy disagrees with the library's");
        self.fams[dh.fam].shade(&db, |_| 1 + side as u8);
    }


    /// New extents for `h`: usually small and of its rank, sometimes another
    /// rank or a bad value. Returns the extents and the argument-level error.
    fn gen_ext(&mut self, inp: &mut Input, rank: usize, fault: Option<usize>) -> (dv_extents_t, Option<dv_status_t>) {
        let mut ext: Vec<usize> = (0..rank).map(|_| inp.below(5)).collect();
        if fault == Some(5) {
            ext = (0..inp.below(4)).map(|_| inp.below(4)).collect(); // maybe another rank
        }
        let mut e = ext_c(&ext);
        match fault {
            Some(1) => e.reserved = 1 + inp.u8() as u32,
            Some(2) => e.rank = 9 + inp.u8() as u32,
            Some(3) if rank > 0 => e.extent[inp.below(rank)] = (-1 - inp.u8() as i64) as u64,
            Some(4) if rank >= 1 => {
                // Too large: overflows isize at parse time (rank >= 2) or in bytes (rank 1, wide elements).
                e.extent[0] = if rank >= 2 { 1 << 62 } else { i64::MAX as u64 };
                if rank >= 2 {
                    e.extent[1] = 2 + inp.below(3) as u64;
                }
            }
            _ => {}
        }
        let arg = parse_extents(&e).err();
        (e, arg)
    }

    /// Usually a writable parent handle (what resize accepts), sometimes any.
    fn parent_arg(&mut self, inp: &mut Input, bad: bool) -> Option<HArg> {
        let parents: Vec<usize> = self.live_handles().into_iter().filter(|&h| self.hs[h].region.is_none() && !self.hs[h].konst).collect();
        if !bad && !parents.is_empty() && inp.below(4) != 0 {
            let a = HArg::Live(parents[inp.below(parents.len())]);
            self.touch(a);
            return Some(a);
        }
        self.harg(inp, bad)
    }

    fn op_resize(&mut self, inp: &mut Input) {
        let how = inp.below(3); // 0 resize, 1 realloc, 2 realloc without initializing
        let fault = inp.fault(7);
        let Some(a) = self.parent_arg(inp, fault == Some(0)) else { return };
        let rank = a.live().map(|h| self.hs[h].ext.len()).unwrap_or(1);
        let (e, arg) = self.gen_ext(inp, rank, fault);
        let ep: *const dv_extents_t = if fault == Some(6) { null() } else { &e };
        let newx = parse_extents(&e).ok();
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            let f = &self.fams[self.hs[h].fam];
            if ep.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if let Some(x) = arg {
                x
            } else if self.hs[h].konst || self.hs[h].region.is_some() {
                DV_ERROR_INVALID_ARGUMENT
            } else if !f.owned {
                DV_ERROR_UNMANAGED
            } else if newx.as_ref().unwrap().len() != f.ext.len() {
                DV_ERROR_RANK_MISMATCH
            } else if newx.as_ref().unwrap() == &f.ext {
                DV_OK
            } else if dense_bytes(newx.as_ref().unwrap(), f.elem) > isize::MAX as u128 {
                DV_ERROR_OVERFLOW
            } else {
                DV_OK
            }
        });
        if want == DV_OK && dense_bytes(newx.as_ref().unwrap(), 8) > MAX_BYTES {
            return; // never ask for a huge block
        }
        let p = a.ptr(self);
        // SAFETY: extents is NULL or valid.
        let st = unsafe {
            match how {
                0 => dv_resize(p, ep),
                1 => dv_realloc(p, ep),
                _ => dv_realloc_without_initializing(p, ep),
            }
        };
        trace!("  resize/realloc ({how}) of {:?} to {newx:?}: {st:?}", a.live().map(|h| (h, self.hs[h].fam)));
        self.expect(["dv_resize", "dv_realloc", "dv_realloc_without_initializing"][how], st, want);
        if st != DV_OK {
            return;
        }
        let h = a.live().unwrap();
        self.after_resize(self.hs[h].fam, &newx.unwrap(), how);
    }

    /// The model after a successful `dv_resize` (`how` 0), `dv_realloc` (1)
    /// or `dv_realloc_without_initializing` (2) of family `fam` to `new`.
    fn after_resize(&mut self, fam: usize, new: &[usize], how: usize) {
        let f = &mut self.fams[fam];
        let same = new == f.ext.as_slice();
        if how == 0 {
            if same {
                return; // nothing changes
            }
            let taken = std::mem::replace(&mut f.oracle, Oracle::new(std::iter::empty(), None));
            let (o, mem, shadow) = f.resized_model(new, taken);
            (f.oracle, f.mem, f.shadow) = (o, mem, shadow);
        } else {
            // Every element new: zero, or unknown without initialising (even at the same extents).
            let old = std::mem::replace(&mut f.ext, new.to_vec());
            f.reset_model(if how == 1 { Some(0) } else { None });
            f.ext = old;
        }
        if !same {
            f.strides = if f.layout == DV_LAYOUT_STRIDE { repack(&f.strides, new) } else { canonical(f.layout, new) };
            f.ext = new.to_vec();
            f.generation += 1;
            let strides = f.strides.clone();
            for x in self.hs.iter_mut().filter(|x| x.fam == fam && x.region.is_none()) {
                x.ext = new.to_vec();
                x.hi = new.to_vec();
                x.strides = strides.clone();
            }
        }
        let f = &mut self.fams[fam];
        if f.two {
            f.reindex();
        }
        if how != 0 && f.two {
            // Realloc: every element clean, both counters clear.
            if let Some(h) = self.hs.iter().find(|x| x.live && x.fam == fam) {
                let state = state_byte(h.p);
                assert_eq!(state & !DV_SYNC_IN_FLIGHT, DV_SYNC_CLEAN, "sync state {state:#x} after realloc");
            }
        }
    }

    fn op_resized(&mut self, inp: &mut Input) {
        if self.fams.len() >= MAX_FAMILIES || self.live_handles().len() >= MAX_HANDLES {
            return;
        }
        let fault = inp.fault(8);
        let Some(a) = self.parent_arg(inp, fault == Some(0)) else { return };
        let rank = a.live().map(|h| self.hs[h].ext.len()).unwrap_or(1);
        let (e, arg) = self.gen_ext(inp, rank, fault);
        let ep: *const dv_extents_t = if fault == Some(6) { null() } else { &e };
        let mut out: *mut dv_dualview_t = null_mut();
        let out_p: *mut *mut dv_dualview_t = if fault == Some(7) { null_mut() } else { &mut out };
        let newx = parse_extents(&e).ok();
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            let f = &self.fams[self.hs[h].fam];
            if ep.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if let Some(x) = arg {
                x
            } else if out_p.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if self.hs[h].region.is_some() {
                DV_ERROR_INVALID_ARGUMENT
            } else if newx.as_ref().unwrap().len() != f.ext.len() {
                DV_ERROR_RANK_MISMATCH
            } else if dense_bytes(newx.as_ref().unwrap(), f.elem) > isize::MAX as u128 {
                DV_ERROR_OVERFLOW
            } else {
                DV_OK
            }
        });
        if want == DV_OK && dense_bytes(newx.as_ref().unwrap(), 8) > MAX_BYTES {
            return;
        }
        // SAFETY: pointers NULL or valid.
        let st = unsafe { dv_resized(a.ptr(self), ep, out_p) };
        trace!("  resized of {:?} to {newx:?}: {st:?}", a.live().map(|h| (h, self.hs[h].fam)));
        self.expect("dv_resized", st, want);
        if st != DV_OK {
            return;
        }
        let h = a.live().unwrap();
        let new = newx.unwrap();
        let f = &self.fams[self.hs[h].fam];
        // A new family: the overlap of both sides copied, Kokkos' counters and the map's states as the old family's.
        let (oracle, mem, shadow) = f.resized_model(&new, f.oracle.clone());
        let strides = if f.layout == DV_LAYOUT_STRIDE { repack(&f.strides, &new) } else { canonical(f.layout, &new) };
        let mut nf = Fam {
            label: f.label.clone(),
            dtype: f.dtype,
            elem: f.elem,
            align: f.align,
            layout: f.layout,
            strides,
            ext: new,
            two: f.two,
            space: f.space,
            ordinal: f.ordinal,
            single_flag: f.single_flag,
            oracle,
            pos: vec![],
            salt: f.salt,
            track: f.track,
            mem,
            shadow,
            generation: 0,
            owned: true,
            stats: [0; 4],
            bufs: vec![],
        };
        if nf.two {
            nf.reindex();
        }
        let h = H::whole(out, self.fams.len(), &nf);
        self.fams.push(nf);
        self.add_handle(h);
    }

    fn op_query(&mut self, inp: &mut Input) {
        let q = inp.below(17);
        let fault = inp.fault(2);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let null_out = fault == Some(1);
        let axis_raw = inp.u8();
        let p = a.ptr(self);
        let h = a.live();
        let hh = h.map(|i| self.hs[i].clone());
        let rank = hh.as_ref().map(|x| x.ext.len()).unwrap_or(0);
        let base = |extra: Option<dv_status_t>| -> dv_status_t {
            a.error().unwrap_or(if null_out { DV_ERROR_NULL_ARGUMENT } else { extra.unwrap_or(DV_OK) })
        };
        // `out!(x)`: a pointer to the local `x`, or NULL for the fault.
        macro_rules! out {
            ($x:ident) => {
                if null_out { null_mut() } else { &mut $x as *mut _ }
            };
        }
        // SAFETY (every call below): outputs are NULL or writable locals of the right size.
        unsafe {
            match q {
                0 => {
                    let mut x = 99u32;
                    let st = dv_rank(p, out!(x));
                    self.expect("dv_rank", st, base(None));
                    if st == DV_OK {
                        assert_eq!(x as usize, rank);
                    }
                }
                1 | 2 => {
                    let axis = if axis_raw & 0x80 != 0 { u32::MAX - axis_raw as u32 } else { axis_raw as u32 % 5 };
                    let mut x = 0u64;
                    let oor = (axis as usize >= rank).then_some(DV_ERROR_OUT_OF_RANGE);
                    let st = if q == 1 { dv_extent(p, axis, out!(x)) } else { dv_stride(p, axis, out!(x)) };
                    self.expect(if q == 1 { "dv_extent" } else { "dv_stride" }, st, base(oor));
                    if st == DV_OK {
                        let hh = hh.unwrap();
                        let want = if q == 1 { hh.ext[axis as usize] } else { hh.strides[axis as usize] };
                        assert_eq!(x as usize, want);
                    }
                }
                3 => {
                    let n = inp.below(10);
                    let mut buf = [u64::MAX; 10];
                    let o = if null_out { null_mut() } else { buf.as_mut_ptr() };
                    let st = dv_strides(p, o, n);
                    let small = (n < rank + 1).then_some(DV_ERROR_OUT_OF_RANGE);
                    self.expect("dv_strides", st, base(small));
                    if st == DV_OK {
                        let hh = hh.unwrap();
                        for r in 0..rank {
                            assert_eq!(buf[r] as usize, hh.strides[r]);
                        }
                        assert_eq!(buf[rank] as usize, span(&hh.ext, &hh.strides));
                        assert!(buf[rank + 1..].iter().all(|&x| x == u64::MAX), "dv_strides wrote past rank + 1");
                    } else {
                        assert!(buf.iter().all(|&x| x == u64::MAX), "dv_strides wrote on failure");
                    }
                }
                4 => {
                    let mut x = 0u64;
                    let st = dv_span(p, out!(x));
                    self.expect("dv_span", st, base(None));
                    if st == DV_OK {
                        let hh = hh.unwrap();
                        assert_eq!(x as usize, span(&hh.ext, &hh.strides));
                    }
                }
                5 | 6 => {
                    let mut x = false;
                    let st = if q == 5 { dv_span_is_contiguous(p, out!(x)) } else { dv_is_allocated(p, out!(x)) };
                    self.expect("dv_span_is_contiguous/is_allocated", st, base(None));
                    if st == DV_OK {
                        let hh = hh.unwrap();
                        let n: usize = hh.ext.iter().product();
                        assert_eq!(x, if q == 5 { span(&hh.ext, &hh.strides) == n } else { true });
                    }
                }
                7 => {
                    let mut x = dv_info_t::default();
                    let st = dv_info(p, out!(x));
                    self.expect("dv_info", st, base(None));
                }
                8 | 9 => {
                    let side = if q == 9 && axis_raw >= 250 { 2 + axis_raw as u32 } else { axis_raw as u32 & 1 };
                    let len_known = inp.bool();
                    let buf_len = inp.below(8);
                    let mut buf = [0x55u8; 8];
                    let mut len = usize::MAX;
                    let bp = if null_out && buf_len > 0 { null_mut() } else { buf.as_mut_ptr() as *mut c_char };
                    let lp: *mut usize = if len_known { &mut len } else { null_mut() };
                    let st = if q == 8 { dv_label(p, bp, buf_len, lp) } else { dv_view_label(p, side, bp, buf_len, lp) };
                    let bad_side = (q == 9 && side > 1).then_some(DV_ERROR_INVALID_ARGUMENT);
                    let null_buf = (bp.is_null() && buf_len > 0).then_some(DV_ERROR_NULL_ARGUMENT);
                    let want = a.error().or(bad_side).or(null_buf).unwrap_or(DV_OK);
                    self.expect("dv_label", st, want);
                    if st == DV_OK {
                        let f = &self.fams[hh.as_ref().unwrap().fam];
                        let mut l = f.label[..f.label.len() - 1].to_vec();
                        if q == 9 && side == DV_SIDE_HOST && f.two {
                            l.extend_from_slice(b"_mirror");
                        }
                        if len_known {
                            assert_eq!(len, l.len(), "label length");
                        }
                        if buf_len > 0 {
                            let k = l.len().min(buf_len - 1);
                            assert_eq!(&buf[..k], &l[..k], "label bytes");
                            assert_eq!(buf[k], 0, "label NUL");
                            assert!(buf[k + 1..].iter().all(|&c| c == 0x55), "dv_label wrote past buf_len");
                        }
                    }
                }
                10 => {
                    let mut d = std::mem::MaybeUninit::<dv_desc_t>::uninit();
                    let o = if null_out { null_mut() } else { d.as_mut_ptr() };
                    let st = dv_desc_of(p, o);
                    self.expect("dv_desc_of", st, base(None));
                    let hh = match hh {
                        Some(x) if st == DV_OK && x.region.is_none() => x,
                        _ => return,
                    };
                    let d = d.assume_init();
                    let f = &self.fams[hh.fam];
                    assert_eq!((d.dtype, d.elem_size as usize, d.layout), (f.dtype, f.elem, f.layout), "desc_of");
                    assert_eq!(d.extents, ext_c(&f.ext));
                    if f.layout == DV_LAYOUT_STRIDE {
                        let s: Vec<usize> = d.strides[..f.ext.len()].iter().map(|&x| x as usize).collect();
                        assert_eq!(s, f.strides);
                    }
                    // What desc_of describes can be created again.
                    let mut out = null_mut();
                    let l = b"fz_again\0";
                    let st = dv_create(l.as_ptr() as *const c_char, &d, &mut out);
                    if dense_bytes(&f.ext, f.elem) <= MAX_BYTES {
                        assert_eq!(st, DV_OK, "dv_create(dv_desc_of(..)) failed: {}", last_error());
                        let mut e2 = dv_extents_t { rank: 0, reserved: 0, extent: [0; 8] };
                        assert_eq!(dv_extents(out, &mut e2), DV_OK);
                        assert_eq!(e2, ext_c(&f.ext));
                        assert_eq!(dv_destroy(out), DV_OK);
                    }
                }
                11 | 12 => {
                    let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
                    let o = if null_out { null_mut() } else { v.as_mut_ptr() };
                    let st = if q == 11 { dv_host_view(p, o) } else { dv_device_view(p, o) };
                    let stale = h.is_some_and(|i| self.is_stale(i)).then_some(DV_ERROR_STALE);
                    self.expect("dv_view", st, base(stale));
                }
                13 | 14 => {
                    let mut ptr: *mut c_void = null_mut();
                    let o: *mut *mut c_void = if null_out { null_mut() } else { &mut ptr };
                    let st = if q == 13 { dv_host_ptr(p, o) } else { dv_device_ptr(p, o) };
                    let stale = h.is_some_and(|i| self.is_stale(i)).then_some(DV_ERROR_STALE);
                    self.expect("dv_ptr", st, base(stale));
                    if st == DV_OK {
                        let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
                        let s = if q == 13 { dv_host_view(p, v.as_mut_ptr()) } else { dv_device_view(p, v.as_mut_ptr()) };
                        assert_eq!(s, DV_OK);
                        assert_eq!(v.assume_init().data, ptr, "ptr and view disagree");
                    }
                }
                15 => {
                    let mut x: *const u8 = null();
                    let st = dv_sync_state_word(p, out!(x));
                    self.expect("dv_sync_state_word", st, base(None));
                }
                _ => {
                    let mut x = dv_stats_t::default();
                    let st = dv_stats(p, out!(x));
                    self.expect("dv_stats", st, base(None));
                }
            }
        }
    }

    fn op_stats(&mut self, inp: &mut Input) {
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        // SAFETY: the library checks the handle.
        let st = unsafe { dv_stats_reset(a.ptr(self)) };
        self.expect("dv_stats_reset", st, a.error().unwrap_or(DV_OK));
        if st == DV_OK {
            self.fams[self.hs[a.live().unwrap()].fam].stats = [0; 4];
        }
    }

    /// The extents functions (no handles): statuses and values.
    fn op_extents_fns(&mut self, inp: &mut Input) {
        let q = inp.below(8);
        let fault = inp.fault(3);
        let rank = inp.below(10) as u32; // 9: too many
        let mut vals = [0u64; 9];
        for v in vals.iter_mut() {
            *v = match inp.below(8) {
                0 => u64::MAX - inp.u8() as u64,
                1 => 1 << (40 + inp.below(24)),
                _ => inp.below(5) as u64,
            };
        }
        let mut e = dv_extents_t { rank: rank.min(8), reserved: 0, extent: [1; 8] };
        e.extent[..rank.min(8) as usize].copy_from_slice(&vals[..rank.min(8) as usize]);
        if rank == 9 {
            e.rank = 9 + inp.u8() as u32;
        }
        if fault == Some(0) {
            e.reserved = 1;
        }
        let parsed = parse_extents(&e);
        let ep: *const dv_extents_t = if fault == Some(1) { null() } else { &e };
        let null_out = fault == Some(2);
        // SAFETY (every call below): pointers are NULL or valid locals.
        unsafe {
            match q {
                0 => {
                    let mut o = dv_extents_t { rank: 0, reserved: 0, extent: [0; 8] };
                    let op: *mut dv_extents_t = if null_out { null_mut() } else { &mut o };
                    let vp = if fault == Some(1) { null() } else { vals.as_ptr() };
                    let mut chk = dv_extents_t { rank, reserved: 0, extent: [1; 8] };
                    if rank <= 8 {
                        chk.extent[..rank as usize].copy_from_slice(&vals[..rank as usize]);
                    }
                    let want = if null_out {
                        DV_ERROR_NULL_ARGUMENT
                    } else if rank > 8 {
                        DV_ERROR_RANK
                    } else if vp.is_null() && rank != 0 {
                        DV_ERROR_NULL_ARGUMENT
                    } else {
                        parse_extents(&chk).err().unwrap_or(DV_OK)
                    };
                    let st = dv_extents_make(vp, rank, op);
                    self.expect("dv_extents_make", st, want);
                    if st == DV_OK {
                        assert_eq!(o, chk);
                    }
                }
                1 => {
                    let mut o = 0u64;
                    let op: *mut u64 = if null_out { null_mut() } else { &mut o };
                    let want = if ep.is_null() { Err(DV_ERROR_NULL_ARGUMENT) } else { parsed.clone().map(|_| ()) };
                    let want = want.and(if null_out { Err(DV_ERROR_NULL_ARGUMENT) } else { Ok(()) });
                    let st = dv_extents_size(ep, op);
                    self.expect("dv_extents_size", st, want.err().unwrap_or(DV_OK));
                    if st == DV_OK {
                        let x = parsed.as_ref().unwrap();
                        assert_eq!(o as u128, x.iter().fold(1u128, |a, &v| a * v as u128));
                    }
                }
                2 => {
                    let layout = [DV_LAYOUT_LEFT, DV_LAYOUT_RIGHT, DV_LAYOUT_STRIDE, 7][inp.below(4)];
                    let n = inp.below(10);
                    let mut buf = [u64::MAX; 10];
                    let op = if null_out { null_mut() } else { buf.as_mut_ptr() };
                    let want = if ep.is_null() {
                        DV_ERROR_NULL_ARGUMENT
                    } else if let Err(x) = &parsed {
                        *x
                    } else if null_out {
                        DV_ERROR_NULL_ARGUMENT
                    } else if layout > 1 {
                        DV_ERROR_INVALID_ARGUMENT
                    } else if n < e.rank as usize {
                        DV_ERROR_OUT_OF_RANGE
                    } else {
                        DV_OK
                    };
                    let st = dv_extents_strides(ep, layout, op, n);
                    self.expect("dv_extents_strides", st, want);
                    if st == DV_OK {
                        let x = parsed.as_ref().unwrap();
                        let c = canonical(layout, x);
                        for r in 0..x.len() {
                            assert_eq!(buf[r] as usize, c[r]);
                        }
                    }
                }
                3 => {
                    let mut b = false;
                    let op: *mut bool = if null_out { null_mut() } else { &mut b };
                    let other = if inp.bool() { e } else { ext_c(&[1, 2]) };
                    let want = if ep.is_null() {
                        DV_ERROR_NULL_ARGUMENT
                    } else if let Err(x) = &parsed {
                        *x
                    } else if let Err(x) = parse_extents(&other) {
                        x
                    } else if null_out {
                        DV_ERROR_NULL_ARGUMENT
                    } else {
                        DV_OK
                    };
                    let st = dv_extents_equal(ep, &other, op);
                    self.expect("dv_extents_equal", st, want);
                    if st == DV_OK {
                        assert_eq!(b, parsed.unwrap() == parse_extents(&other).unwrap());
                    }
                }
                4 => {
                    let mode = [DV_SQUEEZE_NUMPY, DV_SQUEEZE_OCTAVE, 2, 99][inp.below(4)];
                    let mut o = dv_extents_t { rank: 0, reserved: 0, extent: [0; 8] };
                    let op: *mut dv_extents_t = if null_out { null_mut() } else { &mut o };
                    let want = if ep.is_null() {
                        DV_ERROR_NULL_ARGUMENT
                    } else if let Err(x) = &parsed {
                        *x
                    } else if null_out {
                        DV_ERROR_NULL_ARGUMENT
                    } else if mode > 1 {
                        DV_ERROR_INVALID_ARGUMENT
                    } else {
                        DV_OK
                    };
                    let st = dv_extents_squeeze(ep, mode, op);
                    self.expect("dv_extents_squeeze", st, want);
                    if st == DV_OK && mode == DV_SQUEEZE_NUMPY {
                        let x: Vec<usize> = parsed.unwrap().into_iter().filter(|&v| v != 1).collect();
                        assert_eq!(o, ext_c(&x));
                    }
                    if st == DV_OK {
                        assert_eq!(parse_extents(&o).err(), None, "squeeze made invalid extents");
                    }
                }
                _ => {
                    let mut b = false;
                    let op: *mut bool = if null_out { null_mut() } else { &mut b };
                    let want = if ep.is_null() {
                        DV_ERROR_NULL_ARGUMENT
                    } else if let Err(x) = &parsed {
                        *x
                    } else if null_out {
                        DV_ERROR_NULL_ARGUMENT
                    } else {
                        DV_OK
                    };
                    let st = match q {
                        5 => dv_extents_is_scalar(ep, op),
                        6 => dv_extents_is_vector(ep, op),
                        7 if inp.bool() => dv_extents_is_matrix(ep, op),
                        _ => dv_extents_is_tensor(ep, op),
                    };
                    self.expect("dv_extents_is_*", st, want);
                    if st == DV_OK && q == 5 {
                        let x = parsed.unwrap();
                        assert_eq!(b, !x.is_empty() && x.iter().all(|&v| v == 1), "is_scalar");
                    }
                }
            }
        }
    }

    /// Process-wide calls: strings, spaces, fences, statistics, tools, errors.
    fn op_misc(&mut self, inp: &mut Input) {
        let q = inp.below(14);
        let fault = inp.fault(1).is_some();
        let v = inp.u32();
        // SAFETY (every call below): pointers are NULL or valid locals; strings NUL-terminated.
        unsafe {
            match q {
                0 => {
                    let s = CStr::from_ptr(dv_status_str(v as i32 % 40 - 5)).to_bytes().len();
                    assert!(s > 0);
                    let s = CStr::from_ptr(dv_dtype_str(v % 20)).to_bytes().len();
                    assert!(s > 0);
                    // MAJOR.MINOR.PATCH (the number is the crate's: tests/header.rs checks it).
                    let v = CStr::from_ptr(dv_version()).to_str().unwrap();
                    assert!(v.split('.').count() == 3 && v.split('.').all(|x| x.parse::<u32>().is_ok()), "dv_version {v:?}");
                }
                1 => {
                    let mut buf = [0x55 as c_char; 16];
                    let n = (v % 17) as usize;
                    let mut len = 0usize;
                    let bp = if fault { null_mut() } else { buf.as_mut_ptr() };
                    let copied = dv_last_error_copy(bp, n, &mut len);
                    let full = CStr::from_ptr(dv_last_error()).to_bytes().len();
                    assert_eq!(len, full);
                    let expect = if bp.is_null() || n == 0 { 0 } else { full.min(n - 1) };
                    assert_eq!(copied, expect);
                }
                2 => {
                    let space = v % 8;
                    let mut o = dv_space_info_t::default();
                    let op: *mut dv_space_info_t = if fault { null_mut() } else { &mut o };
                    let want = if space > 4 {
                        DV_ERROR_INVALID_ARGUMENT
                    } else if fault {
                        DV_ERROR_NULL_ARGUMENT
                    } else {
                        DV_OK
                    };
                    let st = dv_space_info(space, op);
                    self.expect("dv_space_info", st, want);
                    if st == DV_OK {
                        assert_eq!(o.needs_mirror, space == DV_SPACE_CUDA || space == DV_SPACE_TEST_DEVICE);
                    }
                }
                3 => {
                    let space = [DV_SPACE_HOST, DV_SPACE_TEST_DEVICE, DV_SPACE_TEST_DEVICE, 9][(v % 4) as usize];
                    let ordinal = if v & 0x100 != 0 { 64 + (v >> 9) % 100 } else { (v >> 9) % 3 };
                    let name: &[u8] = b"fz fence\0";
                    let np = if fault { null() } else { name.as_ptr() as *const c_char };
                    let want = if space > 4 {
                        DV_ERROR_INVALID_ARGUMENT
                    } else if space == DV_SPACE_TEST_DEVICE && ordinal >= 64 {
                        DV_ERROR_NO_DEVICE
                    } else {
                        DV_OK
                    };
                    let st = dv_fence(space, ordinal, np);
                    self.expect("dv_fence", st, want);
                }
                4 => {
                    let mut b = false;
                    let op: *mut bool = if fault { null_mut() } else { &mut b };
                    let st = dv_cuda_available(op);
                    self.expect("dv_cuda_available", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                    let mut n = -1i32;
                    let np: *mut i32 = if fault { null_mut() } else { &mut n };
                    let st = dv_device_count(np);
                    self.expect("dv_device_count", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                    if !fault {
                        assert_eq!(b, n > 0);
                    }
                    // The generic questions, for a space of the table or past it.
                    let space = [DV_SPACE_HOST, DV_SPACE_CUDA, DV_SPACE_TEST_DEVICE, 9][((v >> 1) % 4) as usize];
                    let ordinal = (v >> 3) % 70;
                    let mut usable = false;
                    let up: *mut bool = if fault { null_mut() } else { &mut usable };
                    let want = if space > 4 {
                        DV_ERROR_INVALID_ARGUMENT
                    } else if fault {
                        DV_ERROR_NULL_ARGUMENT
                    } else {
                        DV_OK
                    };
                    self.expect("dv_space_available", dv_space_available(space, ordinal, up), want);
                    let mut count = usize::MAX;
                    let cp: *mut usize = if fault { null_mut() } else { &mut count };
                    self.expect("dv_space_device_count", dv_space_device_count(space, cp), want);
                    if want == DV_OK {
                        assert_eq!(usable, space == DV_SPACE_HOST || (ordinal as usize) < count, "dv_space_available");
                        if space == DV_SPACE_CUDA {
                            assert_eq!(count, n as usize, "dv_space_device_count(DV_SPACE_CUDA)");
                        }
                    }
                }
                5 => {
                    let mut n = 0usize;
                    let op: *mut usize = if fault { null_mut() } else { &mut n };
                    let st = dv_handle_count(op);
                    self.expect("dv_handle_count", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                    if !fault {
                        let live = self.live_handles().len();
                        assert_eq!(n, self.handles_at_start + live, "dv_handle_count");
                    }
                }
                6 => {
                    let mut s = dv_stats_t::default();
                    let op: *mut dv_stats_t = if fault { null_mut() } else { &mut s };
                    let st = dv_stats_global(op);
                    self.expect("dv_stats_global", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                }
                7 => {
                    let n: &[u8] = b"fz region\0";
                    let np = if fault { null() } else { n.as_ptr() as *const c_char };
                    let st = dv_tools_push_region(np);
                    self.expect("dv_tools_push_region", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                    assert_eq!(dv_tools_pop_region(), DV_OK);
                    let st = dv_tools_mark_event(np);
                    self.expect("dv_tools_mark_event", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                }
                8 => {
                    let n: &[u8] = b"fz section\0";
                    let mut id = 0u32;
                    let ip: *mut u32 = if fault { null_mut() } else { &mut id };
                    let st = dv_tools_create_section(n.as_ptr() as *const c_char, ip);
                    self.expect("dv_tools_create_section", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                    let what = v % 5;
                    let st = dv_tools_section(id, what);
                    self.expect("dv_tools_section", st, if what > 2 { DV_ERROR_INVALID_ARGUMENT } else { DV_OK });
                }
                9 => {
                    let k: &[u8] = b"fz key\0";
                    let kp = if fault { null() } else { k.as_ptr() as *const c_char };
                    let st = dv_tools_declare_metadata(kp, k.as_ptr() as *const c_char);
                    self.expect("dv_tools_declare_metadata", st, if fault { DV_ERROR_NULL_ARGUMENT } else { DV_OK });
                }
                10 => {
                    // Only removing callbacks (a wrong signature would be the caller's UB).
                    let event = v % 24;
                    let st = dv_tools_set_callback(event, None);
                    self.expect("dv_tools_set_callback", st, if event >= 18 { DV_ERROR_INVALID_ARGUMENT } else { DV_OK });
                }
                11 => {
                    let mut b = true;
                    let bp: *mut bool = if fault { null_mut() } else { &mut b };
                    let st = dv_tools_init(bp);
                    self.expect("dv_tools_init", st, DV_OK);
                }
                12 => {
                    let st = dv_stats_global_reset();
                    self.expect("dv_stats_global_reset", st, DV_OK);
                }
                _ => {
                    // A handle-taking call chosen at random, with a destroyed or foreign handle.
                    let a = self.harg(inp, true).unwrap();
                    let p = a.ptr(self);
                    let want = a.error().unwrap();
                    let mut b = false;
                    let mut u = 0u64;
                    let st = match v % 12 {
                        0 => dv_modify_host(p),
                        1 => dv_sync_device(p),
                        2 => dv_need_sync_host(p, &mut b),
                        3 => dv_extent(p, 0, &mut u),
                        4 => dv_clear_sync_state(p),
                        5 => dv_fill_and_modify_device(p, (&u as *const u64).cast()),
                        6 => dv_view_fill(p, 0, (&u as *const u64).cast()),
                        7 => dv_resize(p, &ext_c(&[1])),
                        8 => dv_stats_reset(p),
                        9 => dv_label(p, null_mut(), 0, null_mut()),
                        10 => dv_is_allocated(p, &mut b),
                        _ => dv_sync_host_async(p, null_mut()),
                    };
                    self.expect("a call with a bad handle", st, want);
                }
            }
        }
    }

    /// `dv_create` with a description made of raw input bytes: any status
    /// but INTERNAL; on success the DualView is destroyed again at once.
    fn op_raw_create(&mut self, inp: &mut Input) {
        let mut d = dv_desc_t {
            dtype: inp.u8() as u32 % 16,
            elem_size: inp.u8() as u32 % 20,
            elem_align: [0, 1, 2, 4, 8, 16, 64, 3, 128][inp.below(9)],
            layout: inp.u8() as u32 % 4,
            space: inp.u8() as u32 % 6,
            ordinal: inp.u8() as u32 % 70,
            flags: inp.u8() as u32 % 32,
            reserved: (inp.below(16) == 0) as u32,
            extents: dv_extents_t { rank: inp.u8() as u32 % 10, reserved: (inp.below(16) == 0) as u32, extent: [0; 8] },
            strides: [0; 8],
        };
        for r in 0..8 {
            d.extents.extent[r] = match inp.below(10) {
                0 => inp.u64(),
                _ => inp.below(6) as u64,
            };
            d.strides[r] = inp.below(40) as u64;
        }
        // Never ask for a huge block: skip what could allocate more than
        // MAX_BYTES (elements of up to 16 bytes) yet pass the overflow checks.
        let rank = d.extents.rank.min(8) as usize;
        let dense = d.extents.extent[..rank].iter().filter(|&&e| e != 0).fold(1u128, |a, &e| a.saturating_mul(e as u128));
        let strided = 1 + d.extents.extent[..rank]
            .iter()
            .zip(&d.strides)
            .fold(0u128, |a, (&e, &s)| a.saturating_add((e as u128).saturating_sub(1).saturating_mul(s as u128)));
        let risky = |n: u128| n > MAX_BYTES / 16 && n <= isize::MAX as u128;
        if risky(dense) || risky(strided) {
            return;
        }
        let mut out = null_mut();
        // SAFETY: valid pointers.
        let st = unsafe { dv_create(c"fz_raw".as_ptr(), &d, &mut out) };
        assert_ne!(st, DV_ERROR_INTERNAL, "dv_create panicked on {d:?}: {}", last_error());
        if st == DV_OK {
            // SAFETY: a fresh handle.
            assert_eq!(unsafe { dv_destroy(out) }, DV_OK);
        } else {
            self.statuses[st as usize] += 1;
            assert!(out.is_null());
        }
    }

    // ---- the program's own writes, and idioms of several calls ---------------------------

    /// The program writes one side of a handle's box through the data pointer, unmarked.
    fn op_write(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let Some(h) = self.pick(inp) else { return };
        self.touch(HArg::Live(h));
        if self.is_stale(h) || self.hs[h].konst {
            return;
        }
        self.program_write(h, side);
    }

    /// The halo idiom (issue 30, finding 1) through handle `h`: when Kokkos
    /// would refuse a mark of `side`, the row to send is synced to `side`
    /// first (that clears the other counter, even if the row held nothing
    /// to copy); two ghost rows are written on `side`; then each is marked
    /// and synced to the other side through its own subview.
    fn op_halo(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let (a, b, c) = (inp.u16() as usize, inp.u16() as usize, inp.u16() as usize);
        let Some(h) = self.pick(inp) else { return };
        self.touch(HArg::Live(h));
        let ext = self.hs[h].ext.clone();
        if self.is_stale(h) || self.hs[h].konst || ext.first().is_none_or(|&e| e == 0) || self.live_handles().len() + 3 > MAX_HANDLES {
            return;
        }
        let rows = ext[0];
        let row = |r: usize| -> Vec<dv_range_t> {
            (0..ext.len())
                .map(|ax| if ax == 0 { dv_range_t { kind: DV_INDEX, reserved: 0, begin: (r % rows) as u64, end: 0 } } else { ALL })
                .collect()
        };
        let base = self.hs.len();
        if self.two(h) && self.oracle_of(h).refuses(six(side)) {
            let send = self.temp_subview(h, &row(c));
            self.sync_through(send, side, false);
        }
        let (ga, gb) = (self.temp_subview(h, &row(a)), self.temp_subview(h, &row(b)));
        self.program_write(ga, side);
        self.program_write(gb, side);
        for g in [ga, gb] {
            self.modify_through(g, side);
            self.sync_through(g, 1 - side, false);
        }
        self.drop_temps(base);
    }

    /// Several regions of one side written before any mark, through
    /// subviews that may overlap, then marked in an order of their own, then
    /// synced to the other side through each, or through the handle, or not.
    fn op_marks(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let n = 2 + inp.below(4);
        let Some(h) = self.pick(inp) else { return };
        self.touch(HArg::Live(h));
        if self.is_stale(h) || self.hs[h].konst || self.live_handles().len() + n > MAX_HANDLES {
            return;
        }
        let ext = self.hs[h].ext.clone();
        let base = self.hs.len();
        if self.two(h) && self.oracle_of(h).refuses(six(side)) && inp.bool() {
            self.sync_through(h, side, false); // clears the other counter: the marks land
        }
        let mut subs = vec![];
        for _ in 0..n {
            let ranges: Vec<dv_range_t> = ext
                .iter()
                .map(|&e| {
                    let x = inp.below_wide(e + 1);
                    let y = inp.below_wide(e + 1 - x);
                    match inp.below(3) {
                        0 if e > 0 => dv_range_t { kind: DV_INDEX, reserved: 0, begin: (x % e) as u64, end: 0 },
                        1 => ALL,
                        _ => dv_range_t { kind: DV_RANGE, reserved: 0, begin: x as u64, end: (x + y) as u64 },
                    }
                })
                .collect();
            subs.push(self.temp_subview(h, &ranges));
        }
        for &s in &subs {
            self.program_write(s, side);
        }
        let mut order = subs.clone();
        for i in (1..order.len()).rev() {
            order.swap(i, inp.below(i + 1));
        }
        for &s in &order {
            self.modify_through(s, side);
        }
        match inp.below(3) {
            0 => {
                for &s in &subs {
                    self.sync_through(s, 1 - side, false);
                }
            }
            1 => {
                self.sync_through(h, 1 - side, false);
            }
            _ => {}
        }
        self.drop_temps(base);
    }

    /// Fragmentation: 64 to 255 calls through small subviews of one handle
    /// (single elements and short runs, new ones near the last or anywhere),
    /// driven by a seed: writes left unmarked and marked later in another
    /// order, marks (after a sync of that side, half the time, where Kokkos
    /// refuses them), syncs, fills, pushes, checks of the boxes where
    /// `need_sync` is false, now and then a whole-array call or a resize of
    /// the fragmented map.
    fn op_scatter(&mut self, inp: &mut Input) {
        let mut rng = Rng(u64::from(inp.u32()) << 1 | 1);
        let n = 64 + inp.below(192);
        let Some(h) = self.pick(inp) else { return };
        self.touch(HArg::Live(h));
        if self.is_stale(h) || self.hs[h].konst || self.live_handles().len() + 4 > MAX_HANDLES {
            return;
        }
        let fam = self.hs[h].fam;
        let base = self.hs.len();
        let mut ring: Vec<usize> = vec![];
        let mut written: Vec<(usize, u32)> = vec![];
        let mut hot = 0usize;
        // At most one resize and one whole-array call per operation, in half of them.
        let (mut resized, mut whole) = (rng.below(2) == 0, rng.below(2) == 0);
        for step in 0..n {
            let ext = self.hs[h].ext.clone();
            let len: usize = ext.iter().product();
            if len == 0 {
                break;
            }
            if ring.is_empty() || rng.below(3) != 0 {
                if ring.len() == 4 {
                    let old = ring.remove(0);
                    // SAFETY: a live handle of this operation, destroyed once.
                    assert_eq!(unsafe { dv_destroy(self.hs[old].p) }, DV_OK);
                    self.hs[old].live = false;
                    written.retain(|w| w.0 != old);
                }
                hot = if rng.below(2) == 0 { rng.below(len) } else { (hot + rng.below(9)).saturating_sub(4).min(len - 1) };
                let mut at = vec![0; ext.len()];
                let mut k = hot;
                for r in (0..ext.len()).rev() {
                    at[r] = k % ext[r];
                    k /= ext[r];
                }
                let ranges: Vec<dv_range_t> = ext
                    .iter()
                    .zip(&at)
                    .map(|(&e, &i)| match rng.below(4) {
                        0 => dv_range_t { kind: DV_INDEX, reserved: 0, begin: i as u64, end: 0 },
                        _ => dv_range_t { kind: DV_RANGE, reserved: 0, begin: i as u64, end: (i + 1 + rng.below(3)).min(e) as u64 },
                    })
                    .collect();
                ring.push(self.temp_subview(h, &ranges));
            }
            let x = ring[rng.below(ring.len())];
            let s = rng.below(2) as u32;
            self.scattered += 1;
            match rng.below(20) {
                0..=4 => {
                    self.program_write(x, s);
                    written.push((x, s));
                }
                5..=9 => {
                    if self.fams[fam].two && self.fams[fam].oracle.refuses(six(s)) && rng.below(2) == 0 {
                        self.sync_through(x, s, false);
                    }
                    self.modify_through(x, s);
                }
                10..=12 => {
                    self.sync_through(x, s, rng.below(4) == 0);
                }
                13 => {
                    self.fill_through(x, s);
                }
                14 => {
                    self.push_through(x, s);
                }
                15 | 16 => {
                    // The writes so far, marked in another order.
                    while !written.is_empty() {
                        let (y, t) = written.swap_remove(rng.below(written.len()));
                        self.modify_through(y, t);
                    }
                }
                17 => {
                    for t in [DV_SIDE_HOST, DV_SIDE_DEVICE] {
                        if !need_sync(self.hs[x].p, t) {
                            self.compare(x, t, "in a small box where need_sync is false");
                        }
                    }
                }
                18 if !whole && rng.below(4) == 0 => {
                    whole = true; // once per operation (time: the oracle's whole-array calls are slow in a debug build)
                    // The whole handle: the map collapses there.
                    if rng.below(2) == 0 {
                        self.modify_through(h, s);
                    } else {
                        self.sync_through(h, s, false);
                    }
                }
                19 if !resized && self.hs[h].region.is_none() && self.fams[fam].owned => {
                    // Resize the fragmented map by a few percent (its subviews go first).
                    let new: Vec<usize> = ext
                        .iter()
                        .map(|&e| {
                            let d = e / 16 + 1;
                            (e + rng.below(2 * d + 1)).saturating_sub(d).max(1)
                        })
                        .collect();
                    if dense_bytes(&new, 8) > MAX_BYTES {
                        continue;
                    }
                    for y in ring.drain(..) {
                        // SAFETY: a live handle of this operation, destroyed once.
                        assert_eq!(unsafe { dv_destroy(self.hs[y].p) }, DV_OK);
                        self.hs[y].live = false;
                    }
                    written.clear();
                    // SAFETY: a live handle, valid extents.
                    let st = unsafe { dv_resize(self.hs[h].p, &ext_c(&new)) };
                    trace!("  resize of handle {h} (family {fam}) from {ext:?} to {new:?}: {st:?}");
                    self.expect("dv_resize", st, DV_OK);
                    self.after_resize(fam, &new, 0);
                    resized = true;
                }
                _ => {}
            }
            if step % 32 == 31 {
                self.fragments = self.fragments.max(self.fams[fam].fragments());
            }
        }
        self.drop_temps(base);
        self.fragments = self.fragments.max(self.fams[fam].fragments());
    }

    /// A two-space DualView of 2,048 to 8,191 elements (32,768 to 65,535 when
    /// the input says so), 1-D or 2-D: room for a map of many fragments
    /// (`op_scatter`). One time in four (time: the checks of such a
    /// DualView take long), else `op_create`.
    fn op_create_big(&mut self, inp: &mut Input) {
        if inp.below(4) != 0 {
            return self.op_create(inp);
        }
        if self.fams.len() >= MAX_FAMILIES || self.live_handles().len() >= MAX_HANDLES {
            return;
        }
        let rank = 1 + inp.below(2);
        // Tens of thousands of elements when the input says 0xff (fragmentation_program), else thousands.
        let huge = inp.u8() == 0xff;
        let n = if huge { HUGE + inp.u16() as usize % HUGE } else { BIG + inp.u16() as usize % BIG_SPAN };
        let ext = if rank == 1 {
            vec![n]
        } else {
            let r = if cfg!(miri) { 2 } else { 64 + inp.below(192) };
            vec![r, n.div_ceil(r)]
        };
        let (dtype, elem_size) = [(DV_DTYPE_INT16, 0), (DV_DTYPE_INT32, 0), (DV_DTYPE_INT64, 0), (DV_DTYPE_FLOAT64, 8), (DV_DTYPE_BYTES, 3)][inp.below(5)];
        let layout = [DV_LAYOUT_LEFT, DV_LAYOUT_RIGHT][inp.below(2)];
        let uninit = inp.below(8) == 0;
        let d = dv_desc_t {
            dtype,
            elem_size,
            elem_align: 0,
            layout,
            space: DV_SPACE_TEST_DEVICE,
            ordinal: inp.below(3) as u32,
            flags: if uninit { DV_FLAG_WITHOUT_INITIALIZING } else { 0 },
            reserved: 0,
            extents: ext_c(&ext),
            strides: [0; 8],
        };
        let label = b"fz_big\0".to_vec();
        let mut out = null_mut();
        // SAFETY: valid pointers; the label is NUL-terminated.
        let st = unsafe { dv_create(label.as_ptr() as *const c_char, &d, &mut out) };
        self.expect("dv_create", st, DV_OK);
        let fam = self.fam_from_desc(label, &d, true, uninit);
        let h = H::whole(out, self.fams.len(), &fam);
        self.fams.push(fam);
        self.add_handle(h);
    }
}

/// Every index of an axis.
const ALL: dv_range_t = dv_range_t { kind: DV_ALL, reserved: 0, begin: 0, end: 0 };

/// xorshift64* (the programs of `op_scatter`, and the random programs of main.rs).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}


impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

/// The work one program of the fuzzer may do: each operation costs the elements of the
/// families it touched (the library works on them and the oracle checks them), and a
/// program stops after the operation that spends past this. A few operations on the
/// largest families fit (`HUGE`: 5 to 8), any number on small ones: a program's time is
/// bounded, so the fuzzer runs more programs (docs/RELIABILITY.md, "Speed: fuel").
const FUEL: usize = 1 << 18;

/// Run one program within [`FUEL`]: the libFuzzer entry point's whole body.
pub fn run(data: &[u8]) {
    run_as_fuzzed(data);
}

/// Like [`run`] (within [`FUEL`], as the fuzzer runs it), returning what the run did.
pub fn run_as_fuzzed(data: &[u8]) -> Summary {
    run_with(data, TRACK, FUEL)
}

/// Like [`run`] without its fuel (every operation the input holds), returning what the run did.
pub fn run_summary(data: &[u8]) -> Summary {
    run_with(data, TRACK, usize::MAX)
}

/// [`run_summary`] with the oracle tracking every element of every family
/// (the fragmentation programs' deep check), not a sample of large ones.
pub fn run_tracking_all(data: &[u8]) -> Summary {
    run_with(data, usize::MAX, usize::MAX)
}

fn run_with(data: &[u8], track: usize, mut fuel: usize) -> Summary {
    // Each program starts and ends with no registered block kept for reuse (DECISIONS S11):
    // what it does never depends on the program before it, and it frees what it allocated.
    dualview::memory::pool_release();
    let mut inp = Input::new(data);
    let mut w = World::new();
    w.track = track;
    let mut n = 0;
    while !inp.done() && n < MAX_OPS {
        w.step(&mut inp);
        let cost = w.cost();
        w.check_touched();
        n += 1;
        let Some(left) = fuel.checked_sub(cost) else { break };
        fuel = left;
    }
    w.check_all();
    let s = w.summary();
    w.finish();
    dualview::memory::pool_release();
    s
}

/// Like [`run`], adding the failing statuses seen to `statuses`; the operations run.
pub fn run_counting(data: &[u8], statuses: &mut [u64; 19]) -> usize {
    let s = run_summary(data);
    for (a, b) in statuses.iter_mut().zip(s.statuses) {
        *a += b;
    }
    s.ops
}

/// A program of fragmented maps (the input of `op_create_big`, then of
/// `op_scatter`, `op_halo`, `op_marks` and syncs of the whole array), from
/// a seed: an even seed makes a 1-D DualView, an odd one a 2-D one.
pub fn fragmentation_program(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    // Of 45,000 to 65,000 elements (past the box cap, see HUGE).
    let mut p = vec![32, 0, (seed % 2) as u8, 0xff];
    p.extend_from_slice(&(45_000 - HUGE as u16 + (rng.next() % 20_000) as u16).to_le_bytes());
    if seed % 2 == 1 {
        p.push(rng.next() as u8); // rows
    }
    p.extend_from_slice(&[rng.next() as u8, rng.next() as u8, 1, rng.next() as u8]); // type, layout, initialised, ordinal
    for k in 0..14 {
        match k {
            // op_marks, last (it reads as many bytes as its subviews need): side, count, the handle, its bytes.
            13 => {
                p.extend_from_slice(&[30, rng.next() as u8, rng.next() as u8, 0]);
                p.extend((0..60).map(|_| rng.next() as u8));
            }
            // op_halo: side, rows a, b, c (u16), the handle.
            _ if k % 6 == 3 => p.extend_from_slice(&[29, rng.next() as u8, rng.next() as u8, 0, rng.next() as u8, 0, rng.next() as u8, 0, 0]),
            // op_sync of the whole array: side, blocking, no fault, the handle.
            _ if k % 6 == 5 => p.extend_from_slice(&[9, rng.next() as u8, 1, 255, 0]),
            // op_scatter: seed, 255 calls, the handle.
            _ => {
                p.push(31);
                p.extend_from_slice(&(rng.next() as u32).to_le_bytes());
                p.extend_from_slice(&[191, 0]);
            }
        }
    }
    p
}
