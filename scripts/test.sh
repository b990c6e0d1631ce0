#!/usr/bin/env bash
# Run every test of dualview on a fresh Debian machine: installs what it needs
# first (scripts/lib/deps.sh: apt-get as root, Rust >= 1.88 through rustup,
# nvcc from NVIDIA's pip wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
need_rust
apt_install cmake make gcc g++ clang gfortran pkgconf binutils valgrind python3 python3-venv \
    libgtest-dev libopenmpi-dev openmpi-bin python3-matplotlib libtrilinos-kokkos-dev
export CARGO_TERM_COLOR=never
# Features are additive: the default `cuda` plus `ndarray` and `cudarc-interop` cover every line.
FEATURES=ndarray,cudarc-interop
echo "== Rust ($FEATURES on): unit, integration, property, header, interop and benchmark-smoke tests"
cargo test --all-targets --features $FEATURES
echo "== Rust: without the default cuda feature (no cudarc in the library)"
# The ledger at production shapes (40 s in a debug build) depends on no feature: it ran above.
cargo test --no-default-features --lib --test rust_api --test bad_input --test model -- --skip the_ledger_holds_at_production_shapes
echo "== Rust: the pipelined copies with 16 copy threads (as many lanes as a GPU node's cores)"
DV_COPY_THREADS=16 cargo test --features $FEATURES --test pipeline
echo "== Rust: clippy (warnings are errors), with every feature and without cuda"
if cargo clippy --version >/dev/null 2>&1; then
    cargo clippy --all-targets --features $FEATURES -- -D warnings
    cargo clippy --lib --tests --no-default-features -- -D warnings
else
    echo "SKIPPED clippy: not installed with this Rust toolchain"
fi
echo "== Rust: documentation examples, and the docs build without a warning"
cargo test --doc --features $FEATURES
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --features $FEATURES
echo "== Rust: the demo and the stencil example (ndarray + cudarc, or the test device without a GPU)"
cargo run --quiet --example demo >/dev/null
cargo run --quiet --features $FEATURES --example stencil -- 64 40
# The library optimized as a release build is (no debug assertions, no overflow checks) over the
# debug build's dependencies above: `--release` would build every dev-dependency again (90 s).
OPTIMIZED=(--config 'profile.dev.package.dualview.opt-level=3' --config 'profile.dev.package.dualview.debug-assertions=false'
           --config 'profile.dev.package.dualview.overflow-checks=false')
echo "== Benchmark smoke: checked mode costs O(the call's box) (examples/checked_cost.rs, small; 10x limit on"
echo "   a loaded 2-core machine over the 5x target the full size meets)"
cargo run --quiet "${OPTIMIZED[@]}" --example checked_cost -- 512 512 2000 10
echo "== Benchmark smoke: the coherence map's cost per mark and sync in five patterns (examples/map_cost.rs,"
echo "   1M elements; limits 15 us a mark and 4x a whole copy on a loaded 2-core machine, over 5 us and 2x)"
cargo run --quiet "${OPTIMIZED[@]}" --example map_cost -- 1024 2048 15 4
echo "== CUDA: nvcc from the Python wheels, to compile the .cu tests without a GPU"
NVCC="$(need_nvcc || true)"
export NVCC
[ -n "$NVCC" ] && echo "nvcc: $NVCC" || echo "SKIPPED installing nvcc: pip could not install the CUDA wheels"
echo "== C, C++, Fortran and CUDA (cmake --workflow --preset default: configure, build, test, install"
echo "   into build/install): examples, bad input under valgrind, C and C++ header checks (g++, clang++),"
echo "   googletest, Kokkos example, .cu compile, every complete program of README.md and docs/*.md"
echo "   (scripts/check-docs.py), installed package from C-, C++- and Fortran-only projects"
echo "   (CMake shared and static, pkg-config)"
cmake --workflow --preset default --fresh

echo "== Reliability (docs/RELIABILITY.md): the C ABI fuzz target for 60 s, the C, C++ and Fortran"
echo "   tests under AddressSanitizer + UBSan, Miri, ThreadSanitizer on the stress test"
bash scripts/reliability.sh

echo "== Coverage (scripts/coverage.sh): the CPU run's lines of the device engine and the test"
echo "   device's driver (src/memory/device/ but the CUDA driver) must reach 90 %"
bash scripts/coverage.sh --min 90 | tail -3
echo "== Mutations (scripts/mutations.sh): each patch of tests/mutations/ breaks a rule, and the"
echo "   tests it names must fail; a patch that no longer applies or does not build is an error"
bash scripts/mutations.sh

echo "all dualview tests passed in ${SECONDS} s"
