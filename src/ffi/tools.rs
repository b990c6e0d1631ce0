//! The Kokkos Tools interface in the C ABI: what the C++ `Kokkos::Profiling`
//! and `Kokkos::Tools::Experimental` names call. Tool libraries themselves
//! are loaded from `KOKKOS_TOOLS_LIBS` by the core (`tools.rs`).

use super::boundary::{call, function, label, null, put, set_tools_callback};
use super::status::dv_status_t;
use std::ffi::c_char;

fn text(p: *const c_char, arg: &str) -> crate::Result<String> {
    Ok(label(p, arg)?.0)
}

/// Replace the callback of Kokkos Tools event `event` (`DV_TOOLS_*`); NULL
/// removes it (Kokkos `Tools::Experimental::set_*_callback`). `f` is cast to
/// `void (*)(void)`; it must have the C signature Kokkos gives that event
/// (for example `DV_TOOLS_ALLOCATE_DATA`: `void(SpaceHandle, const char*,
/// const void*, uint64_t)`), and stay callable while set.
///
/// # Safety
/// As above.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_set_callback(event: u32, f: Option<unsafe extern "C" fn()>) -> dv_status_t {
    call(function!(), || set_tools_callback(event, f))
}

/// `*out` = the address of a byte that is 1 while a DualView sync or modify
/// callback is set (`DV_TOOLS_DUAL_VIEW_SYNC` / `_MODIFY`), else 0; valid for
/// the life of the process. Read it with an atomic acquire load; never write
/// it. The C++ wrapper checks it before writing a sync-state byte inline
/// (docs/DECISIONS.md, "inline flag writes").
///
/// # Safety
/// `out` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_dual_view_hooks_word(out: *mut *const u8) -> dv_status_t {
    call(function!(), || {
        let o = super::boundary::out(out, "out")?;
        put(o, crate::tools::dual_view_hooks_word());
        Ok(())
    })
}

/// Load the tool library named in `KOKKOS_TOOLS_LIBS` now (it is otherwise
/// loaded at the first event); `*active` = whether a tool or callback is set.
///
/// # Safety
/// `active` is NULL or writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_init(active: *mut bool) -> dv_status_t {
    call(function!(), || {
        let on = crate::tools::active();
        if !active.is_null() {
            put(active, on);
        }
        Ok(())
    })
}

/// Call the tool's `kokkosp_finalize_library` and stop sending events (Kokkos
/// `finalize`). Also done at process exit.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_tools_finalize() -> dv_status_t {
    call(function!(), || {
        crate::tools::finalize();
        Ok(())
    })
}

/// Open a profiling region (Kokkos `Profiling::pushRegion`).
///
/// # Safety
/// `name` is NUL-terminated.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_push_region(name: *const c_char) -> dv_status_t {
    call(function!(), || {
        crate::tools::push_region(&text(name, "name")?);
        Ok(())
    })
}

/// Close the innermost profiling region (Kokkos `Profiling::popRegion`).
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_tools_pop_region() -> dv_status_t {
    call(function!(), || {
        crate::tools::pop_region();
        Ok(())
    })
}

/// Mark an instant (Kokkos `Profiling::markEvent`).
///
/// # Safety
/// `name` is NUL-terminated.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_mark_event(name: *const c_char) -> dv_status_t {
    call(function!(), || {
        crate::tools::mark_event(&text(name, "name")?);
        Ok(())
    })
}

/// Create a profiling section; `*id` gets its id (Kokkos `Profiling::createProfileSection`).
///
/// # Safety
/// `name` is NUL-terminated; `id` is writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_create_section(name: *const c_char, id: *mut u32) -> dv_status_t {
    call(function!(), || {
        let n = text(name, "name")?;
        if id.is_null() {
            return Err(null("id"));
        }
        put(id, crate::tools::create_section(&n));
        Ok(())
    })
}

/// Start, stop or destroy profiling section `id`: `what` is 0 start, 1 stop, 2 destroy.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn dv_tools_section(id: u32, what: u32) -> dv_status_t {
    call(function!(), || {
        match what {
            0 => crate::tools::start_section(id),
            1 => crate::tools::stop_section(id),
            2 => crate::tools::destroy_section(id),
            w => crate::error::bail!(InvalidArgument, "argument `what` has unknown value {w} (0 start, 1 stop, 2 destroy)"),
        }
        Ok(())
    })
}

/// Declare a key/value pair of metadata (Kokkos `Tools::declareMetadata`).
///
/// # Safety
/// `key` and `value` are NUL-terminated.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_tools_declare_metadata(key: *const c_char, value: *const c_char) -> dv_status_t {
    call(function!(), || {
        crate::tools::declare_metadata(&text(key, "key")?, &text(value, "value")?);
        Ok(())
    })
}
