#!/usr/bin/env python3
"""Writes a Pi session file of COUNT messages (user questions and 20-line answers, as
crates/pi-cli/tests/interactive_robustness.rs writes them) for the interactive benchmarks.

usage: long_session.py PATH CWD COUNT
"""
import json, sys
path, cwd, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
filler = "let value = compute(input); // a line of code\n" * 20
with open(path, "w") as out:
    out.write(json.dumps({"type": "session", "version": 3, "id": "long-session",
                          "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}) + "\n")
    parent = None
    for index in range(count):
        if index % 2 == 0:
            message = {"role": "user", "content": f"question {index}", "timestamp": 1}
        else:
            message = {"role": "assistant", "content": [{"type": "text", "text": f"answer {index}\n{filler}"}],
                       "api": "openai-completions", "provider": "local", "model": "local-model",
                       "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                                 "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                       "stopReason": "stop", "timestamp": 2}
        entry_id = f"{index:08x}"
        out.write(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                              "timestamp": "2026-01-01T00:00:00.000Z", "message": message}) + "\n")
        parent = entry_id
