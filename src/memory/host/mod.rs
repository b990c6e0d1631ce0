//! Host memory: aligned allocation and strided fill/copy by contiguous runs.

mod parallel;

pub(crate) use parallel::{copy, copy_threads};
use parallel::zero;
use super::{Backend, Transfer};
use crate::space::{Region, Stream, ALIGNMENT};
use crate::error::{bail, Error, Result};
use crate::layout::for_each_run;
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::ptr::{self, NonNull};

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
    #[cfg(all(unix, not(miri)))]
    {
        // SAFETY: dlsym with the default handle and a NUL-terminated name only looks the symbol up.
        let asan = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__asan_init".as_ptr()) };
        if !asan.is_null() {
            return true;
        }
    }
    false
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

/// The address every empty allocation gets: aligned, never dereferenced.
pub(crate) fn dangling() -> NonNull<u8> {
    // SAFETY: ALIGNMENT is non-zero.
    unsafe { NonNull::new_unchecked(ALIGNMENT as *mut u8) }
}

/// Allocate `bytes` aligned to [`ALIGNMENT`]; zero bytes give [`dangling`].
pub(crate) fn allocate(bytes: usize, zeroed: bool) -> Result<NonNull<u8>> {
    if bytes == 0 {
        return Ok(dangling());
    }
    #[cfg(unix)]
    match mode() {
        Mode::Guard => return map(bytes),
        Mode::Fast if bytes >= LARGE => return reserve(bytes),
        Mode::Fast if bytes >= MEDIUM => {
            let size = rounded(bytes);
            if bytes < LARGE {
                let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(k) = cache.iter().position(|&(s, _)| s == size) {
                    let (_, addr) = cache.swap_remove(k);
                    drop(cache);
                    let p = addr as *mut u8;
                    if zeroed {
                        // SAFETY: a cached block of `size` >= `bytes` bytes, owned by nobody else.
                        unsafe { zero(p, bytes) };
                    }
                    return Ok(NonNull::new(p).expect("cached blocks are non-null"));
                }
                drop(cache);
                Churn::asked(size);
            }
            return map(bytes);
        }
        _ => {}
    }
    let Ok(layout) = Layout::from_size_align(bytes, small_align(bytes)) else {
        bail!(Overflow, "an allocation of {bytes} bytes is too large");
    };
    // SAFETY: layout has a non-zero size.
    let p = unsafe { if zeroed { alloc_zeroed(layout) } else { alloc(layout) } };
    match NonNull::new(p) {
        Some(p) => Ok(p),
        None => Err(refused(bytes, "the system allocator returned NULL")),
    }
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

/// Anonymous private pages for `bytes` (page-rounded): zero-filled by the
/// kernel, page-aligned, charged (committed) at once, so that the kernel
/// refuses here what it could not back later (ENOMEM: `OutOfMemory`).
#[cfg(unix)]
fn map(bytes: usize) -> Result<NonNull<u8>> {
    let size = rounded(bytes);
    // SAFETY: an anonymous private mapping touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(refused(bytes, std::io::Error::last_os_error()));
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on our own fresh mapping; failure only means no huge pages.
    unsafe {
        libc::madvise(p, size, libc::MADV_HUGEPAGE);
    }
    Ok(NonNull::new(p as *mut u8).expect("mmap never returns null on success"))
}

/// A large block: `reservation(bytes)` of address space, the first `bytes`
/// (page-rounded) usable. Fresh pages: zero.
///
/// Honest about memory: the reservation is an inaccessible private mapping,
/// which the kernel does not charge; making the used part read-write charges
/// (commits) exactly that part, and fails with ENOMEM when the kernel cannot
/// back it (in the default heuristic overcommit mode: more than RAM + swap),
/// so the block is refused here, as malloc refuses it. Address space kept for
/// growth costs nothing; growing charges the new pages ([`grow_in_place`]).
/// Never `MAP_NORESERVE`: it would exempt the pages from the charge.
#[cfg(unix)]
fn reserve(bytes: usize) -> Result<NonNull<u8>> {
    const HUGE: usize = 2 << 20;
    let size = rounded(bytes);
    let total = reservation(bytes);
    let Some(asked) = total.checked_add(HUGE) else {
        return map(bytes); // no address space to spare: an exact mapping
    };
    // SAFETY: an anonymous inaccessible reservation touches no existing memory.
    let raw = unsafe { libc::mmap(std::ptr::null_mut(), asked, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    if raw == libc::MAP_FAILED {
        return map(bytes); // no address space to spare: an exact mapping
    }
    // Start on a huge-page boundary, so that the kernel can back the block with
    // 2 MiB pages from its first byte (faulting them in is several times faster).
    let head = (raw as usize).next_multiple_of(HUGE) - raw as usize;
    let p = (raw as usize + head) as *mut libc::c_void;
    // SAFETY: the unaligned head and the tail of our own reservation, outside [p, p + total).
    unsafe {
        if head > 0 {
            libc::munmap(raw, head);
        }
        libc::munmap((p as usize + total) as *mut libc::c_void, HUGE - head);
    }
    // SAFETY: the first `size` bytes of our own reservation.
    if unsafe { libc::mprotect(p, size, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: the reservation made above.
        unsafe { libc::munmap(p, total) };
        return Err(refused(bytes, e));
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on our own reservation; failure only means no huge pages.
    unsafe {
        libc::madvise(p, total, libc::MADV_HUGEPAGE);
    }
    RESERVED.lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize, total);
    Ok(NonNull::new(p as *mut u8).expect("mmap never returns null on success"))
}

/// Whether [`grow_in_place`] would succeed.
pub(crate) fn can_grow_in_place(ptr: NonNull<u8>, old: usize, new: usize) -> bool {
    if !cfg!(unix) || new < old || mode() != Mode::Fast || old < LARGE {
        return false;
    }
    RESERVED.lock().unwrap_or_else(|e| e.into_inner()).get(&(ptr.as_ptr() as usize)).is_some_and(|&total| rounded(new) <= total)
}

/// Grow a block from [`allocate`] in place to `new` bytes, keeping its
/// address and contents (the new bytes are zero). `Ok(false)` when it cannot:
/// only large blocks of the fast mode grow in place, within their
/// reservation. `OutOfMemory` when the kernel cannot commit the new pages
/// (the block is unchanged).
///
/// # Safety
/// `ptr` and `old` come from [`allocate`] (or an earlier grow); `new >= old`.
pub(crate) unsafe fn grow_in_place(ptr: NonNull<u8>, old: usize, new: usize) -> Result<bool> {
    #[cfg(unix)]
    {
        if new < old || mode() != Mode::Fast || old < LARGE {
            return Ok(false);
        }
        let reserved = RESERVED.lock().unwrap_or_else(|e| e.into_inner()).get(&(ptr.as_ptr() as usize)).copied();
        let Some(total) = reserved else { return Ok(false) };
        let (from, to) = (rounded(old), rounded(new));
        if to > total {
            return Ok(false);
        }
        if to > from {
            // SAFETY: pages of our own reservation past the usable part; they
            // were never accessible, so they are zero when first touched.
            // Making them writable charges them: ENOMEM when they cannot be backed.
            if unsafe { libc::mprotect(ptr.as_ptr().add(from) as *mut libc::c_void, to - from, libc::PROT_READ | libc::PROT_WRITE) }
                != 0
            {
                let e = std::io::Error::last_os_error();
                bail!(
                    OutOfMemory,
                    "growing a host block from {old} to {new} bytes in place failed: the system cannot commit {} more ({e})",
                    human(to - from)
                );
            }
        }
        Ok(true)
    }
    #[cfg(not(unix))]
    {
        let _ = (ptr, old, new);
        Ok(false)
    }
}

/// Free memory from [`allocate`].
///
/// # Safety
/// `ptr` and `bytes` come from one call of [`allocate`].
pub(crate) unsafe fn deallocate(ptr: NonNull<u8>, bytes: usize) {
    if bytes == 0 {
        return;
    }
    #[cfg(unix)]
    match mode() {
        Mode::Guard => {
            // Keep the pages reserved but inaccessible: a stale pointer faults
            // instead of reaching the next array. Physical memory is returned.
            let size = rounded(bytes);
            // SAFETY: the mapping was made by `map` with this (rounded) length.
            unsafe {
                libc::madvise(ptr.as_ptr() as *mut libc::c_void, size, libc::MADV_DONTNEED);
                libc::mprotect(ptr.as_ptr() as *mut libc::c_void, size, libc::PROT_NONE);
            }
            return;
        }
        Mode::Fast if bytes >= MEDIUM => {
            let size = rounded(bytes);
            if let Some(total) = RESERVED.lock().unwrap_or_else(|e| e.into_inner()).remove(&(ptr.as_ptr() as usize)) {
                // SAFETY: the whole reservation made by `reserve`.
                unsafe { libc::munmap(ptr.as_ptr() as *mut libc::c_void, total) };
                return;
            }
            if bytes < LARGE && Churn::keep(size) {
                let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
                let held: usize = cache.iter().map(|&(s, _)| s).sum();
                // At most two blocks of a size (a DualView's two sides, on the test device):
                // more would wait unused while the program asks for others.
                if held + size <= CACHE_BYTES && cache.iter().filter(|&&(s, _)| s == size).count() < 2 {
                    cache.push((size, ptr.as_ptr() as usize));
                    return;
                }
            }
            // SAFETY: the mapping was made by `map` with this (rounded) length.
            unsafe { libc::munmap(ptr.as_ptr() as *mut libc::c_void, size) };
            return;
        }
        _ => {}
    }
    // SAFETY: same layout as in `allocate` (checked there).
    unsafe { dealloc(ptr.as_ptr(), Layout::from_size_align_unchecked(bytes, small_align(bytes))) };
}

/// The alignment of a block from the system allocator: whole pages for a
/// multiple of the page size (a small mirror asks for that, so that its
/// registration with a driver never shares a page with another block), else
/// [`ALIGNMENT`].
const fn small_align(bytes: usize) -> usize {
    if bytes.is_multiple_of(PAGE) { PAGE } else { ALIGNMENT }
}

/// Fill a host region with one element's bytes.
///
/// # Safety
/// `dst` lies inside live host memory that no one else accesses meanwhile.
pub(crate) unsafe fn fill(dst: &Region, value: &[u8]) {
    let es = dst.elem_size;
    debug_assert_eq!(value.len(), es);
    let uniform = value.iter().all(|&b| b == value[0]);
    for_each_run(dst.extents.as_slice(), dst.strides.as_slice(), |off, n| {
        // SAFETY: every run lies inside the region (mapping invariants).
        unsafe {
            let p = dst.ptr.add(off * es);
            if uniform {
                ptr::write_bytes(p, value[0], n * es);
                return;
            }
            ptr::copy_nonoverlapping(value.as_ptr(), p, es);
            // Double the filled prefix until the run is full.
            let total = n * es;
            let mut done = es;
            while done < total {
                let k = done.min(total - done);
                ptr::copy_nonoverlapping(p, p.add(done), k);
                done += k;
            }
        }
    });
}

/// Fault in the pages of `[ptr, ptr + bytes)` for writing, keeping their
/// contents (`MADV_POPULATE_WRITE`): the kernel zeroes fresh pages here, where
/// the driver's registration of an unwritten block would fault them in one by
/// one. One thread; the mirror registration (`super::registration`) calls it,
/// through a backend's `HostDriver`, for chunks on several. Best effort:
/// errors (older kernels, memory not from `mmap`) leave the pages to fault later.
pub(crate) fn populate(ptr: *mut u8, bytes: usize) {
    // One call per 2 MiB: the kernel holds the process's mmap lock during each
    // call, and every mmap, munmap and mprotect (the driver's cuMemAlloc
    // included) waits for it. On the H200 a device grow took 166 ms during a
    // 1 GiB populate in whole-range calls, against 0.7 ms alone.
    const STEP: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize).saturating_add(bytes) / PAGE * PAGE;
    let mut at = start;
    while at < end {
        let len = STEP.min(end - at);
        #[cfg(target_os = "linux")]
        // SAFETY: advice on whole pages inside a live mapping the caller owns; it changes no contents.
        unsafe {
            libc::madvise(at as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE);
        }
        at += len;
    }
}

impl Backend for HostBackend {
    fn allocate(&self, _ordinal: u32, bytes: usize, zeroed: bool) -> Result<NonNull<u8>> {
        allocate(bytes, zeroed)
    }
    unsafe fn deallocate(&self, _ordinal: u32, ptr: NonNull<u8>, bytes: usize) {
        // SAFETY: forwarded contract.
        unsafe { deallocate(ptr, bytes) }
    }
    unsafe fn fill(&self, _ordinal: u32, dst: &Region, value: &[u8], _stream: Stream) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { fill(dst, value) };
        Ok(())
    }
    fn fence(&self, _ordinal: u32) -> Result<()> {
        Ok(())
    }
    unsafe fn transfer(&self, _ordinal: u32, t: &Transfer<'_>) -> Result<()> {
        if !t.dst.is_host_accessible() || !t.src.is_host_accessible() {
            bail!(Internal, "the host backend cannot copy {} -> {}", t.src, t.dst);
        }
        for (d, s) in t.pairs {
            // SAFETY: forwarded contract, for every pair.
            unsafe { copy(d, s) };
        }
        Ok(())
    }
    unsafe fn grow_in_place(&self, _ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> Result<bool> {
        // SAFETY: forwarded contract.
        unsafe { grow_in_place(ptr, old, new) }
    }
    fn can_grow_in_place(&self, _ordinal: u32, ptr: NonNull<u8>, old: usize, new: usize) -> bool {
        can_grow_in_place(ptr, old, new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn populating_pages_keeps_what_was_written() {
        let bytes = 40 << 20;
        let p = allocate(bytes, true).unwrap();
        // SAFETY: our own block of `bytes` bytes.
        unsafe {
            *p.as_ptr() = 7;
            *p.as_ptr().add(bytes / 2 + 3) = 9;
            populate(p.as_ptr(), bytes);
            assert_eq!((*p.as_ptr(), *p.as_ptr().add(bytes / 2 + 3), *p.as_ptr().add(bytes - 1)), (7, 9, 0));
            deallocate(p, bytes);
        }
    }

    #[test]
    fn large_blocks_grow_in_place_keeping_contents() {
        if mode() != Mode::Fast {
            return;
        }
        let n = LARGE + 100;
        let p = allocate(n, true).unwrap();
        // SAFETY: n fresh bytes; then the grown block of 2n, then freed.
        unsafe {
            ptr::write_bytes(p.as_ptr(), 7, n);
            assert!(grow_in_place(p, n, 2 * n).unwrap());
            let all = std::slice::from_raw_parts(p.as_ptr(), 2 * n);
            assert!(all[..n].iter().all(|&b| b == 7) && all[n..].iter().all(|&b| b == 0));
            assert!(!grow_in_place(p, 2 * n, 100 * n).unwrap(), "beyond the reservation");
            deallocate(p, 2 * n);
        }
    }

    #[test]
    fn large_copies_split_across_threads_copy_everything() {
        use crate::extents::DynRank;
        use crate::layout::Strides;
        let (rows, cols) = (2048usize, 4100usize); // 8-byte elements: 64 MiB, strided source
        let mut src = vec![0u64; rows * (cols + 3)];
        for (k, x) in src.iter_mut().enumerate() {
            *x = k as u64;
        }
        let mut dst = vec![0u64; rows * cols];
        let ext = DynRank::new(&[rows, cols]).unwrap();
        let s = Region { ptr: src.as_mut_ptr() as *mut u8, elem_size: 8, extents: ext, strides: Strides::from_slice(&[cols + 3, 1]) };
        let d = Region { ptr: dst.as_mut_ptr() as *mut u8, elem_size: 8, extents: ext, strides: Strides::from_slice(&[cols, 1]) };
        // SAFETY: two distinct live vectors holding the regions.
        unsafe { copy(&d, &s) };
        for i in [0, 1, rows / 2, rows - 1] {
            for j in [0, 17, cols - 1] {
                assert_eq!(dst[i * cols + j], (i * (cols + 3) + j) as u64);
            }
        }
    }

    #[test]
    fn a_size_only_grown_through_goes_back_to_the_kernel() {
        if mode() != Mode::Fast {
            return;
        }
        // LAMMPS' grows: three arrays of each size, each size freed once the next is made
        // (odd sizes that no other test uses).
        let size = |k: usize| MEDIUM + 7 * PAGE + k * 101 * PAGE;
        let mut live: Vec<NonNull<u8>> = (0..3).map(|_| allocate(size(0), true).unwrap()).collect();
        for k in 1..8 {
            for b in live.iter_mut() {
                let grown = allocate(size(k), true).unwrap();
                let old = std::mem::replace(b, grown);
                // SAFETY: the block of the last size, ours.
                unsafe { deallocate(old, size(k - 1)) };
                let kept = CACHE.lock().unwrap().iter().any(|&(_, a)| a == old.as_ptr() as usize);
                assert!(!kept, "a block of a size grown through is not kept ({} bytes)", size(k - 1));
            }
        }
        for b in live {
            // SAFETY: the blocks of the last size, ours.
            unsafe { deallocate(b, size(7)) };
        }
    }

    #[test]
    fn the_cache_keeps_two_blocks_of_a_size_at_most() {
        if mode() != Mode::Fast {
            return;
        }
        let n = MEDIUM + 3 * PAGE + 77 * PAGE; // a size no other test uses
        let first = allocate(n, false).unwrap();
        // SAFETY: n bytes of our own; then the size churns.
        unsafe { deallocate(first, n) };
        let blocks: Vec<NonNull<u8>> = (0..4).map(|_| allocate(n, false).unwrap()).collect();
        for b in &blocks {
            // SAFETY: n bytes of our own.
            unsafe { deallocate(*b, n) };
        }
        let kept = CACHE.lock().unwrap().iter().filter(|&&(s, _)| s == rounded(n)).count();
        assert_eq!(kept, 2, "four blocks of a churning size freed, two kept");
    }

    #[test]
    fn recycled_medium_blocks_come_back_zeroed() {
        for n in [MEDIUM + 123, (16 << 20) + 123] {
            recycled_block_comes_back_zeroed(n);
        }
    }

    /// A block of `n` bytes, dirtied and freed, is zero when allocated again
    /// (16 MiB: zeroed on several threads where there are cores).
    fn recycled_block_comes_back_zeroed(n: usize) {
        // Free the size, then ask for it again: the cache keeps sizes that churn.
        let first = allocate(n, false).unwrap();
        // SAFETY: n bytes of our own.
        unsafe { deallocate(first, n) };
        let p = allocate(n, true).unwrap();
        // SAFETY: n bytes of our own, zeroed.
        unsafe {
            assert!(std::slice::from_raw_parts(p.as_ptr(), n).iter().all(|&b| b == 0));
            ptr::write_bytes(p.as_ptr(), 0xAB, n);
            deallocate(p, n);
        }
        let q = allocate(n, true).unwrap();
        if mode() == Mode::Fast {
            assert_eq!(q, p, "a size that churns comes back from the cache");
        }
        // SAFETY: n bytes, zeroed on reuse.
        unsafe {
            assert!(std::slice::from_raw_parts(q.as_ptr(), n).iter().all(|&b| b == 0));
            assert_eq!(q.as_ptr() as usize % ALIGNMENT, 0);
            deallocate(q, n);
        }
    }
}
