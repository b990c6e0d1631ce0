#!/usr/bin/env bash
# Everything GPU, on a machine with an NVIDIA GPU and the CUDA toolkit (no Rust
# needed there). Expects what scripts/gpu-prepare.sh put in .gpu/:
#   .gpu/lib/libdualview.so*   .gpu/bin/<every Rust test binary, stencil, dv_gtest>
#   .gpu/doctests/<the compiled documentation examples>   .gpu/shim/cargo
# (the benchmark is scripts/gpu-bench.sh)
# Builds the .cu tests with CMake's CUDA language, runs every Rust test binary
# (each its own row), the doctests and the other GPU tests, the soak test
# (scripts/gpu-soak.sh; SOAK=0 skips it, SOAK_SECONDS shortens it), runs the
# GPU tests again under compute-sanitizer (memcheck and racecheck; SANITIZE=0
# skips that pass), prints a summary.
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
# The test programs travel packed (scripts/gpu-prepare.sh): unpacked once.
if [ -f "$GPU/bin.tar.xz" ] && [ ! -d "$GPU/bin" ]; then
  tar -C "$GPU" -xJf "$GPU/bin.tar.xz" || { echo "gpu-check: $GPU/bin.tar.xz did not unpack"; exit 1; }
fi

# NVRTC for the cudarc kernels of tests/interop.rs and examples/stencil.rs:
# cudarc loads `libnvrtc.so`, which a toolkit or the nvidia-cuda-nvrtc wheel holds under a versioned name.
NVRTC=$(find /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null) \
        -name 'libnvrtc.so*' 2>/dev/null | grep -v -e builtins -e '\.alt\.' | sort | head -1)
if [ -n "$NVRTC" ]; then
  ln -sf "$NVRTC" "$GPU/lib/libnvrtc.so"
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$NVRTC")
  echo "nvrtc: $NVRTC"
else
  echo "no libnvrtc found: the cudarc kernel tests will fail"
fi

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
  # The Kokkos halo idiom with Kokkos' names (issue 30, finding 2).
  run build_mpi_halo_kokkos nvcc -std=c++17 -O2 -arch=native -x cu -I"$ROOT/include" -I"$ROOT/include/dualview/kokkos" \
      $(mpicxx --showme:compile) examples_mpi/halo_kokkos.cpp -o "$GPU/halo_kokkos_cuda" $(mpicxx --showme:link) -L"$GPU/lib" -ldualview
else
  record build_mpi_jacobi "SKIPPED (no nvcc or no mpicxx)"
fi

# 2. Every Rust test binary (tests/*.rs and the library's unit tests: the
# CPU ones too, which must hold on a GPU machine), then the doctests. Tests that
# read the source tree find this copy; cargo metadata comes from the stand-in.
export CARGO_MANIFEST_DIR=$ROOT CARGO=$GPU/shim/cargo
for t in $(cat "$GPU/rust-tests.txt"); do
  case $t in
    soak) ;; # its own step (3), with its own settings
    # process-wide registration counts; on a GPU none of the interop cases may skip
    gpu) run rust_gpu "$GPU/bin/gpu" --test-threads 1 ;;
    interop) run rust_interop sh -c "'$GPU/bin/interop' --test-threads 1 > '$GPU/interop.out' 2>&1; rc=\$?; cat '$GPU/interop.out'; [ \$rc = 0 ] && ! grep SKIPPED '$GPU/interop.out'" ;;
    *) run "rust_$t" "$GPU/bin/$t" ;;
  esac
done
for d in $(cat "$GPU/doctests.txt"); do
  case $d in
    merged_doctest*) run "doctests_$d" env RUSTDOC_DOCTEST_BIN_PATH="$GPU/doctests/$d" "$GPU/doctests/$d" ;;
    *) run "doctest_$d" "$GPU/doctests/$d" ;;
  esac
done
[ -f "$GPU/doctests.skipped" ] && record doctests "SKIPPED ($(cat "$GPU/doctests.skipped"))"
grep -h "^test result" "$GPU"/log.doctest* || true
run stencil_example sh -c "'$GPU/bin/stencil' 1024 500 | tee /dev/stderr | grep -q 'a cudarc kernel'"
grep -h "^stencil" "$GPU/log.stencil_example" || true
run gtest "$GPU/bin/dv_gtest"
[ -x "$GPU/cu-build/kernel_dualview" ] && run cu_kernel_dualview "$GPU/cu-build/kernel_dualview"
[ -x "$GPU/cu-build/streams_dualview" ] && run cu_streams_dualview "$GPU/cu-build/streams_dualview"
[ -x "$GPU/cu-build/checked_dualview" ] && run cu_checked_dualview "$GPU/cu-build/checked_dualview"
[ -x "$GPU/cu-build/kokkos_device_names" ] && run cu_kokkos_device_names "$GPU/cu-build/kokkos_device_names"
[ -x "$GPU/cu-build/sync_lands" ] && run cu_sync_lands "$GPU/cu-build/sync_lands"
grep -h -e "^MEASURED" -e "^FAIL" "$GPU/log.cu_sync_lands" 2>/dev/null || true
grep -h -e "^PASS" -e "^FAIL" -e "^MEASURED" "$GPU/log.cu_streams_dualview" 2>/dev/null || true
for np in 1 2 4; do
  [ -x "$GPU/jacobi_cuda" ] && run "mpi_jacobi_np$np" sh -c "mpirun -np $np --oversubscribe --allow-run-as-root '$GPU/jacobi_cuda' | tee /dev/stderr | grep -q 'bitwise equal to the single-rank run: yes'"
done
[ -f "$GPU/log.mpi_jacobi_np4" ] && grep -h "jacobi:" "$GPU"/log.mpi_jacobi_np* | sort -u
# The Kokkos halo idiom at production size: 2 ranks of 2050 x 4096 doubles, 40 steps, bit for bit
# against one process, each step moving its halo rows and nothing else (and under DV_CHECK=1).
[ -x "$GPU/halo_kokkos_cuda" ] && run mpi_halo_kokkos_np2 sh -c "mpirun -np 2 --oversubscribe --allow-run-as-root '$GPU/halo_kokkos_cuda' 2050 4096 40 | tee /dev/stderr | grep -q 'bitwise equal to the one-process reference: yes; bytes per step: the halo rows only [^:]*: yes'"
[ -x "$GPU/halo_kokkos_cuda" ] && run mpi_halo_kokkos_checked_np2 sh -c "DV_CHECK=1 mpirun -np 2 --oversubscribe --allow-run-as-root -x DV_CHECK '$GPU/halo_kokkos_cuda' 2050 512 10 2>&1 | tee /dev/stderr | grep -q 'bitwise equal to the one-process reference: yes; bytes per step: the halo rows only [^:]*: yes'"
grep -h "halo_kokkos:" "$GPU"/log.mpi_halo_kokkos* 2>/dev/null || true
# Two GPUs (issue 33): DualViews, kernels, deep copies and threads on GPU 0 and GPU 1 in one
# process, then one MPI rank per GPU through Kokkos' default mapping, bit-exact; with one GPU
# these rows are recorded as skipped, with the reason.
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "GPUs: ${GPUS:-0}"
if [ "${GPUS:-0}" -ge 2 ]; then
  [ -x "$GPU/cu-build/multi_gpu" ] && run cu_multi_gpu sh -c "'$GPU/cu-build/multi_gpu' | tee /dev/stderr | grep -q '^PASS multi_gpu'"
  grep -h "^MEASURED" "$GPU/log.cu_multi_gpu" 2>/dev/null || true
  [ -x "$GPU/jacobi_cuda" ] && run mpi_jacobi_two_gpus sh -c "mpirun -np 2 --oversubscribe --allow-run-as-root '$GPU/jacobi_cuda' > '$GPU/jacobi2.out' 2>&1; cat '$GPU/jacobi2.out'; grep -q 'devices by rank: 0 1\$' '$GPU/jacobi2.out' && grep -q 'bitwise equal to the single-rank run: yes' '$GPU/jacobi2.out'"
  [ -x "$GPU/halo_kokkos_cuda" ] && run mpi_halo_kokkos_two_gpus sh -c "mpirun -np 2 --oversubscribe --allow-run-as-root '$GPU/halo_kokkos_cuda' 2050 4096 40 > '$GPU/halo2.out' 2>&1; cat '$GPU/halo2.out'; grep -q 'devices by rank: 0 1\$' '$GPU/halo2.out' && grep -q 'bitwise equal to the one-process reference: yes' '$GPU/halo2.out'"
  [ -x "$GPU/cu-build/multi_gpu" ] && [ "${SANITIZE:-1}" != 0 ] && command -v compute-sanitizer >/dev/null && \
    run sanitizer_memcheck_multi_gpu compute-sanitizer --tool memcheck --error-exitcode 3 "$GPU/cu-build/multi_gpu"
else
  record multi_gpu "SKIPPED (${GPUS:-0} GPU here: issue 33's two-GPU rows need two; run on nvidia-h200-x2)"
fi
# DV_REPORT at 2 ranks on CUDA: the exit-time report (raw rates measured then) of each rank.
[ -x "$GPU/jacobi_cuda" ] && run mpi_jacobi_report_np2 sh -c "cmake -DMPIEXEC=mpirun -DEXE='$GPU/jacobi_cuda' \
    -DOUT='$GPU/report' -P examples_mpi/report_check.cmake 2>&1 | tee /dev/stderr | grep -q 'each rank.s report holds its halo traffic'"
# Checked mode (DV_CHECK=1) on CUDA: the kernel writes the device, then marks it; no false alarm.
[ -x "$GPU/jacobi_cuda" ] && run mpi_jacobi_checked_np2 sh -c "DV_CHECK=1 mpirun -np 2 --oversubscribe --allow-run-as-root -x DV_CHECK '$GPU/jacobi_cuda' 2>&1 | tee /dev/stderr | grep -q 'bitwise equal to the single-rank run: yes'"
# Kokkos' own DualView unit tests, unchanged, with TEST_EXECSPACE = Kokkos::Cuda (then under DV_CHECK=1).
if [ -d "$GPU/kokkos" ] && command -v nvcc >/dev/null; then
  run kokkos_unit_cuda env DV_LIB_DIR="$GPU/lib" GTEST_ROOT="$GPU/gtest" CUDA_ARCH=native \
      tests/kokkos_unit/run.sh cuda "$GPU/kokkos" "$GPU/kokkos-build"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$GPU/log.kokkos_unit_cuda" || true
else
  record kokkos_unit_cuda "SKIPPED (no Kokkos sources in .gpu/kokkos: run gpu-prepare.sh with KOKKOS_SRC and GTEST_ROOT)"
fi
# dualview's DualView inside a real Kokkos program (issue 34): tests/with_kokkos/lammps_shape.cpp,
# Kokkos' parallel_for kernels on d_view, built against Kokkos for CUDA (scripts/kokkos-build.sh).
if [ -f "$GPU/kokkos-src.tar.gz" ] && command -v nvcc >/dev/null; then
  run kokkos_build_cuda bash scripts/kokkos-build.sh
  KPREFIX=$(tail -1 "$GPU/log.kokkos_build_cuda")
  KLIB=$(dirname "$(compgen -G "$KPREFIX/lib*/libkokkoscore*" | head -1)")
  run build_with_kokkos_cuda "$KPREFIX/bin/nvcc_wrapper" -std=c++17 -O2 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr \
      -Xcompiler -pthread -I"$KPREFIX/include" -I"$ROOT/include" tests/with_kokkos/lammps_shape.cpp -o "$GPU/with_kokkos_cuda" \
      -L"$KLIB" -lkokkoscontainers -lkokkoscore -L"$GPU/lib" -ldualview -lcuda -ldl
  [ -x "$GPU/with_kokkos_cuda" ] && run with_kokkos_cuda sh -c "'$GPU/with_kokkos_cuda' | tee /dev/stderr | grep -q 'every check passed'"
  [ -x "$GPU/with_kokkos_cuda" ] && run with_kokkos_cuda_checked sh -c "DV_CHECK=1 '$GPU/with_kokkos_cuda' | tee /dev/stderr | grep -q 'every check passed'"
  # One test per gap of the LAMMPS switch (issue 43), on CUDA.
  run build_with_kokkos_gaps_cuda "$KPREFIX/bin/nvcc_wrapper" -std=c++17 -O2 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr \
      -Xcompiler -pthread -I"$KPREFIX/include" -I"$ROOT/include" tests/with_kokkos/gaps.cpp -o "$GPU/with_kokkos_gaps_cuda" \
      -L"$KLIB" -lkokkoscontainers -lkokkoscore -L"$GPU/lib" -ldualview -lcuda -ldl
  [ -x "$GPU/with_kokkos_gaps_cuda" ] && run with_kokkos_gaps_cuda sh -c "'$GPU/with_kokkos_gaps_cuda' | tee /dev/stderr | grep -q 'every check passed'"
else
  record with_kokkos_cuda "SKIPPED (no .gpu/kokkos-src.tar.gz: run gpu-prepare.sh with KOKKOS_SRC)"
fi
grep -h "SKIPPED" "$GPU"/log.* | sort -u

# 3. The soak test against the oracle: 300 s with arrays up to 1 GiB, then 60 s under memcheck.
if [ "${SOAK:-1}" = 0 ]; then
  record soak "SKIPPED (SOAK=0)"
else
  run soak bash scripts/gpu-soak.sh
  grep -h -e "^soak: [0-9]* operations" -e "^== soak" "$GPU/log.soak" || true
fi

# 4. Again under compute-sanitizer.
if [ "${SANITIZE:-1}" = 0 ]; then
  record sanitizer "SKIPPED (SANITIZE=0)"
elif command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    [ -x "$GPU/cu-build/kernel_dualview" ] && run "sanitizer_${tool}_cu" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/cu-build/kernel_dualview"
    [ -x "$GPU/cu-build/streams_dualview" ] && run "sanitizer_${tool}_cu_streams" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/cu-build/streams_dualview"
    [ -x "$GPU/cu-build/kokkos_device_names" ] && run "sanitizer_${tool}_cu_kokkos_names" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/cu-build/kokkos_device_names"
    [ -x "$GPU/kokkos-build/kokkos_dualview_tests" ] && run "sanitizer_${tool}_kokkos_unit" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/kokkos-build/kokkos_dualview_tests" --gtest_filter=-*DeathTest*
    [ -x "$GPU/with_kokkos_cuda" ] && run "sanitizer_${tool}_with_kokkos" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/with_kokkos_cuda"
    [ -x "$GPU/with_kokkos_gaps_cuda" ] && run "sanitizer_${tool}_with_kokkos_gaps" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/with_kokkos_gaps_cuda"
    run "sanitizer_${tool}_interop" compute-sanitizer --tool $tool --error-exitcode 3 "$GPU/bin/interop" --test-threads 1
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
