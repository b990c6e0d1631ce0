//! Foreign code, the tools layer's only `unsafe`: the Kokkos Tools library
//! `dlopen`'d from `KOKKOS_TOOLS_LIBS` (each event's callback typed once,
//! [`Hook`]), the C callbacks [`set_callback`] installs, `atexit`, and NVTX's
//! injection interface (the export tables a tool calls, the slots it fills).
//! loader.rs and nvtx.rs drive them through the safe functions here.

use super::{callback, callback_raw, load, refresh_hooks, DeviceInfo, SpaceHandle, CALLBACKS, EVENTS, LOADED};
use crate::abi::*;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Once;

// The C signatures of Kokkos' callbacks. A callback is called only with
// arguments valid for that signature (live C strings, live out-parameters),
// which is all a Kokkos tool may assume: so the types are safe to call.
pub(super) type InitFn = extern "C" fn(i32, u64, u32, *mut DeviceInfo);
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

pub(super) const INIT: Hook<InitFn> = h(DV_TOOLS_INIT);
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

/// The entry point of each event in a tool library.
const ENTRY_POINTS: [(u32, &CStr); EVENTS] = [
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

/// Replace the callback of `event` (`DV_TOOLS_*`); `None` removes it.
/// Kokkos `Tools::Experimental::set_*_callback`.
///
/// # Safety
/// `f` has the C signature of Kokkos' callback for that event and stays
/// callable while it is set.
///
/// ```
/// use dualview::{abi::DV_TOOLS_PUSH_REGION, tools};
/// extern "C" fn on_push(_name: *const std::ffi::c_char) {}
/// // SAFETY: the push-region callback takes one `const char*`.
/// unsafe { tools::set_callback(DV_TOOLS_PUSH_REGION, Some(std::mem::transmute(on_push as extern "C" fn(_)))).unwrap() };
/// tools::push_region("phase 1");
/// tools::pop_region();
/// unsafe { tools::set_callback(DV_TOOLS_PUSH_REGION, None).unwrap() };
/// ```
pub unsafe fn set_callback(event: u32, f: Option<unsafe extern "C" fn()>) -> crate::Result<()> {
    if event as usize >= EVENTS {
        crate::error::bail!(InvalidArgument, "unknown Kokkos Tools event {event} (0 to {})", EVENTS - 1);
    }
    LOADED.call_once(load);
    CALLBACKS[event as usize].store(f.map_or(0, |f| f as usize), Ordering::Release);
    refresh_hooks();
    Ok(())
}

/// The callback of `hook`'s event, as its C signature (the tool library is loaded first).
pub(super) fn hook<F: Copy>(hook: Hook<F>) -> Option<F> {
    let addr = callback(hook.0);
    // SAFETY: a non-zero address stored for this event: a tool library's
    // entry point of Kokkos' name for it, or a callback `set_callback`'s
    // caller promised has this signature; `Hook` pairs each event with it.
    (addr != 0).then(|| unsafe { as_fn::<F>(addr) })
}

/// [`hook`] without loading the tool library first (for `load` itself).
pub(super) fn stored<F: Copy>(hook: Hook<F>) -> Option<F> {
    let addr = callback_raw(hook.0);
    // SAFETY: as `hook`.
    (addr != 0).then(|| unsafe { as_fn::<F>(addr) })
}

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

/// Run `f` at process exit (`atexit`); `f` must not unwind.
pub(crate) fn at_exit(f: extern "C" fn()) {
    // SAFETY: registering a plain extern "C" function, callable at any time.
    unsafe { libc::atexit(f) };
}

/// A shared library the user named for a tool, opened with `dlopen` and
/// never closed (its functions stay callable).
#[derive(Clone, Copy)]
pub(super) struct Library(*mut c_void);

impl Library {
    /// `dlopen(path, flags)`; `None` when it fails ([`dl_error`] says why).
    pub(super) fn open(path: &CStr, flags: c_int) -> Option<Library> {
        // SAFETY: dlopen of a library the user named for this purpose.
        let handle = unsafe { libc::dlopen(path.as_ptr(), flags) };
        (!handle.is_null()).then_some(Library(handle))
    }

    /// The address of `name` in the library (null when absent).
    fn symbol(self, name: &CStr) -> *mut c_void {
        // SAFETY: looking a symbol up in a library we opened.
        unsafe { libc::dlsym(self.0, name.as_ptr()) }
    }

    /// Make the library's `kokkosp_*` entry points the events' callbacks.
    pub(super) fn adopt_entry_points(self) {
        for (event, name) in ENTRY_POINTS {
            let f = self.symbol(name);
            if !f.is_null() {
                CALLBACKS[event as usize].store(f as usize, Ordering::Release);
            }
        }
    }
}

/// `dlerror()`'s message for the last failed `dlopen`.
pub(super) fn dl_error() -> String {
    // SAFETY: dlerror returns a NUL-terminated message or NULL.
    let why = unsafe { libc::dlerror() };
    if why.is_null() {
        String::from("unknown error")
    } else {
        // SAFETY: as above.
        unsafe { CStr::from_ptr(why) }.to_string_lossy().into_owned()
    }
}

// NVTX (v3 ABI; the table of facts is in nvtx.rs).

/// One function slot a tool may fill (a generic function pointer; cast to its type before a call).
type Slot = Option<unsafe extern "C" fn()>;

const CORE_SIZE: usize = 16;
const PUSH_A: usize = 9;
const POP: usize = 11;
/// Slots of the other modules: more than any of them has (a tool writes only ids it knows).
const OTHER_SIZE: usize = 64;

/// The slots and the tables of pointers to them that `GetModuleFunctionTable` hands out.
struct Tables {
    core: [Slot; CORE_SIZE + 1],
    other: [[Slot; OTHER_SIZE + 1]; 5],
    core_table: [*mut Slot; CORE_SIZE + 1],
    other_tables: [[*mut Slot; OTHER_SIZE + 1]; 5],
}

/// The one instance, written only inside `INJECTED` (by this module and by
/// the tool it initialises), read only after it.
struct Shared(std::cell::UnsafeCell<Tables>);
// SAFETY: written only during the `Once` (one thread), read afterwards.
unsafe impl Sync for Shared {}

static TABLES: Shared = Shared(std::cell::UnsafeCell::new(Tables {
    core: [None; CORE_SIZE + 1],
    other: [[None; OTHER_SIZE + 1]; 5],
    core_table: [std::ptr::null_mut(); CORE_SIZE + 1],
    other_tables: [[std::ptr::null_mut(); OTHER_SIZE + 1]; 5],
}));
static INJECTED: Once = Once::new();

#[repr(C)]
struct CallbacksTable {
    struct_size: usize,
    get_module_function_table: unsafe extern "C" fn(module: c_int, out_table: *mut *mut *mut Slot, out_size: *mut c_uint) -> c_int,
}

#[repr(C)]
struct VersionInfoTable {
    struct_size: usize,
    version: u32,
    reserved0: u32,
    set_injection_nvtx_version: unsafe extern "C" fn(version: u32),
}

static NVTX_CALLBACKS: CallbacksTable =
    CallbacksTable { struct_size: std::mem::size_of::<CallbacksTable>(), get_module_function_table };
static VERSION_INFO: VersionInfoTable = VersionInfoTable {
    struct_size: std::mem::size_of::<VersionInfoTable>(),
    version: 3,
    reserved0: 0,
    set_injection_nvtx_version,
};

unsafe extern "C" fn set_injection_nvtx_version(_version: u32) {}

/// `GetModuleFunctionTable`: the table of slot pointers of `module` and its size (slots past 0).
unsafe extern "C" fn get_module_function_table(module: c_int, out_table: *mut *mut *mut Slot, out_size: *mut c_uint) -> c_int {
    let t = TABLES.0.get();
    // SAFETY: called by the tool during its initialisation, inside `INJECTED`: nobody else uses the tables.
    let (table, size) = unsafe {
        match module {
            1 => ((*t).core_table.as_mut_ptr(), CORE_SIZE),
            2..=6 => ((*t).other_tables[(module - 2) as usize].as_mut_ptr(), OTHER_SIZE),
            _ => return 0,
        }
    };
    // SAFETY: the tool passes writable outputs or NULL.
    unsafe {
        if !out_table.is_null() {
            *out_table = table;
        }
        if !out_size.is_null() {
            *out_size = size as c_uint;
        }
    }
    1
}

/// `nvtxGetExportTable`.
unsafe extern "C" fn get_export_table(id: u32) -> *const c_void {
    match id {
        1 => (&raw const NVTX_CALLBACKS).cast(),
        3 => (&raw const VERSION_INFO).cast(),
        _ => std::ptr::null(),
    }
}

type NvtxInitFn = unsafe extern "C" fn(get_export_table: unsafe extern "C" fn(u32) -> *const c_void) -> c_int;

/// Hand the NVTX tool `lib` this module's export tables through its
/// `InitializeInjectionNvtx2`: whether it accepted them, `None` when it has
/// no such entry point. Once per process (a later call answers `Some(false)`).
pub(super) fn nvtx_inject(lib: Library) -> Option<bool> {
    let f = lib.symbol(c"InitializeInjectionNvtx2");
    if f.is_null() {
        return None;
    }
    let mut ok = false;
    INJECTED.call_once(|| {
        let t = TABLES.0.get();
        // SAFETY: inside `INJECTED`: this thread alone touches the tables; each table points at its own slots.
        unsafe {
            for (i, p) in (*t).core_table.iter_mut().enumerate().skip(1) {
                *p = &raw mut (*t).core[i];
            }
            for m in 0..5 {
                for i in 1..=OTHER_SIZE {
                    (*t).other_tables[m][i] = &raw mut (*t).other[m][i];
                }
            }
        }
        // SAFETY: the NVTX entry point's documented signature; it fills the slots through the tables.
        ok = unsafe { std::mem::transmute::<*mut c_void, NvtxInitFn>(f)(get_export_table) } != 0;
    });
    Some(ok)
}

/// The slot `i` of the core module, once a tool was given the tables.
fn core(i: usize) -> Slot {
    if !INJECTED.is_completed() {
        return None;
    }
    // SAFETY: `INJECTED` has run, after which nobody writes the slots.
    unsafe { (*TABLES.0.get()).core[i] }
}

/// Call the tool's `nvtxRangePushA` with `name()` (built only when the tool
/// filled that slot); whether it was called.
pub(super) fn nvtx_push(name: impl FnOnce() -> CString) -> bool {
    let Some(f) = core(PUSH_A) else { return false };
    let n = name();
    // SAFETY: the tool's nvtxRangePushA handler: int (const char *).
    unsafe { std::mem::transmute::<unsafe extern "C" fn(), unsafe extern "C" fn(*const c_char) -> c_int>(f)(n.as_ptr()) };
    true
}

/// Call the tool's `nvtxRangePop`, when it filled that slot.
pub(super) fn nvtx_pop() {
    if let Some(f) = core(POP) {
        // SAFETY: the tool's nvtxRangePop handler: int (void).
        unsafe { std::mem::transmute::<unsafe extern "C" fn(), unsafe extern "C" fn() -> c_int>(f)() };
    }
}
