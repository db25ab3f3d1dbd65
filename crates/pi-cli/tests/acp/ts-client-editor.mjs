// Drives `pi-tool acp` with the official ACP TypeScript SDK as an editor that offers its files
// and terminals (clientCapabilities fs.readTextFile, fs.writeTextFile, terminal). Usage:
//   node ts-client-editor.mjs SDK_DIR WORK_DIR
// with PI_TOOL_BIN (our binary) and PI_CODING_AGENT_DIR (its models.json names the fake) set,
// and PI_TEST_SANDBOX the sandbox to start it with (landlock by default).
//
// The editor holds an unsaved buffer of WORK_DIR/notes.txt that differs from the disk. One
// prompt: the model reads notes.txt (served from the buffer), edits it (the new text is handed
// to the editor, the disk left alone), rewrites it whole (the same), then runs a command (in a terminal this client runs,
// with this process's environment). Then a command over its time limit and one cancelled (each
// terminal killed and released). Then the model is changed through the session's config
// option, and the mode to `full-auto`, after which a command runs unasked, in a terminal again.
// Prints what it saw as one JSON object on stdout.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, workDir] = process.argv.slice(2);
const acp = await import(pathToFileURL(join(sdkDir, "dist/v1/stable/acp.js")).href);
const { client, methods, ndJsonStream, PROTOCOL_VERSION } = acp;

const child = spawn(process.env.PI_TOOL_BIN, ["--sandbox", process.env.PI_TEST_SANDBOX ?? "landlock", "acp"], {
  cwd: workDir,
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const notes = join(workDir, "notes.txt");
const buffers = new Map([[notes, "unsaved: milk, eggs\n"]]);
const seen = { updates: [], permissions: [], reads: [], writes: [], terminals: [], calls: [] };
const answers = [];

/** The editor's terminals: each a real process, its output kept. */
const terminals = new Map();
let nextTerminal = 1;

const app = client({ name: "pi-acp-editor-test" })
  .onNotification(methods.client.session.update, ({ params }) => {
    seen.updates.push(params);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    seen.permissions.push(params);
    const optionId = answers.shift();
    assert.ok(optionId, `a permission request nobody scripted: ${JSON.stringify(params)}`);
    return { outcome: { outcome: "selected", optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    seen.calls.push("fs/read_text_file");
    seen.reads.push(params);
    const text = buffers.get(params.path);
    if (text === undefined) throw new Error(`no buffer for ${params.path}`);
    return { content: text };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    seen.calls.push("fs/write_text_file");
    seen.writes.push(params);
    buffers.set(params.path, params.content);
    return {};
  })
  .onRequest(methods.client.terminal.create, ({ params }) => {
    seen.calls.push("terminal/create");
    seen.terminals.push(params);
    const id = `term-${nextTerminal++}`;
    const process = spawn(params.command, params.args ?? [], {
      cwd: params.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const terminal = { process, output: "", exit: null };
    terminal.exited = new Promise((resolve) =>
      process.on("exit", (code, signal) => {
        terminal.exit = { exitCode: code, signal };
        resolve(terminal.exit);
      }),
    );
    process.stdout.on("data", (data) => (terminal.output += data));
    process.stderr.on("data", (data) => (terminal.output += data));
    terminals.set(id, terminal);
    return { terminalId: id };
  })
  .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
    seen.calls.push("terminal/wait_for_exit");
    return await terminals.get(params.terminalId).exited;
  })
  .onRequest(methods.client.terminal.output, ({ params }) => {
    seen.calls.push("terminal/output");
    const terminal = terminals.get(params.terminalId);
    return { output: terminal.output, truncated: false, exitStatus: terminal.exit };
  })
  .onRequest(methods.client.terminal.kill, ({ params }) => {
    seen.calls.push("terminal/kill");
    terminals.get(params.terminalId).process.kill("SIGKILL");
    return {};
  })
  .onRequest(methods.client.terminal.release, ({ params }) => {
    seen.calls.push("terminal/release");
    terminals.delete(params.terminalId);
    return {};
  });

const result = await app.connectWith(stream, async (agent) => {
  await agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    clientInfo: { name: "pi-acp-editor-test", version: "1.0.0" },
  });
  const session = await agent.request(methods.agent.session.new, { cwd: workDir, mcpServers: [] });
  const sessionId = session.sessionId;
  assert.equal(session.modes.currentModeId, "ask");

  // The edit, the write and the command ask; each allowed once.
  answers.push("allow_once", "allow_once", "allow_once");
  const done = await agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Fix the notes and check" }],
  });
  assert.equal(done.stopReason, "end_turn");
  const firstCalls = [...seen.calls];

  // A command over its time limit, then one cancelled: each terminal is killed and released.
  answers.push("allow_once", "allow_once");
  let start = seen.calls.length;
  const timedOut = await agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Wait a little" }],
  });
  assert.equal(timedOut.stopReason, "end_turn");
  const timeoutCalls = seen.calls.slice(start);
  start = seen.calls.length;
  const updatesBefore = seen.updates.length;
  const slow = agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Wait long" }],
  });
  while (!seen.updates.slice(updatesBefore).some((note) =>
    (note.update.content ?? []).some((block) => block.type === "terminal"))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await agent.notify(methods.agent.session.cancel, { sessionId });
  const cancelled = await slow;
  assert.equal(cancelled.stopReason, "cancelled");
  // The kill and the release may still be on their way when the turn ends.
  for (let waited = 0; waited < 100 && !seen.calls.slice(start).includes("terminal/release"); waited++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const cancelCalls = seen.calls.slice(start);

  // The model and thinking level are session config options; the model changes here.
  const options = Object.fromEntries(session.configOptions.map((option) => [option.id, option]));
  assert.equal(options.model.currentValue, "local/local-model");
  assert.deepEqual(
    options.model.options.map((option) => option.value),
    ["local/local-model", "local/local-model-2"],
  );
  assert.ok(options.thinking, JSON.stringify(session.configOptions));
  const changed = await agent.request(methods.agent.session.setConfigOption, {
    sessionId,
    configId: "model",
    value: "local/local-model-2",
  });
  const model = changed.configOptions.find((option) => option.id === "model");
  assert.equal(model.currentValue, "local/local-model-2");
  const unknown = await agent
    .request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "local/none" })
    .then(() => null, (error) => error);
  assert.ok(unknown, "an unknown model must be refused");

  // In full-auto the sandbox lets commands run unasked: the terminal's command is sandboxed
  // too, so it still runs there.
  await agent.request(methods.agent.session.setMode, { sessionId, modeId: "full-auto" });
  const before = seen.calls.length;
  const sandboxed = await agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Check again" }],
  });
  assert.equal(sandboxed.stopReason, "end_turn");
  return {
    sessionId,
    firstCalls,
    timeoutCalls,
    cancelCalls,
    laterCalls: seen.calls.slice(before),
  };
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));

process.stdout.write(
  JSON.stringify({
    ...result,
    buffers: Object.fromEntries(buffers),
    reads: seen.reads,
    writes: seen.writes,
    terminals: seen.terminals,
    permissions: seen.permissions,
    updates: seen.updates,
  }),
);
