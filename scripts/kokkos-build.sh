#!/usr/bin/env bash
# Builds Kokkos (CUDA and Serial, for this machine's GPU) on the GPU machine
# from the source archive scripts/gpu-prepare.sh packs into
# .gpu/kokkos-src.tar.gz when KOKKOS_SRC names a Kokkos tree, and installs it
# into .gpu/kokkos-cuda/install (kept there: a second call reuses it;
# KOKKOS_ARCHIVE and KOKKOS_BUILD_DIR override both paths).
# scripts/gpu-bench.sh calls it to put Kokkos' own DualView beside dualview's
# in the same run (issue 32). Kokkos 4.6.x predates CUDA 13: its calls of
# cudaGraphAddDependencies, cudaMemAdvise and cudaMemPrefetchAsync take CUDA
# 13's new signatures, and nvcc_wrapper's default architecture (sm_70, gone in
# CUDA 13) becomes sm_90; the edits are made here, in the extracted copy, and
# only where the old forms are found (4.7 and later build as they are).
#   bash scripts/kokkos-build.sh     last line: the install prefix
# Exits 3 (and says SKIPPED) without the archive.
set -euo pipefail
cd "$(dirname "$0")/.."
GPU=$PWD/.gpu
ARCHIVE=${KOKKOS_ARCHIVE:-$GPU/kokkos-src.tar.gz}
WORK=${KOKKOS_BUILD_DIR:-$GPU/kokkos-cuda}
PREFIX=$WORK/install
if [ ! -f "$ARCHIVE" ]; then
  echo "SKIPPED Kokkos: no .gpu/kokkos-src.tar.gz (run scripts/gpu-prepare.sh with KOKKOS_SRC=<a Kokkos tree>)"
  exit 3
fi
if compgen -G "$PREFIX/lib*/cmake/Kokkos/KokkosConfig.cmake" >/dev/null && [ -f "$WORK/built.txt" ]; then
  cat "$WORK/built.txt"
  echo "$PREFIX"
  exit 0
fi
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
rm -rf "$WORK" && mkdir -p "$WORK/src"
tar -xzf "$ARCHIVE" -C "$WORK/src"
python3 scripts/lib/kokkos-cuda13.py "$WORK/src"
cmake -S "$WORK/src" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$WORK/src/bin/nvcc_wrapper" \
  -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_HOPPER90=ON \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" > "$WORK/configure.log" 2>&1 \
  || { tail -30 "$WORK/configure.log"; exit 1; }
cmake --build "$WORK/build" -j "$(nproc)" > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
cmake --install "$WORK/build" > "$WORK/install.log" 2>&1 || { tail -20 "$WORK/install.log"; exit 1; }
echo "kokkos-build: Kokkos $(sed -n "s/^-- Kokkos version: \([0-9.]*\).*/\1/p" "$WORK/configure.log" | head -1) built in $(($(date +%s) - start)) s on $(nproc) cores" | tee "$WORK/built.txt"
echo "$PREFIX"
