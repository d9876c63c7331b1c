// The release rehearsal: gg as a person gets it from npm, without publishing. `npm pack`, then, under each Node (the
// pinned Node 24, the machine's own Node when it is another, and those GG_REHEARSAL_NODES names, ":"-separated), in
// empty folders: `npm i` of the tarball (nothing compiled), `gg --version`, `gg call tree`, a program, the library,
// `gg mcp` through the SDK's client started from another folder, and under Node 24 the README's library example
// type-checked against the installed types; the README's MCP line through npx with an empty npm cache (a first start,
// timed and weighed). Under a Node older than 24, also an install whose scripts were skipped, where gg stops in one
// line naming the npx line that brings Node 24.
// Run: `npm run rehearse` (`.ci/run` runs it last). Exits 1 at the first check that fails, saying which.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const ROOT = join(import.meta.dirname, "..");
const { version } = (await import("../package.json", { with: { type: "json" } })).default;
const temp = mkdtempSync(join(tmpdir(), "gg-rehearsal-"));
process.on("exit", () => rmSync(temp, { recursive: true, force: true }));

/** Fails the rehearsal with what was expected and what came. */
function check(ok: boolean, what: string, detail = ""): void {
  if (ok) return void console.log(`  ok: ${what}`);
  console.error(`  FAILED: ${what}${detail === "" ? "" : `\n${detail}`}`);
  process.exit(1);
}

/** Seconds since `start` (performance.now()), to one decimal. */
const since = (start: number): string => `${((performance.now() - start) / 1000).toFixed(1)} s`;

/** The PATH with `node`'s folder first and the checkout's node_modules/.bin left out: a machine with that Node. */
function pathFor(node: string): string {
  const checkoutBins = join(ROOT, "node_modules", ".bin");
  return [dirname(node), ...(process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !dir.startsWith(checkoutBins) && !dir.includes(join(ROOT, "node_modules")))].join(delimiter);
}

/** Runs `command` with `node` first on PATH, in `cwd`. */
function run(node: string, cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}, input?: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, PATH: pathFor(node), ...env }, ...(input === undefined ? {} : { input }), maxBuffer: 64 * 1024 * 1024 });
}

/** The Nodes to rehearse under: the pinned one, the machine's (the first `node` on PATH outside the checkout), GG_REHEARSAL_NODES. */
function nodes(): string[] {
  const pinned = realpathSync(join(ROOT, "node_modules", "node", "bin", "node"));
  const machine = spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8", env: { ...process.env, PATH: pathFor("/nonexistent/node") } }).stdout.trim();
  const extra = (process.env.GG_REHEARSAL_NODES ?? "").split(":").filter((node) => node !== "");
  return [...new Set([pinned, ...(machine === "" ? [] : [realpathSync(machine)]), ...extra.map((node) => realpathSync(node))])];
}

/** The MCP client of `command args`, started in `cwd` under `node`: it lists the tools and reads a file of the workspace. */
async function throughMcp(node: string, cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const transport = new StdioClientTransport({ command, args, cwd, env: { ...(process.env as Record<string, string>), PATH: pathFor(node), ...(env as Record<string, string>) }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "gg-rehearsal", version });
  try {
    // A first npx start downloads the package: minutes on a slow network.
    await client.connect(transport, { timeout: 600_000 });
    const { tools } = await client.listTools();
    const read = (await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } })) as CallToolResult;
    const text = read.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return [client.getInstructions() ?? "", tools.map((tool) => tool.name).join(","), text, stderr];
  } catch (error) {
    return ["", "", "", `${(error as Error).message}\n${stderr}`];
  } finally {
    await client.close();
  }
}

/** Bytes under `dir`, a file linked twice counted once (the node package links its binary), as du counts them. */
function bytes(dir: string, seen = new Set<string>()): number {
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) {
    const inode = `${stat.dev}:${stat.ino}`;
    if (seen.has(inode)) return 0;
    seen.add(inode);
    return stat.size;
  }
  return readdirSync(dir).reduce((sum, name) => sum + bytes(join(dir, name), seen), 0);
}

const mb = (count: number): string => `${(count / 1e6).toFixed(0)} MB`;

console.log(`gg ${version}: the release rehearsal, in ${temp}`);
const packed = spawnSync("npm", ["pack", "--pack-destination", temp, "--json"], { cwd: ROOT, encoding: "utf8" });
check(packed.status === 0, "npm pack", packed.stderr);
const tarball = join(temp, (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename ?? "");
console.log(`  packed: ${tarball}, ${mb(statSync(tarball).size)}`);

const workspace = join(temp, "workspace");
mkdirSync(workspace);
writeFileSync(join(workspace, "notes.txt"), "hello\n");
writeFileSync(join(workspace, "todo.ts"), "// TODO: one\n");
const elsewhere = join(temp, "elsewhere");
mkdirSync(elsewhere);
const library = `import { createRuntime } from "gg-runtime";
try {
  const runtime = createRuntime({ workspace: process.argv[2] });
  console.log(JSON.stringify((await runtime.run("return (await gg.files.listDir()).entries.length", { language: "ts", budget: 60 })).result));
  runtime.close();
} catch (error) {
  console.log(error.message);
}
`;

const under = nodes();
if (under.every((node) => Number(spawnSync(node, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout) >= 24)) {
  console.log("  note: no Node older than 24 here, so the older-Node checks do not run; GG_REHEARSAL_NODES can name one");
}
for (const node of under) {
  const nodeVersion = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  const old = Number(nodeVersion.slice(1).split(".")[0]) < 24;
  console.log(`\nUnder Node ${nodeVersion} (${node})`);
  const project = join(temp, `project-${nodeVersion}`);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "rehearsal", version: "1.0.0", private: true, type: "module" }));
  let start = performance.now();
  const installed = run(node, project, "npm", ["i", "--no-audit", "--no-fund", tarball]);
  const output = installed.stdout + installed.stderr;
  check(installed.status === 0, `npm i of the tarball (${since(start)})`, output);
  check(!/\bgyp\b|g\+\+|\bmake\[\d/.test(output) && !existsSync(join(project, "node_modules", "isolated-vm", "build")), "nothing compiled: isolated-vm runs its prebuilt binary", output);
  const gg = join(project, "node_modules", ".bin", "gg");
  const ggVersion = run(node, elsewhere, gg, ["--version"]);
  check(ggVersion.stdout === `${version}\n`, `gg --version prints ${version}`, ggVersion.stdout + ggVersion.stderr);
  const tree = run(node, elsewhere, gg, ["call", "tree", "{}", "--workspace", workspace]);
  check(tree.status === 0 && tree.stdout === "notes.txt\ntodo.ts\n", "gg call tree, from another folder", tree.stdout + tree.stderr);
  const program = run(node, elsewhere, gg, ["run", "-", "--workspace", workspace], {}, "return (await gg.files.search('TODO')).matches.map((match) => match.path)");
  check(program.status === 0 && program.stdout === '[\n  "todo.ts"\n]\n', "gg run, a program from stdin", program.stdout + program.stderr);
  writeFileSync(join(project, "library.mjs"), library);
  const used = run(node, project, node, ["library.mjs", workspace]);
  const expected = old ? `Cannot run programs on Node ${nodeVersion.slice(1)}: gg needs Node 24 or later` : "2";
  check(used.stdout.startsWith(expected), old ? "the library on this Node: createRuntime says in one line that programs need Node 24" : "the library: a program through createRuntime", used.stdout + used.stderr);
  if (!old) {
    // The README's library example, compiled as a TypeScript user would: strict, no skipLibCheck, no @types/node of theirs.
    const example = /## Use it as a library[\s\S]*?```ts\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, "README.md"), "utf8"))?.[1] ?? "";
    writeFileSync(join(project, "user.ts"), example);
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2022", noEmit: true, types: [] }, files: ["user.ts"] }));
    start = performance.now();
    const typed = run(node, project, node, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", project]);
    check(example !== "" && typed.status === 0, `the README's library example type-checks against the installed types, without skipLibCheck (${since(start)})`, typed.stdout + typed.stderr);
  }
  start = performance.now();
  const [instructions, tools, text, stderr] = await throughMcp(node, elsewhere, gg, ["mcp", "--workspace", workspace]);
  check(instructions?.startsWith(`gg serves ${workspace}:`) === true && tools?.includes("run_program") === true && text === "hello\n", `gg mcp through the SDK's client, from another folder (${since(start)})`, [instructions, tools, text, stderr].join("\n"));

  // The README's MCP line, `npx -y gg-runtime mcp --workspace ...`, with the tarball for the name (npx takes a path
  // for a command, so it is named with -p, and the command, gg, the package's one, after it): a first start.
  const cache = join(temp, `npm-cache-${nodeVersion}`);
  start = performance.now();
  const [npxInstructions, , npxText, npxStderr] = await throughMcp(node, elsewhere, "npx", ["-y", "-p", tarball, "gg", "mcp", "--workspace", workspace], { npm_config_cache: cache });
  check(npxInstructions?.startsWith(`gg serves ${workspace}:`) === true && npxText === "hello\n", `npx -y gg-runtime mcp --workspace ..., a first start with an empty npm cache (${since(start)}; the cache then holds ${mb(bytes(join(cache, "_cacache")))} downloaded, ${mb(bytes(join(cache, "_npx")))} installed)`, `${npxInstructions}\n${npxText}\n${npxStderr}`);

  if (!old) continue;
  // Without the Node 24 it brings (its install scripts skipped): one line, naming the npx line that brings it.
  const bare = join(temp, `bare-${nodeVersion}`);
  mkdirSync(bare);
  writeFileSync(join(bare, "package.json"), JSON.stringify({ name: "bare", version: "1.0.0", private: true }));
  check(run(node, bare, "npm", ["i", "--no-audit", "--no-fund", "--ignore-scripts", tarball]).status === 0, "npm i --ignore-scripts of the tarball");
  const stopped = run(node, elsewhere, join(bare, "node_modules", ".bin", "gg"), ["mcp", "--workspace", workspace], {}, "");
  check(
    stopped.status === 2 && stopped.stdout === "" && stopped.stderr.split("\n").length === 2 && stopped.stderr.includes(`run it as: npx -y -p node@24 -p gg-runtime gg mcp --workspace ${workspace}\n`),
    "without its Node 24, gg stops in one line naming the npx line that brings it",
    stopped.stderr,
  );
  console.log(`  ${stopped.stderr.trim()}`);
}
console.log("\nThe rehearsal passed.");
