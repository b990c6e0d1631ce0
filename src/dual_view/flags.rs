//! The modified flags: one atomic byte shared by every clone and subview.
//!
//! Kokkos keeps two counters and only ever compares them; in every reachable
//! state at most one is non-zero. We store that state directly, plus whether
//! the newer side's changes are confined to recorded regions (`PARTIAL`, see
//! `regions.rs`) and whether those regions are the rest a subview sync left
//! (`REST`). The values are ABI (`DV_SYNC_*`): the C++ header reads this byte
//! inline for its fast paths.
//!
//! | state | Kokkos counters | `need_sync(host)` | `need_sync(device)` | `modify(host)` | `modify(device)` |
//! | --- | --- | --- | --- | --- | --- |
//! | `CLEAN` | `[0, 0]` | false | false | ok | ok |
//! | `HOST_NEWER` (`\| PARTIAL`) | `[n, 0]` | false | true | ok | error |
//! | `HOST_NEWER \| PARTIAL \| REST` | `[0, 0]` (Kokkos forgot the rest) | false | true | ok | releases the rest, then ok |
//! | `DEVICE_NEWER` (`\| PARTIAL`) | `[0, n]` | true | false | error | ok |
//! | `DEVICE_NEWER \| PARTIAL \| REST` | `[0, 0]` | true | false | releases the rest, then ok | ok |
//!
//! Releasing the rest (`sync.rs`): the part outside the modifying handle's
//! box is copied into that side, the part inside is dropped (the side has
//! just written it: Kokkos marks after writing), so a whole-array modify
//! copies nothing, as in Kokkos.
//! | `ONE_SPACE` | (no flags: one memory) | false | false | nothing | nothing |
//!
//! `ONE_SPACE` is fixed for a single-space DualView, so its modify and sync
//! take the same one-load fast path and never change anything.
//! The transitions are pure functions ([`modify_next`]), tested exhaustively.

use crate::abi::{DV_SYNC_CLEAN, DV_SYNC_DEVICE_NEWER, DV_SYNC_HOST_NEWER, DV_SYNC_ONE_SPACE, DV_SYNC_PARTIAL, DV_SYNC_REST};
use crate::side::Side;
use std::sync::atomic::{AtomicU8, Ordering};

pub(crate) const CLEAN: u8 = DV_SYNC_CLEAN;
pub(crate) const HOST_NEWER: u8 = DV_SYNC_HOST_NEWER;
pub(crate) const DEVICE_NEWER: u8 = DV_SYNC_DEVICE_NEWER;
pub(crate) const ONE_SPACE: u8 = DV_SYNC_ONE_SPACE;
pub(crate) const PARTIAL: u8 = DV_SYNC_PARTIAL;
pub(crate) const REST: u8 = DV_SYNC_REST;
/// The bits naming the newer side.
const SIDE_BITS: u8 = HOST_NEWER | DEVICE_NEWER;

/// The state in which `side` holds changes the other side lacks (everywhere).
pub(crate) const fn newer(side: Side) -> u8 {
    match side {
        Side::Host => HOST_NEWER,
        Side::Device => DEVICE_NEWER,
    }
}

/// Whether the changes of `state` are confined to recorded regions.
pub(crate) const fn is_partial(state: u8) -> bool {
    state & PARTIAL != 0
}

/// Why a modify cannot be a pure flag change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// The other side holds changes (Kokkos aborts): an error.
    Conflict,
    /// The other side holds the rest of a partly synced change: release it first.
    Rest,
}

/// The state after `modify(side)` of the whole array (`whole`) or of a
/// subview region, or why it cannot change by itself.
pub(crate) const fn modify_next(state: u8, side: Side, whole: bool) -> Result<u8, Blocked> {
    let base = state & SIDE_BITS;
    if state == ONE_SPACE {
        Ok(ONE_SPACE)
    } else if state == newer(side) {
        Ok(state) // already newer everywhere
    } else if base == CLEAN || base == newer(side) {
        Ok(if whole { newer(side) } else { newer(side) | PARTIAL })
    } else if state & REST != 0 {
        Err(Blocked::Rest)
    } else {
        Err(Blocked::Conflict)
    }
}

/// Whether `side` is stale in `state` (the other side holds changes).
pub(crate) const fn is_stale(state: u8, side: Side) -> bool {
    state != ONE_SPACE && state & SIDE_BITS == newer(side.other())
}

/// One shared, atomic flag word.
#[derive(Debug, Default)]
pub(crate) struct Flags(AtomicU8);

impl Flags {
    /// Flags of a new DualView: clean, or fixed at `ONE_SPACE`.
    pub(crate) fn new(one_space: bool) -> Flags {
        Flags(AtomicU8::new(if one_space { ONE_SPACE } else { CLEAN }))
    }

    /// Whether a whole-array `modify(side)` would change nothing: the one-load fast path.
    #[inline(always)]
    pub(crate) fn is_modified_already(&self, side: Side) -> bool {
        let s = self.load();
        s == newer(side) || s == ONE_SPACE
    }

    #[inline(always)]
    pub(crate) fn load(&self) -> u8 {
        self.0.load(Ordering::Acquire)
    }

    /// The address of the word (for `dv_sync_state_word`).
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }

    /// Apply `modify(side)`; `Err` when it cannot be a flag change (nothing
    /// changes). Returns the state it replaced.
    #[inline]
    pub(crate) fn modify(&self, side: Side, whole: bool) -> Result<u8, Blocked> {
        let mut cur = self.load();
        loop {
            let next = modify_next(cur, side, whole)?;
            if next == cur {
                return Ok(cur);
            }
            match self.0.compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(cur),
                Err(now) => cur = now,
            }
        }
    }

    /// Whether `side` needs a sync.
    #[inline(always)]
    pub(crate) fn is_stale(&self, side: Side) -> bool {
        is_stale(self.load(), side)
    }

    /// Set the state (clear_sync_state, realloc, write-only access); a
    /// one-space DualView stays `ONE_SPACE`.
    pub(crate) fn store(&self, state: u8) {
        if self.load() != ONE_SPACE {
            self.0.store(state, Ordering::Release);
        }
    }

    /// Replace `from` by `to`; false when the state moved meanwhile (another
    /// thread marked a side during a copy: its change must not be cleared).
    pub(crate) fn replace(&self, from: u8, to: u8) -> bool {
        from == ONE_SPACE || self.0.compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u8 = HOST_NEWER;
    const D: u8 = DEVICE_NEWER;
    const HP: u8 = HOST_NEWER | PARTIAL;
    const DP: u8 = DEVICE_NEWER | PARTIAL;
    const HR: u8 = HOST_NEWER | PARTIAL | REST;
    const DR: u8 = DEVICE_NEWER | PARTIAL | REST;

    #[test]
    fn transitions_are_exhaustive() {
        use Blocked::{Conflict, Rest};
        use Side::{Device as Dv, Host as Hs};
        for (state, side, whole, next) in [
            (CLEAN, Hs, true, Ok(H)),
            (CLEAN, Hs, false, Ok(HP)),
            (CLEAN, Dv, true, Ok(D)),
            (CLEAN, Dv, false, Ok(DP)),
            (H, Hs, true, Ok(H)),
            (H, Hs, false, Ok(H)),
            (HP, Hs, false, Ok(HP)),
            (HP, Hs, true, Ok(H)),
            (HR, Hs, false, Ok(HP)),
            (HR, Hs, true, Ok(H)),
            (H, Dv, true, Err(Conflict)),
            (HP, Dv, false, Err(Conflict)),
            (HR, Dv, true, Err(Rest)),
            (HR, Dv, false, Err(Rest)),
            (D, Dv, true, Ok(D)),
            (D, Dv, false, Ok(D)),
            (DP, Dv, false, Ok(DP)),
            (DP, Dv, true, Ok(D)),
            (DR, Dv, false, Ok(DP)),
            (DR, Dv, true, Ok(D)),
            (D, Hs, true, Err(Conflict)),
            (DP, Hs, false, Err(Conflict)),
            (DR, Hs, true, Err(Rest)),
            (DR, Hs, false, Err(Rest)),
            (ONE_SPACE, Hs, true, Ok(ONE_SPACE)),
            (ONE_SPACE, Dv, false, Ok(ONE_SPACE)),
        ] {
            assert_eq!(modify_next(state, side, whole), next, "{state} {side} {whole}");
        }
        for (state, host_stale, device_stale) in [
            (CLEAN, false, false),
            (H, false, true),
            (HP, false, true),
            (HR, false, true),
            (D, true, false),
            (DP, true, false),
            (DR, true, false),
            (ONE_SPACE, false, false),
        ] {
            assert_eq!(is_stale(state, Side::Host), host_stale, "{state}");
            assert_eq!(is_stale(state, Side::Device), device_stale, "{state}");
        }
        let one = Flags::new(true);
        one.store(H);
        assert_eq!(one.load(), ONE_SPACE);
    }

    #[test]
    fn failed_modify_and_moved_state_change_nothing() {
        let f = Flags::default();
        f.modify(Side::Host, true).unwrap();
        assert_eq!(f.modify(Side::Device, false), Err(Blocked::Conflict));
        assert_eq!(f.load(), H);
        assert!(!f.replace(HP, CLEAN));
        assert_eq!(f.load(), H);
        assert!(f.replace(H, CLEAN));
        assert_eq!(f.load(), CLEAN);
        f.store(DR);
        assert_eq!(f.modify(Side::Host, true), Err(Blocked::Rest));
        assert_eq!(f.load(), DR);
    }
}
