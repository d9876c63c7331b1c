// Benchmark: the shell call's cost. (1) Per-call overhead of execute() (offload and inline policies) over a bare
// spawn of `sh -c true` awaited to 'close', in-process so Node start-up is not counted: median and p90 of RUNS runs
// after 20 warm-ups, the three alternated. (2) Wall time and peak RSS of the whole `gg call shell --json` CLI on a
// command printing 100 MB and 1 GB of 100-char lines, against the same pipeline into /dev/null; peak RSS should be
// flat whatever the output size. (3) A sandboxed `true` (workspace-write, bwrap) against an unconfined one through
// execute(), alternated, median of RUNS (goal: at most +25 ms); skipped, saying why, where bwrap cannot start.
// Rerun: `npm run build && node bench/shell.ts` (or `npm run bench`).
// Env: GG_BENCH_SHELL_RUNS (default 200).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execute } from "../bindings/shell.ts";
import type { OutputPolicy } from "../host/output.ts";
import type { SandboxRequest } from "../host/sandbox_paths.ts";
import { sandboxStart } from "../host/sandbox_start.ts";

const RUNS = Number(process.env.GG_BENCH_SHELL_RUNS ?? 200);
const WARMUPS = 20;
const GG = join(import.meta.dirname, "..", "bin", "gg.js");
const GNU_TIME = "/usr/bin/time";
const OFFLOAD: OutputPolicy = { mode: "offload", maxLines: 200, maxChars: 8000 };
const INLINE: OutputPolicy = { mode: "inline", maxLines: 200, maxChars: 8000 };

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Milliseconds of one shell `true` through execute(); offloaded files are deleted. */
async function timeExecute(policy: OutputPolicy, cwd: string): Promise<number> {
  const start = performance.now();
  const result = await execute("true", { cwd, policy, agent: "bench" });
  const ms = performance.now() - start;
  if (result.exitCode !== 0) fail(`execute("true") exited ${result.exitCode}`);
  if (result.files) for (const file of Object.values(result.files)) rmSync(file, { force: true });
  return ms;
}

/** Milliseconds of a bare spawn of `sh -c true`, awaited until 'close'. */
function timeSpawn(cwd: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", "true"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    child.on("close", () => resolve(performance.now() - start));
  });
}

/**
 * The cases timed in turn, WARMUPS + RUNS rounds, as a table of their medians and p90s, each against the case at
 * `reference` (its median subtracted), under the column `against`.
 */
async function alternated(cases: [string, () => Promise<number>][], reference: number, against: string): Promise<string[]> {
  const samples: number[][] = cases.map(() => []);
  for (let i = 0; i < WARMUPS + RUNS; i++) {
    for (const [c, [, run]] of cases.entries()) {
      const ms = await run();
      if (i >= WARMUPS) samples[c]!.push(ms);
    }
  }
  const base = quantile(samples[reference]!, 0.5);
  const rows = [`| case | median ms | p90 ms | ${against} (median) |`, "| --- | ---: | ---: | ---: |"];
  cases.forEach(([name], c) => {
    const med = quantile(samples[c]!, 0.5);
    rows.push(`| ${name} | ${med.toFixed(2)} | ${quantile(samples[c]!, 0.9).toFixed(2)} | ${c === reference ? "" : `${(med - base).toFixed(2)} ms`} |`);
  });
  return rows;
}

const overhead = (cwd: string): Promise<string[]> =>
  alternated(
    [
      ["execute, offload policy", () => timeExecute(OFFLOAD, cwd)],
      ["execute, inline policy", () => timeExecute(INLINE, cwd)],
      ["bare spawn sh -c true", () => timeSpawn(cwd)],
    ],
    2,
    "overhead vs bare",
  );

/** Median and p90 of a sandboxed `true` against an unconfined one, both through execute() under the offload policy. */
async function sandboxOverhead(cwd: string): Promise<string[]> {
  const start = await sandboxStart();
  if (!start.ok) return [`skipped: ${start.problem}`];
  const request = (over: Partial<SandboxRequest> = {}): SandboxRequest => ({ mode: "workspace-write", network: false, workspace: cwd, cwd, writable: [], readDenied: [], writeDenied: [], protect: [], ...over });
  const run = async (sandbox?: SandboxRequest): Promise<number> => {
    const started = performance.now();
    const result = await execute("true", { cwd, policy: OFFLOAD, agent: "bench", ...(sandbox ? { sandbox } : {}) });
    const ms = performance.now() - started;
    if (result.exitCode !== 0 || (sandbox !== undefined) !== (result.sandbox !== undefined)) fail(`execute("true") exited ${result.exitCode}, sandbox ${result.sandbox}`);
    if (result.files) for (const file of Object.values(result.files)) rmSync(file, { force: true });
    return ms;
  };
  return alternated(
    [
      ["unconfined", () => run()],
      ["sandboxed (workspace-write)", () => run(request())],
      ["sandboxed, secrets/** write-denied, private/** read-denied", () => run(request({ writeDenied: ["secrets/**"], readDenied: ["private/**"] }))],
    ],
    0,
    "over unconfined",
  );
}

// Without GNU time, a preload in the gg process itself reports its peak RSS (KB on Linux) to a file at exit.
const rssPreload = (file: string): string =>
  "data:text/javascript," +
  encodeURIComponent(`import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(${JSON.stringify(file)},String(process.resourceUsage().maxRSS)))`);

/** Wall seconds and peak RSS (KB; undefined if unknown) of one process; its stdout is returned. */
function timeProcess(command: string, args: string[], ggProcess: boolean, scratch: string): { secs: number; rssKb?: number; stdout: string } {
  const report = join(scratch, "time.out");
  rmSync(report, { force: true });
  const gnu = existsSync(GNU_TIME);
  if (!gnu && ggProcess) args = ["--import", rssPreload(report), ...args];
  const [cmd, argv] = gnu ? [GNU_TIME, ["-f", "%e %M", "-o", report, command, ...args]] : [command, args];
  const start = performance.now();
  const result = spawnSync(cmd, argv, { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "pipe"] });
  const wall = (performance.now() - start) / 1000;
  if (result.error || result.status !== 0) fail(`${command} ${args.join(" ")} exited ${result.status}: ${result.error?.message ?? result.stderr}`);
  const fields = existsSync(report) ? readFileSync(report, "utf8").trim().split(/\s+/).map(Number) : [];
  if (gnu) return { secs: fields[0]!, rssKb: fields[1]!, stdout: result.stdout };
  return { secs: wall, ...(fields[0] ? { rssKb: fields[0] } : {}), stdout: result.stdout };
}

function bigOutput(bytes: number, label: string, scratch: string): string[] {
  const pipeline = `head -c ${bytes} /dev/zero | tr '\\0' 'a' | fold -w 100`;
  const args = [GG, "call", "shell", JSON.stringify({ command: pipeline, timeoutSecs: 600 }), "--json", "--workspace", scratch];
  const gg = timeProcess(process.execPath, args, true, scratch);
  const json = JSON.parse(gg.stdout) as { ok: boolean; exitCode: number; truncated: boolean; files?: { stdout: string; stderr: string } };
  const stdoutFile = json.files?.stdout;
  const size = stdoutFile && existsSync(stdoutFile) ? statSync(stdoutFile).size : 0;
  for (const file of Object.values(json.files ?? {})) rmSync(file, { force: true });
  if (!json.ok || json.exitCode !== 0 || !json.truncated || size < bytes) {
    fail(`${label}: ok ${json.ok}, exit ${json.exitCode}, truncated ${json.truncated}, stdout file ${stdoutFile} ${size} bytes`);
  }
  const bare = timeProcess("sh", ["-c", `${pipeline} > /dev/null`], false, scratch);
  const rss = (kb?: number): string => (kb === undefined ? "n/a" : `${(kb / 1024).toFixed(0)}`);
  return [
    `| ${label}: gg call shell --json | ${gg.secs.toFixed(2)} | ${rss(gg.rssKb)} | ${(size / 1e6).toFixed(0)} MB on disk, truncated: ${json.truncated} |`,
    `| ${label}: sh -c '... > /dev/null' | ${bare.secs.toFixed(2)} | ${rss(bare.rssKb)} | ${(gg.secs / bare.secs).toFixed(2)}x slower through gg |`,
  ];
}

async function main(): Promise<void> {
  if (!existsSync(join(import.meta.dirname, "..", "dist", "main.mjs"))) fail("dist/ is missing; run npm run build first");
  const scratch = mkdtempSync(join(tmpdir(), "gg-bench-shell-"));
  try {
    console.log(`## shell call overhead (in-process, ${RUNS} runs after ${WARMUPS} warm-ups; goal < 5 ms)\n`);
    console.log((await overhead(scratch)).join("\n"));
    console.log(`\n## sandboxed command (in-process, ${RUNS} runs after ${WARMUPS} warm-ups; goal at most +25 ms over unconfined)\n`);
    mkdirSync(join(scratch, "secrets"));
    mkdirSync(join(scratch, "private"));
    console.log((await sandboxOverhead(scratch)).join("\n"));
    const timer = existsSync(GNU_TIME) ? "GNU time %e %M" : "process.resourceUsage().maxRSS preload";
    console.log(`\n## large output (whole CLI process, one run each; wall and peak RSS via ${timer})\n`);
    const rows = ["| case | wall s | peak RSS MB | notes |", "| --- | ---: | ---: | --- |"];
    rows.push(...bigOutput(100 * 1024 * 1024, "100 MB", scratch), ...bigOutput(1024 * 1024 * 1024, "1 GB", scratch));
    console.log(rows.join("\n"));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const sh = spawnSync("sh", ["-c", "readlink -f $(command -v sh)"], { encoding: "utf8" }).stdout.trim();
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM; node ${process.version}; sh ${sh}`);
  console.log("reproduce: npm run build && node bench/shell.ts");
}

await main();
