// Drives an RPC-mode agent through Pi's own RpcClient and prints, as one JSON object, what
// each step gave: the events of a prompt with a tool call, the responses of the state and
// session commands, and the errors of a malformed and an unknown command.
// Usage: node rpc-client-session.mjs <pi-coding-agent package dir> <cliPath> <cwd>
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [packageDir, cliPath, cwd] = process.argv.slice(2);
const { RpcClient } = await import(
  pathToFileURL(join(packageDir, "dist/modes/rpc/rpc-client.js")).href
);

const client = new RpcClient({ cliPath, cwd, args: ["--no-context-files"] });
const result = {};
await client.start();
try {
  const events = await client.promptAndWait("Read notes.txt", undefined, 30000);
  result.eventTypes = events.map((event) => event.type);
  result.toolEnd = events.find((event) => event.type === "tool_execution_end");
  result.state = await client.getState();
  result.messages = (await client.getMessages()).length;
  result.stats = await client.getSessionStats();
  result.lastText = await client.getLastAssistantText();
  await client.setSessionName("rpc check");
  result.name = (await client.getState()).sessionName;
  result.tree = await client.getTree();
  result.entries = await client.getEntries();
  result.exported = await client.exportHtml(join(cwd, "session.html"));
  result.models = (await client.getAvailableModels()).map((model) => `${model.provider}/${model.id}`);
  try {
    await client.setModel("nope", "nothing");
    result.badModel = "accepted";
  } catch (error) {
    result.badModel = String(error.message ?? error);
  }
  await client.setSteeringMode("one-at-a-time");
  result.steeringMode = (await client.getState()).steeringMode;
  // Another model, then back by cycling; a thinking level a model without reasoning clamps.
  result.setModel = (await client.setModel("local", "other-model")).id;
  result.modelAfterSet = (await client.getState()).model.id;
  result.cycled = (await client.cycleModel())?.model?.id ?? null;
  await client.setThinkingLevel("high");
  result.thinkingAfterSet = (await client.getState()).thinkingLevel;
  // Sessions: the first file, a new one, back to the first, a fork and a clone.
  const first = (await client.getState()).sessionFile;
  await client.newSession();
  result.newSessionMessages = (await client.getMessages()).length;
  result.newSessionFile = (await client.getState()).sessionFile !== first;
  await client.switchSession(first);
  result.switchedMessages = (await client.getMessages()).length;
  const forkable = await client.getForkMessages();
  result.forkable = forkable.map((message) => message.text);
  result.fork = await client.fork(forkable[0].entryId);
  result.forkMessages = (await client.getMessages()).length;
  result.forkFile = (await client.getState()).sessionFile !== first;
  result.steeringModeAfterRestarts = (await client.getState()).steeringMode;
  // `send` hands back the response itself, failed or not.
  const unknown = await client.send({ type: "frobnicate" });
  result.unknown = unknown.success ? "accepted" : unknown.error;
} finally {
  await client.stop();
}
console.log(JSON.stringify(result));
