"""One Python peer of the peer table (run.sh) on one workload, in the protocol every harness
follows: check every call against the workload's `expect`, warm up, then REPS timed runs of at
least REP_MS over all the calls; print one JSON line {peer, workload, ns_median, ns_best, calls}.

usage: python harness.py msgspec|pydantic WORKLOAD.json [REPS] [REP_MS] [WARMUP_MS]
"""

import json
import statistics
import sys
import time
from typing import Annotated, Literal, Optional

import msgspec
import pydantic

peer, path = sys.argv[1], sys.argv[2]
reps, rep_ms, warmup_ms = (int(x) for x in (sys.argv[3:] + ["7", "150", "300"][len(sys.argv) - 3 :])[:3])
workload = json.load(open(path, encoding="utf-8"))

BOUNDS = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt",
          "minLength": "min_length", "maxLength": "max_length", "pattern": "pattern",
          "minItems": "min_length", "maxItems": "max_length"}


def constraints(schema):
    return {BOUNDS[key]: value for key, value in schema.items() if key in BOUNDS}


def msgspec_type(schema, name):
    """The JSON Schema of a workload as msgspec types: Structs that ignore undeclared fields."""
    meta = constraints(schema)
    if "enum" in schema:
        base = Literal[tuple(schema["enum"])]
    elif schema.get("type") == "object":
        required = set(schema.get("required", []))
        fields = []
        for field, sub in schema.get("properties", {}).items():
            kind = msgspec_type(sub, name + "_" + field)
            fields.append((field, kind) if field in required else (field, kind, msgspec.UNSET))
        base = msgspec.defstruct(name, fields, kw_only=True)
    elif schema.get("type") == "array":
        base = list[msgspec_type(schema["items"], name + "_item")]
    else:
        base = {"string": str, "integer": int, "number": float, "boolean": bool}[schema["type"]]
    return Annotated[base, msgspec.Meta(**meta)] if meta else base


def pydantic_type(schema, name):
    """The JSON Schema of a workload as pydantic v2 models (undeclared fields ignored)."""
    meta = constraints(schema)
    if "enum" in schema:
        base = Literal[tuple(schema["enum"])]
    elif schema.get("type") == "object":
        required = set(schema.get("required", []))
        fields = {}
        for field, sub in schema.get("properties", {}).items():
            kind = pydantic_type(sub, name + "_" + field)
            fields[field] = (kind, ...) if field in required else (Optional[kind], None)
        base = pydantic.create_model(name, **fields)
    elif schema.get("type") == "array":
        base = list[pydantic_type(schema["items"], name + "_item")]
    else:
        base = {"string": pydantic.StrictStr, "integer": pydantic.StrictInt,
                "number": pydantic.StrictFloat, "boolean": pydantic.StrictBool}[schema["type"]]
        if schema["type"] == "number":
            base = pydantic.StrictFloat | pydantic.StrictInt
    return Annotated[base, pydantic.Field(**meta)] if meta else base


def validators():
    out = {}
    for tool in workload["tools"]:
        if peer == "msgspec":
            decoder = msgspec.json.Decoder(msgspec_type(tool["parameters"], tool["name"]))
            out[tool["name"]] = (decoder.decode, msgspec.to_builtins)
        elif peer == "pydantic":
            model = pydantic_type(tool["parameters"], tool["name"])
            out[tool["name"]] = (model.model_validate_json,
                                 lambda m: m.model_dump(exclude_unset=True))
        else:
            raise SystemExit(f"unknown peer {peer}")
    return out


tools = validators()
returns = workload["execute_returns"]


def execute(call):
    """The whole call: lookup, parse and validate, a trivial execute, the paired result."""
    found = tools.get(call["name"])
    if found is None:
        return failed(call, "未知工具"), None
    try:
        params = found[0](call["arguments"])
    except (msgspec.ValidationError, msgspec.DecodeError, pydantic.ValidationError) as error:
        return failed(call, str(error)), None
    text = getattr(params, returns[call["name"]])
    return {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
            "content": [{"type": "text", "text": str(text)}], "isError": False,
            "timestamp": int(time.time() * 1000)}, params


def failed(call, reason):
    return {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"],
            "content": [{"type": "text", "text": f"Tool {call['name']} failed: {reason}"}],
            "details": {"error": reason}, "isError": True, "timestamp": int(time.time() * 1000)}


for call in workload["calls"]:
    result, params = execute(call)
    text = result["content"][0]["text"]
    expect = call["expect"]
    if result["isError"] == expect["ok"]:
        raise SystemExit(f"{call['id']}: {peer} answered {text}")
    if expect["ok"]:
        if text != expect["text"]:
            raise SystemExit(f"{call['id']}: text {text}")
        args = tools[call["name"]][1](params)
        if args != expect["args"]:
            raise SystemExit(f"{call['id']}: arguments {args}")


def sample(ms):
    calls = workload["calls"]
    started = time.perf_counter_ns()
    limit = ms * 1_000_000
    count = 0
    while time.perf_counter_ns() - started < limit:
        for call in calls:
            execute(call)
        count += len(calls)
    return (time.perf_counter_ns() - started) / count


sample(warmup_ms)
times = [sample(rep_ms) for _ in range(reps)]
print(json.dumps({"peer": peer, "workload": workload["name"], "ns_median": statistics.median(times),
                  "ns_best": min(times), "calls": len(workload["calls"])}))
