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
  result.models = (await client.getAvailableModels()).map((model) => `${model.provider}/${model.id}`);
  try {
    await client.setModel("nope", "nothing");
    result.setModel = "accepted";
  } catch (error) {
    result.setModel = String(error.message ?? error);
  }
  // `send` hands back the response itself, failed or not.
  const unknown = await client.send({ type: "frobnicate" });
  result.unknown = unknown.success ? "accepted" : unknown.error;
} finally {
  await client.stop();
}
console.log(JSON.stringify(result));
