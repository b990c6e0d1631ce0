//! The four languages agree on every ABI number.
//!
//! `src/abi.rs` is the one table: every `DV_*` constant and every status code
//! is written there and nowhere else. This test reads that table and checks
//! that the C header (made by cbindgen), the Fortran module dualview_abi (made
//! from the C header by scripts/gen-fortran.py; module dualview re-exports its
//! constants) and the C++ headers (which use the C header's names and define no
//! numbers of their own) all say the same.

use dualview::abi::dv_status_t;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The source tree: `CARGO_MANIFEST_DIR` at run time (cargo test sets it, and
/// scripts/gpu-check.sh to the copy on a GPU machine), else where it was built.
fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `NAME = value` pairs found by `pick` on each line of `text`.
fn pairs(text: &str, pick: impl Fn(&str) -> Option<(String, i64)>) -> BTreeMap<String, i64> {
    text.lines().filter_map(|l| pick(l.trim())).collect()
}

fn int(v: &str) -> Option<i64> {
    let v = v.trim().trim_end_matches(';').trim_end_matches("u32").trim_end_matches("u8").trim_end_matches("u64");
    let v = v.trim_end_matches(['u', 'U', 'L']);
    v.parse().ok().or_else(|| v.strip_prefix("0x").and_then(|h| i64::from_str_radix(h, 16).ok()))
}

/// The table: `pub const DV_NAME: T = value;` in src/abi.rs.
fn rust_table() -> BTreeMap<String, i64> {
    pairs(&read("src/abi.rs"), |l| {
        let rest = l.strip_prefix("pub const DV_")?;
        let (name, rhs) = rest.split_once(':')?;
        let (_, value) = rhs.split_once('=')?;
        Some((format!("DV_{name}"), int(value)?))
    })
}

fn c_defines() -> BTreeMap<String, i64> {
    pairs(&read("include/dualview.h"), |l| {
        let mut w = l.strip_prefix("#define ")?.split_whitespace();
        let name = w.next()?;
        (name.starts_with("DV_") && !name.starts_with("DV_VERSION")).then_some(())?;
        Some((name.to_string(), int(w.next()?)?))
    })
}

fn c_statuses() -> BTreeMap<String, i64> {
    let h = read("include/dualview.h");
    let body = h.split("enum dv_status_t {").nth(1).expect("enum dv_status_t in dualview.h");
    let body = body.split('}').next().unwrap();
    pairs(body, |l| {
        let (name, value) = l.trim_end_matches(',').split_once('=')?;
        Some((name.trim().to_string(), int(value)?))
    })
}

fn fortran_parameters() -> BTreeMap<String, i64> {
    pairs(&read("fortran/dualview_abi.f90"), |l| {
        let (_, rhs) = l.split_once("parameter, public :: ")?;
        let (name, value) = rhs.split_once('=')?;
        let name = name.trim();
        (name.starts_with("DV_") && !name.starts_with("DV_VERSION")).then_some(())?;
        Some((name.to_string(), int(value.split('!').next()?)?))
    })
}

fn fortran_enumerators() -> BTreeMap<String, i64> {
    pairs(&read("fortran/dualview_abi.f90"), |l| {
        let rhs = l.strip_prefix("enumerator :: ")?;
        let (name, value) = rhs.split_once('=')?;
        Some((name.trim().to_string(), int(value)?))
    })
}

#[test]
fn the_c_header_defines_exactly_the_rust_table() {
    let rust = rust_table();
    assert!(rust.len() > 50, "the table was read: {} constants", rust.len());
    assert_eq!(c_defines(), rust);
}

#[test]
fn every_status_has_one_name_and_value_in_rust_c_and_fortran() {
    let name = |s: dv_status_t| s.text().to_str().unwrap().split(':').next().unwrap().to_string();
    let rust: BTreeMap<String, i64> = dv_status_t::ALL.iter().map(|&s| (name(s), s as i64)).collect();
    assert_eq!(rust.len(), dv_status_t::ALL.len(), "names are unique");
    assert_eq!(c_statuses(), rust, "C enum dv_status_t");
    assert_eq!(fortran_enumerators(), rust, "Fortran enumerators");
}

/// Each enum family of the table is exactly its Rust enum: a new `DV_SPACE_*`
/// is a new `SpaceKind` (which `dv_space_info` then answers, and which the
/// C++ test `Spaces.TagsFollowTheCorePolicy` requires a tag for), and so on.
#[test]
fn every_enum_family_of_the_table_is_its_rust_enum() {
    let table = rust_table();
    let family = |prefix: &str| -> Vec<i64> { table.iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, &v)| v).collect() };
    let sorted = |mut v: Vec<i64>| {
        v.sort();
        v
    };
    use dualview::{element::Dtype, Access, Layout, Side, SpaceKind};
    assert_eq!(sorted(family("DV_SPACE_")), sorted(SpaceKind::ALL.iter().map(|&k| k as i64).collect()), "DV_SPACE_*");
    assert_eq!(sorted(family("DV_LAYOUT_")), sorted(Layout::ALL.iter().map(|&k| k as i64).collect()), "DV_LAYOUT_*");
    assert_eq!(sorted(family("DV_DTYPE_")), sorted(Dtype::ALL.iter().map(|&k| k as i64).collect()), "DV_DTYPE_*");
    assert_eq!(sorted(family("DV_ACCESS_")), sorted(Access::ALL.iter().map(|&k| k as i64).collect()), "DV_ACCESS_*");
    assert_eq!(sorted(family("DV_SIDE_")), sorted(Side::ALL.iter().map(|&k| k as i64).collect()), "DV_SIDE_*");
}

#[test]
fn the_fortran_module_has_every_constant_with_the_same_value() {
    let rust = rust_table();
    let fortran = fortran_parameters();
    for (name, value) in &rust {
        assert_eq!(fortran.get(name), Some(value), "{name} in fortran/dualview_abi.f90");
    }
    for (name, value) in &fortran {
        assert_eq!(rust.get(name), Some(value), "{name} of fortran/dualview_abi.f90 is not in src/abi.rs");
    }
}

#[test]
fn the_cpp_headers_define_no_abi_numbers_of_their_own() {
    let dir = root().join("include/dualview");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.extend(std::fs::read_dir(dir.join("kokkos")).unwrap().map(|e| e.unwrap().path()));
    // ABI names: the table's, and anything sharing a family prefix with them (DV_SPACE_, DV_FLAG_, ...).
    let table = rust_table();
    let families: std::collections::BTreeSet<String> =
        table.keys().filter_map(|n| n.splitn(3, '_').take(2).collect::<Vec<_>>().join("_").into()).map(|p| p + "_").collect();
    let is_abi = |w: &str| table.contains_key(w) || w.starts_with("DV_ERROR_") || families.iter().any(|p| w.starts_with(p.as_str()));
    let mut checked = 0;
    for f in files.iter().filter(|f| f.extension().is_some_and(|x| x == "hpp")) {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let l = line.trim();
            // A definition of an ABI name: `#define DV_X 3`, `DV_X = 3`, `constexpr ... DV_X = 3`.
            let mut w = l.split_whitespace();
            let defines = l.starts_with("#define ") && w.nth(1).is_some_and(is_abi) && w.next().and_then(int).is_some();
            let assigns = l.split_once('=').is_some_and(|(lhs, rhs)| {
                lhs.split_whitespace().last().is_some_and(is_abi) && int(rhs.trim_end_matches(',')).is_some()
            });
            assert!(!defines && !assigns, "{}:{}: defines an ABI number; take it from dualview.h: {l}", f.display(), n + 1);
        }
        checked += 1;
    }
    assert!(checked >= 10, "read the C++ headers ({checked})");
}
