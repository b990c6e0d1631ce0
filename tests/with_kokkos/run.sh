#!/usr/bin/env bash
# tests/with_kokkos/lammps_shape.cpp against the Kokkos of KOKKOS_SRC (issue 34):
# that tree is built once, Serial only, into a cache outside this repository
# (${XDG_CACHE_HOME:-~/.cache}/dualview/kokkos-serial-<version>), then the
# program is compiled against it in both forms (test_device: two allocations;
# one_space) and run; each must print "every check passed". Debian's Kokkos
# 3.4 is the ctest with_kokkos.lammps_shape.* of the test command; this is
# the newer one.
#   usage: tests/with_kokkos/run.sh [OUT_DIR]   (KOKKOS_SRC set; DV_LIB_DIR: libdualview.so)
# Prints SKIPPED and exits 0 without KOKKOS_SRC.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/with_kokkos}
LIB=${DV_LIB_DIR:-$ROOT/target/release}
CXX=${CXX:-g++}
if [ -z "${KOKKOS_SRC:-}" ] || [ ! -f "$KOKKOS_SRC/core/src/Kokkos_Core.hpp" ]; then
  echo "SKIPPED: KOKKOS_SRC does not name a kokkos/kokkos tree"
  exit 0
fi
. "$ROOT/scripts/lib/dvlib.sh"
dvlib_links "$LIB" "$OUT"
version=$(sed -n 's/^set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' "$KOKKOS_SRC/CMakeLists.txt" | paste -sd. -)
PREFIX=${XDG_CACHE_HOME:-$HOME/.cache}/dualview/kokkos-serial-${version:-unknown}
if ! compgen -G "$PREFIX/lib*/libkokkoscore*" >/dev/null; then
  echo "== building Kokkos ${version:-?} (Serial) from $KOKKOS_SRC into $PREFIX (once)"
  rm -rf "$PREFIX.build"
  start=$(date +%s)
  cmake -S "$KOKKOS_SRC" -B "$PREFIX.build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    > "$PREFIX.log" 2>&1 && cmake --build "$PREFIX.build" -j "$(nproc)" >> "$PREFIX.log" 2>&1 \
    && cmake --install "$PREFIX.build" >> "$PREFIX.log" 2>&1 || { tail -30 "$PREFIX.log"; echo "FAIL: Kokkos did not build"; exit 1; }
  rm -rf "$PREFIX.build"
  echo "== Kokkos built in $(($(date +%s) - start)) s"
fi
KLIB=$(dirname "$(compgen -G "$PREFIX/lib*/libkokkoscore*" | head -1)")
failed=0
for form in test_device one_space; do
  def=""
  [ "$form" = test_device ] && def=-DDUALVIEW_WITH_KOKKOS_TEST_DEVICE
  exe=$OUT/lammps_shape_$form
  if ! "$CXX" -std=c++17 -O1 $def -isystem "$PREFIX/include" -I"$ROOT/include" "$HERE/lammps_shape.cpp" -o "$exe" \
      -L"$KLIB" -lkokkoscontainers -lkokkoscore -L"$LIB" -ldualview -Wl,-rpath,"$LIB" -Wl,-rpath,"$KLIB" -ldl -pthread; then
    echo "FAIL $form: did not compile against Kokkos $version"; failed=1; continue
  fi
  if "$exe" | tee "$OUT/$form.txt" | grep -q "every check passed"; then
    echo "PASS $form against Kokkos $version ($(grep -o 'Kokkos [0-9]*, [A-Za-z]*' "$OUT/$form.txt"))"
  else
    echo "FAIL $form against Kokkos $version"; failed=1
  fi
done
exit $failed
