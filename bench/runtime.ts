// Benchmark: programs in the sandbox. Program cold start (an idle runtime, then a trivial program, one fresh isolate
// each, timed from run() to its report in the embedding process) median and p95; programs 25 ms apart and back to
// back against a bare isolated-vm isolate; 1,000 sequential gg.files.readFile calls on small files against the same 1,000 reads made by
// host code through the same host functions; the same with Promise.all; and the type-check of a 100-line program
// (usage.checkMs of each run); a session of 100 programs keeping state, the host's heap against the realm's. Rerun:
// `node --expose-gc bench/runtime.ts`; GG_BENCH_AGAINST=/other/checkout[:...] times the back-to-back programs of
// other checkouts of gg too (each with its npm ci done), alternating with this one's.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ivm from "isolated-vm";
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

/** Milliseconds of a bare isolated-vm isolate: created, given a context, evaluating `1`, disposed (a program's floor). */
function bareIsolate(): number {
  const started = performance.now();
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = isolate.createContextSync();
  context.evalSync("1");
  context.release();
  isolate.dispose();
  return performance.now() - started;
}

const ROUNDS = 60;
const WARM_ROUNDS = 10;

/** One runtime timed back to back: the checkout it comes from and its kind. */
interface Contender {
  label: string;
  run: () => Promise<number>;
  close: () => void;
  apart: number[];
  backToBack: number[];
  atOnce: number[];
}

/** The runtimes of `root`, a checkout of gg: one fresh isolate a program (gg run), and a session's realm (gg agent, gg mcp). */
async function contenders(root: string): Promise<Contender[]> {
  const { createRuntime: make } = (await import(pathToFileURL(join(root, "runtime", "index.ts")).href)) as { createRuntime: typeof createRuntime };
  let commit = root;
  try {
    commit = execFileSync("git", ["-C", root, "log", "-1", "--format=%h"], { encoding: "utf8" }).trim();
  } catch {
    // Not a git checkout: named by its folder.
  }
  return ([["one isolate a program", false], ["a session's realm", true]] as const).map(([kind, keepState]) => {
    const made = make({ workspace, keepState });
    return {
      label: `${commit}, ${kind}`,
      run: () =>
        timed(async () => {
          const report = await made.run("return 1", { language: "js" });
          if (!report.ok) throw new Error(`bench program failed: ${report.error?.message}`);
        }),
      close: () => made.close(),
      apart: [],
      backToBack: [],
      atOnce: [],
    };
  });
}

/**
 * `return 1` in JavaScript, 25 ms after the last report (a model's turn between programs), back to back (as soon as
 * the last report and one bare isolate are done) and at once (the moment the last report arrived), in each runtime
 * by turns, beside the bare isolates timed between them: medians of the rounds after the warm ones.
 */
async function timeBackToBack(): Promise<string> {
  const roots = [fileURLToPath(new URL("..", import.meta.url)), ...(process.env.GG_BENCH_AGAINST?.split(":").filter(Boolean) ?? [])];
  // Each runtime listens for this process's exit (to end its runner): more of them than Node expects of a process.
  process.setMaxListeners(process.getMaxListeners() + 4 * roots.length);
  const timedRuntimes = (await Promise.all(roots.map(contenders))).flat();
  const bare: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < timedRuntimes.length; i++) {
        const contender = timedRuntimes[(round + i) % timedRuntimes.length] as Contender;
        await new Promise((resolve) => setTimeout(resolve, 25));
        const apart = await contender.run();
        const atOnce = await contender.run();
        const bareBefore = bareIsolate();
        const backToBack = await contender.run();
        const bareAfter = bareIsolate();
        if (round < WARM_ROUNDS) continue;
        contender.apart.push(apart);
        contender.atOnce.push(atOnce);
        contender.backToBack.push(backToBack);
        bare.push(bareBefore, bareAfter);
      }
    }
  } finally {
    for (const contender of timedRuntimes) contender.close();
  }
  const floor = quantile(bare, 0.5);
  const ratio = (values: number[]): string => `${(quantile(values, 0.5) / floor).toFixed(2)}x`;
  const rows = timedRuntimes.map(
    ({ label, apart, backToBack, atOnce }) =>
      `| ${label} | ${quantile(apart, 0.5).toFixed(2)} | ${ratio(apart)} | ${quantile(backToBack, 0.5).toFixed(2)} | ${ratio(backToBack)} | ${quantile(atOnce, 0.5).toFixed(2)} | ${ratio(atOnce)} |`,
  );
  return [
    `## programs back to back (\`return 1\` in JavaScript, ${ROUNDS - WARM_ROUNDS} rounds after ${WARM_ROUNDS}, runtimes by turns; goal: back to back <= 1.1x a bare isolate)\n`,
    `a bare isolated-vm isolate (create, context, eval, dispose): median ${floor.toFixed(2)} ms\n`,
    "| runtime | 25 ms apart, ms | / bare | back to back, ms | / bare | at once, ms | / bare |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
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

  const backToBackTable = await timeBackToBack();

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
  console.log(`${backToBackTable}\n`);
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
