//! Every raw access to host memory, and the only `unsafe` of the host
//! engine: blocks from the system allocator or the kernel (`mmap`, reserved
//! address space that grows in place), their release, fills and strided
//! copies of held regions (large ones split across threads), faulting pages
//! in, and the one symbol lookup that tells AddressSanitizer is watching.
//! The policy (which mode, which block is kept) is `mod.rs`'.

use super::{human, mode, refused, reservation, rounded, small_align, Churn, Mode, CACHE, CACHE_BYTES, LARGE, MEDIUM, PAGE, RESERVED};
use crate::error::{bail, Result};
use crate::layout::{for_each_outer, for_each_run, plan};
use crate::memory::{Block, Held, Pair};
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::ptr::{self, NonNull};
use std::sync::Arc;

/// Whether this process exports `__asan_init` (AddressSanitizer instruments it).
pub(super) fn exports_asan() -> bool {
    #[cfg(all(unix, not(miri)))]
    {
        // SAFETY: dlsym with the default handle and a NUL-terminated name only looks the symbol up.
        let asan = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__asan_init".as_ptr()) };
        !asan.is_null()
    }
    #[cfg(not(all(unix, not(miri))))]
    false
}

/// Allocate `bytes` aligned to [`ALIGNMENT`]; zero bytes give [`dangling`].
pub(crate) fn allocate(bytes: usize, zeroed: bool) -> Result<Block> {
    if bytes == 0 {
        return Ok(Block::empty(super::dangling()));
    }
    let p = allocate_ptr(bytes, zeroed)?;
    // SAFETY: the block of `bytes` just allocated here; the token is its only owner.
    Ok(unsafe { Block::from_raw(p, bytes) })
}

/// [`allocate`]'s address, for more than 0 bytes.
fn allocate_ptr(bytes: usize, zeroed: bool) -> Result<NonNull<u8>> {
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

/// Grow `block`, from [`allocate`], in place to `new` bytes, keeping its
/// address and contents (the new bytes are zero). `Ok(false)` when it cannot:
/// only large blocks of the fast mode grow in place, within their
/// reservation. `OutOfMemory` when the kernel cannot commit the new pages
/// (the block is unchanged).
pub(crate) fn grow_in_place(block: &Block, new: usize) -> Result<bool> {
    let (ptr, old) = (block.ptr(), block.bytes());
    #[cfg(unix)]
    {
        if new < old || mode() != Mode::Fast || old < LARGE {
            return Ok(false);
        }
        let reserved = RESERVED.lock().unwrap_or_else(|e| e.into_inner()).get(&(ptr as usize)).copied();
        let Some(total) = reserved else { return Ok(false) };
        let (from, to) = (rounded(old), rounded(new));
        if to > total {
            return Ok(false);
        }
        if to > from {
            // SAFETY: pages of our own reservation past the usable part; they
            // were never accessible, so they are zero when first touched.
            // Making them writable charges them: ENOMEM when they cannot be backed.
            if unsafe { libc::mprotect(ptr.add(from) as *mut libc::c_void, to - from, libc::PROT_READ | libc::PROT_WRITE) }
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

/// Free a block from [`allocate`].
/// Zero bytes `from..to` of an owned block (a kept block handed to a new
/// owner), on several threads when large; the range is clipped to the block.
pub(crate) fn clear(block: &Block, from: usize, to: usize) {
    let to = to.min(block.bytes());
    if from < to {
        // SAFETY: the token owns the block (nobody else uses it) and `from..to` lies inside it.
        unsafe { zero(block.ptr().add(from), to - from) };
    }
}

pub(crate) fn deallocate(block: Block) {
    let (ptr, bytes) = (block.ptr(), block.bytes());
    if bytes == 0 {
        return;
    }
    #[cfg(unix)]
    match mode() {
        Mode::Guard => {
            // Keep the pages reserved but inaccessible: a stale pointer faults
            // instead of reaching the next array. Physical memory is returned.
            let size = rounded(bytes);
            // SAFETY: the Block proves a mapping made by `map` with this (rounded) length, unused now.
            unsafe {
                libc::madvise(ptr as *mut libc::c_void, size, libc::MADV_DONTNEED);
                libc::mprotect(ptr as *mut libc::c_void, size, libc::PROT_NONE);
            }
            return;
        }
        Mode::Fast if bytes >= MEDIUM => {
            let size = rounded(bytes);
            if let Some(total) = RESERVED.lock().unwrap_or_else(|e| e.into_inner()).remove(&(ptr as usize)) {
                // SAFETY: the whole reservation made by `reserve`.
                unsafe { libc::munmap(ptr as *mut libc::c_void, total) };
                return;
            }
            if bytes < LARGE && Churn::keep(size) {
                let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
                let held: usize = cache.iter().map(|&(s, _)| s).sum();
                // At most two blocks of a size (a DualView's two sides, on the test device):
                // more would wait unused while the program asks for others.
                if held + size <= CACHE_BYTES && cache.iter().filter(|&&(s, _)| s == size).count() < 2 {
                    cache.push((size, ptr as usize));
                    return;
                }
            }
            // SAFETY: the mapping was made by `map` with this (rounded) length.
            unsafe { libc::munmap(ptr as *mut libc::c_void, size) };
            return;
        }
        _ => {}
    }
    // SAFETY: same layout as in `allocate` (checked there).
    unsafe { dealloc(ptr, Layout::from_size_align_unchecked(bytes, small_align(bytes))) };
}

/// Fill a held host region with one element's bytes: `Internal` (nothing
/// written) unless it may be written with that value, in host memory.
pub(crate) fn fill(dst: &Held<'_>, value: &[u8]) -> Result<()> {
    dst.check_fill(dst.space(), value)?;
    if !dst.space().is_host_accessible() {
        bail!(Internal, "a host fill of {} (a dualview bug)", dst.space());
    }
    let dst = dst.region();
    let es = dst.elem_size;
    debug_assert_eq!(value.len(), es);
    let uniform = value.iter().all(|&b| b == value[0]);
    for_each_run(dst.extents.as_slice(), dst.strides.as_slice(), |off, n| {
        // SAFETY: every run lies inside the held region (mapping invariants).
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
    Ok(())
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


/// `total` bytes cut into at most `threads` pieces of whole pages (the last
/// one shorter): `(offset, length)` of each.
fn page_parts(total: usize, threads: usize) -> impl Iterator<Item = (usize, usize)> {
    let chunk = total.div_ceil(threads.max(1)).next_multiple_of(4096).max(1);
    (0..total).step_by(chunk).map(move |start| (start, chunk.min(total - start)))
}

/// Copies of at least this many bytes are split across threads.
const PARALLEL_COPY: usize = 32 << 20;

/// Recycled blocks of at least twice this many bytes are zeroed on several threads.
const PARALLEL_ZERO: usize = 4 << 20;

/// Zero `[p, p + bytes)`, on up to [`copy_threads`] threads of at least
/// [`PARALLEL_ZERO`] bytes each: on the H200's host one thread zeroes a hot
/// 16 MiB in 1.29 ms, four in 0.32 ms (docs/BENCHMARKS.md, "Host memory and
/// the driver's floor").
///
/// # Safety
/// The range is live memory that nobody else accesses meanwhile.
unsafe fn zero(p: *mut u8, bytes: usize) {
    let threads = if cfg!(miri) { 1 } else { super::copy_threads().min(bytes / PARALLEL_ZERO) };
    if threads <= 1 {
        // SAFETY: forwarded contract.
        unsafe { ptr::write_bytes(p, 0, bytes) };
        return;
    }
    let base = Ptrs(p, p);
    let parts: Vec<(usize, usize)> = page_parts(bytes, threads).collect();
    // SAFETY: each piece is a disjoint part of the range, and `run` returns once every piece has run.
    super::team::run(parts.len(), Arc::new(move |i| unsafe { base.offset(parts[i].0, parts[i].0).zero(parts[i].1) }));
}

/// `team::run` for pieces that borrow from the caller (the device engine's
/// lanes, `device/pipeline.rs`): returns once every piece has run.
pub(crate) fn run_scoped(pieces: usize, f: &(dyn Fn(usize) + Sync)) {
    // SAFETY: `team::run` returns only once every piece has run, and every piece's index was
    // taken before: `f` is never called after this function returns. A team thread may drop
    // its handle of the job later, which drops this reference without reading through it.
    let f = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(f) };
    super::team::run(pieces, Arc::new(f));
}

/// Two raw pointers handed to the threads of one copy.
#[derive(Clone, Copy)]
struct Ptrs(*mut u8, *const u8);
// SAFETY: each thread of `copy` (or `zero`) writes a disjoint part of the
// destination and reads the (unchanging) source; `team::run` returns only once
// every piece has run, and no piece runs after.
unsafe impl Send for Ptrs {}
// SAFETY: as `Send`: the pieces share the two addresses, each using its own part.
unsafe impl Sync for Ptrs {}

impl Ptrs {
    /// Both pointers advanced by `d` and `s` bytes.
    ///
    /// # Safety
    /// The results stay inside the regions the pointers address.
    unsafe fn offset(self, d: usize, s: usize) -> Ptrs {
        // SAFETY: forwarded contract.
        unsafe { Ptrs(self.0.add(d), self.1.add(s)) }
    }

    /// Copy `n` bytes from the source pointer to the destination pointer.
    ///
    /// # Safety
    /// As `ptr::copy_nonoverlapping` for the two pointers.
    unsafe fn copy(self, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { ptr::copy_nonoverlapping(self.1, self.0, n) }
    }

    /// Zero `n` bytes at the destination pointer.
    ///
    /// # Safety
    /// As `ptr::write_bytes` for the destination pointer.
    unsafe fn zero(self, n: usize) {
        // SAFETY: forwarded contract.
        unsafe { ptr::write_bytes(self.0, 0, n) }
    }
}

/// One copy between two host regions (a checked pair: one shape, no
/// overlap); `Internal` (nothing copied) when a party is not host memory.
/// Large copies are split across threads (fresh pages are faulted in in
/// parallel too).
pub(crate) fn copy(pair: &Pair<'_>) -> Result<()> {
    copy_split(pair, PARALLEL_COPY)
}

/// [`copy`], split across threads from `parallel` bytes (the staging
/// pipeline's chunks: every chunk on every copy thread).
pub(crate) fn copy_split(pair: &Pair<'_>, parallel: usize) -> Result<()> {
    let (dst, src) = (pair.dst(), pair.src());
    if !dst.space().is_host_accessible() || !src.space().is_host_accessible() {
        bail!(Internal, "a host copy {} -> {} (a dualview bug)", src.space(), dst.space());
    }
    let (dst, src) = (dst.region(), src.region());
    let es = dst.elem_size;
    debug_assert_eq!(es, src.elem_size);
    let Some((run, outer)) = plan(dst.extents.as_slice(), dst.strides.as_slice(), src.strides.as_slice()) else {
        return Ok(());
    };
    let bytes = run * es * outer.iter().map(|o| o.0).product::<usize>();
    let threads = if bytes >= parallel && !cfg!(miri) { super::copy_threads() } else { 1 };
    let p = Ptrs(dst.ptr, src.ptr);
    // SAFETY (both closures): every run lies inside its held region; the regions do not overlap.
    let copy_runs = move |p: Ptrs, outer: &[(usize, usize, usize)]| {
        for_each_outer(outer, |d, s| unsafe { p.offset(d * es, s * es).copy(run * es) });
    };
    if threads == 1 {
        copy_runs(p, &outer);
        return Ok(());
    }
    // Each piece below touches its own part of both regions; `run` returns once every piece has run.
    match outer.split_last() {
        None => {
            // One contiguous run: split its bytes.
            let parts: Vec<(usize, usize)> = page_parts(run * es, threads).collect();
            // SAFETY: a disjoint byte range of both live regions.
            super::team::run(parts.len(), Arc::new(move |i| unsafe { p.offset(parts[i].0, parts[i].0).copy(parts[i].1) }));
        }
        Some((&(extent, sd, ss), inner)) => {
            // Split the outermost axis.
            let per = extent.div_ceil(threads);
            let inner = inner.to_vec();
            super::team::run(
                extent.div_ceil(per),
                Arc::new(move |piece| {
                    for k in piece * per..((piece + 1) * per).min(extent) {
                        // SAFETY: index k of the outermost axis, inside both regions.
                        let q = unsafe { p.offset(k * sd * es, k * ss * es) };
                        copy_runs(q, &inner);
                    }
                }),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::{Region, Space, ALIGNMENT};

    /// The test's own block (from `allocate`), to free or grow.
    fn blk(p: NonNull<u8>, bytes: usize) -> Block {
        Block::for_test(p.as_ptr() as usize, bytes)
    }

    #[test]
    fn populating_pages_keeps_what_was_written() {
        let bytes = 40 << 20;
        let p = allocate_ptr(bytes, true).unwrap();
        // SAFETY: our own block of `bytes` bytes.
        unsafe {
            *p.as_ptr() = 7;
            *p.as_ptr().add(bytes / 2 + 3) = 9;
            populate(p.as_ptr(), bytes);
            assert_eq!((*p.as_ptr(), *p.as_ptr().add(bytes / 2 + 3), *p.as_ptr().add(bytes - 1)), (7, 9, 0));
            deallocate(blk(p, bytes));
        }
    }

    #[test]
    fn large_blocks_grow_in_place_keeping_contents() {
        if mode() != Mode::Fast {
            return;
        }
        let n = LARGE + 100;
        let p = allocate_ptr(n, true).unwrap();
        // SAFETY: n fresh bytes; then the grown block of 2n, then freed.
        unsafe {
            ptr::write_bytes(p.as_ptr(), 7, n);
            assert!(grow_in_place(&blk(p, n), 2 * n).unwrap());
            let all = std::slice::from_raw_parts(p.as_ptr(), 2 * n);
            assert!(all[..n].iter().all(|&b| b == 7) && all[n..].iter().all(|&b| b == 0));
            assert!(!grow_in_place(&blk(p, 2 * n), 100 * n).unwrap(), "beyond the reservation");
            deallocate(blk(p, 2 * n));
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
        copy(&Pair::new(Held::for_test(Space::HOST, d), Held::for_test(Space::HOST, s)).unwrap()).unwrap(); // two distinct live vectors hold them
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
        let mut live: Vec<NonNull<u8>> = (0..3).map(|_| allocate_ptr(size(0), true).unwrap()).collect();
        for k in 1..8 {
            for b in live.iter_mut() {
                let grown = allocate_ptr(size(k), true).unwrap();
                let old = std::mem::replace(b, grown);
                deallocate(blk(old, size(k - 1)));
                let kept = CACHE.lock().unwrap().iter().any(|&(_, a)| a == old.as_ptr() as usize);
                assert!(!kept, "a block of a size grown through is not kept ({} bytes)", size(k - 1));
            }
        }
        for b in live {
            deallocate(blk(b, size(7)));
        }
    }

    #[test]
    fn the_cache_keeps_two_blocks_of_a_size_at_most() {
        if mode() != Mode::Fast {
            return;
        }
        let n = MEDIUM + 3 * PAGE + 77 * PAGE; // a size no other test uses
        let first = allocate_ptr(n, false).unwrap();
        deallocate(blk(first, n));
        let blocks: Vec<NonNull<u8>> = (0..4).map(|_| allocate_ptr(n, false).unwrap()).collect();
        for b in &blocks {
            deallocate(blk(*b, n));
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
        let first = allocate_ptr(n, false).unwrap();
        deallocate(blk(first, n));
        let p = allocate_ptr(n, true).unwrap();
        // SAFETY: n bytes of our own, zeroed.
        unsafe {
            assert!(std::slice::from_raw_parts(p.as_ptr(), n).iter().all(|&b| b == 0));
            ptr::write_bytes(p.as_ptr(), 0xAB, n);
            deallocate(blk(p, n));
        }
        let q = allocate_ptr(n, true).unwrap();
        if mode() == Mode::Fast {
            assert_eq!(q, p, "a size that churns comes back from the cache");
        }
        // SAFETY: n bytes, zeroed on reuse.
        unsafe {
            assert!(std::slice::from_raw_parts(q.as_ptr(), n).iter().all(|&b| b == 0));
            assert_eq!(q.as_ptr() as usize % ALIGNMENT, 0);
            deallocate(blk(q, n));
        }
    }
}
