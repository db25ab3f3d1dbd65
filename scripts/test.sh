#!/usr/bin/env bash
# Everything the test suite needs, from nothing: the Python peers (the MCP SDK, and a real small
# model served by llama.cpp), then every Rust test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-python-peers.sh
# The local model test is skipped, saying why, only when this install fails.
scripts/local-model.sh --install-only || echo "test.sh: the local model could not be installed; its test will be skipped"
cargo test --workspace --locked "$@"
