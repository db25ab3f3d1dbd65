// Writes session files with upstream Pi's own SessionManager (0.80.6) and, beside each, the
// context Pi builds for its leaf (buildSessionContext + convertToLlm), as golden fixtures for
// tests/pi_fixtures.rs. Run by make-fixtures.sh; the output is committed.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager, buildSessionContext, convertToLlm } from "@earendil-works/pi-coding-agent";

const out = process.argv[2];
const scratch = join(out, ".scratch");
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });

const usage = (input, output) => ({
  input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0, totalTokens: input + output,
  cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6 },
});
let clock = 1_767_225_600_000;
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: clock++ });
const assistant = (content, stopReason = "stop") => ({
  role: "assistant", content, api: "openai-completions", provider: "fake", model: "fake-model",
  usage: usage(1200, 40), stopReason, timestamp: clock++, responseId: "resp-1",
});
const toolResult = (id, name, text, isError = false) => ({
  role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: clock++,
});

function save(name, manager) {
  const file = manager.getSessionFile();
  renameSync(file, join(out, `${name}.jsonl`));
  const context = buildSessionContext(manager.getEntries(), manager.getLeafId());
  const expected = {
    leafId: manager.getLeafId(),
    model: context.model,
    thinkingLevel: context.thinkingLevel,
    messages: convertToLlm(context.messages),
  };
  writeFileSync(join(out, `${name}.context.json`), JSON.stringify(expected, null, 1) + "\n");
}

// Every entry type, a tool call and its result, a branch with a summary, labels and a name.
{
  const m = SessionManager.create("/home/u/proj", scratch);
  m.appendModelChange("fake", "fake-model");
  m.appendThinkingLevelChange("off");
  const q1 = m.appendMessage(user("List the files"));
  m.appendMessage(assistant([{ type: "thinking", thinking: "ls it", thinkingSignature: "sig" }, { type: "toolCall", id: "call_1", name: "ls", arguments: { path: "." } }], "toolUse"));
  m.appendMessage(toolResult("call_1", "ls", "README.md\nsrc/"));
  const a1 = m.appendMessage(assistant([{ type: "text", text: "Two entries." }]));
  m.appendMessage(user("abandoned question"));
  m.appendMessage(assistant([{ type: "text", text: "abandoned answer" }]));
  m.branchWithSummary(a1, "The user asked something else.", { readFiles: ["README.md"], modifiedFiles: [] }, false);
  m.appendLabelChange(q1, "start");
  m.appendCustomEntry("my-extension", { state: [1, 2, 3] });
  m.appendCustomMessageEntry("note", "A note for the model", true, { extra: true });
  m.appendCustomMessageEntry("blocks", [{ type: "text", text: "block note" }], false);
  m.appendMessage({ role: "bashExecution", command: "ls", output: "a\nb", exitCode: 2, cancelled: false, truncated: false, timestamp: clock++ });
  m.appendMessage({ role: "bashExecution", command: "secret", output: "x", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: clock++ });
  m.appendMessage({ role: "custom", customType: "hook", content: "custom role", display: true, timestamp: clock++ });
  m.appendMessage(toolResult("call_2", "bash", "failed", true));
  m.appendSessionInfo("fixture session");
  m.appendMessage(user("last question"));
  m.appendMessage(assistant([{ type: "text", text: "last answer" }]));
  save("all-types", m);
}

// Two compactions: only the latest counts, from its firstKeptEntryId on.
{
  const m = SessionManager.create("/home/u/proj", scratch);
  m.appendMessage(user("q1"));
  m.appendMessage(assistant([{ type: "text", text: "a1" }]));
  const q2 = m.appendMessage(user("q2"));
  m.appendMessage(assistant([{ type: "text", text: "a2" }]));
  m.appendCompaction("## Goal\nfirst summary", q2, 5000, { readFiles: [], modifiedFiles: [] }, false);
  const q3 = m.appendMessage(user("q3"));
  m.appendMessage(assistant([{ type: "text", text: "a3" }]));
  m.appendCompaction("## Goal\nsecond summary", q3, 9000, { readFiles: ["a.txt"], modifiedFiles: ["b.txt"] }, false);
  m.appendModelChange("other", "other-model");
  m.appendThinkingLevelChange("high");
  m.appendMessage(user("q4"));
  save("compactions", m);
}

// /fork: the path up to an entry becomes a new file naming its parent.
{
  const m = SessionManager.create("/home/u/proj", scratch);
  const q1 = m.appendMessage(user("q1"));
  m.appendLabelChange(q1, "first");
  const a1 = m.appendMessage(assistant([{ type: "text", text: "a1" }]));
  m.appendMessage(user("q2"));
  m.appendMessage(assistant([{ type: "text", text: "a2" }]));
  m.createBranchedSession(a1);
  save("forked", m);
}

rmSync(scratch, { recursive: true, force: true });
console.log(readdirSync(out).join("\n"));
