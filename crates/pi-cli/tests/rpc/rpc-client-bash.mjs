// Runs the person's shell command through Pi's own RpcClient while the prompt's tool runs,
// then prompts again, and prints what happened, in order: the prompt's `agent_end` and
// `agent_settled`, when the `bash` response came (`bash_response`, with its output), and the
// second prompt's settling.
// Usage: node rpc-client-bash.mjs <pi-coding-agent package dir> <cliPath> <cwd> [arg...]
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
  let ran = null;
  client.onEvent((event) => {
    if (event.type === "agent_end" || event.type === "agent_settled") {
      story.push({ type: event.type });
    } else if (event.type === "tool_execution_start" && ran === null) {
      // The tool sleeps: the person's command runs meanwhile.
      ran = client.bash("echo person-was-here").then((result) => {
        story.push({ type: "bash_response", output: result.output, exitCode: result.exitCode });
      });
    }
  });
  let settled = client.waitForIdle(30000);
  await client.prompt("Check the fridge");
  await settled;
  await ran;
  settled = client.waitForIdle(30000);
  await client.prompt("What did I run?");
  await settled;
} finally {
  await client.stop();
}
console.log(JSON.stringify(story));
