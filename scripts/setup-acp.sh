#!/usr/bin/env bash
# Installs the official Agent Client Protocol TypeScript SDK (@agentclientprotocol/sdk) into
# .peers/acp inside the clone (ACP_PEER_DIR moves it), for the tests that drive `pi-tool acp`
# with a real ACP client (crates/pi-cli/tests/acp_clients.rs). The Node that runs it is the one
# scripts/setup-pi.sh installs. Idempotent: a second run with everything in place does nothing.
# Prints the prefix on success.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peer="${ACP_PEER_DIR:-$root/.peers/acp}"
sdk_version=2.4.0
package="$peer/node_modules/@agentclientprotocol/sdk/package.json"

installed() {
  [ -f "$package" ] && grep -q "\"version\": \"$sdk_version\"" "$package"
}

if ! installed; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup-acp.sh: npm is needed to install @agentclientprotocol/sdk $sdk_version (apt-get install npm)" >&2
    exit 1
  fi
  mkdir -p "$peer"
  [ -f "$peer/package.json" ] || echo '{"private": true, "type": "module"}' > "$peer/package.json"
  if ! (cd "$peer" && npm install --no-audit --no-fund --silent --save-exact \
      "@agentclientprotocol/sdk@$sdk_version"); then
    echo "setup-acp.sh: npm could not install @agentclientprotocol/sdk $sdk_version into $peer" >&2
    exit 1
  fi
  if ! installed; then
    echo "setup-acp.sh: after npm install, $package is missing or not version $sdk_version" >&2
    exit 1
  fi
fi
echo "$peer"
