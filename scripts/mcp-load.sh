#!/usr/bin/env bash
# MCP load benchmark: our server against the official Python SDK's, same client, same run.
# Usage: scripts/mcp-load.sh [CLIENTS] [SECONDS]   (not part of CI)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-python-peers.sh
cargo run --release -q -p pi-mcp --example load -- \
  .venv/bin/python crates/pi-mcp/tests/peers/python_server.py "${1:-32}" "${2:-5}"
