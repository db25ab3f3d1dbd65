#!/usr/bin/env bash
# Soak: `pi-tool serve --http` under mixed concurrent load (slow, progress, panicking, hanging,
# cancelled calls, clients dropping mid-call) for a bounded time; prints calls, latency, lost
# and crossed answers, and the server's RSS and open descriptors. Not part of CI.
# Usage: scripts/soak.sh [SECONDS] [CLIENTS]   (default 600 s, 32 clients)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --locked -p pi-cli
cargo run --release -q --locked -p pi-bench --example soak -- \
  target/release/pi-tool "${1:-600}" "${2:-32}"
