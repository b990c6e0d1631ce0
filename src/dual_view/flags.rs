//! The modified flags, one atomic shared by every clone and subview.
//!
//! Kokkos keeps two counters and only ever compares them; in every reachable
//! state at most one is non-zero. We store that state directly:
//!
//! | state | Kokkos counters | `need_sync(host)` | `need_sync(device)` |
//! | --- | --- | --- | --- |
//! | `CLEAN` | `[0, 0]` | false | false |
//! | `HOST_NEWER` | `[n, 0]` | false | true |
//! | `DEVICE_NEWER` | `[0, n]` | true | false |
//! | `ONE_SPACE` | (no flags: one memory) | false | false |
//!
//! `ONE_SPACE` is fixed for a single-space DualView, so its modify and sync
//! take the same one-load fast path and never change anything.
//!
//! The transitions are pure functions ([`modify_next`]), tested exhaustively.

use crate::error::Side;
use std::sync::atomic::{AtomicU8, Ordering};

pub(crate) const CLEAN: u8 = 0;
pub(crate) const HOST_NEWER: u8 = 1;
pub(crate) const DEVICE_NEWER: u8 = 2;
pub(crate) const ONE_SPACE: u8 = 3;

/// The state in which `side` holds changes the other side lacks.
pub(crate) const fn newer(side: Side) -> u8 {
    match side {
        Side::Host => HOST_NEWER,
        Side::Device => DEVICE_NEWER,
    }
}

/// The state after `modify(side)`, or `None` when the other side is newer
/// (the concurrent modification Kokkos aborts on).
pub(crate) const fn modify_next(state: u8, side: Side) -> Option<u8> {
    if state == ONE_SPACE {
        Some(ONE_SPACE)
    } else if state == CLEAN || state == newer(side) {
        Some(newer(side))
    } else {
        None
    }
}

/// Whether `side` is stale in `state` (the other side is newer).
pub(crate) const fn is_stale(state: u8, side: Side) -> bool {
    state == newer(side.other())
}

/// One shared, atomic flag word.
#[derive(Debug, Default)]
pub(crate) struct Flags(AtomicU8);

impl Flags {
    /// Flags of a new DualView: clean, or fixed at `ONE_SPACE`.
    pub(crate) fn new(one_space: bool) -> Flags {
        Flags(AtomicU8::new(if one_space { ONE_SPACE } else { CLEAN }))
    }

    /// Whether `modify(side)` would change nothing: the one-load fast path.
    #[inline(always)]
    pub(crate) fn is_modified_already(&self, side: Side) -> bool {
        let s = self.load();
        s == newer(side) || s == ONE_SPACE
    }

    pub(crate) fn load(&self) -> u8 {
        self.0.load(Ordering::Acquire)
    }

    /// Mark `side` modified; `Err(())` when the other side is newer (nothing changes).
    #[inline]
    pub(crate) fn modify(&self, side: Side) -> Result<(), ()> {
        let mut cur = self.load();
        loop {
            let next = modify_next(cur, side).ok_or(())?;
            if next == cur {
                return Ok(());
            }
            match self.0.compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(()),
                Err(now) => cur = now,
            }
        }
    }

    /// Whether `side` needs a sync.
    #[inline(always)]
    pub(crate) fn is_stale(&self, side: Side) -> bool {
        is_stale(self.load(), side)
    }

    /// Set the state (sync done, clear_sync_state, realloc, write-only access);
    /// a one-space DualView stays `ONE_SPACE`.
    pub(crate) fn store(&self, state: u8) {
        if self.load() != ONE_SPACE {
            self.0.store(state, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions_are_exhaustive() {
        for (state, side, next) in [
            (CLEAN, Side::Host, Some(HOST_NEWER)),
            (CLEAN, Side::Device, Some(DEVICE_NEWER)),
            (HOST_NEWER, Side::Host, Some(HOST_NEWER)),
            (HOST_NEWER, Side::Device, None),
            (DEVICE_NEWER, Side::Device, Some(DEVICE_NEWER)),
            (DEVICE_NEWER, Side::Host, None),
            (ONE_SPACE, Side::Host, Some(ONE_SPACE)),
            (ONE_SPACE, Side::Device, Some(ONE_SPACE)),
        ] {
            assert_eq!(modify_next(state, side), next, "{state} {side}");
        }
        assert!(!is_stale(CLEAN, Side::Host) && !is_stale(CLEAN, Side::Device));
        assert!(is_stale(HOST_NEWER, Side::Device) && !is_stale(HOST_NEWER, Side::Host));
        assert!(is_stale(DEVICE_NEWER, Side::Host) && !is_stale(DEVICE_NEWER, Side::Device));
        assert!(!is_stale(ONE_SPACE, Side::Host) && !is_stale(ONE_SPACE, Side::Device));
        let one = Flags::new(true);
        one.store(HOST_NEWER);
        assert_eq!(one.load(), ONE_SPACE);
    }

    #[test]
    fn failed_modify_changes_nothing() {
        let f = Flags::default();
        f.modify(Side::Host).unwrap();
        assert!(f.modify(Side::Device).is_err());
        assert_eq!(f.load(), HOST_NEWER);
    }
}
