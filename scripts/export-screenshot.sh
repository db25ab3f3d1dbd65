#!/usr/bin/env bash
# Takes docs/export.png: a session file (default: Pi 0.80.6's own fixture with every entry type)
# exported by `pi-tool session export` and photographed by headless Chromium.
# usage: scripts/export-screenshot.sh [SESSION.jsonl] [OUT.png]
# Needs: a built pi-tool (PI_TOOL, default target/debug/pi-tool) and chromium.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pi_tool="${PI_TOOL:-$root/target/debug/pi-tool}"
session="${1:-$root/crates/pi-session/tests/pi/all-types.jsonl}"
out="${2:-$root/docs/export.png}"
[ -x "$pi_tool" ] || { echo "export-screenshot.sh: build pi-tool first (cargo build -p pi-cli)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "export-screenshot.sh: apt-get install -y chromium" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$pi_tool" session export "$session" -o "$work/page.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1100 \
  --screenshot="$out" "file://$work/page.html" 2>/dev/null
echo "export-screenshot.sh: $out"
