#!/usr/bin/env bash
# Everything the test suite needs, from nothing: the Python peers (the MCP SDK, and a real small
# model served by llama.cpp), then every Rust test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-python-peers.sh
# bubblewrap: the stronger of bash's two sandboxes (read-only outside the workspace, no
# network namespace leaks); its tests fail, saying so, where it is missing.
if ! command -v bwrap >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null \
    || echo "test.sh: bubblewrap could not be installed; the bubblewrap sandbox tests will fail"
fi
# The local model test is skipped, saying why, only when this install fails.
scripts/local-model.sh --install-only || echo "test.sh: the local model could not be installed; its test will be skipped"
cargo test --workspace --locked "$@"
