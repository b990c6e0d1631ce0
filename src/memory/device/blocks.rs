//! Small device blocks kept for reuse (DECISIONS G20). A block of at most
//! [`SMALL_MAX`] bytes is allocated at its size class (a power of two from
//! [`SMALLEST`]); freed, it is kept here, up to [`KEPT_MAX`] bytes per
//! device, and the next allocation of its class takes it back without a
//! driver call. The CUDA driver maps and unmaps a whole page for a small
//! block when no other small block is live: a create and destroy of a
//! 64-byte DualView took 88 us on the H200 that way, against 23 us in Kokkos
//! (whose runtime keeps small scratch blocks of its own alive).

use crate::memory::Block;
use std::sync::Mutex;

/// The largest block kept.
pub(super) const SMALL_MAX: usize = 64 << 10;
/// The smallest size class.
const SMALLEST: usize = 256;
/// Bytes kept per device at most.
pub(super) const KEPT_MAX: usize = 16 << 20;
/// Size classes: SMALLEST, 2 SMALLEST, ..., SMALL_MAX.
const CLASSES: usize = (SMALL_MAX / SMALLEST).trailing_zeros() as usize + 1;

/// The bytes a block of `bytes` is allocated with: its class when small (a
/// class size itself included), else `bytes`.
pub(super) fn size_of(bytes: usize) -> usize {
    class(bytes).map_or(bytes, |c| SMALLEST << c)
}

/// The class of a block of `bytes`, when it is small.
fn class(bytes: usize) -> Option<usize> {
    (bytes <= SMALL_MAX).then(|| (bytes.max(SMALLEST).next_power_of_two() / SMALLEST).trailing_zeros() as usize)
}

/// The kept blocks of one device.
struct Device {
    ordinal: u32,
    free: [Vec<Block>; CLASSES],
    bytes: usize,
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
        let i = match all.iter().position(|d| d.ordinal == ordinal) {
            Some(i) => i,
            None => {
                all.push(Device { ordinal, free: Default::default(), bytes: 0 });
                all.len() - 1
            }
        };
        let d = &mut all[i];
        if d.bytes + size > KEPT_MAX {
            return Err(block);
        }
        d.free[c].push(block);
        d.bytes += size;
        Ok(())
    }

    /// The bytes kept for device `ordinal` now.
    pub(super) fn bytes(&self, ordinal: u32) -> usize {
        let all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        all.iter().find(|d| d.ordinal == ordinal).map_or(0, |d| d.bytes)
    }

    /// Every block kept for device `ordinal`, now no longer kept.
    pub(super) fn drain(&self, ordinal: u32) -> Vec<Block> {
        let mut all = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(d) = all.iter_mut().find(|d| d.ordinal == ordinal) else { return Vec::new() };
        d.bytes = 0;
        d.free.iter_mut().flat_map(|list| list.drain(..)).collect()
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
}
