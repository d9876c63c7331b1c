// Benchmark: how close to its limit a program is stopped. Loops that never yield, or keep the host busy with logs and
// inline calls, run against a 1 s wall budget and against a 0.3 s CPU limit; the figure is the report's wall time
// over the limit (medians of RUNS). The tests check only that such loops are stopped, with timeout: how close depends
// on how busy the machine is, so the precision lives here. Rerun: `node bench/limits.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../runtime/index.ts";
import { median } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 5);
const LOOPS: [string, string][] = [
  ["no await", "for (;;) {}"],
  ["after an awaited call", "await gg.files.listDir(); for (;;) {}"],
  ["console.log", "while (true) console.log('x');"],
  ["inline gg calls", "while (true) gg.views.list();"],
  ["console.log after an await", "await gg.files.listDir(); while (true) console.log('x');"],
  ["inline gg calls after a command", "await gg.shell.shell('true'); while (true) gg.views.list();"],
];

const workspace = mkdtempSync(join(tmpdir(), "gg-bench-limits-"));
const runtime = createRuntime({ workspace });

/** The wall times (ms) of RUNS runs of `source` under `limits`, each of which must end in timeout. */
async function stopped(source: string, limits: { budgetSecs: number; cpuSecs?: number }): Promise<number[]> {
  const walls: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const report = await runtime.run(source, { limits });
    if (report.error?.code !== "timeout") throw new Error(`bench loop ${JSON.stringify(source)} ended with ${report.error?.code ?? "a result"}, not timeout`);
    walls.push(report.usage.wallMs);
  }
  return walls;
}

try {
  await runtime.run("return 1");
  const rows: string[] = [];
  for (const [name, source] of LOOPS) {
    const budget = median(await stopped(source, { budgetSecs: 1 }));
    const cpu = median(await stopped(source, { budgetSecs: 60, cpuSecs: 0.3 }));
    rows.push(`| ${name} | ${budget} | ${((budget / 1000 - 1) * 100).toFixed(0)}% | ${cpu} |`);
  }
  console.log(`## programs stopped at their limits (medians of ${RUNS}; goal: within 10% of a 1 s budget)\n`);
  console.log("| loop | wall ms, 1 s budget | over the budget | wall ms, 0.3 s CPU limit |\n| --- | ---: | ---: | ---: |");
  console.log(rows.join("\n"));
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}; node ${process.version}`);
  console.log("reproduce: node bench/limits.ts (part of npm run bench)");
} finally {
  runtime.close();
  rmSync(workspace, { recursive: true, force: true });
}
