#!/usr/bin/env python3
"""Reads `NAME {tty_ready.py's JSON}` lines on stdin; prints a markdown table of medians."""
import json
import statistics
import sys

rows = {}
for line in sys.stdin:
    name, _, data = line.partition(" ")
    rows.setdefault(name, []).append(json.loads(data))


def median(runs, key, digits):
    values = [run[key] for run in runs if run[key] is not None]
    return f"{statistics.median(values):.{digits}f}" if values else "never"


print("| program | footer drawn (s) | first key drawn (s) | peak RSS (MiB) |")
print("|---|---|---|---|")
for name, runs in rows.items():
    print(f"| {name} | {median(runs, 'marker_s', 3)} | {median(runs, 'ready_s', 3)} | {median(runs, 'peak_mib', 0)} |")
