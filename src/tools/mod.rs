//! Kokkos Tools: the profiling interface of Kokkos, so that existing tool
//! libraries (memory events, region timers, Nsight connectors) work on a
//! dualview program unchanged.
//!
//! | what | how |
//! | --- | --- |
//! | loading | the first library named in `KOKKOS_TOOLS_LIBS` (or the older `KOKKOS_PROFILE_LIBRARY`; `;`-separated, the first is loaded, as Kokkos does) is opened at the first event, its `kokkosp_*` entry points looked up, and `kokkosp_init_library` called |
//! | events | allocation and deallocation of every owned allocation; begin/end deep copy around every copy (each copying sync, deep copy, view copy, resize); DualView sync (each sync that copies) and modify (each that changes the flags); regions, sections, events and fences through [`push_region`] and friends |
//! | setters | [`set_callback`] replaces one event's callback (Kokkos `Tools::Experimental::set_*_callback`) |
//! | finalize | [`finalize`] (C++ `Kokkos::finalize`), or at process exit |
//!
//! With no library and no callback set, an event costs two atomic loads.
//! `foreign.rs` holds every foreign call and its `unsafe` (the `dlopen`, each
//! event's callback typed once, [`set_callback`], NVTX's injection tables);
//! `loader.rs` loads the tool library; `nvtx.rs` the NVTX ranges for Nsight
//! (a client of NVTX's injection interface).

use crate::abi::*;
use crate::space::Space;
use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

mod foreign;
mod loader;
pub(crate) mod nvtx;
use foreign::{hook, Hook};
use loader::load;
pub(crate) use foreign::at_exit;
pub use foreign::set_callback;

/// Kokkos' interface version passed to `kokkosp_init_library`.
const INTERFACE_VERSION: u64 = 20211015;
const EVENTS: usize = 18;

/// The callback of each event (`DV_TOOLS_*`), as a function address (0: none).
static CALLBACKS: [AtomicUsize; EVENTS] = [const { AtomicUsize::new(0) }; EVENTS];
static LOADED: Once = Once::new();
static FINALIZED: AtomicBool = AtomicBool::new(false);

/// Kokkos `SpaceHandle`: the memory space's name, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct SpaceHandle {
    name: [c_char; 64],
}

/// Kokkos `KokkosPDeviceInfo`.
#[repr(C)]
struct DeviceInfo {
    device_id: usize,
}

/// The callback of `event`, once the tool library had its chance to load.
fn callback(event: u32) -> usize {
    LOADED.call_once(load);
    callback_raw(event)
}

/// 1 while a DualView sync or modify callback is set, else 0.
static DUAL_VIEW_HOOKS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

fn refresh_hooks() {
    let on = callback_raw(DV_TOOLS_DUAL_VIEW_SYNC) != 0 || callback_raw(DV_TOOLS_DUAL_VIEW_MODIFY) != 0;
    DUAL_VIEW_HOOKS.store(on as u8, Ordering::Release);
}

/// The stored callback, without loading the tool library first (for `load` itself).
fn callback_raw(event: u32) -> usize {
    CALLBACKS[event as usize].load(Ordering::Acquire)
}

/// The address of a byte that is 1 while a DualView sync or modify callback
/// is set (the tool library of `KOKKOS_TOOLS_LIBS` is loaded first). The C++
/// header's inline flag writes check it: with a hook set they call the ABI,
/// which reports the event.
pub(crate) fn dual_view_hooks_word() -> *const u8 {
    LOADED.call_once(load);
    DUAL_VIEW_HOOKS.as_ptr()
}

/// Whether a tool library was loaded or any callback is set.
///
/// ```
/// let _active: bool = dualview::tools::active();
/// ```
pub fn active() -> bool {
    LOADED.call_once(load);
    CALLBACKS.iter().any(|c| c.load(Ordering::Relaxed) != 0)
}

/// Call `kokkosp_finalize_library` once and stop delivering events.
///
/// ```
/// // Without a tool library this does nothing.
/// dualview::tools::finalize();
/// ```
pub fn finalize() {
    if FINALIZED.swap(true, Ordering::AcqRel) {
        return;
    }
    let f = hook(foreign::FINALIZE);
    for c in &CALLBACKS {
        c.store(0, Ordering::Release);
    }
    if let Some(f) = f {
        f();
    }
}

fn handle(space: Space) -> SpaceHandle {
    // Kokkos' space handle names are its memory space names without "Space". The test
    // device plays a GPU: tools that sort spaces by name (kokkos-tools' chrome-tracing
    // takes 'H' or 'C', space-time-stack "Host" or "Cuda...", and abort otherwise) must
    // count it as device memory, so it is "CudaTestDevice" for them (DECISIONS T6).
    let name = match space.kind() {
        crate::space::SpaceKind::TestDevice => "CudaTestDevice",
        k => k.name().trim_end_matches("Space"),
    };
    let mut h = SpaceHandle { name: [0; 64] };
    for (d, &b) in h.name.iter_mut().zip(name.as_bytes()) {
        *d = b as c_char;
    }
    h
}

fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

fn data_event(event: Hook<foreign::DataFn>, space: Space, label: &str, ptr: *const u8, bytes: usize) {
    if let Some(f) = hook(event) {
        let l = c_text(label);
        f(handle(space), l.as_ptr(), ptr as *const c_void, bytes as u64);
    }
}

/// An owned allocation was made.
pub(crate) fn allocate(space: Space, label: &str, ptr: *const u8, bytes: usize) {
    data_event(foreign::ALLOCATE_DATA, space, label, ptr, bytes);
}

/// An owned allocation is about to be freed.
pub(crate) fn deallocate(space: Space, label: &str, ptr: *const u8, bytes: usize) {
    data_event(foreign::DEALLOCATE_DATA, space, label, ptr, bytes);
}

/// Whether deep-copy events are wanted (so callers can skip building them).
pub(crate) fn wants_deep_copy() -> bool {
    callback(DV_TOOLS_BEGIN_DEEP_COPY) != 0 || callback(DV_TOOLS_END_DEEP_COPY) != 0
}

/// A copy of `bytes` from `src` to `dst` begins.
pub(crate) fn begin_deep_copy(dst: (Space, &str, *const u8), src: (Space, &str, *const u8), bytes: usize) {
    if let Some(f) = hook(foreign::BEGIN_DEEP_COPY) {
        let (dl, sl) = (c_text(dst.1), c_text(src.1));
        f(handle(dst.0), dl.as_ptr(), dst.2 as *const c_void, handle(src.0), sl.as_ptr(), src.2 as *const c_void, bytes as u64);
    }
}

/// The copy begun by [`begin_deep_copy`] ended.
pub(crate) fn end_deep_copy() {
    if let Some(f) = hook(foreign::END_DEEP_COPY) {
        f();
    }
}

fn name_event(event: Hook<foreign::NameFn>, name: &str) {
    if let Some(f) = hook(event) {
        let n = c_text(name);
        f(n.as_ptr());
    }
}

/// Open a profiling region (Kokkos `Profiling::pushRegion`).
///
/// ```
/// dualview::tools::push_region("assemble");
/// dualview::tools::pop_region();
/// ```
pub fn push_region(name: &str) {
    name_event(foreign::PUSH_REGION, name);
}

/// Close the innermost region (Kokkos `Profiling::popRegion`).
///
/// ```
/// dualview::tools::pop_region(); // nothing happens without a tool
/// ```
pub fn pop_region() {
    if let Some(f) = hook(foreign::POP_REGION) {
        f();
    }
}

/// Mark an instant (Kokkos `Profiling::markEvent`).
///
/// ```
/// dualview::tools::mark_event("checkpoint");
/// ```
pub fn mark_event(name: &str) {
    name_event(foreign::PROFILE_EVENT, name);
}

/// Create a profiling section and return its id (Kokkos `Profiling::createProfileSection`); 0 without a tool.
///
/// ```
/// let id = dualview::tools::create_section("solve");
/// dualview::tools::start_section(id);
/// dualview::tools::stop_section(id);
/// dualview::tools::destroy_section(id);
/// ```
pub fn create_section(name: &str) -> u32 {
    let mut id = 0u32;
    if let Some(f) = hook(foreign::CREATE_SECTION) {
        let n = c_text(name);
        f(n.as_ptr(), &mut id);
    }
    id
}

fn section_event(event: Hook<foreign::SectionFn>, id: u32) {
    if let Some(f) = hook(event) {
        f(id);
    }
}

/// Start section `id`.
pub fn start_section(id: u32) {
    section_event(foreign::START_SECTION, id);
}

/// Stop section `id`.
pub fn stop_section(id: u32) {
    section_event(foreign::STOP_SECTION, id);
}

/// Destroy section `id`.
pub fn destroy_section(id: u32) {
    section_event(foreign::DESTROY_SECTION, id);
}

/// Declare a key/value pair of metadata (Kokkos `Tools::declareMetadata`).
///
/// ```
/// dualview::tools::declare_metadata("solver", "jacobi");
/// ```
pub fn declare_metadata(key: &str, value: &str) {
    if let Some(f) = hook(foreign::DECLARE_METADATA) {
        let (k, v) = (c_text(key), c_text(value));
        f(k.as_ptr(), v.as_ptr());
    }
}

/// Whether `event` has a callback (so callers can skip preparing its arguments).
pub(crate) fn wants(event: u32) -> bool {
    callback(event) != 0
}

/// A DualView sync or modify (`DV_TOOLS_DUAL_VIEW_SYNC` / `_MODIFY`) of the
/// view labelled `label` at `ptr`, on the device side when `is_device`.
pub(crate) fn dual_view_event(event: u32, label: &str, ptr: *const u8, is_device: bool) {
    let event = match event {
        DV_TOOLS_DUAL_VIEW_SYNC => foreign::DUAL_VIEW_SYNC,
        DV_TOOLS_DUAL_VIEW_MODIFY => foreign::DUAL_VIEW_MODIFY,
        _ => return,
    };
    if let Some(f) = hook(event) {
        let l = c_text(label);
        f(l.as_ptr(), ptr as *const c_void, is_device);
    }
}

/// Run `body` between begin-fence and end-fence events named `name` on device `device`.
pub(crate) fn fenced<T>(name: &str, device: u32, body: impl FnOnce() -> T) -> T {
    let (b, e) = (hook(foreign::BEGIN_FENCE), hook(foreign::END_FENCE));
    let mut id = 0u64;
    if let Some(b) = b {
        let n = c_text(name);
        b(n.as_ptr(), device, &mut id);
    }
    let out = body();
    if let Some(e) = e {
        e(id);
    }
    out
}
