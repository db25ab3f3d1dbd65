#!/usr/bin/env bash
# The agent's main job on this machine, from nothing: installs (the first time) llama.cpp's
# server and SmolLM2-135M into the repository's .venv/ (scripts/local-model.sh), builds
# pi-tool, starts the model on 127.0.0.1, makes a scratch git repository, and runs the agent
# there with Pi's coding tools, showing the run live (text as it streams, → each call, ← or ✗
# its result). The model is stopped and the scratch repository removed at the end.
# Usage: scripts/demo.sh [PORT]   (default 8080; needs python3 and a Rust toolchain)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-8080}"

echo "== the local model: llama.cpp's server and SmolLM2-135M in .venv/ (installed the first time)"
scripts/local-model.sh --install-only
echo "== building pi-tool"
cargo build --quiet -p pi-cli
target=$(cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
pi_tool="$target/debug/pi-tool"

scratch=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

echo "== starting the model on 127.0.0.1:$port"
.venv/bin/python scripts/local-model/server.py "$port" > "$scratch/server.log" 2>&1 &
server=$!
for _ in $(seq 1200); do
  grep -q '^ready ' "$scratch/server.log" && break
  if ! kill -0 "$server" 2>/dev/null; then
    cat "$scratch/server.log" >&2
    echo "demo.sh: the model server stopped before it was ready (is port $port free? scripts/demo.sh PORT)" >&2
    exit 1
  fi
  sleep 0.1
done
grep -q '^ready ' "$scratch/server.log" || { echo "demo.sh: the model server did not come up in 2 minutes" >&2; exit 1; }

echo "== a scratch repository: $scratch/repo"
mkdir -p "$scratch/repo/src" "$scratch/agent"
cd "$scratch/repo"
printf '# Scratch\n\nA tiny project for the demo.\n' > README.md
printf 'fn main() {\n    println!("hello");\n}\n' > src/main.rs
git init --quiet
git add -A
git -c user.name=demo -c user.email=demo@localhost commit --quiet -m "A tiny project"
ls -R

# The run's own agent directory: no setting, AGENTS.md or session of yours is read or written.
export PI_CODING_AGENT_DIR="$scratch/agent"
# Only the readers are offered (a bare tool name in --deny hides the tool): a 135M model is
# no one to give `bash`, `write` and `edit` to. It does not choose tools by itself, so the
# prompt shows it the call (under a plain system prompt, the way the real-model test drives
# it) and --tool-choice required asks for one.
prompt='List the files and read README.md. Repeat exactly this block and nothing else:
<tool_call>
{"name": "read", "arguments": {"path": "README.md"}}
</tool_call>
Repeat it now.'
echo "== pi-tool agent (coding tools in $scratch/repo, model smollm2 at 127.0.0.1:$port)"
echo "\$ pi-tool --coding-tools . agent --provider openai --base-url http://127.0.0.1:$port/v1 --model smollm2 ..."
status=0
"$pi_tool" --coding-tools . agent --provider openai --base-url "http://127.0.0.1:$port/v1" \
  --model smollm2 --system-prompt "You are a helpful assistant." --no-context-files \
  --tool-choice required --max-tokens 64 --max-turns 2 --no-session \
  --deny echo --deny uppercase --deny bash --deny write --deny edit \
  "$prompt" < /dev/null || status=$?
echo
echo "== done (pi-tool exited with $status). For real work, a real model: pi-tool -p \"...\" (README.md)"
