#!/usr/bin/env bash
# Everything GPU, on a machine with an NVIDIA GPU and the CUDA toolkit (no Rust
# needed there). Expects what scripts/gpu-prepare.sh put in .gpu/:
#   .gpu/lib/libdualview.so*   .gpu/bin/<rust gpu tests, gpu_bandwidth, dv_gtest>
# Builds the .cu tests with CMake's CUDA language, runs every GPU test, runs
# them again under compute-sanitizer (memcheck and racecheck), prints a summary.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
GPU=$ROOT/.gpu
export LD_LIBRARY_PATH=$GPU/lib:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
declare -a NAMES RESULTS
record() { NAMES+=("$1"); RESULTS+=("$2"); echo "== $1: $2"; }
run() { # name, command...
  local name=$1; shift
  if "$@" > "$GPU/log.$name" 2>&1; then record "$name" PASS; else record "$name" "FAIL (rc $?)"; tail -30 "$GPU/log.$name"; fi
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

# 1. Build the .cu tests here.
if command -v nvcc >/dev/null; then
  run build_cu cmake -S tests/cuda -B "$GPU/cu-build" -DDUALVIEW_INCLUDE="$ROOT/include" \
      -DDUALVIEW_LIB="$GPU/lib/libdualview.so" -DDUALVIEW_LIBDIR="$GPU/lib"
  run build_cu_make cmake --build "$GPU/cu-build" -j 8
else
  record build_cu "SKIPPED (no nvcc)"
fi

# The MPI example's CUDA path (kernel update; CUDA-aware halos when the MPI is), when MPI is here.
if command -v nvcc >/dev/null && command -v mpicxx >/dev/null; then
  run build_mpi_jacobi nvcc -std=c++17 -arch=native -x cu -I"$ROOT/include" $(mpicxx --showme:compile) \
      examples_mpi/jacobi.cpp -o "$GPU/jacobi_cuda" $(mpicxx --showme:link) -L"$GPU/lib" -ldualview
else
  record build_mpi_jacobi "SKIPPED (no nvcc or no mpicxx)"
fi

# 2. Every GPU test.
run rust_gpu_tests "$GPU/bin/gpu" --test-threads 1
run rust_core_tests "$GPU/bin/kokkos_behaviour"
run gtest "$GPU/bin/dv_gtest"
[ -x "$GPU/cu-build/kernel_dualview" ] && run cu_kernel_dualview "$GPU/cu-build/kernel_dualview"
for np in 1 2 4; do
  [ -x "$GPU/jacobi_cuda" ] && run "mpi_jacobi_np$np" sh -c "mpirun -np $np --oversubscribe --allow-run-as-root '$GPU/jacobi_cuda' | tee /dev/stderr | grep -q 'bitwise equal to the single-rank run: yes'"
done
[ -f "$GPU/log.mpi_jacobi_np4" ] && grep -h "jacobi:" "$GPU"/log.mpi_jacobi_np* | sort -u
run gpu_bandwidth "$GPU/bin/gpu_bandwidth"
cat "$GPU/log.gpu_bandwidth"
grep -h "SKIPPED" "$GPU"/log.* | sort -u

# 3. Again under compute-sanitizer.
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    [ -x "$GPU/cu-build/kernel_dualview" ] && run "sanitizer_${tool}_cu" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/cu-build/kernel_dualview"
    run "sanitizer_${tool}_gtest" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/bin/dv_gtest" --gtest_filter='*Gpu*:*Cuda*'
    # The out-of-memory test makes the driver fail on purpose; the sanitizer would count that.
    run "sanitizer_${tool}_rust" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/bin/gpu" --test-threads 1 \
        --skip device_out_of_memory_keeps_the_old_data
  done
  grep -h "ERROR SUMMARY" "$GPU"/log.sanitizer_* | sort | uniq -c
else
  record sanitizer "SKIPPED (no compute-sanitizer)"
fi

echo
echo "== summary"
fail=0
for i in "${!NAMES[@]}"; do
  printf '%-28s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
  case "${RESULTS[$i]}" in FAIL*) fail=1 ;; esac
done
exit $fail
