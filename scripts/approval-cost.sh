#!/usr/bin/env bash
# What the approval gate adds to a call end to end (issue 24, item 10: under 5% of a `read`),
# in instructions per call (valgrind's callgrind: repeatable on a loaded machine). Each count
# is the difference between two runs (ROUNDS and 2 x ROUNDS), so set-up cancels out. Tokio's
# timer and blocking threads move one count by a few thousand instructions from run to run,
# so each figure is the median of REPEATS such differences (their range is printed too).
# Usage: scripts/approval-cost.sh [ROUNDS] [REPEATS]   (not part of CI)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
rounds="${1:-50}"
repeats="${2:-7}"
cargo build --release -q -p pi-approval --example gate_cost
bin=target/release/examples/gate_cost
instructions() { # call how rounds
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" 2>&1 |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | head -1
}
once_per_call() { # call how
  local once twice
  once=$(instructions "$1" "$2" "$rounds")
  twice=$(instructions "$1" "$2" $((2 * rounds)))
  echo $(( (twice - once) / rounds ))
}
declare -A spread
median=0
per_call() { # call how: sets median to the median of REPEATS differences, spread[] to their range
  local sorted
  sorted=$(for _ in $(seq "$repeats"); do once_per_call "$1" "$2"; done | sort -n)
  spread["$1 $2"]="$(head -1 <<<"$sorted")..$(tail -1 <<<"$sorted")"
  median=$(sed -n "$(( (repeats + 1) / 2 ))p" <<<"$sorted")
}
printf '| call, end to end | without the gate | with the gate (`ask`, 1,000 rules) | added | the decision alone |\n'
printf '|---|---:|---:|---:|---:|\n'
ranges=""
for call in read bash; do
  per_call "$call" none; none=$median
  per_call "$call" gate; gate=$median
  per_call "$call" decide; decide=$median
  printf '| `%s` | %d | %d | %+.1f%% | %d |\n' "$call" "$none" "$gate" \
    "$(echo "100 * ($gate - $none) / $none" | bc -l)" "$decide"
  ranges="$ranges\`$call\`: without ${spread[$call none]}, with ${spread[$call gate]}, decision ${spread[$call decide]}; "
done
printf '\nMedians of %d differences; their ranges: %s\n' "$repeats" "${ranges%; }"
