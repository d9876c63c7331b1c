// Benchmark: search, tree and glob as the workspace grows, beside ripgrep and fd measured in the same run, with the
// memory of the runner that searched. Workspaces (bench/workspaces.ts, built once, cached under $TMPDIR): the search
// corpus (1x), ten copies of it (10x), and generated monorepos of 100,000 and 1,000,000 small files.
// - Search, three patterns: a rare literal, a regex with common literals, a case-insensitive word. gg cold: a runtime
//   with no warm state (`warm: false`), its runner searching from a program; gg warm: the same search in a runtime
//   whose runner has searched before (two warm-ups, then a wait until its second thread is idle, filters built); rg:
//   `rg -n --no-require-git`, whole processes. Each round runs cold, rg, warm in turn; medians of the rounds. The
//   warm runner's CPU time while the others ran shows its background work did not compete with them.
// - tree depth 3 (gg warm, from a program) beside `fdfind -d 3 -E node_modules`; glob `**/*.ts` (the batch call, in
//   this process, warm) beside `fdfind -e ts -E node_modules`. Both gg calls are bounded by design (1,000 lines; a
//   batch walk visits at most 10,000 entries and fails past them, as seed 003 fixes), so their time stays flat.
// - The runners' resident memory (now and peak) once the workspace's searches are done, with the default budget.
// Prints a markdown table, and writes the chart (time and memory against files, log-log) as an SVG.
// Rerun: `npm run build && node bench/scale.ts`. Env: GG_BENCH_RUNS (rounds, default 5; 3 at a million files),
// GG_BENCH_SCALE_SIZES (default 1x,10x,100k,1M), GG_BENCH_SCALE_SVG (the chart's path; default next to the workspaces).
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { createTools } from "../bindings/index.ts";
import { DEFAULT_WARM_CAP_BYTES } from "../host/warm.ts";
import { createRuntime } from "../runtime/index.ts";
import { chartSvg, type Series } from "./chart.ts";
import { cpuMs, median, memoryMib, runnerPids } from "./measure.ts";
import { monorepo, onefold, type ScaleWorkspace, tenfold } from "./workspaces.ts";

const SIZES = (process.env.GG_BENCH_SCALE_SIZES ?? "1x,10x,100k,1M").split(",");
const RUNS = Number(process.env.GG_BENCH_RUNS ?? 5);
const MIB = 2 ** 20;
const PATTERNS: [string, string][] = [
  ["rare literal", "XyZzY_never_here"],
  ["common-literal regex", "fn\\s+update\\w*\\("],
  ["case-insensitive", "(?i)todo"],
];

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const WORKSPACES: Record<string, () => ScaleWorkspace> = { "1x": onefold, "10x": tenfold, "100k": () => monorepo(100_000, "100k"), "1M": () => monorepo(1_000_000, "1M") };

/** Wall time in ms of a reference tool's whole process, its output to /dev/null. */
function tool(command: string, args: string[], cwd: string): number {
  const out = openSync("/dev/null", "w");
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", out, "ignore"] });
  closeSync(out);
  if (result.error || (result.status !== 0 && result.status !== 1)) fail(`${command} ${args.join(" ")} failed: ${result.error?.message ?? result.status}`);
  return performance.now() - started;
}

type Runtime = ReturnType<typeof createRuntime>;
/** Wall time in ms of one program run to its report. */
async function program(runtime: Runtime, source: string): Promise<number> {
  const started = performance.now();
  const report = await runtime.run(source);
  if (!report.ok) fail(`program failed: ${report.error?.message}`);
  return performance.now() - started;
}

/** Waits (at most two minutes) until `pid` has used no CPU for 0.4 s: its second thread is done building filters. */
async function idle(pid: number): Promise<void> {
  for (let quiet = 0, waited = 0, last = cpuMs(pid); quiet < 2 && waited < 120_000; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuMs(pid);
    quiet = now - last <= 10 ? quiet + 1 : 0;
    last = now;
  }
}

/** What one workspace measured: medians in ms, memory in MiB. */
interface Measured {
  workspace: ScaleWorkspace;
  search: Record<string, { cold: number; warm: number; rg: number; background: number }>;
  tree: { gg: number; fd: number };
  glob: { gg: number; fd: number; answer: string };
  memory: { warm: { rss: number; peak: number }; cold: { rss: number; peak: number } };
  load: [number, number];
}

/** The rounds of `steps` (each timing one command), in turn; the median of each step's times. */
async function rounds(runs: number, steps: (() => Promise<number> | number)[]): Promise<number[]> {
  const times = steps.map((): number[] => []);
  for (let round = 0; round < runs; round++) for (const [i, step] of steps.entries()) times[i]?.push(await step());
  return times.map(median);
}

async function measureSearch(root: string, warm: Runtime, cold: Runtime, warmPid: number, runs: number): Promise<Measured["search"]> {
  const search: Measured["search"] = {};
  for (const [name, query] of PATTERNS) {
    const source = `return (await gg.files.search(${JSON.stringify(query)})).filesSearched`;
    for (let i = 0; i < 2; i++) await program(warm, source);
    await idle(warmPid);
    let background = 0;
    let before = 0;
    const [coldMs, rgMs, warmMs] = await rounds(runs, [
      async () => {
        before = cpuMs(warmPid);
        return program(cold, source);
      },
      () => tool("rg", ["-n", "--no-require-git", query, "."], root),
      async () => {
        background += cpuMs(warmPid) - before;
        return program(warm, source);
      },
    ]);
    search[name] = { cold: coldMs as number, warm: warmMs as number, rg: rgMs as number, background };
  }
  return search;
}

async function measure(workspace: ScaleWorkspace): Promise<Measured> {
  const { root } = workspace;
  const runs = workspace.files > 500_000 ? Math.min(RUNS, 3) : RUNS;
  const load: [number, number] = [loadavg()[0] ?? 0, 0];
  const started = async (runtime: Runtime): Promise<number> => {
    const before = runnerPids();
    await program(runtime, "return 1");
    return runnerPids().find((pid) => !before.includes(pid)) ?? fail("cannot find a runtime's runner process in /proc");
  };
  const warm = createRuntime({ workspace: root });
  const cold = createRuntime({ workspace: root, warm: false });
  const [warmPid, coldPid] = [await started(warm), await started(cold)];
  const search = await measureSearch(root, warm, cold, warmPid, runs);
  const treeSource = 'return (await gg.files.tree(".", { depth: 3 })).entries.length';
  await program(warm, treeSource);
  const [treeGg, treeFd] = (await rounds(runs, [() => program(warm, treeSource), () => tool("fdfind", ["-d", "3", "-E", "node_modules", "."], root)])) as [number, number];
  const batch = createTools({ workspace: root, config: [{ id: "list-dir", implementation: "batch" }] });
  let answer = "";
  const glob = async (): Promise<number> => {
    const started = performance.now();
    const result = await batch.call("glob", { patterns: ["**/*.ts"] });
    answer = result.ok ? `${(result.data as { results: unknown[] }).results.length} paths` : result.error.code;
    return performance.now() - started;
  };
  await glob();
  const [globGg, globFd] = (await rounds(runs, [glob, () => tool("fdfind", ["-e", "ts", "-E", "node_modules", "."], root)])) as [number, number];
  const memory = { warm: memoryMib(warmPid), cold: memoryMib(coldPid) };
  warm.close();
  cold.close();
  load[1] = loadavg()[0] ?? 0;
  return { workspace, search, tree: { gg: treeGg, fd: treeFd }, glob: { gg: globGg, fd: globFd, answer }, memory, load };
}

const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;

function table(all: Measured[]): string[] {
  const rows = [
    "| workspace | files (bytes) | case | gg cold ms | gg warm ms | reference ms | warm/reference | warm/cold |",
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { workspace: w, search, tree, glob, memory, load } of all) {
    const label = `${w.name} (load ${load[0].toFixed(1)}-${load[1].toFixed(1)})`;
    const size = `${w.files.toLocaleString("en")} (${(w.bytes / 1e6).toFixed(0)} MB${w.ignored ? `, ${w.ignored.toLocaleString("en")} ignored` : ""})`;
    for (const [name, { cold, warm, rg, background }] of Object.entries(search)) {
      rows.push(`| ${label} | ${size} | search, ${name} (rg; warm runner's CPU while cold and rg ran: ${background} ms) | ${ms(cold)} | ${ms(warm)} | ${ms(rg)} | ${ratio(warm, rg)} | ${ratio(warm, cold)} |`);
    }
    rows.push(`| ${label} | ${size} | tree depth 3 (fdfind -d 3) | | ${ms(tree.gg)} | ${ms(tree.fd)} | ${ratio(tree.gg, tree.fd)} | |`);
    rows.push(`| ${label} | ${size} | glob \`**/*.ts\` (fdfind -e ts): ${glob.answer} | | ${ms(glob.gg)} | ${ms(glob.fd)} | ${ratio(glob.gg, glob.fd)} | |`);
    rows.push(`| ${label} | ${size} | runner RSS / peak, MiB: warm ${memory.warm.rss.toFixed(0)} / ${memory.warm.peak.toFixed(0)}, cold ${memory.cold.rss.toFixed(0)} / ${memory.cold.peak.toFixed(0)} | | | | | |`);
  }
  return rows;
}

/** The chart: search times (two patterns), tree and glob, and memory, against files; the corpus's line and the monorepos'. */
function chart(all: Measured[]): string {
  const xs = all.map((one) => one.workspace.files);
  const family = (names: string[]) => (pick: (one: Measured) => number) => all.map((one) => (names.includes(one.workspace.name) ? pick(one) : undefined));
  const [corpus, mono] = [family(["1x", "10x"]), family(["100k", "1M"])];
  const lines = (entries: [string, string, (one: Measured) => number][]): Series[] =>
    entries.flatMap(([label, colour, pick]) => [
      { label: `${label}, corpus`, colour, values: corpus(pick) },
      { label: `${label}, monorepo`, colour, values: mono(pick), dashed: true },
    ]);
  const search = (name: string) => ({
    title: `search, ${name}`,
    unit: "ms (median)",
    series: lines([
      ["gg warm", "#1f6fd1", (one) => one.search[name]?.warm ?? 0],
      ["gg cold", "#e07b00", (one) => one.search[name]?.cold ?? 0],
      ["rg", "#666", (one) => one.search[name]?.rg ?? 0],
    ]),
  });
  return chartSvg(
    [
      search("rare literal"),
      search("common-literal regex"),
      { title: "tree depth 3 and glob **/*.ts (gg: over-cap)", unit: "ms (median)", series: lines([["gg tree", "#1f6fd1", (one) => one.tree.gg], ["fd -d 3", "#666", (one) => one.tree.fd], ["gg glob", "#2a9d4b", (one) => one.glob.gg]]) },
      { title: "runner memory after the searches", unit: "MiB resident", series: lines([["warm", "#1f6fd1", (one) => one.memory.warm.rss], ["warm peak", "#7aa7e6", (one) => one.memory.warm.peak], ["cold", "#e07b00", (one) => one.memory.cold.rss]]) },
    ],
    xs,
  );
}

async function main(): Promise<void> {
  for (const [command, package_] of [["rg", "ripgrep"], ["fdfind", "fd-find"]]) {
    if (spawnSync(command as string, ["--version"]).error) fail(`${command} is not on PATH; install Debian's ${package_} package: apt-get install ${package_}`);
  }
  if (!existsSync(join(import.meta.dirname, "..", "dist", "main.mjs"))) fail("dist/ is missing; run npm run build first");
  const started = performance.now();
  const all: Measured[] = [];
  for (const size of SIZES) {
    const build = WORKSPACES[size] ?? fail(`unknown size ${size}; the sizes are ${Object.keys(WORKSPACES).join(", ")}`);
    const workspace = build();
    console.error(`bench: ${size}: ${workspace.root}`);
    all.push(await measure(workspace));
  }
  const svg = process.env.GG_BENCH_SCALE_SVG ?? join(all[0]?.workspace.root ?? ".", "..", "scale.svg");
  writeFileSync(svg, chart(all));
  console.log(table(all).join("\n"));
  console.log(
    `\nmachine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; warm budget ${(DEFAULT_WARM_CAP_BYTES / MIB).toFixed(0)} MiB (the default); ${RUNS} rounds (3 at a million files); ` +
      `${((performance.now() - started) / 1000).toFixed(0)} s; chart: ${svg}`,
  );
  console.log("reproduce: npm run build && node bench/scale.ts");
}

await main();
