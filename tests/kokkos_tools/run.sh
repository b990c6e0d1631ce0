#!/usr/bin/env bash
# Real kokkos-tools profilers on a dualview program (issue 21, item 5). The tools
# are built here with g++ from a kokkos/kokkos-tools checkout (read, never
# copied into this repository), tested at commit 758d979 (2025):
#   debugging/kernel-logger, profiling/memory-events, profiling/memory-usage,
#   profiling/chrome-tracing and profiling/space-time-stack (both without MPI).
# Each is loaded through KOKKOS_TOOLS_LIBS by PROGRAM (tests/kokkos_tools/program.cpp)
# and must not abort; its output must name the DualView and the test device,
# which tools see as "CudaTestDevice" (DECISIONS T6).
# usage: tests/kokkos_tools/run.sh KOKKOS_TOOLS_SRC PROGRAM OUT_DIR
set -euo pipefail
SRC=${1:?a kokkos/kokkos-tools checkout}
PROG=${2:?the program}
OUT=${3:?an output folder}
rm -rf "$OUT" && mkdir -p "$OUT"
INC=(-I"$SRC/common/makefile-only" -I"$SRC/profiling/all" -I"$SRC/common" -I"$SRC/profiling/memory-events")
build() { # name, source
  g++ -shared -fPIC -O1 -std=c++17 -DUSE_MPI=0 "${INC[@]}" -I"$(dirname "$SRC/$2")" -o "$OUT/$1.so" "$SRC/$2"
}
build kernel_logger debugging/kernel-logger/kp_kernel_logger.cpp
build memory_events profiling/memory-events/kp_memory_events.cpp
build memory_usage profiling/memory-usage/kp_memory_usage.cpp
build chrome_tracing profiling/chrome-tracing/kp_chrome_tracing.cpp
build space_time_stack profiling/space-time-stack/kp_space_time_stack.cpp
fail=0
check() { # tool, what, file, pattern
  if grep -q -- "$4" "$3"; then echo "ok   $1: $2"; else echo "FAIL $1: $2 (no '$4' in $3)"; fail=1; fi
}
for t in kernel_logger memory_events memory_usage chrome_tracing space_time_stack; do
  mkdir -p "$OUT/$t"
  if (cd "$OUT/$t" && KOKKOS_TOOLS_LIBS="$OUT/$t.so" "$PROG" > out.txt 2>&1); then
    echo "ok   $t: the program ran to the end with the tool loaded"
  else
    echo "FAIL $t: exit status $? with the tool loaded"; cat "$OUT/$t/out.txt"; fail=1
  fi
  check "$t" "values" "$OUT/$t/out.txt" "values right"
done
check kernel_logger "the device allocation, by space and label" "$OUT/kernel_logger/out.txt" "Allocate<CudaTestDevice> name: field "
check kernel_logger "the sync's deep copy" "$OUT/kernel_logger/out.txt" "DeepCopy<CudaTestDevice,Host> DST(name: field "
check kernel_logger "the region" "$OUT/kernel_logger/out.txt" "Entering profiling region: step"
check memory_events "the allocations by label" "$(ls "$OUT"/memory_events/*.mem_events | head -1)" "field_mirror"
check memory_usage "a usage file for the test device" <(ls "$OUT/memory_usage") "CudaTestDevice.memspace_usage"
check chrome_tracing "a trace with the region" "$(ls "$OUT"/chrome_tracing/*.json | head -1)" "step"
check space_time_stack "the region in the time tree" "$OUT/space_time_stack/out.txt" "step \[region\]"
[ $fail = 0 ] && echo "real kokkos-tools profilers: every check passed"
exit $fail
