//! The map against a plain array of cells (the data structure's reference:
//! one state per element, updated element by element).

use super::*;
use crate::layout::Layout;
use std::collections::BTreeSet;

/// A reference map: one cell per index (row-major over the extents).
struct Cells {
    ext: Vec<usize>,
    cells: Vec<Cell>,
}

impl Cells {
    fn new(ext: &[usize]) -> Cells {
        Cells { ext: ext.to_vec(), cells: vec![Cell::Clean; ext.iter().product()] }
    }
    fn index(&self, k: usize) -> Vec<usize> {
        let mut k = k;
        let mut idx = vec![0; self.ext.len()];
        for r in (0..self.ext.len()).rev() {
            idx[r] = k % self.ext[r];
            k /= self.ext[r];
        }
        idx
    }
    /// The row-major indices of `b`'s elements, in increasing order.
    fn in_box(&self, b: &IndexBox) -> Vec<usize> {
        let (lo, hi) = (b.lo(), b.hi());
        if self.ext.is_empty() {
            return vec![0];
        }
        if (0..self.ext.len()).any(|r| lo[r] >= hi[r]) {
            return vec![];
        }
        let mut out = vec![];
        let mut idx = lo.to_vec();
        loop {
            out.push(idx.iter().zip(&self.ext).fold(0, |at, (i, e)| at * e + i));
            let mut r = self.ext.len();
            loop {
                if r == 0 {
                    return out;
                }
                r -= 1;
                idx[r] += 1;
                if idx[r] < hi[r] {
                    break;
                }
                idx[r] = lo[r];
            }
        }
    }
    fn set(&mut self, b: &IndexBox, c: Cell) {
        for k in self.in_box(b) {
            self.cells[k] = c;
        }
    }
    fn settle(&mut self, b: &IndexBox, c: Cell) {
        for k in self.in_box(b) {
            if self.cells[k] == c {
                self.cells[k] = Cell::Clean;
            }
        }
    }
}

fn cells_of(boxes: &[IndexBox], r: &Cells) -> Vec<usize> {
    let mut v: Vec<usize> = boxes.iter().flat_map(|b| r.in_box(b)).collect();
    let n = v.len();
    v.sort();
    v.dedup();
    assert_eq!(v.len(), n, "disjoint boxes");
    v
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
    fn boxed(&mut self, ext: &[usize], small: bool) -> IndexBox {
        let (mut lo, mut hi) = (vec![0; ext.len()], vec![0; ext.len()]);
        for r in 0..ext.len() {
            if !small && self.next(3) == 0 {
                (lo[r], hi[r]) = (0, ext[r]);
                continue;
            }
            lo[r] = self.next(ext[r] + 1);
            let span = if small { 2 } else { ext[r] + 1 - lo[r] };
            hi[r] = (lo[r] + self.next(span.min(ext[r] + 1 - lo[r]))).min(ext[r]);
        }
        IndexBox::new(&lo, &hi)
    }
    fn cell(&mut self) -> Cell {
        [Cell::Clean, Cell::Host, Cell::Device][self.next(3)]
    }
}

fn check(m: &Map, r: &Cells) {
    for k in 0..r.cells.len() {
        assert_eq!(m.get(&r.index(k)), r.cells[k], "element {:?}", r.index(k));
    }
    for c in [Cell::Clean, Cell::Host, Cell::Device] {
        assert_eq!(m.count(c), r.cells.iter().filter(|&&x| x == c).count(), "{c:?}");
    }
    let s = m.summary();
    let present: BTreeSet<Cell> = r.cells.iter().copied().collect();
    assert_eq!((s.host, s.device), (present.contains(&Cell::Host), present.contains(&Cell::Device)));
    assert_eq!(s.uniform, present.len() <= 1);
    let n: usize = r.cells.len();
    let i = m.info();
    assert!(i.bytes <= (2 * (n + n / 16).div_ceil(64) * 8).max(MAX_BOXES * std::mem::size_of::<(IndexBox, Cell)>()), "{i:?} for {n} elements");
}

#[test]
#[cfg_attr(miri, ignore = "thousands of element loops are too slow under Miri")]
fn the_map_matches_the_cells_under_random_operations() {
    let mut rng = Rng(0x853c49e6748fea9b);
    let mut forms = [0usize; 2];
    for (layout, ext, rounds) in [
        (Layout::Right, vec![9usize, 7], 20),
        (Layout::Left, vec![9, 7], 20),
        (Layout::Right, vec![5, 4, 3], 20),
        (Layout::Left, vec![40], 20),
        (Layout::Right, vec![3, 1, 4, 2], 20),
        (Layout::Right, vec![], 5),
        // Large enough for several boxes before the bitmap is smaller.
        (Layout::Right, vec![120, 100], 4),
        (Layout::Left, vec![30, 20, 20], 4),
        // Bitmaps in 8 x 8 tiles (rows and row length of 64 or more): 2D and 3D.
        (Layout::Left, vec![64, 72], 3),
        (Layout::Right, vec![3, 64, 80], 3),
    ] {
        let mapping = Mapping::new(layout, DynRank::new(&ext).unwrap()).unwrap();
        let mut bitmaps = 0;
        for round in 0..rounds {
            let mut m = Map::new(&mapping);
            let mut r = Cells::new(&ext);
            // Past 64 boxes for the large shapes: more operations a round (each eighth checked whole).
            let large = r.cells.len() >= 64 * 64;
            for op in 0..if large { 600 } else { 40 } {
                let small = round % 2 == 0;
                let b = rng.boxed(&ext, small);
                let c = rng.cell();
                match rng.next(6) {
                    0 | 1 => {
                        m.assign(&b, c).unwrap();
                        r.set(&b, c);
                    }
                    2 => {
                        let c = if c == Cell::Clean { Cell::Host } else { c };
                        m.settle(&b, c).unwrap();
                        r.settle(&b, c);
                    }
                    3 => {
                        let want: Vec<usize> = r.in_box(&b).into_iter().filter(|&k| r.cells[k] == c).collect();
                        assert_eq!(cells_of(&m.parts(&b, c).unwrap(), &r), want);
                        assert_eq!(m.any(&b, c), !want.is_empty());
                    }
                    4 => {
                        let c = if c == Cell::Clean { Cell::Device } else { c };
                        let avoid = if c == Cell::Host { Cell::Device } else { Cell::Host };
                        let got = cells_of(&m.copy_parts(&b, c, avoid).unwrap(), &r);
                        let inside: BTreeSet<usize> = r.in_box(&b).into_iter().collect();
                        for &k in &got {
                            assert!(inside.contains(&k), "never outside the box");
                            assert_ne!(r.cells[k], avoid, "never an element of the avoided side");
                        }
                        for &k in &inside {
                            if r.cells[k] == c {
                                assert!(got.contains(&k), "every element of the state");
                            }
                        }
                    }
                    _ => {
                        let b2 = rng.boxed(&ext, !small);
                        let p = m.prepare(vec![(b, Op::Settle(Cell::Device)), (b2, Op::Assign(Cell::Host))]).unwrap();
                        m.commit(p);
                        r.settle(&b, Cell::Device);
                        r.set(&b2, Cell::Host);
                    }
                }
                if !large || op % 8 == 7 {
                    check(&m, &r);
                }
                forms[usize::from(m.info().bitmap)] += usize::from(m.info().boxes > 1 || m.info().bitmap);
                bitmaps += usize::from(m.info().bitmap);
            }
        }
        if ext.iter().product::<usize>() >= 64 * 64 {
            assert!(bitmaps > 0, "{ext:?} reaches the bitmap (here in 8 x 8 tiles)");
        }
    }
    assert!(forms[0] > 50 && forms[1] > 50, "both forms exercised: {forms:?}");
}

#[test]
#[cfg_attr(miri, ignore = "element loops")]
fn resizes_keep_each_kept_state_and_fill_the_new_elements() {
    let mut rng = Rng(0x2c1b3c6d);
    for layout in [Layout::Right, Layout::Left] {
        for (from, to) in [
            (vec![6usize, 5], vec![9, 5]),
            (vec![6, 5], vec![6, 8]),
            (vec![6, 5], vec![3, 7]),
            (vec![7], vec![12]),
            (vec![4, 3, 2], vec![2, 5, 2]),
            // An axis of extent 1 that grows becomes the fastest (found by the soak).
            (vec![8, 1], vec![8, 2]),
            (vec![1, 8], vec![2, 8]),
            (vec![8, 5, 1], vec![13, 6, 2]),
            (vec![8, 1], vec![9, 1]),
            // Bitmaps in 8 x 8 tiles to linear words and back, and tiles to tiles.
            (vec![64, 64], vec![40, 70]),
            (vec![40, 70], vec![64, 64]),
            (vec![64, 72], vec![72, 80]),
        ] {
            for fragmented in [false, true] {
                let m0 = Mapping::new(layout, DynRank::new(&from).unwrap()).unwrap();
                let m1 = Mapping::new(layout, DynRank::new(&to).unwrap()).unwrap();
                let mut m = Map::new(&m0);
                let mut r = Cells::new(&from);
                let large = r.cells.len() > 1000;
                for _ in 0..match (fragmented, large) {
                    (false, _) => 3,
                    (true, false) => 30,
                    (true, true) => 300,
                } {
                    let b = rng.boxed(&from, fragmented);
                    let c = rng.cell();
                    m.assign(&b, c).unwrap();
                    r.set(&b, c);
                }
                if fragmented && large {
                    assert!(m.info().bitmap, "{from:?} fragmented into a bitmap");
                }
                for fill in [Cell::Clean, Cell::Device] {
                    let n = m.resized(&m1, fill).unwrap();
                    let mut want = Cells::new(&to);
                    for k in 0..want.cells.len() {
                        let idx = want.index(k);
                        want.cells[k] = if idx.iter().zip(&from).all(|(i, e)| i < e) {
                            // The same index in the old extents, row-major.
                            r.cells[idx.iter().zip(&from).fold(0, |at, (i, e)| at * e + i)]
                        } else {
                            fill
                        };
                    }
                    check(&n, &want);
                }
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "a hundred thousand fragments")]
fn a_hundred_thousand_fragments_stay_exact_within_two_bits_an_element() {
    // 1D: every other element of 200,000 synced one at a time (100,000 fragments).
    let n = 200_000;
    let mapping = Mapping::new(Layout::Right, DynRank::new(&[n]).unwrap()).unwrap();
    let mut m = Map::new(&mapping);
    m.set_uniform(Cell::Device);
    for i in (0..n).step_by(2) {
        m.settle(&IndexBox::new(&[i], &[i + 1]), Cell::Device).unwrap();
    }
    let info = m.info();
    assert!(info.bitmap && info.bytes <= 2 * (n + n / 16).div_ceil(64) * 8, "{info:?}");
    assert_eq!((info.device_newer, info.host_newer), (n / 2, 0));
    assert_eq!(m.parts(&m.whole(), Cell::Device).unwrap().len(), n / 2, "each fragment exact");
    assert!(m.copy_parts(&m.whole(), Cell::Device, Cell::Host).unwrap().len() < 200, "clean gaps ride along");
    // Marking every fragment on the host leaves no device-newer element.
    for i in (1..n).step_by(2) {
        m.assign(&IndexBox::new(&[i], &[i + 1]), Cell::Host).unwrap();
    }
    assert_eq!((m.count(Cell::Host), m.count(Cell::Device)), (n / 2, 0));
    m.settle(&m.whole(), Cell::Host).unwrap();
    assert_eq!(m.info(), MapInfo::default(), "a bitmap that comes to one state is freed");

    // 2D: a checkerboard of 100,000 single elements on 400 x 500.
    let mapping = Mapping::new(Layout::Left, DynRank::new(&[400, 500]).unwrap()).unwrap();
    let mut m = Map::new(&mapping);
    for i in 0..400 {
        for j in 0..500 {
            if (i + j) % 2 == 0 {
                m.assign(&IndexBox::new(&[i, j], &[i + 1, j + 1]), Cell::Host).unwrap();
            }
        }
    }
    let info = m.info();
    assert_eq!(info.host_newer, 100_000);
    assert!(info.bitmap && info.bytes <= 2 * (200_000usize + 200_000 / 16).div_ceil(64) * 8, "{info:?}");
    let grown = m.resized(&Mapping::new(Layout::Left, DynRank::new(&[400, 800]).unwrap()).unwrap(), Cell::Clean).unwrap();
    assert_eq!(grown.count(Cell::Host), 100_000);
    assert_eq!(grown.get(&[1, 1]), Cell::Host);
    assert_eq!(grown.get(&[1, 2]), Cell::Clean);
    let cut = m.resized(&Mapping::new(Layout::Left, DynRank::new(&[100, 100]).unwrap()).unwrap(), Cell::Device).unwrap();
    assert_eq!(cut.count(Cell::Host), 5_000);
}

#[test]
#[cfg_attr(miri, ignore = "safe code only (the coherence map has no unsafe): too slow under Miri")]
fn a_resize_that_changes_the_fastest_axis_keeps_each_state_in_place() {
    // Found by the soak: LayoutRight [8, 1] runs along axis 0; after a resize to
    // [8, 2] axis 1 is the fastest, so a row of the old order is no run of the new.
    for (layout, from, to) in [
        (Layout::Right, vec![8usize, 1], vec![8usize, 2]),
        (Layout::Left, vec![1, 8], vec![2, 8]),
        (Layout::Right, vec![8, 17, 1], vec![13, 25, 2]),
        (Layout::Right, vec![8, 1], vec![9, 1]),
    ] {
        let m0 = Mapping::new(layout, DynRank::new(&from).unwrap()).unwrap();
        let mut m = Map::new(&m0);
        let mut r = Cells::new(&from);
        // A bitmap: every third element host-newer, every fifth device-newer.
        for k in 0..r.cells.len() {
            let c = if k % 5 == 0 { Cell::Device } else if k % 3 == 0 { Cell::Host } else { continue };
            let idx = r.index(k);
            let b = IndexBox::new(&idx, &idx.iter().map(|i| i + 1).collect::<Vec<_>>());
            m.assign(&b, c).unwrap();
            r.set(&b, c);
        }
        assert!(m.info().bitmap || r.cells.len() < 8);
        let n = m.resized(&Mapping::new(layout, DynRank::new(&to).unwrap()).unwrap(), Cell::Clean).unwrap();
        let mut want = Cells::new(&to);
        for k in 0..want.cells.len() {
            let idx = want.index(k);
            if idx.iter().zip(&from).all(|(i, e)| i < e) {
                want.cells[k] = r.cells[r.in_box(&IndexBox::new(&idx, &idx.iter().map(|i| i + 1).collect::<Vec<_>>()))[0]];
            }
        }
        check(&n, &want);
    }
}
