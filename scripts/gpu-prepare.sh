#!/usr/bin/env bash
# On the build machine (Rust, no GPU needed): build everything the GPU check
# runs and copy it into .gpu/ (ignored by git), for scripts/gpu-check.sh on a
# GPU machine. See docs/GPU.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cargo rustc --release --lib --crate-type cdylib -- -C link-arg=-Wl,-soname,libdualview.so.0.1
cp -a target/release/libdualview.so .gpu/lib/
cp .gpu/lib/libdualview.so .gpu/lib/libdualview.so.0.1
executable() { # cargo arguments...: the path of the one executable they build
  cargo "$@" --message-format=json 2>/dev/null | python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable"): print(m["executable"])' | tail -1
}
for t in gpu kokkos_behaviour; do
  cp "$(executable test --release --no-run --test "$t")" ".gpu/bin/$t"
done
# The cudarc interop test and the stencil example (after the library copy:
# these feature builds replace target/release/libdualview.so).
cp "$(executable test --release --no-run --features ndarray,cudarc-interop --test interop)" .gpu/bin/interop
cp "$(executable build --release --features ndarray,cudarc-interop --example stencil)" .gpu/bin/stencil
# The googletest suite, built by the CMake workflow.
# (its own build folder, so that a workflow run in build/default is left alone)
cmake -S . -B build/gpu-prepare -DCMAKE_BUILD_TYPE=Release -DDUALVIEW_BUILD_TESTS=ON >/dev/null
cmake --build build/gpu-prepare --target dv_gtest -j 2 >/dev/null
cp build/gpu-prepare/cpp_tests/dv_gtest .gpu/bin/
# Kokkos' own DualView tests (tests/kokkos_unit/run.sh cuda), when a Kokkos
# source tree and a googletest prefix are named: only the files the harness reads.
if [ -n "${KOKKOS_SRC:-}" ] && [ -n "${GTEST_ROOT:-}" ]; then
  mkdir -p .gpu/kokkos/containers .gpu/kokkos/core/unit_test/tools .gpu/gtest/include .gpu/gtest/lib
  cp -rL "$KOKKOS_SRC/containers/unit_tests" .gpu/kokkos/containers/
  cp -rL "$KOKKOS_SRC/core/unit_test/tools/include" .gpu/kokkos/core/unit_test/tools/
  cp -rL "$GTEST_ROOT/include/gtest" .gpu/gtest/include/
  cp -L "$GTEST_ROOT/lib/libgtest.a" .gpu/gtest/lib/
else
  echo "no KOKKOS_SRC / GTEST_ROOT: gpu-check.sh will skip Kokkos' own tests on the GPU"
fi
strip --strip-debug .gpu/bin/* .gpu/lib/*
du -sh .gpu
