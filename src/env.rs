//! The process environment, read here and nowhere else, with one rule
//! (docs/ENVIRONMENT.md lists every variable and who reads it):
//!
//! | kind | rule | variables |
//! | --- | --- | --- |
//! | a switch | on when set to anything but the empty string and `0` | `DV_CHECK`, `DV_TRACE`, `DV_TRACE_DRIVER`, `DV_PAGEABLE_MIRROR`, `DV_DEBUG_MEMORY`, `DV_SYSTEM_ALLOCATOR`, `DV_LEAK_REPORT` |
//! | a value | its text when set and not empty | `DV_REPORT` (`0` also off), `DV_TRACE_FILE`, `DV_COPY_THREADS`, the MPI launchers' rank variables, Kokkos' device and tools variables, `NVTX_INJECTION64_PATH`, `LD_PRELOAD` |
//!
//! Each caller reads a variable once (its own `OnceLock`) where the
//! setting must not change during a run.

use std::ffi::OsString;

/// Whether switch `name` is on: set, not empty, and not `0`.
pub(crate) fn switch(name: &str) -> bool {
    value(name).is_some_and(|v| v != "0")
}

/// The text of `name`, when it is set, valid Unicode and not empty.
pub(crate) fn value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The raw value of `name` (a path, which need not be Unicode), when set and not empty.
pub(crate) fn path(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}
