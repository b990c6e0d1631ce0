//! The oracle of issue 30: what a program wrote and marked (the ground
//! truth), and what Kokkos' two counters deliver, per element. It knows
//! nothing of dualview's coherence map: it follows the program's calls, so a
//! wrong rule in the library cannot pass by agreeing with itself.
//!
//! The ledger, per tracked element (a multi-index of the family's parent):
//!
//! | field | meaning |
//! | --- | --- |
//! | `value` | the last marked write (`None`: unknown, after a broken rule or an unknown write) |
//! | `pending[s]` | a write of side `s` not yet marked |
//! | `known[s]` | what the program knows side `s` holds (its own write, or the value after a sync of `s` covering the element) |
//! | `open` | the side marked last, while no other call covered the element: its writes count as marked (mark, then write) |
//! | `newer` | the side the program marked last, until a sync of the other side or `clear_sync_state` covers the element: only that side holds the newest value, so a resize keeps it there only (issue 32, DECISIONS D3) |
//!
//! The rule a correct program follows: a write of side `s` at `e` is marked
//! (`modify_s`) before any later call whose box covers `e`, other than
//! another mark of `s` (or the write comes after such a mark). A call that
//! covers a pending write breaks the rule there: `value` becomes unknown
//! until the next marked write. A read of side `s` after a sync of `s`
//! covering `e` must give `pending[s]` if there is one, else `value`.
//!
//! Kokkos, per family: the two counters (`modify` sets its side to max + 1
//! and is refused when the other is non-zero, dualview's D1; a sync whose
//! other counter is larger copies the whole handle box and clears both;
//! `clear_sync_state` and `realloc` clear both; `resize` keeps them and both
//! sides' overlap, dualview's D3), and each side's values. Sides are 0 (host)
//! and 1 (device).
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::{BuildHasherDefault, Hasher};

/// A tracked index packed into one number, the index map's key: up to rank
/// 4, each index below 2^32 (every array the tests make). All indices of one
/// oracle have one rank, so keys of different ranks never meet.
fn key(idx: &[usize]) -> u128 {
    assert!(idx.len() <= 4, "the oracle tracks arrays of rank 4 at most, not {}", idx.len());
    idx.iter().fold(0u128, |k, &i| {
        assert!(i < 1 << 32, "index {i} is past the oracle's 2^32");
        (k << 32) | i as u128
    })
}

/// A cheap hash of a packed index (the keys are distinct numbers, not an attacker's).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = ((v as u64) ^ ((v >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

type Index = HashMap<u128, usize, BuildHasherDefault<KeyHasher>>;

/// A box of parent indices: `lo[r]..hi[r]` per axis (a handle's region).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bx {
    pub lo: Vec<usize>,
    pub hi: Vec<usize>,
}

impl Bx {
    pub fn new(lo: Vec<usize>, hi: Vec<usize>) -> Bx {
        Bx { lo, hi }
    }
    /// Every index of `ext`.
    pub fn whole(ext: &[usize]) -> Bx {
        Bx { lo: vec![0; ext.len()], hi: ext.to_vec() }
    }
    pub fn holds(&self, idx: &[usize]) -> bool {
        idx.iter().zip(self.lo.iter().zip(&self.hi)).all(|(&i, (&l, &h))| l <= i && i < h)
    }
    pub fn len(&self) -> usize {
        self.lo.iter().zip(&self.hi).map(|(l, h)| h.saturating_sub(*l)).product()
    }
    /// Every index of the box, row-major.
    pub fn indices(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        let n = self.len();
        (0..n).map(move |mut k| {
            let mut idx = vec![0; self.lo.len()];
            for r in (0..self.lo.len()).rev() {
                let e = self.hi[r] - self.lo[r];
                idx[r] = self.lo[r] + k % e;
                k /= e;
            }
            idx
        })
    }
}

/// A side: 0 host, 1 device.
pub type SideIx = usize;

/// One tracked element.
#[derive(Clone, Debug)]
pub struct Elem<V> {
    pub idx: Vec<usize>,
    pub value: Option<V>,
    pub pending: [Option<Option<V>>; 2],
    pub known: [Option<V>; 2],
    pub open: Option<SideIx>,
    /// What Kokkos would hold on each side (`None`: unknown).
    pub kk: [Option<V>; 2],
    /// The side marked last and not synced to the other since (`None`: both hold it).
    pub newer: Option<SideIx>,
}

impl<V: Copy + PartialEq + Debug + Default> Elem<V> {
    fn new(idx: Vec<usize>, init: Option<V>) -> Elem<V> {
        Elem { idx, value: init, pending: [None, None], known: [init, init], open: None, kk: [init, init], newer: None }
    }

    /// The value a read of side `s` must give after a sync of `s` covering
    /// this element (`None`: any value may be read).
    pub fn expect(&self, s: SideIx) -> Option<V> {
        match self.pending[s] {
            Some(p) => p,
            None => self.value,
        }
    }

    fn mark(&mut self, s: SideIx) {
        self.value = match self.pending[s].take() {
            Some(p) => p,
            None => self.known[s],
        };
        self.pending[1 - s] = None; // the later mark wins
        self.open = Some(s);
        self.newer = Some(s);
    }

    fn cover_by_sync(&mut self, s: SideIx) {
        if self.newer == Some(1 - s) {
            self.newer = None; // copied to `s`: both hold it
        }
        if self.pending.iter().any(Option::is_some) {
            // A call covered an unmarked write: the program broke the rule here.
            self.value = None;
            self.pending = [None, None];
            self.known[s] = None;
        } else {
            self.known[s] = self.value;
        }
        self.open = None;
    }
}

/// Why Kokkos refuses a call (dualview answers `ConcurrentModification`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

/// The oracle of one DualView family.
#[derive(Clone, Debug)]
pub struct Oracle<V> {
    pub elems: Vec<Elem<V>>,
    /// Where each tracked index (its [`key`]) sits in `elems`.
    index: Index,
    /// Kokkos' counters, host and device.
    pub counters: [u64; 2],
    /// Elements where the program broke the rule so far.
    pub broken: u64,
}

impl<V: Copy + PartialEq + Debug + Default> Oracle<V> {
    /// Track `indices`, each side holding `init` (`None`: uninitialised memory).
    pub fn new(indices: impl IntoIterator<Item = Vec<usize>>, init: Option<V>) -> Oracle<V> {
        let mut o = Oracle { elems: indices.into_iter().map(|i| Elem::new(i, init)).collect(), index: Index::default(), counters: [0, 0], broken: 0 };
        o.reindex();
        o
    }

    /// Rebuild the index of the tracked elements (after some were added).
    pub fn reindex(&mut self) {
        self.index = self.elems.iter().enumerate().map(|(k, e)| (key(&e.idx), k)).collect();
    }

    /// Call `f` on each tracked element of `b`.
    fn each(&mut self, b: &Bx, mut f: impl FnMut(&mut Elem<V>)) {
        if b.len() == 0 {
            return;
        }
        if b.len() <= self.elems.len() {
            let (index, elems) = (&self.index, &mut self.elems);
            super::for_each_index_in(&b.lo, &b.hi, |idx| {
                if let Some(&k) = index.get(&key(idx)) {
                    f(&mut elems[k]);
                }
            });
        } else {
            for e in self.elems.iter_mut().filter(|e| b.holds(&e.idx)) {
                f(e);
            }
        }
    }

    /// The tracked element at `idx`.
    pub fn at(&self, idx: &[usize]) -> Option<&Elem<V>> {
        self.index.get(&key(idx)).map(|&k| &self.elems[k])
    }

    // ---- what the program does --------------------------------------------------------

    /// The program writes side `s` in the region (`val`: the value at each
    /// index, `None` when it is not known), without marking.
    pub fn write(&mut self, s: SideIx, b: &Bx, val: impl Fn(&[usize]) -> Option<V>) {
        self.each(b, |e| {
            let v = val(&e.idx);
            if e.open == Some(s) {
                e.value = v; // written after its mark, before any other call covered it
            } else {
                e.pending[s] = Some(v);
            }
            e.known[s] = v;
            e.kk[s] = v;
        });
    }

    /// Whether Kokkos refuses a modify of `s` (its other counter is non-zero).
    pub fn refuses(&self, s: SideIx) -> bool {
        self.counters[1 - s] != 0
    }

    /// `modify_s` through a handle whose box is the region.
    pub fn modify(&mut self, s: SideIx, b: &Bx) -> Result<(), Refused> {
        if self.refuses(s) {
            return Err(Refused);
        }
        self.counters[s] = self.counters[0].max(self.counters[1]) + 1;
        self.each(b, |e| e.mark(s));
        Ok(())
    }

    /// `sync_s` through a handle whose box is the region.
    pub fn sync(&mut self, s: SideIx, b: &Bx) {
        let copy = self.counters[1 - s] > self.counters[s];
        let mut broke = 0;
        self.each(b, |e| {
            if e.pending.iter().any(Option::is_some) {
                broke += 1;
            }
            e.cover_by_sync(s);
            if copy {
                e.kk[s] = e.kk[1 - s];
            }
        });
        self.broken += broke;
        if copy {
            self.counters = [0, 0];
        }
    }

    /// A fill of side `s` with `v` (write, then mark), refused as a modify.
    pub fn fill(&mut self, s: SideIx, b: &Bx, v: V) -> Result<(), Refused> {
        if self.refuses(s) {
            return Err(Refused);
        }
        self.write(s, b, |_| Some(v));
        self.modify(s, b)
    }

    /// `push_s`: modify `s`, then sync the other side, through the region.
    pub fn push(&mut self, s: SideIx, b: &Bx) -> Result<(), Refused> {
        self.modify(s, b)?;
        self.sync(1 - s, b);
        Ok(())
    }

    /// An access of side `s`: `Read` syncs, `ReadWrite`/`Write` sync and mark
    /// (never refused: the sync clears the other counter first).
    pub fn access(&mut self, s: SideIx, write: bool, b: &Bx) {
        self.sync(s, b);
        if write {
            self.modify(s, b).expect("a sync clears the other counter");
        }
    }

    /// An overwrite access of side `s` (SYCL's `no_init`): Kokkos' counters
    /// cleared, then `s` marked, with no copy; the program then writes the region.
    pub fn overwrite(&mut self, s: SideIx, b: &Bx) {
        self.counters = [0, 0];
        self.modify(s, b).expect("cleared");
    }

    /// `clear_sync_state`: the program says both sides are equal everywhere.
    pub fn clear(&mut self) {
        self.counters = [0, 0];
        let mut broke = 0;
        for e in &mut self.elems {
            if e.pending.iter().any(Option::is_some) || e.known[0] != e.known[1] || e.known[0].is_none() {
                broke += u64::from(e.value.is_some());
                e.value = None;
            } else {
                e.value = e.known[0];
            }
            e.pending = [None, None];
            e.open = None;
            e.newer = None;
        }
        self.broken += broke;
    }

    /// A resize to `ext`: each kept element keeps its newest value where it
    /// is, and what the other side held of it is gone (not copied: unknown),
    /// an unmarked write there included (the rule was broken);
    /// new elements (among `indices`, those beyond `old`) are zero on both
    /// sides, their writes marked for the side whose Kokkos counter is set
    /// (dualview's D3: counters unchanged). The rule is docs/SEMANTICS.md's
    /// row `resize(extents)`, written from the program's side: nothing of the
    /// library's state is read.
    pub fn resize(&mut self, old: &[usize], indices: impl IntoIterator<Item = Vec<usize>>, ext: &[usize]) {
        let open = if self.counters[0] > self.counters[1] {
            Some(0)
        } else if self.counters[1] > self.counters[0] {
            Some(1)
        } else {
            None
        };
        self.elems.retain(|e| e.idx.iter().zip(ext).all(|(i, n)| i < n));
        let mut broke = 0;
        for e in &mut self.elems {
            if let Some(s) = e.newer {
                e.known[1 - s] = None;
                // The resize covers the element and keeps the newer side only: an unmarked
                // write of the other side is gone (the rule: mark before any call covering it).
                if e.pending[1 - s].take().is_some() {
                    broke += 1;
                }
            }
        }
        self.broken += broke;
        for idx in indices {
            if idx.iter().zip(old).all(|(i, n)| i < n) {
                continue; // kept (tracked already when it was tracked before)
            }
            let mut e = Elem::new(idx, None);
            e.value = Some(V::default());
            e.known = [e.value, e.value];
            e.kk = [e.value, e.value];
            e.open = open;
            e.newer = open; // marked by the side whose counter is set (D31): newer there
            self.elems.push(e);
        }
        self.reindex();
    }

    /// `realloc`: every element new (zero when `init`, else unknown), counters clear.
    pub fn realloc(&mut self, indices: impl IntoIterator<Item = Vec<usize>>, init: bool) {
        let v = if init { Some(V::default()) } else { None };
        self.elems = indices.into_iter().map(|i| Elem::new(i, v)).collect();
        self.reindex();
        self.counters = [0, 0];
    }

    /// Kokkos' `need_sync` of side `s`.
    pub fn kokkos_need_sync(&self, s: SideIx) -> bool {
        self.counters[1 - s] > self.counters[s]
    }

    /// The side Kokkos copies in `deep_copy(dst, this)`: the host when it needs a device sync.
    pub fn deep_copy_side(&self) -> SideIx {
        if self.kokkos_need_sync(1) { 0 } else { 1 }
    }
}

/// `deep_copy(dst, src)`: `map` takes a destination index to its source
/// index (both handles' boxes). Refused when Kokkos refuses `dst`'s modify.
/// `src` is `None` when both are one family (then `dst` is read first).
/// The rule is docs/SEMANTICS.md's row `deep_copy(dst, src)` (Kokkos' side `P`,
/// and the other side too where `src` is newer there), from the ledgers alone.
pub fn deep_copy<V: Copy + PartialEq + Debug + Default>(
    dst: &mut Oracle<V>,
    src: Option<&Oracle<V>>,
    in_dst: &Bx,
    map: impl Fn(&[usize]) -> Vec<usize>,
) -> Result<SideIx, Refused> {
    let snapshot;
    let src = match src {
        Some(s) => s,
        None => {
            snapshot = dst.clone();
            &snapshot
        }
    };
    let p = src.deep_copy_side();
    if dst.refuses(p) {
        return Err(Refused);
    }
    dst.counters[p] = dst.counters[0].max(dst.counters[1]) + 1;
    dst.each(in_dst, |e| {
        let Some(s) = src.at(&map(&e.idx)) else {
            // Not tracked in the source: unknown.
            (e.value, e.pending, e.known, e.open, e.kk, e.newer) = (None, [None, None], [None, None], None, [None, None], Some(p));
            return;
        };
        e.value = if s.pending.iter().any(Option::is_some) { None } else { s.value };
        e.pending = [None, None];
        e.known = [None, None];
        e.known[p] = s.known[p];
        // Newer on the other side in the source: that side is copied too, and stays newer (D30).
        let newer = if s.newer == Some(1 - p) { 1 - p } else { p };
        e.known[newer] = s.known[newer];
        e.open = None;
        e.newer = Some(newer);
        e.kk[p] = s.kk[p];
    });
    Ok(p)
}
