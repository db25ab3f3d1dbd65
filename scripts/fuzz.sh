#!/usr/bin/env bash
# Fuzzing (not part of CI): installs cargo-fuzz if needed, seeds each target's corpus from the
# repository's fixtures, and runs every target for SECONDS (default 60) with the nightly
# toolchain. A crash stops with its input in fuzz/artifacts/TARGET/; make it a regression test.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(stream_assembly transcript provider_stream mcp_messages session_file)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
seed() {
  local target="$1"; shift
  mkdir -p "fuzz/corpus/$target"
  for file in "$@"; do
    [ -f "$file" ] && cp "$file" "fuzz/corpus/$target/$(basename "$file")" || true
  done
}
seed transcript crates/pi-tool/tests/fixtures/seed/*.json examples/faux/*.json
seed stream_assembly crates/pi-providers/tests/fixtures/*.sse
# session_file: Pi's own session files, without their header (the first byte 0 puts ours).
mkdir -p fuzz/corpus/session_file
for file in crates/pi-session/tests/pi/*.jsonl; do
  { printf "\\x00"; tail -n +2 "$file"; } > "fuzz/corpus/session_file/$(basename "$file")"
done
# provider_stream: the first byte picks the wire (0 chat, 1 responses, 2 anthropic, 3 gemini).
mkdir -p fuzz/corpus/provider_stream
for pair in 0:openai 1:openai_responses 2:anthropic 3:gemini; do
  wire="${pair%%:*}"; prefix="${pair#*:}"
  for file in crates/pi-providers/tests/fixtures/"$prefix"_*.sse; do
    case "$prefix:$(basename "$file")" in openai:openai_responses_*) continue ;; esac
    { printf "\\x0$wire"; cat "$file"; } > "fuzz/corpus/provider_stream/$(basename "$file")"
  done
done
# mcp_messages: requests a client sends after the handshake, one per line.
mkdir -p fuzz/corpus/mcp_messages
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"Pi"}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"steps":2},"_meta":{"progressToken":"p"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}' \
  > fuzz/corpus/mcp_messages/calls
for target in "${TARGETS[@]}"; do
  echo "== $target (${SECONDS_EACH}s)"
  (cd fuzz && cargo +nightly fuzz run "$target" -- -max_total_time="$SECONDS_EACH" -print_final_stats=1 2>&1 \
    | grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY|Done" || true)
done
