#!/usr/bin/env bash
# Run the dualview demo on a fresh machine: installs what it needs, builds, runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
need_rust
apt_install gcc
cargo run --release --quiet --example demo
