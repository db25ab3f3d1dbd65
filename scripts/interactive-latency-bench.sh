#!/usr/bin/env bash
# Latency of the interactive mode with a long session resumed: a key to its frame on the
# screen (an upper bound of a frame's time: read, draw, write), and a streamed token from the
# moment a local fake model writes it to its appearance in the program's output
# (bench/peers/tty_latency.py; a 40x120 pseudo-terminal; 20 keys and 12 tokens 50 ms apart a
# round). Goals (issue 43): a frame under 16 ms, a token on screen within one frame of
# arriving. Prints a table of medians, 95th percentiles and maxima.
# usage: scripts/interactive-latency-bench.sh [N] [ROUNDS]   (not part of CI; release build)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-10000}" rounds="${2:-5}"
# pyte, a terminal emulator, reads the screen (into the .venv scripts/setup-python-peers.sh makes).
scripts/setup-python-peers.sh >/dev/null
.venv/bin/python -c "import pyte" 2>/dev/null || .venv/bin/pip install -q "pyte==0.8.2"
python="$PWD/.venv/bin/python"
cargo build --release -q -p pi-cli
target="${CARGO_TARGET_DIR:-$PWD/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/agent" "$work/cwd"
python3 bench/peers/long_session.py "$work/session.jsonl" "$work/cwd" "$count"
size="$(du -m "$work/session.jsonl" | cut -f1)"
bench="$PWD/bench/peers"
cd "$work/cwd"
export PI_CODING_AGENT_DIR="$work/agent" PI_OFFLINE=1 TERM=xterm-256color
"$python" "$bench/tty_latency.py" local-model "$work/agent/models.json" "$rounds" -- \
  "$target/release/pi-tool" --session "$work/session.jsonl" | python3 -c '
import json, statistics, sys
run = json.loads(sys.stdin.read())
def row(name, values):
    if not values:
        return f"| {name} | never | | | 0 |"
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return f"| {name} | {statistics.median(values):.1f} | {p95:.1f} | {values[-1]:.1f} | {len(values)} |"
print("| measure | median (ms) | p95 (ms) | max (ms) | samples |")
print("|---|---|---|---|---|")
print(row("key to its frame on screen", run["keys_ms"]))
print(row("first token of an answer to screen", run["first_token_ms"]))
print(row("any streamed token to screen", run["tokens_ms"]))
missing = run["tokens_missing"]
if missing:
    print(f"({missing} tokens never seen whole in the output)")
'
echo "($count messages, $size MB, $rounds rounds; $(nproc) CPUs, load $(cut -d" " -f1 /proc/loadavg))"
