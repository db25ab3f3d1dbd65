"""Runs every contender on every workload in alternating rounds and prints the peer table.

Each round runs each contender once per workload (a fresh process: warm-up, then REPS timed
runs), in an order that rotates from round to round, pinned to one CPU. A contender's ratio is
taken round by round against the plain-serde baseline of the same round; the table shows the
median of those ratios and the ratio of the best repetitions seen.
"""

import json
import os
import statistics
import subprocess
import sys

rounds, reps, rep_ms = (int(x) for x in sys.argv[1:4])
workloads = sys.argv[4:]
rust, node, harness, python = (os.environ[k] for k in
                               ("PEER_RUST", "PEER_NODE", "PEER_NODE_HARNESS", "PEER_PYTHON"))
here = os.path.dirname(os.path.abspath(__file__))
warmup = str(max(2 * rep_ms, 300))

CONTENDERS = {
    "serde": [rust, "serde", "{w}", "--reps", str(reps), "--rep-ms", str(rep_ms), "--warmup-ms", warmup],
    "ours": [rust, "ours", "{w}", "--reps", str(reps), "--rep-ms", str(rep_ms), "--warmup-ms", warmup],
    "ours-dynamic": [rust, "ours-dynamic", "{w}", "--reps", str(reps), "--rep-ms", str(rep_ms), "--warmup-ms", warmup],
    "jsonschema": [rust, "jsonschema", "{w}", "--reps", str(reps), "--rep-ms", str(rep_ms), "--warmup-ms", warmup],
    "ajv": [node, harness, "ajv", "{w}", str(reps), str(rep_ms), warmup],
    "typebox": [node, harness, "typebox", "{w}", str(reps), str(rep_ms), warmup],
    "pi-ai": [node, harness, "pi-ai", "{w}", str(reps), str(rep_ms), warmup],
    "msgspec": [python, os.path.join(here, "harness.py"), "msgspec", "{w}", str(reps), str(rep_ms), warmup],
    "pydantic": [python, os.path.join(here, "harness.py"), "pydantic", "{w}", str(reps), str(rep_ms), warmup],
}
LABELS = {
    "serde": "plain serde (the baseline)",
    "ours": "pi-tool, typed (#[derive(ToolParams)])",
    "ours-dynamic": "pi-tool, dynamic (JSON Schema)",
    "jsonschema": "jsonschema crate (Value + validator + from_value)",
    "ajv": "AJV 8.20, removeAdditional + JSON.parse",
    "typebox": "TypeBox 0.34.52 TypeCompiler + Value.Clean",
    "pi-ai": "upstream Pi pi-ai 0.80.6 validateToolArguments",
    "msgspec": "msgspec Struct decode",
    "pydantic": "pydantic v2 model_validate_json",
}

cpu = ["taskset", "-c", "1"] if os.cpu_count() and os.cpu_count() > 1 else []
names = list(CONTENDERS)
results = {}  # (contender, workload) -> list of (median, best), one per round
for round_index in range(rounds):
    order = names[round_index % len(names):] + names[:round_index % len(names)]
    for workload in workloads:
        for name in order:
            command = cpu + [part.replace("{w}", workload) for part in CONTENDERS[name]]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{name} on {workload} failed:\n{done.stderr or done.stdout}")
            line = json.loads(done.stdout.strip().splitlines()[-1])
            results.setdefault((name, line["workload"]), []).append((line["ns_median"], line["ns_best"]))
    print(f"round {round_index + 1}/{rounds} done", file=sys.stderr)

workload_names = list(dict.fromkeys(w for (_, w) in results))
print(f"Per call, ratio to plain serde in the same round: median of {rounds} rounds "
      f"(best repetition against best repetition). Each run: {reps} x {rep_ms} ms, one CPU.\n")
print("| contender | " + " | ".join(workload_names) + " |")
print("|---|" + "---:|" * len(workload_names))
for name in names:
    cells = []
    for workload in workload_names:
        mine, base = results[(name, workload)], results[("serde", workload)]
        ratio = statistics.median(m[0] / b[0] for m, b in zip(mine, base))
        best = min(m[1] for m in mine) / min(b[1] for b in base)
        cells.append(f"{ratio:.2f}x ({best:.2f}x)")
    print(f"| {LABELS[name]} | " + " | ".join(cells) + " |")
print("\n| baseline ns/call | " + " | ".join(
    f"{statistics.median(m[0] for m in results[('serde', w)]):.0f}" for w in workload_names) + " |")
