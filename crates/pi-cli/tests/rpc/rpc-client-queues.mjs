// Steers and queues a follow-up through Pi's own RpcClient while the prompt's tool runs, and
// prints the events that tell the queues' story, in order: each `queue_update` (both lists)
// and each user message's `message_start` (its text); and the tool's end (its result's keys).
// Usage: node rpc-client-queues.mjs <pi-coding-agent package dir> <cliPath> <cwd> [arg...]
// (the extra arguments go to the agent: ours asks before running bash, Pi never does)
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
  let queued = null;
  client.onEvent((event) => {
    if (event.type === "queue_update") {
      story.push({ type: event.type, steering: event.steering, followUp: event.followUp });
    } else if (event.type === "message_start" && event.message.role === "user") {
      const content = event.message.content;
      const text = typeof content === "string"
        ? content
        : content.filter((block) => block.type === "text").map((block) => block.text).join("");
      story.push({ type: event.type, text });
    } else if (event.type === "tool_execution_end") {
      // The result's shape too: Pi's is the tool's own (`content`, `details`), not a message.
      // Ours may have `details` where Pi's has none (bash says how its shell was confined).
      const keys = Object.keys(event.result).filter((key) => key !== "details").sort();
      story.push({ type: event.type, resultKeys: keys, isError: event.isError });
      if (process.env.QUEUE_DEBUG) {
        console.error(JSON.stringify(event));
      }
    } else if (event.type === "tool_execution_start" && queued === null) {
      // The tool sleeps: both messages wait in their queues meanwhile.
      queued = client.steer("Focus on the eggs").then(() => client.followUp("Then summarize"));
    }
  });
  const settled = client.waitForIdle(30000);
  await client.prompt("Check the fridge");
  await settled;
  await queued;
} finally {
  await client.stop();
}
console.log(JSON.stringify(story));
