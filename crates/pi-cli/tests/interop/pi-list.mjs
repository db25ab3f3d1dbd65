// Lists the sessions of a working directory with upstream Pi's own SessionManager.list (what
// `pi -r` shows; the agent directory comes from PI_CODING_AGENT_DIR) and prints them as one
// JSON array: [{path, id, cwd, name, parentSessionPath, messageCount, firstMessage}].
// Run by tests/pi_interop.rs: node pi-list.mjs PI_PACKAGE_DIR CWD
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [packageDir, cwd] = process.argv.slice(2);
if (!packageDir || !cwd) {
  console.error("usage: node pi-list.mjs PI_PACKAGE_DIR CWD");
  process.exit(2);
}
const pi = await import(pathToFileURL(join(packageDir, "dist/index.js")).href);
const sessions = await pi.SessionManager.list(cwd);
process.stdout.write(JSON.stringify(sessions.map((s) => ({
  path: s.path,
  id: s.id,
  cwd: s.cwd,
  name: s.name ?? null,
  parentSessionPath: s.parentSessionPath ?? null,
  messageCount: s.messageCount,
  firstMessage: s.firstMessage,
}))) + "\n");
