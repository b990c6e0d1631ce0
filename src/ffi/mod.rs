//! The C ABI (`dv_` prefix), exported from the `cdylib` and `staticlib` and
//! described in `include/dualview.h`, which cbindgen generates from this module.
//!
//! Conventions (every function):
//! - returns `dv_status_t` (`DV_OK` = 0), marked `warn_unused_result`;
//! - checks every pointer for NULL (`DV_ERROR_NULL_ARGUMENT`) and every handle
//!   against the handle table (`DV_ERROR_INVALID_HANDLE`);
//! - reads enum values as integers and checks them (`DV_ERROR_INVALID_ARGUMENT`);
//! - catches panics (`DV_ERROR_INTERNAL`); nothing unwinds into C, nothing aborts;
//! - writes outputs last, only on success; on error sets the thread's
//!   `dv_last_error()` message, which names the function and the argument.
//!
//! This layer only checks, converts, calls the core and maps errors.

mod boundary;
mod dual_view;
mod extents;
mod handle;
mod holder;
mod init;
mod memory;
mod ownership;
mod shape;
mod space;
mod stats;
mod status;
mod tools;
mod types;

pub use crate::abi::*;
pub use boundary::{dv_last_error, dv_last_error_copy, dv_last_error_set};
pub use dual_view::*;
pub use extents::*;
pub use handle::dv_dualview_t;
pub use init::*;
pub use memory::*;
pub use ownership::*;
pub use shape::*;
pub use space::*;
pub use stats::*;
pub use status::{dv_status_str, dv_status_t};
pub use tools::*;
pub use types::*;

/// The text `tests/header.rs` gives cbindgen as the trailer of
/// `include/dualview.h`: `static inline` C functions restating rules written
/// in Rust, for inline fast paths in C and C++ (the sync-state transitions of
/// `src/dual_view/flags.rs`). Each is written next to its Rust rule and
/// checked against it there. cbindgen writes a trailer after the header's
/// include guard, so it has its own.
#[doc(hidden)]
pub fn c_header_trailer() -> String {
    format!(
        "#ifndef DUALVIEW_H_INLINE\n#define DUALVIEW_H_INLINE\n{}\n#endif  /* DUALVIEW_H_INLINE */",
        crate::dual_view::flags::c_functions()
    )
}
