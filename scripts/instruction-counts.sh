#!/usr/bin/env bash
# Instructions per call (valgrind's callgrind: exact, free of timing noise) on the two paths
# users' calls take, each against its floor measured in the same run, on every shipped
# workload; prints one Markdown table with every figure, its goal and whether it is met
# (issue 39, item 3). Each count is the difference between two runs (ROUNDS and 2 x ROUNDS),
# so set-up and verification cancel out.
# Usage: scripts/instruction-counts.sh [ROUNDS]   (not part of CI; BIN=... measures another build)
#
# The contenders (crates/pi-bench/examples/user_paths.rs says exactly what each runs):
#   loop, loop-dynamic  the agent loop's call, from the streamed argument text to the paired
#                       result: typed (#[derive(ToolParams)]) and JSON-Schema tools;
#   loop-floor          the text assembled, serde_json::from_str into plain structs, bounds in
#                       code, the call contract: the loop's floor;
#   mcp, mcp-dynamic    the MCP server's call, from the object rmcp hands tools/call to the
#                       CallToolResult;
#   mcp-floor           serde_json::from_value into plain structs, bounds, the contract, the
#                       same conversion: the MCP server's floor;
#   jsonschema          the jsonschema crate (text in, every violation out), a peer of
#                       loop-dynamic.
# Then one turn of the agent loop (crates/pi-bench/examples/loop_cost.rs, the loop alone: a
# scripted response of two tool calls streamed in 4-character fragments, both calls run, every
# event consumed), against a ceiling that makes a regression show (issue 45).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
command -v bc >/dev/null || { echo "needs bc (apt install bc)" >&2; exit 1; }
rounds="${1:-400}"
if [ -z "${BIN:-}" ]; then
  cargo build --release -q -p pi-bench --example user_paths --example loop_cost
  BIN="${CARGO_TARGET_DIR:-target}/release/examples/user_paths"
fi
LOOP_BIN="${LOOP_BIN:-$(dirname "$BIN")/loop_cost}"
instructions() { # contender workload subset rounds
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" "$3" "$4" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p; s/.*refs: *\([0-9,]*\).*/\1/p' | tr -d , | head -1
}
calls() { "$BIN" "$1" "$2" "$3" 1 | sed -n 's/^calls //p'; } # contender workload subset
declare -A measured
measure() { # contender workload subset: once per run, so a floor shared by two goals is the
  # same number in both rows (counts move by a few percent between runs: the hash keys of
  # serde_json's maps are random)
  local key="$1 $2 $3" once twice n
  if [ -z "${measured[$key]:-}" ]; then
    once=$(instructions "$1" "$2" "$3" "$rounds")
    twice=$(instructions "$1" "$2" "$3" $((2 * rounds)))
    n=$(calls "$1" "$2" "$3")
    measured[$key]=$(( (twice - once) / (rounds * n) ))
  fi
}
# goal_row WHAT CONTENDER FLOOR MAX WORKLOAD SUBSET: ratio CONTENDER / FLOOR must be <= MAX
# ("< 1" for "ahead of": strictly below).
goal_row() {
  local what="$1" contender="$2" floor="$3" max="$4" file="$5" subset="$6"
  local ours base ratio verdict label
  measure "$contender" "$file" "$subset"
  measure "$floor" "$file" "$subset"
  ours=${measured["$contender $file $subset"]}
  base=${measured["$floor $file $subset"]}
  ratio=$(echo "scale=4; $ours / $base" | bc -l)
  if [ "$max" = "< 1" ]; then
    verdict=$([ "$(echo "$ratio < 1" | bc -l)" = 1 ] && echo met || echo MISSED)
  else
    verdict=$([ "$(echo "$ratio <= $max" | bc -l)" = 1 ] && echo met || echo MISSED)
  fi
  label="$(basename "$file" .json)"
  [ "$subset" = all ] || label="$label, $(calls "$contender" "$file" "$subset") $subset calls"
  printf '| %s | %s | %s | %s | %s | %s | %.3fx | %s | %s |\n' "$what" "$label" "$contender" \
    "$ours" "$floor" "$base" "$ratio" \
    "$([ "$max" = "< 1" ] && echo "< 1.00x" || echo "≤ ${max}x")" "$verdict"
}
w1=bench/workloads/w1_echo.json w2=bench/workloads/w2_coding_tools.json w3=bench/workloads/w3_wide_nested.json
echo "| goal | workload | figure | instructions per call | floor | floor's instructions | ratio | goal | verdict |"
echo "|---|---|---|---:|---|---:|---:|---|---|"
for path in loop mcp; do
  for spec in "$w1 all" "$w2 valid" "$w3 all"; do
    goal_row "$path typed" "$path" "$path-floor" 1.10 $spec
  done
  goal_row "$path refused" "$path" "$path-floor" 1.5 "$w2" invalid
  for spec in "$w1 all" "$w2 valid" "$w3 all"; do
    goal_row "$path dynamic" "$path-dynamic" "$path-floor" 1.15 $spec
  done
done
for spec in "$w1 all" "$w2 valid" "$w2 invalid" "$w3 all"; do
  goal_row "dynamic vs jsonschema-rs" loop-dynamic jsonschema "< 1" $spec
done

# One turn: loop_cost runs RUNS runs after RUNS/10 + 1 warm-up runs, each of 11 turns; two
# counts (RUNS = 20 and 40) differ by 22 runs.
turn_count() { # RUNS
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$LOOP_BIN" 10 "$1" loop 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p; s/.*refs: *\([0-9,]*\).*/\1/p' | tr -d , | head -1
}
turn=$(( ($(turn_count 40) - $(turn_count 20)) / (22 * 11) ))
ceiling=150000
echo
echo "| figure | instructions per turn | ceiling | verdict |"
echo "|---|---:|---:|---|"
printf '| the agent loop, one turn of two calls | %s | %s | %s |\n' "$turn" "$ceiling" \
  "$([ "$turn" -le "$ceiling" ] && echo met || echo MISSED)"
