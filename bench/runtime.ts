// Benchmark: programs in the sandbox. Program cold start (an idle runtime, then a trivial program, one fresh isolate
// each, timed from run() to its report in the embedding process) median and p95; 1,000 sequential gg.files.readFile calls on small files against the same 1,000 reads made by
// host code through the same host functions; the same with Promise.all; and the type-check of a 100-line program
// (usage.checkMs of each run); a session of 100 programs keeping state, the host's heap against the realm's. Rerun:
// `node --expose-gc bench/runtime.ts`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { invoke } from "../bindings/define.ts";
import { callContext } from "../bindings/index.ts";
import { readFile } from "../bindings/read_file.ts";
import { createEngine } from "../runtime/engine.ts";
import { createRuntime } from "../runtime/index.ts";
import { checkedProgram } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 200);
const FILES = 1000;

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

const workspace = mkdtempSync(join(tmpdir(), "gg-bench-runtime-"));
mkdirSync(join(workspace, "small"));
for (let i = 0; i < FILES; i++) writeFileSync(join(workspace, "small", `f${i}.txt`), `file ${i}\nsecond line\n`);
const runtime = createRuntime({ workspace });
// A session's runtime, whose programs share one realm (gg agent, gg mcp): its start is measured beside a fresh isolate's.
const session = createRuntime({ workspace, keepState: true });

/** This process's heap in use after a full collection (node --expose-gc; without it, as it stands). */
function heapAfterCollection(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

try {
  for (let i = 0; i < 20; i++) await runtime.run("return 1");
  for (let i = 0; i < 20; i++) await session.run(`const kept${i} = ${i};\nreturn 1;`);
  const cold: number[] = [];
  const realm: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // A model's turn separates programs: the runtime gets 20 ms to make ready, as it would between turns. The two
    // runtimes take turns, so the machine's load falls on both alike.
    await new Promise((resolve) => setTimeout(resolve, 20));
    cold.push(await timed(() => runtime.run("return 1")));
    await new Promise((resolve) => setTimeout(resolve, 20));
    realm.push(await timed(() => session.run(`const step${i % 20} = ${i};\nreturn 1;`)));
  }

  const sequential = `for (let i = 0; i < ${FILES}; i++) await gg.files.readFile("small/f" + i + ".txt"); return 1;`;
  const parallel = `await Promise.all(Array.from({ length: ${FILES} }, (_, i) => gg.files.readFile("small/f" + i + ".txt"))); return 1;`;
  const context = callContext({ workspace });
  const hostSequential = async () => {
    for (let i = 0; i < FILES; i++) await invoke(readFile, { path: `small/f${i}.txt` }, context);
  };
  const hostParallel = () => Promise.all(Array.from({ length: FILES }, (_, i) => invoke(readFile, { path: `small/f${i}.txt` }, context)));
  const rows: string[] = [];
  for (const [name, program, host] of [["sequential", sequential, hostSequential], ["Promise.all", parallel, hostParallel]] as const) {
    const inSandbox: number[] = [];
    const onHost: number[] = [];
    for (let i = 0; i < 7; i++) {
      // The program's time less a trivial program's, so the ratio compares the reads alone.
      const report = await runtime.run(program);
      if (!report.ok) throw new Error(`bench program failed: ${report.error?.message}`);
      inSandbox.push((await timed(() => runtime.run(program))) - quantile(cold, 0.5));
      onHost.push(await timed(host));
    }
    const sandbox = quantile(inSandbox, 0.5);
    const direct = quantile(onHost, 0.5);
    rows.push(`| ${FILES} readFile, ${name} | ${sandbox.toFixed(1)} | ${direct.toFixed(1)} | ${(sandbox / direct).toFixed(2)}x |`);
  }
  const checks: number[] = [];
  let firstCheck = 0;
  for (let i = 0; i < 21; i++) {
    const report = await runtime.run(checkedProgram(i), { check: true });
    if (!report.ok) throw new Error(`bench program failed its check: ${report.error?.message}`);
    if (i === 0) firstCheck = report.usage.checkMs ?? 0;
    else checks.push(report.usage.checkMs ?? 0);
  }

  console.log(`## program cold start (${RUNS} runs after 20 warm-ups, each 20 ms after the last; goal: median <= 5 ms)\n`);
  console.log(`median ${quantile(cold, 0.5).toFixed(2)} ms, p95 ${quantile(cold, 0.95).toFixed(2)} ms\n`);
  console.log(`## program start in a session's realm (keepState, 20 names held; goal: median within 10% of the fresh isolate's)\n`);
  console.log(`median ${quantile(realm, 0.5).toFixed(2)} ms, p95 ${quantile(realm, 0.95).toFixed(2)} ms; ratio to the fresh isolate ${(quantile(realm, 0.5) / quantile(cold, 0.5)).toFixed(2)}x\n`);
  console.log("## gg.files.readFile from a program against host code (medians of 7; goal: sequential <= 1.5x)\n");
  console.log("| case | program ms | host ms | ratio |\n| --- | ---: | ---: | ---: |");
  console.log(rows.join("\n"));
  console.log("\n## type-checking a 100-line program before it runs (goal: median of the second and later checks <= 100 ms)\n");
  console.log(`first check (loads the compiler) ${firstCheck} ms; later checks: median ${quantile(checks, 0.5)} ms, p95 ${quantile(checks, 0.95)} ms (20 checks)`);
  // A session of 100 programs in this process (an engine, as the runner holds one), each leaving a name of about
  // 80 KB in the realm: how much the host's own heap grew, against what the realm's heap holds.
  const engine = createEngine({ workspace, keepState: true });
  // The first program of a session loads TypeScript's parser (to find its declarations): counted before, once.
  await engine.run("const warm = 1;\nreturn warm;");
  const hostBefore = heapAfterCollection();
  let realmHeap = 0;
  for (let i = 0; i < 100; i++) {
    const report = await engine.run(`const held${i} = Array.from({ length: 10000 }, (_, k) => k + ${i});\nreturn held${i}.length;`);
    if (!report.ok) throw new Error(`bench session program failed: ${report.error?.message}`);
    realmHeap = report.usage.peakHeapBytes;
  }
  const hostGrowth = heapAfterCollection() - hostBefore;
  await engine.close();
  console.log("\n## a session of 100 programs, each leaving about 80 KB in the realm (goal: the host's heap grows less than the realm's)\n");
  console.log(`the host's heap grew ${(hostGrowth / 1024 ** 2).toFixed(1)} MiB; the realm's heap holds ${(realmHeap / 1024 ** 2).toFixed(1)} MiB`);
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}; node ${process.version}`);
  console.log("reproduce: node --expose-gc bench/runtime.ts (part of npm run bench)");
} finally {
  runtime.close();
  session.close();
  rmSync(workspace, { recursive: true, force: true });
}
