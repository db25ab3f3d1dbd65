#!/usr/bin/env bash
# Installs the real peer programs the tests talk to (the official MCP Python SDK) into
# .venv/ inside the repository. Idempotent: does nothing when they are already there.
set -euo pipefail
cd "$(dirname "$0")/.."
MCP_VERSION="2.3.0"
if [ -x .venv/bin/python ] && .venv/bin/python -c "import mcp, sys; sys.exit(0 if __import__('importlib.metadata').metadata.version('mcp') == '$MCP_VERSION' else 1)" 2>/dev/null; then
  exit 0
fi
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
