#!/usr/bin/env bash
# Run every test of dualview on a fresh machine: installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
need_rust
apt_install cmake gcc g++ clang gfortran pkgconf valgrind libgtest-dev libopenmpi-dev openmpi-bin
export CARGO_TERM_COLOR=never
echo "== Rust: unit, integration, property, header and benchmark-smoke tests"
cargo test --all-targets
echo "== Rust: clippy (warnings are errors)"
if cargo clippy --version >/dev/null 2>&1; then
    cargo clippy --all-targets -- -D warnings
else
    echo "SKIPPED clippy: not installed with this Rust toolchain"
fi
echo "== Rust: documentation examples"
cargo test --doc
echo "== Rust: the demo"
cargo run --quiet --example demo >/dev/null
echo "== CUDA: nvcc from the Python wheels, to compile the .cu tests without a GPU"
NVCC="$(need_nvcc || true)"
export NVCC
[ -n "$NVCC" ] && echo "nvcc: $NVCC" || echo "SKIPPED installing nvcc: pip could not install the CUDA wheels"
echo "== C, C++ and CUDA: examples, bad input under valgrind, header as C99 and C++, googletest,"
echo "   Kokkos example (g++, clang++; C++17, C++20), .cu compile, installed package (CMake, static, pkg-config)"
cmake --workflow --preset default --fresh
echo "all dualview tests passed"
