//! `dv_initialize`: which device this process uses, as Kokkos 4's
//! `initialize` maps it (`crate::space::device_id`; docs/CPP.md, "Which GPU a
//! process uses").

use super::boundary::{call, function};
use super::status::dv_status_t;
use super::types::{about, out as checked, put};
use crate::error::{bail, Result};
use crate::space::device_id::{is_device_arg, DeviceSettings, MapDeviceIdBy};
use crate::space::SpaceKind;
use std::ffi::{c_char, c_int, CStr};

/// Device settings given in code (Kokkos' `InitializationSettings`); they
/// win over the arguments and the environment. `{ DV_SPACE_CUDA, -1, NULL }`
/// sets nothing.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dv_init_t {
    /// `DV_SPACE_*` whose devices are mapped (`DV_SPACE_CUDA` for a GPU code).
    pub space: u32,
    /// An explicit device id, an index into the visible devices; -1: none.
    pub device_id: i32,
    /// `"mpi_rank"` or `"random"`; NULL: none (round robin over the
    /// node-local MPI rank when a launcher set one).
    pub map_device_id_by: *const c_char,
}

/// `*ordinal` = the device of `settings->space` this process uses, as Kokkos
/// 4's `initialize` picks it: an explicit device id (`settings`, then
/// `--kokkos-device-id=N`, then `KOKKOS_DEVICE_ID`), else `random` or the
/// node-local MPI rank (`OMPI_COMM_WORLD_LOCAL_RANK`, `MV2_COMM_WORLD_LOCAL_RANK`,
/// `MPI_LOCALRANKID`, `SLURM_LOCALID`, `PMI_LOCAL_RANK`) modulo the visible
/// devices (`KOKKOS_VISIBLE_DEVICES`, else all). `*mapped` (may be NULL) is
/// false when nothing chose a device (no id, no launcher, or a space without
/// devices): then `*ordinal` is 0, the space's default. The Kokkos arguments
/// are removed from `argv` (and `*argc` lowered), as Kokkos does; `argc` and
/// `argv` may be NULL, `settings` too (CUDA, nothing set). An invalid value
/// is `DV_ERROR_INVALID_ARGUMENT` naming its option; a device id on a space
/// without devices `DV_ERROR_NO_DEVICE`; nothing is changed then.
///
/// # Safety
/// `argc` is NULL or points to the count of `argv`'s NUL-terminated strings;
/// `settings` is NULL or valid; `ordinal` is writable; `mapped` is NULL or writable.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dv_initialize(
    argc: *mut c_int,
    argv: *mut *mut c_char,
    settings: *const dv_init_t,
    ordinal: *mut u32,
    mapped: *mut bool,
) -> dv_status_t {
    call(function!(), || {
        let o = checked(ordinal, "ordinal")?;
        // SAFETY: NULL or valid (documented contract).
        let given = unsafe { settings.as_ref() }.copied();
        let space = given.map_or(Ok(SpaceKind::Cuda), |g| SpaceKind::try_from(g.space).map_err(|e| about("settings->space", e)))?;
        let code = match given {
            Some(g) => code_settings(&g)?,
            None => DeviceSettings::default(),
        };
        // SAFETY: argc/argv as documented.
        let args = unsafe { read_args(argc, argv) }?;
        let env = |k: &str| std::env::var(k).ok();
        let count = u32::try_from(space.device_count()).unwrap_or(u32::MAX);
        let chosen = DeviceSettings::choose(code, &args, &env, count, std::process::id())?;
        if args.iter().skip(1).any(|a| is_device_arg(a.as_bytes())) {
            // SAFETY: as above; only pointers already in argv are moved down.
            unsafe { remove_args(argc, argv, args.len()) };
        }
        put(o, chosen.unwrap_or(0));
        if !mapped.is_null() {
            put(mapped, chosen.is_some());
        }
        Ok(())
    })
}

/// The settings given in code.
fn code_settings(g: &dv_init_t) -> Result<DeviceSettings> {
    let map_device_id_by = if g.map_device_id_by.is_null() {
        None
    } else {
        // SAFETY: a non-NULL string is NUL-terminated (documented contract).
        let v = unsafe { CStr::from_ptr(g.map_device_id_by) }.to_string_lossy();
        Some(MapDeviceIdBy::parse(&v, "settings->map_device_id_by")?)
    };
    let device_id = match g.device_id {
        -1 => None,
        n if n < 0 => bail!(InvalidArgument, "settings->device_id: device id {n} is negative (-1: none)"),
        n => Some(i64::from(n)),
    };
    Ok(DeviceSettings { device_id, map_device_id_by })
}

/// `argv[0..*argc]` as strings (none when either is NULL).
///
/// # Safety
/// As `dv_initialize`.
unsafe fn read_args(argc: *mut c_int, argv: *mut *mut c_char) -> Result<Vec<String>> {
    if argc.is_null() || argv.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: argc is valid (contract).
    let n = unsafe { *argc };
    if n < 0 {
        bail!(InvalidArgument, "*argc is {n}, negative");
    }
    (0..n as usize)
        .map(|i| {
            // SAFETY: argv holds *argc pointers (contract), each NULL or a string.
            let p = unsafe { *argv.add(i) };
            if p.is_null() {
                bail!(NullArgument, "argv[{i}] is NULL");
            }
            // SAFETY: a NUL-terminated string (contract).
            Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        })
        .collect()
}

/// Drop the Kokkos device arguments from `argv[1..n]`, keeping the order of the rest.
///
/// # Safety
/// As `dv_initialize`, with `n` = `*argc`.
unsafe fn remove_args(argc: *mut c_int, argv: *mut *mut c_char, n: usize) {
    let mut kept = 1;
    for i in 1..n {
        // SAFETY: i < n = *argc: a valid string pointer.
        let p = unsafe { *argv.add(i) };
        // SAFETY: as above.
        if !is_device_arg(unsafe { CStr::from_ptr(p) }.to_bytes()) {
            // SAFETY: kept <= i < n.
            unsafe { *argv.add(kept) = p };
            kept += 1;
        }
    }
    // SAFETY: argc is valid (contract).
    unsafe { *argc = kept as c_int };
}
