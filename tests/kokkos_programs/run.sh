#!/usr/bin/env bash
# Third-party Kokkos programs (issue 21), compiled UNCHANGED against
# dualview's Kokkos-named headers (include/ and include/dualview/kokkos/),
# with only our core-dispatch shim added (shim/dispatch.hpp, force-included
# with -include; shim/ also holds Kokkos_Sort.hpp), each in two forms:
#   serial      Kokkos::DefaultExecutionSpace is Serial (one memory space)
#   testdevice  it is Kokkos::TestDevice (-DDUALVIEW_DEFAULT_TEST_DEVICE):
#               every default DualView has two allocations and syncs copy
#
# usage: tests/kokkos_programs/run.sh [OUT_DIR]     (default build/kokkos_programs)
# Sources come from the environment; each one unset or absent is SKIPPED:
#   KOKKOS_SRC  a kokkos/kokkos tree: example/tutorial/Hierarchical_Parallelism/
#               04_team_scan/team_scan.cpp (its two "Result:" numbers must agree)
#   MINIMD_SRC  a Mantevo/miniMD tree: kokkos/ (LJ, 16384 atoms (-s 16), 300
#               steps; T, U and P of each thermo line within 1e-4 (relative)
#               of reference_output/16k.lj's, and again with --team_neigh 1
#               (TeamPolicy with team scratch))
#   FLCL_SRC    a kokkos/kokkos-fortran-interop tree (CMake + gfortran): its
#               ctest suite (168 tests) and its four examples (each prints
#               PASSED and never FAILED), found through a KokkosConfig.cmake
#               written here that names the headers, the shim and libdualview.so
# Nothing of those trees is copied into this repository.
# Environment: DV_LIB_DIR (libdualview.so, default target/release), CXX, CC, FC,
# FORMS (default "serial testdevice"), PROGRAMS (default "team_scan subviews stream miniMD FLCL").
# Exit status: 1 if any program that was not skipped failed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/kokkos_programs}
LIB=${DV_LIB_DIR:-$ROOT/target/release}
CXX=${CXX:-g++}
CC=${CC:-gcc}
FORMS=${FORMS:-serial testdevice}
PROGRAMS=${PROGRAMS:-team_scan subviews stream miniMD FLCL}
wanted() { case " $PROGRAMS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# Absolute: the links and the programs' RPATH point at them (miniMD runs from its own folder).
. "$ROOT/scripts/lib/dvlib.sh"
dvlib_links "$LIB" "$OUT"
INC="-I$ROOT/include -I$ROOT/include/dualview/kokkos"
SHIM="-I$HERE/shim -include $HERE/shim/dispatch.hpp"
LINK="-L$LIB -ldualview -Wl,-rpath,$LIB"
FAILED=0
summary=()
note() { summary+=("$1"); echo "== $1"; }
formdef() { [ "$1" = testdevice ] && echo "-DDUALVIEW_DEFAULT_TEST_DEVICE" || true; }

# ---- Kokkos' team_scan example -----------------------------------------------------
TS=${KOKKOS_SRC:+$KOKKOS_SRC/example/tutorial/Hierarchical_Parallelism/04_team_scan/team_scan.cpp}
if ! wanted team_scan; then :
elif [ -z "${KOKKOS_SRC:-}" ] || [ ! -f "$TS" ]; then
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

# ---- Kokkos' subviews tutorial and STREAM benchmark (issue 34) ----------------------
# The tutorial (Kokkos::pair's constructors) runs and must end with "Done."; STREAM
# (PRIu64 from Kokkos_Core.hpp, RangePolicy<IndexType<int>>) is compiled, and run
# (2.4 GB, its own validation) only with RUN_STREAM=1.
for prog in subviews stream; do
  if [ $prog = subviews ]; then SRC=${KOKKOS_SRC:+$KOKKOS_SRC/example/tutorial/Advanced_Views/03_subviews/subviews.cpp}
  else SRC=${KOKKOS_SRC:+$KOKKOS_SRC/benchmarks/stream/stream-kokkos.cpp}; fi
  if ! wanted $prog; then continue; fi
  if [ -z "${KOKKOS_SRC:-}" ] || [ ! -f "$SRC" ]; then
    note "$prog: SKIPPED (KOKKOS_SRC unset, or no $prog source under it)"; continue
  fi
  for form in $FORMS; do
    B=$OUT/$prog/$form
    mkdir -p "$B"
    if ! $CXX -std=c++17 -O2 -Wall $(formdef $form) $INC $SHIM "$SRC" $LINK -o "$B/$prog" 2> "$B/build.log"; then
      note "$prog $form: BUILD FAILED (see $B/build.log)"; grep -m5 error "$B/build.log"; FAILED=1; continue
    fi
    if [ $prog = stream ] && [ "${RUN_STREAM:-0}" != 1 ]; then note "$prog $form: PASS (compiled unchanged; RUN_STREAM=1 runs it)"; continue; fi
    "$B/$prog" > "$B/out.txt" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && { [ $prog = stream ] || grep -q "Done" "$B/out.txt"; }; then
      note "$prog $form: PASS ($(tail -1 "$B/out.txt"))"
    else
      note "$prog $form: FAIL (rc $rc; see $B/out.txt)"; FAILED=1
    fi
  done
done

# ---- miniMD (its Kokkos variant) ----------------------------------------------------
M=${MINIMD_SRC:+$MINIMD_SRC/kokkos}
if ! wanted miniMD; then :
elif [ -z "${MINIMD_SRC:-}" ] || [ ! -f "$M/ljs.cpp" ]; then
  note "miniMD: SKIPPED (MINIMD_SRC unset, or no kokkos/ljs.cpp under it)"
else
  for form in $FORMS; do
    B=$OUT/miniMD/$form
    mkdir -p "$B"
    ok=1
    $CC -O2 -I"$M/MPI-Stubs" -c "$M/MPI-Stubs/mpi.c" -o "$B/mpi.o" 2> "$B/build.log" || ok=0
    for f in "$M"/*.cpp; do
      o=$B/$(basename "$f" .cpp).o
      $CXX -std=c++17 -O2 $(formdef $form) -I"$M/MPI-Stubs" $INC $SHIM -c "$f" -o "$o" 2>> "$B/build.log" || ok=0
    done
    [ $ok = 1 ] && $CXX "$B"/*.o $LINK -o "$B/miniMD" 2>> "$B/build.log" || ok=0
    if [ $ok = 0 ]; then
      note "miniMD $form: BUILD FAILED (see $B/build.log)"; grep -m5 error "$B/build.log"; FAILED=1; continue
    fi
    # Thermo lines "step T U P time": steps 0, 100, 200, 300 of the 16k reference.
    grep -E '^[0-9]+ ' "$M/reference_output/16k.lj" | awk '$1 <= 300 {print $1, $2, $3, $4}' > "$B/ref.txt"
    for variant in default team_neigh; do
      extra=""; [ $variant = team_neigh ] && extra="--team_neigh 1"
      (cd "$M" && "$B/miniMD" -i in.lj.miniMD -s 16 -n 300 $extra) > "$B/out_$variant.txt" 2>&1
      rc=$?
      grep -E '^[0-9]+ ' "$B/out_$variant.txt" | grep -v PERF_SUMMARY | awk '{print $1, $2, $3, $4}' > "$B/thermo_$variant.txt"
      perf=$(grep PERF_SUMMARY "$B/out_$variant.txt" | awk '{print $5 "s total, " $6 "s force"}')
      # the largest relative deviation over T, U and P; "missing" when the steps differ
      dev=$(paste -d' ' "$B/ref.txt" "$B/thermo_$variant.txt" | awk '
        { if (NF != 8 || $1 != $5) { bad = 1; exit }
          for (k = 2; k <= 4; k++) { d = $k - $(k + 4); if (d < 0) d = -d; r = $k < 0 ? -$k : $k; if (d / r > m) m = d / r } ; n++ }
        END { if (bad || n != 4) print "missing"; else printf "%.1e", m }')
      if [ $rc -eq 0 ] && [ "$dev" != missing ] && awk -v d="$dev" 'BEGIN { exit !(d <= 1e-4) }'; then
        note "miniMD LJ 16k 300 steps $variant $form: PASS (4 thermo lines of reference_output/16k.lj, largest relative deviation $dev <= 1e-4; $perf)"
      else
        note "miniMD LJ 16k 300 steps $variant $form: FAIL (rc $rc, deviation $dev; diff $B/ref.txt $B/thermo_$variant.txt)"; FAILED=1
      fi
    done
  done
fi

# ---- FLCL (kokkos-fortran-interop) ------------------------------------------------
if ! wanted FLCL; then :
elif [ -z "${FLCL_SRC:-}" ] || [ ! -f "$FLCL_SRC/src/flcl-cxx.hpp" ]; then
  note "FLCL: SKIPPED (FLCL_SRC unset, or no src/flcl-cxx.hpp under it)"
elif ! command -v "${FC:-gfortran}" > /dev/null || ! command -v cmake > /dev/null; then
  note "FLCL: SKIPPED (needs ${FC:-gfortran} and cmake)"
else
  for form in $FORMS; do
    B=$OUT/flcl/$form
    rm -rf "$B"; mkdir -p "$B/kokkos-config"
    opts="-include $HERE/shim/dispatch.hpp"
    [ $form = testdevice ] && opts="$opts -DDUALVIEW_DEFAULT_TEST_DEVICE"
    cat > "$B/kokkos-config/KokkosConfig.cmake" <<EOF
# Written by tests/kokkos_programs/run.sh: Kokkos::kokkos is dualview's headers + shim.
set(Kokkos_VERSION 4.6.0)
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos SHARED IMPORTED)
  set_target_properties(Kokkos::kokkos PROPERTIES
    IMPORTED_LOCATION "$LIB/libdualview.so"
    INTERFACE_INCLUDE_DIRECTORIES "$ROOT/include;$ROOT/include/dualview/kokkos;$HERE/shim"
    INTERFACE_COMPILE_OPTIONS "\$<\$<COMPILE_LANGUAGE:CXX>:SHELL:$opts>"
    INTERFACE_COMPILE_FEATURES cxx_std_17)
endif()
EOF
    printf 'set(PACKAGE_VERSION 4.6.0)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' > "$B/kokkos-config/KokkosConfigVersion.cmake"
    # FLCL bakes $LD_LIBRARY_PATH at configure time into its programs' RPATH
    # (its examples' and tests' INSTALL_RPATH): that is how they find libdualview.
    # -fno-tree-slp-vectorize: with gfortran 12 at -O2, 04-complex-ndarray's own
    # set-up loop (f_y(i) = cmplx(a, b); c_y(i) = f_y(i)) leaves c_y different
    # from f_y by ~3e-8, before any Kokkos call (a 15-line Fortran copy of that
    # loop does the same without Kokkos), and its checks fail; -O1 or this flag
    # keeps them equal. Sources unchanged.
    fflags=""; "${FC:-gfortran}" --version 2>/dev/null | grep -q 'GNU Fortran' && fflags="-fno-tree-slp-vectorize"
    if ! LD_LIBRARY_PATH=$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} cmake -S "$FLCL_SRC" -B "$B/build" -DKokkos_DIR="$B/kokkos-config" -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
        -DCMAKE_Fortran_FLAGS="$fflags" \
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
    if [ $rc -eq 0 ]; then note "FLCL tests $form: PASS ($line)"; else note "FLCL tests $form: FAIL ($line; see $B/ctest.log)"; FAILED=1; fi
    # The examples (01-axpy-ndarray, 02-axpy-dualview, 03-axpy-view, 04-complex-ndarray) check themselves.
    exs=$(find "$B/build/examples" -type f -perm -u+x -name 'example-*' | sort)
    [ -n "$exs" ] || { note "FLCL examples $form: FAIL (none built)"; FAILED=1; }
    for ex in $exs; do
      name=$(basename "$ex")
      "$ex" > "$B/$name.txt" 2>&1
      rc=$?
      passed=$(grep -c PASSED "$B/$name.txt")
      if [ $rc -eq 0 ] && [ "$passed" -gt 0 ] && ! grep -q FAILED "$B/$name.txt"; then
        note "FLCL $name $form: PASS ($passed PASSED lines, no FAILED)"
      else
        note "FLCL $name $form: FAIL (rc $rc; see $B/$name.txt)"; FAILED=1
      fi
    done
  done
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $FAILED
