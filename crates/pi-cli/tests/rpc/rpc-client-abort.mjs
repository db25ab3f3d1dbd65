// Aborts a prompt through Pi's own RpcClient while its tool runs, then compacts, and prints
// what happened, in order: the call's start and end (with isError), the prompt's end, the
// session's messages after the abort (role; for a tool result its call and isError), and the
// compaction's result (its fields) or its error.
// Usage: node rpc-client-abort.mjs <pi-coding-agent package dir> <cliPath> <cwd> [arg...]
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [packageDir, cliPath, cwd, ...extra] = process.argv.slice(2);
const { RpcClient } = await import(
  pathToFileURL(join(packageDir, "dist/modes/rpc/rpc-client.js")).href
);

const client = new RpcClient({ cliPath, cwd, args: ["--no-context-files", "--no-session", ...extra] });
const story = [];
await client.start();
try {
  let aborted = null;
  client.onEvent((event) => {
    if (event.type === "tool_execution_start") {
      story.push({ type: event.type, toolCallId: event.toolCallId });
      // The tool sleeps: the prompt is aborted meanwhile.
      aborted ??= client.abort();
    } else if (event.type === "tool_execution_end") {
      story.push({ type: event.type, toolCallId: event.toolCallId, isError: event.isError });
    } else if (event.type === "agent_end") {
      story.push({ type: event.type });
    }
  });
  const settled = client.waitForIdle(30000);
  await client.prompt("Check the fridge");
  await settled;
  await aborted;
  const messages = await client.getMessages();
  story.push({
    messages: messages.map((message) =>
      message.role === "toolResult"
        ? { role: message.role, toolCallId: message.toolCallId, isError: message.isError }
        : message.role === "assistant"
          ? { role: message.role, stopReason: message.stopReason, blocks: message.content.map((block) => block.type) }
          : { role: message.role },
    ),
  });
  try {
    const compacted = await client.compact();
    story.push({ compacted: Object.keys(compacted).sort() });
  } catch (error) {
    story.push({ compactFailed: true });
    if (process.env.ABORT_DEBUG) console.error(String(error));
  }
} finally {
  await client.stop();
}
console.log(JSON.stringify(story));
