#!/usr/bin/env bash
# Line coverage of the device engine (src/memory/device/) and the test device's
# fake driver from the CPU test run (unit and integration tests, no GPU), with
# rustc's -C instrument-coverage and LLVM's tools (Debian's llvm-N matching
# rustc's LLVM major version, installed when missing). Prints the per-file table
# and the total for src/memory/device/ without drivers/cuda.rs (the CUDA driver:
# every line is a CUDA call, run by scripts/gpu-check.sh on a GPU, never here).
# Fails when a test fails, and with --min PCT when that total is below PCT
# (the test command runs it with --min 90, DECISIONS G21).
#   bash scripts/coverage.sh [--min PCT] [path ...]   (default: src/memory/device)
set -euo pipefail
cd "$(dirname "$0")/.."
min=""
if [ "${1:-}" = --min ]; then min=$2; shift 2; fi
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
if ! command -v "llvm-profdata-$major" >/dev/null; then
    apt-get update -q >/dev/null && apt-get install -y -q "llvm-$major" >/dev/null
fi
paths=("${@:-src/memory/device}")
export CARGO_TARGET_DIR=target/coverage
prof=$CARGO_TARGET_DIR/profraw
rm -rf "$prof" && mkdir -p "$prof"
# The library's unit tests and every integration test but two that run none of its code
# (header: cbindgen against the committed header; msrv: cargo metadata): their instrumented
# compile, link and run took about 25 s of the test command.
targets=(--lib)
for t in tests/*.rs tests/*/main.rs; do
    n=$(basename "$t" .rs); [ "$n" = main ] && n=$(basename "$(dirname "$t")")
    case $n in header | msrv) ;; *) targets+=(--test "$n") ;; esac
done
log=$(mktemp)
if ! RUSTFLAGS="-C instrument-coverage" LLVM_PROFILE_FILE="$PWD/$prof/%p-%m.profraw" \
    cargo test -q --features ndarray,cudarc-interop "${targets[@]}" -- --skip the_ledger_holds_at_production_shapes >"$log" 2>&1; then
    grep -E "^test .*FAILED|panicked|^error" "$log" | head -20
    echo "coverage: FAILED (a test failed under instrumentation; log: $log)"
    exit 1
fi
grep -E "^test result" "$log" | awk '{n += $4} END {print "coverage: " n " tests passed under instrumentation"}'
"llvm-profdata-$major" merge -sparse "$prof"/*.profraw -o "$prof/merged.profdata"
objects=()
for f in $(RUSTFLAGS="-C instrument-coverage" cargo test -q --features ndarray,cudarc-interop "${targets[@]}" --no-run --message-format=json 2>/dev/null \
           | python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable"): print(m["executable"])'); do
    if [ ${#objects[@]} -eq 0 ]; then objects+=("$f"); else objects+=(--object "$f"); fi
done
files=$(find "${paths[@]}" -name '*.rs' ! -name tests.rs ! -path '*/drivers/cuda.rs' | sort)
table=$("llvm-cov-$major" report --instr-profile "$prof/merged.profdata" "${objects[@]}" \
    --ignore-filename-regex='/(\.cargo|rustc)/' $files 2>/dev/null)
echo "$table"
# TOTAL's line coverage: the tenth column of the report (regions, functions, then lines).
total=$(awk '/^TOTAL/ {print $10}' <<<"$table" | tr -d '%')
echo "coverage: lines of ${paths[*]} (without drivers/cuda.rs): ${total}%"
if [ -n "$min" ] && ! python3 -c "import sys; sys.exit(0 if float('$total') >= float('$min') else 1)"; then
    echo "coverage: FAILED: ${total}% of the lines, below the ${min}% required"
    exit 1
fi
rm -f "$log"
