//! The unsafe edge of Kokkos Tools: opening the tool library named in
//! `KOKKOS_TOOLS_LIBS` (`dlopen`, `dlsym`), turning a stored callback
//! address back into its event's function type ([`hook`]), and `atexit`.

use super::{callback, finalize, refresh_hooks, DeviceInfo, SpaceHandle, CALLBACKS, EVENTS, INTERFACE_VERSION};
use crate::abi::*;
use std::ffi::{c_char, c_void, CString};
use std::marker::PhantomData;
use std::sync::atomic::Ordering;

// The C signatures of Kokkos' callbacks. A callback is called only with
// arguments valid for that signature (live C strings, live out-parameters),
// which is all a Kokkos tool may assume: so the types are safe to call.
type InitFn = extern "C" fn(i32, u64, u32, *mut DeviceInfo);
pub(super) type VoidFn = extern "C" fn();
pub(super) type DataFn = extern "C" fn(SpaceHandle, *const c_char, *const c_void, u64);
pub(super) type BeginCopyFn = extern "C" fn(SpaceHandle, *const c_char, *const c_void, SpaceHandle, *const c_char, *const c_void, u64);
pub(super) type NameFn = extern "C" fn(*const c_char);
pub(super) type CreateSectionFn = extern "C" fn(*const c_char, *mut u32);
pub(super) type SectionFn = extern "C" fn(u32);
pub(super) type BeginFenceFn = extern "C" fn(*const c_char, u32, *mut u64);
pub(super) type EndFenceFn = extern "C" fn(u64);
pub(super) type MetadataFn = extern "C" fn(*const c_char, *const c_char);
pub(super) type DualViewFn = extern "C" fn(*const c_char, *const c_void, bool);

/// One event with its callback's C signature `F`. Made only here, one per
/// event, so the type always matches the event.
#[derive(Clone, Copy)]
pub(super) struct Hook<F>(u32, PhantomData<F>);

const fn h<F>(event: u32) -> Hook<F> {
    Hook(event, PhantomData)
}

pub(super) const FINALIZE: Hook<VoidFn> = h(DV_TOOLS_FINALIZE);
pub(super) const ALLOCATE_DATA: Hook<DataFn> = h(DV_TOOLS_ALLOCATE_DATA);
pub(super) const DEALLOCATE_DATA: Hook<DataFn> = h(DV_TOOLS_DEALLOCATE_DATA);
pub(super) const BEGIN_DEEP_COPY: Hook<BeginCopyFn> = h(DV_TOOLS_BEGIN_DEEP_COPY);
pub(super) const END_DEEP_COPY: Hook<VoidFn> = h(DV_TOOLS_END_DEEP_COPY);
pub(super) const PUSH_REGION: Hook<NameFn> = h(DV_TOOLS_PUSH_REGION);
pub(super) const POP_REGION: Hook<VoidFn> = h(DV_TOOLS_POP_REGION);
pub(super) const CREATE_SECTION: Hook<CreateSectionFn> = h(DV_TOOLS_CREATE_SECTION);
pub(super) const START_SECTION: Hook<SectionFn> = h(DV_TOOLS_START_SECTION);
pub(super) const STOP_SECTION: Hook<SectionFn> = h(DV_TOOLS_STOP_SECTION);
pub(super) const DESTROY_SECTION: Hook<SectionFn> = h(DV_TOOLS_DESTROY_SECTION);
pub(super) const PROFILE_EVENT: Hook<NameFn> = h(DV_TOOLS_PROFILE_EVENT);
pub(super) const BEGIN_FENCE: Hook<BeginFenceFn> = h(DV_TOOLS_BEGIN_FENCE);
pub(super) const END_FENCE: Hook<EndFenceFn> = h(DV_TOOLS_END_FENCE);
pub(super) const DECLARE_METADATA: Hook<MetadataFn> = h(DV_TOOLS_DECLARE_METADATA);
pub(super) const DUAL_VIEW_SYNC: Hook<DualViewFn> = h(DV_TOOLS_DUAL_VIEW_SYNC);
pub(super) const DUAL_VIEW_MODIFY: Hook<DualViewFn> = h(DV_TOOLS_DUAL_VIEW_MODIFY);

/// The callback of `hook`'s event, as its C signature (the tool library is loaded first).
pub(super) fn hook<F: Copy>(hook: Hook<F>) -> Option<F> {
    let addr = callback(hook.0);
    // SAFETY: a non-zero address stored for this event: a tool library's
    // entry point of Kokkos' name for it, or a callback `set_callback`'s
    // caller promised has this signature; `Hook` pairs each event with it.
    (addr != 0).then(|| unsafe { as_fn::<F>(addr) })
}

/// Run `f` at process exit (`atexit`); `f` must not unwind.
pub(crate) fn at_exit(f: extern "C" fn()) {
    // SAFETY: registering a plain extern "C" function, callable at any time.
    unsafe { libc::atexit(f) };
}

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
unsafe fn as_fn<F: Copy>(addr: usize) -> F {
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    // SAFETY: F is a function pointer type of pointer size (caller contract).
    unsafe { std::mem::transmute_copy(&addr) }
}

pub(super) fn load() {
    let var = crate::env::value("KOKKOS_TOOLS_LIBS").or_else(|| crate::env::value("KOKKOS_PROFILE_LIBRARY"));
    let Some(lib) = var.and_then(|v| v.split(';').map(str::trim).find(|s| !s.is_empty()).map(str::to_owned)) else {
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
    extern "C" fn on_exit() {
        finalize();
    }
    at_exit(on_exit);
}
