//! Loading the Kokkos Tools library named in `KOKKOS_TOOLS_LIBS` (or
//! `KOKKOS_PROFILE_LIBRARY`) at the first event: its `kokkosp_*` entry
//! points become the events' callbacks, `kokkosp_init_library` is called,
//! and `kokkosp_finalize_library` at exit. The foreign calls are foreign.rs'.

use super::foreign::{at_exit, dl_error, stored, Library, INIT};
use super::{finalize, refresh_hooks, DeviceInfo, INTERFACE_VERSION};
use std::ffi::CString;

pub(super) fn load() {
    let var = crate::env::value("KOKKOS_TOOLS_LIBS").or_else(|| crate::env::value("KOKKOS_PROFILE_LIBRARY"));
    let Some(lib) = var.and_then(|v| v.split(';').map(str::trim).find(|s| !s.is_empty()).map(str::to_owned)) else {
        return;
    };
    let Ok(path) = CString::new(lib.clone()) else {
        eprintln!("dualview: KOKKOS_TOOLS_LIBS holds a NUL byte; no tool loaded");
        return;
    };
    let Some(library) = Library::open(&path, libc::RTLD_NOW | libc::RTLD_GLOBAL) else {
        eprintln!("dualview: could not load the Kokkos Tools library {lib}: {}", dl_error());
        return;
    };
    library.adopt_entry_points();
    refresh_hooks();
    if let Some(init) = stored(INIT) {
        let mut info = DeviceInfo { device_id: 0 };
        init(0, INTERFACE_VERSION, 1, &mut info);
    }
    extern "C" fn on_exit() {
        finalize();
    }
    at_exit(on_exit);
}
