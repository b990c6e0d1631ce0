#!/usr/bin/env bash
# Old against new on a GPU machine: benches/gpu_bench.cu built against two
# libraries and run alternately, old first, then new, AB_RUNS times each; the
# medians, spreads and verdict per row come from scripts/bench-ab.py.
#
#   usage: bash scripts/gpu-ab.sh [gpu_bench arguments, e.g. --only tiny,flags]
#
# Expects .gpu/lib (scripts/gpu-prepare.sh) and .gpu/old/{lib,include}
# (OLD_COMMIT=<rev> bash scripts/gpu-prepare.sh): each library is built with the
# headers of its own tree. Environment: AB_RUNS (default 5), AB_SECONDS (start no
# new pair after this many seconds; default 0, no limit), OUT_DIR (default
# .gpu/ab). Writes $OUT_DIR/{old,new}-<n>.txt and $OUT_DIR/ab.md; exits 1 when a
# run failed or a new median is slower than the old by more than the spread.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GPU=$ROOT/.gpu
OUT_DIR=${OUT_DIR:-$GPU/ab}
RUNS=${AB_RUNS:-5}
export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvcc >/dev/null; then echo "SKIPPED gpu-ab: no nvcc on this machine"; exit 0; fi
[ -d "$GPU/old/lib" ] && [ -d "$GPU/old/include" ] || {
  echo "gpu-ab: no .gpu/old (OLD_COMMIT=<rev> bash scripts/gpu-prepare.sh writes it)"
  exit 2
}
mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR"/old-*.txt "$OUT_DIR"/new-*.txt
build() { # name, include dir, library dir
  nvcc -std=c++17 -O2 -arch=native -Xcompiler -pthread -I"$2" benches/gpu_bench.cu -o "$GPU/gpu_bench_$1" \
    -L"$3" -ldualview -Xlinker -rpath -Xlinker "$3"
}
build old "$GPU/old/include" "$GPU/old/lib"
build new "$ROOT/include" "$GPU/lib"
echo "old: $(cat "$GPU/old/commit" 2>/dev/null || echo '?'); new: $(cat "$GPU/lib/commit" 2>/dev/null || echo 'this tree')" |
  tee "$OUT_DIR/which.txt"
status=0
start=$SECONDS
for ((i = 1; i <= RUNS; i++)); do
  if [ "${AB_SECONDS:-0}" -gt 0 ] && [ $((SECONDS - start)) -ge "$AB_SECONDS" ]; then
    echo "gpu-ab: stopped after $((i - 1)) pairs ($((SECONDS - start)) s, AB_SECONDS=$AB_SECONDS)"
    break
  fi
  for v in old new; do
    t0=$SECONDS
    "$GPU/gpu_bench_$v" "$@" >"$OUT_DIR/$v-$i.txt" 2>&1 || { echo "FAIL gpu_bench ($v, run $i)"; status=1; }
    echo "run $i $v: $((SECONDS - t0)) s"
  done
done
python3 scripts/bench-ab.py "$OUT_DIR" | tee "$OUT_DIR/ab.md" || status=1
exit $status
