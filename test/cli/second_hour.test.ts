// Small things a person meets in a second hour with gg, each through main() as the command line runs it: refusals
// that say what to type, one exit status for bad arguments, and help that answers the question asked.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { main } from "../../cli/main.ts";
import { fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

async function gg(...args: string[]) {
  let [stdout, stderr] = ["", ""];
  const status = await main(args, (text) => (stdout += text), (text) => (stderr += text));
  return { status, stdout, stderr };
}

test("--base-url without a scheme is refused saying it needs http:// or https://", async () => {
  expect(await gg("agent", "--model", "m", "--arm", "tools", "--task", "t", "--base-url", "127.0.0.1:8089")).toMatchObject({ status: 2, stderr: "gg: Cannot use --base-url 127.0.0.1:8089: it needs http:// or https://, e.g. http://127.0.0.1:8089\n" });
  // gg models refresh reads a provider's list from it: the same refusal, not a file named 127.0.0.1:8089/models.
  expect(await gg("models", "refresh", "--base-url", "127.0.0.1:8089")).toMatchObject({ status: 2, stderr: "gg: Cannot use --base-url 127.0.0.1:8089: it needs http:// or https://, e.g. http://127.0.0.1:8089\n" });
});

test("--transcript into a folder that does not exist makes it (and is not listed as a file the run changed); one that cannot be made is refused in one line, before the run", async () => {
  using ws = tempWorkspace();
  ws.put({ "catalog.json": JSON.stringify({ source: "test", fetched: "2026-12-01", models: [{ id: "m" }] }), "taken": "a file" });
  await using server = await fakeModel([{ content: "Done." }]);
  const agent = (transcript: string) => gg("agent", "--model", "m", "--arm", "tools", "--task", "t", "--base-url", server.baseURL, "--catalog", join(ws.root, "catalog.json"), "--workspace", ws.root, "--transcript", transcript);
  // gg's own transcript, in the workspace, is not among the files the run changed.
  expect(await agent(join(ws.root, "runs", "deep", "x.jsonl"))).toMatchObject({ status: 0, stdout: "Done.\n", stderr: expect.stringContaining("\nfiles   none changed\n") });
  expect(readFileSync(join(ws.root, "runs", "deep", "x.jsonl"), "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(["start", "request", "response", "end"]);
  const refused = await agent(join(ws.root, "taken", "x.jsonl"));
  expect(refused).toMatchObject({ status: 2, stdout: "" });
  expect(refused.stderr).toMatch(/^gg: Cannot write the transcript .*taken\/x\.jsonl: .*; name a file in a folder you can write to\n$/);
  // A folder in a file system that makes none (where Node's recursive mkdir would loop forever) is refused too.
  expect(await agent("/proc/nope/x.jsonl")).toMatchObject({ status: 2, stderr: expect.stringMatching(/^gg: Cannot write the transcript \/proc\/nope\/x\.jsonl: .*\n$/) });
  expect(server.requests).toHaveLength(1);
});

test("gg call: a misspelt tool gets the nearest name; a JSON string, malformed JSON and a misfit all exit 2", async () => {
  using ws = tempWorkspace();
  expect((await gg("call", "raed_file", "--workspace", ws.root)).stderr).toMatch(/^gg: No tool "raed_file" in this configuration \(did you mean read_file\?\); the tools are .* \(gg tools describes them\)\n$/);
  expect((await gg("call", "READ_FILE", "--workspace", ws.root)).stderr).toContain("(did you mean read_file?)");
  expect(await gg("call", "read_file", '"a.txt"', "--workspace", ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining("arguments must be object") });
  expect((await gg("call", "read_file", "{x", "--workspace", ws.root)).status).toBe(2);
  expect(await gg("call", "search", '{"pattern": "x"}', "--workspace", ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining('unknown parameter "pattern"') });
  // A call that ran and failed is still exit 1.
  expect((await gg("call", "read_file", '{"path": "missing.txt"}', "--workspace", ws.root)).status).toBe(1);
});

test("help: study without commander's own help line, study run describes the file, agent its defaults, call points to gg tools", async () => {
  expect((await gg("help", "study")).stdout).not.toContain("display help for command");
  expect((await gg("help", "study", "run")).stdout).toMatch(/The study file \(JSON[^]*cases[^]*agents[^]*repeats/);
  const agent = (await gg("help", "agent")).stdout.replace(/\s+/g, " ");
  expect(agent).toContain("(default 50)");
  expect(agent).toContain("(default 1800)");
  expect(agent).toContain("needs no API key");
  expect((await gg("help", "call")).stdout.replace(/\s+/g, " ")).toContain("gg tools lists the tools and their parameters");
  expect(await gg("docs", "--json")).toMatchObject({ status: 2, stdout: expect.stringContaining('"ok":false') });
});

test("a tree says (1 entry not shown) for one, and the seed's (N entries not shown) for more", async () => {
  using ws = tempWorkspace();
  ws.put({ "one/a.txt": "", "two/a.txt": "", "two/b.txt": "" });
  const tree = await ws.text("tree", { depth: 1 });
  expect(tree).toContain("one/ (1 entry not shown)");
  expect(tree).toContain("two/ (2 entries not shown)");
});

test("gg run: one log entry over the log limit is '1 more log entry dropped'", async () => {
  using ws = tempWorkspace();
  // Eight entries of 8,001 bytes fit the default 64 KiB; the ninth does not.
  ws.put({ "big.js": 'for (let i = 0; i < 9; i++) console.log(String(i).repeat(8000));\nreturn "done";\n' });
  const run = await gg("run", join(ws.root, "big.js"), "--workspace", ws.root);
  expect(run.status).toBe(0);
  expect(run.stdout.split("\n").slice(-4)).toEqual(["7".repeat(8000), "[1 more log entry dropped at the log limit]", "done", ""]);
});

/** The Node on PATH, when it is older than 24 (a machine's own Node beside the pinned one). */
const olderNode = ((): string | undefined => {
  // Outside node_modules: npm puts the pinned Node first on a test's PATH.
  const dirs = (process.env.PATH ?? "").split(":").filter((dir) => dir !== "" && !dir.includes("node_modules"));
  const found = spawnSync("node", ["--version"], { encoding: "utf8", env: { ...process.env, PATH: dirs.join(":") } });
  return found.status === 0 && Number(/^v(\d+)/.exec(found.stdout)?.[1]) < 24 ? spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8", env: { PATH: dirs.join(":") } }).stdout.trim() : undefined;
})();

test.skipIf(olderNode === undefined)("the library under an older Node says gg needs Node 24 and how to get it, not isolated-vm's missing build", () => {
  const index = join(import.meta.dirname, "../../dist/index.js");
  const script = `const { createRuntime } = await import(${JSON.stringify(index)}); try { createRuntime({ workspace: "." }); } catch (error) { console.log(error.message); }`;
  const run = spawnSync(olderNode as string, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(run.stdout).toMatch(/^Cannot run programs on Node \d+\.\d+\.\d+: gg needs Node 24 or later .*install Node 24/);
});
