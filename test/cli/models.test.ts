// gg models: the catalog as a table for a person, narrowed by a word and --vision, or as JSON; gg models refresh
// from models.dev's api.json, OpenRouter's /models answer or a file, served on 127.0.0.1 or read from disk, and every
// way a list can fail leaving the user's copy byte for byte.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/** gg run to its end as a process, without blocking this process (which may be serving it). */
function gg(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A server on 127.0.0.1 answering each path with its handler; 404 elsewhere. */
async function serve(routes: Record<string, (response: ServerResponse) => void>) {
  const http = createServer((request, response) => (routes[request.url ?? ""] ?? ((answer: ServerResponse) => answer.writeHead(404).end()))(response));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { base, [Symbol.asyncDispose]: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

const json = (body: unknown) => (response: ServerResponse) => response.writeHead(200, { "content-type": "application/json" }).end(typeof body === "string" ? body : JSON.stringify(body));

/** models.dev's api.json, two providers; OpenRouter's one model has a tier. */
const MODELS_DEV = {
  anthropic: { id: "anthropic", models: { "claude-x": { id: "claude-x", cost: { input: 3, output: 15 }, limit: { context: 200000, output: 64000 }, modalities: { input: ["text", "image"], output: ["text"] } } } },
  openrouter: {
    id: "openrouter",
    models: { "anthropic/claude-x": { id: "anthropic/claude-x", cost: { input: 3, output: 15, cache_read: 0.3, tiers: [{ input: 6, output: 22.5, tier: { type: "context", size: 200000 } }] }, limit: { context: 1000000, output: 64000 }, modalities: { input: ["text", "image", "pdf"], output: ["text"] } } },
  },
};

/** OpenRouter's /models answer: prices per token as strings, a router's "-1", a model with nothing but its id. */
const OPENROUTER = {
  data: [
    { id: "z/text", context_length: 8192, architecture: { input_modalities: ["text"] }, pricing: { prompt: "0.00000015", completion: "0.0000006", input_cache_read: "0.000000075" } },
    { id: "y/seeing", context_length: 4096, architecture: { input_modalities: ["image", "text"] }, pricing: { prompt: "-1", completion: "-1" } },
    { id: "x/bare" },
  ],
};

describe("gg models", () => {
  test("lists the shipped catalog for a person: the source and date first, then aligned columns with prices per million", async () => {
    using ws = tempWorkspace();
    const env = { XDG_CONFIG_HOME: join(ws.root, "config") };
    const listed = await gg(["models"], env);
    expect(listed.status).toBe(0);
    const [first = "", header = "", ...rows] = listed.stdout.trimEnd().split("\n");
    expect(first).toMatch(/^# models\.dev \(https:\/\/github\.com\/anomalyco\/models\.dev\) commit [0-9a-f]{40}, provider openrouter, \d{4}-\d{2}-\d{2}: \d{3} models \(.*catalog\/models\.json\); prices in USD per million tokens$/);
    expect(header).toMatch(/^model +context +input +in +cached +cache write +out +long prompts$/);
    expect(rows.length).toBeGreaterThanOrEqual(300);
    // Aligned: the context column (right-aligned) ends at the same place on every line.
    const end = header.indexOf("context") + "context".length;
    expect(rows.filter((line) => !/^\S+ +[\d,?]+$/.test(line.slice(0, end)) || line[end] !== " ")).toEqual([]);
    const sonnet = rows.find((line) => line.startsWith("anthropic/claude-sonnet-4.5 "));
    expect(sonnet?.split(/ {2,}/)).toEqual(["anthropic/claude-sonnet-4.5", "1,000,000", "text,image,pdf", "$3", "$0.3", "$3.75", "$15", "past 200,000: $6 in, $22.5 out"]);
  });

  test("a word keeps the models whose id has it (any case); --vision those that take images; --json keeps its shape", async () => {
    using ws = tempWorkspace();
    const env = { XDG_CONFIG_HOME: join(ws.root, "config") };
    const claude = await gg(["models", "CLAUDE-SONNET"], env);
    const ids = claude.stdout.trimEnd().split("\n").slice(2).map((line) => line.split(" ")[0]);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.filter((id) => !id?.includes("claude-sonnet"))).toEqual([]);
    expect(claude.stdout.split("\n")[0]).toMatch(new RegExp(`: ${ids.length} of \\d+ models `));
    const all = JSON.parse((await gg(["models", "--json"], env)).stdout) as { source: string; fetched: string; notice: string; models: { id: string; context_length?: number; input_modalities?: string[] }[] };
    expect(Object.keys(all)).toEqual(["source", "fetched", "notice", "models"]);
    expect(all.models.length).toBeGreaterThanOrEqual(300);
    expect(all.models.filter((model) => model.context_length === undefined || model.input_modalities === undefined)).toEqual([]);
    const seeing = JSON.parse((await gg(["models", "--vision", "--json"], env)).stdout) as typeof all;
    expect(seeing.models.map((model) => model.id)).toEqual(all.models.filter((model) => model.input_modalities?.includes("image")).map((model) => model.id));
    expect(await gg(["models", "no-such-model-anywhere"], env)).toMatchObject({ status: 0, stdout: expect.stringMatching(/: 0 of \d+ models .*\nNo model of the catalog matches\.\n$/) });
  });

  test("refresh reads models.dev's api.json (its OpenRouter models) or OpenRouter's /models answer, by shape, from a URL or a file", async () => {
    using ws = tempWorkspace();
    await using server = await serve({ "/api.json": json(MODELS_DEV), "/api/v1/models": json(OPENROUTER) });
    const env = { XDG_CONFIG_HOME: join(ws.root, "config") };
    const copy = join(ws.root, "config/gg/models.json");
    expect(await gg(["models", "refresh", "--from", `${server.base}/api.json`], env)).toMatchObject({ status: 0, stdout: `Wrote 1 model from ${server.base}/api.json.\n` });
    expect(JSON.parse(readFileSync(copy, "utf8"))).toMatchObject({
      source: `${server.base}/api.json`,
      notice: expect.stringContaining("MIT License"),
      models: [{ id: "anthropic/claude-x", context_length: 1000000, input_modalities: ["text", "image", "pdf"], pricing: { prompt: "0.000003", completion: "0.000015", input_cache_read: "0.0000003", tiers: [{ prompt_tokens_above: 200000, prompt: "0.000006", completion: "0.0000225" }] } }],
    });
    const row = (await gg(["models", "claude-x"], env)).stdout.split("\n")[2];
    expect(row?.split(/ {2,}/)).toEqual(["anthropic/claude-x", "1,000,000", "text,image,pdf", "$3", "$0.3", "-", "$15", "past 200,000: $6 in, $22.5 out"]);
    expect(await gg(["models", "refresh", "--base-url", `${server.base}/api/v1`], env)).toMatchObject({ status: 0, stdout: `Wrote 3 models from ${server.base}/api/v1/models.\n` });
    expect((JSON.parse(readFileSync(copy, "utf8")) as { models: unknown[] }).models).toEqual([
      { id: "x/bare" },
      { id: "y/seeing", context_length: 4096, input_modalities: ["image", "text"] },
      { id: "z/text", context_length: 8192, input_modalities: ["text"], pricing: { prompt: "0.00000015", completion: "0.0000006", input_cache_read: "0.000000075" } },
    ]);
    ws.put({ "api.json": JSON.stringify(MODELS_DEV) });
    expect(await gg(["models", "refresh", "--from", join(ws.root, "api.json")], env)).toMatchObject({ status: 0, stdout: `Wrote 1 model from ${join(ws.root, "api.json")}.\n` });
  });

  test("refresh refuses a failed, cut short, garbled or empty answer in one line, exit 1, the user's copy left byte for byte", async () => {
    using ws = tempWorkspace();
    const whole = JSON.stringify(OPENROUTER);
    const closed = await serve({});
    const refusedPort = closed.base;
    await closed[Symbol.asyncDispose]();
    await using server = await serve({
      "/error": (response) => response.writeHead(503, { "content-type": "text/plain" }).end("overloaded"),
      "/cut": json(whole.slice(0, whole.length / 2)),
      "/html": (response) => response.writeHead(200, { "content-type": "text/html" }).end("<html><body>Maintenance</body></html>"),
      "/empty": json(""),
      "/none": json({ data: [] }),
      "/other": json({ models: "not a list" }),
      // Headers promising the whole list, half of it, then the connection dropped.
      "/dropped": (response) => {
        response.writeHead(200, { "content-type": "application/json", "content-length": String(whole.length) }).write(whole.slice(0, whole.length / 2));
        setTimeout(() => response.socket?.destroy(), 20);
      },
    });
    const env = { XDG_CONFIG_HOME: join(ws.root, "config") };
    const before = '{"source": "mine", "fetched": "2026-01-01", "models": [{"id": "kept/model"}]}\n';
    ws.put({ "config/gg/models.json": before, "garbled.json": "{\u0000\u0001 nonsense" });
    const sources = [`${server.base}/error`, `${refusedPort}/api.json`, `${server.base}/cut`, `${server.base}/html`, `${server.base}/empty`, `${server.base}/none`, `${server.base}/other`, join(ws.root, "garbled.json"), join(ws.root, "absent.json"), `${server.base}/dropped`];
    const reasons: string[] = [];
    for (const from of sources) {
      const refused = await gg(["models", "refresh", "--from", from], env);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(new RegExp(`^gg: Cannot refresh the catalog from ${from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: [^\\n]+; ${join(ws.root, "config/gg/models.json").replace(/[.]/g, "\\.")} is unchanged\\n$`));
      reasons.push(refused.stderr);
      expect(readFileSync(join(ws.root, "config/gg/models.json"), "utf8")).toBe(before);
    }
    expect(reasons[0]).toContain(": HTTP 503");
    expect(reasons[1]).toContain("ECONNREFUSED");
    expect(reasons[2]).toContain("the answer is not whole JSON");
    expect(reasons[4]).toContain("the answer is empty");
    expect(reasons[5]).toContain("it lists no models");
    expect(reasons[9]).toContain("the answer was cut short (");
    expect(readdirSync(join(ws.root, "config/gg"))).toEqual(["models.json"]);
  });

  test("refresh where the copy cannot be written (its folder's place is a file) says so in one line, exit 1, nothing left behind", async () => {
    using ws = tempWorkspace();
    await using server = await serve({ "/api/v1/models": json(OPENROUTER) });
    ws.put({ config: "a file where the folder should be\n" });
    const refused = await gg(["models", "refresh", "--base-url", `${server.base}/api/v1`], { XDG_CONFIG_HOME: join(ws.root, "config") });
    expect(refused).toMatchObject({ status: 1, stdout: "" });
    expect(refused.stderr).toMatch(new RegExp(`^gg: Cannot write the catalog to ${join(ws.root, "config/gg/models.json").replace(/[.]/g, "\\.")}: ENOTDIR[^\n]*; it is unchanged \\(make its folder writable, or set XDG_CONFIG_HOME to one that is\\)\n$`));
    expect(readFileSync(join(ws.root, "config"), "utf8")).toBe("a file where the folder should be\n");
  });
});
