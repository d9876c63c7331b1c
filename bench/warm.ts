// Benchmark: searches in a warm runtime against ripgrep's whole process, on the corpus of bench/corpus.ts, one
// pattern of each kind. gg: the search tool call in a process whose context has searched the corpus before, and the
// same search from a program (gg.files.search in a runtime's runner, the run's whole time); a cold context (no warm
// state) beside them; rg: whole processes, same pattern, alternating, same run. Then the memory the warm state holds
// and the process's RSS after the searches (goal: at most the corpus + 128 MiB).
// Rerun: `node bench/warm.ts`. Env: GG_BENCH_RUNS (default 9), GG_BENCH_CORPUS.
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { loadavg } from "node:os";
import { invoke } from "../bindings/define.ts";
import { callContext } from "../bindings/index.ts";
import { search } from "../bindings/search.ts";
import { engineBytes } from "../host/regex.ts";
import { createRuntime } from "../runtime/index.ts";
import { buildCorpus, corpusSize } from "./corpus.ts";
import { median, memoryMib, runnerPids } from "./measure.ts";

const CORPUS = buildCorpus();
const RUNS = Number(process.env.GG_BENCH_RUNS ?? 9);
const MIB = 2 ** 20;

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
const runtime = createRuntime({ workspace: CORPUS });

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}
const tool = (context: typeof warm, query: string): Promise<number> =>
  timed(async () => {
    const result = await invoke(search, { query }, context);
    if (!result.ok) throw new Error(result.error.message);
  });
const program = (query: string): Promise<number> =>
  timed(async () => {
    const report = await runtime.run(`return (await gg.files.search(${JSON.stringify(query)})).matches.length`);
    if (!report.ok) throw new Error(`bench program failed: ${report.error?.message}`);
  });

/**
 * The pattern kinds, and warm/rg (tool call) for each, measured before literal-first matching (commit
 * e6ea633, medians of 7, load average 26 on 2 cores; RSS then 414 MiB in this process, 433 MiB in the runner). */
const CASES: [string, string, number][] = [
  ["rare literal", "XyZzY_never_here", 0.51],
  ["rare case-insensitive literal", "(?i)zqxj_never", 0.52],
  ["regex with common literals", "fn\\s+update\\w*\\(", 0.88],
  ["case-insensitive common word", "(?i)todo", 0.15],
  ["no literal", "\\w+\\s*=\\s*\\d{4,}", 0.18],
];

const size = corpusSize();
console.log(`corpus: ${CORPUS} (${(size.bytes / 1e6).toFixed(1)} MB = ${(size.bytes / MIB).toFixed(0)} MiB, ${size.files} files); load average ${loadavg()[0]?.toFixed(1)}`);
const firsts: number[] = [];
for (let i = 0; i < 3; i++) firsts.push(await tool(warm, CASES[0]?.[1] as string));
console.log(`a fresh runtime's first three searches (rare literal): ${firsts.map((ms) => ms.toFixed(1)).join(", ")} ms`);
// What searches that find little leave kept, once the thread has built the filters (a second's pause, as between turns).
await new Promise((resolve) => setTimeout(resolve, 1000));
console.log(`warm searches against rg's whole process; medians of ${RUNS} after 2, alternating`);
console.log("| case | gg warm tool ms | gg warm program ms | gg cold ms (in process) | rg ms | tool/rg | program/rg | tool/rg before |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
let searches = 0;
for (const [name, query, before] of CASES) {
  for (let i = 0; i < 2; i++) {
    await tool(warm, query);
    await program(query);
    rg(query);
  }
  const times = { tool: [] as number[], program: [] as number[], cold: [] as number[], rg: [] as number[] };
  // Warm and rg alternate; the cold searches run apart, since reading the corpus again between two warm ones would
  // measure the cold search's wake, not the warm one.
  for (let i = 0; i < RUNS; i++) {
    times.tool.push(await tool(warm, query));
    times.program.push(await program(query));
    times.rg.push(rg(query));
  }
  searches += 2 * (RUNS + 2);
  for (let i = 0; i < Math.min(RUNS, 5); i++) times.cold.push(await tool(cold, query));
  const [t, p, c, r] = [median(times.tool), median(times.program), median(times.cold), median(times.rg)];
  console.log(`| ${name} \`${query}\` | ${t.toFixed(1)} | ${p.toFixed(1)} | ${c.toFixed(1)} | ${r.toFixed(1)} | ${(t / r).toFixed(2)}x | ${(p / r).toFixed(2)}x | ${before.toFixed(2)}x |`);
}
const held = warm.warm?.heldBytes() ?? 0;
const kept = warm.warm?.files();
const runner = runnerPids()[0];
const memory = process.memoryUsage();
console.log(
  `after ${searches} warm searches of mixed kinds in each: the tool context's warm state holds ${(held / MIB).toFixed(1)} MiB (${kept?.contents} files with contents, ${kept?.filtersAlone} by their filters alone, filters ${((kept?.filterBytes ?? 0) / MIB).toFixed(1)} MiB); ` +
    `this process's RSS ${(memory.rss / MIB).toFixed(0)} MiB (heap ${(memory.heapUsed / MIB).toFixed(0)} MiB, buffers ${(memory.arrayBuffers / MIB).toFixed(0)} MiB, regex engine ${(engineBytes() / MIB).toFixed(0)} MiB); ` +
    `the runner's RSS ${runner === undefined ? "n/a" : memoryMib(runner).rss.toFixed(0)} MiB; goal at most ${(size.bytes / MIB + 128).toFixed(0)} MiB (corpus + 128 MiB); load average ${loadavg()[0]?.toFixed(1)}`,
);
runtime.close();
