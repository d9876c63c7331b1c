// Every example `gg help` prints runs as printed: each is run by sh in a workspace holding what the examples name
// (examples/, src/, gg.json, transcripts/, a study's result folders), with gg on PATH and a model server where the
// agent example points.
import { spawn } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { main } from "../../cli/main.ts";
import { fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const root = join(import.meta.dirname, "../..");

/** What `gg help ARGS` prints, in this process. */
async function help(...args: string[]): Promise<string> {
  let text = "";
  await main(["help", ...args], (out) => (text += out), () => {});
  return text;
}

/** Every example line of every command's help (subcommands' too). */
async function examples(): Promise<string[]> {
  const names = [...(await help()).matchAll(/^ {2}(\w+)\b/gm)].map((found) => found[1] as string).filter((name) => name !== "help");
  const found: string[] = [];
  for (const name of names) {
    const text = await help(name);
    const subs = [...(text.split("\nCommands:\n")[1] ?? "").matchAll(/^ {2}(\w+)\b/gm)].map((sub) => sub[1] as string);
    for (const page of [text, ...(await Promise.all(subs.map((sub) => help(name, sub))))]) {
      found.push(...(page.split("\nExamples:\n")[1] ?? "").split("\n").filter((line) => line.startsWith("  gg ")).map((line) => line.trim()));
    }
  }
  return [...new Set(found)];
}

/**
 * Examples that reach beyond this machine, left out: `gg models refresh` fetches the model list, and a study run
 * calls the model at its default endpoint (the test runs the same study at the local server for the report and merge
 * examples to read).
 */
const NETWORK = [/^gg models refresh/, /\bgg study run /];

/** Runs `line` with sh in `cwd`; a server (gg console) is stopped once it has said where it listens. */
function run(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string }> {
  // Its own process group, so a stop reaches gg under sh.
  const child = spawn("sh", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const stop = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      // Gone already.
    }
  };
  let output = "";
  const read = (chunk: Buffer): void => {
    output += chunk.toString();
    if (/^gg console\b/.test(line) && /http:\/\/127\.0\.0\.1:\d+/.test(output)) stop("SIGTERM");
  };
  // A hung example is a failure, said as one, not the test's timeout.
  const timer = setTimeout(() => stop("SIGKILL"), 120_000);
  child.once("close", () => clearTimeout(timer));
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ status: signal === "SIGTERM" && line.startsWith("gg console") ? 0 : code, output })));
}

test("every example of every gg help runs as printed", async () => {
  using ws = tempWorkspace();
  cpSync(join(root, "examples"), join(ws.root, "examples"), { recursive: true });
  ws.put({ "src/a.ts": "// TODO: one\n", "gg.json": "[]", "transcripts/": "", "runs/": "", "results/": "" });
  // Where the agent example points: a program, then an answer, in every conversation.
  const program = { content: "```js\nreturn (await gg.files.listDir()).entries.length;\n```" };
  await using model = await fakeModel((request) => (request.body.messages.some((message) => message.role === "assistant") ? { content: "Done." } : program), { port: 8080 });
  const env = { ...process.env, PATH: `${join(root, "bin")}:${process.env.PATH}`, TMPDIR: ws.root, XDG_CONFIG_HOME: ws.root, GG_API_KEY: "" };
  // The folders the study run examples would write, for the report and merge examples: the whole study, its three shards.
  ws.put({ "study.json": JSON.stringify({ cases: [{ id: "count", workspace: "src", task: "Count the files.", check: "true" }], agents: [{ id: "code", model: "qwen3-coder", arm: "code" }], repeats: 3 }) });
  for (const [out, shard] of [["results", ""], ["shard-0", "--shard 1/3"], ["shard-1", "--shard 2/3"], ["shard-2", "--shard 3/3"]]) {
    expect(await run(`gg study run study.json --out ${out} ${shard} --base-url ${model.baseURL}`, ws.root, env)).toMatchObject({ status: 0 });
    if (out !== "results") cpSync(join(ws.root, out as string), join(ws.root, "shards", out as string), { recursive: true });
  }
  const lines = (await examples()).filter((line) => !NETWORK.some((pattern) => pattern.test(line)));
  expect(lines.length).toBeGreaterThan(15);
  const failed: string[] = [];
  // In order: the agent example writes the transcript its replay example reads.
  for (const line of lines) {
    const { status, output } = await run(line, ws.root, env);
    // The console's default port may be another program's on this machine: the example is right, and says so.
    const portTaken = line.startsWith("gg console") && !line.includes("--port") && /the port is in use; pass --port N/.test(output);
    if (status !== 0 && !portTaken) failed.push(`${line}\n  exit ${status}: ${output.slice(0, 400)}`);
  }
  expect(failed).toEqual([]);
});
