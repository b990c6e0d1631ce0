//! Host copies and zeroing split across threads: large copies (resize,
//! host-to-host syncs) and the zeroing of recycled blocks.

use crate::space::Region;
use crate::layout::{for_each_outer, plan};
use std::ptr;

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
pub(super) unsafe fn zero(p: *mut u8, bytes: usize) {
    let threads = if cfg!(miri) { 1 } else { copy_threads().min(bytes / PARALLEL_ZERO) };
    if threads <= 1 {
        // SAFETY: forwarded contract.
        unsafe { ptr::write_bytes(p, 0, bytes) };
        return;
    }
    let base = Ptrs(p, p);
    std::thread::scope(|scope| {
        for (start, n) in page_parts(bytes, threads) {
            // SAFETY: `start` lies inside the range.
            let q = unsafe { base.offset(start, start) };
            // SAFETY: a disjoint part of the range.
            scope.spawn(move || unsafe { q.zero(n) });
        }
    });
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

/// Two raw pointers handed to the threads of one copy.
#[derive(Clone, Copy)]
struct Ptrs(*mut u8, *const u8);
// SAFETY: each thread of `copy` (or `zero`) writes a disjoint part of the
// destination and reads the (unchanging) source; the scope joins them before returning.
unsafe impl Send for Ptrs {}

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

/// Copy between two host regions of equal extents. Large copies are split
/// across threads (fresh pages are faulted in in parallel too).
///
/// # Safety
/// Both regions lie inside live host memory and do not overlap.
pub(crate) unsafe fn copy(dst: &Region, src: &Region) {
    let es = dst.elem_size;
    debug_assert_eq!(es, src.elem_size);
    let Some((run, outer)) = plan(dst.extents.as_slice(), dst.strides.as_slice(), src.strides.as_slice()) else {
        return;
    };
    let bytes = run * es * outer.iter().map(|o| o.0).product::<usize>();
    let threads = if bytes >= PARALLEL_COPY && !cfg!(miri) { copy_threads() } else { 1 };
    let p = Ptrs(dst.ptr, src.ptr);
    // SAFETY (both closures): every run lies inside its region; the regions do not overlap.
    let copy_runs = move |p: Ptrs, outer: &[(usize, usize, usize)]| {
        for_each_outer(outer, |d, s| unsafe { p.offset(d * es, s * es).copy(run * es) });
    };
    if threads == 1 {
        copy_runs(p, &outer);
        return;
    }
    std::thread::scope(|scope| match outer.split_last() {
        None => {
            // One contiguous run: split its bytes.
            for (start, n) in page_parts(run * es, threads) {
                // SAFETY: disjoint byte ranges of the run.
                let q = unsafe { p.offset(start, start) };
                // SAFETY: a disjoint byte range of both live regions.
                scope.spawn(move || unsafe { q.copy(n) });
            }
        }
        Some((&(extent, sd, ss), inner)) => {
            // Split the outermost axis.
            let per = extent.div_ceil(threads);
            for first in (0..extent).step_by(per) {
                let last = (first + per).min(extent);
                let inner = inner.to_vec();
                scope.spawn(move || {
                    for k in first..last {
                        // SAFETY: index k of the outermost axis, inside both regions.
                        let q = unsafe { p.offset(k * sd * es, k * ss * es) };
                        copy_runs(q, &inner);
                    }
                });
            }
        }
    });
}
