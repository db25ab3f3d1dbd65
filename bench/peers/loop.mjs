// Upstream Pi's agent loop (@earendil-works/pi-agent-core's agentLoop) with pi-ai's faux
// provider on the script of crates/pi-bench/examples/loop_cost.rs: TURNS turns in which the
// model calls `echo` and `uppercase` once each (arguments streamed in 4-char fragments: the
// faux's token size 1 is 4 characters), then a final answer; trivial tools; every event
// consumed. PARTS `loop`: the loop alone; `memory`: each message appended to Pi's
// SessionManager in memory as its session does on message_end; `recorded`: the same to a
// session file. Upstream has no approval gate. Prints one JSON line like loop_cost.
//
// usage: node loop.mjs [TURNS] [RUNS] [loop|memory|recorded]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentLoop } from "@earendil-works/pi-agent-core";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";

const turns = Number(process.argv[2] ?? 10);
const runs = Number(process.argv[3] ?? 200);
const parts = process.argv[4] ?? "loop";
if (!["loop", "memory", "recorded"].includes(parts)) throw new Error(`PARTS is loop, memory or recorded, not ${parts}`);
const scratch = mkdtempSync(join(tmpdir(), "pi-loop-"));

const parameters = {
  type: "object", properties: { value: { type: "string" } }, required: ["value"], additionalProperties: false,
};
const tools = [
  { name: "echo", label: "echo", description: "Echo one value", parameters,
    execute: async (_id, params) => ({ content: [{ type: "text", text: params.value }], details: { source: "echo" } }) },
  { name: "uppercase", label: "uppercase", description: "Return one value in upper case", parameters,
    execute: async (_id, params) => ({ content: [{ type: "text", text: params.value.toUpperCase() }], details: { source: "uppercase" } }) },
];

function script() {
  const responses = [];
  for (let turn = 0; turn < turns; turn++) {
    responses.push(fauxAssistantMessage([
      fauxToolCall("echo", { value: "Pi" }, { id: `call-${turn}-a` }),
      fauxToolCall("uppercase", { value: "pi" }, { id: `call-${turn}-b` }),
    ], { stopReason: "toolUse" }));
  }
  responses.push(fauxAssistantMessage([fauxText("echo said Pi and uppercase said PI.")]));
  return responses;
}

async function oneRun() {
  const faux = createFauxCore({ tokenSize: { min: 1, max: 1 } });
  faux.setResponses(script());
  const session = parts === "recorded"
    ? SessionManager.create(scratch, join(scratch, "sessions"))
    : parts === "memory" ? SessionManager.inMemory(scratch) : null;
  const started = process.hrtime.bigint();
  const context = { systemPrompt: "", messages: [], tools };
  const config = { model: faux.getModel(), convertToLlm: (messages) => messages };
  const prompt = { role: "user", content: [{ type: "text", text: "go" }], timestamp: Date.now() };
  let events = 0;
  let results = 0;
  for await (const event of agentLoop([prompt], context, config, undefined, faux.streamSimple)) {
    events++;
    if (session && event.type === "message_end") session.appendMessage(event.message);
    if (event.type === "tool_execution_end") {
      if (event.isError) throw new Error(`tool failed: ${JSON.stringify(event.result)}`);
      results++;
    }
  }
  if (results !== 2 * turns) throw new Error(`${results} tool results for ${turns} turns`);
  return [events, Number(process.hrtime.bigint() - started) / 1e9];
}

for (let i = 0; i < runs / 10 + 1; i++) await oneRun();
let events = 0;
let seconds = 0;
for (let i = 0; i < runs; i++) {
  const [count, took] = await oneRun();
  events += count;
  seconds += took;
}
const allTurns = (turns + 1) * runs;
console.log(JSON.stringify({
  loop: "pi-agent-core agentLoop (TypeScript)",
  parts: { loop: "the loop alone", memory: "SessionManager in memory", recorded: "SessionManager, session file" }[parts],
  turns_per_s: allTurns / seconds, events_per_s: events / seconds,
  events_per_run: Math.round(events / runs), allocations_per_turn: null, bytes_per_turn: null,
}));
