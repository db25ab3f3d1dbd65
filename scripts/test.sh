#!/usr/bin/env bash
# Everything the test suite needs, from nothing: the Python peers, then every Rust test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-python-peers.sh
cargo test --workspace --locked "$@"
