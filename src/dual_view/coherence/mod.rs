//! The coherence map of a DualView family: for every element of the parent
//! index space, whether it is clean (both sides hold its newest value),
//! newer on the host, or newer on the device. Exact at any fragmentation.
//!
//! | form | when | memory | cost per call |
//! | --- | --- | --- | --- |
//! | a base state and at most `MAX_BOXES` (64) boxes (`boxes.rs`) | after whole-array calls and a few subview calls | 144 B a box | `O(k^3 * rank)` at worst (joining neighbours), `k` boxes |
//! | one bit per element and side (`bits.rs`), linear or in 8 x 8 tiles | when the boxes would be more than `MAX_BOXES`, or would take more memory than the bits | 2 bits an element (rounded up to 64 elements; tiles: to 8 x 8, at most a sixteenth more) | `O(|B| / 64 + runs in B)` for a box `B`; on tiles `O(blocks of 8 x 8 that B meets)` |
//!
//! The map never holds a superset or drops a region: every form is exact,
//! and only an allocation failure (`OutOfMemory`, nothing changed) refuses
//! an operation. A bitmap whose elements all come to one state becomes a
//! base again, freeing its memory.

mod bits;
mod boxes;
mod linear;

use crate::dual_view::regions::IndexBox;
use crate::error::Result;
use crate::extents::DynRank;
use crate::layout::Mapping;
use crate::side::Side;
use bits::Bits;
use boxes::Boxes;
pub(crate) use boxes::MAX_BOXES;
use linear::Order;

/// The state of one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Cell {
    /// Both sides hold the newest value.
    Clean,
    /// Only the host holds the newest value.
    Host,
    /// Only the device holds the newest value.
    Device,
}

impl Cell {
    /// The state of an element whose newest value is on `side` only.
    pub(crate) const fn newer(side: Side) -> Cell {
        match side {
            Side::Host => Cell::Host,
            Side::Device => Cell::Device,
        }
    }

    /// The bit plane of a newer state (0 host, 1 device).
    fn plane(self) -> Option<usize> {
        match self {
            Cell::Clean => None,
            Cell::Host => Some(0),
            Cell::Device => Some(1),
        }
    }
}

/// Clean elements between two runs to copy that may ride along in one copy
/// (fewer driver calls; a clean element holds the same value on both sides).
const JOIN_GAP: usize = 1024;

/// The most boxes a query builds from the box form before answering from a bitmap.
const PARTS_LIMIT: usize = 16 * MAX_BOXES;

/// Which states occur, for the flag byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Some element is newer on the host.
    pub(crate) host: bool,
    /// Some element is newer on the device.
    pub(crate) device: bool,
    /// Every element is in one state.
    pub(crate) uniform: bool,
}

/// What [`crate::RawDualView::coherence`] reports (introspection: tests, diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapInfo {
    /// Heap bytes the map holds.
    pub bytes: usize,
    /// Boxes in the box form (0 for a bitmap or a uniform map).
    pub boxes: usize,
    /// Whether the map is a bitmap.
    pub bitmap: bool,
    /// Elements newer on the host.
    pub host_newer: usize,
    /// Elements newer on the device.
    pub device_newer: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Repr {
    Boxes(Boxes),
    Bits(Bits),
}

/// The map over a parent index space.
#[derive(Clone, Debug)]
pub(crate) struct Map {
    order: Order,
    repr: Repr,
}

/// One change of a map: the elements of a box become a state, or those of
/// a newer state become clean (what a sync records after its copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// Every element of the box becomes this state.
    Assign(Cell),
    /// The elements of the box in this (newer) state become clean.
    Settle(Cell),
}

/// Changes prepared before the copies they record (all that can fail
/// happens then); [`Map::commit`] applies them and cannot fail.
pub(crate) struct Pending {
    ops: Vec<(IndexBox, Op)>,
    /// The box form's result, computed; `None`: apply `ops` to the bitmap in place.
    next: Option<Repr>,
}

impl Map {
    /// A map of `mapping`'s elements, all clean.
    pub(crate) fn new(mapping: &Mapping) -> Map {
        Map { order: Order::of(mapping), repr: Repr::Boxes(Boxes::uniform(Cell::Clean)) }
    }

    /// Every element `cell` (frees a bitmap).
    pub(crate) fn set_uniform(&mut self, cell: Cell) {
        if self.repr != Repr::Boxes(Boxes::uniform(cell)) {
            self.repr = Repr::Boxes(Boxes::uniform(cell));
        }
    }

    /// The box of every element.
    pub(crate) fn whole(&self) -> IndexBox {
        let r = self.order.rank();
        IndexBox::new(&[0; 8][..r], &self.order.extents()[..r])
    }

    fn n(&self) -> usize {
        self.order.len()
    }

    /// The bitmap of a box form (or `OutOfMemory`).
    fn bits_of(&self, bx: &Boxes) -> Result<Bits> {
        let mut bits = Bits::try_new(&self.order, bx.base)?;
        for (x, c) in &bx.list {
            bits.assign_box(&self.order, x, *c);
        }
        Ok(bits)
    }

    /// A bitmap that holds one state only becomes a base again.
    fn collapse(&mut self) {
        if let Repr::Bits(b) = &self.repr
            && let Some(c) = b.uniform(self.n())
        {
            self.repr = Repr::Boxes(Boxes::uniform(c));
        }
    }

    /// The box form after `b` becomes `cell`, or the bitmap when that is
    /// smaller or the boxes would be too many.
    fn assigned_boxes(&self, bx: &Boxes, b: &IndexBox, cell: Cell) -> Result<Repr> {
        let bits_bytes = Bits::bytes_for(&self.order);
        if let Some(next) = bx.assigned(b, cell, &self.whole())
            && (next.list.len() <= 1 || next.bytes() <= bits_bytes)
        {
            return Ok(Repr::Boxes(next));
        }
        let mut bits = self.bits_of(bx)?;
        bits.assign_box(&self.order, b, cell);
        Ok(Repr::Bits(bits))
    }

    /// Prepare `ops`, in order. `OutOfMemory` (nothing changed) when a
    /// bitmap is needed and cannot be had.
    pub(crate) fn prepare(&self, ops: Vec<(IndexBox, Op)>) -> Result<Pending> {
        let Repr::Boxes(bx) = &self.repr else { return Ok(Pending { ops, next: None }) };
        let mut cur = Map { order: self.order, repr: Repr::Boxes(bx.clone()) };
        for (i, &(b, op)) in ops.iter().enumerate() {
            let Repr::Boxes(now) = &cur.repr else {
                cur.apply_bits(&ops[i..]);
                break;
            };
            let next = match op {
                Op::Assign(cell) => self.assigned_boxes(now, &b, cell)?,
                Op::Settle(cell) => {
                    let parts = cur.parts(&b, cell)?;
                    let mut m = Map { order: self.order, repr: Repr::Boxes(now.clone()) };
                    for p in &parts {
                        let Repr::Boxes(x) = &m.repr else {
                            m.apply_bits(&[(*p, Op::Assign(Cell::Clean))]);
                            continue;
                        };
                        m.repr = self.assigned_boxes(x, p, Cell::Clean)?;
                    }
                    m.repr
                }
            };
            cur.repr = next;
        }
        cur.collapse();
        Ok(Pending { ops, next: Some(cur.repr) })
    }

    /// Apply `ops` to the bitmap form in place (a box form is left alone).
    fn apply_bits(&mut self, ops: &[(IndexBox, Op)]) {
        if let Repr::Bits(bits) = &mut self.repr {
            for (b, op) in ops {
                match *op {
                    Op::Assign(cell) => bits.assign_box(&self.order, b, cell),
                    Op::Settle(cell) => bits.settle_box(&self.order, b, cell),
                }
            }
        }
        self.collapse();
    }

    /// Apply prepared changes.
    pub(crate) fn commit(&mut self, p: Pending) {
        match p.next {
            Some(next) => self.repr = next,
            None => self.apply_bits(&p.ops),
        }
    }

    /// Prepare and commit `ops` (see [`Map::prepare`]).
    pub(crate) fn apply(&mut self, ops: Vec<(IndexBox, Op)>) -> Result<()> {
        let p = self.prepare(ops)?;
        self.commit(p);
        Ok(())
    }

    /// The elements of `b` become `cell` (see [`Map::prepare`]).
    pub(crate) fn assign(&mut self, b: &IndexBox, cell: Cell) -> Result<()> {
        self.apply(vec![(*b, Op::Assign(cell))])
    }

    /// The `cell` elements of `b` become clean (see [`Map::prepare`]).
    #[cfg(test)]
    pub(crate) fn settle(&mut self, b: &IndexBox, cell: Cell) -> Result<()> {
        self.apply(vec![(*b, Op::Settle(cell))])
    }

    /// The elements of `b` that are `cell`, as disjoint boxes, exactly.
    pub(crate) fn parts(&self, b: &IndexBox, cell: Cell) -> Result<Vec<IndexBox>> {
        self.parts_joined(b, cell, cell, 0)
    }

    /// The boxes a sync of `b` copies: every `cell` element of `b`, and
    /// clean elements between them where that saves a copy; never an
    /// element of `avoid` (the target's newer state), never outside `b`.
    pub(crate) fn copy_parts(&self, b: &IndexBox, cell: Cell, avoid: Cell) -> Result<Vec<IndexBox>> {
        self.parts_joined(b, cell, avoid, JOIN_GAP)
    }

    fn parts_joined(&self, b: &IndexBox, cell: Cell, avoid: Cell, gap: usize) -> Result<Vec<IndexBox>> {
        let b = b.clip(&DynRank::from_slice_unchecked(&self.order.extents()[..self.order.rank()]));
        let tmp;
        let bits = match &self.repr {
            Repr::Boxes(bx) => match bx.parts(&b, cell, PARTS_LIMIT) {
                Some(p) => return Ok(p),
                None => {
                    tmp = self.bits_of(bx)?;
                    &tmp
                }
            },
            Repr::Bits(bits) => bits,
        };
        let mut out = Vec::new();
        self.order.runs(&b, |a, e| bits.runs(a, e, cell, avoid, gap, |s, t| self.order.boxes_of(s, t, &mut out)));
        Ok(out)
    }

    /// Whether an element of `b` is `cell`.
    pub(crate) fn any(&self, b: &IndexBox, cell: Cell) -> bool {
        match &self.repr {
            Repr::Boxes(bx) => bx.any(b, cell),
            Repr::Bits(bits) => bits.any_box(&self.order, b, cell),
        }
    }

    /// How many elements are `cell`.
    pub(crate) fn count(&self, cell: Cell) -> usize {
        match &self.repr {
            Repr::Boxes(bx) => bx.count(cell, self.n()),
            Repr::Bits(bits) => bits.count(cell, self.n()),
        }
    }

    /// The state of the element at `idx`.
    pub(crate) fn get(&self, idx: &[usize]) -> Cell {
        match &self.repr {
            Repr::Boxes(bx) => bx.get(idx),
            Repr::Bits(bits) => bits.get(self.order.linear(idx)),
        }
    }

    /// Which states occur.
    pub(crate) fn summary(&self) -> Summary {
        let (h, d) = (self.count(Cell::Host), self.count(Cell::Device));
        let n = self.n();
        Summary { host: h > 0, device: d > 0, uniform: h == n || d == n || h + d == 0 }
    }

    /// Heap bytes, boxes, form and counts.
    pub(crate) fn info(&self) -> MapInfo {
        let (bytes, boxes, bitmap) = match &self.repr {
            Repr::Boxes(bx) => (bx.bytes(), bx.list.len(), false),
            Repr::Bits(bits) => (bits.bytes(), 0, true),
        };
        MapInfo { bytes, boxes, bitmap, host_newer: self.count(Cell::Host), device_newer: self.count(Cell::Device) }
    }

    /// The map after a resize to `mapping` (same rank): each element both
    /// shapes hold keeps its state; the new elements are `fill`.
    pub(crate) fn resized(&self, mapping: &Mapping, fill: Cell) -> Result<Map> {
        let order = Order::of(mapping);
        let new_ext = *mapping.extents();
        let mut out = Map { order, repr: Repr::Boxes(Boxes::uniform(fill)) };
        let kept = self.whole().clip(&new_ext);
        match &self.repr {
            Repr::Boxes(bx) => {
                // The kept region in the old base, then the old boxes clipped.
                let mut parts: Vec<(IndexBox, Cell)> = vec![(kept, bx.base)];
                parts.extend(bx.list.iter().map(|(x, c)| (x.clip(&new_ext), *c)).filter(|(x, _)| !x.is_empty()));
                out.apply(parts.into_iter().map(|(x, c)| (x, Op::Assign(c))).collect())?;
            }
            Repr::Bits(bits) => {
                let mut nb = Bits::try_new(&order, fill)?;
                if !kept.is_empty() {
                    self.copy_rows(bits, &mut nb, &order, &kept);
                }
                out.repr = Repr::Bits(nb);
                out.collapse();
            }
        }
        Ok(out)
    }

    /// Copy the states of `kept` from `bits` (this map's order) into `nb`
    /// (`order`): a prefix when the old elements keep their linear indices
    /// (the slowest axis grew), else row by row along the fastest axis.
    fn copy_rows(&self, bits: &Bits, nb: &mut Bits, order: &Order, kept: &IndexBox) {
        let old_whole = self.whole();
        if kept == &old_whole && self.order.is_prefix_of(order) {
            nb.assign(0, self.n(), Cell::Clean);
            for cell in [Cell::Host, Cell::Device] {
                bits.runs(0, self.n(), cell, cell, 0, |s, t| nb.assign(s, t, cell));
            }
            return;
        }
        if self.order.rank() == 0 {
            nb.assign(0, 1, bits.get(0));
            return;
        }
        // Rows along the fastest axis of both orders: a run of linear indices in each. When
        // the resize changed which axis is fastest (one of extent 1 grew), element by element.
        let fast = self.order.fastest();
        let (lo, hi) = (kept.lo(), kept.hi());
        let mut row_hi = hi.to_vec();
        let len = if order.fastest() == fast { hi[fast] - lo[fast] } else { 1 };
        row_hi[fast] = lo[fast] + if len == 1 { hi[fast] - lo[fast] } else { 1 };
        let rows = IndexBox::new(lo, &row_hi);
        let mut idx = lo.to_vec();
        let total = rows.len();
        for _ in 0..total {
            let (oa, na) = (self.order.linear(&idx), order.linear(&idx));
            nb.assign(na, na + len, Cell::Clean);
            for cell in [Cell::Host, Cell::Device] {
                bits.runs(oa, oa + len, cell, cell, 0, |s, t| nb.assign(na + (s - oa), na + (t - oa), cell));
            }
            // Next row start: odometer over the axes other than `fast` (all of them, element by element).
            for k in (0..idx.len()).rev() {
                if k == fast && len > 1 {
                    continue;
                }
                idx[k] += 1;
                if idx[k] < hi[k] {
                    break;
                }
                idx[k] = lo[k];
            }
        }
    }
}

#[cfg(test)]
mod tests;
