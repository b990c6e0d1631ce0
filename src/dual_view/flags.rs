//! The flag word: one atomic byte shared by every clone and subview.
//!
//! It holds Kokkos' two modified counters (only whether each is non-zero is
//! ever observable: `modify` sets one to max + 1 and refuses when the other
//! is non-zero, a sync that finds the other newer sets both to 0) and a
//! summary of the coherence map (`coherence/`): whether some element is
//! newer on the host, on the device, and whether the elements are all in
//! one state. The map itself (which elements) lives in the family's state,
//! read under its lock; the byte says enough for the whole-array fast paths.
//! `IN_FLIGHT` says copies queued on a stream may still run (orthogonal:
//! every transition keeps it; `dual_view/in_flight.rs` sets and clears it).
//! The values are ABI (`DV_SYNC_*`): the C++ header reads this byte inline.
//!
//! | bits | meaning |
//! | --- | --- |
//! | `HOST_MODIFIED`, `DEVICE_MODIFIED` | Kokkos' counter of that side is non-zero (never both) |
//! | `HOST_NEWER`, `DEVICE_NEWER` | some element is newer on that side |
//! | `PARTIAL` | not every element is in one state (only set under the family lock) |
//! | `IN_FLIGHT` | copies queued on a stream may still run |
//! | `ONE_SPACE` (the whole byte) | one memory: modify and sync do nothing, for good |
//!
//! | whole-array call | lock-free when | the byte afterwards |
//! | --- | --- | --- |
//! | `modify(side)` | the other counter is zero (else `ConcurrentModification`) and no element is newer on the other side (else the library drops them, traced and checked) | `MODIFIED(side) \| NEWER(side)` |
//! | `sync(side)` | nothing is newer on the other side and its counter is zero: nothing to do | unchanged |
//! | `need_sync(side)` | always | the other counter, or some element newer on the other side |
//! | `clear_sync_state` | always | `CLEAN` |
//!
//! Lock-free calls only ever store a uniform state (no `PARTIAL`), which
//! replaces the whole map; a call under the lock that finds the byte moved
//! meanwhile sees such a state. The transitions are pure functions
//! ([`modify_next`], [`is_stale`], [`modify_is_noop`], [`store_next`]), and
//! the C++ header restates them (DECISIONS D22) through the `static inline`
//! C functions `dv_sync_state_*` of `include/dualview.h`, written here
//! ([`c_functions`]) and compared with these rules on every byte
//! (`tests::the_c_header_functions_agree_on_every_byte`).

use super::coherence::{Cell, Summary};
use crate::abi::{
    DV_SYNC_CLEAN, DV_SYNC_DEVICE_MODIFIED, DV_SYNC_DEVICE_NEWER, DV_SYNC_HOST_MODIFIED, DV_SYNC_HOST_NEWER, DV_SYNC_IN_FLIGHT,
    DV_SYNC_ONE_SPACE, DV_SYNC_PARTIAL,
};
use crate::side::Side;
use std::sync::atomic::{AtomicU8, Ordering};

pub(crate) const CLEAN: u8 = DV_SYNC_CLEAN;
pub(crate) const HOST_MODIFIED: u8 = DV_SYNC_HOST_MODIFIED;
pub(crate) const DEVICE_MODIFIED: u8 = DV_SYNC_DEVICE_MODIFIED;
pub(crate) const HOST_NEWER: u8 = DV_SYNC_HOST_NEWER;
pub(crate) const DEVICE_NEWER: u8 = DV_SYNC_DEVICE_NEWER;
pub(crate) const PARTIAL: u8 = DV_SYNC_PARTIAL;
pub(crate) const IN_FLIGHT: u8 = DV_SYNC_IN_FLIGHT;
pub(crate) const ONE_SPACE: u8 = DV_SYNC_ONE_SPACE;
/// Kokkos' counters.
pub(crate) const COUNTERS: u8 = HOST_MODIFIED | DEVICE_MODIFIED;
/// The map's summary.
const MAP: u8 = HOST_NEWER | DEVICE_NEWER | PARTIAL;

/// The counter bit of `side`.
pub(crate) const fn modified(side: Side) -> u8 {
    match side {
        Side::Host => HOST_MODIFIED,
        Side::Device => DEVICE_MODIFIED,
    }
}

/// The map bit of `side`: some element is newer there.
pub(crate) const fn newer(side: Side) -> u8 {
    match side {
        Side::Host => HOST_NEWER,
        Side::Device => DEVICE_NEWER,
    }
}

/// The state after a whole-array `modify(side)`: that counter, every element newer there.
pub(crate) const fn whole(side: Side) -> u8 {
    modified(side) | newer(side)
}

/// The one state of every element, when the byte says they share one.
pub(crate) const fn uniform(state: u8) -> Option<Cell> {
    if state & PARTIAL != 0 {
        None
    } else if state & HOST_NEWER != 0 {
        Some(Cell::Host)
    } else if state & DEVICE_NEWER != 0 {
        Some(Cell::Device)
    } else {
        Some(Cell::Clean)
    }
}

/// `state` with its map bits replaced by `summary`'s.
pub(crate) const fn with_map(state: u8, s: Summary) -> u8 {
    let mut bits = 0;
    if s.host {
        bits |= HOST_NEWER;
    }
    if s.device {
        bits |= DEVICE_NEWER;
    }
    if !s.uniform {
        bits |= PARTIAL;
    }
    (state & !MAP) | bits
}

/// Why a whole-array modify cannot be a lock-free flag change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// The other counter is non-zero (Kokkos aborts): an error.
    Conflict,
    /// Elements newer on the other side would be dropped: the library does it.
    Drops,
}

/// The state after a lock-free `modify(side)` of the whole array, or why it cannot be one.
pub(crate) const fn modify_next(state: u8, side: Side) -> Result<u8, Blocked> {
    let other = side.other();
    if state == ONE_SPACE {
        Ok(ONE_SPACE)
    } else if state & modified(other) != 0 {
        Err(Blocked::Conflict)
    } else if state & newer(other) != 0 {
        Err(Blocked::Drops)
    } else {
        Ok(whole(side) | (state & IN_FLIGHT))
    }
}

/// Whether `side` needs a sync by the byte: the other counter, or some
/// element newer on the other side (for a subview, a superset: its box may hold none).
pub(crate) const fn is_stale(state: u8, side: Side) -> bool {
    let other = side.other();
    state != ONE_SPACE && state & (modified(other) | newer(other)) != 0
}

/// Whether a whole-array `modify(side)` changes nothing: that counter is set
/// and every element is newer there already, or the DualView is one space.
pub(crate) const fn modify_is_noop(state: u8, side: Side) -> bool {
    state & !IN_FLIGHT == whole(side) || state == ONE_SPACE
}

/// Whether a blocking `sync(side)` does nothing: `side` not stale by the
/// byte and no queued copy may still run.
pub(crate) const fn sync_is_noop(state: u8, side: Side) -> bool {
    !is_stale(state, side) && state & IN_FLIGHT == 0
}

/// The state after storing `state` over `cur` (clear_sync_state, realloc,
/// an overwrite access): a one-space DualView stays `ONE_SPACE`, and copies
/// in flight stay in flight.
pub(crate) const fn store_next(cur: u8, state: u8) -> u8 {
    if cur == ONE_SPACE { ONE_SPACE } else { state | (cur & IN_FLIGHT) }
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
        modify_is_noop(self.load(), side)
    }

    #[inline(always)]
    pub(crate) fn load(&self) -> u8 {
        self.0.load(Ordering::Acquire)
    }

    /// The address of the word (for `dv_sync_state_word`).
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }

    /// Apply a lock-free `modify(side)` of the whole array; `Err` when it
    /// cannot be one (nothing changes). Returns the state it replaced.
    #[inline]
    pub(crate) fn modify(&self, side: Side) -> Result<u8, Blocked> {
        let mut cur = self.load();
        loop {
            let next = modify_next(cur, side)?;
            if next == cur {
                return Ok(cur);
            }
            match self.0.compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(cur),
                Err(now) => cur = now,
            }
        }
    }

    /// Set the state (clear_sync_state, realloc, an overwrite access); a
    /// one-space DualView stays `ONE_SPACE`, `IN_FLIGHT` stays.
    pub(crate) fn store(&self, state: u8) {
        // One atomic step: IN_FLIGHT may be set meanwhile (under the family lock, which this need not hold).
        let _ = self.0.fetch_update(Ordering::AcqRel, Ordering::Acquire, |cur| Some(store_next(cur, state)));
    }

    /// Replace `from` by `to` (which keeps `from`'s `IN_FLIGHT`); false when
    /// the state moved meanwhile (another thread marked a side during a
    /// copy: its change must not be cleared).
    pub(crate) fn replace(&self, from: u8, to: u8) -> bool {
        let to = to | (from & IN_FLIGHT);
        from == ONE_SPACE || self.0.compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    /// Whether copies queued on a stream may still run.
    #[inline(always)]
    pub(crate) fn in_flight(&self) -> bool {
        self.load() & IN_FLIGHT != 0
    }

    /// Set or clear `IN_FLIGHT` (under the family lock, with the record of
    /// copies in flight); a one-space DualView stays `ONE_SPACE`.
    pub(crate) fn set_in_flight(&self, on: bool) {
        if self.load() == ONE_SPACE {
            return; // fixed for good: its blocking calls never copy (a settle still waits for the records)
        }
        if on {
            self.0.fetch_or(IN_FLIGHT, Ordering::AcqRel);
        } else {
            self.0.fetch_and(!IN_FLIGHT, Ordering::AcqRel);
        }
    }
}

/// The `static inline` C functions of `include/dualview.h` that restate the
/// rules above, one for one: `dv_sync_state_whole` ([`whole`]),
/// `dv_sync_state_is_stale` ([`is_stale`]), `dv_sync_state_modify_is_noop`
/// ([`modify_is_noop`]), `dv_sync_state_sync_is_noop` ([`sync_is_noop`]),
/// `dv_sync_state_modify_next` ([`modify_next`]: false for either
/// [`Blocked`]), `dv_sync_state_clear_next` ([`store_next`] of `CLEAN`), and,
/// where GCC's `__atomic` builtins exist, the atomic steps of [`Flags`]:
/// `dv_word_load` ([`Flags::load`]), `dv_sync_state_try_modify`
/// ([`Flags::modify`]) and `dv_sync_state_clear` ([`Flags::store`] of
/// `CLEAN`), and their ordered forms (`_modify_ordered`, `_clear_ordered`:
/// the same transitions by a load and a store, DECISIONS D22). Emitted into
/// the header by `tests/header.rs`.
pub(crate) fn c_functions() -> &'static str {
    r#"
/* ---- The sync-state byte (dv_sync_state_word) -------------------------------------------
 * Its whole-array transitions, as the library performs them, for inline fast paths (the C++
 * wrapper's, docs/DECISIONS.md D22). Written next to the Rust rules in
 * src/dual_view/flags.rs and checked against them on every state byte and both sides.
 * `side` is DV_SIDE_HOST or DV_SIDE_DEVICE. */

/** The state after a modify of the whole array from `side`: that side's Kokkos counter set,
 *  every element newer there. */
static inline uint8_t dv_sync_state_whole(uint32_t side) {
  return (uint8_t)(side == DV_SIDE_HOST ? (DV_SYNC_HOST_MODIFIED | DV_SYNC_HOST_NEWER)
                                        : (DV_SYNC_DEVICE_MODIFIED | DV_SYNC_DEVICE_NEWER));
}

/** Whether `side` needs a sync (need_sync): the other side's Kokkos counter is set, or some
 *  element is newer on the other side. */
static inline bool dv_sync_state_is_stale(uint8_t state, uint32_t side) {
  const uint8_t other = (uint8_t)(side == DV_SIDE_HOST ? (DV_SYNC_DEVICE_MODIFIED | DV_SYNC_DEVICE_NEWER)
                                                       : (DV_SYNC_HOST_MODIFIED | DV_SYNC_HOST_NEWER));
  return state != DV_SYNC_ONE_SPACE && (state & other) != 0;
}

/** Whether a modify of the whole array from `side` changes nothing: that counter is set and
 *  every element is newer there already, or the DualView is one space. */
static inline bool dv_sync_state_modify_is_noop(uint8_t state, uint32_t side) {
  return (uint8_t)(state & ~DV_SYNC_IN_FLIGHT) == dv_sync_state_whole(side) || state == DV_SYNC_ONE_SPACE;
}

/** Whether a blocking sync of the whole array towards `side` does nothing: `side` is not
 *  stale and no copy queued on a stream may still run (else the library waits for it). */
static inline bool dv_sync_state_sync_is_noop(uint8_t state, uint32_t side) {
  return !dv_sync_state_is_stale(state, side) && (state & DV_SYNC_IN_FLIGHT) == 0;
}

/** The state after a modify of the whole array from `side`, when that modify changes this
 *  byte alone: true, with `*next` (maybe `state` itself). False when the library must act:
 *  the other side's counter is set (an error), or some element is newer on the other side
 *  (the library drops those, and says so when asked). */
static inline bool dv_sync_state_modify_next(uint8_t state, uint32_t side, uint8_t *next) {
  const uint8_t counter = (uint8_t)(side == DV_SIDE_HOST ? DV_SYNC_DEVICE_MODIFIED : DV_SYNC_HOST_MODIFIED);
  const uint8_t elements = (uint8_t)(side == DV_SIDE_HOST ? DV_SYNC_DEVICE_NEWER : DV_SYNC_HOST_NEWER);
  if (state == DV_SYNC_ONE_SPACE) {
    *next = state;
    return true;
  }
  if ((state & (counter | elements)) != 0) return false;
  *next = (uint8_t)(dv_sync_state_whole(side) | (state & DV_SYNC_IN_FLIGHT));
  return true;
}

/** The state after clear_sync_state: clean, except that one space stays one space and
 *  copies in flight stay in flight. */
static inline uint8_t dv_sync_state_clear_next(uint8_t state) {
  return (uint8_t)(state == DV_SYNC_ONE_SPACE ? DV_SYNC_ONE_SPACE : (state & DV_SYNC_IN_FLIGHT));
}

#if defined(__GNUC__) || defined(__clang__)
/** Defined when the atomic functions below exist (GCC, Clang, and compilers posing as them). */
#define DV_SYNC_STATE_ATOMICS

/** An acquire load of a byte the library shares (dv_sync_state_word, dv_tools_dual_view_hooks_word). */
static inline uint8_t dv_word_load(const uint8_t *word) {
  return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/** A modify of the whole array from `side`, with the library's own compare-exchange:
 *  true when done (or nothing to do), false when the library must act (the byte is then
 *  unchanged). Only through a handle that is neither a subview nor const, while
 *  dv_tools_dual_view_hooks_word reads 0 (a tool would miss the event otherwise). */
static inline bool dv_sync_state_try_modify(const uint8_t *word, uint32_t side) {
  uint8_t *w = (uint8_t *)word;
  uint8_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  uint8_t next = cur;
  while (dv_sync_state_modify_next(cur, side, &next)) {
    if (next == cur || __atomic_compare_exchange_n(w, &cur, next, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return true;
  }
  return false;
}

/** clear_sync_state: the byte becomes dv_sync_state_clear_next of itself. Only through a
 *  handle that is neither a subview nor const. */
static inline void dv_sync_state_clear(const uint8_t *word) {
  uint8_t *w = (uint8_t *)word;
  uint8_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  while (dv_sync_state_clear_next(cur) != cur &&
         !__atomic_compare_exchange_n(w, &cur, dv_sync_state_clear_next(cur), true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
  }
}

/** dv_sync_state_try_modify for a program that orders the calls touching one DualView, as
 *  Kokkos requires of its flag calls: an acquire load and a release store, no locked
 *  instruction (a compare-exchange costs 13 ns on the H200's host). Exact whenever no other
 *  thread changes this byte during the call: the library changes it only inside calls on
 *  this DualView (flags, syncs, resizes) and inside copies into or out of its views
 *  (deep_copy marks and clears copies in flight). Two threads racing through it may both
 *  succeed (the later store stays), where dv_sync_state_try_modify lets one fail; a copy
 *  queued by another thread during the call may lose its in-flight mark (a later blocking
 *  sync would not wait for it). Same conditions as dv_sync_state_try_modify. */
static inline bool dv_sync_state_modify_ordered(const uint8_t *word, uint32_t side) {
  uint8_t *w = (uint8_t *)word;
  const uint8_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  uint8_t next = cur;
  if (!dv_sync_state_modify_next(cur, side, &next)) return false;
  if (next != cur) __atomic_store_n(w, next, __ATOMIC_RELEASE);
  return true;
}

/** dv_sync_state_clear for a program that orders the flag calls on one DualView: an acquire
 *  load and a release store (see dv_sync_state_modify_ordered). */
static inline void dv_sync_state_clear_ordered(const uint8_t *word) {
  uint8_t *w = (uint8_t *)word;
  const uint8_t cur = __atomic_load_n(w, __ATOMIC_ACQUIRE);
  if (dv_sync_state_clear_next(cur) != cur) __atomic_store_n(w, dv_sync_state_clear_next(cur), __ATOMIC_RELEASE);
}
#else
/** An acquire load of a byte the library shares (dv_sync_state_word, dv_tools_dual_view_hooks_word). */
static inline uint8_t dv_word_load(const uint8_t *word) {
  return *(const volatile uint8_t *)word;
}
#endif
"#
}

#[cfg(test)]
mod tests {
    use super::*;

    const HM: u8 = HOST_MODIFIED;
    const DM: u8 = DEVICE_MODIFIED;
    const HN: u8 = HOST_NEWER;
    const DN: u8 = DEVICE_NEWER;
    const P: u8 = PARTIAL;

    #[test]
    fn transitions_are_exhaustive() {
        use Blocked::{Conflict, Drops};
        use Side::{Device as Dv, Host as Hs};
        for (state, side, next) in [
            (CLEAN, Hs, Ok(HM | HN)),
            (CLEAN, Dv, Ok(DM | DN)),
            (HM | HN, Hs, Ok(HM | HN)),
            (HM | HN | P, Hs, Ok(HM | HN)),
            (HN | P, Hs, Ok(HM | HN)),
            (HM | HN, Dv, Err(Conflict)),
            (HM, Dv, Err(Conflict)),
            (HN | P, Dv, Err(Drops)),
            (HN | DN | P, Dv, Err(Drops)),
            (DM | DN, Hs, Err(Conflict)),
            (DN | P, Hs, Err(Drops)),
            (DN | P, Dv, Ok(DM | DN)),
            (ONE_SPACE, Hs, Ok(ONE_SPACE)),
            (ONE_SPACE, Dv, Ok(ONE_SPACE)),
            // Copies in flight change no rule, and stay in flight.
            (CLEAN | IN_FLIGHT, Dv, Ok(DM | DN | IN_FLIGHT)),
            (HM | HN | IN_FLIGHT, Hs, Ok(HM | HN | IN_FLIGHT)),
            (HM | HN | IN_FLIGHT, Dv, Err(Conflict)),
        ] {
            assert_eq!(modify_next(state, side), next, "{state} {side}");
        }
        for (state, host_stale, device_stale) in [
            (CLEAN, false, false),
            (HM | HN, false, true),
            (HN | P, false, true),
            (HM, false, true),
            (DM | DN, true, false),
            (DN | P, true, false),
            (HN | DN | P, true, true),
            (ONE_SPACE, false, false),
        ] {
            assert_eq!(is_stale(state, Side::Host), host_stale, "{state}");
            assert_eq!(is_stale(state, Side::Device), device_stale, "{state}");
        }
        assert_eq!(uniform(HM | HN), Some(Cell::Host));
        assert_eq!(uniform(DN), Some(Cell::Device));
        assert_eq!(uniform(HM), Some(Cell::Clean));
        assert_eq!(uniform(HN | DN | P), None);
        assert_eq!(with_map(HM | P | HN | IN_FLIGHT, Summary { host: false, device: true, uniform: false }), HM | DN | P | IN_FLIGHT);
        let one = Flags::new(true);
        one.store(HM | HN);
        assert_eq!(one.load(), ONE_SPACE);
        // A blocking sync waits for copies in flight even where nothing is stale;
        // a modify that changes nothing stays free; storing keeps the bit.
        assert!(sync_is_noop(CLEAN, Side::Host) && !sync_is_noop(CLEAN | IN_FLIGHT, Side::Host));
        assert!(!sync_is_noop(DM | DN, Side::Host) && sync_is_noop(DM | DN, Side::Device));
        assert!(modify_is_noop(HM | HN | IN_FLIGHT, Side::Host));
        assert!(!modify_is_noop(HM | HN | P, Side::Host), "a partial map is not newer everywhere");
        let f = Flags::new(false);
        f.set_in_flight(true);
        f.store(DM | DN);
        assert_eq!(f.load(), DM | DN | IN_FLIGHT);
        assert!(f.replace(DM | DN | IN_FLIGHT, CLEAN));
        assert_eq!(f.load(), IN_FLIGHT);
        f.set_in_flight(false);
        assert_eq!(f.load(), CLEAN);
    }

    /// What the Rust rules answer for `state` and `side`, one line in the
    /// format of the C program below.
    fn rust_line(state: u8, side: Side) -> String {
        let next = match modify_next(state, side) {
            Ok(n) => format!("1 {n}"),
            Err(_) => "0 -".to_string(),
        };
        let f = Flags(AtomicU8::new(state));
        let tried = u8::from(f.modify(side).is_ok());
        let cleared = Flags(AtomicU8::new(state));
        cleared.store(CLEAN);
        // The atomic and the ordered forms make the same single-thread transitions.
        format!(
            "{state} {} whole={} stale={} noop={} sync_noop={} next={} clear={} | try={tried} {} clear={} | try={tried} {} clear={}",
            side as u32,
            whole(side),
            u8::from(is_stale(state, side)),
            u8::from(modify_is_noop(state, side)),
            u8::from(sync_is_noop(state, side)),
            next,
            store_next(state, CLEAN),
            f.load(),
            cleared.load(),
            f.load(),
            cleared.load(),
        )
    }

    const C_PROGRAM: &str = r#"#include "dualview.h"
#include <stdio.h>
int main(void) {
  unsigned s;
  uint32_t side;
  for (s = 0; s < 256; ++s) {
    for (side = 0; side < 2; ++side) {
      const uint8_t state = (uint8_t)s;
      uint8_t next = 0, word = state, cleared = state, oword = state, ocleared = state;
      char a[16];
      const bool ok = dv_sync_state_modify_next(state, side, &next);
      const bool tried = dv_sync_state_try_modify(&word, side);
      const bool otried = dv_sync_state_modify_ordered(&oword, side);
      if (ok) snprintf(a, sizeof a, "1 %u", (unsigned)next);
      else snprintf(a, sizeof a, "0 -");
      dv_sync_state_clear(&cleared);
      dv_sync_state_clear_ordered(&ocleared);
      printf("%u %u whole=%u stale=%d noop=%d sync_noop=%d next=%s clear=%u | try=%d %u clear=%u | try=%d %u clear=%u\n", s,
             (unsigned)side, (unsigned)dv_sync_state_whole(side), (int)dv_sync_state_is_stale(state, side),
             (int)dv_sync_state_modify_is_noop(state, side), (int)dv_sync_state_sync_is_noop(state, side), a,
             (unsigned)dv_sync_state_clear_next(state), (int)tried, (unsigned)dv_word_load(&word),
             (unsigned)dv_word_load(&cleared), (int)otried, (unsigned)dv_word_load(&oword), (unsigned)dv_word_load(&ocleared));
    }
  }
  return 0;
}
"#;
    /// Compile `C_PROGRAM` with `compiler args`, run it, return its output.
    fn run_c(dir: &std::path::Path, compiler: &str, args: &[&str], name: &str) -> Option<String> {
        use std::process::Command;
        let src = dir.join(format!("{name}.c"));
        let exe = dir.join(name);
        std::fs::write(&src, C_PROGRAM).unwrap();
        let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
        let out = match Command::new(compiler).args(args).arg("-I").arg(&include).arg(&src).arg("-o").arg(&exe).output() {
            Ok(out) => out,
            Err(e) if name == "cxx" => {
                eprintln!("skipped the C++ compile: {compiler}: {e}");
                return None;
            }
            Err(e) => panic!("{compiler}: {e} (set CC to a C compiler)"),
        };
        assert!(out.status.success(), "{compiler} {args:?}:\n{}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&exe).output().unwrap();
        assert!(run.status.success());
        Some(String::from_utf8(run.stdout).unwrap())
    }

    /// The C functions of include/dualview.h (`c_functions`, emitted there by
    /// tests/header.rs) give the Rust rules' answers on every state byte,
    /// both sides and every operation, pure and atomic; compiled as C99 and
    /// as C++17 with strict warnings.
    #[test]
    #[cfg_attr(miri, ignore)] // runs the C compiler
    fn the_c_header_functions_agree_on_every_byte() {
        let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/dualview.h")).unwrap();
        assert!(header.contains(c_functions()), "include/dualview.h lacks c_functions(): run DUALVIEW_BLESS=1 cargo test --test header");
        let mut expected = String::new();
        for state in 0..=u8::MAX {
            for side in [Side::Host, Side::Device] {
                expected += &rust_line(state, side);
                expected.push('\n');
            }
        }
        let dir = std::env::temp_dir().join(format!("dualview-flags-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let strict = ["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wshadow", "-Wconversion", "-Wsign-conversion"];
        let cc = crate::env::value("CC").unwrap_or_else(|| "cc".into());
        let mut c_args = vec!["-std=c99"];
        c_args.extend(strict);
        let c = run_c(&dir, &cc, &c_args, "c").unwrap();
        let cxx = crate::env::value("CXX").unwrap_or_else(|| "c++".into());
        let mut cxx_args = vec!["-x", "c++", "-std=c++17"];
        cxx_args.extend(strict);
        let cpp = run_c(&dir, &cxx, &cxx_args, "cxx");
        std::fs::remove_dir_all(&dir).ok();
        for (lang, got) in [("C", Some(c)), ("C++", cpp)] {
            let Some(got) = got else { continue };
            for (want, have) in expected.lines().zip(got.lines()) {
                assert_eq!(have, want, "{lang}: the header's dv_sync_state_* functions differ from src/dual_view/flags.rs");
            }
            assert_eq!(got.lines().count(), 512, "{lang}: one line per state byte and side");
        }
    }

    #[test]
    fn failed_modify_and_moved_state_change_nothing() {
        let f = Flags::default();
        f.modify(Side::Host).unwrap();
        assert_eq!(f.modify(Side::Device), Err(Blocked::Conflict));
        assert_eq!(f.load(), HM | HN);
        assert!(!f.replace(HM | HN | P, CLEAN));
        assert_eq!(f.load(), HM | HN);
        assert!(f.replace(HM | HN, CLEAN));
        assert_eq!(f.load(), CLEAN);
        f.store(DN | P);
        assert_eq!(f.modify(Side::Host), Err(Blocked::Drops));
        assert_eq!(f.load(), DN | P);
    }
}
