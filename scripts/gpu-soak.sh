#!/usr/bin/env bash
# The soak test against the oracle of issue 30 (tests/soak.rs, built by scripts/gpu-prepare.sh
# into .gpu/bin/soak) on a GPU machine: a long run with arrays up to 1 GiB
# on 4 threads, then a shorter one with smaller arrays under compute-sanitizer
# memcheck. Prints each run's seeds, coverage and summary line; exits non-zero
# when either run fails. docs/GPU.md, "The soak test".
#
#   SOAK_SECONDS            the long run (default 300)
#   SOAK_MAX_BYTES          its largest array (default 1G; 4 threads x 2 arrays of it
#                           at most, each on both sides, each synced whole at its end)
#   SOAK_SANITIZER_SECONDS  the memcheck run (default 60, at most SOAK_SECONDS)
#   SOAK_SANITIZER_MAX_BYTES  its largest array (default 256M)
#   SANITIZE=0              skip the memcheck run
#   DV_SOAK_SEED            replay: the seed (or list) a failure printed
set -u
cd "$(dirname "$0")/.."
GPU=$PWD/.gpu
BIN=$GPU/bin/soak
export PATH=/usr/local/cuda/bin:$PATH
LONG=${SOAK_SECONDS:-300}
MAX=${SOAK_MAX_BYTES:-1G}
SAN=${SOAK_SANITIZER_SECONDS:-60}
SAN=$(awk -v a="$SAN" -v b="$LONG" 'BEGIN { print (a + 0 < b + 0) ? a : b }')
SAN_MAX=${SOAK_SANITIZER_MAX_BYTES:-256M}
if [ ! -x "$BIN" ]; then
  echo "no $BIN: run scripts/gpu-prepare.sh on the build machine first"
  exit 2
fi
fail=0
soak() { # log name, seconds, max bytes, command prefix...
  local name=$1 log=$GPU/log.soak_$1 secs=$2 max=$3; shift 3
  echo "== soak ($log): $secs s, arrays up to $max, 4 threads ${*:+(under $*)}"
  # A hang (a deadlock in a sync, say) is a failure too: the run ends within
  # twice its time and 10 minutes of final checks, or it is killed.
  local limit
  limit=$(awk -v s="$secs" 'BEGIN { printf "%d", 2 * s + 600 }')
  DV_SOAK_SECONDS=$secs DV_SOAK_MAX_BYTES=$max DV_SOAK_THREADS=4 \
    timeout --signal=KILL "$limit" "$@" "$BIN" --test-threads 1 > "$log" 2>&1
  local rc=$?
  [ $rc = 137 ] && echo "killed after $limit s (a hang?)" >> "$log"
  grep -E "^soak: (thread|coverage)" "$log"
  if [ $rc = 0 ] && grep -q "^soak: [0-9]* operations" "$log"; then
    grep "^soak: [0-9]* operations" "$log"
    grep "ERROR SUMMARY" "$log" || true
    echo "== soak $name: PASS"
  else
    tail -60 "$log"
    echo "== soak $name: FAIL (rc $rc)"
    fail=1
  fi
}
soak long "$LONG" "$MAX"
if [ "${SANITIZE:-1}" = 0 ]; then
  echo "== soak memcheck: SKIPPED (SANITIZE=0)"
elif command -v compute-sanitizer >/dev/null; then
  soak memcheck "$SAN" "$SAN_MAX" compute-sanitizer --tool memcheck --error-exitcode 3
else
  echo "== soak memcheck: SKIPPED (no compute-sanitizer)"
fi
exit $fail
