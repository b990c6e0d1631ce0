#!/usr/bin/env bash
# tests/with_kokkos/lammps_shape.cpp and gaps.cpp against the Kokkos of
# KOKKOS_SRC and LAMMPS' bundled one (LAMMPS_SRC/lib/kokkos, 3.7.02), each
# built once, Serial only, into a cache outside this repository
# (${XDG_CACHE_HOME:-~/.cache}/dualview/kokkos-serial-<version>), and once more
# with KOKKOS_ENABLE_DEBUG (kokkos-debug-<version>: every allocation record is
# linked into a root's list and checked). Each program is compiled in both
# forms (test_device: two allocations; one_space) and run; each must print
# "every check passed". Debian's Kokkos 3.4 is the ctest with_kokkos.* of the
# test command; these are the newer ones (issues 34 and 43).
#   usage: tests/with_kokkos/run.sh [OUT_DIR]   (KOKKOS_SRC and/or LAMMPS_SRC set; DV_LIB_DIR: libdualview.so)
# Prints SKIPPED and exits 0 when neither names a Kokkos tree.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/with_kokkos}
LIB=${DV_LIB_DIR:-$ROOT/target/release}
CXX=${CXX:-g++}
trees=()
[ -n "${KOKKOS_SRC:-}" ] && [ -f "$KOKKOS_SRC/core/src/Kokkos_Core.hpp" ] && trees+=("$KOKKOS_SRC")
[ -n "${LAMMPS_SRC:-}" ] && [ -f "$LAMMPS_SRC/lib/kokkos/core/src/Kokkos_Core.hpp" ] && trees+=("$LAMMPS_SRC/lib/kokkos")
if [ ${#trees[@]} -eq 0 ]; then
  echo "SKIPPED: neither KOKKOS_SRC (a kokkos/kokkos tree) nor LAMMPS_SRC (a LAMMPS tree with lib/kokkos) is set"
  exit 0
fi
. "$ROOT/scripts/lib/dvlib.sh"
dvlib_links "$LIB" "$OUT"
failed=0

# build_kokkos SRC KIND (serial|debug): PREFIX of an installed Serial Kokkos, built once.
build_kokkos() {
  local src=$1 kind=$2 version
  version=$(sed -n 's/^set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' "$src/CMakeLists.txt" | paste -sd. -)
  PREFIX=${XDG_CACHE_HOME:-$HOME/.cache}/dualview/kokkos-$kind-${version:-unknown}
  VERSION=${version:-?}
  compgen -G "$PREFIX/lib*/libkokkoscore*" >/dev/null && return 0
  echo "== building Kokkos $VERSION ($kind) from $src into $PREFIX (once)"
  local extra=()
  [ "$kind" = debug ] && extra=(-DKokkos_ENABLE_DEBUG=ON)
  rm -rf "$PREFIX.build"
  local start
  start=$(date +%s)
  cmake -S "$src" -B "$PREFIX.build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" "${extra[@]}" \
    >"$PREFIX.log" 2>&1 && cmake --build "$PREFIX.build" -j "$(nproc)" >>"$PREFIX.log" 2>&1 &&
    cmake --install "$PREFIX.build" >>"$PREFIX.log" 2>&1 || {
    tail -30 "$PREFIX.log"
    echo "FAIL: Kokkos $VERSION ($kind) did not build"
    return 1
  }
  rm -rf "$PREFIX.build"
  echo "== Kokkos built in $(($(date +%s) - start)) s"
}

for src in "${trees[@]}"; do
  for kind in serial debug; do
    build_kokkos "$src" "$kind" || {
      failed=1
      continue
    }
    KLIB=$(dirname "$(compgen -G "$PREFIX/lib*/libkokkoscore*" | head -1)")
    for prog in lammps_shape gaps; do
      for form in test_device one_space; do
        def=""
        [ "$form" = test_device ] && def=-DDUALVIEW_WITH_KOKKOS_TEST_DEVICE
        exe=$OUT/${prog}_${kind}_${VERSION}_$form
        if ! "$CXX" -std=c++17 -O1 $def -isystem "$PREFIX/include" -I"$ROOT/include" "$HERE/$prog.cpp" -o "$exe" \
          -L"$KLIB" -lkokkoscontainers -lkokkoscore -L"$LIB" -ldualview -Wl,-rpath,"$LIB" -Wl,-rpath,"$KLIB" -ldl -pthread; then
          echo "FAIL $prog $form: did not compile against Kokkos $VERSION ($kind)"
          failed=1
          continue
        fi
        if "$exe" | tee "$exe.txt" | grep -q "every check passed"; then
          echo "PASS $prog $form against Kokkos $VERSION ($kind)"
        else
          grep FAILED "$exe.txt"
          echo "FAIL $prog $form against Kokkos $VERSION ($kind)"
          failed=1
        fi
      done
    done
  done
done
exit $failed
