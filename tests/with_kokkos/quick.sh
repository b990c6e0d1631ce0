#!/usr/bin/env bash
# gaps.cpp and lammps_shape.cpp against Debian's Kokkos 3.4 (libtrilinos-kokkos-dev), both
# forms, outside CMake: what scripts/mutations.sh runs for the with_kokkos mutations. Links
# target/release's libdualview.so, else build/default's (CMake), else builds it with cargo.
# Exit 1 when a program fails, 3 when one does not compile (scripts/mutations.sh counts that
# as an error, not a catch).
#   usage: tests/with_kokkos/quick.sh [OUT_DIR]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/with_kokkos_quick}
INC=/usr/include/trilinos
[ -f "$INC/Kokkos_Core.hpp" ] || { echo "SKIPPED: no Debian Kokkos (apt-get install libtrilinos-kokkos-dev)"; exit 0; }
# cargo's release library, else the default CMake preset's (scripts/test.sh built it), else build one.
DIR=$ROOT/target/release
[ -f "$DIR/libdualview.so" ] || [ ! -f "$ROOT/build/default/cargo/release/libdualview.so" ] || DIR=$ROOT/build/default/cargo/release
[ -f "$DIR/libdualview.so" ] || (cd "$ROOT" && cargo rustc --quiet --release --lib --crate-type cdylib,staticlib) || exit 1
. "$ROOT/scripts/lib/dvlib.sh"
dvlib_links "$DIR" "$OUT"
failed=0
uncompiled=0
for prog in gaps lammps_shape; do
  for form in test_device one_space; do
    def=""
    [ "$form" = test_device ] && def=-DDUALVIEW_WITH_KOKKOS_TEST_DEVICE
    exe=$OUT/${prog}_$form
    if ! g++ -std=c++17 -O1 $def -isystem "$INC" -I"$ROOT/include" "$HERE/$prog.cpp" -o "$exe" -ltrilinos_kokkoscontainers \
      -ltrilinos_kokkoscore -L"$LIB" -ldualview -Wl,-rpath,"$LIB" -ldl -pthread; then
      echo "FAIL $prog $form: did not compile"; uncompiled=1; continue
    fi
    if "$exe" | tee "$exe.txt" | grep -q "every check passed"; then echo "PASS $prog $form"
    else grep FAILED "$exe.txt"; echo "FAIL $prog $form"; failed=1; fi
  done
done
[ $uncompiled -eq 1 ] && exit 3
exit $failed
