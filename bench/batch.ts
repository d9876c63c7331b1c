// Benchmark: the batch calls of seed 003 against the classic ones, on three.js 0.180.0's package as the context bench
// caches it (run `node bench/context.ts` first; it fetches the package).
// 1. Reading 16 ranges of 8 files: one batch read against 16 read_file calls, in process (createTools().call):
//    bytes returned and median wall time of 50 runs each.
// 2. Batch search with context_lines 1 against ripgrep -C1, whole processes, on the package (a batch walk visits at
//    most 10,000 entries): median of 15 runs, and the ratio.
// Rerun: `npm run build && node bench/batch.ts`.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfiguration } from "../bindings/config.ts";
import { createTools } from "../bindings/index.ts";
import { median, timings } from "./measure.ts";

const PACKAGE = join(process.env.GG_BENCH_CONTEXT ?? join(tmpdir(), "gg-bench-context"), "package");
const RUNS = Number(process.env.GG_BENCH_RUNS ?? 15);
const GG = join(import.meta.dirname, "..", "bin", "gg.js");
const BATCH = [
  { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
  { id: "edit-file", implementation: "batch" },
  { id: "list-dir", implementation: "batch" },
  { id: "search", implementation: "batch" },
];

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const timed = async (fn: () => Promise<unknown>, runs: number): Promise<number> => median(await timings(fn, runs, 5));

if (!existsSync(PACKAGE)) fail(`${PACKAGE} is missing; run node bench/context.ts first, which fetches three.js`);
if (!existsSync(join(import.meta.dirname, "..", "dist", "main.mjs"))) fail("dist/ is missing; run npm run build first");

// 1. Sixteen ranges of eight files.
const FILES = ["Vector2", "Vector3", "Vector4", "Matrix3", "Matrix4", "Quaternion", "Euler", "Color"].map((name) => `src/math/${name}.js`);
const RANGES = FILES.flatMap((path) => [
  { path, start_line: 1, end_line: 40 },
  { path, start_line: 101, end_line: 140 },
]);
const classic = createTools({ workspace: PACKAGE });
const batch = createTools({ workspace: PACKAGE, config: parseConfiguration(BATCH) });
const viaReadFile = async (): Promise<number> => {
  let bytes = 0;
  for (const range of RANGES) {
    const result = await classic.call("read_file", { path: range.path, offset: range.start_line, limit: range.end_line - range.start_line + 1 });
    if (!result.ok) fail(`read_file ${range.path}: ${result.error.message}`);
    bytes += Buffer.byteLength(result.text);
  }
  return bytes;
};
const viaRead = async (): Promise<number> => {
  const result = await batch.call("read", { files: RANGES, max_bytes: 64_000 });
  if (!result.ok) fail(`read: ${result.error.message}`);
  if ((result.data as { truncated: boolean }).truncated) fail("the batch read was cut by its budget; choose smaller ranges");
  return Buffer.byteLength(result.text);
};
const readFileBytes = await viaReadFile();
const readBytes = await viaRead();
const readFileMs = await timed(viaReadFile, 50);
const readMs = await timed(viaRead, 50);
console.log(`16 ranges of 8 files (40 lines each, three.js src/math), in process, medians of 50:`);
console.log(`  16 read_file calls: ${readFileBytes} bytes returned, ${readFileMs.toFixed(2)} ms`);
console.log(`  1 batch read:       ${readBytes} bytes returned, ${readMs.toFixed(2)} ms (${(readBytes / readFileBytes).toFixed(2)}x the bytes, ${(readMs / readFileMs).toFixed(2)}x the time)`);

// 2. Batch search with one context line against rg -C1, whole processes.
const config = join(tmpdir(), `gg-bench-batch-${process.pid}.json`);
writeFileSync(config, JSON.stringify(BATCH));
function time(command: string, args: string[], okStatus: number[]): number {
  const out = openSync("/dev/null", "w");
  const started = performance.now();
  const result = spawnSync(command, args, { stdio: ["ignore", out, "pipe"], encoding: "utf8" });
  const ms = performance.now() - started;
  closeSync(out);
  if (result.error || !okStatus.includes(result.status ?? -1)) fail(`${command} ${args.join(" ")} exited ${result.status}: ${result.error?.message ?? result.stderr}`);
  return ms;
}
const CASES: [string, object, string[]][] = [
  ["rare literal, full scan", { pattern: "zqxj_never_present_42", context_lines: 1 }, ["-n", "-F", "-C1", "zqxj_never_present_42"]],
  ["rare regex with a class, full scan", { pattern: "zqxj[0-9]+_never", regex: true, context_lines: 1 }, ["-n", "-C1", "zqxj[0-9]+_never"]],
  ["common literal `clone()` (gg stops at 50 hits; rg prints all)", { pattern: "clone()", context_lines: 1 }, ["-n", "-F", "-C1", "clone()"]],
];
console.log(`\nbatch search with context_lines 1 against rg -C1 on ${PACKAGE}, whole processes, medians of ${RUNS}:`);
console.log("| case | gg ms | rg ms | gg/rg |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, args, rgArgs] of CASES) {
  const gg = (): number => time(process.execPath, [GG, "call", "search", JSON.stringify(args), "--config", config, "--workspace", PACKAGE], [0]);
  const rg = (): number => time("rg", [...rgArgs, PACKAGE], [0, 1]);
  for (let i = 0; i < 2; i++) {
    gg();
    rg();
  }
  const ggTimes: number[] = [];
  const rgTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    ggTimes.push(gg());
    rgTimes.push(rg());
  }
  console.log(`| ${name} | ${median(ggTimes).toFixed(0)} | ${median(rgTimes).toFixed(0)} | ${(median(ggTimes) / median(rgTimes)).toFixed(1)}x |`);
}
