#!/usr/bin/env bash
# On the build machine (Rust, no GPU needed): build everything the GPU check
# runs and copy it into .gpu/ (ignored by git), for scripts/gpu-check.sh on a
# GPU machine, which has no Rust. See docs/GPU.md.
#   .gpu/lib/         libdualview.so (the C library)
#   .gpu/bin/         (packed with doctests/ into .gpu/bin.tar.xz) every Rust test binary (tests/*.rs and the library's unit
#                     tests as `lib`, listed in .gpu/rust-tests.txt), the stencil
#                     example, dv_gtest
#   .gpu/doctests/    the documentation examples, compiled (nightly rustdoc
#                     --persist-doctests --no-run), listed in .gpu/doctests.txt
#                     (without a nightly toolchain: .gpu/doctests.skipped says so)
#   .gpu/old/         with OLD_COMMIT=<rev>: that commit's library and headers (gpu-ab.sh)
#   .gpu/shim/cargo   answers `cargo metadata` there (tests/msrv.rs, and cbindgen
#                     in tests/header.rs) from what cargo says here
set -euo pipefail
cd "$(dirname "$0")/.."
FEATURES=ndarray,cudarc-interop
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/doctests .gpu/shim
# The SONAME carries major.minor while the version is 0.x (CMakeLists.txt does the same).
SONAME=libdualview.so.$(sed -n 's/^version = "\([0-9]*\.[0-9]*\)\..*/\1/p' Cargo.toml | head -1)
cargo rustc --release --lib --crate-type cdylib -- -C link-arg=-Wl,-soname,$SONAME
cp target/release/libdualview.so .gpu/lib/$SONAME
ln -sf $SONAME .gpu/lib/libdualview.so   # one copy: carry holds 64 MiB in all
# The commit the library was built from (gpu-ab.sh's "new"; "+" when src/ differs from it).
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include || echo +)" > .gpu/lib/commit
executables() { # cargo arguments...: "name path" of each executable they build
  cargo "$@" --message-format=json 2>/dev/null | python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable"):
        t=m["target"]
        print("lib" if set(t["kind"]) & {"lib", "rlib"} else t["name"], m["executable"])'
}
# Every Rust test binary, with every feature (a superset of the default).
executables test --release --no-run --tests --features $FEATURES > .gpu/rust-tests.paths
[ -s .gpu/rust-tests.paths ] || { echo "cargo test --no-run built nothing"; exit 1; }
while read -r name path; do cp "$path" ".gpu/bin/$name"; echo "$name"; done < .gpu/rust-tests.paths > .gpu/rust-tests.txt
rm .gpu/rust-tests.paths
for t in tests/*.rs tests/*/main.rs; do
  n=$(basename "$t" .rs); [ "$n" = main ] && n=$(basename "$(dirname "$t")")
  grep -qx "$n" .gpu/rust-tests.txt || { echo "tests/$n was not built"; exit 1; }
done
# tests/header.rs compares the committed header with cbindgen's text: nothing in it
# depends on the machine, and its 6 MB would push .gpu past carry's 64 MiB.
rm -f .gpu/bin/header && sed -i '/^header$/d' .gpu/rust-tests.txt
echo "$(wc -l < .gpu/rust-tests.txt) Rust test binaries: $(tr '\n' ' ' < .gpu/rust-tests.txt)"
cp "$(executables build --release --features $FEATURES --example stencil | awk '{print $2}' | tail -1)" .gpu/bin/stencil
# The doctests, compiled here to run there. Edition 2024 merges them into one
# binary (run with RUSTDOC_DOCTEST_BIN_PATH naming itself: one process per
# example, as rustdoc runs them); examples that cannot merge get their own.
# compile_fail examples are checked here and leave nothing to run.
if grep -rqE '^\s*(//[/!]|)\s*```[a-z_,0-9]*(no_run|should_panic)' src README.md; then
  echo "a no_run or should_panic doctest: teach gpu-check.sh how to run it"; exit 1
fi
: > .gpu/doctests.txt
if cargo +nightly --version >/dev/null 2>&1; then
  rm -rf target/doctest/persist && mkdir -p target/doctest
  RUSTDOCFLAGS="-Z unstable-options --persist-doctests $PWD/target/doctest/persist --no-run" \
    CARGO_TARGET_DIR=target/doctest cargo +nightly test --doc --features $FEATURES > target/doctest/build.log 2>&1 \
    || { tail -30 target/doctest/build.log; exit 1; }
  for d in target/doctest/persist/*/; do
    n=$(basename "$d")
    [ -x "$d/rust_out" ] && cp "$d/rust_out" ".gpu/doctests/$n" && echo "$n"
  done > .gpu/doctests.txt
  grep -q '^merged_doctest' .gpu/doctests.txt || { echo "no merged doctest binary in target/doctest/persist"; exit 1; }
  echo "doctests: $(grep -h '^test result' target/doctest/build.log | tr '\n' ' ')"
else
  echo "no nightly toolchain (rustdoc --persist-doctests is unstable): the doctests will not run on the GPU" \
       "(rustup toolchain install nightly)" | tee .gpu/doctests.skipped
fi
# `cargo metadata` for a machine without cargo: this tree's path becomes the copy's there.
root=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1])[1:-1])' "$PWD")
cargo fetch --locked >/dev/null 2>&1 || true   # every crate the offline metadata below reads (a fresh machine has only the built ones)
cargo metadata --format-version 1 --offline --locked | sed "s|$root|@ROOT@|g" > .gpu/shim/metadata.json
cargo metadata --format-version 1 --offline --locked --all-features | sed "s|$root|@ROOT@|g" > .gpu/shim/metadata-all-features.json
cat > .gpu/shim/cargo <<'EOF'
#!/bin/sh
# Stands in for cargo on the GPU machine (scripts/gpu-prepare.sh wrote it):
# answers `cargo metadata` with what cargo said on the build machine.
case " $* " in *" metadata "*) ;; *) echo "cargo stand-in: only 'cargo metadata' was recorded" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")/../.." && pwd)
f=metadata.json
case " $* " in *" --all-features "*) f=metadata-all-features.json ;; esac
sed "s|@ROOT@|$here|g" "$(dirname "$0")/$f"
EOF
chmod +x .gpu/shim/cargo
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
# Kokkos' sources, for scripts/kokkos-build.sh on the GPU machine (gpu-bench's Kokkos
# rows, built in the same run): the library's sources only, about 1.3 MB compressed.
if [ -n "${KOKKOS_SRC:-}" ]; then
  tar -C "$KOKKOS_SRC" -czf .gpu/kokkos-src.tar.gz --exclude=.git --exclude='./*/unit_test*' --exclude='./*/*/unit_test*' \
      --exclude='./*/perf_test*' --exclude='./*/*/perf_test*' --exclude=./doc .
  echo "Kokkos sources for gpu-bench: $(du -h .gpu/kokkos-src.tar.gz | cut -f1)"
fi
# The library of another commit with its headers, for scripts/gpu-ab.sh (old against
# new): OLD_COMMIT=<rev>, built in a worktree of its own (target/old keeps its build).
if [ -n "${OLD_COMMIT:-}" ]; then
  old=$(mktemp -d)
  git worktree add --detach "$old" "$OLD_COMMIT" >/dev/null
  (cd "$old" && CARGO_TARGET_DIR="$OLDPWD/target/old" cargo rustc --release --lib --crate-type cdylib -- \
    -C link-arg=-Wl,-soname,$SONAME) || { git worktree remove --force "$old"; exit 1; }
  mkdir -p .gpu/old/lib
  cp target/old/release/libdualview.so .gpu/old/lib/$SONAME
  ln -sf $SONAME .gpu/old/lib/libdualview.so
  cp -r "$old/include" .gpu/old/
  git rev-parse --short "$OLD_COMMIT" > .gpu/old/commit
  git worktree remove --force "$old"
  strip --strip-all .gpu/old/lib/$SONAME
fi
strip --strip-debug .gpu/bin/* .gpu/lib/$SONAME .gpu/doctests/*  # not the link
# What travels to the GPU machine holds 64 MiB with the working tree (and .lammps/, when a
# LAMMPS run goes with it): the test programs and doctests travel as one xz archive (about an
# eighth of their size), which scripts/gpu-check.sh unpacks there.
tar -C .gpu -cf - bin doctests | xz -T0 -6 > .gpu/bin.tar.xz
rm -rf .gpu/bin .gpu/doctests
du -sh .gpu
