// Pi 0.80.6's side of scripts/prompt-build-bench.sh: its resource loader (context files,
// skills, templates) and system prompt builder over the tree `prompt_build make-tree` wrote,
// as a run of `pi -p` does once; prints the median milliseconds of ROUNDS.
// Usage: node prompt_build.mjs <pi-coding-agent package dir> <tree dir> <work dir> [ROUNDS]
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [packageDir, tree, work, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText ?? 50);
const pi = await import(pathToFileURL(join(packageDir, "dist/index.js")).href);
const { buildSystemPrompt } = await import(
  pathToFileURL(join(packageDir, "dist/core/system-prompt.js")).href
);
const times = [];
for (let round = 0; round < rounds; round++) {
  const started = performance.now();
  const loader = new pi.DefaultResourceLoader({
    cwd: work,
    agentDir: join(tree, "agent"),
    noExtensions: true,
    noThemes: true,
  });
  await loader.reload();
  const prompt = buildSystemPrompt({
    cwd: work,
    selectedTools: ["read", "bash", "edit", "write"],
    contextFiles: loader.getAgentsFiles().agentsFiles,
    skills: loader.getSkills().skills,
  });
  times.push(performance.now() - started);
  if (!prompt.includes("skill-49")) throw new Error("Pi listed no skill-49");
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)].toFixed(3));
