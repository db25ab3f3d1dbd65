#!/usr/bin/env bash
# Takes docs/trace.png: one real `pi-tool agent` run over a scripted model (a batch of parallel
# calls: a success, a panic and a time-out behind an MCP round trip to our own `serve`, an
# unknown tool) exported over OTLP to scripts/otlp-receiver.py (the official opentelemetry-proto
# decoder), drawn by scripts/trace-waterfall.py and photographed by headless Chromium.
#
# Needs: a built pi-tool (PI_TOOL, default target/debug/pi-tool), .venv from
# scripts/setup-python-peers.sh, and chromium (apt-get install -y chromium).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pi_tool="${PI_TOOL:-$root/target/debug/pi-tool}"
python="$root/.venv/bin/python"
out="${1:-$root/docs/trace.png}"
for need in "$pi_tool" "$python"; do
  [ -x "$need" ] || { echo "trace-screenshot.sh: $need is missing" >&2; exit 1; }
done
command -v chromium >/dev/null || { echo "trace-screenshot.sh: apt-get install -y chromium" >&2; exit 1; }

work="$(mktemp -d)"
receiver=""
cleanup() { [ -n "$receiver" ] && kill "$receiver" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$python" "$root/scripts/otlp-receiver.py" "$work/port" "$work/spans.jsonl" &
receiver=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
endpoint="http://127.0.0.1:$(cat "$work/port")"

cat > "$work/script.json" <<'JSON'
[
  {"content": [
    {"type": "toolCall", "id": "c-ok", "name": "echo", "arguments": {"value": "Pi"}},
    {"type": "toolCall", "id": "c-panic", "name": "m_explode", "arguments": {"value": "boom"}},
    {"type": "toolCall", "id": "c-unknown", "name": "nope", "arguments": {}},
    {"type": "toolCall", "id": "c-slow", "name": "m_slow", "arguments": {"steps": 500}},
    {"type": "toolCall", "id": "c-mcp", "name": "m_echo", "arguments": {"value": "remote"}}
  ], "responseId": "resp-1"},
  {"content": [{"type": "text", "text": "done"}], "responseId": "resp-2"}
]
JSON

OTEL_EXPORTER_OTLP_ENDPOINT="$endpoint" OTEL_SERVICE_NAME=pi-tool \
  "$pi_tool" agent --demo-tools --json --no-session --approval yolo --tool-timeout 0.5 \
  --faux "$work/script.json" --mcp "$pi_tool serve --test-tools" --mcp-prefix m_ \
  --otlp "$endpoint" go > /dev/null
# The server's batch lands a moment after the agent's.
for _ in $(seq 100); do
  [ "$(wc -l < "$work/spans.jsonl" 2>/dev/null || echo 0)" -ge 12 ] && break
  sleep 0.1
done
"$python" "$root/scripts/trace-waterfall.py" "$work/spans.jsonl" "$work/trace.html"
mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --hide-scrollbars --window-size=1400,700 --screenshot="$out" "file://$work/trace.html" 2>/dev/null
echo "$out: $(wc -l < "$work/spans.jsonl") spans"
