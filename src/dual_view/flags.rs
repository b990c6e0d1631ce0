//! The modified flags: one atomic byte shared by every clone and subview.
//!
//! Kokkos keeps two counters and only ever compares them; in every reachable
//! state at most one is non-zero. We store that state directly, plus whether
//! the newer side's changes are confined to recorded regions (`PARTIAL`, see
//! `regions.rs`) and whether those regions are the rest a subview sync left
//! (`REST`), and whether copies queued on a stream may still run (`IN_FLIGHT`,
//! orthogonal to the rest: every transition below keeps it, `dual_view/in_flight.rs`
//! sets and clears it). The values are ABI (`DV_SYNC_*`): the C++ header
//! reads this byte inline for its fast paths.
//!
//! | state | Kokkos counters | `need_sync(host)` | `need_sync(device)` | `modify(host)` | `modify(device)` |
//! | --- | --- | --- | --- | --- | --- |
//! | `CLEAN` | `[0, 0]` | false | false | ok | ok |
//! | `HOST_NEWER` (`\| PARTIAL`) | `[n, 0]` | false | true | ok | error |
//! | `HOST_NEWER \| PARTIAL \| REST` | `[0, 0]` (Kokkos forgot the rest) | false | true | ok | releases the rest, then ok |
//! | `DEVICE_NEWER` (`\| PARTIAL`) | `[0, n]` | true | false | error | ok |
//! | `DEVICE_NEWER \| PARTIAL \| REST` | `[0, 0]` | true | false | releases the rest, then ok | ok |
//! | `ONE_SPACE` | (no flags: one memory) | false | false | nothing | nothing |
//!
//! Releasing the rest (`sync.rs`): the part outside the modifying handle's
//! box is copied into that side, the part inside is dropped (the side has
//! just written it: Kokkos marks after writing), so a whole-array modify
//! copies nothing, as in Kokkos.
//!
//! `ONE_SPACE` is fixed for a single-space DualView, so its modify and sync
//! take the same one-load fast path and never change anything.
//! The transitions are pure functions ([`modify_next`], [`is_stale`],
//! [`modify_is_noop`], [`store_next`]), tested exhaustively.
//!
//! The C++ header performs the whole-array fast paths inline (DECISIONS D22)
//! through the `static inline` C functions `dv_sync_state_*` of
//! `include/dualview.h`. Their text is written here ([`c_functions`]), next
//! to the rules it restates; `tests/header.rs` emits it into the header, and
//! `tests::the_c_header_functions_agree_on_every_byte` compiles the header's
//! functions with the system C (and C++) compiler and compares them with these
//! rules on every state byte, both sides and every operation, pure and atomic.

use crate::abi::{DV_SYNC_CLEAN, DV_SYNC_DEVICE_NEWER, DV_SYNC_HOST_NEWER, DV_SYNC_IN_FLIGHT, DV_SYNC_ONE_SPACE, DV_SYNC_PARTIAL, DV_SYNC_REST};
use crate::side::Side;
use std::sync::atomic::{AtomicU8, Ordering};

pub(crate) const CLEAN: u8 = DV_SYNC_CLEAN;
pub(crate) const HOST_NEWER: u8 = DV_SYNC_HOST_NEWER;
pub(crate) const DEVICE_NEWER: u8 = DV_SYNC_DEVICE_NEWER;
pub(crate) const ONE_SPACE: u8 = DV_SYNC_ONE_SPACE;
pub(crate) const PARTIAL: u8 = DV_SYNC_PARTIAL;
pub(crate) const REST: u8 = DV_SYNC_REST;
pub(crate) const IN_FLIGHT: u8 = DV_SYNC_IN_FLIGHT;
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
    let flight = state & IN_FLIGHT;
    match modify_next_settled(state & !IN_FLIGHT, side, whole) {
        Ok(next) => Ok(next | flight),
        Err(b) => Err(b),
    }
}

/// [`modify_next`] of a state without `IN_FLIGHT`.
const fn modify_next_settled(state: u8, side: Side, whole: bool) -> Result<u8, Blocked> {
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

/// Whether a whole-array `modify(side)` changes nothing in `state`: the side
/// is newer everywhere already, or the DualView is one space (the one-load fast path).
pub(crate) const fn modify_is_noop(state: u8, side: Side) -> bool {
    state & !IN_FLIGHT == newer(side) || state == ONE_SPACE
}

/// Whether a blocking `sync(side)` of the whole array does nothing: `side`
/// is not stale and no queued copy may still run.
pub(crate) const fn sync_is_noop(state: u8, side: Side) -> bool {
    !is_stale(state, side) && state & IN_FLIGHT == 0
}

/// The state after storing `state` over `cur` (clear_sync_state, realloc,
/// write-only access): a one-space DualView stays `ONE_SPACE`, and copies in
/// flight stay in flight.
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
/// rules above, one for one: `dv_sync_state_newer` ([`newer`]),
/// `dv_sync_state_is_stale` ([`is_stale`]), `dv_sync_state_modify_is_noop`
/// ([`modify_is_noop`]), `dv_sync_state_sync_is_noop` ([`sync_is_noop`]),
/// `dv_sync_state_modify_next` ([`modify_next`]: false
/// for either [`Blocked`]), `dv_sync_state_clear_next` ([`store_next`] of
/// `CLEAN`), and, where GCC's `__atomic` builtins exist, the atomic steps of
/// [`Flags`]: `dv_word_load` ([`Flags::load`]), `dv_sync_state_try_modify`
/// ([`Flags::modify`] of the whole array) and `dv_sync_state_clear`
/// ([`Flags::store`] of `CLEAN`). Emitted into the header by `tests/header.rs`.
pub(crate) fn c_functions() -> &'static str {
    r#"
/* ---- The sync-state byte (dv_sync_state_word) -------------------------------------------
 * Its transitions, as the library performs them, for inline fast paths (the C++ wrapper's,
 * docs/DECISIONS.md D22). Written next to the Rust rules in src/dual_view/flags.rs and
 * checked against them on every state byte, both sides and every operation. `side` is
 * DV_SIDE_HOST or DV_SIDE_DEVICE. */

/** The state in which `side` holds changes the other side lacks, everywhere. */
static inline uint8_t dv_sync_state_newer(uint32_t side) {
  return (uint8_t)(side == DV_SIDE_HOST ? DV_SYNC_HOST_NEWER : DV_SYNC_DEVICE_NEWER);
}

/** Whether `side` is stale in `state`: the other side holds changes (need_sync). */
static inline bool dv_sync_state_is_stale(uint8_t state, uint32_t side) {
  const uint8_t other = dv_sync_state_newer(side == DV_SIDE_HOST ? DV_SIDE_DEVICE : DV_SIDE_HOST);
  return state != DV_SYNC_ONE_SPACE && (state & (DV_SYNC_HOST_NEWER | DV_SYNC_DEVICE_NEWER)) == other;
}

/** Whether a modify of the whole array from `side` changes nothing: `side` is newer
 *  everywhere already, or the DualView is one space. */
static inline bool dv_sync_state_modify_is_noop(uint8_t state, uint32_t side) {
  return (uint8_t)(state & ~DV_SYNC_IN_FLIGHT) == dv_sync_state_newer(side) || state == DV_SYNC_ONE_SPACE;
}

/** Whether a blocking sync of the whole array towards `side` does nothing: `side` is not
 *  stale and no copy queued on a stream may still run (else the library waits for it). */
static inline bool dv_sync_state_sync_is_noop(uint8_t state, uint32_t side) {
  return !dv_sync_state_is_stale(state, side) && (state & DV_SYNC_IN_FLIGHT) == 0;
}

/** The state after a modify from `side` of the whole array (`whole`) or of a subview's
 *  region, when that modify changes this byte alone: true, with `*next` (maybe `state`
 *  itself). False when the library must act: the other side holds changes (an error), or
 *  the rest of a partly synced change, which the library copies first. */
static inline bool dv_sync_state_modify_next(uint8_t state, uint32_t side, bool whole, uint8_t *next) {
  const uint8_t mine = dv_sync_state_newer(side);
  const uint8_t flight = (uint8_t)(state & DV_SYNC_IN_FLIGHT);
  const uint8_t settled = (uint8_t)(state & ~DV_SYNC_IN_FLIGHT);
  const int base = state & (DV_SYNC_HOST_NEWER | DV_SYNC_DEVICE_NEWER);
  if (settled == DV_SYNC_ONE_SPACE || settled == mine) {
    *next = state;
    return true;
  }
  if (base == DV_SYNC_CLEAN || base == mine) {
    *next = (uint8_t)((whole ? mine : (mine | DV_SYNC_PARTIAL)) | flight);
    return true;
  }
  return false;
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
  while (dv_sync_state_modify_next(cur, side, true, &next)) {
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
            // Copies in flight change no rule, and stay in flight.
            (CLEAN | IN_FLIGHT, Dv, false, Ok(DP | IN_FLIGHT)),
            (H | IN_FLIGHT, Hs, true, Ok(H | IN_FLIGHT)),
            (HP | IN_FLIGHT, Hs, true, Ok(H | IN_FLIGHT)),
            (H | IN_FLIGHT, Dv, true, Err(Conflict)),
            (DR | IN_FLIGHT, Hs, false, Err(Rest)),
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
        // A blocking sync waits for copies in flight even where nothing is stale;
        // a modify that changes nothing stays free; storing keeps the bit.
        assert!(sync_is_noop(CLEAN, Side::Host) && !sync_is_noop(CLEAN | IN_FLIGHT, Side::Host));
        assert!(!sync_is_noop(D, Side::Host) && sync_is_noop(D, Side::Device));
        assert!(modify_is_noop(H | IN_FLIGHT, Side::Host));
        let f = Flags::new(false);
        f.set_in_flight(true);
        f.store(D);
        assert_eq!(f.load(), D | IN_FLIGHT);
        assert!(f.replace(D | IN_FLIGHT, CLEAN));
        assert_eq!(f.load(), IN_FLIGHT);
        f.set_in_flight(false);
        assert_eq!(f.load(), CLEAN);
    }

    /// What the Rust rules answer for `state` and `side`, one line in the
    /// format of the C program below.
    fn rust_line(state: u8, side: Side) -> String {
        let next = |whole| match modify_next(state, side, whole) {
            Ok(n) => format!("1 {n}"),
            Err(_) => "0 -".to_string(),
        };
        let f = Flags(AtomicU8::new(state));
        let tried = u8::from(f.modify(side, true).is_ok());
        let cleared = Flags(AtomicU8::new(state));
        cleared.store(CLEAN);
        format!(
            "{state} {} newer={} stale={} noop={} sync_noop={} whole={} part={} clear={} | try={tried} {} clear={}",
            side as u32,
            newer(side),
            u8::from(is_stale(state, side)),
            u8::from(modify_is_noop(state, side)),
            u8::from(sync_is_noop(state, side)),
            next(true),
            next(false),
            store_next(state, CLEAN),
            f.load(),
            cleared.load(),
        )
    }

    const C_PROGRAM: &str = r#"#include "dualview.h"
#include <stdio.h>
static const char *next_of(bool ok, uint8_t n, char *buf) {
  if (ok) snprintf(buf, 16, "1 %u", (unsigned)n);
  else snprintf(buf, 16, "0 -");
  return buf;
}
int main(void) {
  unsigned s;
  uint32_t side;
  for (s = 0; s < 256; ++s) {
    for (side = 0; side < 2; ++side) {
      const uint8_t state = (uint8_t)s;
      uint8_t whole = 0, part = 0, word = state, cleared = state;
      char a[16], b[16];
      const bool w = dv_sync_state_modify_next(state, side, true, &whole);
      const bool p = dv_sync_state_modify_next(state, side, false, &part);
      const bool tried = dv_sync_state_try_modify(&word, side);
      dv_sync_state_clear(&cleared);
      printf("%u %u newer=%u stale=%d noop=%d sync_noop=%d whole=%s part=%s clear=%u | try=%d %u clear=%u\n", s,
             (unsigned)side, (unsigned)dv_sync_state_newer(side), (int)dv_sync_state_is_stale(state, side),
             (int)dv_sync_state_modify_is_noop(state, side), (int)dv_sync_state_sync_is_noop(state, side),
             next_of(w, whole, a), next_of(p, part, b),
             (unsigned)dv_sync_state_clear_next(state), (int)tried, (unsigned)dv_word_load(&word),
             (unsigned)dv_word_load(&cleared));
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
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let mut c_args = vec!["-std=c99"];
        c_args.extend(strict);
        let c = run_c(&dir, &cc, &c_args, "c").unwrap();
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
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
