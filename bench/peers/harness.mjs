// One JavaScript peer of the peer table (run.sh) on one workload, in the protocol every harness
// follows: check every call against the workload's `expect`, warm up, then REPS timed runs of at
// least REP_MS over all the calls; print one JSON line {peer, workload, ns_median, ns_best, calls}.
//
// usage: node harness.mjs ajv|typebox|pi-ai WORKLOAD.json [REPS] [REP_MS] [WARMUP_MS]
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import Ajv from "ajv";
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { validateToolArguments } from "@earendil-works/pi-ai";

const [peer, file, reps = "7", repMs = "150", warmupMs = "300"] = process.argv.slice(2);
const workload = JSON.parse(readFileSync(file, "utf8"));

// The JSON Schema of a workload as TypeBox types (TypeBox checks its own types, not raw JSON Schema).
function typebox(schema) {
  const { type } = schema;
  const options = {};
  for (const key of ["minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minItems", "maxItems", "description"]) {
    if (key in schema) options[key] = schema[key];
  }
  if (schema.enum) return Type.Union(schema.enum.map((value) => Type.Literal(value)), options);
  switch (type) {
    case "string": return Type.String(options);
    case "integer": return Type.Integer(options);
    case "number": return Type.Number(options);
    case "boolean": return Type.Boolean(options);
    case "array": return Type.Array(typebox(schema.items), options);
    case "object": {
      const required = new Set(schema.required ?? []);
      const properties = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        properties[name] = required.has(name) ? typebox(property) : Type.Optional(typebox(property));
      }
      return Type.Object(properties, options);
    }
    default: throw new Error(`no TypeBox type for ${JSON.stringify(schema)}`);
  }
}

// name -> (raw text) -> validated arguments, or throws.
function validators() {
  const out = new Map();
  for (const tool of workload.tools) {
    if (peer === "ajv") {
      const ajv = new Ajv({ removeAdditional: "all", allErrors: true });
      const check = ajv.compile(tool.parameters);
      out.set(tool.name, (raw) => {
        const args = JSON.parse(raw);
        if (!check(args)) throw new Error(ajv.errorsText(check.errors));
        return args;
      });
    } else if (peer === "typebox") {
      const schema = typebox(tool.parameters);
      const check = TypeCompiler.Compile(schema);
      out.set(tool.name, (raw) => {
        const args = Value.Clean(schema, JSON.parse(raw));
        if (!check.Check(args)) throw new Error([...check.Errors(args)].map((e) => e.message).join("; "));
        return args;
      });
    } else if (peer === "pi-ai") {
      const piTool = { name: tool.name, description: tool.description, parameters: tool.parameters };
      out.set(tool.name, (raw) => validateToolArguments(piTool, { type: "toolCall", id: "", name: tool.name, arguments: JSON.parse(raw) }));
    } else {
      throw new Error(`unknown peer ${peer}`);
    }
  }
  return out;
}

const tools = validators();

// The whole call: lookup, parse and validate, a trivial execute, the paired result message.
function execute(call) {
  const validate = tools.get(call.name);
  if (!validate) return failed(call, "未知工具");
  let args;
  try {
    args = validate(call.arguments);
  } catch (error) {
    return failed(call, error.message);
  }
  return {
    role: "toolResult", toolCallId: call.id, toolName: call.name,
    content: [{ type: "text", text: String(args[workload.execute_returns[call.name]]) }],
    isError: false, timestamp: Date.now(), args,
  };
}

function failed(call, reason) {
  return {
    role: "toolResult", toolCallId: call.id, toolName: call.name,
    content: [{ type: "text", text: `Tool ${call.name} failed: ${reason}` }],
    details: { error: reason }, isError: true, timestamp: Date.now(),
  };
}

// Correctness first. pi-ai keeps undeclared fields (it validates, it does not filter), so its
// arguments are not compared with the expected filtered ones.
for (const call of workload.calls) {
  const result = execute(call);
  const text = result.content[0].text;
  if (result.isError === call.expect.ok) throw new Error(`${call.id}: ${peer} answered ${text}`);
  if (call.expect.ok && text !== call.expect.text) throw new Error(`${call.id}: text ${text}`);
  if (call.expect.ok && peer !== "pi-ai" && !isDeepStrictEqual(result.args, call.expect.args)) {
    throw new Error(`${call.id}: arguments ${JSON.stringify(result.args)}`);
  }
}

function sample(ms) {
  const started = process.hrtime.bigint();
  const limit = BigInt(ms) * 1_000_000n;
  let calls = 0;
  let sink = 0;
  while (process.hrtime.bigint() - started < limit) {
    for (const call of workload.calls) sink += execute(call).timestamp & 1;
    calls += workload.calls.length;
  }
  globalThis.sink = sink;
  return Number(process.hrtime.bigint() - started) / calls;
}

sample(Number(warmupMs));
const times = Array.from({ length: Number(reps) }, () => sample(Number(repMs)));
const sorted = [...times].sort((a, b) => a - b);
console.log(JSON.stringify({
  peer, workload: workload.name, ns_median: sorted[Math.floor(sorted.length / 2)],
  ns_best: sorted[0], calls: workload.calls.length,
}));
