// Benchmark: what the approval gate costs a program's calls. 1,000 sequential gg.files.readFile calls from one program
// with no approval configuration, with a rule that allows them ({"call": "read_file", "when": {"path": "**"},
// "verdict": "allow"}), and with an approval hook (a process start per call, so it runs fewer calls: GG_BENCH_HOOK_CALLS,
// default 20). Runs alternate between the configurations, each one's median is reported, less a trivial program's
// median on the same runtime (the run's own cost), and the rule's overhead ratio (the goal: 1.05x at most). The runtimes
// run in a runner process each, whose load differs by a few percent from one to another; the same programs in engines
// sharing this process take those out, and the decision alone (decideNow, 100,000 times) is the gate's own cost.
// A path rule that could deny ({"call": "*", "when": {"path": "secrets/**"}, "verdict": "deny"}) judges each read by its
// real path and its hard links, and the read holds the file open and judges it again as it reads it: its cost too.
// A shell rule's decision parses the command line (tree-sitter-bash): its cost, parsing included, is set against a
// shell call's own (a short pipeline run by sh), and parsing a 1,000-word line warm is timed (the goal: under 1 ms).
// Rerun: `node bench/approvals.ts`; `--only none` runs the unconfigured case alone (also on a tree from before the gate,
// to compare), `--only shell` the shell figures alone, and `--json` prints the medians as one JSON object.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { callContext } from "../bindings/index.ts";
import { decideNow } from "../bindings/gate.ts";
import { readFile } from "../bindings/read_file.ts";
import { execute, shell } from "../bindings/shell.ts";
import { shellRun } from "../bindings/shell_commands.ts";
import { loadShellParser } from "../host/shell_parser.ts";
import { createEngine } from "../runtime/engine.ts";
import { createRuntime } from "../runtime/index.ts";
import { median } from "./measure.ts";

const ROUNDS = Number(process.env.GG_BENCH_RUNS ?? 9);
const FILES = 1000;
const HOOK_CALLS = Number(process.env.GG_BENCH_HOOK_CALLS ?? 20);
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const json = process.argv.includes("--json");

const workspace = mkdtempSync(join(tmpdir(), "gg-bench-approvals-"));
mkdirSync(join(workspace, "small"));
for (let i = 0; i < FILES; i++) writeFileSync(join(workspace, "small", `f${i}.txt`), `file ${i}\nsecond line\n`);
// The hook reads its request and allows; it lives outside the workspace's files read.
writeFileSync(join(workspace, "allow.sh"), `cat > /dev/null\necho '{"verdict": "allow"}'\n`);

const reads = (count: number): string => `for (let i = 0; i < ${count}; i++) await gg.files.readFile("small/f" + i + ".txt"); return 1;`;
const CASES = {
  none: { config: undefined, calls: FILES },
  rule: { config: { approvals: [{ call: "read_file", when: { path: "**" }, verdict: "allow" }] }, calls: FILES },
  // A path rule that could deny: each read is judged by its real path and its links, and held open as it is read.
  deny: { config: { approvals: [{ call: "*", when: { path: "secrets/**" }, verdict: "deny" }] }, calls: FILES },
  hook: { config: { approvalHook: { command: "sh ./allow.sh" } }, calls: HOOK_CALLS },
} as const;
type Case = keyof typeof CASES;
const names = (Object.keys(CASES) as Case[]).filter((name) => only === undefined || only.split(",").includes(name));
const shellToo = only === undefined || only.split(",").includes("shell");

/** Something that runs programs: a runtime (a runner process each) or an engine (in this process). */
type Runs = { run(source: string): Promise<{ ok: boolean; error?: { message: string } }> };

/** Wall ms of one run of `source` on `runs`, from run() to its report. */
async function timed(runs: Runs, source: string): Promise<number> {
  const started = performance.now();
  const report = await runs.run(source);
  if (!report.ok) throw new Error(`bench program failed: ${report.error?.message}`);
  return performance.now() - started;
}

interface Row {
  calls: number;
  totalMs: number;
  /** Less a trivial program's median on the same runner: the calls alone. */
  netMs: number;
  usPerCall: number;
}

/** Medians of `ROUNDS` runs of each case's program (and of a trivial one), alternated between the cases. */
async function measure(cases: [Case, Runs][]): Promise<Record<string, Row>> {
  const trivial = new Map<Case, number[]>(cases.map(([name]) => [name, []]));
  const program = new Map<Case, number[]>(cases.map(([name]) => [name, []]));
  // Warm: the runner, its isolates, the file cache, the compiled matchers.
  for (const [name, runs] of cases) for (let i = 0; i < 3; i++) await timed(runs, reads(CASES[name].calls));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated, so the machine's load falls on every configuration alike.
    for (const [name, runs] of round % 2 === 0 ? cases : [...cases].reverse()) {
      trivial.get(name)!.push(await timed(runs, "return 1"));
      program.get(name)!.push(await timed(runs, reads(CASES[name].calls)));
    }
  }
  return Object.fromEntries(
    cases.map(([name]) => {
      const totalMs = median(program.get(name)!);
      const netMs = totalMs - median(trivial.get(name)!);
      return [name, { calls: CASES[name].calls, totalMs, netMs, usPerCall: (netMs * 1000) / CASES[name].calls }];
    }),
  );
}

const configOf = (name: Case) => ({ workspace, ...(CASES[name].config ? { config: CASES[name].config } : {}) });
const runtimes = names.map((name): [Case, ReturnType<typeof createRuntime>] => [name, createRuntime(configOf(name))]);
// The same programs in engines sharing this process: no runner processes to differ in their load, so what differs
// between none and rule is the gate alone.
const engines = names.filter((name) => name !== "hook").map((name): [Case, ReturnType<typeof createEngine>] => [name, createEngine(configOf(name))]);

/** The table of `rows`, then the ratios. */
function print(title: string, rows: Record<string, Row>): void {
  console.log(`${title}, medians of ${ROUNDS} alternated runs (${cpus().length} cores)`);
  console.log("| configuration | calls | program ms | less a trivial program, ms | µs per call |");
  console.log("|---|---|---|---|---|");
  for (const [name, row] of Object.entries(rows)) console.log(`| ${name} | ${row.calls} | ${row.totalMs.toFixed(1)} | ${row.netMs.toFixed(1)} | ${row.usPerCall.toFixed(1)} |`);
  const { none, rule, deny, hook } = rows;
  if (none && rule) console.log(`An allowing rule: ${(rule.netMs / none.netMs).toFixed(3)}x the calls' time with no configuration (goal: at most 1.05x)`);
  if (none && deny) console.log(`A path rule that could deny (real paths, links, the file held open): ${(deny.netMs / none.netMs).toFixed(3)}x the calls' time with no configuration`);
  if (none && hook) console.log(`A hook: ${(hook.usPerCall / 1000).toFixed(2)} ms a call, ${(hook.usPerCall / none.usPerCall).toFixed(0)}x a call with no configuration (a process start per call)`);
  console.log("");
}

/** The shell figures, against their goals. */
function printShell(us: Record<string, number>): void {
  const extra = (us.decisionRule ?? 0) - (us.decisionNone ?? 0);
  console.log(`A shell rule ("git push*" denied) on ${JSON.stringify(LINE)}: its decision, parsing included, ${us.decisionRule?.toFixed(1)} µs (${us.decisionNone?.toFixed(2)} µs with no configuration): ${extra.toFixed(1)} µs more, ${((100 * extra) / (us.shellCall ?? 1)).toFixed(2)}% of the shell call's ${((us.shellCall ?? 0) / 1000).toFixed(2)} ms (goal: at most 5%)`);
  console.log(`A 1,000-word line (${THOUSAND_WORDS.length} characters), warm: parsed in ${((us.parse1000 ?? 0) / 1000).toFixed(3)} ms (${((us.parse1000Cpu ?? 0) / 1000).toFixed(3)} ms of CPU; goal: under 1 ms), its commands read through wrappers in ${((us.judge1000 ?? 0) / 1000).toFixed(3)} ms, the whole decision in ${((us.decide1000 ?? 0) / 1000).toFixed(3)} ms`);
}

/** µs of the gate's decision alone on one readFile call, per configuration (medians of 9 rounds of 100,000 calls). */
function decisionUs(): Record<string, number> {
  const contexts = (["none", "rule"] as const).map((name): [Case, ReturnType<typeof callContext>] => [name, callContext({ ...configOf(name), warm: false })]);
  const times = new Map<Case, number[]>(contexts.map(([name]) => [name, []]));
  const paths = Array.from({ length: FILES }, (_, i) => ({ path: `small/f${i}.txt` }));
  for (let round = 0; round < 10; round++) {
    for (const [name, context] of contexts) {
      const started = performance.now();
      for (let i = 0; i < 100_000; i++) decideNow(readFile, paths[i % FILES], context);
      // The first round warms the JIT.
      if (round > 0) times.get(name)!.push(((performance.now() - started) * 1000) / 100_000);
    }
  }
  return Object.fromEntries(contexts.map(([name]) => [name, median(times.get(name)!)]));
}

/** A line of 1,000 words: 100 commands of 10 words (quoted, expanded, a path), joined by `&&`, `|` and `;`. */
const THOUSAND_WORDS = Array.from({ length: 100 }, (_, i) => `${i === 0 ? "" : [" && ", " | ", "; "][i % 3]}cmd${i} --flag "quoted ${i}" 'single' $HOME src/f${i}.ts x y z w`).join("");
const LINE = "ls -la small | head -n 5 && echo done";

/** µs a call of `fn`, wall and CPU: the medians of 9 rounds of `count` calls, after a round that warms the JIT. */
function perCallUs(fn: () => unknown, count: number): { wall: number; cpu: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 10; round++) {
    const started = performance.now();
    const used = process.cpuUsage();
    for (let i = 0; i < count; i++) fn();
    const { user, system } = process.cpuUsage(used);
    if (round > 0) wall.push(((performance.now() - started) * 1000) / count);
    if (round > 0) cpu.push((user + system) / count);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** The shell rule's decision against a shell call's cost, and parsing a 1,000-word line warm, in µs. */
async function shellFigures(): Promise<Record<string, number>> {
  const parse = await loadShellParser();
  const none = callContext({ workspace, warm: false });
  const rule = callContext({ workspace, config: { approvals: [{ call: "shell", when: { command: "git push*" }, verdict: "deny" }] }, warm: false });
  const args = { command: LINE };
  if (decideNow(shell, args, rule)?.verdict !== "allow" || decideNow(shell, { command: "true && git push" }, rule)?.verdict !== "deny") throw new Error("the shell rule's decision is not the one expected");
  const decisionNone = perCallUs(() => decideNow(shell, args, none), 20_000).wall;
  const decisionRule = perCallUs(() => decideNow(shell, args, rule), 2_000).wall;
  const calls: number[] = [];
  for (let i = 0; i < 33; i++) {
    const started = performance.now();
    await execute(LINE, { cwd: workspace, policy: undefined, agent: "bench" });
    if (i >= 3) calls.push((performance.now() - started) * 1000);
  }
  // The grammar's WebAssembly is compiled in tiers, the optimized one in the background once it runs hot: warm it first.
  for (let i = 0; i < 300; i++) parse(THOUSAND_WORDS);
  const parsed = perCallUs(() => parse(THOUSAND_WORDS), 50);
  return {
    decisionNone,
    decisionRule,
    shellCall: median(calls),
    parse1000: parsed.wall,
    parse1000Cpu: parsed.cpu,
    judge1000: perCallUs(() => shellRun(THOUSAND_WORDS, parse), 50).wall,
    decide1000: perCallUs(() => decideNow(shell, { command: THOUSAND_WORDS }, rule), 50).wall,
  };
}

try {
  const whole = await measure(runtimes);
  const decision = only === undefined || only.includes("rule") ? decisionUs() : undefined;
  const inProcess = engines.length > 0 ? await measure(engines) : {};
  const shellUs = shellToo ? await shellFigures() : undefined;
  if (json) console.log(JSON.stringify({ runtimes: whole, engines: inProcess, ...(decision ? { decisionUs: decision } : {}), ...(shellUs ? { shellUs } : {}) }));
  else {
    if (runtimes.length > 0) print("Approval gate: sequential gg.files.readFile calls from one program, through createRuntime (a runner process per configuration)", whole);
    if (engines.length > 0) print("The same in engines sharing one process", inProcess);
    const call = whole.none?.usPerCall;
    if (decision && call) {
      const extra = (decision.rule ?? 0) - (decision.none ?? 0);
      console.log(`The decision alone (decideNow, in this process): ${decision.none?.toFixed(3)} µs a call with no configuration, ${decision.rule?.toFixed(3)} µs with the rule: ${extra.toFixed(3)} µs more, ${((100 * extra) / call).toFixed(1)}% of a call's ${call.toFixed(1)} µs`);
    }
    if (shellUs) printShell(shellUs);
  }
} finally {
  for (const [, runtime] of runtimes) runtime.close();
  await Promise.all(engines.map(([, engine]) => engine.close()));
  rmSync(workspace, { recursive: true, force: true });
}
