#!/usr/bin/env bash
# Run the dualview demo on a fresh Debian machine: installs what it needs
# (Rust >= 1.88 through rustup, gcc as the linker), builds, runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/deps.sh
apt_install gcc libc6-dev
need_rust
cargo run --release --quiet --example demo
