#!/usr/bin/env bash
# Instructions per call (valgrind's callgrind: exact, free of timing noise) of our typed and
# dynamic paths, each against its own floor measured in the same run, on every shipped workload;
# prints one Markdown table with every figure, its goal and whether it is met (issue 23, item 7).
# Each count is the difference between two runs (ROUNDS and 2 x ROUNDS), so set-up and
# verification cancel out. Usage: scripts/instruction-counts.sh [ROUNDS]   (not part of CI)
#
# The contenders (crates/pi-bench/examples/call_loop.rs):
#   ours        the typed path (#[derive(ToolParams)]) from the raw argument text, as the
#               coding tools take it: execute_raw_tool_call;
#   dynamic     the same path with JSON-Schema (DynamicSchema) tools;
#   contract    "serde + contract": serde_json::from_str into plain serde structs, bounds checked
#               in code, carrying the tool contract (call id, boxed future, panics contained):
#               the floor of the typed path;
#   value       only serde_json::from_str into a serde_json::Value: the floor of any layer that
#               hands its tools JSON values, as dynamic tools must (rmcp's tools/call does);
#   jsonschema  the jsonschema crate: parse into a Value, validate, collect every violation.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
command -v bc >/dev/null || { echo "needs bc (apt install bc)" >&2; exit 1; }
rounds="${1:-400}"
cargo build --release -q -p pi-bench --example call_loop
bin=target/release/examples/call_loop
instructions() { # contender workload subset rounds
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" "$4" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p; s/.*refs: *\([0-9,]*\).*/\1/p' | tr -d , | head -1
}
calls() { "$bin" contract "$1" "$2" 1 | sed -n 's/^calls //p'; }
declare -A measured
measure() { # contender workload subset: sets measured[...] once per run, so a figure that is the
  # floor of two goals is the same number in both rows (counts move by ~3% between runs: the
  # hash keys of serde_json's maps are random)
  local key="$1 $2 $3" once twice n
  if [ -z "${measured[$key]:-}" ]; then
    once=$(instructions "$1" "$2" "$3" "$rounds")
    twice=$(instructions "$1" "$2" "$3" $((2 * rounds)))
    n=$(calls "$2" "$3")
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
  [ "$subset" = all ] || label="$label, $(calls "$file" "$subset") $subset calls"
  printf '| %s | %s | %s | %s | %s | %s | %.3fx | %s | %s |\n' "$what" "$label" "$contender" \
    "$ours" "$floor" "$base" "$ratio" \
    "$([ "$max" = "< 1" ] && echo "< 1.00x" || echo "≤ ${max}x")" "$verdict"
}
w1=bench/workloads/w1_echo.json w2=bench/workloads/w2_coding_tools.json w3=bench/workloads/w3_wide_nested.json
echo "| goal | workload | figure | instructions per call | floor | floor's instructions | ratio | goal | verdict |"
echo "|---|---|---|---:|---|---:|---:|---|---|"
for spec in "$w1 all" "$w2 valid" "$w3 all"; do
  goal_row typed ours contract 1.10 $spec
done
goal_row "invalid calls" ours contract 1.5 "$w2" invalid
for spec in "$w1 all" "$w2 valid" "$w3 all"; do
  goal_row dynamic dynamic value 1.15 $spec
done
for spec in "$w1 all" "$w2 valid" "$w2 invalid" "$w3 all"; do
  goal_row "dynamic vs jsonschema-rs" dynamic jsonschema "< 1" $spec
done
