//! The committed C header is exactly what cbindgen makes from the code now
//! (with `dualview::ffi::c_header_trailer()`, the inline C functions of rules
//! written in Rust, as its trailer), and its version macros match Cargo.toml.
//! Regenerate with `DUALVIEW_BLESS=1 cargo test --test header`.

use std::path::PathBuf;

/// The source tree: `CARGO_MANIFEST_DIR` at run time (cargo test sets it, and
/// scripts/gpu-check.sh to the copy on a GPU machine), else where it was built.
fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

fn generate() -> String {
    let dir = root();
    let mut config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    // The inline C functions of rules written in Rust (src/abi.rs).
    config.trailer = Some(dualview::ffi::c_header_trailer());
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen runs")
        .write(&mut out);
    String::from_utf8(out).expect("utf-8 header")
}

#[test]
fn committed_header_is_up_to_date() {
    let path = root().join("include/dualview.h");
    let fresh = generate();
    if std::env::var("DUALVIEW_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/dualview.h is stale: run `DUALVIEW_BLESS=1 cargo test --test header` and commit it"
    );
}

#[test]
fn header_version_matches_cargo() {
    let h = std::fs::read_to_string(root().join("include/dualview.h")).unwrap();
    for (name, value) in [
        ("DV_VERSION_MAJOR", env!("CARGO_PKG_VERSION_MAJOR")),
        ("DV_VERSION_MINOR", env!("CARGO_PKG_VERSION_MINOR")),
        ("DV_VERSION_PATCH", env!("CARGO_PKG_VERSION_PATCH")),
    ] {
        assert!(h.contains(&format!("#define {name} {value}\n")), "{name} in the header differs from Cargo.toml ({value})");
    }
}

#[test]
fn every_status_function_is_nodiscard() {
    let h = std::fs::read_to_string(root().join("include/dualview.h")).unwrap();
    let lines: Vec<&str> = h.lines().collect();
    let mut n = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(at) = line.find("enum dv_status_t dv_") else { continue };
        if line.contains("dv_status_str") {
            continue;
        }
        let before = &line[..at];
        let marked = before.trim() == "DV_NODISCARD" || (before.trim().is_empty() && i > 0 && lines[i - 1].trim() == "DV_NODISCARD");
        assert!(marked, "status-returning prototype without DV_NODISCARD: {line}");
        n += 1;
    }
    assert!(n >= 50, "only {n} status-returning prototypes found");
}

/// The C++ memory space tags (include/dualview/space.hpp) restate the core's
/// `page_locked`, which `dv_space_info_t` has no room for (the googletest
/// `Spaces.TagsFollowTheCorePolicy` compares every other field): each tag's
/// `/*page_locked*/` argument is its space's policy, and every space has a tag.
#[test]
fn cpp_space_tags_restate_page_locked() {
    use dualview::SpaceKind;
    let header = std::fs::read_to_string(root().join("include/dualview.h")).unwrap();
    let code = |name: &str| -> u32 {
        let def = format!("#define {name} ");
        let line = header.lines().find(|l| l.starts_with(&def)).unwrap_or_else(|| panic!("{name} not in dualview.h"));
        line[def.len()..].trim().parse().unwrap()
    };
    let tags = std::fs::read_to_string(root().join("include/dualview/space.hpp")).unwrap();
    let mut seen = Vec::new();
    for tag in tags.split("detail::memory_space_tag<").skip(1) {
        // Each piece starts with one tag's template arguments.
        let args = &tag[..tag.find('>').expect("a closing `>`")];
        let space = args.split(',').nth(1).expect("a code").trim();
        let flag = args.split("/*page_locked*/").nth(1).expect("a /*page_locked*/ argument").trim_start();
        let page_locked = flag.starts_with("true");
        assert!(page_locked || flag.starts_with("false"), "{space}: {flag}");
        let kind = SpaceKind::try_from(code(space)).unwrap();
        assert_eq!(page_locked, kind.policy().page_locked, "{space}: the C++ tag's page_locked");
        seen.push(kind);
    }
    for v in 0..256u32 {
        if let Ok(kind) = SpaceKind::try_from(v) {
            assert!(seen.contains(&kind), "{kind:?} has no C++ tag with a /*page_locked*/ argument");
        }
    }
}
