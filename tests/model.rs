//! Model-based property test: random sequences of create / modify / sync /
//! write / fill / resize / realloc / subview / clone / clear / deep_copy on
//! two-space DualViews (host + test device), checked after every step against
//! a small model of the data on each side, of the flags, of the elements the
//! newer side changed and has not copied yet, and of the bytes each sync
//! moved (docs/DECISIONS.md D9: a sync through a handle copies exactly the
//! changed elements inside that handle's region, each once; what it leaves
//! is the rest, which a modify of the other side copies first).

use dualview::{Dims, DualView, DynRank, ErrorKind, Layout, RawDualView, Side, Slice, Space};
use proptest::prelude::*;
use std::collections::BTreeSet;
mod common;
use common::{flat, row_major};

const DEV: Space = Space::test_device(2);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Newer {
    None,
    Host,
    Device,
}

/// One DualView family in the model.
#[derive(Clone, Debug)]
struct Family {
    ext: [usize; 2],
    host: Vec<i64>,
    device: Vec<i64>,
    newer: Newer,
    /// The elements the newer side changed and has not copied yet.
    dirty: BTreeSet<usize>,
    /// `dirty` is what a handle's sync left (DV_SYNC_REST): the other side may be modified.
    rest: bool,
    /// The change is a set of regions, not the whole array (DV_SYNC_PARTIAL).
    partial: bool,
    /// Bytes copied to the host and to the device so far (`stats()`).
    moved: [u64; 2],
    generation: u64,
}

impl Family {
    fn new(ext: [usize; 2]) -> Family {
        let n = ext[0] * ext[1];
        Family { ext, host: vec![0; n], device: vec![0; n], newer: Newer::None, dirty: BTreeSet::new(), rest: false, partial: false, moved: [0; 2], generation: 0 }
    }
    fn side(&mut self, s: Side) -> &mut Vec<i64> {
        match s {
            Side::Host => &mut self.host,
            Side::Device => &mut self.device,
        }
    }
    fn stale(&self, s: Side) -> bool {
        matches!((self.newer, s), (Newer::Device, Side::Host) | (Newer::Host, Side::Device))
    }
    /// Whether a modify (fill, deep copy) of `s` is refused: the other side holds changes that are not a rest.
    fn conflicts(&self, s: Side) -> bool {
        self.stale(s) && !self.rest
    }
    fn clear(&mut self) {
        self.newer = Newer::None;
        self.dirty.clear();
        self.rest = false;
        self.partial = false;
    }
    fn newer_of(s: Side) -> Newer {
        match s {
            Side::Host => Newer::Host,
            Side::Device => Newer::Device,
        }
    }
}

/// A handle: its family, its region (parent flat indices, row-major over the
/// handle's extents) and, for subviews, the generation it was made at.
#[derive(Clone)]
struct Handle {
    fam: usize,
    raw: RawDualView,
    ext: Vec<usize>,
    region: Option<Vec<usize>>,
    generation: u64,
}

#[derive(Clone, Debug)]
enum Op {
    Modify(usize, Side),
    Sync(usize, Side),
    Write(usize, Side, i64),
    Overwrite(usize, Side, i64),
    Fill(usize, Side, i64),
    Clear(usize),
    Resize(usize, [usize; 2]),
    Realloc(usize, [usize; 2]),
    Subview(usize, [(u8, usize, usize); 2]),
    Clone(usize),
    DeepCopy(usize, usize),
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::Host), Just(Side::Device)]
}

fn ext() -> impl Strategy<Value = [usize; 2]> {
    [0usize..5, 0usize..5]
}

fn op() -> impl Strategy<Value = Op> {
    let h = any::<usize>();
    prop_oneof![
        3 => (h, side()).prop_map(|(h, s)| Op::Modify(h, s)),
        3 => (h, side()).prop_map(|(h, s)| Op::Sync(h, s)),
        3 => (h, side(), 1i64..1000).prop_map(|(h, s, v)| Op::Write(h, s, v)),
        1 => (h, side(), 1i64..1000).prop_map(|(h, s, v)| Op::Overwrite(h, s, v)),
        2 => (h, side(), 1i64..1000).prop_map(|(h, s, v)| Op::Fill(h, s, v)),
        1 => h.prop_map(Op::Clear),
        1 => (h, ext()).prop_map(|(h, e)| Op::Resize(h, e)),
        1 => (h, ext()).prop_map(|(h, e)| Op::Realloc(h, e)),
        2 => (h, [(0u8..4, 0usize..8, 0usize..8), (0u8..4, 0usize..8, 0usize..8)]).prop_map(|(h, s)| Op::Subview(h, s)),
        1 => h.prop_map(Op::Clone),
        1 => (h, h).prop_map(|(a, b)| Op::DeepCopy(a, b)),
    ]
}

fn slices(ext: &[usize], spec: &[(u8, usize, usize)]) -> Vec<Slice> {
    ext.iter()
        .zip(spec)
        .map(|(&e, &(k, x, y))| match k {
            1 => {
                let lo = x % (e + 1);
                Slice::Range(lo, lo + y % (e + 1 - lo))
            }
            2 if e > 0 => Slice::Index(x % e),
            3 => Slice::From(x % (e + 1)),
            _ => Slice::All,
        })
        .collect()
}

/// Read one side of a handle in row-major order, straight from memory.
fn read(raw: &RawDualView, s: Side) -> Vec<i64> {
    let v = raw.view(s).unwrap();
    let p = v.data() as *const i64;
    row_major(v.extents().as_slice())
        .iter()
        .map(|idx| {
            // SAFETY: host / test-device memory; offset inside the span.
            unsafe { *p.add(v.mapping().offset(idx).unwrap()) }
        })
        .collect()
}

struct World {
    fams: Vec<Family>,
    handles: Vec<Handle>,
}

impl World {
    fn region(&self, h: &Handle) -> Vec<usize> {
        let f = &self.fams[h.fam];
        h.region.clone().unwrap_or_else(|| (0..f.ext[0] * f.ext[1]).collect())
    }

    fn is_stale(&self, h: &Handle) -> bool {
        h.region.is_some() && h.generation != self.fams[h.fam].generation
    }

    /// Sync the model towards `s` through `h`: copy the changed elements in
    /// its region; what remains outside it is the rest.
    fn model_sync(&mut self, h: &Handle, s: Side) {
        let region: BTreeSet<usize> = self.region(h).into_iter().collect();
        self.sync_cells(h.fam, s, &region);
    }

    fn sync_cells(&mut self, fam: usize, s: Side, region: &BTreeSet<usize>) {
        let f = &mut self.fams[fam];
        if !f.stale(s) {
            return;
        }
        let copied: Vec<usize> = f.dirty.intersection(region).copied().collect();
        for &i in &copied {
            let v = if s == Side::Host { f.device[i] } else { f.host[i] };
            f.side(s)[i] = v;
            f.dirty.remove(&i);
        }
        f.moved[s as usize] += 8 * copied.len() as u64;
        if f.dirty.is_empty() {
            f.clear();
        } else {
            (f.rest, f.partial) = (true, true);
        }
    }

    /// A write of `s` through `h` while the other side holds a rest: the rest
    /// outside `h`'s region is copied into `s`, the part inside is dropped;
    /// then both sides are clean.
    fn release(&mut self, h: &Handle, s: Side) {
        if !self.fams[h.fam].stale(s) {
            return;
        }
        let region: BTreeSet<usize> = self.region(h).into_iter().collect();
        let f = &mut self.fams[h.fam];
        let outside: BTreeSet<usize> = f.dirty.iter().copied().filter(|i| !region.contains(i)).collect();
        self.sync_cells(h.fam, s, &outside);
        self.fams[h.fam].clear();
    }

    /// Record a successful modify of `s` through `h` (the caller checked that
    /// it is allowed): a rest of the other side is released first.
    fn mark(&mut self, h: &Handle, s: Side) {
        self.release(h, s);
        let whole = h.region.is_none();
        let region = self.region(h);
        let f = &mut self.fams[h.fam];
        if whole {
            f.partial = false;
        } else if f.newer != Family::newer_of(s) || f.partial {
            f.partial = true;
        }
        f.newer = Family::newer_of(s);
        f.rest = false;
        f.dirty.extend(region);
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let pick = |i: usize| i % self.handles.len();
        match *op {
            Op::Modify(i, s) => {
                let h = self.handles[pick(i)].clone();
                let r = h.raw.modify(s);
                let f = &mut self.fams[h.fam];
                let expect = if h.region.is_some() && h.generation != f.generation {
                    Some(ErrorKind::Stale)
                } else if f.conflicts(s) {
                    Some(ErrorKind::ConcurrentModification)
                } else {
                    self.mark(&h, s);
                    None
                };
                prop_assert_eq!(r.err().map(|e| e.kind()), expect);
            }
            Op::Sync(i, s) => {
                let h = self.handles[pick(i)].clone();
                let r = h.raw.sync(s);
                let expect = if self.is_stale(&h) {
                    Some(ErrorKind::Stale)
                } else if !self.fams[h.fam].stale(s) {
                    None
                } else {
                    self.model_sync(&h, s);
                    None
                };
                prop_assert_eq!(r.err().map(|e| e.kind()), expect);
            }
            Op::Write(i, s, v) | Op::Overwrite(i, s, v) => {
                let overwrite = matches!(op, Op::Overwrite(..));
                let h = self.handles[pick(i)].clone();
                let typed = DualView::<i64>::from_raw(h.raw.clone()).unwrap();
                let guard = match (s, overwrite) {
                    (Side::Host, false) => typed.host_mut(),
                    (Side::Device, false) => typed.device_mut(),
                    (Side::Host, true) => typed.host_overwrite(),
                    (Side::Device, true) => typed.device_overwrite(),
                };
                if self.is_stale(&h) {
                    // A stale subview fails before or at the view (after a possible sync).
                    prop_assert_eq!(guard.err().map(|e| e.kind()), Some(ErrorKind::Stale));
                    // The sync part may have run; mirror what the library did.
                    return Ok(());
                }
                let mut g = guard.map_err(|e| TestCaseError::fail(e.to_string()))?;
                g.fill(v).unwrap();
                drop(g);
                if overwrite && h.region.is_none() {
                    let f = &mut self.fams[h.fam];
                    f.newer = Family::newer_of(s);
                    f.dirty = (0..f.host.len()).collect();
                    (f.rest, f.partial) = (false, false);
                } else {
                    if self.fams[h.fam].stale(s) {
                        self.model_sync(&h, s);
                    }
                    self.mark(&h, s);
                }
                let region = self.region(&h);
                let f = &mut self.fams[h.fam];
                for &k in &region {
                    f.side(s)[k] = v;
                }
            }
            Op::Fill(i, s, v) => {
                let h = self.handles[pick(i)].clone();
                let r = h.raw.fill(s, &v.to_ne_bytes());
                let expect = if self.is_stale(&h) {
                    Some(ErrorKind::Stale)
                } else if self.fams[h.fam].conflicts(s) {
                    Some(ErrorKind::ConcurrentModification)
                } else {
                    self.release(&h, s); // a rest first
                    let region = self.region(&h);
                    let f = &mut self.fams[h.fam];
                    for &k in &region {
                        f.side(s)[k] = v;
                    }
                    self.mark(&h, s);
                    None
                };
                prop_assert_eq!(r.err().map(|e| e.kind()), expect);
            }
            Op::Clear(i) => {
                let h = self.handles[pick(i)].clone();
                let r = h.raw.clear_sync_state();
                if self.is_stale(&h) {
                    prop_assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Stale));
                    return Ok(());
                }
                r.map_err(|e| TestCaseError::fail(e.to_string()))?;
                self.fams[h.fam].clear();
            }
            Op::Resize(i, e) | Op::Realloc(i, e) => {
                let keep = matches!(op, Op::Resize(..));
                let h = self.handles[pick(i)].clone();
                let new = DynRank::new(&e).unwrap();
                let r = if keep { h.raw.resize(&new) } else { h.raw.realloc(&new, true) };
                if h.region.is_some() {
                    prop_assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::InvalidArgument));
                    return Ok(());
                }
                r.map_err(|e| TestCaseError::fail(e.to_string()))?;
                let f = &mut self.fams[h.fam];
                let old = f.clone();
                if old.ext == e && keep {
                    return Ok(());
                }
                *f = Family::new(e);
                f.generation = if old.ext == e { old.generation } else { old.generation + 1 };
                f.moved = old.moved;
                if keep {
                    // Kept indices keep their values and changes; new ones are zero on both sides.
                    for idx in row_major(&e) {
                        if idx[0] < old.ext[0] && idx[1] < old.ext[1] {
                            let (n, o) = (flat(&e, &idx), flat(&old.ext, &idx));
                            f.host[n] = old.host[o];
                            f.device[n] = old.device[o];
                            if old.dirty.contains(&o) {
                                f.dirty.insert(n);
                            }
                        }
                    }
                    if old.newer != Newer::None {
                        // A whole change stays whole, and a record of regions gains the new
                        // elements: the newer side may write them before its sync.
                        if old.partial {
                            for idx in row_major(&e) {
                                if idx[0] >= old.ext[0] || idx[1] >= old.ext[1] {
                                    f.dirty.insert(flat(&e, &idx));
                                }
                            }
                        } else {
                            f.dirty = (0..f.host.len()).collect();
                        }
                    }
                    if old.newer != Newer::None && (!f.dirty.is_empty() || !old.partial) {
                        (f.newer, f.rest, f.partial) = (old.newer, old.rest, old.partial);
                    }
                }
                for hh in self.handles.iter_mut().filter(|hh| hh.fam == h.fam && hh.region.is_none()) {
                    hh.ext = e.to_vec();
                }
            }
            Op::Subview(i, spec) => {
                let h = self.handles[pick(i)].clone();
                let sl = slices(&h.ext, &spec);
                let r = h.raw.subview(&sl);
                if self.is_stale(&h) {
                    prop_assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Stale));
                    return Ok(());
                }
                let raw = r.map_err(|e| TestCaseError::fail(e.to_string()))?;
                let parent_region = self.region(&h);
                let new_ext: Vec<usize> = sl
                    .iter()
                    .zip(&h.ext)
                    .filter_map(|(s, &e)| match *s {
                        Slice::All => Some(e),
                        Slice::Range(a, b) => Some(b - a),
                        Slice::From(a) => Some(e - a),
                        Slice::Index(_) => None,
                    })
                    .collect();
                let region = row_major(&new_ext)
                    .iter()
                    .map(|idx| {
                        let mut it = idx.iter();
                        let pidx: Vec<usize> = sl
                            .iter()
                            .map(|s| match *s {
                                Slice::All => *it.next().unwrap(),
                                Slice::Range(a, _) | Slice::From(a) => a + it.next().unwrap(),
                                Slice::Index(k) => k,
                            })
                            .collect();
                        parent_region[flat(&h.ext, &pidx)]
                    })
                    .collect();
                let generation = self.fams[h.fam].generation;
                self.handles.push(Handle { fam: h.fam, raw, ext: new_ext, region: Some(region), generation });
            }
            Op::Clone(i) => {
                let h = self.handles[pick(i)].clone();
                self.handles.push(h);
            }
            Op::DeepCopy(a, b) => {
                let (dst, src) = (self.handles[pick(a)].clone(), self.handles[pick(b)].clone());
                let r = RawDualView::deep_copy(&dst.raw, &src.raw);
                let s = if self.fams[src.fam].newer == Newer::Host { Side::Host } else { Side::Device };
                let expect = if self.is_stale(&dst) || self.is_stale(&src) {
                    Some(ErrorKind::Stale)
                } else if self.fams[dst.fam].conflicts(s) {
                    Some(ErrorKind::ConcurrentModification)
                } else if dst.ext != src.ext {
                    Some(ErrorKind::Incompatible)
                } else {
                    self.release(&dst, s); // a rest first
                    let (dr, sr) = (self.region(&dst), self.region(&src));
                    let vals: Vec<i64> = {
                        let f = &mut self.fams[src.fam];
                        sr.iter().map(|&k| f.side(s)[k]).collect()
                    };
                    let f = &mut self.fams[dst.fam];
                    for (&k, v) in dr.iter().zip(vals) {
                        f.side(s)[k] = v;
                    }
                    self.mark(&dst, s);
                    None
                };
                prop_assert_eq!(r.err().map(|e| e.kind()), expect);
            }
        }
        Ok(())
    }

    fn check(&self) -> Result<(), TestCaseError> {
        for h in &self.handles {
            let f = &self.fams[h.fam];
            prop_assert_eq!(h.raw.need_sync(Side::Host), f.stale(Side::Host));
            prop_assert_eq!(h.raw.need_sync(Side::Device), f.stale(Side::Device));
            let st = h.raw.stats();
            prop_assert_eq!([st.to_host.bytes, st.to_device.bytes], f.moved, "bytes moved by syncs");
            if h.region.is_none() {
                prop_assert_eq!(h.raw.extents().as_slice().to_vec(), f.ext.to_vec());
                prop_assert_eq!(read(&h.raw, Side::Host), f.host.clone());
                prop_assert_eq!(read(&h.raw, Side::Device), f.device.clone());
            } else if !self.is_stale(h) {
                let region = self.region(h);
                let want: Vec<i64> = region.iter().map(|&k| f.host[k]).collect();
                prop_assert_eq!(read(&h.raw, Side::Host), want);
                let want: Vec<i64> = region.iter().map(|&k| f.device[k]).collect();
                prop_assert_eq!(read(&h.raw, Side::Device), want);
            }
        }
        Ok(())
    }
}

fn family(e: [usize; 2], left: bool) -> RawDualView {
    let layout = if left { Layout::Left } else { Layout::Right };
    DualView::<i64, Dims<2>>::builder("M", Dims::new(e).unwrap())
        .layout(layout)
        .device(DEV)
        .build()
        .unwrap()
        .raw()
        .clone()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn dual_views_follow_the_model(e1 in ext(), e2 in ext(), l1 in any::<bool>(), l2 in any::<bool>(),
                                   ops in prop::collection::vec(op(), 1..40)) {
        let mut w = World {
            fams: vec![Family::new(e1), Family::new(e2)],
            handles: vec![],
        };
        w.handles.push(Handle { fam: 0, raw: family(e1, l1), ext: e1.to_vec(), region: None, generation: 0 });
        w.handles.push(Handle { fam: 1, raw: family(e2, l2), ext: e2.to_vec(), region: None, generation: 0 });
        w.check()?;
        for op in &ops {
            w.apply(op)?;
            w.check()?;
        }
    }
}
