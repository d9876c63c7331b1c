// Benchmark: the context economy of the two arms. Eight tasks on two real code bases (three.js 0.180.0's sources and
// package.json with a generated test log; lodash 4.17.21's npm package, 640 entries in one folder), from one turn to
// several, each scripted for both arms: a scripted provider plays what a tool-calling agent and a code agent would
// send, through the real loop (runAgent). Each task must end with the same answer and the same files in both arms.
// Reported per arm, in gg's accounting (text at 4 bytes a token, runAgent's bands; the words as docs/context.md
// defines them): "entered", the tokens every request carried, added up (what a provider bills as input), and
// "window", the last request's window and the final answer (nothing is closed or evicted in these runs). Then the fixed
// prefix of each arm (system prompt, function definitions or opening turn) on four workspaces. Goals: code/tools
// entered <= 0.40 and window <= 0.60 over
// the suite, and a code prefix <= 1,000 tokens on every workspace. Beside them, what a user pays with a prompt cache
// ("cached"): each request's tokens with the prefix it shares with any earlier request of the same arm in the suite
// (its messages as sent, tool definitions first, compared character by character) at a tenth, the cache-read price.
// Then a long task (the modules lodash's cloneDeep and merge share: 17 tools turns) played by the tools arm and by the
// code arm with its state kept and afresh, a debugging session (four bugs found one at a time: 17 tool-calling turns)
// played by both arms, and a third (the test log's slowest modules, in four programs) played by the code arm both ways
// (goal: keeping state saves at least 25% of its entered tokens). A fourth, on three real MCP servers from npm
// (server-filesystem, server-memory, server-everything: 36 tools), triages two weeks of nightly test logs into a
// knowledge graph, played by both arms (goal: code/tools entered <= 0.15). Last, the code arm's fixed prefix with 0 to
// 3 of those servers, and with one server of 5 or 500 generated tools (bench/tools_server.ts): goal, at most 60 tokens
// more a server and none a tool. Rerun: `node bench/context.ts`. Env:
// GG_BENCH_CONTEXT (default $TMPDIR/gg-bench-context); GG_BENCH_BANDS=1 prints every turn's bands.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ChatCompletion, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type AgentReport, type Bands, bandsTotal, runAgent } from "../agent/loop.ts";
import type { Arm } from "../agent/prompts.ts";
import type { Provider } from "../agent/provider.ts";
import { parseConfiguration } from "../bindings/config.ts";
import { createExternals } from "../bindings/external.ts";
import type { McpServerEntry } from "../host/mcp_client.ts";
import { textTokens } from "../runtime/context.ts";
import { VIEW_HEADINGS } from "../runtime/window.ts";
import { everything, filesystem, memory } from "../test/mcp/servers.ts";

const CACHE = process.env.GG_BENCH_CONTEXT ?? join(tmpdir(), "gg-bench-context");
/** The packages the workspaces are made of, each unpacked once under CACHE/<folder>. */
const PACKAGES = { three: { spec: "three@0.180.0", folder: "package" }, lodash: { spec: "lodash@4.17.21", folder: "lodash" } } as const;
type Base = keyof typeof PACKAGES;
const SOURCE = join(CACHE, PACKAGES.three.folder);
const LOG = "test-output.log";

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

/** Unpacks a package into CACHE/<folder>, once; a marker file records a complete copy of it. */
function fetchPackage({ spec, folder }: (typeof PACKAGES)[Base]): void {
  const target = join(CACHE, folder);
  const marker = join(CACHE, `.complete-${folder}`);
  if (existsSync(marker) && readFileSync(marker, "utf8") === `${spec}\n`) return;
  rmSync(target, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  console.log(`fetching ${spec}`);
  const packed = spawnSync("npm", ["pack", spec, "--json", "--pack-destination", CACHE], { encoding: "utf8" });
  if (packed.status !== 0) fail(`npm pack ${spec} failed: ${packed.stderr}`);
  const [tarball] = JSON.parse(packed.stdout) as { filename: string }[];
  mkdirSync(target, { recursive: true });
  if (!tarball || spawnSync("tar", ["xzf", join(CACHE, tarball.filename), "-C", target, "--strip-components=1"]).status !== 0) fail(`cannot unpack ${spec}`);
  writeFileSync(marker, `${spec}\n`);
}

/** The 1-based line of `file` (under SOURCE) holding `text`: where the generated log's stack points. */
function lineOf(file: string, text: string): number {
  const index = readFileSync(join(SOURCE, file), "utf8").split("\n").findIndex((line) => line.includes(text));
  if (index < 0) fail(`${file} no longer holds ${JSON.stringify(text)}`);
  return index + 1;
}

/** A test runner's log: a passing line for three tests of each module of src/math, and one failure with its stack. */
function testLog(): string {
  const modules = readdirSync(join(SOURCE, "src"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".js")).sort();
  const lines = [" RUN  v3.2.4 /work/three.js", ""];
  let ms = 1;
  for (const module of modules) {
    const spec = `test/unit/src/${module.replace(/\.js$/, ".tests.js")}`;
    const name = module.slice(module.lastIndexOf("/") + 1, -3);
    for (const should of ["Instancing", "copy", "clone"]) {
      ms = (ms * 7 + 3) % 23;
      lines.push(` ✓ ${spec} > ${name} > ${should} ${ms}ms`);
    }
    if (module === "math/Matrix3.js") lines.push(` × ${spec} > Matrix3 > getNormalMatrix 4ms`);
  }
  const matrix4 = lineOf("src/math/Matrix4.js", "if ( det === 0 ) return this.set( 0, 0, 0, 0,");
  const matrix3 = lineOf("src/math/Matrix3.js", "return this.setFromMatrix4( matrix4 ).invert().transpose();");
  lines.push(
    "",
    "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯",
    "",
    " FAIL  test/unit/src/math/Matrix3.tests.js > Matrix3 > getNormalMatrix",
    "AssertionError: expected Matrix3{ elements: [ 0, 0, 0, 0, 0, 0, 0, 0, 0 ] } to deeply equal Matrix3{ elements: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ] }",
    ` ❯ src/math/Matrix4.js:${matrix4}:22`,
    ` ❯ src/math/Matrix3.js:${matrix3}:44`,
    "",
    ` Test Files  1 failed | ${modules.length - 1} passed (${modules.length})`,
    `      Tests  1 failed | ${modules.length * 3} passed (${modules.length * 3 + 1})`,
  );
  return `${lines.join("\n")}\n`;
}

/** A fresh workspace: three.js's sources, package.json and the test log; or lodash's whole package. */
function workspace(base: Base, log: string): string {
  const root = mkdtempSync(join(tmpdir(), "gg-bench-context-"));
  if (base === "lodash") {
    cpSync(join(CACHE, PACKAGES.lodash.folder), root, { recursive: true });
    return root;
  }
  cpSync(join(SOURCE, "src"), join(root, "src"), { recursive: true });
  cpSync(join(SOURCE, "package.json"), join(root, "package.json"));
  writeFileSync(join(root, LOG), log);
  return root;
}

/** Every file of a workspace with its content's hash: what the two arms must leave alike. */
function contents(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(root.length + 1), createHash("sha256").update(readFileSync(path)).digest("hex"));
  }
  return files;
}

// What both arms compute alike: the tools arm's script runs these on the host, the code arm's programs carry their
// source (as Node's type stripping leaves it), so the answers can only differ by what each arm was told.

/** Matches per file, from search results as data. */
function countByFile(matches: { path: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const match of matches) counts[match.path] = (counts[match.path] ?? 0) + 1;
  return counts;
}

/** The text with the symbol renamed. */
function renamed(text: string): string {
  return text.replace(/\bwarnOnce\b/g, "warnOnceAbout");
}

/** The failing test of a log's failure block, and the stack's frames. */
function failure(block: string): { test: string; frames: { path: string; line: number }[] } {
  const test = /FAIL\s+(.+)/.exec(block)?.[1]?.trim() ?? "";
  const frames = [...block.matchAll(/❯ (\S+?):(\d+):\d+/g)].map((frame) => ({ path: frame[1] ?? "", line: Number(frame[2]) }));
  return { test, frames };
}

/** The names a module's `export { ... }` lists give, and the modules it re-exports whole. */
function exportsOf(source: string): { names: string[]; whole: string[] } {
  const names: string[] = [];
  for (const list of source.matchAll(/export\s+\{([^}]*)\}/g)) {
    for (const item of (list[1] ?? "").split(",")) {
      const name = item.trim().split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  const whole = [...source.matchAll(/export\s+\*\s+from\s+'([^']+)'/g)].map((found) => found[1] ?? "");
  return { names: names.sort(), whole };
}

/** The first line of a read's text: a one-line window's line, without the footer that follows it. */
function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}

/** The version a package.json line declares. */
function versionIn(line: string): string {
  return /"version":\s*"([^"]+)"/.exec(line)?.[1] ?? "";
}

/** The files of search results, each once, in order. */
function filesOf(matches: { path: string }[]): string[] {
  return [...new Set(matches.map((match) => match.path))].sort();
}

/** The summary of a module's first doc comment: its first line of prose. */
function docSummary(source: string): string {
  const comment = /\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? "";
  return comment.split("\n").map((line) => line.replace(/^\s*\*\s?/, "").trim()).find((line) => line.length > 0) ?? "";
}

/** The answers, worded once for both arms. */
const answers = {
  todos: (counts: Record<string, number>): string =>
    Object.entries(counts)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, count]) => `${path}: ${count}`)
      .join("\n"),
  rename: (lines: number, files: number): string => `Renamed warnOnce to warnOnceAbout: ${lines} lines in ${files} files.`,
  failing: (test: string, lines: { path: string; line: number; text: string }[]): string => [`Failing test: ${test}`, ...lines.map((line) => `${line.path}:${line.line}: ${line.text.trim()}`)].join("\n"),
  exports: (found: { names: string[]; whole: string[] }): string => `${found.names.length} named exports, and everything of ${found.whole.join(", ")}:\n${found.names.join(", ")}`,
  version: (version: string): string => `This is three.js ${version}.`,
  callers: (files: string[]): string => `${files.length} files call baseFlatten:\n${files.join("\n")}`,
  summary: (line: string): string => `chunk: ${line}`,
  greeting: "Hello. Ask me about this code base.",
  shared: (first: number, second: number, shared: string[]): string => `cloneDeep needs ${first} modules and merge ${second}; the ${shared.length} they share are marked:\n${shared.join(", ")}`,
  bugs: (helpers: string[]): string => `Fixed ${helpers.length} bugs, one in each of ${helpers.join(", ")}; node check.js passes.`,
  slow: (tests: number, failed: number, rows: { spec: string; ms: number; lines: number }[]): string =>
    [`${tests} tests, ${failed} failed. The five slowest modules, written to SLOW.md:`, ...rows.map((row) => `${sourceOf(row.spec)}: ${row.ms} ms, ${row.lines} lines`)].join("\n"),
};

/** What a scripted model sends: a reply's text, or its tool calls. */
type Reply = { content: string } | { calls: { name: string; args: unknown }[] };

/** A scripted agent: its next reply, given the conversation so far. */
type Script = (history: ChatCompletionMessageParam[]) => Reply;

const textOf = (message: ChatCompletionMessageParam): string =>
  typeof message.content === "string" ? message.content : (message.content ?? []).map((part) => ("text" in part ? part.text : "")).join("");

/** How many replies the agent has sent: the step it is at. */
const step = (history: ChatCompletionMessageParam[]): number => history.filter((message) => message.role === "assistant").length;

/**
 * The texts that answered reply `n` (0-based; the last one by default): its tool messages, or its program's report.
 * The views band that closes a code agent's request is not an answer.
 */
function told(history: ChatCompletionMessageParam[], n = step(history) - 1): string[] {
  const replies = history.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  const after = history.slice((replies[n] ?? history.length) + 1, replies[n + 1] ?? history.length);
  // A windowed read's heading (`path lines a-b of n`) says what follows: the script reads what follows.
  const body = (text: string): string => text.replace(/^\S+ lines \d+-\d+ of \d+\n/, "");
  return after.filter((message) => message.role === "tool" || message.role === "user").map(textOf).map(body).filter((text) => !Object.values(VIEW_HEADINGS).some((heading) => text.startsWith(heading)));
}

/** The value a program returned, from its report. */
function returned<T>(history: ChatCompletionMessageParam[]): T {
  const report = told(history).find((text) => text.includes("Returned:\n"));
  if (!report) fail(`the program did not return: ${told(history).join("\n")}`);
  return JSON.parse(report.slice(report.indexOf("Returned:\n") + "Returned:\n".length)) as T;
}

/** The value program `n` (0-based) returned, from its report. */
function returnedAt(history: ChatCompletionMessageParam[], n: number): unknown {
  const report = told(history, n).find((text) => text.includes("Returned:\n"));
  if (!report) fail(`program ${n + 1} did not return: ${told(history, n).join("\n")}`);
  return JSON.parse(report.slice(report.indexOf("Returned:\n") + "Returned:\n".length));
}

/** A search result's lines as the tools arm reads them: `path:line:text`, a long line's text cut with a marker. */
const searchLines = (text: string): { path: string; line: number; text: string }[] =>
  text.split("\n").flatMap((line) => {
    const found = /^(.+?):(\d+):(.*?)(?: \(\d+ more chars\.\.\.\))?$/.exec(line);
    return found ? [{ path: found[1] ?? "", line: Number(found[2]), text: found[3] ?? "" }] : [];
  });

/** A program as a code agent writes it, carrying the shared functions it calls. */
const program = (body: string, ...helpers: ((...args: never[]) => unknown)[]): string => `\`\`\`ts\n${helpers.map((helper) => helper.toString()).join("\n")}\n${body.trim()}\n\`\`\``;

// The long task: the modules lodash's cloneDeep and merge need, directly or through others, and a mark on each they
// share. A tools agent reads its way through the requires a level at a time (each level's files at once), 15 levels;
// a code agent walks them in a program. Played by a code agent twice: keeping what a program found in the session's
// realm (issue 31), and as it must without that, each program declaring its helpers and walking again.

const ROOTS = ["cloneDeep.js", "merge.js"] as const;
const MARK = "// Shared by cloneDeep and merge.";

/** The modules a lodash module requires, by file name. */
function requiresOf(source: string): string[] {
  return [...source.matchAll(/require\('\.\/([^']+)'\)/g)].map((found) => `${found[1]}.js`);
}

/** The line that exports a lodash module: the edit's anchor. */
function exportLine(source: string): string {
  return /^module\.exports = [\w.]+;$/m.exec(source)?.[0] ?? "";
}

/** What `root` needs as far as `sources` (the files read so far) show it, and the files it needs that are still unread. */
function reach(root: string, sources: Map<string, string>): { needs: string[]; unread: string[] } {
  const needs = new Set<string>();
  const unread = new Set<string>();
  const todo = [root];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    const source = sources.get(file);
    if (source === undefined) {
      unread.add(file);
      continue;
    }
    for (const needed of requiresOf(source)) if (!needs.has(needed)) todo.push((needs.add(needed), needed));
  }
  needs.delete(root);
  return { needs: [...needs].sort(), unread: [...unread].sort() };
}

/** The files a tools agent has read, from its history: each read_file call's path and the text that answered it. */
function readSoFar(history: ChatCompletionMessageParam[]): Map<string, string> {
  const paths = new Map<string, string>();
  for (const message of history) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) if (call.type === "function" && call.function.name === "read_file") paths.set(call.id, (JSON.parse(call.function.arguments) as { path: string }).path);
  }
  const sources = new Map<string, string>();
  for (const message of history) if (message.role === "tool" && paths.has(message.tool_call_id)) sources.set(paths.get(message.tool_call_id) as string, textOf(message));
  return sources;
}

/** The tools agent of the long task: the next level of unread requires, then the marks, then the answer. */
const sharedTools: Script = (history) => {
  const sources = readSoFar(history);
  for (const root of ROOTS) {
    const { unread } = reach(root, sources);
    if (unread.length > 0) return { calls: unread.map((path) => ({ name: "read_file", args: { path } })) };
  }
  const [first, second] = ROOTS.map((root) => reach(root, sources).needs) as [string[], string[]];
  const shared = first.filter((file) => second.includes(file));
  const marked = history.some((message) => message.role === "assistant" && message.tool_calls?.some((call) => call.type === "function" && call.function.name === "edit_file"));
  if (!marked) return { calls: shared.map((path) => ({ name: "edit_file", args: { path, old: exportLine(sources.get(path) ?? ""), new: `${exportLine(sources.get(path) ?? "")}\n${MARK}` } })) };
  return { content: answers.shared(first.length, second.length, shared) };
};

/** A code agent's walk of the requires: the helper its programs declare. */
const WALK = `const sources = new Map<string, string>();
async function needsOf(root: string): Promise<string[]> {
  const needs = new Set<string>(), todo = [root];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (!sources.has(file)) sources.set(file, await gg.files.readFile(file));
    for (const needed of requiresOf(sources.get(file) as string)) if (!needs.has(needed)) todo.push((needs.add(needed), needed));
  }
  needs.delete(root);
  return [...needs].sort();
}`;
const MARKING = `for (const path of shared) await gg.files.editFile(path, exportLine(sources.get(path) as string), exportLine(sources.get(path) as string) + "\\n${MARK}");`;

/**
 * The code agent of the long task in three programs, each but the first after what the one before found: the second
 * and third as `later` writes them (with the realm kept, or declaring and walking again), then the answer.
 */
const sharedCode =
  (later: (step: 1 | 2) => string): Script =>
  (history) => {
    const s = step(history);
    if (s === 0) return { content: program(`${WALK}\nconst first = await needsOf("cloneDeep.js");\nreturn first.length;`, requiresOf) };
    if (s === 1 || s === 2) return { content: later(s) };
    return { content: answers.shared(Number(returnedAt(history, 0)), (returnedAt(history, 1) as { second: number }).second, returnedAt(history, 2) as string[]) };
  };
const SHARED = "const second = await needsOf(\"merge.js\");\nconst shared = first.filter((file) => second.includes(file));";
const COUNTS = "return { second: second.length, shared: shared.length };";

/** Keeping what its programs found in the realm: the later programs use the first's helpers and results. */
const sharedKept = sharedCode((s) => (s === 1 ? program(`${SHARED}\n${COUNTS}`) : program(`${MARKING}\nreturn shared;`, exportLine)));

/** Where nothing outlives a program: each declares its helpers again and walks from the start. */
const sharedAfresh = sharedCode((s) => {
  const both = `${WALK}\nconst first = await needsOf("cloneDeep.js");\n${SHARED}`;
  return s === 1 ? program(`${both}\n${COUNTS}`, requiresOf) : program(`${both}\n${MARKING}\nreturn shared;`, requiresOf, exportLine);
});

// The third long task: the log's slowest modules, a step at a time, as a model that looks at each result before the
// next step would take it: the log parsed into records, the five slowest modules, their sources' sizes, a report file.
// Played by a code agent keeping the records and what it found in the realm, and afresh, each program parsing again.

/** The tests a runner's log reports: each line's spec file, test, time and outcome. */
function testsOf(log: string): { spec: string; test: string; ms: number; ok: boolean }[] {
  return [...log.matchAll(/^ ([✓×]) (\S+) > (.+?) (\d+)ms$/gm)].map((found) => ({ spec: found[2] ?? "", test: found[3] ?? "", ms: Number(found[4]), ok: found[1] === "✓" }));
}

/** The `n` spec files whose tests took longest in all, slowest first (ties in path order). */
function slowest(tests: { spec: string; ms: number }[], n: number): { spec: string; ms: number }[] {
  const totals = new Map<string, number>();
  for (const test of tests) totals.set(test.spec, (totals.get(test.spec) ?? 0) + test.ms);
  return [...totals]
    .map(([spec, ms]) => ({ spec, ms }))
    .sort((a, b) => b.ms - a.ms || (a.spec < b.spec ? -1 : 1))
    .slice(0, n);
}

/** The source file a spec file tests. */
function sourceOf(spec: string): string {
  return spec.replace(/^test\/unit\//, "").replace(/\.tests\.js$/, ".js");
}

/** The report of the slowest modules: one table row each. */
function slowReport(rows: { spec: string; ms: number; lines: number }[]): string {
  return ["| module | tests ms | source lines |", "|---|---:|---:|", ...rows.map((row) => `| ${sourceOf(row.spec)} | ${row.ms} | ${row.lines} |`)].join("\n") + "\n";
}

const SLOW_STEPS = {
  parse: `const tests = testsOf(String(await gg.files.readFile(${JSON.stringify(LOG)}, { limit: 1_000_000 })));`,
  counts: "return { tests: tests.length, failed: tests.filter((test) => !test.ok).length };",
  top: "const top = slowest(tests, 5);",
  rows: "const rows = [];\nfor (const row of top) rows.push({ ...row, lines: String(await gg.files.readFile(sourceOf(row.spec), { limit: 1_000_000 })).split(\"\\n\").length });",
  write: 'await gg.files.writeFile("SLOW.md", slowReport(rows));\nreturn "SLOW.md";',
};

/**
 * The code agent of the slow-modules task in four programs, each after the one before: the log parsed and counted, the
 * slowest five, their sources' lines, the report written; then the answer. `later` writes programs 2 to 4.
 */
const slowCode =
  (later: (step: 2 | 3 | 4) => string): Script =>
  (history) => {
    const s = step(history);
    if (s === 0) return { content: program(`${SLOW_STEPS.parse}\n${SLOW_STEPS.counts}`, testsOf) };
    if (s === 1 || s === 2 || s === 3) return { content: later((s + 1) as 2 | 3 | 4) };
    const counts = returnedAt(history, 0) as { tests: number; failed: number };
    const top = returnedAt(history, 1) as { spec: string; ms: number }[];
    const lines = returnedAt(history, 2) as number[];
    return { content: answers.slow(counts.tests, counts.failed, top.map((row, i) => ({ ...row, lines: lines[i] ?? 0 }))) };
  };

/** Keeping the records and what each step found: each later program is its step alone. */
const slowKept = slowCode((s) =>
  s === 2 ? program(`${SLOW_STEPS.top}\nreturn top;`, slowest) : s === 3 ? program(`${SLOW_STEPS.rows}\nreturn rows.map((row) => row.lines);`, sourceOf) : program(SLOW_STEPS.write, slowReport),
);

/** Where nothing outlives a program: each parses the log again and redoes the steps before its own. */
const slowAfresh = slowCode((s) => {
  const top = `${SLOW_STEPS.parse}\n${SLOW_STEPS.top}`;
  if (s === 2) return program(`${top}\nreturn top;`, testsOf, slowest);
  if (s === 3) return program(`${top}\n${SLOW_STEPS.rows}\nreturn rows.map((row) => row.lines);`, testsOf, slowest, sourceOf);
  return program(`${top}\n${SLOW_STEPS.rows}\n${SLOW_STEPS.write}`, testsOf, slowest, sourceOf, slowReport);
});

// The second long task: four bugs, one at a time, as a debugging session goes. check.js stops at its first failing
// check, and each bug is in the private helper the failing function calls: an agent runs the checks, reads the
// function, then its helper, fixes the line and runs again. A tools agent takes a call a step (17 tool-calling turns);
// a code agent one program a bug, each fixing the last bug found and looking for the next.

/** The bugs planted in lodash's helpers: a line as lodash has it, and as planted. */
const BUGS = [
  { file: "_baseInRange.js", good: "number < nativeMax(start, end)", bad: "number <= nativeMax(start, end)" },
  { file: "_baseClamp.js", good: "number = number <= upper ? number : upper;", bad: "number = number >= upper ? number : upper;" },
  { file: "_baseSum.js", good: "while (++index < length) {", bad: "while (++index < length - 1) {" },
  { file: "_baseMean.js", good: "(baseSum(array, iteratee) / length)", bad: "(baseSum(array, iteratee) / (length + 1))" },
] as const;
const CHECK = "node check.js";
const CHECKS = `const checks = [
  ["inRange(4, 2, 4)", () => require("./inRange")(4, 2, 4), false],
  ["clamp(10, -5, 5)", () => require("./clamp")(10, -5, 5), 5],
  ["sum([4, 2, 8, 6])", () => require("./sum")([4, 2, 8, 6]), 20],
  ["mean([4, 2, 8, 6])", () => require("./mean")([4, 2, 8, 6]), 5],
];
for (const [name, run, expected] of checks) {
  const got = run();
  if (got !== expected) {
    console.log(\`FAIL \${name}: expected \${expected}, got \${got}\`);
    process.exit(1);
  }
  console.log(\`ok \${name}\`);
}
console.log("all checks pass");
`;

/** Plants the bugs in a copy of lodash and writes its checks. */
function plantBugs(root: string): void {
  for (const bug of BUGS) {
    const path = join(root, bug.file);
    const text = readFileSync(path, "utf8");
    if (text.split(bug.good).length !== 2) fail(`${bug.file} no longer holds ${JSON.stringify(bug.good)} once`);
    writeFileSync(path, text.replace(bug.good, bug.bad));
  }
  writeFileSync(join(root, "check.js"), CHECKS);
}

/** The function whose check failed in check.js's output, or "" when every check passed. */
function failingName(output: string): string {
  return /FAIL (\w+)\(/.exec(output)?.[1] ?? "";
}

/** The private helper a lodash function's module hands its work to: `_base<Name>.js`, among what it requires. */
function helperOf(path: string, source: string): string {
  return requiresOf(source).find((file) => file.toLowerCase() === `_base${path.toLowerCase()}`) ?? "";
}

/** The fix of the bug a helper's source holds. */
function fixIn(source: string): { old: string; new: string } {
  const bug = BUGS.find((planted) => source.includes(planted.bad));
  return bug ? { old: bug.bad, new: bug.good } : fail(`no planted bug in:\n${source}`);
}

/** The last reply's first tool call: its name and arguments. */
function lastCall(history: ChatCompletionMessageParam[]): { name: string; args: { path?: string } } | undefined {
  const reply = history.findLast((message) => message.role === "assistant");
  const call = reply?.role === "assistant" ? reply.tool_calls?.[0] : undefined;
  return call?.type === "function" ? { name: call.function.name, args: JSON.parse(call.function.arguments) as { path?: string } } : undefined;
}

/** The tools agent: the checks, the failing function, its helper, the fix; again until every check passes. */
const bugsTools: Script = (history) => {
  const last = lastCall(history);
  const result = told(history)[0] ?? "";
  if (!last || last.name === "edit_file") return { calls: [{ name: "shell", args: { command: CHECK } }] };
  if (last.name === "shell") {
    const name = failingName(result);
    if (name) return { calls: [{ name: "read_file", args: { path: `${name}.js` } }] };
    const fixed = history.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []) : [])).filter((call) => call.type === "function" && call.function.name === "edit_file");
    return { content: answers.bugs(fixed.map((call) => (call.type === "function" ? (JSON.parse(call.function.arguments) as { path: string }).path : ""))) };
  }
  const path = last.args.path ?? "";
  if (!path.startsWith("_")) return { calls: [{ name: "read_file", args: { path: helperOf(path, result) } }] };
  return { calls: [{ name: "edit_file", args: { path, ...fixIn(result) } }] };
};

/** A code agent's look for the next bug: the checks run, and the failing function's helper read. */
const INVESTIGATE = `async function investigate() {
  const run = await gg.shell.shell(${JSON.stringify(CHECK)});
  const name = failingName(run.output);
  if (!name) return { output: run.output };
  const helper = helperOf(\`\${name}.js\`, String(await gg.files.readFile(\`\${name}.js\`)));
  return { output: run.output, helper, source: String(await gg.files.readFile(helper)) };
}`;

/** The code agent: a first program that looks, then one a bug that fixes what the last found and looks again. */
const bugsCode: Script = (history) => {
  const s = step(history);
  if (s === 0) return { content: program(`${INVESTIGATE}\nreturn investigate();`, requiresOf, failingName, helperOf) };
  const found = returnedAt(history, s - 1) as { helper?: string; source?: string };
  if (found.helper === undefined) return { content: answers.bugs(Array.from({ length: s - 1 }, (_, n) => (returnedAt(history, n) as { helper: string }).helper)) };
  const fix = fixIn(found.source ?? "");
  return { content: program(`await gg.files.editFile(${JSON.stringify(found.helper)}, ${JSON.stringify(fix.old)}, ${JSON.stringify(fix.new)});\nreturn investigate();`) };
};

// The fourth long task, on other MCP servers: the nightly test runs of two weeks, logs the filesystem server serves
// (outside the workspace), triaged into the team's knowledge graph (server-memory: a module entity for each of
// three.js's 710 modules, its imports and owner as relations, and failing tests from an earlier triage), a report in the
// workspace, published gzipped through server-everything. A tools agent reads each log's last 40 lines (where the
// runner puts its failures: it cannot search a file through the filesystem server, and 14 whole logs would not fit a
// window), records, queries the graph back and reads every relation of the modules it asks about; a code agent reads
// the whole logs and the graph's answer in its programs and keeps what it needs.

/** The three.js modules, each with the modules it imports. */
function moduleImports(): Map<string, string[]> {
  const modules = readdirSync(join(SOURCE, "src"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".js")).sort();
  return new Map(
    modules.map((module) => {
      const source = readFileSync(join(SOURCE, "src", module), "utf8");
      const imported = [...source.matchAll(/from '(\.[^']+\.js)'/g)].map((found) => join(dirname(module), found[1] ?? ""));
      return [`src/${module}`, [...new Set(imported)].filter((target) => modules.includes(target)).map((target) => `src/${target}`).sort()];
    }),
  );
}

/** Who owns a module, by its folder. */
const OWNERS: Record<string, string> = { math: "Mira Patel", core: "Colin Park", animation: "Ana Ruiz", audio: "Ana Ruiz", loaders: "Jonas Berg", renderers: "Sam Okafor", nodes: "Sam Okafor" };
const ownerOf = (module: string): string => OWNERS[module.split("/")[1] ?? ""] ?? "Lea Martin";

/** The nights of the two weeks, and each flaky test's nights of failure among them (by index). */
const NIGHTS = Array.from({ length: 14 }, (_, i) => `2026-08-${String(18 + i).padStart(2, "0")}`);
const FLAKY = [
  { spec: "test/unit/src/math/Matrix3.tests.js", test: "Matrix3 > getNormalMatrix", nights: [1, 2, 4, 5, 7, 8, 10, 12, 13], error: "AssertionError: expected 0.9999998 to be close to 1 (within 1e-7)" },
  { spec: "test/unit/src/core/Object3D.tests.js", test: "Object3D > lookAt", nights: [3, 9, 11], error: "AssertionError: expected Quaternion{ x: 0, y: 0.7071067, z: 0, w: 0.7071068 } to deeply equal Quaternion{ x: 0, y: 0.7071068, z: 0, w: 0.7071068 }" },
  { spec: "test/unit/src/loaders/FileLoader.tests.js", test: "FileLoader > load", nights: [0, 6], error: "Error: Test timed out in 5000ms." },
  { spec: "test/unit/src/math/Quaternion.tests.js", test: "Quaternion > slerpFlat", nights: [5, 11], error: "AssertionError: expected 0.38268343236509 to be 0.3826834323650898" },
  { spec: "test/unit/src/core/BufferGeometry.tests.js", test: "BufferGeometry > computeBoundingSphere", nights: [8], error: "AssertionError: expected 1.7320508 to be close to 1.7320509 (within 1e-7)" },
  { spec: "test/unit/src/animation/AnimationMixer.tests.js", test: "AnimationMixer > clipAction", nights: [13], error: "TypeError: Cannot read properties of undefined (reading 'uuid')" },
];

/** The test log of night `n`: three passing tests of each module, the night's failures among them and at the end. */
function nightlyLog(n: number, modules: string[]): string {
  const failing = FLAKY.filter((flaky) => flaky.nights.includes(n));
  const lines = [" RUN  v3.2.4 /work/three.js", ""];
  let ms = n + 1;
  for (const module of modules) {
    const spec = `test/unit/${module.replace(/\.js$/, ".tests.js")}`;
    const name = module.slice(module.lastIndexOf("/") + 1, -3);
    for (const should of ["Instancing", "copy", "clone"]) {
      ms = (ms * 7 + 3) % 23;
      lines.push(` ✓ ${spec} > ${name} > ${should} ${ms}ms`);
    }
    for (const flaky of failing.filter((candidate) => candidate.spec === spec)) lines.push(` × ${spec} > ${flaky.test} ${(ms * 13) % 97}ms`);
  }
  const tests = modules.length * 3 + failing.length;
  lines.push("", `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failing.length} ⎯⎯⎯⎯⎯⎯⎯`, "");
  for (const flaky of failing) lines.push(` FAIL  ${flaky.spec} > ${flaky.test}`, flaky.error, ` ❯ ${flaky.spec}:${100 + flaky.test.length}:18`, "");
  lines.push(` Test Files  ${failing.length} failed | ${modules.length - failing.length} passed (${modules.length})`, `      Tests  ${failing.length} failed | ${tests - failing.length} passed (${tests})`);
  return `${lines.join("\n")}\n`;
}

/** Writes the two weeks' logs into `folder`. */
function writeNightly(folder: string, modules: string[]): void {
  mkdirSync(folder, { recursive: true });
  for (const [n, night] of NIGHTS.entries()) writeFileSync(join(folder, `${night}.log`), nightlyLog(n, modules));
}

/** The team's knowledge graph as server-memory stores it (JSON lines): modules, their imports and owners, people, and an earlier triage's failing tests. */
function teamGraph(imports: Map<string, string[]>): string {
  const people = [...new Set([...imports.keys()].map(ownerOf))].sort();
  const earlier = [
    { name: "Matrix3 > getNormalMatrix", module: "src/math/Matrix3.js", failed: 4 },
    { name: "FileLoader > load", module: "src/loaders/FileLoader.js", failed: 1 },
    { name: "Color > setHSL", module: "src/math/Color.js", failed: 2 },
    { name: "Raycaster > intersectObjects", module: "src/core/Raycaster.js", failed: 1 },
  ];
  const entity = (name: string, entityType: string, observations: string[]) => JSON.stringify({ type: "entity", name, entityType, observations });
  const relation = (from: string, to: string, relationType: string) => JSON.stringify({ type: "relation", from, to, relationType });
  return [
    ...people.map((person) => entity(person, "person", [`maintains ${[...imports.keys()].filter((module) => ownerOf(module) === person).length} modules`])),
    ...[...imports.keys()].map((module) => entity(module, "module", [`${readFileSync(join(SOURCE, module), "utf8").split("\n").length} lines`])),
    ...earlier.map((test) => entity(test.name, "failing-test", [`failed in ${test.failed} of 14 nightly runs, 2026-08-04 to 2026-08-17`])),
    ...[...imports].flatMap(([module, imported]) => [relation(module, ownerOf(module), "owned by"), ...imported.map((target) => relation(module, target, "imports"))]),
    ...earlier.map((test) => relation(test.name, test.module, "tests")),
  ].join("\n");
}

// What both arms compute of the triage, alike.

/** The log files of a filesystem server's directory listing, in order. */
function logsIn(listing: string): string[] {
  return [...listing.matchAll(/^\[FILE\] (\S+\.log)$/gm)].map((found) => found[1] ?? "").sort();
}

/** The failures a test log's failure block names: each FAIL line's test ("Suite > test") and the module it tests. */
function failuresIn(log: string): { test: string; module: string }[] {
  return [...log.matchAll(/^ FAIL {2}(\S+) > (.+)$/gm)].map((found) => ({ test: found[2] ?? "", module: (found[1] ?? "").replace(/^test\/unit\//, "").replace(/\.tests\.js$/, ".js") }));
}

/** Each failing test with its module and the nights it failed, most failures first. */
function tally(nights: { night: string; failures: { test: string; module: string }[] }[]): { test: string; module: string; nights: string[] }[] {
  const byTest = new Map<string, { test: string; module: string; nights: string[] }>();
  for (const { night, failures } of nights) {
    for (const failure of failures) {
      const row = byTest.get(failure.test) ?? { ...failure, nights: [] };
      byTest.set(failure.test, row);
      row.nights.push(night);
    }
  }
  return [...byTest.values()].sort((a, b) => b.nights.length - a.nights.length || (a.test < b.test ? -1 : 1));
}

/** What the graph records of a test's two weeks. */
function observed(failed: number, nights: string[]): string {
  return `failed in ${failed} of ${nights.length} nightly runs, ${nights[0]} to ${nights[nights.length - 1]}`;
}

/** The triage from the graph queried back: each test's owner (its module's "owned by") and whether an earlier triage knew it. */
function triageRows(rows: { test: string; module: string; nights: string[] }[], graph: { entities: { name: string; observations: string[] }[]; relations: { from: string; to: string; relationType: string }[] }) {
  return rows.map((row) => ({
    test: row.test,
    runs: row.nights.length,
    module: row.module,
    owner: graph.relations.find((relation) => relation.from === row.module && relation.relationType === "owned by")?.to ?? "nobody",
    known: (graph.entities.find((entity) => entity.name === row.test)?.observations.length ?? 0) > 1,
  }));
}

/** TRIAGE.md. */
function triageReport(table: { test: string; runs: number; module: string; owner: string; known: boolean }[], nights: string[]): string {
  const rows = table.map((row) => `| ${row.test} | ${row.runs} | ${row.module} | ${row.owner} | ${row.known ? "known" : "new"} |`);
  return [`# Nightly failures, ${nights[0]} to ${nights[nights.length - 1]} (${nights.length} runs)`, "", "| test | runs failed | module | owner | |", "|---|---:|---|---|---|", ...rows, ""].join("\n");
}

/** A text as a data URI, which server-everything's gzip-file-as-resource takes. */
function dataUri(text: string): string {
  return `data:text/markdown,${encodeURIComponent(text)}`;
}

/** The answer of the triage. */
const triageAnswer = (runs: number, table: { test: string; runs: number; owner: string; known: boolean }[], link: string): string =>
  [`Triaged ${runs} nightly runs: ${table.length} tests failed, recorded in the memory graph; TRIAGE.md, gzipped: ${link}`, ...table.map((row) => `- ${row.test}: ${row.runs} ${row.runs === 1 ? "run" : "runs"}, ${row.owner} (${row.known ? "known" : "new"})`)].join("\n");

/** The lines of a log's end a tools agent reads: the runner's failure block and summary are there. */
const TAIL = 40;

/** The tools agent of the triage: the listing, each log's end, the records, the graph queried back, the report, the answer. */
function triageTools(nightly: string): Script {
  return (history) => {
    const s = step(history);
    if (s === 0) return { calls: [{ name: "mcp__filesystem__list_directory", args: { path: nightly } }] };
    const logs = logsIn(told(history, 0)[0] ?? "");
    if (s === 1) return { calls: logs.map((name) => ({ name: "mcp__filesystem__read_text_file", args: { path: `${nightly}/${name}`, tail: TAIL } })) };
    const tails = told(history, 1);
    for (const [i, tail] of tails.entries()) if (failuresIn(tail).length !== Number(/Tests +(\d+) failed/.exec(tail)?.[1])) fail(`the last ${TAIL} lines of ${logs[i]} no longer hold its failures`);
    const nights = logs.map((name) => name.replace(/\.log$/, ""));
    const rows = tally(nights.map((night, i) => ({ night, failures: failuresIn(tails[i] ?? "") })));
    if (s === 2) return { calls: [{ name: "mcp__memory__create_entities", args: { entities: rows.map((row) => ({ name: row.test, entityType: "failing-test", observations: [] })) } }] };
    if (s === 3) {
      return {
        calls: [
          { name: "mcp__memory__add_observations", args: { observations: rows.map((row) => ({ entityName: row.test, contents: [observed(row.nights.length, nights)] })) } },
          { name: "mcp__memory__create_relations", args: { relations: rows.map((row) => ({ from: row.test, to: row.module, relationType: "tests" })) } },
        ],
      };
    }
    if (s === 4) return { calls: [{ name: "mcp__memory__open_nodes", args: { names: [...rows.map((row) => row.test), ...new Set(rows.map((row) => row.module))] } }] };
    const table = triageRows(rows, JSON.parse(told(history, 4)[0] ?? "{}"));
    const report = triageReport(table, nights);
    if (s === 5) return { calls: [{ name: "write_file", args: { path: "TRIAGE.md", content: report } }, { name: "mcp__everything__gzip-file-as-resource", args: { name: "TRIAGE.md.gz", data: dataUri(report), outputType: "resourceLink" } }] };
    return { content: triageAnswer(nights.length, table, /\[resource link: (\S+)/.exec(told(history, 5)[1] ?? "")?.[1] ?? "") };
  };
}

/** The code agent of the triage: a program that reads and tallies the logs, one that records, queries back and publishes, then the answer. */
function triageCode(nightly: string): Script {
  return (history) => {
    const s = step(history);
    if (s === 0) {
      return {
        content: program(
          `const dir = ${JSON.stringify(nightly)};
const logs = logsIn((await gg.mcp.filesystem.list_directory({ path: dir })).content);
const found = [];
for (const name of logs) found.push({ night: name.replace(/\\.log$/, ""), failures: failuresIn((await gg.mcp.filesystem.read_text_file({ path: \`\${dir}/\${name}\` })).content) });
const nights = found.map((night) => night.night);
const rows = tally(found);
return rows.map((row) => [row.test, row.nights.length]);`,
          logsIn,
          failuresIn,
          tally,
        ),
      };
    }
    if (s === 1) {
      return {
        content: program(
          `await gg.mcp.memory.create_entities({ entities: rows.map((row) => ({ name: row.test, entityType: "failing-test", observations: [] })) });
await gg.mcp.memory.add_observations({ observations: rows.map((row) => ({ entityName: row.test, contents: [observed(row.nights.length, nights)] })) });
await gg.mcp.memory.create_relations({ relations: rows.map((row) => ({ from: row.test, to: row.module, relationType: "tests" })) });
const graph = await gg.mcp.memory.open_nodes({ names: [...rows.map((row) => row.test), ...new Set(rows.map((row) => row.module))] });
const table = triageRows(rows, graph);
const report = triageReport(table, nights);
await gg.files.writeFile("TRIAGE.md", report);
const published = await gg.mcp.everything.gzip_file_as_resource({ name: "TRIAGE.md.gz", data: dataUri(report), outputType: "resourceLink" });
return { runs: nights.length, table, link: published.content[0]?.uri };`,
          observed,
          triageRows,
          triageReport,
          dataUri,
        ),
      };
    }
    const { runs, table, link } = returnedAt(history, 1) as { runs: number; table: ReturnType<typeof triageRows>; link: string };
    return { content: triageAnswer(runs, table, link) };
  };
}

interface Task {
  name: string;
  /** The workspace it runs on. */
  on: Base;
  /** What the task changes in its workspace before the agent starts. */
  prepare?: (root: string) => void;
  /** The MCP servers the run has, given a folder of their own beside the workspace, whose files are compared too. */
  servers?: (folder: string) => Record<string, McpServerEntry>;
  prompt: string;
  tools: Script;
  code: Script;
}

const TASKS: Task[] = [
  {
    name: "TODOs per file",
    on: "three",
    prompt: "Count the TODO comments in each file of this code base.",
    tools: (history) => (step(history) === 0 ? { calls: [{ name: "search", args: { query: "TODO", limit: 200 } }] } : { content: answers.todos(countByFile(searchLines(told(history)[0] ?? ""))) }),
    code: (history) =>
      step(history) === 0
        ? { content: program(`const found = await gg.files.search("TODO", { limit: 200 });\nreturn countByFile(found.matches);`, countByFile) }
        : { content: answers.todos(returned(history)) },
  },
  {
    name: "rename a symbol",
    on: "three",
    prompt: "Rename the function warnOnce to warnOnceAbout everywhere.",
    // The tool-calling agent edits each matched line; a line that occurs twice in its file is refused as ambiguous, so
    // it reads two lines either side of each and edits again with them as the anchor.
    tools: (history) => {
      const matches = searchLines(told(history, 0)[0] ?? "");
      const answer = (): Reply => ({ content: answers.rename(matches.length, new Set(matches.map((match) => match.path)).size) });
      if (step(history) === 0) return { calls: [{ name: "search", args: { query: "\\bwarnOnce\\b", limit: 200 } }] };
      if (step(history) === 1) return { calls: matches.map((match) => ({ name: "edit_file", args: { path: match.path, old: match.text, new: renamed(match.text) } })) };
      const ambiguous = matches.filter((_, i) => (told(history, 1)[i] ?? "").startsWith("error[ambiguous]"));
      if (ambiguous.length === 0) return answer();
      if (step(history) === 2) return { calls: ambiguous.map((match) => ({ name: "read_file", args: { path: match.path, offset: match.line - 2, limit: 5 } })) };
      if (step(history) === 3) {
        const windows = told(history, 2).map((text) => text.split("\n").slice(0, 5).join("\n"));
        return { calls: ambiguous.map((match, i) => ({ name: "edit_file", args: { path: match.path, old: windows[i] ?? "", new: renamed(windows[i] ?? "") } })) };
      }
      return answer();
    },
    code: (history) =>
      step(history) === 0
        ? {
            content: program(
              `const found = await gg.files.search("\\\\bwarnOnce\\\\b", { limit: 200 });
const files = [...new Set(found.matches.map((match) => match.path))];
for (const path of files) await gg.files.writeFile(path, renamed(String(await gg.files.readFile(path, { limit: 1_000_000 }))));
return { lines: found.matches.length, files: files.length };`,
              renamed,
            ),
          }
        : { content: answers.rename(returned<{ lines: number }>(history).lines, returned<{ files: number }>(history).files) },
  },
  {
    name: "failing test in a log",
    on: "three",
    prompt: `${LOG} is the output of the test run. Which test failed, and what are the source lines its stack points at?`,
    tools: (history) => {
      const s = step(history);
      if (s === 0) return { calls: [{ name: "search", args: { query: "FAIL", path: LOG } }] };
      if (s === 1) return { calls: [{ name: "read_file", args: { path: LOG, offset: searchLines(told(history)[0] ?? "")[0]?.line ?? 1, limit: 8 } }] };
      const found = failure(told(history, 1)[0] ?? "");
      if (s === 2) return { calls: found.frames.map((frame) => ({ name: "read_file", args: { path: frame.path, offset: frame.line, limit: 1 } })) };
      const texts = told(history);
      return { content: answers.failing(found.test, found.frames.map((frame, i) => ({ ...frame, text: firstLine(texts[i] ?? "") }))) };
    },
    code: (history) =>
      step(history) === 0
        ? {
            content: program(
              `const at = (await gg.files.search("FAIL", { path: ${JSON.stringify(LOG)} })).matches[0]?.line ?? 1;
const found = failure(String(await gg.files.readFile(${JSON.stringify(LOG)}, { offset: at, limit: 8 })));
const lines = [];
for (const frame of found.frames) lines.push({ ...frame, text: firstLine(String(await gg.files.readFile(frame.path, { offset: frame.line, limit: 1 }))) });
return { test: found.test, lines };`,
              failure,
              firstLine,
            ),
          }
        : { content: answers.failing(returned<{ test: string }>(history).test, returned<{ lines: { path: string; line: number; text: string }[] }>(history).lines) },
  },
  {
    name: "exports of the package",
    on: "three",
    prompt: "Summarise what src/Three.Core.js exports.",
    tools: (history) => (step(history) === 0 ? { calls: [{ name: "read_file", args: { path: "src/Three.Core.js" } }] } : { content: answers.exports(exportsOf(told(history)[0] ?? "")) }),
    code: (history) =>
      step(history) === 0
        ? { content: program(`return exportsOf(String(await gg.files.readFile("src/Three.Core.js")));`, exportsOf) }
        : { content: answers.exports(returned(history)) },
  },
  {
    name: "version (short)",
    on: "three",
    prompt: "Which version of three.js is this?",
    tools: (history) => (step(history) === 0 ? { calls: [{ name: "search", args: { query: '"version"', path: "package.json" } }] } : { content: answers.version(versionIn(searchLines(told(history)[0] ?? "")[0]?.text ?? "")) }),
    code: (history) =>
      step(history) === 0
        ? { content: program(`return (JSON.parse(String(await gg.files.readFile("package.json"))) as { version: string }).version;`) }
        : { content: answers.version(returned(history)) },
  },
  {
    name: "callers (short, flat)",
    on: "lodash",
    prompt: "Which modules call baseFlatten?",
    tools: (history) => (step(history) === 0 ? { calls: [{ name: "search", args: { query: "baseFlatten\\(", limit: 200 } }] } : { content: answers.callers(filesOf(searchLines(told(history)[0] ?? ""))) }),
    code: (history) =>
      step(history) === 0
        ? { content: program(`return filesOf((await gg.files.search("baseFlatten\\\\(", { limit: 200 })).matches);`, filesOf) }
        : { content: answers.callers(returned(history)) },
  },
  {
    name: "doc summary (short, flat)",
    on: "lodash",
    prompt: "What does chunk.js do? Quote the summary of its doc comment.",
    tools: (history) => (step(history) === 0 ? { calls: [{ name: "read_file", args: { path: "chunk.js" } }] } : { content: answers.summary(docSummary(told(history)[0] ?? "")) }),
    code: (history) =>
      step(history) === 0 ? { content: program(`return docSummary(String(await gg.files.readFile("chunk.js")));`, docSummary) } : { content: answers.summary(returned(history)) },
  },
  {
    name: "greeting (one turn)",
    on: "lodash",
    prompt: "Hi! Who are you?",
    tools: () => ({ content: answers.greeting }),
    code: () => ({ content: answers.greeting }),
  },
];

/** The cache-read price as a share of the prompt price (Anthropic's, OpenAI's, Gemini's: about a tenth). */
const CACHE_READ = 0.1;

/** A provider's prompt cache for one arm: what share of each request (by characters) an earlier request began with. */
function promptCache() {
  const earlier: string[][] = [];
  const shared = (a: string[], b: string[]): number => {
    let chars = 0;
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const [x, y] = [a[i] as string, b[i] as string];
      if (x === y) {
        chars += x.length;
        continue;
      }
      let same = 0;
      while (same < Math.min(x.length, y.length) && x[same] === y[same]) same++;
      return chars + same;
    }
    return chars;
  };
  return {
    /** The share of `request` a cache would hold, recording it for later requests. */
    share(request: { tools?: unknown; messages: unknown[] }): number {
      const parts = [JSON.stringify(request.tools ?? []), ...request.messages.map((message) => JSON.stringify(message))];
      const total = parts.reduce((sum, part) => sum + part.length, 0);
      const best = Math.max(0, ...earlier.map((before) => shared(before, parts)));
      earlier.push(parts);
      return total === 0 ? 0 : best / total;
    },
  };
}
const caches = { tools: promptCache(), code: promptCache() };

/** A provider that answers with a script, as a model would through the API; `shares` gets each request's cached share. */
function scripted(script: Script, cache?: ReturnType<typeof promptCache>, shares?: number[]): Provider {
  let id = 0;
  return {
    complete: async (request) => {
      if (cache) shares?.push(cache.share(request));
      const reply = script(request.messages);
      const message: ChatCompletion.Choice["message"] =
        "content" in reply
          ? { role: "assistant", content: reply.content, refusal: null }
          : { role: "assistant", content: null, refusal: null, tool_calls: reply.calls.map((call) => ({ id: `call_${++id}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } })) };
      const completion: ChatCompletion = { id: `bench-${id}`, object: "chat.completion", created: 0, model: request.model, choices: [{ index: 0, finish_reason: "content" in reply ? "stop" : "tool_calls", logprobs: null, message }] };
      return { completion, retries: [] };
    },
  };
}

interface Outcome {
  report: AgentReport;
  files: Map<string, string>;
  /** The last request's window, and the answer. */
  window: number;
  /** Tokens every request carried, added up. */
  entered: number;
  /** What they cost with a prompt cache, in tokens at the prompt price: each request's cached share at CACHE_READ. */
  cached: number;
}

async function runArm(task: Task, arm: Arm, log: string, cache = caches[arm], script: Script = task[arm]): Promise<Outcome> {
  const root = workspace(task.on, log);
  task.prepare?.(root);
  const folder = task.servers && mkdtempSync(join(tmpdir(), "gg-bench-servers-"));
  try {
    const shares: number[] = [];
    const config = folder && task.servers ? { config: { mcpServers: task.servers(folder) } } : {};
    const report = await runAgent({ provider: scripted(script, cache, shares), model: "bench/scripted", arm, task: task.prompt, workspace: root, ...config });
    if (!report.ok) fail(`${task.name}, ${arm} arm: ${report.error?.code}: ${report.error?.message}`);
    const failed = report.calls.filter((call) => !call.ok && call.code !== "ambiguous");
    if (failed.length > 0) fail(`${task.name}, ${arm} arm: calls failed: ${failed.map((call) => `${call.name} (${call.code})`).join(", ")}`);
    const last = report.turns.at(-1);
    const cached = report.turns.reduce((sum, turn, index) => sum + bandsTotal(turn.estimate) * (1 - (1 - CACHE_READ) * (shares[index] ?? 0)), 0);
    const files = new Map([...contents(root), ...(folder ? [...contents(folder)].map(([path, hash]): [string, string] => [`(servers)/${path}`, hash]) : [])]);
    return { report, files, window: (last ? bandsTotal(last.estimate) : 0) + textTokens(report.answer ?? ""), entered: bandsTotal(report.totals.estimate), cached: Math.round(cached) };
  } finally {
    rmSync(root, { recursive: true, force: true });
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

const sameFiles = (a: Map<string, string>, b: Map<string, string>): boolean => a.size === b.size && [...a].every(([path, hash]) => b.get(path) === hash);
const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(0)}%`;

/** The fixed prefix of `arm` on `root` (with `servers`), as the loop estimates a first request: every band but the task. */
async function prefix(arm: Arm, root: string, servers: Record<string, McpServerEntry> = {}): Promise<number> {
  const report = await runAgent({ provider: scripted(() => ({ content: "." })), model: "bench/scripted", arm, task: "", workspace: root, config: { mcpServers: servers } });
  const first = report.turns[0]?.estimate;
  return first ? first.system + first.tools + first.views : 0;
}

for (const spec of Object.values(PACKAGES)) fetchPackage(spec);
const log = testLog();
const columns = (cells: (string | number)[]): string => cells.map((cell, i) => (i === 0 ? String(cell).padEnd(26) : String(cell).padStart(11))).join("");
console.log(`context economy: ${PACKAGES.three.spec} sources and a ${log.split("\n").length}-line test log, ${PACKAGES.lodash.spec}'s package; scripted agents through runAgent; gg's estimate in tokens`);
console.log(columns(["task", "tools", "window", "entered", "cached", "code", "window", "entered", "cached", "window", "entered", "cached"]));
console.log(columns(["", "turns", "", "", "", "turns", "", "", "", "code/tools", "code/tools", "code/tools"]));
const sum = { tools: { window: 0, entered: 0, cached: 0 }, code: { window: 0, entered: 0, cached: 0 } };
/** The suite's last windows per band, per arm: where the tokens of the windows went. */
const bands = { tools: { system: 0, tools: 0, messages: 0, toolResults: 0, views: 0 }, code: { system: 0, tools: 0, messages: 0, toolResults: 0, views: 0 } };
for (const task of TASKS) {
  const tools = await runArm(task, "tools", log);
  const code = await runArm(task, "code", log);
  if (tools.report.answer !== code.report.answer) fail(`${task.name}: the arms answered differently:\n--- tools\n${tools.report.answer}\n--- code\n${code.report.answer}`);
  if (!sameFiles(tools.files, code.files)) fail(`${task.name}: the arms left different files`);
  if (process.env.GG_BENCH_BANDS) for (const [arm, outcome] of [["tools", tools], ["code", code]] as const) console.log(`  ${arm}: ${JSON.stringify(outcome.report.turns.map((turn) => turn.estimate))}`);
  for (const [arm, outcome] of [["tools", tools], ["code", code]] as const) {
    sum[arm].window += outcome.window;
    sum[arm].entered += outcome.entered;
    sum[arm].cached += outcome.cached;
    const last = outcome.report.turns.at(-1)?.estimate;
    if (last) for (const band of Object.keys(bands[arm]) as (keyof Bands)[]) bands[arm][band] += last[band];
  }
  const row = (outcome: Outcome): (string | number)[] => [outcome.report.turns.length, outcome.window, outcome.entered, outcome.cached];
  console.log(columns([task.name, ...row(tools), ...row(code), percent(code.window, tools.window), percent(code.entered, tools.entered), percent(code.cached, tools.cached)]));
}
const { tools: all, code: allCode } = sum;
console.log(columns(["suite", "", all.window, all.entered, all.cached, "", allCode.window, allCode.entered, allCode.cached, percent(allCode.window, all.window), percent(allCode.entered, all.entered), percent(allCode.cached, all.cached)]));
for (const arm of ["tools", "code"] as const) console.log(`${arm} arm's last windows, added up, by band: ${Object.entries(bands[arm]).map(([band, tokens]) => `${band} ${tokens}`).join(", ")}`);
// No script closes a view: the code arm's views band is its opening turn and the views its programs opened.
const work = (arm: "tools" | "code"): number => bands[arm].messages + bands[arm].toolResults;
console.log(`the work alone (task, replies, tool results or program reports): tools ${work("tools")}, code ${work("code")}, code/tools ${percent(work("code"), work("tools"))}`);
const ratio = { entered: sum.code.entered / sum.tools.entered, window: sum.code.window / sum.tools.window, cached: sum.code.cached / sum.tools.cached };
console.log(`with a prompt cache (shared prefixes at ${CACHE_READ} of the prompt price): code/tools ${ratio.cached.toFixed(2)}`);
console.log(`goal: code/tools entered <= 0.40: ${ratio.entered.toFixed(2)}, ${ratio.entered <= 0.4 ? "met" : "not met"}; window <= 0.60: ${ratio.window.toFixed(2)}, ${ratio.window <= 0.6 ? "met" : "not met"}`);

/**
 * Shows the plays of a long task as a table, each having run with a prompt cache of its own (what it shares with
 * itself); every play must end as the first did (its answer, its files). With `tools`, each against the tools arm's.
 */
function showPlays(task: Task, where: string, plays: [string, Outcome][], tools?: Outcome): void {
  const [firstName, first] = plays[0] as [string, Outcome];
  for (const [name, play] of plays) {
    if (play.report.answer !== first.report.answer) fail(`${task.name}: the plays answered differently:\n--- ${firstName}\n${first.report.answer}\n--- ${name}\n${play.report.answer}`);
    if (!sameFiles(play.files, first.files)) fail(`${task.name}: the ${name} play left different files than the ${firstName} play`);
  }
  console.log(`\nlong task: ${task.name} (${where}), each play with a prompt cache of its own`);
  console.log(columns(["play", "turns", "window", "entered", "cached", ...(tools ? ["of tools'", "of tools'"] : [])]));
  if (tools) console.log(columns(["", "", "", "", "", "entered", "cached"]));
  for (const [name, play] of plays) {
    console.log(columns([name, play.report.turns.length, play.window, play.entered, play.cached, ...(tools ? [percent(play.entered, tools.entered), percent(play.cached, tools.cached)] : [])]));
  }
}

/** A long task's goals for the code arm against the tools arm: entered at most 0.08 of the tools arm's, cached 0.12. */
const longGoals = (code: Outcome, tools: Outcome): string => `goal: long task code/tools entered <= 0.08: ${(code.entered / tools.entered).toFixed(3)}; cached <= 0.12: ${(code.cached / tools.cached).toFixed(3)}`;

// The long task: the tools arm, and the code arm keeping its state and afresh.
const LONG: Task = { name: "modules cloneDeep and merge share", on: "lodash", prompt: "Find every module lodash's cloneDeep.js and merge.js need, directly or through other modules. Mark each module both need with the line `// Shared by cloneDeep and merge.` after its module.exports line, and say how many each needs and which they share.", tools: sharedTools, code: sharedKept };
const plays = { tools: await runArm(LONG, "tools", log, promptCache()), kept: await runArm(LONG, "code", log, promptCache()), afresh: await runArm(LONG, "code", log, promptCache(), sharedAfresh) };
showPlays(LONG, "lodash", [["tools arm", plays.tools], ["code, state kept", plays.kept], ["code, afresh", plays.afresh]], plays.tools);
const saved = 1 - plays.kept.entered / plays.afresh.entered;
console.log(`${longGoals(plays.kept, plays.tools)}; state kept saves ${(100 * saved).toFixed(0)}% of the code arm's entered`);

// The debugging session, played by both arms.
const BUGHUNT: Task = { name: "four bugs, one at a time", on: "lodash", prepare: plantBugs, prompt: `${CHECK} fails. Find and fix the bugs until every check passes, and say which files you fixed.`, tools: bugsTools, code: bugsCode };
const hunt = { tools: await runArm(BUGHUNT, "tools", log, promptCache()), code: await runArm(BUGHUNT, "code", log, promptCache()) };
showPlays(BUGHUNT, "lodash", [["tools arm", hunt.tools], ["code arm", hunt.code]], hunt.tools);
console.log(longGoals(hunt.code, hunt.tools));

// The third long task, where what the first program parses is what every later step works on.
const SLOW: Task = { name: "slowest modules in the log", on: "three", prompt: `${LOG} is the output of the test run. Find the five modules whose tests took longest in all, write SLOW.md with a table of each one's total time and its source file's line count, and tell me how many tests ran and failed.`, tools: () => fail("the slow-modules task has no tools play"), code: slowKept };
const slow = { kept: await runArm(SLOW, "code", log, promptCache()), afresh: await runArm(SLOW, "code", log, promptCache(), slowAfresh) };
showPlays(SLOW, "three.js, a code agent's four programs", [["code, state kept", slow.kept], ["code, afresh", slow.afresh]]);
const slowSaved = 1 - slow.kept.entered / slow.afresh.entered;
console.log(`goal: state kept saves >= 25% of the code arm's entered: ${(100 * slowSaved).toFixed(0)}% (cached: ${(100 * (1 - slow.kept.cached / slow.afresh.cached)).toFixed(0)}%), ${slowSaved >= 0.25 ? "met" : "not met"}`);

// The fourth long task, on three real MCP servers.
const imports = moduleImports();
const nightly = mkdtempSync(join(tmpdir(), "gg-bench-nightly-"));
writeNightly(nightly, [...imports.keys()]);
const graph = teamGraph(imports);
/** The three servers of the triage, server-memory's graph a fresh copy of the team's in `folder`. */
const triageServers = (folder: string): Record<string, McpServerEntry> => {
  writeFileSync(join(folder, "memory.jsonl"), graph);
  return { filesystem: filesystem(nightly), memory: memory(join(folder, "memory.jsonl")), everything: everything() };
};
const TRIAGE: Task = {
  name: "nightly failures triaged",
  on: "three",
  servers: triageServers,
  prompt: `The test runs of the last two weeks' nights are logs in ${nightly}, which the filesystem server serves. Triage them: record each test that failed in the memory graph, as an entity named after it ("Suite > test") of type failing-test with the observation "failed in N of 14 nightly runs, FIRST to LAST" (added to it if the graph has it already) and a relation "tests" to its module's entity. Then write TRIAGE.md with a row for each, most failures first: its module, the module's owner in the graph, and whether an earlier triage knew it. Publish it gzipped through the everything server and give me the link.`,
  tools: triageTools(nightly),
  code: triageCode(nightly),
};
const listing = mkdtempSync(join(tmpdir(), "gg-bench-servers-"));
const listed = createExternals(parseConfiguration({ mcpServers: triageServers(listing) }));
const counted = (await listed?.catalog())?.servers.map((server) => `${server.server} ${server.tools.length}`).join(", ");
await listed?.close();
rmSync(listing, { recursive: true, force: true });
const triage = { tools: await runArm(TRIAGE, "tools", log, promptCache()), code: await runArm(TRIAGE, "code", log, promptCache()) };
showPlays(TRIAGE, `three.js, MCP servers: ${counted} tools`, [["tools arm", triage.tools], ["code arm", triage.code]], triage.tools);
const triageRatio = triage.code.entered / triage.tools.entered;
console.log(`goal: code/tools entered <= 0.15: ${triageRatio.toFixed(3)}, ${triageRatio <= 0.15 ? "met" : "not met"}; cached ${(triage.code.cached / triage.tools.cached).toFixed(3)}`);

// The fixed prefix on four workspaces: this repository, three.js's src/, lodash's package (flat), an empty folder.
const empty = mkdtempSync(join(tmpdir(), "gg-bench-empty-"));
const places: [string, string][] = [["this repository", process.cwd()], ["three.js src/", join(SOURCE, "src")], ["lodash (flat)", join(CACHE, PACKAGES.lodash.folder)], ["empty folder", empty]];
console.log("fixed prefix per request (system prompt + function definitions or opening turn), tokens:");
let largest = 0;
for (const [name, root] of places) {
  const [tools, code] = [await prefix("tools", root), await prefix("code", root)];
  largest = Math.max(largest, code);
  console.log(`  ${name.padEnd(18)} tools ${String(tools).padStart(5)}  code ${String(code).padStart(5)}  code/tools ${percent(code, tools)}`);
}
console.log(`goal: code prefix <= 1,000 tokens on every workspace: largest ${largest}, ${largest <= 1000 ? "met" : "not met"}`);

// The fixed prefix with MCP servers, on the empty folder: the code arm names each server once, never a tool's schema.
const memoryFile = join(nightly, "prefix-memory.jsonl");
const added: [string, McpServerEntry][] = [["filesystem", filesystem(nightly)], ["memory", memory(memoryFile)], ["everything", everything()]];
console.log("fixed prefix with MCP servers (empty folder), tokens:");
const withServers: { tools: number; code: number }[] = [];
for (let n = 0; n <= added.length; n++) {
  const servers = Object.fromEntries(added.slice(0, n));
  withServers.push({ tools: await prefix("tools", empty, servers), code: await prefix("code", empty, servers) });
  const [now, before] = [withServers[n] as { tools: number; code: number }, withServers[n - 1]];
  console.log(`${`  ${n} (${Object.keys(servers).join(", ") || "none"})`.padEnd(50)}tools ${String(now.tools).padStart(6)}  code ${String(now.code).padStart(5)}${before ? `  code +${now.code - before.code}` : ""}`);
}
const generated = (count: number): Record<string, McpServerEntry> => ({ api: { command: process.execPath, args: [join(import.meta.dirname, "tools_server.ts"), String(count)] } });
const [few, many] = [await prefix("code", empty, generated(5)), await prefix("code", empty, generated(500))];
const [fewTools, manyTools] = [await prefix("tools", empty, generated(5)), await prefix("tools", empty, generated(500))];
for (const [name, tools, code] of [["  one server of 5 tools (bench/tools_server.ts)", fewTools, few], ["  the same with 500 tools", manyTools, many]] as const) console.log(`${name.padEnd(50)}tools ${String(tools).padStart(6)}  code ${String(code).padStart(5)}`);
const perServer = withServers.slice(1).map((now, n) => now.code - (withServers[n] as { code: number }).code);
console.log(`goal: the code prefix grows <= 60 tokens a server: ${perServer.map((grown) => `+${grown}`).join(", ")} (the first brings gg.mcp's own functions), ${perServer.every((grown) => grown <= 60) ? "met" : "not met"}; 0 a tool: ${((many - few) / 495).toFixed(3)} a tool (${many - few} for 495 more), ${many === few ? "met" : "not met"}`);
rmSync(empty, { recursive: true, force: true });
rmSync(nightly, { recursive: true, force: true });
