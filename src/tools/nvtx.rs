//! NVTX ranges for Nsight Systems and other NVTX tools, with no CUDA and no
//! NVTX header at build time: this module is an NVTX client of its own. At
//! the first range it reads `NVTX_INJECTION64_PATH`, as NVTX itself does;
//! without it every range costs one atomic load. With it, it opens that
//! library, calls its `InitializeInjectionNvtx2` with this module's export
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
//! and Nsight's CUDA trace places the copy itself on its stream.

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Once;

/// Not yet looked at / no tool / a tool attached.
const FRESH: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(FRESH);
static INIT: Once = Once::new();

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

/// The one instance, written only inside `INIT` (by this module and by the tool
/// it initialises), read only after `STATE` says `ON`.
struct Shared(std::cell::UnsafeCell<Tables>);
// SAFETY: written only during the `Once` (one thread), read afterwards.
unsafe impl Sync for Shared {}

static TABLES: Shared = Shared(std::cell::UnsafeCell::new(Tables {
    core: [None; CORE_SIZE + 1],
    other: [[None; OTHER_SIZE + 1]; 5],
    core_table: [std::ptr::null_mut(); CORE_SIZE + 1],
    other_tables: [[std::ptr::null_mut(); OTHER_SIZE + 1]; 5],
}));

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

static CALLBACKS: CallbacksTable =
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
    // SAFETY: called by the tool during its initialisation, inside `INIT`: nobody else uses the tables.
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
        1 => (&raw const CALLBACKS).cast(),
        3 => (&raw const VERSION_INFO).cast(),
        _ => std::ptr::null(),
    }
}

type InitFn = unsafe extern "C" fn(get_export_table: unsafe extern "C" fn(u32) -> *const c_void) -> c_int;

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
    let t = TABLES.0.get();
    // SAFETY: inside `INIT`: this thread alone touches the tables; each table points at its own slots.
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
    // SAFETY: dlopen and dlsym of the library the user named for this purpose.
    let init = unsafe {
        let h = libc::dlopen(c.as_ptr(), libc::RTLD_LAZY);
        if h.is_null() {
            return Err(format!("cannot open {}", path.to_string_lossy()));
        }
        let f = libc::dlsym(h, c"InitializeInjectionNvtx2".as_ptr());
        if f.is_null() {
            return Err(format!("{} has no InitializeInjectionNvtx2", path.to_string_lossy()));
        }
        std::mem::transmute::<*mut c_void, InitFn>(f)
    };
    // SAFETY: the NVTX entry point's documented signature; it fills the slots through the tables.
    let ok = unsafe { init(get_export_table) } != 0;
    Ok(ok)
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

/// The slot `i` of the core module, once a tool is attached.
fn core(i: usize) -> Slot {
    // SAFETY: read only after `STATE` became `ON`, after which nobody writes the slots.
    unsafe { (*TABLES.0.get()).core[i] }
}

/// A pushed range, popped on drop; nothing when no tool is attached.
#[must_use]
pub(crate) struct Range(bool);

impl Drop for Range {
    fn drop(&mut self) {
        if self.0
            && let Some(f) = core(POP)
        {
            // SAFETY: the tool's nvtxRangePop handler: int (void).
            unsafe { std::mem::transmute::<unsafe extern "C" fn(), unsafe extern "C" fn() -> c_int>(f)() };
        }
    }
}

/// Push a range named `name()` (built only when a tool is attached).
#[inline]
pub(crate) fn range(name: impl FnOnce() -> String) -> Range {
    if !enabled() {
        return Range(false);
    }
    let Some(f) = core(PUSH_A) else { return Range(false) };
    let n = CString::new(name().replace('\0', " ")).unwrap_or_default();
    // SAFETY: the tool's nvtxRangePushA handler: int (const char *).
    unsafe { std::mem::transmute::<unsafe extern "C" fn(), unsafe extern "C" fn(*const c_char) -> c_int>(f)(n.as_ptr()) };
    Range(true)
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
