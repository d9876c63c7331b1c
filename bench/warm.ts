// Benchmark: searches in a warm runtime against ripgrep's whole process, on the search bench's corpus (run
// `node bench/search.ts` first; it fetches and caches the corpus). gg: the search call in one process whose context
// has searched the corpus before (the second and later searches), median of RUNS after 2; a cold context (no warm
// state) beside it; rg: whole processes, same pattern, same run. Also the memory the warm state holds.
// Rerun: `node bench/warm.ts`. Env: GG_BENCH_RUNS (default 15), GG_BENCH_CORPUS.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { invoke } from "../bindings/define.ts";
import { callContext } from "../bindings/index.ts";
import { search } from "../bindings/search.ts";
import { median } from "./measure.ts";

const CORPUS = join(process.env.GG_BENCH_CORPUS ?? join(tmpdir(), "gg-bench-corpus"), "src");
const RUNS = Number(process.env.GG_BENCH_RUNS ?? 15);

if (!existsSync(CORPUS)) {
  console.error(`bench: ${CORPUS} is missing; run node bench/search.ts first, which fetches the corpus`);
  process.exit(1);
}


function rg(pattern: string): number {
  const out = openSync("/dev/null", "w");
  const started = performance.now();
  const result = spawnSync("rg", ["-n", "--no-require-git", pattern, CORPUS], { stdio: ["ignore", out, "ignore"] });
  closeSync(out);
  if (result.error || (result.status !== 0 && result.status !== 1)) {
    console.error(`bench: rg failed: ${result.error?.message ?? result.status}; install Debian's ripgrep package`);
    process.exit(1);
  }
  return performance.now() - started;
}

const warm = callContext({ workspace: CORPUS });
const cold = callContext({ workspace: CORPUS, warm: false });
async function gg(context: typeof warm, query: string): Promise<number> {
  const started = performance.now();
  const result = await invoke(search, { query }, context);
  if (!result.ok) throw new Error(result.error.message);
  return performance.now() - started;
}

const CASES: [string, string][] = [
  ["rare literal", "zqxj_never_present_42"],
  ["rare case-insensitive literal", "(?i)zqxj_never"],
  ["regex with a character class", "zqxj[0-9]+_never"],
];
// The first search fills the warm state; the second may run before the second thread has filtered every kept file.
const firsts: number[] = [];
for (let i = 0; i < 3; i++) firsts.push(await gg(warm, CASES[0]?.[1] as string));
console.log(`a fresh runtime's first three searches (${CASES[0]?.[0]}): ${firsts.map((ms) => ms.toFixed(1)).join(", ")} ms`);
// What searches that find little leave kept, once the thread has built the filters (a second's pause, as between turns).
await new Promise((resolve) => setTimeout(resolve, 1000));
await gg(warm, CASES[0]?.[1] as string);
const early = warm.warm?.files();
console.log(`after them and a fourth: ${early?.contents} files kept with their contents, ${early?.filtersAlone} by their filters alone, ${((warm.warm?.heldBytes() ?? 0) / 2 ** 20).toFixed(1)} MiB held`);
console.log(`warm searches in one process against rg's whole process on ${CORPUS}; medians of ${RUNS} after 2`);
console.log("| case | gg warm ms | gg cold ms (in process) | rg ms | warm/rg |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, query] of CASES) {
  for (let i = 0; i < 2; i++) {
    await gg(warm, query);
    rg(query);
  }
  const times = { warm: [] as number[], cold: [] as number[], rg: [] as number[] };
  // Warm and rg alternate; the cold searches run apart, since reading the corpus again between two warm ones would
  // measure the cold search's wake, not the warm one.
  for (let i = 0; i < RUNS; i++) {
    times.warm.push(await gg(warm, query));
    times.rg.push(rg(query));
  }
  for (let i = 0; i < RUNS; i++) times.cold.push(await gg(cold, query));
  const [w, c, r] = [median(times.warm), median(times.cold), median(times.rg)];
  console.log(`| ${name} | ${w.toFixed(1)} | ${c.toFixed(1)} | ${r.toFixed(1)} | ${(w / r).toFixed(2)}x |`);
}
const held = warm.warm?.heldBytes() ?? 0;
const filters = warm.warm?.files().filterBytes ?? 0;
const { engineBytes } = await import("../host/regex.ts");
console.log(`warm state: ${(held / 2 ** 20).toFixed(1)} MiB held (cap 256 MiB), of which trigram filters ${(filters / 2 ** 20).toFixed(1)} MiB; process RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (goal: at most the cap + 128 MiB), buffers ${(process.memoryUsage().arrayBuffers / 2 ** 20).toFixed(0)} MiB, the regex engine's memory ${(engineBytes() / 2 ** 20).toFixed(0)} MiB`);
// Where a warm search's time goes: the walk over kept listings (each directory's stat included), the stat of every
// file that vouches for what is kept of it, and each kept file's filter asked for the pattern's trigrams.
const { walkFiles, walkRoot } = await import("../host/walk.ts");
const { compileSearch } = await import("../host/regex.ts");
const { statSync } = await import("node:fs");
const files: string[] = [];
const part = (work: () => void): number => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return median(times);
};
const walk = part(() => {
  files.length = 0;
  for (const file of walkFiles(walkRoot(CORPUS, CORPUS, warm.warm))) files.push(file.absolute);
});
const stat = part(() => {
  for (const file of files) statSync(file);
});
const grams = compileSearch(CASES[0]?.[1] as string).grams ?? [];
let scanned = 0;
const screen = part(() => {
  scanned = 0;
  for (const file of files) if (warm.warm?.readScreened(file, undefined, grams)) scanned++;
});
console.log(`a warm rare-literal search, in parts, on one thread: the walk over kept listings ${walk.toFixed(1)} ms; the stat of the ${files.length} files ${stat.toFixed(1)} ms (${((1000 * stat) / files.length).toFixed(1)} µs each); each file's stat again and its filter asked ${screen.toFixed(1)} ms (${scanned} files left to scan)`);
