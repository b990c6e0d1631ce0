//! The declared minimum Rust (`rust-version` in Cargo.toml) is what the
//! library's dependency tree really needs: the test fails when a dependency
//! (through `cargo update`, say) asks for a newer Rust than we declare.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

fn version(v: &str) -> (u64, u64, u64) {
    let mut p = v.split('.').map(|x| x.parse::<u64>().unwrap_or(0));
    (p.next().unwrap_or(0), p.next().unwrap_or(0), p.next().unwrap_or(0))
}

#[test]
fn rust_version_covers_every_normal_dependency() {
    // At run time cargo names itself and the package (scripts/gpu-check.sh names a stand-in
    // that answers from the metadata recorded where the tests were built, and the tree's copy).
    let var = |k: &str, built: &str| std::env::var_os(k).unwrap_or_else(|| built.into());
    let out = std::process::Command::new(var("CARGO", env!("CARGO")))
        .args(["metadata", "--format-version", "1", "--offline", "--locked", "--manifest-path"])
        .arg(std::path::Path::new(&var("CARGO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"))).join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages: HashMap<&str, &Value> = m["packages"].as_array().unwrap().iter().map(|p| (p["id"].as_str().unwrap(), p)).collect();
    let nodes: HashMap<&str, &Value> = m["resolve"]["nodes"].as_array().unwrap().iter().map(|n| (n["id"].as_str().unwrap(), n)).collect();
    let root = m["resolve"]["root"].as_str().unwrap();
    let ours = packages[root]["rust_version"].as_str().expect("rust-version is declared");
    // Walk the normal (non-dev, non-build) dependencies from the library.
    let (mut seen, mut todo) = (BTreeSet::new(), vec![root]);
    while let Some(id) = todo.pop() {
        for d in nodes[id]["deps"].as_array().unwrap() {
            let normal = d["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null());
            let pkg = d["pkg"].as_str().unwrap();
            if normal && seen.insert(pkg) {
                todo.push(pkg);
            }
        }
    }
    assert!(seen.len() >= 3, "walked the tree: {seen:?}");
    let mut needs = ("(none)".to_string(), (0, 0, 0));
    for id in &seen {
        if let Some(rv) = packages[id]["rust_version"].as_str()
            && version(rv) > needs.1
        {
            needs = (format!("{} {}", packages[id]["name"].as_str().unwrap(), rv), version(rv));
        }
    }
    assert!(
        needs.1 <= version(ours),
        "rust-version = {ours} in Cargo.toml, but {} needs more: raise rust-version (and README's prerequisites)",
        needs.0
    );
    eprintln!("rust-version {ours}; the most demanding dependency: {}", needs.0);
}
