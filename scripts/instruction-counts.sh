#!/usr/bin/env bash
# Instructions per call (valgrind's callgrind: exact, free of timing noise) of our path and of
# the plain-serde layer, bare and with the tool contract, on every shipped workload.
# Each count is the difference between two runs (ROUNDS and 2 x ROUNDS), so set-up and
# verification cancel out. Usage: scripts/instruction-counts.sh [ROUNDS]   (not part of CI)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
rounds="${1:-400}"
cargo build --release -q -p pi-bench --example call_loop
bin=target/release/examples/call_loop
instructions() { # contender workload subset rounds
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" "$4" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p; s/.*refs: *\([0-9,]*\).*/\1/p' | tr -d , | head -1
}
calls() { "$bin" bare "$1" "$2" 1 | sed -n 's/^calls //p'; }
per_call() { # contender workload subset
  local once twice n
  once=$(instructions "$1" "$2" "$3" "$rounds")
  twice=$(instructions "$1" "$2" "$3" $((2 * rounds)))
  n=$(calls "$2" "$3")
  echo $(( (twice - once) / (rounds * n) ))
}
# `value` only parses the text into a serde_json::Value: the floor of any layer whose tools
# take JSON values (dynamic schemas do), whatever it checks.
printf '%-16s %-8s %10s %10s %10s %9s %9s %10s %9s %10s %9s\n' workload subset ours serde +contract "ours/serde" "/contract" dynamic "dyn/serde" value "val/serde"
for file in bench/workloads/w*.json; do
  name=$(basename "$file" .json)
  for subset in all valid invalid; do
    n=$(calls "$file" "$subset")
    [ "$n" -gt 0 ] || continue
    [ "$subset" != all ] && [ "$n" -eq "$(calls "$file" all)" ] && continue
    ours=$(per_call ours "$file" "$subset")
    bare=$(per_call bare "$file" "$subset")
    contract=$(per_call contract "$file" "$subset")
    dynamic=$(per_call dynamic "$file" "$subset")
    value=$(per_call value "$file" "$subset")
    printf '%-16s %-8s %10d %10d %10d %8.2fx %8.2fx %10d %8.2fx %10d %8.2fx\n' "$name" "$subset" "$ours" "$bare" "$contract" \
      "$(echo "$ours / $bare" | bc -l)" "$(echo "$ours / $contract" | bc -l)" "$dynamic" "$(echo "$dynamic / $bare" | bc -l)" \
      "$value" "$(echo "$value / $bare" | bc -l)"
  done
done
