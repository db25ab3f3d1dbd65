"""The table of bench/peers/loop.sh: one JSON line per loop and round in, medians out."""

import json
import statistics
import sys

rows = {}
for line in sys.stdin:
    row = json.loads(line)
    rows.setdefault(row["loop"], []).append(row)
print("| loop | around it | turns/s | events/s | events per run | allocations per turn | bytes per turn |")
print("|---|---|---:|---:|---:|---:|---:|")
medians = {}
for name, seen in rows.items():
    turns = statistics.median(r["turns_per_s"] for r in seen)
    events = statistics.median(r["events_per_s"] for r in seen)
    medians[name] = turns
    first = seen[0]
    alloc = "n/a" if first["allocations_per_turn"] is None else f"{first['allocations_per_turn']:.0f}"
    size = "n/a" if first["bytes_per_turn"] is None else f"{first['bytes_per_turn']:.0f}"
    print(f"| {name} | {first.get('parts', '')} | {turns:,.0f} | {events:,.0f} | {first['events_per_run']} | {alloc} | {size} |")
names = list(medians)
if len(names) == 2:
    print(f"\n{names[0]}: {medians[names[0]] / medians[names[1]]:.1f}x the turns per second of "
          f"{names[1]} (medians of {len(rows[names[0]])} rounds)")
