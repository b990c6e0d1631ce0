//! Which device a process uses: Kokkos 4's device mapping at `initialize`
//! (`core/src/impl/Kokkos_Core.cpp`, `get_gpu`), for `Kokkos::initialize`,
//! `dv::initialize`, `dv_initialize` and the Fortran `dualview_initialize`.
//! docs/CPP.md, "Which GPU a process uses", has the precedence table.
//!
//! | given | device |
//! | --- | --- |
//! | a device id (code, `--kokkos-device-id=`, `KOKKOS_DEVICE_ID`) | the id-th visible device |
//! | `map_device_id_by` = `random` | a visible device drawn from the process id |
//! | `mpi_rank`, or nothing, with a launcher's node-local rank | visible device `local_rank % count` |
//! | nothing and no local rank | none: the space's default (device 0) |
//!
//! Visible devices are `KOKKOS_VISIBLE_DEVICES` (a comma list) or all of them.
//! The environment is read first, then the arguments, then settings made in
//! code; each later one wins.

use crate::error::{bail, Result};

/// The launchers' node-local rank variables, in Kokkos' order: Open MPI,
/// MVAPICH2, MPICH, Slurm, PMI.
pub const LOCAL_RANK_VARIABLES: [&str; 5] =
    ["OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"];

/// How a process is mapped to a device when no id is given (Kokkos'
/// `map_device_id_by`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapDeviceIdBy {
    /// Round robin over the node-local MPI rank (the default).
    MpiRank,
    /// A device drawn from the process id.
    Random,
}

impl MapDeviceIdBy {
    /// `mpi_rank` or `random`; anything else is an error naming `option`.
    pub fn parse(value: &str, option: &str) -> Result<Self> {
        match value {
            "mpi_rank" => Ok(MapDeviceIdBy::MpiRank),
            "random" => Ok(MapDeviceIdBy::Random),
            _ => bail!(InvalidArgument, "{option}: '{value}' is not recognized (mpi_rank or random)"),
        }
    }
}

/// The device part of Kokkos' `InitializationSettings`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceSettings {
    /// An explicit device id (an index into the visible devices).
    pub device_id: Option<i64>,
    /// How to map the process when no id is given.
    pub map_device_id_by: Option<MapDeviceIdBy>,
}

impl DeviceSettings {
    /// `KOKKOS_DEVICE_ID` and `KOKKOS_MAP_DEVICE_ID_BY` from `env`.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Self> {
        let mut s = DeviceSettings::default();
        if let Some(v) = env("KOKKOS_DEVICE_ID") {
            s.device_id = Some(parse_id(&v, "KOKKOS_DEVICE_ID")?);
        }
        if let Some(v) = env("KOKKOS_MAP_DEVICE_ID_BY") {
            s.map_device_id_by = Some(MapDeviceIdBy::parse(&v, "KOKKOS_MAP_DEVICE_ID_BY")?);
        }
        Ok(s)
    }

    /// Read `--kokkos-device-id=N` and `--kokkos-map-device-id-by=X` from
    /// `args` over `self` (the first argument, the program's name, is never
    /// read). Kokkos removes them from argv: [`is_device_arg`] says which.
    pub fn parse_args(mut self, args: &[String]) -> Result<Self> {
        for a in args.iter().skip(1) {
            if let Some(v) = a.strip_prefix(DEVICE_ID_ARG) {
                self.device_id = Some(parse_id(v, "--kokkos-device-id")?);
            } else if let Some(v) = a.strip_prefix(MAP_BY_ARG) {
                self.map_device_id_by = Some(MapDeviceIdBy::parse(v, "--kokkos-map-device-id-by")?);
            }
        }
        Ok(self)
    }

    /// The device for `code`, the settings given in code, over the arguments
    /// and the environment (Kokkos' order): [`DeviceSettings::select`] of
    /// their combination.
    pub fn choose(code: DeviceSettings, args: &[String], env: &dyn Fn(&str) -> Option<String>, count: u32, pid: u32) -> Result<Option<u32>> {
        DeviceSettings::from_env(env)?.parse_args(args)?.and(code).select(env, count, pid)
    }

    /// `self` with what `other` sets (Kokkos' `combine`: later settings win).
    pub fn and(self, other: DeviceSettings) -> Self {
        DeviceSettings {
            device_id: other.device_id.or(self.device_id),
            map_device_id_by: other.map_device_id_by.or(self.map_device_id_by),
        }
    }

    /// The device among `count` that Kokkos 4 picks, or `None` (no id, no
    /// local rank: the space's default; or a space without devices, unless
    /// an id was asked for). `env` gives `KOKKOS_VISIBLE_DEVICES` and the
    /// launchers' variables; `pid` seeds `random`.
    pub fn select(&self, env: &dyn Fn(&str) -> Option<String>, count: u32, pid: u32) -> Result<Option<u32>> {
        let visible = visible_devices(env, count)?;
        if visible.is_empty() && self.device_id.is_none() {
            return Ok(None);
        }
        if let Some(id) = self.device_id {
            if visible.is_empty() {
                bail!(NoDevice, "device id {id}: this space has no device");
            }
            if id < 0 || id as usize >= visible.len() {
                bail!(
                    InvalidArgument,
                    "device id {id}: {} visible device(s), so the id is 0 to {}",
                    visible.len(),
                    visible.len() as i64 - 1
                );
            }
            return Ok(Some(visible[id as usize]));
        }
        if self.map_device_id_by == Some(MapDeviceIdBy::Random) {
            // A splitmix64 step of the process id: the same process keeps its device.
            let mut z = u64::from(pid).wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            return Ok(Some(visible[((z ^ (z >> 31)) % visible.len() as u64) as usize]));
        }
        match local_rank(env)? {
            Some(r) => Ok(Some(visible[r as usize % visible.len()])),
            None => Ok(None),
        }
    }
}

const DEVICE_ID_ARG: &str = "--kokkos-device-id=";
const MAP_BY_ARG: &str = "--kokkos-map-device-id-by=";

/// Whether `arg` is one of the device arguments [`DeviceSettings::parse_args`]
/// reads (and Kokkos removes from argv).
pub fn is_device_arg(arg: &[u8]) -> bool {
    arg.starts_with(DEVICE_ID_ARG.as_bytes()) || arg.starts_with(MAP_BY_ARG.as_bytes())
}

/// A device id: an integer, 0 or more.
fn parse_id(v: &str, option: &str) -> Result<i64> {
    match v.trim().parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n),
        Ok(n) => bail!(InvalidArgument, "{option}: device id {n} is negative"),
        Err(_) => bail!(InvalidArgument, "{option}: '{v}' is not a device id (an integer, 0 or more)"),
    }
}

/// `KOKKOS_VISIBLE_DEVICES`, checked against `count`, or every device.
fn visible_devices(env: &dyn Fn(&str) -> Option<String>, count: u32) -> Result<Vec<u32>> {
    let Some(list) = env("KOKKOS_VISIBLE_DEVICES") else {
        return Ok((0..count).collect());
    };
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let id: i64 = item.parse().map_err(|_| {
            crate::error::err!(InvalidArgument, "KOKKOS_VISIBLE_DEVICES={list}: '{item}' is not a device id")
        })?;
        if id < 0 || id >= i64::from(count) {
            bail!(InvalidArgument, "KOKKOS_VISIBLE_DEVICES={list}: device {id} does not exist ({count} device(s): 0 to {})", i64::from(count) - 1);
        }
        out.push(id as u32);
    }
    if out.is_empty() {
        bail!(InvalidArgument, "KOKKOS_VISIBLE_DEVICES={list}: no device listed");
    }
    Ok(out)
}

/// The node-local MPI rank a launcher set, if any.
fn local_rank(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<u32>> {
    for var in LOCAL_RANK_VARIABLES {
        if let Some(v) = env(var) {
            return match v.trim().parse::<u32>() {
                Ok(r) => Ok(Some(r)),
                Err(_) => bail!(InvalidArgument, "{var}={v}: not a local rank (an integer, 0 or more)"),
            };
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    fn pick(s: DeviceSettings, vars: &'static [(&'static str, &'static str)], count: u32) -> Result<Option<u32>> {
        s.select(&env(vars), count, 4242)
    }

    #[test]
    fn each_launchers_local_rank_maps_round_robin() {
        for var in LOCAL_RANK_VARIABLES {
            let e = move |k: &str| (k == var).then(|| "5".to_string());
            assert_eq!(DeviceSettings::default().select(&e, 4, 1).unwrap(), Some(1), "{var}");
        }
        // Open MPI's wins over Slurm's, as in Kokkos.
        assert_eq!(pick(DeviceSettings::default(), &[("SLURM_LOCALID", "2"), ("OMPI_COMM_WORLD_LOCAL_RANK", "3")], 8).unwrap(), Some(3));
        assert_eq!(pick(DeviceSettings::default(), &[], 8).unwrap(), None, "no launcher: the default");
    }

    #[test]
    fn visible_devices_restrict_and_reorder() {
        let vars: &[(&str, &str)] = &[("KOKKOS_VISIBLE_DEVICES", "3,1"), ("OMPI_COMM_WORLD_LOCAL_RANK", "2")];
        assert_eq!(pick(DeviceSettings::default(), vars, 4).unwrap(), Some(3));
        let id = DeviceSettings { device_id: Some(1), ..Default::default() };
        assert_eq!(pick(id, vars, 4).unwrap(), Some(1), "an id indexes the visible list");
        let bad = pick(DeviceSettings::default(), &[("KOKKOS_VISIBLE_DEVICES", "0,4")], 4).unwrap_err();
        assert_eq!(bad.kind(), ErrorKind::InvalidArgument);
        assert!(bad.to_string().contains("KOKKOS_VISIBLE_DEVICES=0,4: device 4 does not exist"), "{bad}");
    }

    #[test]
    fn an_explicit_id_wins_and_is_checked() {
        let vars: &[(&str, &str)] = &[("OMPI_COMM_WORLD_LOCAL_RANK", "1")];
        let s = DeviceSettings { device_id: Some(0), map_device_id_by: Some(MapDeviceIdBy::Random) };
        assert_eq!(pick(s, vars, 2).unwrap(), Some(0));
        let e = pick(DeviceSettings { device_id: Some(2), ..Default::default() }, vars, 2).unwrap_err();
        assert!(e.to_string().contains("device id 2: 2 visible device(s), so the id is 0 to 1"), "{e}");
    }

    #[test]
    fn random_stays_among_the_visible_and_is_stable() {
        let s = DeviceSettings { map_device_id_by: Some(MapDeviceIdBy::Random), ..Default::default() };
        let e = env(&[("KOKKOS_VISIBLE_DEVICES", "2,5,6"), ("OMPI_COMM_WORLD_LOCAL_RANK", "0")]);
        let mut seen = std::collections::BTreeSet::new();
        for pid in 0..200 {
            let d = s.select(&e, 8, pid).unwrap().unwrap();
            assert!([2, 5, 6].contains(&d));
            assert_eq!(s.select(&e, 8, pid).unwrap(), Some(d), "the same process, the same device");
            seen.insert(d);
        }
        assert_eq!(seen.len(), 3, "every visible device is drawn");
    }

    #[test]
    fn environment_then_arguments_then_code() {
        let e = env(&[("KOKKOS_DEVICE_ID", "1"), ("KOKKOS_MAP_DEVICE_ID_BY", "random")]);
        let from_env = DeviceSettings::from_env(&e).unwrap();
        assert_eq!(from_env, DeviceSettings { device_id: Some(1), map_device_id_by: Some(MapDeviceIdBy::Random) });
        let args: Vec<String> = ["prog", "-n", "--kokkos-device-id=3", "x", "--kokkos-map-device-id-by=mpi_rank"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let s = from_env.parse_args(&args).unwrap();
        assert_eq!(s, DeviceSettings { device_id: Some(3), map_device_id_by: Some(MapDeviceIdBy::MpiRank) });
        let kept: Vec<&String> = args.iter().filter(|a| !is_device_arg(a.as_bytes())).collect();
        assert_eq!(kept, ["prog", "-n", "x"], "what Kokkos removes");
        let code = DeviceSettings { device_id: Some(0), ..Default::default() };
        assert_eq!(s.and(code).device_id, Some(0));
        assert_eq!(s.and(code).map_device_id_by, Some(MapDeviceIdBy::MpiRank));
    }

    #[test]
    fn invalid_values_name_their_option() {
        type Vars = &'static [(&'static str, &'static str)];
        let cases: [(Vars, &str); 3] = [
            (&[("KOKKOS_MAP_DEVICE_ID_BY", "node")], "KOKKOS_MAP_DEVICE_ID_BY: 'node' is not recognized"),
            (&[("KOKKOS_DEVICE_ID", "-1")], "KOKKOS_DEVICE_ID: device id -1 is negative"),
            (&[("KOKKOS_DEVICE_ID", "gpu0")], "KOKKOS_DEVICE_ID: 'gpu0' is not a device id"),
        ];
        for (vars, want) in cases {
            let e = DeviceSettings::from_env(&env(vars)).unwrap_err();
            assert!(e.kind() == ErrorKind::InvalidArgument && e.to_string().contains(want), "{e}");
        }
        let args = vec!["p".to_string(), "--kokkos-map-device-id-by=rr".to_string()];
        let e = DeviceSettings::default().parse_args(&args).unwrap_err();
        assert!(e.to_string().contains("--kokkos-map-device-id-by: 'rr' is not recognized (mpi_rank or random)"), "{e}");
        let e = pick(DeviceSettings::default(), &[("SLURM_LOCALID", "x")], 2).unwrap_err();
        assert!(e.to_string().contains("SLURM_LOCALID=x"), "{e}");
        assert_eq!(pick(DeviceSettings::default(), &[("PMI_LOCAL_RANK", "1")], 0).unwrap(), None, "no device: nothing to map");
        let e = pick(DeviceSettings { device_id: Some(0), ..Default::default() }, &[], 0).unwrap_err();
        assert!(e.kind() == ErrorKind::NoDevice && e.to_string().contains("device id 0: this space has no device"), "{e}");
    }
}
