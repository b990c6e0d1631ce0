//! A program of C ABI calls, run against a reference model.
//!
//! Shared by the libFuzzer target (`fuzz/fuzz_targets/c_abi.rs`, which
//! includes this file by path) and by `cargo test --test reliability`, which
//! replays the committed corpus and random programs through it.
//!
//! The input bytes are read as a sequence of operations. Each operation
//! picks handles and arguments from the bytes, sometimes replaces one
//! argument by a bad one (NULL pointer, destroyed or foreign handle, unknown
//! enum value, bad extents, out-of-range axis...), calls the `dv_*` function
//! through its C ABI, and checks the status against the model. After every
//! operation each live handle is checked: flags (`dv_need_sync_*`, the
//! sync-state byte), shape, `dv_info`, transfer statistics and the data of
//! both sides, read from memory through the view the library reports.
//! Any disagreement panics (a finding). At the end every handle is destroyed
//! and the handle count and the live allocations must be back where they were.
//!
//! Model rules are those of docs/SEMANTICS.md: a subview's modifications are
//! recorded as its region (at most 16 boxes, then the whole array), a sync
//! copies exactly the recorded regions (or everything), resize keeps the
//! overlap on both sides, subviews made before a resize or realloc to new
//! extents are stale, const handles refuse writes.

#![allow(dead_code, clippy::too_many_arguments, clippy::needless_range_loop)]

use dualview::ffi::dv_status_t::{self, *};
use dualview::ffi::*;
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU8, Ordering};
#[path = "../common/mod.rs"]
mod common;
use common::{flat, row_major};

/// An element whose value the model does not know (memory never initialised).
const UNDEF: u64 = u64::MAX;
const MAX_HANDLES: usize = 24;
const MAX_FAMILIES: usize = 8;
const MAX_OPS: usize = 64;
/// No operation may allocate more than this (a fuzzer must never ask for terabytes).
const MAX_BYTES: u128 = 1 << 20;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Newer {
    None,
    Host,
    Device,
}

fn newer_of(side: u32) -> Newer {
    if side == DV_SIDE_HOST { Newer::Host } else { Newer::Device }
}

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
    host: Vec<u64>,
    dev: Vec<u64>,
    newer: Newer,
    /// What the newer side changed: `None` everywhere, or these regions.
    /// The elements the newer side changed and has not copied yet (every
    /// element while the change is whole, `partial` false).
    dirty: BTreeSet<usize>,
    /// The change is a set of regions (`DV_SYNC_PARTIAL`).
    partial: bool,
    /// `dirty` is what a handle's sync left (`DV_SYNC_REST`).
    rest: bool,
    generation: u64,
    owned: bool,
    /// to_device count, bytes, to_host count, bytes.
    stats: [u64; 4],
    /// Memory given to `dv_wrap`: it must outlive the handles.
    bufs: Vec<Vec<u64>>,
}

impl Fam {
    fn size(&self) -> usize {
        self.ext.iter().product()
    }
    fn stale(&self, side: u32) -> bool {
        self.two && matches!((self.newer, side), (Newer::Device, DV_SIDE_HOST) | (Newer::Host, DV_SIDE_DEVICE))
    }
    /// A modify of `side` is refused: the other side holds changes that are not a rest.
    fn conflicts(&self, side: u32) -> bool {
        self.stale(side) && !self.rest
    }
    fn clear(&mut self) {
        self.newer = Newer::None;
        self.dirty.clear();
        (self.partial, self.rest) = (false, false);
    }
    /// After a resize from `old` extents to the current ones (same rank): a
    /// whole change stays whole; recorded regions keep their kept indices and
    /// gain the new ones.
    fn keep_record(&mut self, old: &[usize]) {
        if self.newer == Newer::None {
            return;
        }
        let ext = self.ext.clone();
        if !self.partial {
            self.dirty = (0..self.size()).collect();
            return;
        }
        // Kept indices keep their changes; new ones count as changed (the newer side may write them).
        self.dirty = row_major(&ext)
            .into_iter()
            .filter(|idx| {
                let kept = idx.iter().zip(old).all(|(i, e)| i < e);
                !kept || self.dirty.contains(&flat(old, idx))
            })
            .map(|idx| flat(&ext, &idx))
            .collect();
        if self.dirty.is_empty() {
            self.clear();
        }
    }
    fn data(&self, side: u32) -> &Vec<u64> {
        if side == DV_SIDE_HOST { &self.host } else { &self.dev }
    }
    /// Write one element of one side (both sides on one space).
    fn set(&mut self, side: u32, i: usize, v: u64) {
        if !self.two || side == DV_SIDE_HOST {
            self.host[i] = v;
        }
        if !self.two || side == DV_SIDE_DEVICE {
            self.dev[i] = v;
        }
    }
    fn state_byte(&self) -> u8 {
        if !self.two {
            return DV_SYNC_ONE_SPACE;
        }
        let base = match self.newer {
            Newer::None => DV_SYNC_CLEAN,
            Newer::Host => DV_SYNC_HOST_NEWER,
            Newer::Device => DV_SYNC_DEVICE_NEWER,
        };
        if self.newer == Newer::None {
            return base;
        }
        base | if self.partial { DV_SYNC_PARTIAL } else { 0 } | if self.rest { DV_SYNC_REST } else { 0 }
    }
    fn mask(&self) -> u64 {
        if self.elem >= 8 { u64::MAX } else { (1u64 << (8 * self.elem)) - 1 }
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
    ext: Vec<usize>,
    strides: Vec<usize>,
    /// `DV_LAYOUT_*` of this handle's mapping.
    layout: u32,
    generation: u64,
    konst: bool,
    live: bool,
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
    let mut v = 0u64;
    for b in 0..es {
        // SAFETY: the caller passes `es` readable bytes.
        v |= (unsafe { *p.add(b) } as u64) << (8 * b);
    }
    v
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
    fams: Vec<Fam>,
    hs: Vec<H>,
    dead: Vec<*mut dv_dualview_t>,
    handles_at_start: usize,
    allocs_at_start: usize,
    cuda: bool,
    /// Families an operation touched (checked after it); `None`: all.
    touched: Option<Vec<usize>>,
    /// Operations run (for the statistics of a replay).
    pub ops: usize,
    /// Failing statuses seen, by code (coverage of the error paths).
    pub statuses: [u64; 19],
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
    dualview::space::live_allocations().iter().filter(|a| a.label.starts_with("fz")).count()
}

impl World {
    pub fn new() -> World {
        let mut cuda = false;
        // SAFETY: cuda is writable.
        assert_eq!(unsafe { dv_cuda_available(&mut cuda) }, DV_OK);
        World { fams: vec![], hs: vec![], dead: vec![], handles_at_start: handle_count(), allocs_at_start: fam_allocs(), cuda, touched: None, ops: 0, statuses: [0; 19] }
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

    /// Compare a status with the model's, and check the error message.
    #[track_caller]
    fn expect(&mut self, what: &str, got: dv_status_t, want: dv_status_t) {
        assert_eq!(got, want, "{what}: status {got:?}, model says {want:?} (last error: {})", last_error());
        if got != DV_OK {
            self.statuses[got as usize] += 1;
            let msg = last_error();
            assert!(msg.starts_with("dv_"), "{what}: the message does not name the function: {msg:?}");
        }
    }

    // ---- model transitions ---------------------------------------------------------

    /// Sync `side` through a handle whose region is `region` (`None`: the
    /// whole array): copy the changed elements inside it; the rest stays.
    fn model_sync(&mut self, fam: usize, side: u32, region: Option<&BTreeSet<usize>>) {
        let f = &mut self.fams[fam];
        if !f.stale(side) {
            return;
        }
        let copied: Vec<usize> = f.dirty.iter().copied().filter(|i| region.is_none_or(|r| r.contains(i))).collect();
        for &i in &copied {
            if side == DV_SIDE_HOST {
                f.host[i] = f.dev[i];
            } else {
                f.dev[i] = f.host[i];
            }
            f.dirty.remove(&i);
        }
        let k = if side == DV_SIDE_DEVICE { 0 } else { 2 };
        f.stats[k] += 1;
        f.stats[k + 1] += (copied.len() * f.elem) as u64;
        if f.dirty.is_empty() {
            f.clear();
        } else {
            (f.partial, f.rest) = (true, true);
        }
    }

    /// [`Engine::model_sync`] through handle `h`.
    fn model_sync_through(&mut self, h: usize, side: u32) {
        let region: Option<BTreeSet<usize>> = self.hs[h].region.as_ref().map(|r| r.iter().copied().collect());
        self.model_sync(self.hs[h].fam, side, region.as_ref());
    }

    /// A write of `side` through handle `h` while the other side holds a
    /// rest: the rest outside `h`'s region is copied into `side`, the part
    /// inside is dropped; then both sides are clean.
    fn release(&mut self, h: usize, side: u32) {
        let fam = self.hs[h].fam;
        if !self.fams[fam].stale(side) {
            return;
        }
        let region: BTreeSet<usize> = self.region(h).into_iter().collect();
        let outside: BTreeSet<usize> = self.fams[fam].dirty.iter().copied().filter(|i| !region.contains(i)).collect();
        if !outside.is_empty() {
            self.model_sync(fam, side, Some(&outside));
        }
        self.fams[fam].clear();
    }

    /// Whether a write of `side` through `h` would copy part of a rest (refused through a const handle).
    fn rest_to_copy(&self, h: usize, side: u32) -> bool {
        let f = &self.fams[self.hs[h].fam];
        let region: BTreeSet<usize> = self.region(h).into_iter().collect();
        f.stale(side) && f.rest && f.dirty.iter().any(|i| !region.contains(i))
    }

    /// A successful modify of `side` through handle `h` (not a conflict): a
    /// rest of the other side is released first.
    fn mark(&mut self, h: usize, side: u32) {
        let whole = self.hs[h].region.is_none();
        let region: BTreeSet<usize> = self.region(h).into_iter().collect();
        let fam = self.hs[h].fam;
        if !self.fams[fam].two {
            return;
        }
        self.release(h, side);
        let f = &mut self.fams[fam];
        if whole {
            f.dirty = (0..f.size()).collect();
            f.partial = false;
        } else if f.newer == newer_of(side) && !f.partial {
            return; // already newer everywhere
        } else {
            if f.newer != newer_of(side) {
                f.dirty.clear();
            }
            f.dirty.extend(region);
            f.partial = true;
        }
        f.newer = newer_of(side);
        f.rest = false;
    }

    fn write_region(&mut self, h: usize, side: u32, v: u64) {
        let region = self.region(h);
        let f = &mut self.fams[self.hs[h].fam];
        let v = v & f.mask();
        for k in region {
            f.set(side, k, v);
        }
    }

    fn add_handle(&mut self, h: H) {
        self.touched.get_or_insert_with(Vec::new).push(h.fam);
        self.hs.push(h);
    }

    // ---- checks ----------------------------------------------------------------------

    /// Everything observable about every live handle agrees with the model.
    pub fn check_all(&mut self) {
        for h in self.live_handles() {
            self.check(h);
        }
        for f in 0..self.fams.len() {
            self.check_stats(f);
        }
    }

    /// [`World::check_all`] restricted to the families the last operation touched.
    pub fn check_touched(&mut self) {
        let Some(fams) = self.touched.take() else { return self.check_all() };
        for h in self.live_handles() {
            if fams.contains(&self.hs[h].fam) {
                self.check(h);
            }
        }
        for f in fams {
            self.check_stats(f);
        }
    }

    /// Note the family of a handle argument as touched.
    fn touch(&mut self, a: HArg) {
        if let HArg::Live(h) = a {
            let f = self.hs[h].fam;
            self.touched.get_or_insert_with(Vec::new).push(f);
        }
    }

    fn check_stats(&self, f: usize) {
        let Some(h) = self.live_handles().into_iter().find(|&h| self.hs[h].fam == f) else { return };
        let mut s = dv_stats_t::default();
        // SAFETY: live handle, writable output.
        assert_eq!(unsafe { dv_stats(self.hs[h].p, &mut s) }, DV_OK);
        let m = self.fams[f].stats;
        assert_eq!(
            [s.to_device_count, s.to_device_bytes, s.to_host_count, s.to_host_bytes],
            m,
            "transfer statistics of family {f}: a sync copied more or less than what changed"
        );
    }

    fn check(&mut self, hi: usize) {
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
        assert_eq!(info.bits, bits, "info bits of handle {hi}");
        assert_eq!(
            (info.dtype, info.rank, info.elem_size, info.use_count),
            (f.dtype, h.ext.len() as u32, f.elem as u64, uses),
            "info of handle {hi}"
        );
        let device_space = if f.space == DV_SPACE_HOST { DV_SPACE_HOST } else { DV_SPACE_TEST_DEVICE };
        let host_space = if f.single_flag { DV_SPACE_TEST_DEVICE } else { DV_SPACE_HOST };
        assert_eq!((info.host_space, info.device_space), (host_space, device_space));
        let mut word: *const u8 = null();
        assert_eq!(unsafe { dv_sync_state_word(p, &mut word) }, DV_OK);
        // SAFETY: the byte lives while the family does; read atomically as documented.
        let state = unsafe { (*(word as *const AtomicU8)).load(Ordering::Acquire) };
        assert_eq!(state, f.state_byte(), "sync state of family {} (newer {:?}, dirty {:?})", h.fam, f.newer, f.dirty);
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
        assert_eq!(unsafe { dv_need_sync_host(p, &mut b) }, DV_OK);
        assert_eq!(b, f.stale(DV_SIDE_HOST), "need_sync_host of handle {hi}");
        assert_eq!(unsafe { dv_need_sync_device(p, &mut b) }, DV_OK);
        assert_eq!(b, f.stale(DV_SIDE_DEVICE), "need_sync_device of handle {hi}");
        let region = self.region(hi);
        let f = &self.fams[h.fam];
        let mut ptrs = [0usize; 2];
        for side in [DV_SIDE_HOST, DV_SIDE_DEVICE] {
            let mut v = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
            let st = unsafe { if side == DV_SIDE_HOST { dv_host_view(p, v.as_mut_ptr()) } else { dv_device_view(p, v.as_mut_ptr()) } };
            assert_eq!(st, DV_OK);
            // SAFETY: written on success.
            let v = unsafe { v.assume_init() };
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
            let want = f.data(side);
            let mut idx = [0usize; 8];
            for k in 0..region.len() {
                if k > 0 {
                    // Next index in row-major order.
                    let mut ax = r;
                    while ax > 0 {
                        ax -= 1;
                        idx[ax] += 1;
                        if idx[ax] < h.ext[ax] {
                            break;
                        }
                        idx[ax] = 0;
                    }
                }
                let m = want[region[k]];
                if m == UNDEF {
                    continue;
                }
                let off: usize = idx[..r].iter().zip(&strides).map(|(i, s)| i * s).sum();
                // SAFETY: host or test-device memory; the offset lies inside the view's span.
                let got = unsafe { rd((v.data as *const u8).add(off * f.elem), f.elem) };
                assert_eq!(
                    got, m,
                    "handle {hi} (family {}, ext {:?}, subview {}) side {side} element {:?}: memory {got}, model {m}",
                    h.fam,
                    h.ext,
                    h.region.is_some(),
                    &idx[..r]
                );
            }
        }
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
        assert_eq!(fam_allocs(), self.allocs_at_start, "allocations leaked: {:?}", dualview::space::live_allocations());
        // Wrapped buffers are dropped here, after every handle.
        self.fams.clear();
    }

    // ---- the operations ----------------------------------------------------------------

    /// Run one operation read from `inp`.
    pub fn step(&mut self, inp: &mut Input) {
        self.ops += 1;
        self.touched = Some(Vec::new());
        let op = inp.u8() % 26;
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
            _ => self.op_sync(inp),
        }
    }

    /// A description the model can follow, from the input.
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
        let n: usize = ext.iter().product();
        let init = if uninit { UNDEF } else { 0 };
        let single_flag = d.flags & DV_FLAG_SINGLE_SPACE != 0;
        Fam {
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
            host: vec![init; n],
            dev: vec![init; n],
            newer: Newer::None,
            dirty: BTreeSet::new(),
            partial: false,
            rest: false,
            generation: 0,
            owned,
            stats: [0; 4],
            bufs: vec![],
        }
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
            let h = H {
                p: out,
                fam: self.fams.len(),
                region: None,
                ext: fam.ext.clone(),
                strides: fam.strides.clone(),
                layout: fam.layout,
                generation: 0,
                konst: false,
                live: true,
            };
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
                // Adopted: the host holds the data, marked modified everywhere.
                (fam.newer, fam.dirty, fam.partial, fam.rest) = (Newer::Host, (0..fam.size()).collect(), false, false);
            }
            fam.bufs = vec![hb, db];
            let h = H {
                p: out,
                fam: self.fams.len(),
                region: None,
                ext: fam.ext.clone(),
                strides: fam.strides.clone(),
                layout: fam.layout,
                generation: 0,
                konst: false,
                live: true,
            };
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
            self.dead.push(self.hs[i].p);
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
        let hi = src.live().unwrap();
        let parent = self.hs[hi].clone();
        let parent_region = self.region(hi);
        let mut new_ext = vec![];
        let mut new_strides = vec![];
        for (r, rg) in ranges.iter().enumerate() {
            match rg.kind {
                DV_ALL => {
                    new_ext.push(ext[r]);
                    new_strides.push(parent.strides[r]);
                }
                DV_RANGE => {
                    new_ext.push((rg.end - rg.begin) as usize);
                    new_strides.push(parent.strides[r]);
                }
                _ => {}
            }
        }
        let region = row_major(&new_ext)
            .iter()
            .map(|idx| {
                let mut it = idx.iter();
                let pidx: Vec<usize> = ranges
                    .iter()
                    .map(|rg| match rg.kind {
                        DV_ALL => *it.next().unwrap(),
                        DV_RANGE => rg.begin as usize + it.next().unwrap(),
                        _ => rg.begin as usize,
                    })
                    .collect();
                parent_region[flat(&ext, &pidx)]
            })
            .collect();
        let generation = self.fams[parent.fam].generation;
        let (layout, new_strides) = sub_mapping(parent.layout, &new_ext, &new_strides);
        self.add_handle(H {
            p: out,
            fam: parent.fam,
            region: Some(region),
            ext: new_ext,
            strides: new_strides,
            layout,
            generation,
            konst: parent.konst,
            live: true,
        });
    }

    fn op_modify(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            if self.is_stale(h) {
                DV_ERROR_STALE
            } else if self.fams[self.hs[h].fam].conflicts(side) {
                DV_ERROR_CONCURRENT_MODIFICATION
            } else if self.hs[h].konst && self.rest_to_copy(h, side) {
                DV_ERROR_CONST_SYNC
            } else {
                DV_OK
            }
        });
        let p = a.ptr(self);
        // SAFETY: the library checks the handle.
        let st = unsafe { if side == DV_SIDE_HOST { dv_modify_host(p) } else { dv_modify_device(p) } };
        self.expect("dv_modify", st, want);
        if st == DV_OK {
            self.mark(a.live().unwrap(), side);
        }
    }

    fn op_sync(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let asynchronous = inp.below(4) == 0;
        let fault = inp.fault(1);
        let Some(a) = self.harg(inp, fault.is_some()) else { return };
        let mut copies = false;
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            if self.is_stale(h) {
                DV_ERROR_STALE
            } else if !self.fams[self.hs[h].fam].stale(side) {
                DV_OK
            } else if self.hs[h].konst {
                DV_ERROR_CONST_SYNC
            } else {
                copies = true;
                DV_OK
            }
        });
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
        self.expect("dv_sync", st, want);
        if copies {
            self.model_sync_through(a.live().unwrap(), side);
        }
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
            assert_eq!(b, self.fams[self.hs[a.live().unwrap()].fam].stale(side));
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
        self.expect("dv_clear_sync_state", st, want);
        if st == DV_OK {
            self.fams[self.hs[a.live().unwrap()].fam].clear();
        }
    }

    fn op_access(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let mode = 1 + inp.below(4) as u32;
        let v = inp.u16() as u64;
        let fault = inp.fault(3);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let mut ptr: *mut c_void = null_mut();
        let out: *mut *mut c_void = if fault == Some(1) { null_mut() } else { &mut ptr };
        let mode = if fault == Some(2) { [0, 5, 7, 0x100][inp.below(4)] } else { mode };
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            let f = &self.fams[self.hs[h].fam];
            if out.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if !(1..=4).contains(&mode) || (mode != DV_ACCESS_READ && self.hs[h].konst) {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(h) {
                DV_ERROR_STALE
            } else if mode == DV_ACCESS_READ && f.stale(side) && self.hs[h].konst {
                DV_ERROR_CONST_SYNC
            } else {
                DV_OK
            }
        });
        let p = a.ptr(self);
        // SAFETY: out is NULL or writable.
        let st = unsafe { if side == DV_SIDE_HOST { dv_host_access(p, mode, out) } else { dv_device_access(p, mode, out) } };
        self.expect("dv_access", st, want);
        if st != DV_OK {
            return;
        }
        let h = a.live().unwrap();
        let fam = self.hs[h].fam;
        let whole = self.hs[h].region.is_none();
        if mode == DV_ACCESS_OVERWRITE && whole {
            if self.fams[fam].two {
                let f = &mut self.fams[fam];
                f.newer = newer_of(side);
                f.dirty = (0..f.size()).collect();
                (f.partial, f.rest) = (false, false);
            }
        } else {
            if self.fams[fam].stale(side) {
                self.model_sync_through(h, side);
            }
            if mode != DV_ACCESS_READ {
                self.mark(h, side);
            }
        }
        if mode == DV_ACCESS_READ {
            return;
        }
        // Write `v` through the pointer, as a kernel would.
        let mut vi = std::mem::MaybeUninit::<dv_view_info_t>::uninit();
        // SAFETY: live handle.
        let st = unsafe { if side == DV_SIDE_HOST { dv_host_view(p, vi.as_mut_ptr()) } else { dv_device_view(p, vi.as_mut_ptr()) } };
        assert_eq!(st, DV_OK);
        // SAFETY: written on success.
        let vi = unsafe { vi.assume_init() };
        assert_eq!(vi.data, ptr, "access and view disagree on the data pointer");
        let es = self.fams[fam].elem;
        let vm = v & self.fams[fam].mask();
        for idx in row_major(&self.hs[h].ext) {
            let off: usize = idx.iter().zip(&vi.stride).map(|(i, s)| i * *s as usize).sum();
            // SAFETY: host or test-device memory inside the view's span.
            unsafe { wr((ptr as *mut u8).add(off * es), es, vm) };
        }
        self.write_region(h, side, v);
    }

    fn elem_bytes(&self, fam: usize, v: u64) -> Vec<u8> {
        let es = self.fams[fam].elem;
        (0..es).map(|b| (v >> (8 * b)) as u8).collect()
    }

    fn op_fill(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let v = inp.u16() as u64;
        let fault = inp.fault(2);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
        let bytes = a.live().map(|h| self.elem_bytes(self.hs[h].fam, v)).unwrap_or(vec![0; 8]);
        let vp = if fault == Some(1) { null() } else { bytes.as_ptr() as *const c_void };
        let want = a.error().unwrap_or_else(|| {
            let h = a.live().unwrap();
            if vp.is_null() {
                DV_ERROR_NULL_ARGUMENT
            } else if self.hs[h].konst {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(h) {
                DV_ERROR_STALE
            } else if self.fams[self.hs[h].fam].conflicts(side) {
                DV_ERROR_CONCURRENT_MODIFICATION
            } else {
                DV_OK
            }
        });
        let p = a.ptr(self);
        // SAFETY: value is NULL or one element.
        let st = unsafe { if side == DV_SIDE_HOST { dv_fill_and_modify_host(p, vp) } else { dv_fill_and_modify_device(p, vp) } };
        self.expect("dv_fill_and_modify", st, want);
        if st == DV_OK {
            let h = a.live().unwrap();
            self.release(h, side); // a rest first
            self.write_region(h, side, v);
            self.mark(h, side);
        }
    }

    fn op_view_fill(&mut self, inp: &mut Input) {
        let side = inp.below(2) as u32;
        let v = inp.u16() as u64;
        let fault = inp.fault(3);
        let Some(a) = self.harg(inp, fault == Some(0)) else { return };
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
        self.expect("dv_view_fill", st, want);
        if st == DV_OK {
            self.write_region(a.live().unwrap(), side, v);
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
        self.expect("dv_view_copy", st, want);
        if st == DV_OK {
            self.model_copy(dst.live().unwrap(), ds, src.live().unwrap(), ss);
        }
    }

    fn model_copy(&mut self, d: usize, ds: u32, s: usize, ss: u32) {
        let (dr, sr) = (self.region(d), self.region(s));
        let vals: Vec<u64> = {
            let f = &self.fams[self.hs[s].fam];
            sr.iter().map(|&k| f.data(ss)[k]).collect()
        };
        let f = &mut self.fams[self.hs[d].fam];
        for (&k, v) in dr.iter().zip(vals) {
            f.set(ds, k, v);
        }
    }

    fn op_deep_copy(&mut self, inp: &mut Input) {
        let fault = inp.fault(2);
        let Some(dst) = self.harg(inp, fault == Some(0)) else { return };
        let Some(src) = self.harg(inp, fault == Some(1)) else { return };
        let mut side = DV_SIDE_DEVICE;
        let want = dst.error().or(src.error()).unwrap_or_else(|| {
            let (d, s) = (dst.live().unwrap(), src.live().unwrap());
            let (fd, fs) = (&self.fams[self.hs[d].fam], &self.fams[self.hs[s].fam]);
            side = if fs.two && fs.newer == Newer::Host { DV_SIDE_HOST } else { DV_SIDE_DEVICE };
            if self.hs[d].konst {
                DV_ERROR_INVALID_ARGUMENT
            } else if self.is_stale(d) || self.is_stale(s) {
                DV_ERROR_STALE
            } else if fd.conflicts(side) {
                DV_ERROR_CONCURRENT_MODIFICATION
            } else if self.hs[d].ext != self.hs[s].ext || fd.elem != fs.elem {
                DV_ERROR_INCOMPATIBLE
            } else {
                DV_OK
            }
        });
        // SAFETY: the library checks the handles.
        let st = unsafe { dv_deep_copy(dst.ptr(self), src.ptr(self)) };
        self.expect("dv_deep_copy", st, want);
        if st == DV_OK {
            let (d, s) = (dst.live().unwrap(), src.live().unwrap());
            self.release(d, side); // a rest first
            self.model_copy(d, side, s, side);
            self.mark(d, side);
        }
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
        self.expect(["dv_resize", "dv_realloc", "dv_realloc_without_initializing"][how], st, want);
        if st != DV_OK {
            return;
        }
        let h = a.live().unwrap();
        let fam = self.hs[h].fam;
        let new = newx.unwrap();
        let f = &mut self.fams[fam];
        let same = new == f.ext;
        if how == 0 {
            if same {
                return;
            }
            let n: usize = new.iter().product();
            let (mut host, mut dev) = (vec![0u64; n], vec![0u64; n]);
            for idx in row_major(&new) {
                if idx.iter().zip(&f.ext).all(|(i, e)| i < e) {
                    let (k, o) = (flat(&new, &idx), flat(&f.ext, &idx));
                    host[k] = f.host[o];
                    dev[k] = f.dev[o];
                }
            }
            f.host = host;
            f.dev = dev;
            let old = std::mem::replace(&mut f.ext, new.clone());
            f.keep_record(&old);
            f.ext = old; // updated with the strides below
        } else {
            let n: usize = new.iter().product();
            let init = if how == 1 { 0 } else { UNDEF };
            if !same || how == 1 {
                f.host = vec![init; n];
                f.dev = vec![init; n];
            } else {
                // Same extents without initialising: contents unspecified.
                f.host = vec![UNDEF; n];
                f.dev = vec![UNDEF; n];
            }
            f.clear();
        }
        if !same {
            f.strides = if f.layout == DV_LAYOUT_STRIDE { repack(&f.strides, &new) } else { canonical(f.layout, &new) };
            f.ext = new.clone();
            f.generation += 1;
            let strides = f.strides.clone();
            for x in self.hs.iter_mut().filter(|x| x.fam == fam && x.region.is_none()) {
                x.ext = new.clone();
                x.strides = strides.clone();
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
        self.expect("dv_resized", st, want);
        if st != DV_OK {
            return;
        }
        let h = a.live().unwrap();
        let new = newx.unwrap();
        let f = &self.fams[self.hs[h].fam];
        let n: usize = new.iter().product();
        let (mut host, mut dev) = (vec![0u64; n], vec![0u64; n]);
        for idx in row_major(&new) {
            if idx.iter().zip(&f.ext).all(|(i, e)| i < e) {
                let (k, o) = (flat(&new, &idx), flat(&f.ext, &idx));
                host[k] = f.host[o];
                dev[k] = f.dev[o];
            }
        }
        let strides = if f.layout == DV_LAYOUT_STRIDE { repack(&f.strides, &new) } else { canonical(f.layout, &new) };
        let old_ext = f.ext.clone();
        let mut nf = Fam {
            label: f.label.clone(),
            dtype: f.dtype,
            elem: f.elem,
            align: f.align,
            layout: f.layout,
            strides: strides.clone(),
            ext: new.clone(),
            two: f.two,
            space: f.space,
            ordinal: f.ordinal,
            single_flag: f.single_flag,
            host,
            dev,
            newer: f.newer,
            dirty: f.dirty.clone(),
            partial: f.partial,
            rest: f.rest,
            generation: 0,
            owned: true,
            stats: [0; 4],
            bufs: vec![],
        };
        nf.keep_record(&old_ext);
        self.fams.push(nf);
        self.add_handle(H {
            p: out,
            fam: self.fams.len() - 1,
            region: None,
            ext: new,
            strides,
            layout: self.fams[self.fams.len() - 1].layout,
            generation: 0,
            konst: false,
            live: true,
        });
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
                    assert_eq!(CStr::from_ptr(dv_version()).to_str().unwrap(), "0.1.0");
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
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

/// Run one program: the libFuzzer entry point's whole body.
pub fn run(data: &[u8]) {
    let mut inp = Input::new(data);
    let mut w = World::new();
    let mut n = 0;
    while !inp.done() && n < MAX_OPS {
        w.step(&mut inp);
        w.check_touched();
        n += 1;
    }
    w.check_all();
    w.finish();
}

/// Like [`run`], returning the world's counters (for replays and statistics).
pub fn run_counting(data: &[u8], statuses: &mut [u64; 19]) -> usize {
    let mut inp = Input::new(data);
    let mut w = World::new();
    let mut n = 0;
    while !inp.done() && n < MAX_OPS {
        w.step(&mut inp);
        w.check_touched();
        n += 1;
    }
    w.check_all();
    for (a, b) in statuses.iter_mut().zip(w.statuses) {
        *a += b;
    }
    let ops = w.ops;
    w.finish();
    ops
}
