#!/usr/bin/env bash
# Line coverage of the device engine (src/memory/device/) and the test device's
# fake driver from the CPU test run (unit and integration tests, no GPU), with
# rustc's -C instrument-coverage and LLVM's tools (Debian's llvm-N matching
# rustc's LLVM major version, installed when missing). Prints the per-file table
# and the total for src/memory/device/. Not part of the test command.
#   bash scripts/coverage.sh [path ...]     (default: src/memory/device)
set -euo pipefail
cd "$(dirname "$0")/.."
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
if ! command -v "llvm-profdata-$major" >/dev/null; then
    apt-get update -q >/dev/null && apt-get install -y -q "llvm-$major" >/dev/null
fi
paths=("${@:-src/memory/device}")
export CARGO_TARGET_DIR=target/coverage
prof=$CARGO_TARGET_DIR/profraw
rm -rf "$prof" && mkdir -p "$prof"
RUSTFLAGS="-C instrument-coverage" LLVM_PROFILE_FILE="$PWD/$prof/%p-%m.profraw" \
    cargo test -q --features ndarray,cudarc-interop --lib --tests 2>&1 | grep -E "^test result|FAILED|panicked" || true
"llvm-profdata-$major" merge -sparse "$prof"/*.profraw -o "$prof/merged.profdata"
objects=()
for f in $(RUSTFLAGS="-C instrument-coverage" cargo test -q --features ndarray,cudarc-interop --lib --tests --no-run --message-format=json 2>/dev/null \
           | python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable"): print(m["executable"])'); do
    if [ ${#objects[@]} -eq 0 ]; then objects+=("$f"); else objects+=(--object "$f"); fi
done
"llvm-cov-$major" report --instr-profile "$prof/merged.profdata" "${objects[@]}" \
    --ignore-filename-regex='/(\.cargo|rustc)/' $(find "${paths[@]}" -name '*.rs' ! -name tests.rs | sort)
