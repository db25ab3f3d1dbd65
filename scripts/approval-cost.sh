#!/usr/bin/env bash
# What the approval gate adds to a call end to end (issue 24, item 10: under 5% of a `read`),
# in instructions per call (valgrind's callgrind: repeatable on a loaded machine). Each count
# is the difference between two runs (ROUNDS and 2 x ROUNDS), so set-up cancels out.
# Usage: scripts/approval-cost.sh [ROUNDS]   (not part of CI)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
rounds="${1:-50}"
cargo build --release -q -p pi-approval --example gate_cost
bin=target/release/examples/gate_cost
instructions() { # call how rounds
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | head -1
}
per_call() { # call how
  local once twice
  once=$(instructions "$1" "$2" "$rounds")
  twice=$(instructions "$1" "$2" $((2 * rounds)))
  echo $(( (twice - once) / rounds ))
}
printf '| call, end to end | without the gate | with the gate (`ask`, 1,000 rules) | added | the decision alone |\n'
printf '|---|---:|---:|---:|---:|\n'
for call in read bash; do
  none=$(per_call "$call" none)
  gate=$(per_call "$call" gate)
  decide=$(per_call "$call" decide)
  printf '| `%s` | %d | %d | %+.1f%% | %d |\n' "$call" "$none" "$gate" \
    "$(echo "100 * ($gate - $none) / $none" | bc -l)" "$decide"
done
