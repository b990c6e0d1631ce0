#!/usr/bin/env bash
# The GPU benchmark (benches/gpu_bench.cu), on a machine with an NVIDIA GPU and
# nvcc (no Rust needed there): builds it against .gpu/lib (scripts/gpu-prepare.sh)
# and runs it. Prints the table (docs/BENCHMARKS.md holds a copy) and writes
#   $OUT_DIR/gpu-bench.txt   the whole output
#   $OUT_DIR/gpu-bench.csv   bandwidth against size (scripts/bench-plot.py draws it)
# OUT_DIR defaults to .gpu/bench. Extra arguments go to the program
# (--only sync,tiny,flags,strided,async,resize,create,probe).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GPU=$ROOT/.gpu
OUT_DIR=${OUT_DIR:-$GPU/bench}
mkdir -p "$OUT_DIR"
export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvcc >/dev/null; then echo "SKIPPED gpu-bench: no nvcc on this machine"; exit 0; fi
nvcc -std=c++17 -O2 -arch=native -Xcompiler -pthread -I"$ROOT/include" benches/gpu_bench.cu -o "$GPU/gpu_bench" \
  -L"$GPU/lib" -ldualview -Xlinker -rpath -Xlinker "$GPU/lib"
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader |
  tee "$OUT_DIR/machine.txt" || true
echo "host: $(nproc) cores, $(grep MemTotal /proc/meminfo | awk '{print int($2/1048576)}') GiB" | tee -a "$OUT_DIR/machine.txt"
"$GPU/gpu_bench" --csv "$OUT_DIR/gpu-bench.csv" "$@" | tee "$OUT_DIR/gpu-bench.txt"
