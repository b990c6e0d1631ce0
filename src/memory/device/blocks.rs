//! Small device blocks kept for reuse (DECISIONS G20). A block of at most
//! [`SMALL_MAX`] bytes is allocated at its size class (a power of two from
//! [`SMALLEST`]); freed, it is kept here, up to [`KEPT_MAX`] bytes per
//! device, and the next allocation of its class takes it back without a
//! driver call. The CUDA driver maps and unmaps a whole page for a small
//! block when no other small block is live: a create and destroy of a
//! 64-byte DualView took 88 us on the H200 that way, against 23 us in Kokkos
//! (whose runtime keeps small scratch blocks of its own alive).
//!
//! A block of at most [`SLOT_MAX`] bytes is a slot of a slab: one driver
//! allocation of [`SLAB`] bytes carved into slots of one class, so that many
//! small DualViews cost the driver one allocation (and its host-side record)
//! per slab, not one each. A slot goes back to its slab when freed; a slab
//! whose slots are all free is kept ([`IDLE_SLABS`] per class) or given back.
//!
//! A free slot is *clean* (it holds zeros on the device: zeroed, and the device
//! synchronized since) or *dirty* (its last user's bytes). A new slab is zeroed
//! whole, so that its slots are clean; a freed slot is dirty; a zeroed
//! allocation that finds only dirty slots zeroes them together (up to
//! [`RUNS_MAX`] runs of adjacent slots, one memset each, one synchronize), so
//! that the next ones take clean slots with no driver call.
//!
//! | block | from | freed |
//! | --- | --- | --- |
//! | up to [`SLOT_MAX`] | a free slot of its class (clean when zeroed, else dirty first), else a new slab | back to its slab, dirty; an idle slab past [`IDLE_SLABS`] to the driver |
//! | up to [`SMALL_MAX`] | a kept block of its class, else the driver | kept up to [`KEPT_MAX`], else to the driver |
//! | larger | the driver | to the driver |

use crate::memory::Block;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// The largest block kept.
pub(super) const SMALL_MAX: usize = 64 << 10;
/// The smallest size class.
const SMALLEST: usize = 256;
/// Bytes kept per device at most.
pub(super) const KEPT_MAX: usize = 16 << 20;
/// Size classes: SMALLEST, 2 SMALLEST, ..., SMALL_MAX.
const CLASSES: usize = (SMALL_MAX / SMALLEST).trailing_zeros() as usize + 1;
/// The largest slot.
pub(super) const SLOT_MAX: usize = 4 << 10;
/// The bytes of a slab.
pub(super) const SLAB: usize = 64 << 10;
/// Slabs with every slot free that a device keeps per class.
const IDLE_SLABS: usize = 1;
/// The most runs of dirty slots one zeroing takes (a memset each).
pub(super) const RUNS_MAX: usize = 64;

/// Whether a block of `size` (a [`size_of`] value) is a slot of a slab.
pub(super) const fn is_slot_size(size: usize) -> bool {
    size <= SLOT_MAX
}

/// One slab: its slot size and how many of its slots are taken.
struct Slab {
    slot: usize,
    taken: usize,
}

/// The bytes a block of `bytes` is allocated with: its class when small (a
/// class size itself included), else `bytes`.
pub(super) fn size_of(bytes: usize) -> usize {
    class(bytes).map_or(bytes, |c| SMALLEST << c)
}

/// The class of a block of `bytes`, when it is small.
fn class(bytes: usize) -> Option<usize> {
    (bytes <= SMALL_MAX).then(|| (bytes.max(SMALLEST).next_power_of_two() / SMALLEST).trailing_zeros() as usize)
}

/// The kept blocks and the slabs of one device.
struct Device {
    ordinal: u32,
    free: [Vec<Block>; CLASSES],
    bytes: usize,
    /// Slabs by base address.
    slabs: BTreeMap<usize, Slab>,
    /// Free slots by class.
    slots: [Free; CLASSES],
}

/// The free slots of one class (addresses): `clean` ones hold zeros on the
/// device, `dirty` ones what their last user left.
#[derive(Default)]
struct Free {
    clean: Vec<usize>,
    dirty: Vec<usize>,
}

/// Dirty slots taken to be zeroed ([`Kept::take_dirty`]): the slots, and the
/// runs of adjacent ones within one slab (address, bytes) that cover them.
pub(super) struct Dirty {
    pub(super) slots: Vec<Block>,
    pub(super) runs: Vec<(usize, usize)>,
}

impl Device {
    fn new(ordinal: u32) -> Device {
        Device { ordinal, free: Default::default(), bytes: 0, slabs: BTreeMap::new(), slots: Default::default() }
    }

    /// The slab holding `addr`: its base.
    fn slab_of(&self, addr: usize) -> Option<usize> {
        self.slabs.range(..=addr).next_back().map(|(&b, _)| b).filter(|&b| addr < b + SLAB)
    }

    /// Slabs of slot size `slot` with every slot free.
    fn idle(&self, slot: usize) -> usize {
        self.slabs.values().filter(|s| s.slot == slot && s.taken == 0).count()
    }

    /// Remove idle slab `base` (its free slots with it): its block, for the driver to free.
    fn remove_slab(&mut self, base: usize) -> Option<Block> {
        let slab = self.slabs.remove(&base)?;
        let c = class(slab.slot)?;
        let outside = |&a: &usize| a < base || a >= base + SLAB;
        self.slots[c].clean.retain(outside);
        self.slots[c].dirty.retain(outside);
        Some(slot_block(base, SLAB))
    }

    /// Slot `addr` back in its slab, clean or dirty: the slab's block when it went
    /// idle past [`IDLE_SLABS`] (removed, for the driver to free).
    fn put(&mut self, addr: usize, clean: bool) -> Option<Block> {
        let base = self.slab_of(addr)?;
        let slab = self.slabs.get_mut(&base)?;
        slab.taken -= 1;
        let (slot, idle) = (slab.slot, slab.taken == 0);
        if let Some(c) = class(slot) {
            let free = &mut self.slots[c];
            if clean { free.clean.push(addr) } else { free.dirty.push(addr) }
        }
        if idle && self.idle(slot) > IDLE_SLABS {
            return self.remove_slab(base);
        }
        None
    }
}

/// The block of `bytes` at `addr`: a slot or a slab this module carved or kept.
fn slot_block(addr: usize, bytes: usize) -> Block {
    super::raw::slab_part(addr, bytes)
}

/// The runs of adjacent slots of `size` within one slab (`slab`: the base of an
/// address's slab) that cover `addrs` (ascending) from the first, at most `max`
/// of them, and how many of `addrs` they cover.
fn runs(addrs: &[usize], size: usize, slab: impl Fn(usize) -> Option<usize>, max: usize) -> (Vec<(usize, usize)>, usize) {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        let n = out.len();
        match out.last_mut() {
            Some((at, len)) if *at + *len == a && slab(*at) == slab(a) => *len += size,
            _ if n == max => return (out, i),
            _ => out.push((a, size)),
        }
    }
    (out, addrs.len())
}

/// The entry of device `ordinal`, made on first use.
fn device_entry(all: &mut Vec<Device>, ordinal: u32) -> &mut Device {
    let i = match all.iter().position(|d| d.ordinal == ordinal) {
        Some(i) => i,
        None => {
            all.push(Device::new(ordinal));
            all.len() - 1
        }
    };
    &mut all[i]
}

/// Kept blocks by device (few devices: a linear search).
pub(super) struct Kept(Mutex<Vec<Device>>);

impl Kept {
    /// Nothing kept.
    pub(super) const fn new() -> Kept {
        Kept(Mutex::new(Vec::new()))
    }

    /// A kept block of `size` (a [`size_of`] value) on device `ordinal`, if any.
    pub(super) fn take(&self, ordinal: u32, size: usize) -> Option<Block> {
        let c = class(size)?;
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let d = all.iter_mut().find(|d| d.ordinal == ordinal)?;
        let a = d.free[c].pop()?;
        d.bytes -= size;
        Some(a)
    }

    /// Keep `block`, of `size`, on device `ordinal`: back when it is not
    /// small or the device keeps [`KEPT_MAX`] bytes already (then the caller frees it).
    pub(super) fn keep(&self, ordinal: u32, size: usize, block: Block) -> Result<(), Block> {
        let Some(c) = class(size) else { return Err(block) };
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let d = device_entry(&mut all, ordinal);
        if d.bytes + size > KEPT_MAX {
            return Err(block);
        }
        d.free[c].push(block);
        d.bytes += size;
        Ok(())
    }

    /// The bytes kept for device `ordinal` now: kept blocks and idle slabs.
    pub(super) fn bytes(&self, ordinal: u32) -> usize {
        let all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.iter().find(|d| d.ordinal == ordinal).map_or(0, |d| d.bytes + SLAB * d.slabs.values().filter(|s| s.taken == 0).count())
    }

    /// Every block kept for device `ordinal` and every idle slab, now no longer kept.
    pub(super) fn drain(&self, ordinal: u32) -> Vec<Block> {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(d) = all.iter_mut().find(|d| d.ordinal == ordinal) else { return Vec::new() };
        d.bytes = 0;
        let mut out: Vec<Block> = d.free.iter_mut().flat_map(|list| list.drain(..)).collect();
        let idle: Vec<usize> = d.slabs.iter().filter(|(_, s)| s.taken == 0).map(|(&b, _)| b).collect();
        out.extend(idle.into_iter().filter_map(|b| d.remove_slab(b)));
        out
    }

    /// A free slot of `size` (a slot size) on device `ordinal`, if a slab has one,
    /// and whether it is clean: for a `zeroed` block a clean one first, else a dirty one first.
    pub(super) fn take_slot(&self, ordinal: u32, size: usize, zeroed: bool) -> Option<(Block, bool)> {
        let c = class(size)?;
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let d = all.iter_mut().find(|d| d.ordinal == ordinal)?;
        let free = &mut d.slots[c];
        let (addr, clean) = match (zeroed, free.clean.pop()) {
            (true, Some(a)) => (a, true),
            (_, c) => match free.dirty.pop() {
                Some(a) => {
                    free.clean.extend(c); // not taken: back where it was
                    (a, false)
                }
                None => (c?, true),
            },
        };
        let base = d.slab_of(addr)?;
        d.slabs.get_mut(&base)?.taken += 1;
        Some((slot_block(addr, size), clean))
    }

    /// The dirty slots of `first`'s class on device `ordinal`, taken with
    /// `first` (a dirty slot taken already) to be zeroed: `first` and those of at
    /// most [`RUNS_MAX`] - 1 more runs, lowest addresses first. The caller zeroes the
    /// runs and gives the slots back with [`Kept::give_clean`] (or [`Kept::give_slot`]).
    pub(super) fn take_dirty(&self, ordinal: u32, first: Block) -> Dirty {
        let size = first.bytes();
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut addrs = vec![first.addr()]; // `first` is a token: made again below, with the others
        let d = all.iter_mut().find(|d| d.ordinal == ordinal);
        if let (Some(d), Some(c)) = (d, class(size)) {
            let mut others = std::mem::take(&mut d.slots[c].dirty);
            others.sort_unstable();
            let (_, cut) = runs(&others, size, |a| d.slab_of(a), RUNS_MAX - 1);
            d.slots[c].dirty = others.split_off(cut); // past the last run: still dirty, not taken
            for &a in &others {
                if let Some(s) = d.slab_of(a).and_then(|b| d.slabs.get_mut(&b)) {
                    s.taken += 1;
                }
            }
            addrs.append(&mut others);
            addrs.sort_unstable();
            // At most RUNS_MAX - 1 runs before `first`, which adds one at most: none is cut.
            let (runs, covered) = runs(&addrs, size, |a| d.slab_of(a), RUNS_MAX);
            debug_assert_eq!(covered, addrs.len());
            return Dirty { slots: addrs.into_iter().map(|a| slot_block(a, size)).collect(), runs };
        }
        Dirty { runs: vec![(addrs[0], size)], slots: vec![slot_block(addrs[0], size)] }
    }

    /// Give slots from [`Kept::take_dirty`], now zeroed and synchronized, back clean:
    /// the slabs that went idle past [`IDLE_SLABS`] (the caller frees them).
    pub(super) fn give_clean(&self, ordinal: u32, slots: Vec<Block>) -> Vec<Block> {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(d) = all.iter_mut().find(|d| d.ordinal == ordinal) else { return Vec::new() };
        slots
            .into_iter()
            .filter_map(|b| d.put(b.addr(), true)) // `b` is a token: its address goes back into its slab
            .collect()
    }

    /// Carve `slab` (a fresh driver block of [`SLAB`] bytes) into slots of
    /// `size` on device `ordinal`, clean when the slab was zeroed: its first slot, taken.
    pub(super) fn add_slab(&self, ordinal: u32, size: usize, slab: Block, zeroed: bool) -> Block {
        let base = slab.addr(); // from now on the slab's record: `remove_slab` makes its block again
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let d = device_entry(&mut all, ordinal);
        let c = class(size).unwrap_or(0);
        d.slabs.insert(base, Slab { slot: size, taken: 1 });
        // Popped from the end: the lowest address goes first.
        let free = &mut d.slots[c];
        let list = if zeroed { &mut free.clean } else { &mut free.dirty };
        list.extend((1..SLAB / size).rev().map(|k| base + k * size));
        slot_block(base, size)
    }

    /// Give `block` back to its slab on device `ordinal`, dirty: `Err(block)` when it
    /// is not a slot; `Ok(Some(slab))` when its slab went idle past
    /// [`IDLE_SLABS`] (the caller frees that block with the driver).
    pub(super) fn give_slot(&self, ordinal: u32, block: Block) -> Result<Option<Block>, Block> {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(d) = all.iter_mut().find(|d| d.ordinal == ordinal) else { return Err(block) };
        if d.slab_of(block.addr()).is_none() {
            return Err(block);
        }
        Ok(d.put(block.addr(), false)) // `block` is a token: its address goes back into its slab
    }

    /// Whether `addr` lies in a slab of device `ordinal`.
    pub(super) fn is_slot(&self, ordinal: u32, addr: usize) -> bool {
        let all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.iter().find(|d| d.ordinal == ordinal).is_some_and(|d| d.slab_of(addr).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_powers_of_two_from_256_up_to_64_kib() {
        assert_eq!(CLASSES, 9);
        for (bytes, size) in [(1, 256), (64, 256), (256, 256), (257, 512), (4096, 4096), (4097, 8192), (65536, 65536), (65537, 65537), (1 << 30, 1 << 30)] {
            assert_eq!(size_of(bytes), size, "{bytes} bytes");
        }
    }

    /// A token for a block at `addr` that nobody frees (the bookkeeping only).
    fn block(addr: usize, size: usize) -> Block {
        Block::for_test(addr, size)
    }

    #[test]
    fn a_kept_block_comes_back_for_its_class_and_device_only() {
        let k = Kept::new();
        assert!(k.keep(3, 256, block(0x1000, 256)).is_ok());
        assert!(k.take(3, 512).is_none());
        assert!(k.take(4, 256).is_none());
        assert_eq!(k.take(3, 256).map(|b| b.addr()), Some(0x1000));
        assert!(k.take(3, 256).is_none());
        let big = size_of(SMALL_MAX + 1);
        assert_eq!(k.keep(3, big, block(0x2000, big)).map_err(|b| b.addr()), Err(0x2000), "large blocks go back to the driver");
    }

    #[test]
    fn a_device_keeps_at_most_kept_max_bytes_and_drains_them_all() {
        let k = Kept::new();
        let n = KEPT_MAX / SMALL_MAX;
        for i in 0..n {
            assert!(k.keep(0, SMALL_MAX, block(0x10000 * (i + 1), SMALL_MAX)).is_ok());
        }
        assert!(k.keep(0, SMALL_MAX, block(0xdead0000, SMALL_MAX)).is_err(), "over the cap: freed instead");
        assert!(k.keep(1, SMALL_MAX, block(0xbeef0000, SMALL_MAX)).is_ok(), "another device has its own cap");
        let drained = k.drain(0);
        assert_eq!(drained.len(), n);
        assert!(drained.iter().all(|b| b.bytes() == SMALL_MAX));
        assert!(k.keep(0, SMALL_MAX, block(0x10000, SMALL_MAX)).is_ok(), "room again after the drain");
    }

    #[test]
    fn slots_are_carved_from_slabs_given_back_and_idle_slabs_past_one_go_to_the_driver() {
        let k = Kept::new();
        let (a, b) = (0x100_0000, 0x200_0000); // two slabs' addresses, as a driver would give
        assert!(k.take_slot(5, 256, true).is_none(), "no slab yet");
        let first = k.add_slab(5, 256, block(a, SLAB), true);
        assert_eq!((first.addr(), first.bytes()), (a, 256));
        let taken: Vec<Block> = (1..SLAB / 256).map(|_| k.take_slot(5, 256, true).expect("a free slot").0).collect();
        let mut addrs: Vec<usize> = taken.iter().map(Block::addr).collect();
        addrs.sort();
        assert_eq!(addrs, (1..SLAB / 256).map(|i| a + i * 256).collect::<Vec<_>>(), "every slot once, lowest first");
        assert!(k.take_slot(5, 256, false).is_none(), "the slab is full");
        assert!(k.take_slot(5, 512, true).is_none() && k.take_slot(6, 256, true).is_none(), "another class or device has none");
        assert!(k.is_slot(5, a + 300) && !k.is_slot(5, a + SLAB) && !k.is_slot(6, a));
        // A second slab; then every slot of both back: one idle slab is kept, the other goes.
        let second = k.add_slab(5, 256, block(b, SLAB), false);
        let mut freed = Vec::new();
        for s in taken.into_iter().chain([first, second]) {
            if let Some(slab) = k.give_slot(5, s).expect("a slot") {
                freed.push((slab.addr(), slab.bytes()));
            }
        }
        assert_eq!(freed.len(), 1, "one slab went back to the driver: {freed:?}");
        assert_eq!(freed[0].1, SLAB);
        assert_eq!(k.bytes(5), SLAB, "the idle slab kept counts as kept");
        let kept_at = if freed[0].0 == a { b } else { a };
        assert_eq!(k.take_slot(5, 256, true).map(|s| s.0.addr() & !(SLAB - 1)), Some(kept_at), "the kept slab serves the next slot");
        assert_eq!(k.give_slot(5, block(0x900_0000, 256)).map_err(|b| b.addr()).err(), Some(0x900_0000), "not a slot: the caller frees it");
        let drained = k.drain(5);
        assert!(drained.is_empty(), "a slab with a slot taken is not drained");
    }

    /// Clean slots serve zeroed blocks first, dirty ones the others; freed slots are dirty;
    /// dirty ones are taken for zeroing in runs of adjacent slots within one slab, at most
    /// [`RUNS_MAX`], and given back clean.
    #[test]
    fn clean_slots_serve_zeroed_blocks_and_dirty_ones_are_zeroed_in_runs() {
        let k = Kept::new();
        let (a, b) = (0x100_0000, 0x100_0000 + SLAB); // two slabs, adjacent addresses
        let first = k.add_slab(2, 256, block(a, SLAB), true);
        let mut taken: Vec<Block> = (1..SLAB / 256).map(|_| k.take_slot(2, 256, true).expect("a slot")).map(|(s, clean)| {
            assert!(clean, "a zeroed slab's slots are clean");
            s
        }).collect();
        taken.insert(0, first);
        let last = k.add_slab(2, 256, block(b, SLAB), false);
        let (s, clean) = k.take_slot(2, 256, false).expect("a dirty slot of the unzeroed slab");
        assert!(!clean && s.addr() == b + 256);
        // Free the odd slots of the first slab's first 160: 80 dirty slots, none adjacent.
        let (odd, even): (Vec<Block>, Vec<Block>) = taken.into_iter().partition(|s| {
            let i = (s.addr() - a) / 256;
            i % 2 == 1 && i < 160
        });
        for s in odd {
            assert!(k.give_slot(2, s).expect("a slot").is_none());
        }
        let (t, clean) = k.take_slot(2, 256, true).expect("a dirty slot, none being clean");
        assert!(!clean);
        let d = k.take_dirty(2, t);
        // The first slab's freed slots are single runs: the one taken and the 63 lowest, the
        // rest (16 more, and the unzeroed slab's 254 free slots) past the cut.
        assert_eq!(d.runs.len(), RUNS_MAX);
        assert_eq!(d.slots.len(), RUNS_MAX, "single slots only below the cut: {:?}", &d.runs[..3]);
        assert!(d.runs.iter().all(|&(at, len)| len == 256 && at < b), "{:?}", &d.runs[RUNS_MAX - 3..]);
        let zeroed: Vec<usize> = d.slots.iter().map(Block::addr).collect();
        assert!(k.give_clean(2, d.slots).is_empty());
        for at in zeroed {
            let (s, clean) = k.take_slot(2, 256, true).expect("a clean slot");
            assert!(clean && (a..b).contains(&s.addr()), "{:#x} after {at:#x}", s.addr());
        }
        // What was past the cut is still dirty: the next zeroing takes the rest, the runs
        // broken where the slabs meet.
        let (t, _) = k.take_slot(2, 256, true).expect("a dirty slot");
        let d = k.take_dirty(2, t);
        let (lo, hi): (Vec<_>, Vec<_>) = d.runs.iter().partition(|&&(at, _)| at < b);
        assert_eq!(hi, vec![&(b + 512, SLAB - 512)], "the unzeroed slab's free slots: one run within it");
        assert_eq!(lo.len(), 16);
        assert!(lo.iter().all(|&&(at, len)| len == 256 && at >= a), "{lo:?}");
        assert_eq!(d.slots.len(), lo.len() + (SLAB - 512) / 256);
        drop((even, last, s));
    }
}
