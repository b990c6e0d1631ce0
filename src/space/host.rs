//! Host memory: aligned allocation and strided fill/copy by contiguous runs.

use super::{Backend, Region, Space, Stream, ALIGNMENT};
use crate::error::{bail, Result};
use crate::layout::{for_each_run, for_each_run2};
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
/// | [`MEDIUM`] to [`LARGE`] | kernel pages, recycled through a small cache of freed blocks | fresh pages are zero; a recycled block is memset while hot |
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
const PAGE: usize = 4096;

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
        let on = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0");
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
    if std::env::var("LD_PRELOAD").is_ok_and(|p| p.contains("vgpreload")) {
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
        Mode::Guard => return map(rounded(bytes)),
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
                        unsafe { ptr::write_bytes(p, 0, bytes) };
                    }
                    return Ok(NonNull::new(p).expect("cached blocks are non-null"));
                }
            }
            return map(size);
        }
        _ => {}
    }
    let Ok(layout) = Layout::from_size_align(bytes, ALIGNMENT) else {
        bail!(Overflow, "an allocation of {bytes} bytes is too large");
    };
    // SAFETY: layout has a non-zero size.
    let p = unsafe { if zeroed { alloc_zeroed(layout) } else { alloc(layout) } };
    match NonNull::new(p) {
        Some(p) => Ok(p),
        None => bail!(OutOfMemory, "host allocation of {bytes} bytes failed"),
    }
}

/// Anonymous private pages: zero-filled by the kernel, page-aligned.
/// `bytes` is a multiple of the page size.
#[cfg(unix)]
fn map(bytes: usize) -> Result<NonNull<u8>> {
    // SAFETY: an anonymous private mapping touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        bail!(OutOfMemory, "host allocation of {bytes} bytes failed: {}", std::io::Error::last_os_error());
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on our own fresh mapping; failure only means no huge pages.
    unsafe {
        libc::madvise(p, bytes, libc::MADV_HUGEPAGE);
    }
    Ok(NonNull::new(p as *mut u8).expect("mmap never returns null on success"))
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
            if bytes < LARGE {
                let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
                let held: usize = cache.iter().map(|&(s, _)| s).sum();
                if held + size <= CACHE_BYTES {
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
    unsafe { dealloc(ptr.as_ptr(), Layout::from_size_align_unchecked(bytes, ALIGNMENT)) };
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

/// Copy between two host regions of equal extents.
///
/// # Safety
/// Both regions lie inside live host memory and do not overlap.
pub(crate) unsafe fn copy(dst: &Region, src: &Region) {
    let es = dst.elem_size;
    debug_assert_eq!(es, src.elem_size);
    for_each_run2(dst.extents.as_slice(), dst.strides.as_slice(), src.strides.as_slice(), |d, s, n| {
        // SAFETY: every run lies inside its region; the regions do not overlap.
        unsafe { ptr::copy_nonoverlapping(src.ptr.add(s * es), dst.ptr.add(d * es), n * es) };
    });
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
    unsafe fn copy(&self, dst: (Space, &Region), src: (Space, &Region), _stream: Stream) -> Result<()> {
        if !dst.0.is_host_accessible() || !src.0.is_host_accessible() {
            bail!(Internal, "the host backend cannot copy {} -> {}", src.0, dst.0);
        }
        // SAFETY: forwarded contract.
        unsafe { copy(dst.1, src.1) };
        Ok(())
    }
    fn fence(&self, _ordinal: u32) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycled_medium_blocks_come_back_zeroed() {
        let n = MEDIUM + 123;
        let p = allocate(n, true).unwrap();
        // SAFETY: n fresh bytes.
        unsafe {
            assert!(std::slice::from_raw_parts(p.as_ptr(), n).iter().all(|&b| b == 0));
            ptr::write_bytes(p.as_ptr(), 0xAB, n);
            deallocate(p, n);
        }
        let q = allocate(n, true).unwrap();
        // SAFETY: n bytes, zeroed on reuse.
        unsafe {
            assert!(std::slice::from_raw_parts(q.as_ptr(), n).iter().all(|&b| b == 0));
            assert_eq!(q.as_ptr() as usize % ALIGNMENT, 0);
            deallocate(q, n);
        }
    }
}
