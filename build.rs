//! Give the shared library a SONAME: `libdualview.so.0.MINOR` while the
//! version is 0.x (minor releases may break the ABI), `.so.MAJOR` after.

fn main() {
    let major = env!("CARGO_PKG_VERSION_MAJOR");
    let minor = env!("CARGO_PKG_VERSION_MINOR");
    let soname = if major == "0" { format!("libdualview.so.0.{minor}") } else { format!("libdualview.so.{major}") };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
