//! `dv_initialize`: which device this process uses, as Kokkos 4's
//! `initialize` maps it (`crate::device_id`; docs/CPP.md, "Which GPU a
//! process uses").

use super::boundary::{argv_remove, argv_strings, call, function, optional_text, out as checked, put, read_optional};
use super::status::dv_status_t;
use super::types::about;
use crate::error::{bail, Result};
use crate::device_id::{is_device_arg, DeviceSettings, MapDeviceIdBy};
use crate::space::SpaceKind;
use std::ffi::{c_char, c_int};

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
        let given = read_optional(settings).copied();
        let space = given.map_or(Ok(SpaceKind::Cuda), |g| SpaceKind::try_from(g.space).map_err(|e| about("settings->space", e)))?;
        let code = match given {
            Some(g) => code_settings(&g)?,
            None => DeviceSettings::default(),
        };
        let args = argv_strings(argc, argv)?;
        let env = |k: &str| crate::env::value(k);
        let count = u32::try_from(space.device_count()).unwrap_or(u32::MAX);
        let chosen = DeviceSettings::choose(code, &args, &env, count, std::process::id())?;
        if args.iter().skip(1).any(|a| is_device_arg(a.as_bytes())) {
            // Only pointers already in argv are moved down.
            argv_remove(argc, argv, args.len(), is_device_arg);
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
    let map_device_id_by = match optional_text(g.map_device_id_by) {
        None => None,
        Some(v) => Some(MapDeviceIdBy::parse(&v, "settings->map_device_id_by")?),
    };
    let device_id = match g.device_id {
        -1 => None,
        n if n < 0 => bail!(InvalidArgument, "settings->device_id: device id {n} is negative (-1: none)"),
        n => Some(i64::from(n)),
    };
    Ok(DeviceSettings { device_id, map_device_id_by })
}
