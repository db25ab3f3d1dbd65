#!/usr/bin/env bash
# Regenerates tests/interop/golden/: runs the live interop tests (tests/pi_interop.rs) against
# upstream Pi 0.80.6 with PI_INTEROP_BLESS=1, which keeps the session files both programs wrote
# and continued and, beside each, the context Pi's own SessionManager built for it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../../.." && pwd)"
cd "$root"
scripts/setup-pi.sh >/dev/null
PI_INTEROP_BLESS=1 cargo test -p pi-cli --test pi_interop -- --ignored
cargo test -p pi-cli --test pi_interop
