#!/usr/bin/env bash
# Peak memory of `pi-tool agent` (release build) against hostile model streams from a fake
# OpenAI-compatible server on 127.0.0.1: an endless text stream, 30 tool calls of 15 MiB
# arguments, a stream of keep-alive comments only, a token trickling forever. Prints a Markdown
# table (peak RSS from wait4, time, how the run ended). Every server loop stops by itself
# (at most 120 s or 8 GiB per scenario). Also issue 42's rows: 200,000 calls in one response,
# a blocking read under --tool-timeout, `session tree` of a deep session and of one with a
# 1 GiB line, `grep` of a 1 GiB one-line file (writes 1 GiB to the temporary directory).
# Needs python3; about a minute. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pi-cli --bin pi-tool
python3 scripts/memory-bounds.py "${CARGO_TARGET_DIR:-target}/release/pi-tool"
