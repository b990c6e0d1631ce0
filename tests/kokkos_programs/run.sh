#!/usr/bin/env bash
# Third-party Kokkos programs (issue 21), compiled UNCHANGED against
# dualview's Kokkos-named headers (include/ and include/dualview/kokkos/),
# with only our core-dispatch shim (shim.hpp, force-included with -include),
# each in two forms:
#   serial      Kokkos::DefaultExecutionSpace is Serial (one memory space)
#   testdevice  it is Kokkos::TestDevice (-DDUALVIEW_DEFAULT_TEST_DEVICE):
#               every default DualView has two allocations and syncs copy
#
# usage: tests/kokkos_programs/run.sh [OUT_DIR]     (default build/kokkos_programs)
# Sources come from the environment; each one unset or absent is SKIPPED:
#   KOKKOS_SRC  a kokkos/kokkos tree: example/tutorial/Hierarchical_Parallelism/
#               04_team_scan/team_scan.cpp (its two "Result:" numbers must agree)
#   MINIMD_SRC  a Mantevo/miniMD tree: kokkos/ (LJ, 4000 atoms (-s 10), 1000
#               steps; thermo lines must equal reference_output/4k.lj's, and
#               again with --team_neigh 1 (TeamPolicy with team scratch))
#   FLCL_SRC    a kokkos/kokkos-fortran-interop tree (CMake + gfortran; its
#               ctest suite), found through a KokkosConfig.cmake written here
#               that names the headers, the shim and libdualview.so
# Nothing of those trees is copied into this repository.
# Environment: DV_LIB_DIR (libdualview.so, default target/release), CXX, CC, FC,
# FORMS (default "serial testdevice"),
# FLCL_COMPLEX_STANDIN=1: also force-include a Kokkos::complex = std::complex
#   alias (a diagnostic only: dualview has no Kokkos::complex, which FLCL's
#   tests use; without it their C++ test library does not compile).
# Exit status: 1 if any program that was not skipped failed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/kokkos_programs}
LIB=${DV_LIB_DIR:-$ROOT/target/release}
CXX=${CXX:-g++}
CC=${CC:-gcc}
FORMS=${FORMS:-serial testdevice}
[ -f "$LIB/libdualview.so" ] || { echo "no libdualview.so in $LIB (cargo rustc --release --lib --crate-type cdylib,staticlib)" >&2; exit 2; }
mkdir -p "$OUT"
INC="-I$ROOT/include -I$ROOT/include/dualview/kokkos"
SHIM="-include $HERE/shim.hpp"
LINK="-L$LIB -ldualview -Wl,-rpath,$LIB"
FAILED=0
summary=()
note() { summary+=("$1"); echo "== $1"; }
formdef() { [ "$1" = testdevice ] && echo "-DDUALVIEW_DEFAULT_TEST_DEVICE" || true; }

# ---- Kokkos' team_scan example -----------------------------------------------------
TS=${KOKKOS_SRC:+$KOKKOS_SRC/example/tutorial/Hierarchical_Parallelism/04_team_scan/team_scan.cpp}
if [ -z "${KOKKOS_SRC:-}" ] || [ ! -f "$TS" ]; then
  note "team_scan: SKIPPED (KOKKOS_SRC unset, or no 04_team_scan/team_scan.cpp under it)"
else
  for form in $FORMS; do
    B=$OUT/team_scan/$form
    mkdir -p "$B"
    if ! $CXX -std=c++17 -O2 -Wall $(formdef $form) $INC $SHIM "$TS" $LINK -o "$B/team_scan" 2> "$B/build.log"; then
      note "team_scan $form: BUILD FAILED (see $B/build.log)"; grep -m5 error "$B/build.log"; FAILED=1; continue
    fi
    start=$(date +%s)
    "$B/team_scan" > "$B/out.txt" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    res=$(grep '^Result:' "$B/out.txt")
    set -- $res
    if [ $rc -eq 0 ] && [ -n "$res" ] && [ "${2:-x}" = "${3:-y}" ]; then
      note "team_scan $form: PASS ($res, ${secs}s; $(grep '^Time:' "$B/out.txt"))"
    else
      note "team_scan $form: FAIL (rc $rc, '$res')"; FAILED=1
    fi
  done
fi

# ---- miniMD (its Kokkos variant) ----------------------------------------------------
M=${MINIMD_SRC:+$MINIMD_SRC/kokkos}
if [ -z "${MINIMD_SRC:-}" ] || [ ! -f "$M/ljs.cpp" ]; then
  note "miniMD: SKIPPED (MINIMD_SRC unset, or no kokkos/ljs.cpp under it)"
else
  for form in $FORMS; do
    B=$OUT/miniMD/$form
    mkdir -p "$B/stub"
    # atom.h includes Kokkos_Sort.hpp, yet its one use (BinSort in Atom::sort)
    # is commented out: an empty header stands in for it (dualview has none).
    : > "$B/stub/Kokkos_Sort.hpp"
    ok=1
    $CC -O2 -I"$M/MPI-Stubs" -c "$M/MPI-Stubs/mpi.c" -o "$B/mpi.o" 2> "$B/build.log" || ok=0
    for f in "$M"/*.cpp; do
      o=$B/$(basename "$f" .cpp).o
      $CXX -std=c++17 -O2 $(formdef $form) -I"$M/MPI-Stubs" $INC -I"$B/stub" $SHIM -c "$f" -o "$o" 2>> "$B/build.log" || ok=0
    done
    [ $ok = 1 ] && $CXX "$B"/*.o $LINK -o "$B/miniMD" 2>> "$B/build.log" || ok=0
    if [ $ok = 0 ]; then
      note "miniMD $form: BUILD FAILED (see $B/build.log)"; grep -m5 error "$B/build.log"; FAILED=1; continue
    fi
    ref=$M/reference_output/4k.lj
    grep -E '^[0-9]+ ' "$ref" | awk '$1 <= 1000 {print $1, $2, $3, $4}' > "$B/ref.txt"
    for variant in default team_neigh; do
      extra=""; [ $variant = team_neigh ] && extra="--team_neigh 1"
      (cd "$M" && "$B/miniMD" -i in.lj.miniMD -s 10 -n 1000 $extra) > "$B/out_$variant.txt" 2>&1
      rc=$?
      grep -E '^[0-9]+ ' "$B/out_$variant.txt" | grep -v PERF_SUMMARY | awk '{print $1, $2, $3, $4}' > "$B/thermo_$variant.txt"
      perf=$(grep PERF_SUMMARY "$B/out_$variant.txt" | awk '{print $5 "s total, " $6 "s force"}')
      if [ $rc -eq 0 ] && [ -s "$B/ref.txt" ] && cmp -s "$B/ref.txt" "$B/thermo_$variant.txt"; then
        note "miniMD LJ 4k $variant $form: PASS ($(wc -l < "$B/ref.txt") thermo lines equal reference_output/4k.lj; $perf)"
      else
        note "miniMD LJ 4k $variant $form: FAIL (rc $rc; diff $B/ref.txt $B/thermo_$variant.txt)"; FAILED=1
      fi
    done
  done
fi

# ---- FLCL (kokkos-fortran-interop) ------------------------------------------------
if [ -z "${FLCL_SRC:-}" ] || [ ! -f "$FLCL_SRC/src/flcl-cxx.hpp" ]; then
  note "FLCL: SKIPPED (FLCL_SRC unset, or no src/flcl-cxx.hpp under it)"
elif ! command -v "${FC:-gfortran}" > /dev/null || ! command -v cmake > /dev/null; then
  note "FLCL: SKIPPED (needs ${FC:-gfortran} and cmake)"
else
  for form in $FORMS; do
    B=$OUT/flcl/$form
    rm -rf "$B"; mkdir -p "$B/kokkos-config"
    opts="-include $HERE/shim.hpp"
    if [ "${FLCL_COMPLEX_STANDIN:-0}" = 1 ]; then
      printf '#include <complex>\nnamespace Kokkos { template <class T> using complex = std::complex<T>; }\n' > "$B/complex_standin.hpp"
      opts="$opts -include $B/complex_standin.hpp"
    fi
    [ $form = testdevice ] && opts="$opts -DDUALVIEW_DEFAULT_TEST_DEVICE"
    cat > "$B/kokkos-config/KokkosConfig.cmake" <<EOF
# Written by tests/kokkos_programs/run.sh: Kokkos::kokkos is dualview's headers + shim.
set(Kokkos_VERSION 4.6.0)
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos SHARED IMPORTED)
  set_target_properties(Kokkos::kokkos PROPERTIES
    IMPORTED_LOCATION "$LIB/libdualview.so"
    INTERFACE_INCLUDE_DIRECTORIES "$ROOT/include;$ROOT/include/dualview/kokkos"
    INTERFACE_COMPILE_OPTIONS "\$<\$<COMPILE_LANGUAGE:CXX>:SHELL:$opts>"
    INTERFACE_COMPILE_FEATURES cxx_std_17)
endif()
EOF
    printf 'set(PACKAGE_VERSION 4.6.0)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' > "$B/kokkos-config/KokkosConfigVersion.cmake"
    if ! cmake -S "$FLCL_SRC" -B "$B/build" -DKokkos_DIR="$B/kokkos-config" -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
        -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_Fortran_COMPILER="${FC:-gfortran}" > "$B/configure.log" 2>&1; then
      note "FLCL $form: CONFIGURE FAILED (see $B/configure.log)"; FAILED=1; continue
    fi
    if ! cmake --build "$B/build" -j"${JOBS:-2}" > "$B/build.log" 2>&1; then
      errs=$(grep -E 'error' "$B/build.log" | sed -E 's/.*error: //' | sort | uniq -c | sort -rn | head -3 | tr -s ' ' | tr '\n' ';')
      note "FLCL $form: BUILD FAILED ($errs see $B/build.log)"; FAILED=1; continue
    fi
    (cd "$B/build" && ctest -j"${JOBS:-2}") > "$B/ctest.log" 2>&1
    rc=$?
    line=$(grep 'tests passed' "$B/ctest.log")
    if [ $rc -eq 0 ]; then note "FLCL $form: PASS ($line)"; else note "FLCL $form: FAIL ($line; see $B/ctest.log)"; FAILED=1; fi
  done
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $FAILED
