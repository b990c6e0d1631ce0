//! NVTX ranges for Nsight Systems and other NVTX tools, with no CUDA and no
//! NVTX header at build time: this module is an NVTX client of its own. At
//! the first range it reads `NVTX_INJECTION64_PATH`, as NVTX itself does;
//! without it every range costs one atomic load. With it, it opens that
//! library, calls its `InitializeInjectionNvtx2` with dualview's export
//! tables, and the tool writes its handlers into the core module's function
//! slots (`nvtxRangePushA`, `nvtxRangePop`). DECISIONS T3.
//!
//! | NVTX fact (v3 ABI) | value here |
//! | --- | --- |
//! | export table ids | 1: callbacks (`GetModuleFunctionTable`), 3: version info |
//! | module ids | 1: core (16 slots), 2 to 6: CUDA, OpenCL, CUDA runtime, core2, sync (slots a tool may fill, never called) |
//! | core slots used | 9: `RangePushA`, 11: `RangePop` |
//! | API version reported | 3 |
//!
//! Ranges are pushed and popped on the calling thread (nesting shows which
//! sync a copy belongs to); an asynchronous copy's range covers its enqueue,
//! and Nsight's CUDA trace places the copy itself on its stream. The export
//! tables, the slots and the calls through them are in foreign.rs.

use super::foreign::{nvtx_inject, nvtx_pop, nvtx_push, Library};
use std::ffi::CString;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Once;

/// Not yet looked at / no tool / a tool attached.
const FRESH: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(FRESH);
static INIT: Once = Once::new();

/// Look for a tool once: `NVTX_INJECTION64_PATH`, opened and initialised.
fn init() {
    INIT.call_once(|| {
        let on = attach().unwrap_or_else(|why| {
            eprintln!("dualview: NVTX: {why}; no ranges");
            false
        });
        STATE.store(if on { ON } else { OFF }, Ordering::Release);
    });
}

fn attach() -> Result<bool, String> {
    let Some(path) = crate::env::path("NVTX_INJECTION64_PATH") else {
        return Ok(false);
    };
    let c = CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str())).map_err(|_| "the path holds a NUL byte".to_string())?;
    let lib = Library::open(&c, libc::RTLD_LAZY).ok_or_else(|| format!("cannot open {}", path.to_string_lossy()))?;
    nvtx_inject(lib).ok_or_else(|| format!("{} has no InitializeInjectionNvtx2", path.to_string_lossy()))
}

/// Whether a tool is attached (one load after the first call).
#[inline]
pub(crate) fn enabled() -> bool {
    match STATE.load(Ordering::Acquire) {
        ON => true,
        OFF => false,
        _ => {
            init();
            STATE.load(Ordering::Acquire) == ON
        }
    }
}

/// A pushed range, popped on drop; nothing when no tool is attached.
#[must_use]
pub(crate) struct Range(bool);

impl Drop for Range {
    fn drop(&mut self) {
        if self.0 {
            nvtx_pop();
        }
    }
}

/// Push a range named `name()` (built only when a tool is attached).
#[inline]
pub(crate) fn range(name: impl FnOnce() -> String) -> Range {
    if !enabled() {
        return Range(false);
    }
    Range(nvtx_push(|| CString::new(name().replace('\0', " ")).unwrap_or_default()))
}

/// Bytes for a range's name: `24.0 MB`, `4.0 KB`, `512 B` (decimal, as Nsight shows sizes).
pub(crate) fn bytes(n: usize) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else if n >= 1e3 {
        format!("{:.1} KB", n / 1e3)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_read_as_nsight_shows_them() {
        use super::bytes;
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(4096), "4.1 KB");
        assert_eq!(bytes(24_000_000), "24.0 MB");
        assert_eq!(bytes(3_000_000_000), "3.0 GB");
    }
}
