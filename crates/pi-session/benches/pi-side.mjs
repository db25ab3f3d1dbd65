// Upstream Pi's side of the session benchmark (scripts/session-bench.sh): the same operations
// on the same files through Pi 0.80.6's own SessionManager, timed in-process like ours.
//   node pi-side.mjs PI_PACKAGE_DIR load FILE       open + buildSessionContext, each alone, best of 5
//   node pi-side.mjs PI_PACKAGE_DIR cold-load FILE  the first open in this process (cold-resume:
//                                                   open + buildSessionContext)
//   node pi-side.mjs PI_PACKAGE_DIR append DIR N    N entries like ours, appendMessage (no fsync)
//   node pi-side.mjs PI_PACKAGE_DIR list DIR        SessionManager.list over DIR, best of 5
// Prints one JSON line.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { mkdirSync, rmSync, statSync } from "node:fs";

const [packageDir, mode, target, count] = process.argv.slice(2);
const pi = await import(pathToFileURL(join(packageDir, "dist/index.js")).href);

function bestOf(runs, work) {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    best = Math.min(best, performance.now() - start);
  }
  return Math.round(best * 100) / 100;
}

async function bestOfAsync(runs, work) {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    best = Math.min(best, performance.now() - start);
  }
  return Math.round(best * 100) / 100;
}

if (mode === "cold-load" || mode === "cold-resume") {
  // The first open (and context) in this fresh process, as a person's resume runs it.
  const start = performance.now();
  const manager = pi.SessionManager.open(target);
  if (mode === "cold-resume") pi.buildSessionContext(manager.getEntries(), manager.getLeafId());
  const ms = Math.round((performance.now() - start) * 100) / 100;
  console.log(JSON.stringify({ figure: "cold", mode: mode.slice(5), ms }));
} else if (mode === "load") {
  let messages = 0;
  const ms = bestOf(5, () => {
    const manager = pi.SessionManager.open(target);
    messages = pi.buildSessionContext(manager.getEntries(), manager.getLeafId()).messages.length;
  });
  let entries = 0;
  const open_ms = bestOf(5, () => {
    entries = pi.SessionManager.open(target).getEntries().length;
  });
  const manager = pi.SessionManager.open(target);
  const context_ms = bestOf(5, () => {
    messages = pi.buildSessionContext(manager.getEntries(), manager.getLeafId()).messages.length;
  });
  console.log(JSON.stringify({ figure: "load", ms, open_ms, context_ms, messages, entries }));
} else if (mode === "append") {
  const entries = Number(count);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  // The same text as ours (benches/session.rs): code, with characters JSON escapes.
  const line = "    let path = workspace.join(\"notes.txt\");\n    for line in text.lines() {\n        // the longest line wins, as in the reader\n        count += line.len();\n    }\n";
  const text = line.repeat(Math.ceil(4900 / line.length)).slice(0, 4900);
  const usage = { input: 1200, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 1240,
    cost: { input: 0.0036, output: 0.0006, cacheRead: 0, cacheWrite: 0, total: 0.0042 } };
  let clock = 1796000000000;
  const start = performance.now();
  const manager = pi.SessionManager.create("/home/u/proj", target);
  for (let index = 0; index < entries; index++) {
    clock++;
    const call = `call_${Math.floor(index / 4)}`;
    const assistant = (content, stopReason) => ({ role: "assistant", content, api: "openai-completions",
      provider: "fake", model: "fake-model", usage, stopReason, timestamp: clock });
    switch (index % 4) {
      case 0: manager.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: clock }); break;
      case 1: manager.appendMessage(assistant([{ type: "text", text },
        { type: "toolCall", id: call, name: "read", arguments: { path: "notes.txt" } }], "toolUse")); break;
      case 2: manager.appendMessage({ role: "toolResult", toolCallId: call, toolName: "read",
        content: [{ type: "text", text }], isError: false, timestamp: clock }); break;
      default: manager.appendMessage(assistant([{ type: "text", text }], "stop"));
    }
  }
  const ms = Math.round((performance.now() - start) * 100) / 100;
  console.log(JSON.stringify({ figure: "append", ms, bytes: statSync(manager.getSessionFile()).size }));
  rmSync(target, { recursive: true, force: true });
} else if (mode === "list") {
  let sessions = 0;
  const ms = await bestOfAsync(5, async () => {
    sessions = (await pi.SessionManager.list("/home/u/proj", target)).length;
  });
  console.log(JSON.stringify({ figure: "list", ms, sessions }));
} else {
  console.error("usage: node pi-side.mjs PI_PACKAGE_DIR load FILE | append DIR N | list DIR");
  process.exit(2);
}
