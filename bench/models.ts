// Benchmark: `gg models` start to output with the shipped catalog (models.dev's OpenRouter list) against the old
// 4-model file (issue 27: goal < 150 ms), as whole warm processes (bin/gg), the variants alternated, medians of RUNS;
// `gg models --json` beside them. The 4-model file is written to a temp folder and named with --catalog; the user's
// copy is kept out (XDG_CONFIG_HOME points at the temp folder). Rerun: `npm run build && node bench/models.ts`.
// Also, in this process, what reading and checking each file costs (loadCatalog), apart from Node's start.
// Env: GG_BENCH_RUNS (default 15).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCatalog } from "../agent/catalog.ts";
import { median, timings } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 15);
const GOAL_MS = 150;
const ROOT = join(import.meta.dirname, "..");
const SHIPPED = join(ROOT, "catalog", "models.json");

if (!existsSync(join(ROOT, "dist", "main.mjs"))) {
  console.error("bench: dist/ is missing; run npm run build first");
  process.exit(1);
}

const temp = mkdtempSync(join(tmpdir(), "gg-bench-models-"));
process.on("exit", () => rmSync(temp, { recursive: true, force: true }));
// The catalog gg shipped before models.dev: four models entered by hand.
const OLD = join(temp, "old.json");
const oldModels = [
  { id: "anthropic/claude-3.5-sonnet", context_length: 200000, input_modalities: ["text", "image"], pricing: { prompt: 0.000003, completion: 0.000015 } },
  { id: "meta-llama/llama-3.3-70b-instruct", context_length: 131072, input_modalities: ["text"] },
  { id: "openai/gpt-4o", context_length: 128000, input_modalities: ["text", "image"], pricing: { prompt: 0.0000025, completion: 0.00001 } },
  { id: "openai/gpt-4o-mini", context_length: 128000, input_modalities: ["text", "image"], pricing: { prompt: 0.00000015, completion: 0.0000006 } },
];
writeFileSync(OLD, JSON.stringify({ source: "entered by hand", fetched: "2026-12-01", models: oldModels }, null, 2));

interface Variant {
  label: string;
  args: string[];
  first: number[];
}

/** One run: ms from the spawn to the first byte on stdout. */
function once(variant: Variant): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first: number | undefined;
    const child = spawn(join(ROOT, "bin", "gg"), variant.args, { cwd: ROOT, env: { ...process.env, TMPDIR: temp, XDG_CONFIG_HOME: temp } });
    child.stdout.on("data", () => void (first ??= performance.now() - started));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && first !== undefined ? resolve(void variant.first.push(first)) : reject(new Error(`gg ${variant.args.join(" ")} exited ${code}`))));
  });
}

const variants: Variant[] = [
  { label: `gg models (shipped: ${(statSync(SHIPPED).size / 1024).toFixed(0)} KB)`, args: ["models"], first: [] },
  { label: "gg models --catalog old.json (4 models)", args: ["models", "--catalog", OLD], first: [] },
  { label: "gg models --json (shipped)", args: ["models", "--json"], first: [] },
  { label: "gg models claude --vision (shipped)", args: ["models", "claude", "--vision"], first: [] },
];
for (const variant of variants) await once(variant);
for (const variant of variants) variant.first.length = 0;
for (let run = 0; run < RUNS; run++) for (const variant of variants) await once(variant);

const reference = median(variants[1]?.first ?? []);
console.log(`gg models, start to first output, ${RUNS} warm runs each, alternated (goal < ${GOAL_MS} ms)\n`);
console.log("| variant | median ms | fastest ms | × the 4-model file |\n|---|---|---|---|");
for (const variant of variants) console.log(`| ${variant.label} | ${median(variant.first).toFixed(0)} | ${Math.min(...variant.first).toFixed(0)} | ${(median(variant.first) / reference).toFixed(2)} |`);

const read = async (file: string) => median(await timings(async () => loadCatalog(file), RUNS * 4, 5));
const [shippedMs, oldMs] = [await read(SHIPPED), await read(OLD)];
console.log(`\nloadCatalog in process, median of ${RUNS * 4}: shipped ${shippedMs.toFixed(2)} ms, 4-model file ${oldMs.toFixed(2)} ms`);
