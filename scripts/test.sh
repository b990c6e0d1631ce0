#!/usr/bin/env bash
# Run every test of dualview on a fresh machine: installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
need_rust
export CARGO_TERM_COLOR=never
echo "== Rust: unit, integration, property and benchmark-smoke tests"
cargo test --all-targets
echo "== Rust: documentation examples"
cargo test --doc
echo "== Rust: the demo"
cargo run --quiet --example demo >/dev/null
echo "all dualview tests passed"
