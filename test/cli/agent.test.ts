// gg agent as a person meets it, against a local server speaking the chat completions API: the answer alone on stdout,
// progress, retries as they happen and a closing summary on stderr, a network failure named with its URL, and the API
// key nowhere in what gg prints or writes.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { call, closedPort, fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/** What gg has printed so far, readable while it runs. */
interface Output {
  stdout: string;
  stderr: string;
}

/** Each reply's usage: 1000 tokens in, 100 out. */
const BILLED = { usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } };

/** A catalog naming model "m", text-only, with prices when given. */
const catalogFile = (put: (files: Record<string, string>) => void, root: string, pricing?: object): string => {
  put({ "catalog.json": JSON.stringify({ source: "test", fetched: "2026-12-01", models: [{ id: "m", context_length: 100000, input_modalities: ["text"], ...(pricing ? { pricing } : {}) }] }) });
  return join(root, "catalog.json");
};

/** Runs gg with `args`; `output` fills as it prints, so the server can look at it mid-run. */
function gg(args: string[], env: Record<string, string>, output: Output = { stdout: "", stderr: "" }): Promise<Output & { status: number | null }> {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, GG_API_KEY: "", OPENAI_API_KEY: "", OPENROUTER_API_KEY: "", ...env } });
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (status) => resolve({ ...output, status })));
}

describe("gg agent for a person", () => {
  test("the answer alone on stdout; on stderr a line per turn, then the run, the calls by name, the files changed (shell's too), the tokens and the cost", async () => {
    using ws = tempWorkspace();
    ws.put({ "notes.txt": "draft\n", "old.txt": "x\n" });
    await using server = await fakeModel([
      { tool_calls: [call("a", "read_file", { path: "notes.txt" }), call("b", "edit_file", { path: "notes.txt", old: "draft", new: "final" })] },
      { tool_calls: [call("c", "shell", { command: "echo made > by-shell.txt && rm old.txt" }), call("d", "read_file", { path: "missing.txt" })] },
      { content: "Finalised." },
    ], BILLED);
    const catalog = catalogFile(ws.put, ws.root, { prompt: "0.000001", completion: "0.000002" });
    const done = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Finalise.", "--base-url", server.baseURL, "--workspace", ws.root, "--catalog", catalog], {});
    expect({ status: done.status, stdout: done.stdout }).toEqual({ status: 0, stdout: "Finalised.\n" });
    const lines = done.stderr.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^\[turn 1\] 1000 in, 100 out \(gg's estimate \d+ in\), 2 calls, [\d.]+ s$/),
      expect.stringMatching(/^\[turn 2\] .*, 2 calls, /),
      expect.stringMatching(/^\[turn 3\] .*, 0 calls, /),
    ]);
    // Three turns of 1000 in and 100 out at $1 and $2 per million tokens: 3 × (0.001 + 0.0002).
    expect(lines.slice(3)).toEqual([
      expect.stringMatching(/^run {5}3 turns in [\d.]+ s$/),
      "calls   4: read_file 2 (1 failed), edit_file 1, shell 1",
      "files   1 created (by-shell.txt), 1 modified (notes.txt), 1 deleted (old.txt)",
      expect.stringMatching(/^tokens {2}billed 3,300: 3,000 in, 300 out; entered [\d,]+ in \(gg's estimate\)$/),
      "cost    $0.0036 at the catalog's prices",
      "",
    ]);
  });

  test("--json: the report's totals carry the run's cost, reckoned request by request at the catalog's prices", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([{ tool_calls: [call("a", "list_dir", {})] }, { content: "Done." }], BILLED);
    const catalog = catalogFile(ws.put, ws.root, { prompt: "0.000001", completion: "0.000002", tiers: [{ prompt_tokens_above: 100000, prompt: "1", completion: "1" }] });
    const done = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Look.", "--base-url", server.baseURL, "--workspace", ws.root, "--catalog", catalog, "--json"], {});
    const report = JSON.parse(done.stdout) as { totals: { usage: { promptTokens: number }; cost: number } };
    // Two turns of 1000 in and 100 out, under the tier's size: 2 × (0.001 + 0.0002).
    expect(report.totals.usage.promptTokens).toBe(2000);
    expect(report.totals.cost).toBeCloseTo(0.0024, 12);
  });

  test("without prices in the catalog there is no cost line; one call and one turn read in the singular", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([{ tool_calls: [call("a", "list_dir", {})] }, { tool_calls: [call("b", "list_dir", {})] }], BILLED);
    const done = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Look.", "--base-url", server.baseURL, "--workspace", ws.root, "--catalog", catalogFile(ws.put, ws.root), "--max-turns", "1"], {});
    expect(done.status).toBe(1);
    expect(done.stdout).toBe("");
    expect(done.stderr).toMatch(/\), 1 call, [\d.]+ s\nrun {5}1 turn in [\d.]+ s\ncalls {3}1: list_dir 1\nfiles {3}none changed\ntokens {2}billed 1,100: 1,000 in, 100 out; entered [\d,]+ in \(gg's estimate\)\ngg: error\[max-turns\]: The run ended at its limit of 1 turn without an answer\n$/);
  });

  test("a 503 is shown as its retry is decided, before the request is sent again", async () => {
    using ws = tempWorkspace();
    const output: Output = { stdout: "", stderr: "" };
    let seenBeforeRetry = "";
    await using server = await fakeModel([
      { status: 503, message: "overloaded" },
      () => {
        seenBeforeRetry = output.stderr;
        return { content: "Fine.", usage: null };
      },
    ], BILLED);
    const done = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Hi.", "--base-url", server.baseURL, "--workspace", ws.root, "--catalog", catalogFile(ws.put, ws.root)], {}, output);
    expect({ status: done.status, stdout: done.stdout }).toEqual({ status: 0, stdout: "Fine.\n" });
    expect(seenBeforeRetry).toBe("retry 1/4 in 0.5 s: 503\n");
    expect(done.stderr).toMatch(/^retry 1\/4 in 0\.5 s: 503\n\[turn 1\] usage not reported \(gg's estimate \d+ in\), 0 calls, 1 retry, [\d.]+ s\nrun {5}1 turn in [\d.]+ s, 1 retry\n/);
    expect(done.stderr).toContain("tokens  billed: not reported by the provider; entered ");
  });

  test("a server that cannot be reached is named with its URL, each retry shown; nothing is called a refusal", async () => {
    using ws = tempWorkspace();
    const port = await closedPort();
    const done = await gg(["agent", "--model", "m", "--arm", "code", "--task", "Hi.", "--base-url", `http://127.0.0.1:${port}/v1`, "--workspace", ws.root, "--catalog", catalogFile(ws.put, ws.root)], {});
    expect({ status: done.status, stdout: done.stdout }).toEqual({ status: 1, stdout: "" });
    const failure = `could not connect to 127.0.0.1:${port} (connection refused)`;
    expect(done.stderr.split("\n").slice(0, 4)).toEqual([`retry 1/4 in 0.5 s: ${failure}`, `retry 2/4 in 1.0 s: ${failure}`, `retry 3/4 in 2.0 s: ${failure}`, `retry 4/4 in 4.0 s: ${failure}`]);
    expect(done.stderr).toContain(`gg: error[provider-error]: Cannot reach the model at http://127.0.0.1:${port}/v1/chat/completions: ${failure}, after 4 retries; check that the server is up and that the base URL names it\n`);
    expect(done.stderr).not.toMatch(/refused the request|Connection error/);
  });

  test("the API key is sent to the provider and appears nowhere else: not in stdout, stderr, the transcript, nor the agent's commands", async () => {
    using ws = tempWorkspace();
    const key = `sk-test-${process.pid}-${Date.now()}`;
    // The model found it in a file of the workspace, and says it back.
    ws.put({ "leak.txt": `token=${key}\n` });
    await using server = await fakeModel([
      { tool_calls: [call("a", "shell", { command: 'echo "[$GG_API_KEY]"' }), call("b", "read_file", { path: "leak.txt" })] },
      { content: `The token is ${key}.` },
    ], BILLED);
    const transcript = ws.outside(`transcript-${process.pid}-${Date.now()}.jsonl`);
    const done = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Find the token.", "--base-url", server.baseURL, "--workspace", ws.root, "--catalog", catalogFile(ws.put, ws.root), "--transcript", transcript], { GG_API_KEY: key });
    expect(server.headers.map((headers) => headers.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
    expect({ status: done.status, stdout: done.stdout }).toEqual({ status: 0, stdout: "The token is [API key].\n" });
    const recorded = readFileSync(transcript, "utf8");
    for (const text of [done.stdout, done.stderr, recorded]) expect(text).not.toContain(key);
    // The shell the model ran did not inherit the variable; the file's copy is scrubbed from the transcript.
    expect(recorded).toContain("[]\\n");
    expect(recorded).toContain("token=[API key]");
    await using again = await fakeModel([{ content: key }], BILLED);
    const json = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Again.", "--base-url", again.baseURL, "--workspace", ws.root, "--catalog", catalogFile(ws.put, ws.root), "--json"], { GG_API_KEY: key });
    expect(json.stdout).not.toContain(key);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, answer: "[API key]" });
  });
});
