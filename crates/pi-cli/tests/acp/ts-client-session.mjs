// Drives `pi-tool acp` with the official ACP TypeScript SDK, as an editor would, against the
// scripted model the Rust test serves. Usage:
//   node ts-client-session.mjs SDK_DIR WORK_DIR
// with PI_TOOL_BIN (our binary) and PI_CODING_AGENT_DIR (its models.json names the fake) set.
//
// The scenario: initialize; a new session in WORK_DIR; a prompt whose `write` needs
// permission (allowed once), one whose `write` is rejected, one cancelled while `bash` runs;
// then a second connection loads the session and receives it again as updates.
// Checks what it can here (node:assert) and prints everything it saw as one JSON object on
// stdout, for the Rust test to check against the protocol's JSON schema.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [sdkDir, workDir] = process.argv.slice(2);
const acp = await import(pathToFileURL(join(sdkDir, "dist/v1/stable/acp.js")).href);
const { client, methods, ndJsonStream, PROTOCOL_VERSION } = acp;

/** Starts our server; gives the SDK's stream over its stdio, and the process. */
function startServer() {
  const child = spawn(process.env.PI_TOOL_BIN, ["--sandbox", "landlock", "acp"], {
    cwd: workDir,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream };
}

/** What one connection saw: every session/update and every permission request. */
function recorder() {
  const seen = { updates: [], permissions: [], answers: [] };
  const waiters = [];
  const app = client({ name: "pi-acp-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      seen.updates.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.test(params)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(params);
        }
      }
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      seen.permissions.push(params);
      const optionId = seen.answers.shift();
      assert.ok(optionId, `a permission request nobody scripted: ${JSON.stringify(params)}`);
      return { outcome: { outcome: "selected", optionId } };
    });
  const until = (test) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for an update")), 20000);
      waiters.push({
        test,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
      });
    });
  return { app, seen, until };
}

const kinds = (updates) => updates.map((note) => note.update.sessionUpdate);
const text = (updates, kind) =>
  updates
    .filter((note) => note.update.sessionUpdate === kind)
    .map((note) => note.update.content.text)
    .join("");

// The first connection: a new session and three prompts.
const first = startServer();
const one = recorder();
const result = await one.app.connectWith(first.stream, async (agent) => {
  const init = await agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "pi-acp-test", version: "1.0.0" },
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  const session = await agent.request(methods.agent.session.new, { cwd: workDir, mcpServers: [] });
  const sessionId = session.sessionId;
  assert.ok(sessionId);
  const prompt = (words) =>
    agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: words }],
    });

  // 1. `write` asks; allowed once, it runs.
  one.seen.answers.push("allow_once");
  let start = one.seen.updates.length;
  const allowed = await prompt("Write the notes");
  const turn1 = one.seen.updates.slice(start);
  assert.equal(allowed.stopReason, "end_turn");
  assert.equal(readFileSync(join(workDir, "notes.txt"), "utf8"), "milk, eggs, bread");
  assert.equal(one.seen.permissions.length, 1);
  const asked = one.seen.permissions[0];
  assert.equal(asked.sessionId, sessionId);
  assert.equal(asked.toolCall.toolCallId, "call_write_1");
  assert.deepEqual(
    asked.options.map((option) => option.kind),
    ["allow_once", "allow_always", "reject_once", "reject_always"],
  );
  const call = turn1.find((note) => note.update.sessionUpdate === "tool_call").update;
  assert.equal(call.toolCallId, "call_write_1");
  assert.equal(call.kind, "edit");
  assert.equal(call.title, "Write notes.txt");
  assert.equal(call.locations[0].path, join(workDir, "notes.txt"));
  assert.deepEqual(call.rawInput, { path: "notes.txt", content: "milk, eggs, bread" });
  const diff = call.content.find((block) => block.type === "diff");
  assert.equal(diff.oldText, "milk, eggs");
  assert.equal(diff.newText, "milk, eggs, bread");
  const done1 = turn1.filter(
    (note) => note.update.sessionUpdate === "tool_call_update" && note.update.status === "completed",
  );
  assert.equal(done1.length, 1);
  assert.equal(text(turn1, "agent_message_chunk"), "Written.");

  // 2. Rejected once: the file stays as it was, the call fails, the model is told.
  one.seen.answers.push("reject_once");
  start = one.seen.updates.length;
  const rejected = await prompt("Write it again");
  const turn2 = one.seen.updates.slice(start);
  assert.equal(rejected.stopReason, "end_turn");
  assert.equal(one.seen.permissions.length, 2);
  assert.equal(readFileSync(join(workDir, "notes.txt"), "utf8"), "milk, eggs, bread");
  const failed = turn2.filter(
    (note) => note.update.sessionUpdate === "tool_call_update" && note.update.status === "failed",
  );
  assert.equal(failed.length, 1);
  assert.equal(failed[0].update.toolCallId, "call_write_2");
  assert.equal(text(turn2, "agent_message_chunk"), "Not written, then.");

  // 3. Cancelled while `bash` runs: the turn ends `cancelled` and the call is answered.
  one.seen.answers.push("allow_once");
  start = one.seen.updates.length;
  const running = one.until(
    (note) =>
      note.update.sessionUpdate === "tool_call_update" &&
      note.update.toolCallId === "call_bash_1" &&
      note.update.status === "in_progress",
  );
  const slow = prompt("Run the slow thing");
  await running;
  await agent.notify(methods.agent.session.cancel, { sessionId });
  const cancelled = await slow;
  const turn3 = one.seen.updates.slice(start);
  assert.equal(cancelled.stopReason, "cancelled");
  const bash = turn3.find((note) => note.update.sessionUpdate === "tool_call").update;
  assert.equal(bash.kind, "execute");
  const answered = turn3.filter(
    (note) =>
      note.update.toolCallId === "call_bash_1" &&
      ["completed", "failed"].includes(note.update.status),
  );
  assert.equal(answered.length, 1, JSON.stringify(turn3));
  return { sessionId, turn1: kinds(turn1), turn2: kinds(turn2), turn3: kinds(turn3) };
});
first.child.stdin.end();
await new Promise((resolve) => first.child.on("exit", resolve));

// The second connection: the session loaded again, replayed as updates.
const second = startServer();
const two = recorder();
const loaded = await two.app.connectWith(second.stream, async (agent) => {
  const init = await agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  assert.ok(init.agentCapabilities.sessionCapabilities.list);
  const listed = await agent.request(methods.agent.session.list, { cwd: workDir });
  assert.deepEqual(
    listed.sessions.map((session) => [session.sessionId, session.cwd, session.title]),
    [[result.sessionId, workDir, "Write the notes"]],
  );
  const response = await agent.request(methods.agent.session.load, {
    sessionId: result.sessionId,
    cwd: workDir,
    mcpServers: [],
  });
  assert.ok(response);
  const missing = await agent
    .request(methods.agent.session.load, {
      sessionId: "no-such-session",
      cwd: workDir,
      mcpServers: [],
    })
    .then(
      () => null,
      (error) => error,
    );
  assert.ok(missing, "loading an unknown session must fail");
  return { replay: kinds(two.seen.updates), missing: missing.message };
});
second.child.stdin.end();
await new Promise((resolve) => second.child.on("exit", resolve));
const replayed = two.seen.updates;
assert.equal(text(replayed, "user_message_chunk"), "Write the notesWrite it againRun the slow thing");
// A replayed write shows what it wrote, not the file as it is now.
const replayedWrite = replayed.find((note) => note.update.toolCallId === "call_write_1").update;
assert.equal(replayedWrite.content.find((block) => block.type === "diff").oldText, undefined);
const replayedCalls = replayed.filter((note) => note.update.sessionUpdate === "tool_call");
assert.deepEqual(
  replayedCalls.map((note) => note.update.toolCallId),
  ["call_write_1", "call_write_2", "call_bash_1"],
);
// Every replayed call has its result.
for (const id of ["call_write_1", "call_write_2", "call_bash_1"]) {
  assert.ok(
    replayed.some(
      (note) =>
        note.update.sessionUpdate === "tool_call_update" &&
        note.update.toolCallId === id &&
        ["completed", "failed"].includes(note.update.status),
    ),
    `replayed call ${id} has no result`,
  );
}

process.stdout.write(
  JSON.stringify({
    ...result,
    ...loaded,
    permissions: one.seen.permissions,
    updates: [...one.seen.updates, ...two.seen.updates],
  }),
);
