#!/usr/bin/env bash
# The GPU benchmarks, on a machine with an NVIDIA GPU and nvcc (no Rust needed
# there): builds them against .gpu/lib (scripts/gpu-prepare.sh) and runs them.
#   benches/gpu_bench.cu     dualview against raw CUDA copies (docs/BENCHMARKS.md holds a copy)
#   benches/lammps_bench.cu  the LAMMPS KOKKOS-package pattern with value checks, at
#                            $LAMMPS_ATOMS atoms (default "4000000 32000000"), for the
#                            default, pinned and opt-out pageable (DV_PAGEABLE_MIRROR=1)
#                            mirrors, one process per row; then the mirror rows (resize
#                            while the mirror registers, first sync_host of a fresh 1 GiB)
#   Kokkos' own DualView     when .gpu/kokkos-src.tar.gz is there (gpu-prepare.sh with
#                            KOKKOS_SRC): scripts/kokkos-build.sh builds Kokkos for this
#                            GPU, and lammps_bench.cu, compiled against it, adds rows
#                            "Kokkos X.Y.Z (this run)" beside dualview's, and the same
#                            source with dv::with_kokkos::DualView (Kokkos' kernels,
#                            dualview's data movement); without it the table says so
#                            and keeps its recorded Kokkos figures
#   examples_mpi/halo_kokkos.cpp  the Kokkos halo idiom (issue 30) at 2 MPI ranks of
#                            4098 x 4096 (4096 owned rows and 2 ghost rows) per rank:
#                            milliseconds and bytes per step (needs mpicxx)
# Writes
#   $OUT_DIR/gpu-bench.txt     gpu_bench's whole output
#   $OUT_DIR/gpu-bench.csv     bandwidth against size (scripts/bench-plot.py draws it)
#   $OUT_DIR/lammps-bench.txt  lammps_bench's rows
#   $OUT_DIR/halo-bench.txt    the halo row
# OUT_DIR defaults to .gpu/bench. Extra arguments go to gpu_bench; --only picks
# groups: gpu_bench's (sync,tiny,flags,strided,async,enqueue,resize,create,probe), kokkos
# (benches/kokkos_rows.cu against dualview and Kokkos, $KOKKOS_ROUNDS interleaved rounds:
# $OUT_DIR/kokkos-rows.md), lammps ($LAMMPS_ROUNDS rounds, default 1),
# mirror, halo and lammps-real (LAMMPS itself, when .lammps/lammps.tar.xz is there). Exits non-zero when a check failed (a wrong value, an exception, a crash)
# or a gate was missed ($OUT_DIR/gates.md, scripts/bench-gates.py).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GPU=$ROOT/.gpu
OUT_DIR=${OUT_DIR:-$GPU/bench}
mkdir -p "$OUT_DIR"
export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvcc >/dev/null; then echo "SKIPPED gpu-bench: no nvcc on this machine"; exit 0; fi
ONLY=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[i]}" = --only ]; then ONLY=${args[i + 1]:-}; fi
done
# A group named in --only's comma-separated list (whole names: lammps is not lammps-real).
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
LINK=(-L"$GPU/lib" -ldualview -Xlinker -rpath -Xlinker "$GPU/lib")
nvcc -std=c++17 -O2 -arch=native -Xcompiler -pthread -I"$ROOT/include" benches/gpu_bench.cu -o "$GPU/gpu_bench" "${LINK[@]}"
nvcc -std=c++17 -O2 -arch=native -Xcompiler -pthread -I"$ROOT/include" -I"$ROOT/include/dualview/kokkos" \
  benches/lammps_bench.cu -o "$GPU/lammps_bench" "${LINK[@]}"
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader |
  tee "$OUT_DIR/machine.txt" || true
echo "host: $(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print int($2/1048576)}') GiB" | tee -a "$OUT_DIR/machine.txt"

status=0
if [ -z "$ONLY" ] || [[ "$ONLY" =~ sync|tiny|flags|strided|async|enqueue|resize|create|probe ]]; then
  "$GPU/gpu_bench" --csv "$OUT_DIR/gpu-bench.csv" "$@" | tee "$OUT_DIR/gpu-bench.txt" || status=1
fi

LOG=$OUT_DIR/lammps-bench.txt
: >"$LOG"
# One lammps_bench process: MIRROR, then its arguments. The pageable opt-out is
# the process-wide DV_PAGEABLE_MIRROR=1; the other two run without it. A crash
# (no row printed) is reported as a FAIL line.
row() {
  local mirror=$1 rc
  shift
  local envs=(env -u DV_PAGEABLE_MIRROR)
  if [ "$mirror" = pageable ]; then envs=(env DV_PAGEABLE_MIRROR=1); fi
  set +e
  "${envs[@]}" "$GPU/lammps_bench" --mirror "$mirror" "$@" 2>&1 | tee -a "$LOG"
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" -ne 0 ]; then
    status=1
    if [ "$rc" -gt 128 ]; then echo "FAIL lammps_bench --mirror $mirror $*: killed by signal $((rc - 128))" | tee -a "$LOG"; fi
  fi
}
# Kokkos' own DualView in the same run (issue 32): built once per machine, then the
# same lammps_bench.cu compiled against it.
KOKKOS_BENCH=""
WITH_KOKKOS_BENCH=""
if want lammps || want mirror || want kokkos; then
  set +e
  kout=$(bash scripts/kokkos-build.sh 2>&1)
  krc=$?
  set -e
  echo "$kout" | tail -3
  if [ "$krc" -eq 0 ]; then
    KPREFIX=$(echo "$kout" | tail -1)
    KLIB=$(dirname "$(compgen -G "$KPREFIX/lib*/libkokkoscore*" | head -1)")
    "$KPREFIX/bin/nvcc_wrapper" -std=c++17 -O2 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr -Xcompiler -pthread \
      -I"$KPREFIX/include" benches/lammps_bench.cu -o "$GPU/lammps_bench_kokkos" \
      -L"$KLIB" -lkokkoscontainers -lkokkoscore -lcuda -ldl -Xlinker -rpath -Xlinker "$KLIB" && KOKKOS_BENCH=$GPU/lammps_bench_kokkos \
      || { echo "FAIL lammps_bench.cu did not build against Kokkos"; status=1; }
    # The same program with its tdual_* typedef changed to dv::with_kokkos::DualView (issue 34).
    "$KPREFIX/bin/nvcc_wrapper" -std=c++17 -O2 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr -Xcompiler -pthread \
      -I"$KPREFIX/include" -I"$ROOT/include" -DLAMMPS_BENCH_WITH_KOKKOS benches/lammps_bench.cu -o "$GPU/lammps_bench_with_kokkos" \
      -L"$KLIB" -lkokkoscontainers -lkokkoscore "${LINK[@]}" -lcuda -ldl -Xlinker -rpath -Xlinker "$KLIB" \
      && WITH_KOKKOS_BENCH=$GPU/lammps_bench_with_kokkos \
      || { echo "FAIL lammps_bench.cu did not build with dv::with_kokkos::DualView"; status=1; }
  elif [ "$krc" -ne 3 ]; then
    echo "FAIL kokkos-build: Kokkos did not build (rows without it)"; status=1
  fi
fi
# benches/kokkos_rows.cu: gpu_bench's rows that Kokkos can run, one source built against
# dualview's Kokkos-named headers and against Kokkos, run in $KOKKOS_ROUNDS (default 3)
# interleaved rounds (dualview first in odd rounds, Kokkos first in even ones), joined by the median of each
# row (the spread shown) into a ratio column. The mirror rows run with DV_POOL_BYTES=2G
# (their warm row needs a pool that may keep 1 GiB; Kokkos ignores it).
if want kokkos; then
  nvcc -std=c++17 -O2 -arch=native -Xcompiler -pthread -I"$ROOT/include" -I"$ROOT/include/dualview/kokkos" \
    benches/kokkos_rows.cu -o "$GPU/kokkos_rows_dv" "${LINK[@]}"
  kname="Kokkos (not built: no .gpu/kokkos-src.tar.gz)"
  KROWS=""
  if [ -n "${KPREFIX:-}" ]; then
    "$KPREFIX/bin/nvcc_wrapper" -std=c++17 -O2 -arch=sm_90 --extended-lambda --expt-relaxed-constexpr -Xcompiler -pthread \
      -I"$KPREFIX/include" benches/kokkos_rows.cu -o "$GPU/kokkos_rows_kokkos" -L"$KLIB" -lkokkoscontainers -lkokkoscore -lcuda -ldl \
      && KROWS=$GPU/kokkos_rows_kokkos || { echo "FAIL kokkos_rows.cu did not build against Kokkos"; status=1; }
    kname="Kokkos $(sed -n 's/^kokkos-build: Kokkos \([0-9.]*\).*/\1/p' <<< "$kout") (this run)"
  fi
  rm -f "$OUT_DIR"/kokkos-rows-dualview*.txt "$OUT_DIR"/kokkos-rows-kokkos*.txt
  kokkos_rows() { # binary, output file: every group, the mirror rows in a process of their own
    { "$1" --only "${KOKKOS_ROWS_ONLY:-memory,flags,tiny,sync,resize,create,enqueue,grow,destroy}" \
        && env DV_POOL_BYTES=2G "$1" --only mirror; } > "$2" || status=1
  }
  dvs=()
  kks=()
  for ((r = 1; r <= ${KOKKOS_ROUNDS:-3}; r++)); do
    # Odd rounds dualview first, even rounds Kokkos first.
    if [ -n "$KROWS" ] && [ $((r % 2)) -eq 0 ]; then kokkos_rows "$KROWS" "$OUT_DIR/kokkos-rows-kokkos.$r.txt"; fi
    kokkos_rows "$GPU/kokkos_rows_dv" "$OUT_DIR/kokkos-rows-dualview.$r.txt"
    dvs+=("$OUT_DIR/kokkos-rows-dualview.$r.txt")
    if [ -n "$KROWS" ] && [ $((r % 2)) -eq 1 ]; then kokkos_rows "$KROWS" "$OUT_DIR/kokkos-rows-kokkos.$r.txt"; fi
    if [ -n "$KROWS" ]; then kks+=("$OUT_DIR/kokkos-rows-kokkos.$r.txt"); fi
  done
  python3 scripts/bench-ratio.py "$(IFS=,; echo "${dvs[*]}")" "$(IFS=,; echo "${kks[*]:-}")" "$kname" \
    | tee "$OUT_DIR/kokkos-rows.md" || status=1
fi
kokkos_row() { # arguments of lammps_bench: Kokkos' row and dualview-in-Kokkos' row, when Kokkos was built here
  local b
  for b in $KOKKOS_BENCH $WITH_KOKKOS_BENCH; do
    set +e
    env -u DV_PAGEABLE_MIRROR "$b" --mirror default "$@" 2>&1 | tee -a "$LOG"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    set -e
  done
}
if want lammps; then
  echo | tee -a "$LOG"
  "$GPU/lammps_bench" --header | tee -a "$LOG"
  [ -n "$KOKKOS_BENCH" ] || echo "Kokkos (this run): SKIPPED: no .gpu/kokkos-src.tar.gz; the Kokkos rows above are recorded figures" | tee -a "$LOG"
  # $LAMMPS_ROUNDS rounds, each Kokkos' rows then dualview's at each size: the gates take
  # each cell's median over the rounds.
  for ((r = 1; r <= ${LAMMPS_ROUNDS:-1}; r++)); do
    for atoms in ${LAMMPS_ATOMS:-4000000 32000000}; do
      kokkos_row --lammps "$atoms"
      for mirror in default pinned pageable; do row "$mirror" --lammps "$atoms"; done
    done
  done
fi
if want mirror; then
  "$GPU/lammps_bench" --mirror-header | tee -a "$LOG"
  for ((r = 1; r <= ${LAMMPS_ROUNDS:-1}; r++)); do
    kokkos_row --mirror-rows
    for mirror in default pinned pageable; do row "$mirror" --mirror-rows; done
  done
fi
if want halo; then
  if command -v mpicxx >/dev/null; then
    nvcc -std=c++17 -O2 -arch=native -x cu -I"$ROOT/include" -I"$ROOT/include/dualview/kokkos" $(mpicxx --showme:compile) \
      examples_mpi/halo_kokkos.cpp -o "$GPU/halo_kokkos" $(mpicxx --showme:link) "${LINK[@]}"
    # The one-process reference is checked too (bit for bit), on the host after the timed steps.
    mpirun -np 2 --oversubscribe --allow-run-as-root "$GPU/halo_kokkos" "${HALO_ROWS:-4098}" 4096 "${HALO_STEPS:-40}" --bench \
      2>&1 | tee "$OUT_DIR/halo-bench.txt" || status=1
    grep -q "bitwise equal to the one-process reference: yes; .*: yes" "$OUT_DIR/halo-bench.txt" || status=1
  else
    echo "SKIPPED halo: no mpicxx on this machine" | tee "$OUT_DIR/halo-bench.txt"
  fi
fi
# LAMMPS itself (issue 43): in.lj at 2,048,000 atoms on CUDA, stock against its DualView
# switched to dualview's (scripts/lammps-check.sh, docs/LAMMPS.md), from the archive
# `scripts/lammps-check.sh LAMMPS_SRC pack` writes; the gate reads $OUT_DIR/lammps-real.md.
if want lammps-real; then
  if [ -f "$ROOT/.lammps/lammps.tar.xz" ]; then
    OUT=$OUT_DIR/lammps-real LAMMPS_INPUTS=lj DV_LIB_DIR=$GPU/lib bash scripts/lammps-check.sh "$ROOT/.lammps/lammps.tar.xz" cuda \
      || status=1
    cp "$OUT_DIR/lammps-real/summary.md" "$OUT_DIR/lammps-real.md" 2>/dev/null || true
  else
    echo "SKIPPED lammps-real: no .lammps/lammps.tar.xz (scripts/lammps-check.sh LAMMPS_SRC pack, then carry .lammps)" \
      | tee "$OUT_DIR/lammps-real.md"
  fi
fi
# The gates (issue 32): rows with a target, and every Kokkos ratio; a miss beyond its
# noise margin fails the run (docs/BENCHMARKS.md "Gates").
if want kokkos || want lammps || want mirror || want lammps-real; then
  # The groups that ran: a gate of one of them without its row fails (a crash, no Kokkos).
  ran=""
  for g in kokkos lammps mirror; do want "$g" && ran="$ran,$g"; done
  want lammps-real && [ -f "$ROOT/.lammps/lammps.tar.xz" ] && ran="$ran,lammps-real"
  python3 scripts/bench-gates.py "$OUT_DIR" --ran "${ran#,}" | tee "$OUT_DIR/gates.md" \
    || { echo "gpu-bench: a gate was MISSED or its row is MISSING (see above)"; status=1; }
fi
if [ "$status" -ne 0 ]; then echo "gpu-bench: a check FAILED or a gate was MISSED (see above)"; fi
exit "$status"
