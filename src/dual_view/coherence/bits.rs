//! The fragmented form of the map: one bit per element and side, in memory
//! order ([`super::linear::Order`]). A host bit means "newer on the host", a
//! device bit "newer on the device"; never both; neither is clean.
//!
//! Cost: 2 bits per element; an operation on a box touches its runs' words
//! (`|box| / 64` words plus one per run).

use super::Cell;
use crate::error::{err, Result};

/// Bits of one side, 64 elements a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Plane(Vec<u64>);

impl Plane {
    /// A plane of `n` elements, all `on`; `OutOfMemory` when the memory cannot be had.
    pub(super) fn try_new(n: usize, on: bool) -> Result<Plane> {
        crate::memory::allocation_point("the coherence map's bitmap")?;
        let words = n.div_ceil(64);
        let mut v = Vec::new();
        v.try_reserve_exact(words).map_err(|_| {
            err!(OutOfMemory, "the coherence map of {n} elements needs a bitmap of {} bytes, which could not be allocated", 16 * words)
        })?;
        v.resize(words, if on { u64::MAX } else { 0 });
        if on && !n.is_multiple_of(64) {
            *v.last_mut().expect("n > 0") = (1u64 << (n % 64)) - 1;
        }
        Ok(Plane(v))
    }

    /// The heap bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.0.capacity() * 8
    }

    /// Call `f(word index, mask)` for the words of `[a, e)`.
    fn words(a: usize, e: usize, mut f: impl FnMut(usize, u64)) {
        if a >= e {
            return;
        }
        let (wa, we) = (a / 64, (e - 1) / 64);
        for w in wa..=we {
            let lo = if w == wa { a % 64 } else { 0 };
            let hi = if w == we { (e - 1) % 64 + 1 } else { 64 };
            let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo };
            f(w, mask);
        }
    }

    /// Set `[a, e)`; returns how many bits changed.
    pub(super) fn set(&mut self, a: usize, e: usize) -> usize {
        let mut n = 0;
        Self::words(a, e, |w, m| {
            n += (m & !self.0[w]).count_ones() as usize;
            self.0[w] |= m;
        });
        n
    }

    /// Clear `[a, e)`; returns how many bits changed.
    pub(super) fn clear(&mut self, a: usize, e: usize) -> usize {
        let mut n = 0;
        Self::words(a, e, |w, m| {
            n += (m & self.0[w]).count_ones() as usize;
            self.0[w] &= !m;
        });
        n
    }

    /// Whether a bit of `[a, e)` is set.
    pub(super) fn any(&self, a: usize, e: usize) -> bool {
        let mut any = false;
        Self::words(a, e, |w, m| any |= self.0[w] & m != 0);
        any
    }

    /// Whether element `i` is set.
    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
}

/// The first index in `[a, e)` whose bit is set in `word(w)`.
fn find(word: &impl Fn(usize) -> u64, a: usize, e: usize) -> Option<usize> {
    let mut i = a;
    while i < e {
        let w = i / 64;
        let bits = word(w) >> (i % 64);
        if bits != 0 {
            let at = i + bits.trailing_zeros() as usize;
            return (at < e).then_some(at);
        }
        i = (w + 1) * 64;
    }
    None
}

/// Call `f(start, end)` for each maximal run of set bits of `word` in `[a, e)`.
fn runs_of(word: impl Fn(usize) -> u64, a: usize, e: usize, mut f: impl FnMut(usize, usize)) {
    let not = |w| !word(w);
    let mut i = a;
    while let Some(s) = find(&word, i, e) {
        let end = find(&not, s, e).unwrap_or(e);
        f(s, end);
        i = end;
    }
}

/// Both planes, and how many elements each has set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Bits {
    host: Plane,
    device: Plane,
    counts: [usize; 2],
}

impl Bits {
    /// `n` elements, all `cell`; `OutOfMemory` when the memory cannot be had.
    pub(super) fn try_new(n: usize, cell: Cell) -> Result<Bits> {
        let host = Plane::try_new(n, cell == Cell::Host)?;
        let device = Plane::try_new(n, cell == Cell::Device)?;
        let mut counts = [0; 2];
        if let Some(i) = cell.plane() {
            counts[i] = n;
        }
        Ok(Bits { host, device, counts })
    }

    pub(super) fn bytes(&self) -> usize {
        self.host.bytes() + self.device.bytes()
    }

    /// How many elements are `cell` (of `n`).
    pub(super) fn count(&self, cell: Cell, n: usize) -> usize {
        match cell.plane() {
            Some(i) => self.counts[i],
            None => n - self.counts[0] - self.counts[1],
        }
    }

    fn plane(&self, i: usize) -> &Plane {
        if i == 0 { &self.host } else { &self.device }
    }

    /// `[a, e)` becomes `cell`.
    pub(super) fn assign(&mut self, a: usize, e: usize, cell: Cell) {
        if e == a + 1 {
            return self.assign_one(a, cell); // a column of a row-major array: one element a run
        }
        let (h, d) = (&mut self.host, &mut self.device);
        match cell {
            Cell::Clean => {
                self.counts[0] -= h.clear(a, e);
                self.counts[1] -= d.clear(a, e);
            }
            Cell::Host => {
                self.counts[1] -= d.clear(a, e);
                self.counts[0] += h.set(a, e);
            }
            Cell::Device => {
                self.counts[0] -= h.clear(a, e);
                self.counts[1] += d.set(a, e);
            }
        }
    }

    /// Element `i` becomes `cell`: [`Bits::assign`] of one element, a word
    /// of each plane read and written once.
    #[inline]
    fn assign_one(&mut self, i: usize, cell: Cell) {
        let (w, m) = (i / 64, 1u64 << (i % 64));
        let (h, d) = (self.host.0[w] & m != 0, self.device.0[w] & m != 0);
        let (want_h, want_d) = (cell == Cell::Host, cell == Cell::Device);
        if h != want_h {
            self.host.0[w] ^= m;
            if want_h { self.counts[0] += 1 } else { self.counts[0] -= 1 }
        }
        if d != want_d {
            self.device.0[w] ^= m;
            if want_d { self.counts[1] += 1 } else { self.counts[1] -= 1 }
        }
    }

    /// The `cell` elements of `[a, e)` (a newer side) become clean; returns how many.
    pub(super) fn settle(&mut self, a: usize, e: usize, cell: Cell) -> usize {
        let Some(i) = cell.plane() else { return 0 };
        let n = if i == 0 { self.host.clear(a, e) } else { self.device.clear(a, e) };
        self.counts[i] -= n;
        n
    }

    /// Whether an element of `[a, e)` is `cell`.
    pub(super) fn any(&self, a: usize, e: usize, cell: Cell) -> bool {
        let mut any = false;
        Plane::words(a, e, |w, m| any |= self.word(cell, w) & m != 0);
        any
    }

    /// The state of element `i`.
    pub(super) fn get(&self, i: usize) -> Cell {
        if self.host.get(i) {
            Cell::Host
        } else if self.device.get(i) {
            Cell::Device
        } else {
            Cell::Clean
        }
    }

    /// The word `w` of the elements that are `cell`.
    fn word(&self, cell: Cell, w: usize) -> u64 {
        match cell {
            Cell::Host => self.host.0[w],
            Cell::Device => self.device.0[w],
            Cell::Clean => !(self.host.0[w] | self.device.0[w]),
        }
    }

    /// The runs of `cell` in `[a, e)`, joined across gaps of at most `gap`
    /// elements that hold no `avoid` element (with `avoid` a newer side: the
    /// clean elements between runs may ride along in a copy).
    pub(super) fn runs(&self, a: usize, e: usize, cell: Cell, avoid: Cell, gap: usize, mut f: impl FnMut(usize, usize)) {
        let avoid = avoid.plane().filter(|_| gap > 0).map(|j| self.plane(j));
        let mut open: Option<(usize, usize)> = None;
        let mut join = |s: usize, t: usize| {
            open = match open {
                Some((s0, t0)) if s - t0 <= gap && avoid.is_some_and(|p| !p.any(t0, s)) => Some((s0, t)),
                Some(run) => {
                    f(run.0, run.1);
                    Some((s, t))
                }
                None => Some((s, t)),
            };
        };
        match avoid {
            // Gaps inside one word are shorter than 64, so joined: a word whose span
            // from its first to its last `cell` element holds no `avoid` element is one
            // segment (one step per word, not per run: every other element of a row
            // is 32 runs a word).
            Some(p) if gap >= 64 => Plane::words(a, e, |w, m| {
                let x = self.word(cell, w) & m;
                if x == 0 {
                    return;
                }
                let (s, t) = (w * 64 + x.trailing_zeros() as usize, w * 64 + 64 - x.leading_zeros() as usize);
                if p.any(s, t) {
                    runs_of(|v| if v == w { x } else { 0 }, s, t, &mut join);
                } else {
                    join(s, t);
                }
            }),
            _ => runs_of(|w| self.word(cell, w), a, e, &mut join),
        }
        if let Some((s, t)) = open {
            f(s, t);
        }
    }

    /// Whether every element is `cell`, when one cell holds them all.
    pub(super) fn uniform(&self, n: usize) -> Option<Cell> {
        match self.counts {
            [0, 0] => Some(Cell::Clean),
            [h, 0] if h == n => Some(Cell::Host),
            [0, d] if d == n => Some(Cell::Device),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn planes_set_clear_and_find_runs_across_words() {
        let mut p = Plane::try_new(200, false).unwrap();
        assert_eq!(p.set(3, 130), 127);
        assert_eq!(p.set(60, 70), 0);
        assert_eq!(p.clear(64, 66), 2);
        let mut runs = vec![];
        runs_of(|w| p.0[w], 0, 200, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(3, 64), (66, 130)]);
        assert!(p.any(129, 131) && !p.any(130, 200) && !p.any(0, 3));
        let full = Plane::try_new(70, true).unwrap();
        let mut runs = vec![];
        runs_of(|w| full.0[w], 0, 70, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(0, 70)]);
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn joined_runs_never_cross_the_avoided_side() {
        let mut b = Bits::try_new(100, Cell::Clean).unwrap();
        b.assign(0, 10, Cell::Device);
        b.assign(12, 20, Cell::Device);
        b.assign(30, 40, Cell::Device);
        b.assign(25, 26, Cell::Host);
        let mut runs = vec![];
        b.runs(0, 100, Cell::Device, Cell::Host, 8, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(0, 20), (30, 40)], "the clean gap 10..12 rides along; 20..30 holds a host element");
        assert_eq!((b.count(Cell::Device, 100), b.count(Cell::Host, 100), b.count(Cell::Clean, 100)), (28, 1, 71));
        assert_eq!(b.settle(0, 15, Cell::Device), 13);
        assert_eq!(b.get(14), Cell::Clean);
        assert_eq!(b.get(25), Cell::Host);
        assert_eq!(b.uniform(100), None);
        b.assign(0, 100, Cell::Host);
        assert_eq!(b.uniform(100), Some(Cell::Host));
    }
}
