#!/usr/bin/env bash
# LAMMPS on dualview (issue 43, docs/LAMMPS.md): build LAMMPS with its KOKKOS
# package stock, then with its DualView type switched to dualview's as an
# incremental rebuild of the same tree, run the same inputs with both and
# compare thermo output, timing breakdown and peak memory.
#
#   usage: scripts/lammps-check.sh LAMMPS_SRC [STEP...]
#
# LAMMPS_SRC is a LAMMPS 2 Aug 2023 tree the user brings (none of it is
# committed here): cmake/, src/, lib/kokkos/, bench/, examples/peptide/,
# unittest/. It is never changed: the script works on a copy.
#
# Steps (default: serial openmp unittests):
#   serial     Kokkos Serial build: stock, kokkos_type.h switched, every
#              Kokkos::DualView of src/KOKKOS switched; in.lj, in.eam, in.chain
#              and examples/peptide (replicated) with each; thermo must be identical
#   openmp     the same with Kokkos' OpenMP back end (2 threads)
#   cuda       Kokkos CUDA (sm_90) build, >= 1M atoms per input, LAMMPS_REPEAT
#              alternating runs each (stock twice as often: its own spread)
#   unittests  the KOKKOS force-style tests (PairStyle.kokkos_omp over every
#              pair and kspace YAML) on the OpenMP build, stock and switched
#   cuda-unittests  the same on the CUDA build (Kokkos for CUDA and OpenMP)
#   checked    the switched CUDA build, in.lj at 32,000 atoms, 100 steps, DV_CHECK=1
#   report     the switched CUDA build, in.lj at 2,048,000 atoms, with the transfer report
#              (DV_REPORT) in the summary
#   bench      benches/lammps_bench.cu against the CUDA tree's Kokkos (3.7.02): Kokkos'
#              DualView and dv::with_kokkos::DualView, LAMMPS_BENCH_ATOMS atoms (default
#              32000000), device memory held after three grows
#   syntax     -fsyntax-only of the dozen KOKKOS files docs/LAMMPS.md lists, with
#              both switches (what the test command runs when LAMMPS_SRC is set)
#   cuda-syntax  the same files compiled by nvcc from the CUDA tree (no GPU needed)
#   cuda-build build the CUDA binaries (stock, full) without a GPU (nvcc needed) and
#              archive them as .lammps/lmp-cuda.tar.xz and (LAMMPS' tests)
#              .lammps/test_pair_style-cuda.tar.xz: on a GPU machine the cuda, checked and
#              cuda-unittests steps then run them instead of building (its time goes to runs)
#   pack       write .lammps/lammps.tar.xz (git-ignored): what the other steps read
#              of LAMMPS_SRC, for a GPU machine (scripts/lammps-check.sh
#              .lammps/lammps.tar.xz cuda there; docs/LAMMPS.md)
#
# LAMMPS_SRC may also be such an archive (unpacked once into the cache).
#
# Environment: LAMMPS_CACHE (build trees, reused; default
# ${XDG_CACHE_HOME:-~/.cache}/dualview/lammps), DV_LIB_DIR (libdualview.so;
# default target/release, built when missing), JOBS (build jobs; default nproc),
# LAMMPS_STEPS (CPU run length; default 100), LAMMPS_REPEAT (CUDA runs of each
# build; default 3), LAMMPS_INPUTS (default "lj eam chain peptide"), OUT (logs and
# summary.md; default build/lammps).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC_IN=${1:-}
shift || true
export PATH=/usr/local/cuda/bin:$PATH  # nvcc on a GPU machine
CACHE=${LAMMPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dualview/lammps}
# An archive from the pack step (what a GPU machine, which reaches no network, is given):
# unpacked once into the cache.
if [ -f "$SRC_IN" ] && [[ "$SRC_IN" == *.tar.* ]]; then
  unpacked=$CACHE/unpacked-$(sha1sum "$SRC_IN" | cut -c1-12)
  if [ ! -f "$unpacked/.complete" ]; then
    rm -rf "$unpacked" && mkdir -p "$unpacked" && tar xf "$SRC_IN" -C "$unpacked" && touch "$unpacked/.complete" || {
      echo "FAIL: $SRC_IN did not unpack"
      exit 1
    }
  fi
  SRC_IN=$unpacked
fi
if [ -z "$SRC_IN" ] || [ ! -f "$SRC_IN/src/KOKKOS/kokkos_type.h" ] || [ ! -f "$SRC_IN/cmake/CMakeLists.txt" ]; then
  echo "SKIPPED: LAMMPS_SRC does not name a LAMMPS tree with src/KOKKOS and cmake/ (usage: scripts/lammps-check.sh LAMMPS_SRC [STEP...])"
  exit 0
fi
SRC_IN=$(cd "$SRC_IN" && pwd)
STEPS=("$@")
[ ${#STEPS[@]} -eq 0 ] && STEPS=(serial openmp unittests)
OUT=${OUT:-$ROOT/build/lammps}
JOBS=${JOBS:-$(nproc)}
NSTEPS=${LAMMPS_STEPS:-100}
REPEAT=${LAMMPS_REPEAT:-3}
mkdir -p "$CACHE" "$OUT"
CACHE=$(cd "$CACHE" && pwd)
OUT=$(cd "$OUT" && pwd)
WORK=$CACHE/src          # the copy of LAMMPS_SRC the switch edits
SUMMARY=$OUT/summary.md
. "$ROOT/scripts/lib/lammps.sh"
failed=0
note() { echo "== $*"; }
fail() {
  echo "FAIL $*"
  echo "- FAIL $*" >>"$SUMMARY"
  failed=1
}

lammps_libdualview
lammps_copy_source
lammps_cuda_binaries
: >"$SUMMARY"
echo "# LAMMPS on dualview: $(date -u +%Y-%m-%dT%H:%MZ), LAMMPS $(sed -n 's/.*LAMMPS_VERSION "\(.*\)".*/\1/p' "$WORK/src/version.h"), $(nproc) cores" >>"$SUMMARY"

for step in "${STEPS[@]}"; do
  case $step in
  serial | openmp | cuda) lammps_backend "$step" ;;
  unittests) lammps_unittests openmp ;;
  cuda-unittests) lammps_unittests cuda ;;
  checked) lammps_checked ;;
  report) lammps_report ;;
  bench) lammps_bench ;;
  syntax) lammps_syntax ;;
  cuda-syntax) lammps_syntax cuda ;;
  cuda-build) lammps_cuda_build ;;
  pack) lammps_pack ;;
  *)
    echo "unknown step '$step' (serial, openmp, cuda, unittests, cuda-unittests, checked, report, bench, syntax, cuda-syntax, cuda-build, pack)"
    exit 2
    ;;
  esac
done
echo
cat "$SUMMARY"
[ $failed -eq 0 ] && echo "lammps-check: every step passed" || echo "lammps-check: FAILED (see above)"
exit $failed
