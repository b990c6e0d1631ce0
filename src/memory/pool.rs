//! The pool of registered host blocks (DECISIONS S11): the registered mirror
//! of a DualView that goes is kept, registered and with its pages faulted
//! in, for the next mirror of about its size over the same device kind, so
//! that neither the driver's unregistration nor a fresh registration and
//! fault-in is paid again.
//!
//! | rule | value |
//! | --- | --- |
//! | what is kept | a mirror's block whose registration covers it whole when it is freed (or, still under way then, once it ends: the background thread keeps it after the registration's own job, its bytes reserved under the cap meanwhile), of a size that churns: a mirror of `n` to `n + n/8` bytes was asked for after a block of that size was freed (a temporary made each step, a DualView created anew); a size a program only grows through (LAMMPS' 1 % grows) is never kept |
//! | cap | `DV_POOL_BYTES` (bytes, or a number with `K`, `M`, `G`; `0`: no pool), default [`DEFAULT_CAP`]; a bad value is refused, naming it, by the next registering DualView's creation; `0` under `DV_DEBUG_MEMORY` (freed pages must fault) |
//! | over the cap | the oldest kept blocks go first (unregistered and freed on the background thread); a block larger than the cap is not kept |
//! | reuse | a mirror of `n` bytes (whole pages) takes the smallest kept block of `n` to `n + n/8` bytes; a block is zeroed on the background thread before it enters the pool, so it comes zeroed at no cost to the mirror (one freed just before is not there yet) |
//! | drained | when a host allocation or a registration fails (then retried once), by [`release`] (`dv_pool_release`, `dv::pool_release`, `Kokkos::finalize`, Fortran `dv_pool_release`) |

use super::{host, Block, HostRegistration};
use crate::error::{bail, Result};
use crate::space::SpaceKind;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The cap when `DV_POOL_BYTES` is not set.
pub(crate) const DEFAULT_CAP: usize = 512 << 20;

/// One kept block: registered whole with the driver of `kind`'s engine.
struct Kept {
    kind: SpaceKind,
    block: Block,
    registration: Box<dyn HostRegistration>,
}

/// The kept blocks, oldest first, and their bytes; the sizes lately freed,
/// and those asked for again after a free (each list at most [`REMEMBER`]).
struct Pool {
    kept: Vec<Kept>,
    held: usize,
    /// Bytes of freed blocks still registering, reserved under the cap until their keep job.
    pending: usize,
    freed: VecDeque<usize>,
    churning: VecDeque<usize>,
}

/// How many sizes each list of [`Pool`] remembers.
const REMEMBER: usize = 64;

static POOL: Mutex<Pool> = Mutex::new(Pool { kept: Vec::new(), held: 0, pending: 0, freed: VecDeque::new(), churning: VecDeque::new() });

/// Put `size` last in `list` (once), forgetting the oldest past [`REMEMBER`].
fn remember(list: &mut VecDeque<usize>, size: usize) {
    if let Some(k) = list.iter().position(|&s| s == size) {
        list.remove(k);
    } else if list.len() == REMEMBER {
        list.pop_front();
    }
    list.push_back(size);
}

/// A cap set by [`set_cap`] (`usize::MAX`: none, the environment's).
static CAP_OVERRIDE: AtomicUsize = AtomicUsize::new(usize::MAX);

/// What the pool did: blocks and bytes kept, reused and released (unregistered and freed).
static COUNTS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
const KEPT: usize = 0;
const REUSED: usize = 2;
const RELEASED: usize = 4;

fn count(what: usize, bytes: usize) {
    COUNTS[what].fetch_add(1, Ordering::Relaxed);
    COUNTS[what + 1].fetch_add(bytes as u64, Ordering::Relaxed);
}

fn lock() -> std::sync::MutexGuard<'static, Pool> {
    // Every change is a push or a remove with its count: a panic elsewhere leaves a valid pool.
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// `DV_POOL_BYTES` read: bytes, or a number followed by `K`, `M` or `G` (powers of 1024).
fn parse(text: &str) -> std::result::Result<usize, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((k, 'K' | 'k')) => (&t[..k], 10),
        Some((k, 'M' | 'm')) => (&t[..k], 20),
        Some((k, 'G' | 'g')) => (&t[..k], 30),
        _ => (t, 0),
    };
    let n: usize = digits.trim().parse().map_err(|_| format!("DV_POOL_BYTES=\"{text}\" is not a size: give bytes, or a number followed by K, M or G (0: no pool)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("DV_POOL_BYTES=\"{text}\" is larger than this machine's address space"))
}

/// The cap on the bytes the pool keeps; `InvalidArgument` naming `DV_POOL_BYTES` when its value is not a size.
pub(crate) fn cap() -> Result<usize> {
    // DV_DEBUG_MEMORY makes freed pages inaccessible so that a stale pointer faults: nothing kept.
    if host::mode() == host::Mode::Guard {
        return Ok(0);
    }
    let set = CAP_OVERRIDE.load(Ordering::Relaxed);
    if set != usize::MAX {
        return Ok(set);
    }
    static CAP: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    match CAP.get_or_init(|| crate::env::value("DV_POOL_BYTES").map_or(Ok(DEFAULT_CAP), |v| parse(&v))) {
        Ok(n) => Ok(*n),
        Err(why) => bail!(InvalidArgument, "{why}"),
    }
}

/// Set the cap for the rest of the process (tests and programs that know
/// their needs), releasing what it no longer holds. `usize::MAX`: back to `DV_POOL_BYTES`.
pub fn set_cap(bytes: usize) {
    CAP_OVERRIDE.store(bytes, Ordering::Relaxed);
    let cap = cap().unwrap_or(0);
    let gone = {
        let mut p = lock();
        evict(&mut p, cap)
    };
    free_all(gone, false);
}

/// Remove the oldest kept blocks until at most `cap` bytes are held.
fn evict(p: &mut Pool, cap: usize) -> Vec<Kept> {
    let mut gone = Vec::new();
    while p.held > cap && !p.kept.is_empty() {
        let k = p.kept.remove(0);
        p.held -= k.block.bytes();
        gone.push(k);
    }
    gone
}

/// Unregister and free `kept`: here, on the caller's thread, when `now` (a
/// failure being retried needs the memory back before it tries again, and a
/// release returns what it gave back); else as any registered mirror's free goes
/// (`Registration::release`: on the background thread, a block under 256 KiB here).
fn free_all(kept: Vec<Kept>, now: bool) -> usize {
    let mut bytes = 0;
    for k in kept {
        let n = k.block.bytes();
        bytes += n;
        count(RELEASED, n);
        let_go(k, now);
    }
    bytes
}

/// Unregister and free one block, as [`free_all`] says (`now`), counting nothing.
fn let_go(k: Kept, now: bool) {
    let block = k.block;
    let free = Box::new(move || host::deallocate(block));
    if now {
        k.registration.release_now(free);
    } else {
        k.registration.release(free);
    }
}

/// A registering mirror's block of `n` bytes is being freed, `registered`
/// whole or with its registration `pending`: its size is remembered, and the
/// answer is whether the pool takes it (its size churns and fits the cap). A
/// pending one is then reserved under the cap with what the pool holds and
/// the other pending ones, until [`keep_pending`] runs: a burst of frees never
/// holds more than the cap page-locked for the pool.
pub(crate) fn wants(n: usize, registered: bool, pending: bool) -> bool {
    let cap = cap().unwrap_or(0);
    let mut p = lock();
    let churns = p.churning.contains(&n);
    remember(&mut p.freed, n);
    if !churns || n == 0 || n > cap {
        return false;
    }
    if registered {
        return true;
    }
    if !pending || p.held + p.pending + n > cap {
        return false;
    }
    p.pending += n;
    true
}

/// On the background thread, after its registration's own job: keep a block
/// [`wants`] reserved while it was still registering, when that ended with
/// it registered whole (zeroed here, so that a [`release`] after the free
/// finds it); else hand block and registration back.
pub(crate) fn keep_pending(kind: SpaceKind, block: Block, registration: Box<dyn HostRegistration>) -> std::result::Result<(), (Block, Box<dyn HostRegistration>)> {
    lock().pending -= block.bytes();
    let cap = cap().unwrap_or(0);
    if block.bytes() > cap || !registration.is_registered() {
        return Err((block, registration));
    }
    admit(Kept { kind, block, registration });
    Ok(())
}

/// Zero a kept block whole, then put it in the pool (the oldest going past the cap),
/// under the cap of now: one lowered since the block's free ([`set_cap`]) applies to it,
/// which then goes as any registered mirror's block goes.
fn admit(k: Kept) {
    let n = k.block.bytes();
    if n > cap().unwrap_or(0) {
        let_go(k, false); // never kept: not counted as released by the pool either
        return;
    }
    host::clear(&k.block, 0, n);
    let gone = {
        let mut p = lock();
        // Read again under the lock: a `set_cap` that evicted before this push is seen here.
        let cap = cap().unwrap_or(0);
        p.held += n;
        p.kept.push(k);
        evict(&mut p, cap)
    };
    count(KEPT, n);
    free_all(gone, false);
}

/// Keep a freed mirror's block, registered whole with `kind`'s driver, when
/// the cap allows (after [`wants`] said so); else hand block and registration
/// back (the caller releases them).
pub(crate) fn keep(kind: SpaceKind, block: Block, registration: Box<dyn HostRegistration>) -> std::result::Result<(), (Block, Box<dyn HostRegistration>)> {
    let cap = cap().unwrap_or(0);
    let n = block.bytes();
    if n == 0 || n > cap || !registration.is_registered() {
        return Err((block, registration));
    }
    // Zeroed on the background thread before any mirror can take it, so that taking it
    // costs no more than the fresh block's zero pages would (a block still being zeroed
    // is not there yet: that mirror gets a fresh block).
    super::background::submit(move || admit(Kept { kind, block, registration }));
    Ok(())
}

/// A kept block for a mirror of `need` bytes over `kind`: the smallest of
/// `need` to `need + need / 8` bytes, taken out of the pool.
pub(crate) fn take(kind: SpaceKind, need: usize) -> Option<(Block, Box<dyn HostRegistration>)> {
    if need == 0 {
        return None;
    }
    let most = need.saturating_add(need / 8);
    let mut p = lock();
    // A size freed lately and asked for again churns: its next free is kept.
    if let Some(s) = p.freed.iter().copied().filter(|s| (need..=most).contains(s)).min() {
        remember(&mut p.churning, s);
    }
    let k = (0..p.kept.len())
        .filter(|&k| p.kept[k].kind == kind && (need..=most).contains(&p.kept[k].block.bytes()))
        .min_by_key(|&k| p.kept[k].block.bytes())?;
    let kept = p.kept.remove(k);
    p.held -= kept.block.bytes();
    drop(p);
    count(REUSED, kept.block.bytes());
    Some((kept.block, kept.registration))
}

/// Unregister and free every kept block now; the bytes released.
pub(crate) fn drain() -> usize {
    let all = {
        let mut p = lock();
        p.held = 0;
        std::mem::take(&mut p.kept)
    };
    free_all(all, true)
}

/// Unregister and free every block the pool keeps (registered host memory
/// kept for the next DualView), returning the bytes released: for a program
/// about to need its memory elsewhere, and at `Kokkos::finalize`. The pool
/// fills again as registered DualViews go.
///
/// ```
/// let released = dualview::memory::pool_release();
/// assert_eq!(dualview::memory::pool_stats().held_bytes, 0);
/// # let _ = released;
/// ```
pub fn release() -> usize {
    super::background::settle(); // blocks being zeroed for the pool are in it first
    drain()
}

/// What the pool of registered host blocks holds and did in this process
/// ([`pool_stats`](crate::memory::pool_stats)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// The cap (`DV_POOL_BYTES`, or [`set_cap`]'s; 0 when the variable is not a size).
    pub cap_bytes: usize,
    /// Bytes kept now.
    pub held_bytes: usize,
    /// Blocks kept now.
    pub held_blocks: usize,
    /// Blocks (and their bytes) kept when their DualView went.
    pub kept: u64,
    /// See `kept`.
    pub kept_bytes: u64,
    /// Blocks a new mirror took from the pool.
    pub reused: u64,
    /// See `reused`.
    pub reused_bytes: u64,
    /// Blocks the pool unregistered and freed (over the cap, drained, released).
    pub released: u64,
    /// See `released`.
    pub released_bytes: u64,
}

/// The pool's state and counts now.
pub fn stats() -> PoolStats {
    let (held_bytes, held_blocks) = {
        let p = lock();
        (p.held, p.kept.len())
    };
    let c = |k: usize| COUNTS[k].load(Ordering::Relaxed);
    PoolStats {
        cap_bytes: cap().unwrap_or(0),
        held_bytes,
        held_blocks,
        kept: c(KEPT),
        kept_bytes: c(KEPT + 1),
        reused: c(REUSED),
        reused_bytes: c(REUSED + 1),
        released: c(RELEASED),
        released_bytes: c(RELEASED + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn sizes_parse_and_bad_ones_name_the_variable() {
        assert_eq!(parse("0"), Ok(0));
        assert_eq!(parse("4096"), Ok(4096));
        assert_eq!(parse(" 64K"), Ok(64 << 10));
        assert_eq!(parse("512M"), Ok(512 << 20));
        assert_eq!(parse("2g"), Ok(2 << 30));
        for bad in ["", "lots", "1.5G", "-1", "12T", "G"] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with("DV_POOL_BYTES=") && e.contains("not a size"), "{bad}: {e}");
        }
        assert!(parse("99999999999999999999G").unwrap_err().contains("not a size"));
        assert!(parse("17179869184G").unwrap_err().contains("address space"));
    }
}
