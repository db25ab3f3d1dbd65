// Loads a session file with upstream Pi's own SessionManager and prints, as one JSON object,
// what Pi would send the model from its leaf: {leafId, entryCount, model, thinkingLevel,
// messages} with messages = convertToLlm(buildSessionContext(...)). Run by tests/pi_interop.rs
// with the Node that scripts/setup-pi.sh installed: node pi-context.mjs PI_PACKAGE_DIR FILE
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [packageDir, file] = process.argv.slice(2);
if (!packageDir || !file) {
  console.error("usage: node pi-context.mjs PI_PACKAGE_DIR SESSION_FILE");
  process.exit(2);
}
const pi = await import(pathToFileURL(join(packageDir, "dist/index.js")).href);
const manager = pi.SessionManager.open(file);
const entries = manager.getEntries();
const context = pi.buildSessionContext(entries, manager.getLeafId());
process.stdout.write(JSON.stringify({
  leafId: manager.getLeafId(),
  entryCount: entries.length,
  model: context.model ?? null,
  thinkingLevel: context.thinkingLevel,
  messages: pi.convertToLlm(context.messages),
}) + "\n");
