//! The fragmented form of the map: one bit per element and side, in memory
//! order ([`super::linear::Order`]). A host bit means "newer on the host", a
//! device bit "newer on the device"; never both; neither is clean.
//!
//! | shape | when | element `i` (row `r`, column `c` of rows of `w`) | a column of `R` rows touches |
//! | --- | --- | --- | --- |
//! | linear | otherwise | bit `i % 64` of word `i / 64` | `R` words |
//! | 8 x 8 tiles | rows of at least 64 elements, at least 64 rows, padding at most a sixteenth | bit `8 (r % 8) + c % 8` of word `(r / 8) ceil(w / 8) + c / 8` | `R / 8` words |
//!
//! Cost: 2 bits per element (tiles: the rows and the row length rounded up to
//! multiples of 8); a linear range touches its words (`|range| / 64` plus one
//! a run; tiles: `|range| / 64` plus one a tile a row), a box given by rows and
//! columns ([`Bits::assign_box`]) on tiles one word per 8 x 8 block it meets.

use super::Cell;
use super::linear::Order;
use crate::dual_view::regions::IndexBox;
use crate::error::{Result, err};

/// How a plane's bits sit in its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Element `i` is bit `i % 64` of word `i / 64`.
    Linear,
    /// Rows of `w` elements in tiles of 8 x 8, `tw` tiles a row of tiles.
    Tiled { w: usize, tw: usize },
}

/// The lowest bit of every byte: `b * BYTES` repeats byte `b` in all eight.
const BYTES: u64 = 0x0101_0101_0101_0101;

/// The most blocks of 8 tiles (64 columns) a row may have for a scan of
/// several rows to transpose a band at once, on the stack (16 KiB); wider rows
/// are read a row at a time.
const GROUPS: usize = 128;

impl Shape {
    /// The shape for `n` elements in rows of `w`.
    fn of(n: usize, w: usize) -> Shape {
        let rows = n.checked_div(w).unwrap_or(0);
        let padded = rows.next_multiple_of(8).saturating_mul(w.next_multiple_of(8));
        if w >= 64 && rows >= 64 && padded <= n + n / 16 { Shape::Tiled { w, tw: w.div_ceil(8) } } else { Shape::Linear }
    }

    /// The words a plane of `n` elements takes.
    fn words(self, n: usize) -> usize {
        match self {
            Shape::Linear => n.div_ceil(64),
            Shape::Tiled { w, tw } => (n / w).div_ceil(8) * tw,
        }
    }

    /// The word and bit of element `i`.
    #[inline]
    fn pos(self, i: usize) -> (usize, u64) {
        match self {
            Shape::Linear => (i / 64, 1u64 << (i % 64)),
            Shape::Tiled { w, tw } => {
                let (r, c) = (i / w, i % w);
                ((r / 8) * tw + c / 8, 1u64 << ((r % 8) * 8 + c % 8))
            }
        }
    }

    /// Call `f(word, mask)` for the rows `[r0, r1)` and columns `[c0, c1)`
    /// of a tiled shape: one call a tile they meet.
    #[inline(always)]
    fn rect(self, r0: usize, r1: usize, c0: usize, c1: usize, mut f: impl FnMut(usize, u64)) {
        let Shape::Tiled { tw, .. } = self else { unreachable!("rect of a linear plane") };
        if r0 >= r1 || c0 >= c1 {
            return;
        }
        for band in r0 / 8..=(r1 - 1) / 8 {
            let (lo, hi) = (r0.max(band * 8) - band * 8, r1.min(band * 8 + 8) - band * 8);
            let rows = if hi - lo == 8 { u64::MAX } else { ((1u64 << (8 * (hi - lo))) - 1) << (8 * lo) };
            // The first and the last tile may hold part of a tile's columns; those between, all.
            let (t0, t1) = (c0 / 8, (c1 - 1) / 8);
            let part = |t: usize| {
                let (cl, ch) = (c0.max(t * 8) - t * 8, c1.min(t * 8 + 8) - t * 8);
                rows & ((((1u64 << (ch - cl)) - 1) << cl) * BYTES)
            };
            let at = band * tw;
            f(at + t0, part(t0));
            for t in t0 + 1..t1 {
                f(at + t, rows);
            }
            if t1 > t0 {
                f(at + t1, part(t1));
            }
        }
    }

    /// Call `f(word, mask)` for the words of the elements `[a, e)` (masks
    /// disjoint; on tiles not in linear order).
    fn pieces(self, a: usize, e: usize, mut f: impl FnMut(usize, u64)) {
        if a >= e {
            return;
        }
        let Shape::Tiled { w, .. } = self else {
            return linear_words(a, e, f);
        };
        let (ra, ca, rl, cl) = (a / w, a % w, (e - 1) / w, (e - 1) % w + 1);
        if ra == rl {
            return self.rect(ra, ra + 1, ca, cl, f);
        }
        self.rect(ra, ra + 1, ca, w, &mut f);
        self.rect(ra + 1, rl, 0, w, &mut f);
        self.rect(rl, rl + 1, 0, cl, f);
    }
}

/// The bits `[lo, hi)` of a word set (`hi` at most 64).
fn ones(lo: usize, hi: usize) -> u64 {
    if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << lo }
}

/// Call `f(word index, mask)` for the linear words of `[a, e)`.
fn linear_words(a: usize, e: usize, mut f: impl FnMut(usize, u64)) {
    if a >= e {
        return;
    }
    let (wa, we) = (a / 64, (e - 1) / 64);
    for w in wa..=we {
        let lo = if w == wa { a % 64 } else { 0 };
        let hi = if w == we { (e - 1) % 64 + 1 } else { 64 };
        f(w, ones(lo, hi));
    }
}

/// Transpose 8 x 8 bytes: byte `i` of word `j` becomes byte `j` of word `i`
/// (tile words of 8 tiles in a row become the 8 rows' 64 columns).
fn transpose8(m: &mut [u64; 8]) {
    // Three rounds of swapping blocks of 4, 2, 1 bytes between word pairs.
    for (half, lo) in [(4usize, 0x0000_0000_FFFF_FFFFu64), (2, 0x0000_FFFF_0000_FFFF), (1, 0x00FF_00FF_00FF_00FF)] {
        let sh = 8 * half as u32;
        for j in 0..8 {
            if j & half == 0 {
                let (a, b) = (m[j], m[j + half]);
                m[j] = (a & lo) | ((b & lo) << sh);
                m[j + half] = ((a >> sh) & lo) | (b & !lo);
            }
        }
    }
}

/// Call `f(start, end)` for each maximal run of set bits of `x` (bit positions).
fn bit_runs(mut x: u64, mut f: impl FnMut(usize, usize)) {
    let mut at = 0;
    while x != 0 {
        let s = x.trailing_zeros() as usize;
        (x, at) = (x >> s, at + s);
        let len = (!x).trailing_zeros() as usize;
        f(at, at + len);
        if at + len >= 64 {
            return;
        }
        (x, at) = (x >> len, at + len);
    }
}

/// Both planes, a word of each side together (one cache line holds both
/// sides of an element), and how many elements each has set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Bits {
    shape: Shape,
    /// `[host, device]` words.
    v: Vec<[u64; 2]>,
    counts: [usize; 2],
}

impl Bits {
    /// The elements of `order`, all `cell`; `OutOfMemory` when the memory cannot be had.
    pub(super) fn try_new(order: &Order, cell: Cell) -> Result<Bits> {
        let n = order.len();
        let shape = Shape::of(n, order.row_len());
        let words = shape.words(n);
        crate::memory::allocation_point("the coherence map's bitmap")?;
        let mut v = Vec::new();
        v.try_reserve_exact(words).map_err(|_| {
            err!(OutOfMemory, "the coherence map of {n} elements needs a bitmap of {} bytes, which could not be allocated", 16 * words)
        })?;
        v.resize(words, [0; 2]);
        let mut b = Bits { shape, v, counts: [0; 2] };
        b.assign(0, n, cell);
        Ok(b)
    }

    /// The heap bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.v.capacity() * 16
    }

    /// The heap bytes a bitmap of `order` takes.
    pub(super) fn bytes_for(order: &Order) -> usize {
        Shape::of(order.len(), order.row_len()).words(order.len()) * 16
    }

    /// How many elements are `cell` (of `n`).
    pub(super) fn count(&self, cell: Cell, n: usize) -> usize {
        match cell.plane() {
            Some(i) => self.counts[i],
            None => n - self.counts[0] - self.counts[1],
        }
    }

    /// The elements under `m` in word `w` become `cell`.
    #[inline(always)]
    fn assign_word(&mut self, w: usize, m: u64, cell: Cell) {
        // Only the bits that change are counted (most words of a repeated mark change none).
        let pop = |x: u64| if x == 0 { 0 } else { x.count_ones() as usize };
        let [h, d] = &mut self.v[w];
        let (add, drop) = match cell {
            Cell::Clean => ([0, 0], [*h & m, *d & m]),
            Cell::Host => ([m & !*h, 0], [0, *d & m]),
            Cell::Device => ([0, m & !*d], [*h & m, 0]),
        };
        *h = (*h | add[0]) & !drop[0];
        *d = (*d | add[1]) & !drop[1];
        for i in 0..2 {
            self.counts[i] = self.counts[i] + pop(add[i]) - pop(drop[i]);
        }
    }

    /// The `cell` (newer) elements under `m` in word `w` become clean.
    #[inline]
    fn settle_word(&mut self, w: usize, m: u64, i: usize) {
        let p = &mut self.v[w][i];
        self.counts[i] -= (*p & m).count_ones() as usize;
        *p &= !m;
    }

    /// `[a, e)` becomes `cell`.
    pub(super) fn assign(&mut self, a: usize, e: usize, cell: Cell) {
        if e == a + 1 {
            let (w, m) = self.shape.pos(a); // a column of a row-major array: one element a run
            return self.assign_word(w, m, cell);
        }
        self.shape.pieces(a, e, |w, m| self.assign_word(w, m, cell));
    }

    /// The elements of box `b` (in `order`) become `cell`: on tiles one word
    /// a block of 8 x 8 it meets, else one [`Bits::assign`] a run.
    pub(super) fn assign_box(&mut self, order: &Order, b: &IndexBox, cell: Cell) {
        match self.shape {
            Shape::Linear => order.runs(b, |a, e| self.assign(a, e, cell)),
            shape => order.rects(b, |r0, r1, c0, c1| shape.rect(r0, r1, c0, c1, |w, m| self.assign_word(w, m, cell))),
        }
    }

    /// The `cell` elements of `[a, e)` (a newer side) become clean; returns how many.
    pub(super) fn settle(&mut self, a: usize, e: usize, cell: Cell) -> usize {
        let Some(i) = cell.plane() else { return 0 };
        let before = self.counts[i];
        self.shape.pieces(a, e, |w, m| self.settle_word(w, m, i));
        before - self.counts[i]
    }

    /// The `cell` elements of box `b` (in `order`, a newer side) become clean.
    pub(super) fn settle_box(&mut self, order: &Order, b: &IndexBox, cell: Cell) {
        let Some(i) = cell.plane() else { return };
        match self.shape {
            Shape::Linear => order.runs(b, |a, e| {
                self.settle(a, e, cell);
            }),
            shape => order.rects(b, |r0, r1, c0, c1| shape.rect(r0, r1, c0, c1, |w, m| self.settle_word(w, m, i))),
        }
    }

    /// Whether an element of `[a, e)` is `cell`.
    pub(super) fn any(&self, a: usize, e: usize, cell: Cell) -> bool {
        let mut any = false;
        self.shape.pieces(a, e, |w, m| any |= self.word(cell, w) & m != 0);
        any
    }

    /// Whether an element of box `b` (in `order`) is `cell`.
    pub(super) fn any_box(&self, order: &Order, b: &IndexBox, cell: Cell) -> bool {
        let mut any = false;
        match self.shape {
            Shape::Linear => order.runs(b, |a, e| any = any || self.any(a, e, cell)),
            shape => order.rects(b, |r0, r1, c0, c1| {
                if !any {
                    shape.rect(r0, r1, c0, c1, |w, m| any |= self.word(cell, w) & m != 0);
                }
            }),
        }
        any
    }

    /// The state of element `i`.
    pub(super) fn get(&self, i: usize) -> Cell {
        let (w, m) = self.shape.pos(i);
        if self.v[w][0] & m != 0 {
            Cell::Host
        } else if self.v[w][1] & m != 0 {
            Cell::Device
        } else {
            Cell::Clean
        }
    }

    /// The stored word `w` of the elements that are `cell` (on tiles, padding reads clean).
    fn word(&self, cell: Cell, w: usize) -> u64 {
        match cell {
            Cell::Host => self.v[w][0],
            Cell::Device => self.v[w][1],
            Cell::Clean => !(self.v[w][0] | self.v[w][1]),
        }
    }

    /// Call `f(base, x, y)` for the elements of `[a, e)` in increasing
    /// order, 64 or fewer at a time: bit `k` of `x` (of `y`) is whether element
    /// `base + k` is `cell` (is `avoid`); elements outside `[a, e)` read 0.
    fn chunks(&self, cell: Cell, avoid: Option<Cell>, a: usize, e: usize, mut f: impl FnMut(usize, u64, u64)) {
        let y_of = |w: usize| avoid.map_or(0, |c| self.word(c, w));
        match self.shape {
            Shape::Linear => linear_words(a, e, |w, m| f(w * 64, self.word(cell, w) & m, y_of(w) & m)),
            Shape::Tiled { w, tw } => {
                if a >= e {
                    return;
                }
                let (ra, rl) = (a / w, (e - 1) / w);
                let mask = |c0: usize, c1: usize, k: usize| ones(c0.max(64 * k) - 64 * k, c1.min(64 * k + 64) - 64 * k);
                // The columns [c0, c1) of row r: a byte from each tile they meet (one tile for one element).
                let row_chunks = |r: usize, c0: usize, c1: usize, f: &mut dyn FnMut(usize, u64, u64)| {
                    let (band, sh) = ((r / 8) * tw, (r % 8) * 8);
                    for k in c0 / 64..=(c1 - 1) / 64 {
                        let (mut x, mut y) = (0u64, 0u64);
                        for t in (8 * k).max(c0 / 8)..(8 * k + 8).min((c1 - 1) / 8 + 1) {
                            let j = t - 8 * k;
                            x |= ((self.word(cell, band + t) >> sh) & 0xFF) << (8 * j);
                            y |= ((y_of(band + t) >> sh) & 0xFF) << (8 * j);
                        }
                        let m = mask(c0, c1, k);
                        f(r * w + 64 * k, x & m, y & m);
                    }
                };
                let groups = tw.div_ceil(8);
                if ra == rl || groups > GROUPS {
                    for r in ra..=rl {
                        let (c0, c1) = (if r == ra { a - r * w } else { 0 }, if r == rl { e - r * w } else { w });
                        row_chunks(r, c0, c1, &mut f);
                    }
                    return;
                }
                // Several rows: each block of 8 tiles of a band, transposed, is 64 columns of its
                // 8 rows; a band's blocks are made once (on the stack), then its rows read in order.
                let mut rows = [[0u64; 2]; 8 * GROUPS];
                for band in ra / 8..=rl / 8 {
                    for g in 0..groups {
                        let (mut x, mut y) = ([0u64; 8], [0u64; 8]);
                        for j in 0..8.min(tw - 8 * g) {
                            let t = band * tw + 8 * g + j;
                            (x[j], y[j]) = (self.word(cell, t), y_of(t));
                        }
                        transpose8(&mut x);
                        if avoid.is_some() {
                            transpose8(&mut y);
                        }
                        for rr in 0..8 {
                            rows[rr * groups + g] = [x[rr], y[rr]];
                        }
                    }
                    for r in ra.max(band * 8)..=rl.min(band * 8 + 7) {
                        let row = r * w;
                        let (c0, c1) = (if r == ra { a - row } else { 0 }, if r == rl { e - row } else { w });
                        for k in c0 / 64..=(c1 - 1) / 64 {
                            let [x, y] = rows[(r % 8) * groups + k];
                            let m = mask(c0, c1, k);
                            f(row + 64 * k, x & m, y & m);
                        }
                    }
                }
            }
        }
    }

    /// The runs of `cell` in `[a, e)`, joined across gaps of at most `gap`
    /// elements that hold no `avoid` element (with `avoid` a newer side: the
    /// clean elements between runs may ride along in a copy); adjacent runs
    /// are one.
    pub(super) fn runs(&self, a: usize, e: usize, cell: Cell, avoid: Cell, gap: usize, mut f: impl FnMut(usize, usize)) {
        let avoid = avoid.plane().filter(|_| gap > 0).map(|j| if j == 0 { Cell::Host } else { Cell::Device });
        let mut open: Option<(usize, usize)> = None;
        // `before`: the last `avoid` element before `s` (none in the gap when it lies before the open run's end).
        let mut join = |s: usize, t: usize, before: Option<usize>| {
            open = match open {
                Some((s0, t0)) if s == t0 || (s - t0 <= gap && avoid.is_some() && before.is_none_or(|p| p < t0)) => Some((s0, t)),
                Some(run) => {
                    f(run.0, run.1);
                    Some((s, t))
                }
                None => Some((s, t)),
            };
        };
        // The last `avoid` element of the chunks read before this one.
        let mut seen: Option<usize> = None;
        // With no `avoid` element anywhere there is none to read (a sync after marks of one side).
        let read = avoid.filter(|c| c.plane().is_some_and(|i| self.counts[i] > 0));
        self.chunks(cell, read, a, e, |base, x, y| {
            if x != 0 {
                let before = |k: usize| match y & ((1u64 << k) - 1) {
                    0 => seen,
                    below => Some(base + 63 - below.leading_zeros() as usize),
                };
                // Gaps inside one chunk are shorter than 64, so joined when `gap` >= 64: a
                // chunk whose span from its first to its last `cell` element holds no `avoid`
                // element is one segment (every other element of a row is 32 runs a chunk).
                let (s, t) = (x.trailing_zeros() as usize, 64 - x.leading_zeros() as usize);
                if avoid.is_some() && gap >= 64 && y & ones(s, t) == 0 {
                    join(base + s, base + t, before(s));
                } else {
                    bit_runs(x, |s, t| join(base + s, base + t, before(s)));
                }
            }
            if y != 0 {
                seen = Some(base + 63 - y.leading_zeros() as usize);
            }
        });
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
    use crate::extents::DynRank;
    use crate::layout::{Layout, Mapping};

    fn order(ext: &[usize]) -> Order {
        Order::of(&Mapping::new(Layout::Right, DynRank::new(ext).unwrap()).unwrap())
    }

    /// Tiled and linear bitmaps against one cell per element, under the
    /// same random ranges and boxes (the reference is a plain array).
    #[test]
    #[cfg_attr(miri, ignore = "element loops")]
    fn tiles_and_linear_words_hold_the_same_states() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let cells = [Cell::Clean, Cell::Host, Cell::Device];
        let mut tiled_seen = 0;
        // Tiled: 64 x 64; padded columns; 4 blocks of 8 tiles a row (w 200); 3D; padded rows;
        // rows wider than the stack's band (w 8200: read a row at a time). Linear: the rest.
        for ext in
            [vec![64usize, 64], vec![72, 100], vec![70, 200], vec![130, 67], vec![3, 64, 80], vec![5000], vec![2, 70, 64], vec![64, 8200]]
        {
            let o = order(&ext);
            let n = o.len();
            let mut b = Bits::try_new(&o, Cell::Device).unwrap();
            tiled_seen += usize::from(b.shape != Shape::Linear);
            let mut want = vec![Cell::Device; n];
            for round in 0..300 {
                let (a, e) = {
                    let a = next(n);
                    let len = if round % 3 == 0 { next(3) + 1 } else { next(n - a) + 1 };
                    (a, (a + len).min(n))
                };
                let c = cells[next(3)];
                match next(5) {
                    0 => {
                        b.assign(a, e, c);
                        want[a..e].fill(c);
                    }
                    1 => {
                        let c = if c == Cell::Clean { Cell::Host } else { c };
                        let got = b.settle(a, e, c);
                        let mut k = 0;
                        for x in &mut want[a..e] {
                            if *x == c {
                                (*x, k) = (Cell::Clean, k + 1);
                            }
                        }
                        assert_eq!(got, k, "settled count");
                    }
                    2 | 3 => {
                        let (mut lo, mut hi) = (vec![0; ext.len()], vec![0; ext.len()]);
                        for k in 0..ext.len() {
                            lo[k] = next(ext[k]);
                            hi[k] = lo[k] + 1 + next(ext[k] - lo[k]);
                        }
                        let bx = IndexBox::new(&lo, &hi);
                        let mut inside = vec![];
                        o.runs(&bx, |s, t| inside.extend(s..t));
                        assert_eq!(b.any_box(&o, &bx, c), inside.iter().any(|&i| want[i] == c), "any_box");
                        if next(2) == 0 {
                            b.assign_box(&o, &bx, c);
                            inside.iter().for_each(|&i| want[i] = c);
                        } else {
                            let c = if c == Cell::Clean { Cell::Device } else { c };
                            b.settle_box(&o, &bx, c);
                            for &i in &inside {
                                if want[i] == c {
                                    want[i] = Cell::Clean;
                                }
                            }
                        }
                    }
                    _ => {
                        assert_eq!(b.any(a, e, c), want[a..e].contains(&c), "any");
                        let (c, avoid) = if next(2) == 0 { (Cell::Host, Cell::Device) } else { (Cell::Device, Cell::Host) };
                        let gap = [0, 3, 64, 1024][next(4)];
                        let mut got = vec![];
                        b.runs(a, e, c, avoid, gap, |s, t| got.push((s, t)));
                        assert_eq!(got, joined(&want, a, e, c, avoid, gap), "runs of {c:?} in [{a}, {e}) of {ext:?}, gap {gap}");
                    }
                }
                for c in cells {
                    assert_eq!(b.count(c, n), want.iter().filter(|&&x| x == c).count(), "count of {c:?} in {ext:?}");
                }
            }
            for (i, &c) in want.iter().enumerate() {
                assert_eq!(b.get(i), c, "element {i} of {ext:?}");
            }
            assert!(
                b.bytes() <= 16 * (n + n / 16).div_ceil(64),
                "{} bytes for {ext:?}: 2 bits an element, a sixteenth more at most",
                b.bytes()
            );
        }
        assert_eq!(tiled_seen, 6, "tiles where rows and row length reach 64 and padding stays small");
    }

    /// The runs of `c` in `want[a..e]`, each joined to the one before when they
    /// touch, or when the gap between is at most `gap` and holds no `avoid`.
    fn joined(want: &[Cell], a: usize, e: usize, c: Cell, avoid: Cell, gap: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = vec![];
        let mut i = a;
        while i < e {
            if want[i] != c {
                i += 1;
                continue;
            }
            let s = i;
            while i < e && want[i] == c {
                i += 1;
            }
            match out.last_mut() {
                Some(last) if s == last.1 || (gap > 0 && s - last.1 <= gap && !want[last.1..s].contains(&avoid)) => last.1 = i,
                _ => out.push((s, i)),
            }
        }
        out
    }

    #[test]
    fn runs_join_across_tiles_and_stop_at_an_avoided_element_read_before() {
        let o = order(&[64, 64]);
        let mut b = Bits::try_new(&o, Cell::Clean).unwrap();
        assert_ne!(b.shape, Shape::Linear);
        b.assign(60, 61, Cell::Device); // (0, 60)
        b.assign(64 + 3, 64 + 4, Cell::Device); // (1, 3)
        let mut runs = vec![];
        b.runs(0, 64 * 64, Cell::Device, Cell::Host, 1024, |s, t| runs.push((s, t)));
        assert_eq!(runs, vec![(60, 68)], "one copy across the row's end");
        b.assign(63, 64, Cell::Host); // (0, 63): in the gap, in the chunk before
        runs.clear();
        b.runs(0, 64 * 64, Cell::Device, Cell::Host, 1024, |s, t| runs.push((s, t)));
        assert_eq!(runs, vec![(60, 61), (67, 68)], "the avoided element splits them");
    }

    #[test]
    fn tiles_only_from_64_rows_of_64_and_a_sixteenth_of_padding() {
        let tiled = |n: usize, w: usize| Shape::of(n, w) != Shape::Linear;
        assert!(tiled(64 * 64, 64) && !tiled(64 * 63, 64) && !tiled(63 * 64, 63));
        // Columns padded: 129 -> 136 is 448 more elements, within 8256 / 16 = 516.
        assert!(tiled(64 * 136, 136) && tiled(64 * 129, 129));
        // Rows padded: 72 x 72 = 5184 against 65 x 72 = 4680 plus a sixteenth, 292.
        assert!(!tiled(65 * 72, 72), "65 rows pad to 72: 5184 > 4972");
        assert!(tiled(120 * 72, 72), "120 rows: no padding");
        assert_eq!(Shape::of(0, 0), Shape::Linear);
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn ranges_set_clear_and_find_runs_across_words() {
        let mut b = Bits::try_new(&order(&[200]), Cell::Clean).unwrap();
        b.assign(3, 130, Cell::Host);
        b.assign(60, 70, Cell::Host);
        assert_eq!(b.settle(64, 66, Cell::Host), 2);
        let mut runs = vec![];
        b.runs(0, 200, Cell::Host, Cell::Host, 0, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(3, 64), (66, 130)]);
        assert!(b.any(129, 131, Cell::Host) && !b.any(130, 200, Cell::Host) && !b.any(0, 3, Cell::Host));
        let full = Bits::try_new(&order(&[70]), Cell::Device).unwrap();
        let mut runs = vec![];
        full.runs(0, 70, Cell::Device, Cell::Device, 0, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(0, 70)]);
        let mut runs = vec![];
        bit_runs(u64::MAX << 60 | 0b1011, |s, e| runs.push((s, e)));
        assert_eq!(runs, vec![(0, 2), (3, 4), (60, 64)]);
        // The byte transpose against its definition.
        let mut m: [u64; 8] = std::array::from_fn(|j| (0..8).map(|i| ((j * 8 + i) as u64 ^ 0xa5) << (8 * i)).sum());
        let before = m;
        transpose8(&mut m);
        for (i, j) in (0..8).flat_map(|i| (0..8).map(move |j| (i, j))) {
            assert_eq!((m[i] >> (8 * j)) & 0xFF, (before[j] >> (8 * i)) & 0xFF, "byte {j} of word {i}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
    fn joined_runs_never_cross_the_avoided_side() {
        let mut b = Bits::try_new(&order(&[100]), Cell::Clean).unwrap();
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
