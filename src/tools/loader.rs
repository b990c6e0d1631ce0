//! The unsafe edge of Kokkos Tools: opening the tool library named in
//! `KOKKOS_TOOLS_LIBS` (`dlopen`, `dlsym`) and turning a stored callback
//! address back into its event's function type.

use super::{finalize, refresh_hooks, DeviceInfo, InitFn, CALLBACKS, EVENTS, INTERFACE_VERSION};
use crate::abi::*;
use std::ffi::CString;
use std::sync::atomic::Ordering;

/// The entry point of each event in a tool library.
const ENTRY_POINTS: [(u32, &std::ffi::CStr); EVENTS] = [
    (DV_TOOLS_INIT, c"kokkosp_init_library"),
    (DV_TOOLS_FINALIZE, c"kokkosp_finalize_library"),
    (DV_TOOLS_ALLOCATE_DATA, c"kokkosp_allocate_data"),
    (DV_TOOLS_DEALLOCATE_DATA, c"kokkosp_deallocate_data"),
    (DV_TOOLS_BEGIN_DEEP_COPY, c"kokkosp_begin_deep_copy"),
    (DV_TOOLS_END_DEEP_COPY, c"kokkosp_end_deep_copy"),
    (DV_TOOLS_PUSH_REGION, c"kokkosp_push_profile_region"),
    (DV_TOOLS_POP_REGION, c"kokkosp_pop_profile_region"),
    (DV_TOOLS_CREATE_SECTION, c"kokkosp_create_profile_section"),
    (DV_TOOLS_START_SECTION, c"kokkosp_start_profile_section"),
    (DV_TOOLS_STOP_SECTION, c"kokkosp_stop_profile_section"),
    (DV_TOOLS_DESTROY_SECTION, c"kokkosp_destroy_profile_section"),
    (DV_TOOLS_PROFILE_EVENT, c"kokkosp_profile_event"),
    (DV_TOOLS_BEGIN_FENCE, c"kokkosp_begin_fence"),
    (DV_TOOLS_END_FENCE, c"kokkosp_end_fence"),
    (DV_TOOLS_DECLARE_METADATA, c"kokkosp_declare_metadata"),
    (DV_TOOLS_DUAL_VIEW_SYNC, c"kokkosp_dual_view_sync"),
    (DV_TOOLS_DUAL_VIEW_MODIFY, c"kokkosp_dual_view_modify"),
];

/// Reinterpret a stored callback address as its event's function type.
///
/// # Safety
/// `addr` is non-zero and was stored for an event whose signature is `F`
/// (the contract of [`set_callback`] and of tool libraries).
pub(super) unsafe fn as_fn<F: Copy>(addr: usize) -> F {
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    // SAFETY: F is a function pointer type of pointer size (caller contract).
    unsafe { std::mem::transmute_copy(&addr) }
}

pub(super) fn load() {
    let var = std::env::var("KOKKOS_TOOLS_LIBS").or_else(|_| std::env::var("KOKKOS_PROFILE_LIBRARY"));
    let Some(lib) = var.ok().and_then(|v| v.split(';').map(str::trim).find(|s| !s.is_empty()).map(str::to_owned)) else {
        return;
    };
    let Ok(path) = CString::new(lib.clone()) else {
        eprintln!("dualview: KOKKOS_TOOLS_LIBS holds a NUL byte; no tool loaded");
        return;
    };
    // SAFETY: dlopen of a library the user named for this purpose.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns a NUL-terminated message or NULL.
        let why = unsafe { libc::dlerror() };
        let why = if why.is_null() {
            String::from("unknown error")
        } else {
            // SAFETY: as above.
            unsafe { std::ffi::CStr::from_ptr(why) }.to_string_lossy().into_owned()
        };
        eprintln!("dualview: could not load the Kokkos Tools library {lib}: {why}");
        return;
    }
    for (event, name) in ENTRY_POINTS {
        // SAFETY: looking a symbol up in a library we opened.
        let f = unsafe { libc::dlsym(handle, name.as_ptr()) };
        if !f.is_null() {
            CALLBACKS[event as usize].store(f as usize, Ordering::Release);
        }
    }
    refresh_hooks();
    let init = CALLBACKS[DV_TOOLS_INIT as usize].load(Ordering::Acquire);
    if init != 0 {
        let mut info = DeviceInfo { device_id: 0 };
        // SAFETY: the library's kokkosp_init_library, with Kokkos' arguments.
        unsafe { as_fn::<InitFn>(init)(0, INTERFACE_VERSION, 1, &mut info) };
    }
    extern "C" fn at_exit() {
        finalize();
    }
    // SAFETY: registering a plain extern "C" function.
    unsafe { libc::atexit(at_exit) };
}
