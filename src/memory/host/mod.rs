//! Host memory: the host engine's policy (how blocks are obtained, which
//! freed ones are kept) and its [`Backend`]; every raw access is `raw.rs`.
//!
//! | file | holds |
//! | --- | --- |
//! | `mod.rs` | the allocation modes, the cache of freed medium blocks and what it keeps, the reservations of large blocks, the backend |
//! | `raw.rs` | allocation, release and growth of blocks; fills and strided copies of held regions, split across threads when large; page population |
//! | `team.rs` | the copy threads, started once and parked between the pieces of large copies and zeroings |

mod raw;
mod team;

pub(crate) use raw::{allocate, clear, copy, copy_split, deallocate, fill, grow_in_place, populate, run_scoped};
use super::{Backend, Block, Held, Transfer};
use crate::space::{Stream, ALIGNMENT};
use crate::error::{bail, Error, Result};
use std::ptr::NonNull;

/// The host backend.
pub(crate) struct HostBackend;
pub(crate) static HOST: HostBackend = HostBackend;

/// Host allocation strategy by size, in the default (fast) mode:
///
/// | size | source | zeroing |
/// | --- | --- | --- |
/// | below [`MEDIUM`] | the system allocator | memset |
/// | [`MEDIUM`] to [`LARGE`] | kernel pages, recycled through a small cache of freed blocks | fresh pages are zero; a recycled block is memset while hot (on several threads from 8 MiB) |
/// | from [`LARGE`] | kernel pages (`mmap`, huge pages advised) | fresh pages are zero, faulted in on first touch |
///
/// The system allocator must memset when the alignment exceeds 16 and moves
/// its own mmap and trim thresholds at run time, which made creation cost
/// depend on heap history; owning the medium and large blocks makes it steady.
/// Checkers see through none of that, so two other modes exist ([`Mode`]).
pub(crate) const MEDIUM: usize = 256 << 10;
/// See [`MEDIUM`].
pub(crate) const LARGE: usize = 32 << 20;
/// The most bytes the cache of freed medium blocks keeps.
const CACHE_BYTES: usize = 64 << 20;
pub(crate) const PAGE: usize = crate::space::HOST_PAGE;

/// How host memory is obtained (chosen once per process).
///
/// | mode | chosen by | allocation | free |
/// | --- | --- | --- | --- |
/// | `Fast` | default | the table of [`MEDIUM`] | cache or `munmap` |
/// | `System` | `DV_SYSTEM_ALLOCATOR=1`; automatic under valgrind, AddressSanitizer and Miri | the system allocator for every size, so the checker tracks each block | `free` |
/// | `Guard` | `DV_DEBUG_MEMORY=1` | fresh pages for every block | pages made inaccessible and never reused: a stale pointer faults |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Fast,
    System,
    Guard,
}

/// The host allocation mode of this process.
pub(crate) fn mode() -> Mode {
    static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| {
        let on = crate::env::switch;
        if cfg!(miri) || !cfg!(unix) {
            Mode::System
        } else if on("DV_DEBUG_MEMORY") {
            Mode::Guard
        } else if on("DV_SYSTEM_ALLOCATOR") || under_checker() {
            Mode::System
        } else {
            Mode::Fast
        }
    })
}

/// Whether valgrind or AddressSanitizer watches this process: valgrind
/// preloads its `vgpreload_*` libraries; an ASan-instrumented program exports
/// `__asan_init`.
fn under_checker() -> bool {
    if crate::env::value("LD_PRELOAD").is_some_and(|p| p.contains("vgpreload")) {
        return true;
    }
    raw::exports_asan()
}

/// Freed medium blocks: (page-rounded size, address).
static CACHE: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

/// Which freed blocks the cache keeps: only those of a size that churns, one
/// that was freed and then asked for again (a temporary made each step, a
/// DualView created anew, a neighbor list reallocated at the same size). A size
/// a program only grows through (LAMMPS grows its per-atom arrays by 1 % at a
/// time) is never asked for again once freed, so its blocks go back to the
/// kernel at once and the cache holds nothing nobody will ask for
/// (docs/DECISIONS.md S3). Each list is short and remembers the latest sizes.
struct Churn {
    /// Page-rounded sizes of the latest medium blocks freed.
    freed: std::collections::VecDeque<usize>,
    /// Sizes asked for again after a block of that size was freed.
    churning: std::collections::VecDeque<usize>,
}
static CHURN: std::sync::Mutex<Churn> =
    std::sync::Mutex::new(Churn { freed: std::collections::VecDeque::new(), churning: std::collections::VecDeque::new() });
/// How many sizes each list of [`Churn`] remembers.
const CHURN_LEN: usize = 64;

impl Churn {
    fn remember(list: &mut std::collections::VecDeque<usize>, size: usize) {
        if let Some(k) = list.iter().position(|&s| s == size) {
            list.remove(k);
        } else if list.len() == CHURN_LEN {
            list.pop_front();
        }
        list.push_back(size);
    }
    /// A medium request of `size` bytes that the cache did not serve.
    fn asked(size: usize) {
        let mut c = CHURN.lock().unwrap_or_else(|e| e.into_inner());
        if c.freed.contains(&size) {
            Self::remember(&mut c.churning, size);
        }
    }
    /// A medium block of `size` bytes is freed: whether the cache should keep it.
    fn keep(size: usize) -> bool {
        let mut c = CHURN.lock().unwrap_or_else(|e| e.into_inner());
        Self::remember(&mut c.freed, size);
        c.churning.contains(&size)
    }
}

/// Large blocks reserve more address space than they use, so that growing
/// them keeps their address and contents (no copy): base -> reserved bytes.
/// The unused part is inaccessible and costs no memory.
static RESERVED: std::sync::Mutex<std::collections::BTreeMap<usize, usize>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Address space reserved for a large block of `bytes`: room to double, at least.
fn reservation(bytes: usize) -> usize {
    const HUGE: usize = 2 << 20;
    let want = bytes.saturating_mul(2).max(bytes.saturating_add(LARGE));
    want.checked_next_multiple_of(HUGE).unwrap_or(usize::MAX - (HUGE - 1))
}

fn rounded(bytes: usize) -> usize {
    bytes.div_ceil(PAGE) * PAGE
}

/// The error of a host allocation of `bytes` that the system refused (`why`).
fn refused(bytes: usize, why: impl std::fmt::Display) -> Error {
    Error::new(
        crate::ErrorKind::OutOfMemory,
        format!("host allocation of {bytes} bytes ({}) failed: the system cannot commit that much memory ({why})", human(bytes)),
    )
}

/// `bytes` for people: "512 GiB", "1.5 MiB", "100 bytes".
fn human(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut unit = "bytes";
    for u in UNITS {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    if unit == "bytes" {
        format!("{bytes} bytes")
    } else if v.fract() == 0.0 {
        format!("{v} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// The address every empty allocation gets: aligned, never dereferenced.
pub(crate) fn dangling() -> NonNull<u8> {
    NonNull::new(ALIGNMENT as *mut u8).expect("ALIGNMENT is not zero")
}

/// Whether [`grow_in_place`] would succeed.
pub(crate) fn can_grow_in_place(ptr: NonNull<u8>, old: usize, new: usize) -> bool {
    if !cfg!(unix) || new < old || mode() != Mode::Fast || old < LARGE {
        return false;
    }
    RESERVED.lock().unwrap_or_else(|e| e.into_inner()).get(&(ptr.as_ptr() as usize)).is_some_and(|&total| rounded(new) <= total)
}

/// The alignment of a block from the system allocator: whole pages for a
/// multiple of the page size (a small mirror asks for that, so that its
/// registration with a driver never shares a page with another block), else
/// [`ALIGNMENT`].
const fn small_align(bytes: usize) -> usize {
    if bytes.is_multiple_of(PAGE) { PAGE } else { ALIGNMENT }
}

/// Threads for a large host copy or zeroing (and, at most 8 of them, for
/// faulting in a mirror's pages before its registration): `DV_COPY_THREADS`,
/// else the cores, at most 16. A 1 GiB copy into fresh pages on the H200's
/// host: 51.7 ms on 8 threads, 40.1 ms on 16.
pub(crate) fn copy_threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        crate::env::value("DV_COPY_THREADS")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(16)))
            .max(1)
    })
}


impl Backend for HostBackend {
    fn allocate(&self, _ordinal: u32, bytes: usize, zeroed: bool) -> Result<Block> {
        allocate(bytes, zeroed)
    }
    fn deallocate(&self, _ordinal: u32, block: Block) {
        deallocate(block)
    }
    fn fill(&self, _ordinal: u32, dst: &Held<'_>, value: &[u8], _stream: Stream) -> Result<()> {
        fill(dst, value)
    }
    fn fence(&self, _ordinal: u32) -> Result<()> {
        Ok(())
    }
    fn transfer(&self, _ordinal: u32, t: &Transfer<'_>) -> Result<()> {
        if !t.dst().is_host_accessible() || !t.src().is_host_accessible() {
            bail!(Internal, "the host backend cannot copy {} -> {}", t.src(), t.dst());
        }
        t.pairs().iter().try_for_each(copy)
    }
    fn grow_in_place(&self, _ordinal: u32, block: &Block, new: usize) -> Result<bool> {
        grow_in_place(block, new)
    }
    fn can_grow_in_place(&self, _ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> bool {
        can_grow_in_place(ptr, old, new)
    }
}

