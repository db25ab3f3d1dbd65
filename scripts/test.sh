#!/usr/bin/env bash
# Everything the test suite needs, from nothing: the Python peers (the MCP SDK, and a real small
# model served by llama.cpp), then every Rust test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-python-peers.sh
# Debian packages, where missing: bubblewrap, the stronger of bash's two sandboxes (read-only
# outside the workspace, no network namespace leaks), and chromium, the real browser the HTML
# export's page is loaded in. Their tests fail, saying so, where they are missing.
packages=()
command -v bwrap >/dev/null 2>&1 || packages+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
if [ ${#packages[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}") >/dev/null \
    || echo "test.sh: ${packages[*]} could not be installed; their tests will fail"
fi
# Upstream Pi 0.80.6 (Node and npm packages, into .peers/pi): the interop tests read what it
# writes and have it continue what we write.
scripts/setup-pi.sh >/dev/null
# The official ACP TypeScript SDK (into .peers/acp, run with the Node above): it drives
# `pi-tool acp` as an editor would.
scripts/setup-acp.sh >/dev/null
# The tests that need these peers are ignored by a plain `cargo test` (which says so); here they
# run (--include-ignored). The local model's is skipped, saying why, only when its install fails.
skip=()
if ! scripts/local-model.sh --install-only; then
  echo "test.sh: the local model could not be installed; its test is skipped"
  skip=(--skip a_real_local_model_drives_the_loop_over_the_openai_wire)
fi
cargo test --workspace --locked "$@" -- --include-ignored "${skip[@]}"
