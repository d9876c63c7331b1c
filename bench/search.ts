// Benchmark: gg's search and tree against ripgrep, whole processes on both sides (`bin/gg call search`, start-up
// included, against `rg -n`), on the corpus of bench/corpus.ts (over 150 MB: npm packages' sources and a generated
// tree), one pattern of each kind. Reports the median and min wall time of N runs after 2 warm-ups, alternating gg and
// rg, the gg/rg ratio beside the ratio measured before literal-first matching, and gg's start-up floor. Then a
// folder holding a 126 MB executable (a copy of the Node binary, padded): gg's time and peak memory against rg's,
// and the bytes of read_file's text of it.
// Rerun: `npm run build && node bench/search.ts`. Env: GG_BENCH_RUNS (default 9), GG_BENCH_CORPUS.
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { invoke } from "../bindings/define.ts";
import { callContext } from "../bindings/index.ts";
import { search as searchCall } from "../bindings/search.ts";
import { buildCorpus, CORPUS, corpusSize } from "./corpus.ts";

const CACHE = join(CORPUS, "..");
const RUNS = Number(process.env.GG_BENCH_RUNS ?? 9);
const WARMUPS = 2;
const GG = join(import.meta.dirname, "..", "bin", "gg");

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

/** Runs a set-up command, failing the benchmark when it does not exit 0; returns its stdout. */
function run(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 << 20, ...options });
  if (result.error || result.status !== 0) fail(`${command} ${args.join(" ")} failed: ${result.error?.message ?? String(result.stderr)}`);
  return String(result.stdout);
}

function checkTools(): void {
  if (spawnSync("rg", ["--version"]).error) fail("ripgrep (rg) is not on PATH; install Debian's ripgrep package: apt-get install ripgrep");
  if (!existsSync(join(import.meta.dirname, "..", "dist", "main.mjs"))) fail("dist/ is missing; run npm run build first");
}

/** Wall time in ms of one process; its stdout goes to a file (rg's `function` case prints megabytes). */
function time(command: string, args: string[], okStatus: number[]): number {
  const out = openSync(join(CACHE, "stdout"), "w");
  const start = performance.now();
  const result = spawnSync(command, args, { stdio: ["ignore", out, "pipe"], encoding: "utf8" });
  const ms = performance.now() - start;
  closeSync(out);
  if (result.error || !okStatus.includes(result.status ?? -1)) {
    fail(`${command} ${args.join(" ")} exited ${result.status ?? result.signal}: ${result.error?.message ?? result.stderr}`);
  }
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface Stats {
  median: number;
  min: number;
}

/** Warm-ups, then RUNS timed runs of each command, alternated so drift hits both alike. */
function measure(commands: [string, string[], number[]][]): Stats[] {
  const samples: number[][] = commands.map(() => []);
  for (let i = 0; i < WARMUPS + RUNS; i++) {
    commands.forEach(([command, args, ok], c) => {
      const ms = time(command, args, ok);
      if (i >= WARMUPS) samples[c]!.push(ms);
    });
  }
  return samples.map((xs) => ({ median: median(xs), min: Math.min(...xs) }));
}

const gg = (tool: string, args: object, workspace = CORPUS): [string, string[], number[]] => [GG, ["call", tool, JSON.stringify(args), "--workspace", workspace], [0]];
const rg = (...args: string[]): [string, string[], number[]] => ["rg", [...args, CORPUS], [0, 1]];
const searching = (query: string): [string, string[], number[]][] => [gg("search", { query }), rg("-n", "--no-require-git", query)];

/**
 * The pattern kinds, and gg/rg for each measured on this corpus before literal-first matching and the cold search's
 * threads (commit e6ea633, medians of 9 in one run, load average 16 to 27 on 2 cores).
 */
const CASES: [string, [string, string[], number[]][], number][] = [
  ["rare literal `XyZzY_never_here`", searching("XyZzY_never_here"), 3.97],
  ["regex with common literals `fn\\s+update\\w*\\(`", searching("fn\\s+update\\w*\\("), 3.18],
  ["case-insensitive common word `(?i)todo`", searching("(?i)todo"), 2.28],
  ["no literal `\\w+\\s*=\\s*\\d{4,}`", searching("\\w+\\s*=\\s*\\d{4,}"), 1.69],
  ["rare regex `zqxj\\d+_never`", searching("zqxj\\d+_never"), 4.03],
  ["rare case-insensitive `(?i)zqxj_never`", searching("(?i)zqxj_never"), 4.27],
  ["tree depth 10 / rg --files", [gg("tree", { depth: 10 }), rg("--files", "--no-require-git")], 6.14],
];

/** Bytes of the executable the binary case searches past: the 126 MB ELF. */
const BINARY_BYTES = 126_000_000;

/** A folder holding an executable of BINARY_BYTES (the Node binary repeated, then cut) and a small text file. */
function binaryFolder(): string {
  const dir = join(CACHE, "binary");
  const blob = join(dir, "a.out");
  if (!existsSync(blob) || statSync(blob).size !== BINARY_BYTES) {
    mkdirSync(dir, { recursive: true });
    const elf = readFileSync(process.execPath);
    const out = Buffer.allocUnsafe(BINARY_BYTES);
    for (let at = 0; at < out.length; at += elf.length) elf.copy(out, at, 0, Math.min(elf.length, out.length - at));
    writeFileSync(blob, out);
  }
  writeFileSync(join(dir, "notes.txt"), "a needle in the notes\n");
  return dir;
}

/** Peak resident memory in MB of one process, as GNU time reports it; undefined without /usr/bin/time. */
function peakMb(command: string, args: string[]): number | undefined {
  const result = spawnSync("/usr/bin/time", ["-f", "%M", command, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  const kb = Number(String(result.stderr).trim().split("\n").pop());
  return result.error || !Number.isFinite(kb) ? undefined : kb / 1024;
}

/** The binary case: a search of the folder and of the folder without the binary (gg's own floor), and a read of it. */
async function binaryCase(): Promise<string[]> {
  const dir = binaryFolder();
  const textOnly = mkdtempSync(join(tmpdir(), "gg-bench-text-"));
  writeFileSync(join(textOnly, "notes.txt"), "a needle in the notes\n");
  const search = gg("search", { query: "needle" }, dir);
  const floor = gg("search", { query: "needle" }, textOnly);
  const ripgrep: [string, string[], number[]] = ["rg", ["-n", "--no-require-git", "needle", dir], [0, 1]];
  const [g, r] = measure([search, ripgrep]) as [Stats, Stats];
  const [textFloor] = measure([floor]) as [Stats];
  const peaks = [search, floor, ripgrep].map(([command, args]) => peakMb(command, args));
  // The call alone, in this process, a fresh context (no warm state) each time: what the binary costs without start-up.
  const inProcess = async (workspace: string): Promise<Stats> => {
    const times: number[] = [];
    for (let i = 0; i < WARMUPS + RUNS; i++) {
      const started = performance.now();
      const result = await invoke(searchCall, { query: "needle" }, callContext({ workspace, warm: false }));
      if (!result.ok) fail(`search in ${workspace} failed: ${result.error.message}`);
      if (i >= WARMUPS) times.push(performance.now() - started);
    }
    return { median: median(times), min: Math.min(...times) };
  };
  const [callBinary, callText] = [await inProcess(dir), await inProcess(textOnly)];
  const read = spawnSync(GG, ["call", "read_file", JSON.stringify({ path: "a.out" }), "--workspace", dir], { encoding: "utf8", maxBuffer: 64 << 20 });
  rmSync(textOnly, { recursive: true });
  // The file's text ends where the notes begin: the first of them names the read limit.
  const body = Buffer.byteLength(read.stdout.slice(0, read.stdout.search(/\n\[(the 256 KiB read limit|line \d+ (is|fills))/)));
  const mb = (value: number | undefined): string => (value === undefined ? "n/a" : value.toFixed(0));
  const extra = peaks[0] !== undefined && peaks[1] !== undefined ? peaks[0] - peaks[1] : undefined;
  return [
    `\nfolder with a ${(BINARY_BYTES / 1e6).toFixed(0)} MB executable and a text file (${dir}):`,
    "| case | gg median ms | rg median ms | ratio | gg peak MB | gg extra MB (vs the folder without it) | rg peak MB |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| search past a 126 MB binary | ${fmt(g)} | ${fmt(r)} | ${(g.median / r.median).toFixed(1)}x | ${mb(peaks[0])} | ${mb(extra)} | ${mb(peaks[2])} |`,
    `| the same folder without the binary (gg's floor) | ${fmt(textFloor)} | | | ${mb(peaks[1])} | | |`,
    `| the search call alone, in process: with the binary / without | ${fmt(callBinary)} / ${fmt(callText)} | ${fmt(r)} | ${(callBinary.median / r.median).toFixed(2)}x | | | |`,
    `read_file of the executable: exit ${read.status}, ${Buffer.byteLength(read.stdout)} bytes of text: the file's ${body} (ceiling 262144), then its notes`,
  ];
}

const fmt = (s: Stats): string => `${s.median.toFixed(1)} (min ${s.min.toFixed(1)})`;

async function main(): Promise<void> {
  checkTools();
  buildCorpus();
  const size = corpusSize();
  console.log(`corpus: ${CORPUS} (${(size.bytes / 1e6).toFixed(1)} MB, ${size.files} files)`);
  console.log(`runs: ${RUNS} timed after ${WARMUPS} warm-ups, alternating, whole processes, stdout to a file; load average ${loadavg()[0]?.toFixed(1)}\n`);
  const rows = ["| case | gg median ms | rg median ms | gg/rg | gg/rg before |", "| --- | ---: | ---: | ---: | ---: |"];
  for (const [name, commands, before] of CASES) {
    const [g, r] = measure(commands) as [Stats, Stats];
    rows.push(`| ${name} | ${fmt(g)} | ${fmt(r)} | ${(g.median / r.median).toFixed(2)}x | ${before.toFixed(2)}x |`);
  }
  const empty = mkdtempSync(join(tmpdir(), "gg-bench-empty-"));
  const [floor] = measure([gg("list_dir", { path: "." }, empty)]) as [Stats];
  rmSync(empty, { recursive: true });
  rows.push(`| gg start-up floor (list_dir on an empty dir) | ${fmt(floor)} | | | |`);
  rows.push(...(await binaryCase()));
  console.log(rows.join("\n"));
  const rgVersion = run("rg", ["--version"]).split("\n")[0];
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}; node ${process.version}; ${rgVersion}; load average ${loadavg()[0]?.toFixed(1)}`);
  console.log("reproduce: npm run build && node bench/search.ts");
}

await main();
