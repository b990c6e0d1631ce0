#!/usr/bin/env bash
# On the build machine (Rust, no GPU needed): build everything the GPU check
# runs and copy it into .gpu/ (ignored by git), for scripts/gpu-check.sh on a
# GPU machine. See docs/GPU.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cargo build --release --lib
cp -a target/release/libdualview.so .gpu/lib/
cp .gpu/lib/libdualview.so .gpu/lib/libdualview.so.0.1
for t in gpu kokkos_behaviour; do
  exe=$(cargo test --release --no-run --test "$t" --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable"): print(m["executable"])' | tail -1)
  cp "$exe" ".gpu/bin/$t"
done
exe=$(cargo bench --no-run --bench gpu_bandwidth --message-format=json 2>/dev/null |
      python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable"): print(m["executable"])' | tail -1)
cp "$exe" .gpu/bin/gpu_bandwidth
# The googletest suite, built by the CMake workflow.
cmake --preset default >/dev/null && cmake --build build/default --target dv_gtest -j 2 >/dev/null
cp build/default/cpp_tests/dv_gtest .gpu/bin/
strip --strip-debug .gpu/bin/* .gpu/lib/*
du -sh .gpu
