// Every route reaches the configured MCP servers alike: gg call and gg tools (mcp__<server>__<tool>), gg run, gg agent
// in both arms against the local fake provider, and gg mcp's run_program through the SDK's client; nothing outlives
// gg, whatever ends it.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { connectGg, resultText } from "../mcp/client.ts";
import { alive, finished } from "../processes.ts";
import { fixture, memory } from "../mcp/servers.ts";
import { call, fakeModel } from "../provider.ts";
import { type TempWorkspace, tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/** The word on the fixture's command line that finds the one `ws` started. */
const tagOf = (ws: TempWorkspace): string => `fixture-for-${ws.root.split("/").pop()}`;

/** An --mcp-config file in `ws` with the fixture (tagged, to find it by) and server-memory. */
const mcpConfig = (ws: TempWorkspace): string => {
  const fx = fixture(join(ws.root, "fx.log"));
  ws.put({ "mcp.json": JSON.stringify({ mcpServers: { fx: { ...fx, args: [...(fx.args ?? []), tagOf(ws)] }, memory: memory(join(ws.root, "memory.jsonl")) } }) });
  return join(ws.root, "mcp.json");
};

/** gg with `args`, its output whole; the event loop stays free for a fake model in this process. */
const gg = (args: string[], input = "") => finished(process.execPath, [bin, ...args], input);

/** Process ids whose command line names `text`. */
const running = (text: string): number[] =>
  spawnSync("pgrep", ["-f", text], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean)
    .map(Number);

describe("MCP tools on every route", () => {
  test("gg tools lists mcp__<server>__<tool> with the server's description and schema; gg call runs one and prints its text", async () => {
    using ws = tempWorkspace();
    const config = mcpConfig(ws);
    const listed = JSON.parse((await gg(["tools", "--mcp-config", config])).stdout) as { name: string; description: string; parameters: object }[];
    expect(listed.find((tool) => tool.name === "mcp__fx__echo")).toEqual({ name: "mcp__fx__echo", description: "Echo the text back.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } });
    expect(listed.filter((tool) => tool.name.startsWith("mcp__memory__"))).toHaveLength(9);
    expect(await gg(["call", "mcp__fx__echo", '{"text": "hello"}', "--mcp-config", config, "--workspace", ws.root])).toMatchObject({ status: 0, stdout: "hello\n" });
    expect(await gg(["call", "mcp__fx__fail", "{}", "--mcp-config", config, "--workspace", ws.root])).toMatchObject({ status: 1, stdout: "error[tool-error]: fx.fail failed: it broke\n" });
    // A tool of a server that cannot start is unknown, and gg says why.
    ws.put({ "gone.json": JSON.stringify({ mcpServers: { gone: { command: join(ws.root, "no-such-server") } } }) });
    const gone = await gg(["call", "mcp__gone__x", "{}", "--mcp-config", join(ws.root, "gone.json"), "--workspace", ws.root]);
    expect(gone.status).toBe(2);
    expect(gone.stderr).toMatch(/No tool "mcp__gone__x" .*; MCP server "gone" could not be listed: Cannot reach MCP server "gone": it did not start \(spawn .*ENOENT\)/);
  });

  test("gg agent, tools arm: the model's call of an MCP tool reaches the server, and its text comes back", async () => {
    using ws = tempWorkspace();
    const config = mcpConfig(ws);
    const entities = { entities: [{ name: "gg", entityType: "runtime", observations: ["calls any tool"] }] };
    await using model = await fakeModel([{ tool_calls: [call("a", "mcp__memory__create_entities", entities), call("b", "mcp__fx__echo", { text: "seen" })] }, { content: "Done." }]);
    const done = await gg(["agent", "--model", "m", "--arm", "tools", "--task", "Remember gg.", "--base-url", model.baseURL, "--workspace", ws.root, "--mcp-config", config]);
    expect(done.status, done.stderr).toBe(0);
    expect(readFileSync(join(ws.root, "memory.jsonl"), "utf8")).toContain('"name":"gg"');
    expect(model.requests[0]?.tools?.map((tool) => (tool as { function: { name: string } }).function.name)).toContain("mcp__memory__create_entities");
    const results = model.requests[1]?.messages.filter((message) => message.role === "tool").map((message) => message.content);
    expect(results?.[1]).toBe("seen");
  });

  test("gg agent, code arm: the prompt names each server once, no tool's schema, and the program calls the tools", async () => {
    using ws = tempWorkspace();
    const config = mcpConfig(ws);
    const program = "const made = await gg.mcp.memory.create_entities({ entities: [{ name: 'code', entityType: 'arm', observations: [] }] });\nreturn made.entities.length;";
    await using model = await fakeModel([{ content: `\`\`\`ts\n${program}\n\`\`\`` }, { content: "Done." }]);
    const done = await gg(["agent", "--model", "m", "--arm", "code", "--task", "Remember.", "--base-url", model.baseURL, "--workspace", ws.root, "--mcp-config", config]);
    expect(done.status, done.stderr).toBe(0);
    const system = String(model.requests[0]?.messages[0]?.content);
    expect(system).toContain("- gg.mcp.memory (9 tools)");
    expect(system).toContain("- gg.mcp.fx (20 tools): A fixture for gg's tests.");
    expect(system).not.toContain("entityType");
    expect(model.requests[0]?.tools ?? []).toEqual([]);
    expect(readFileSync(join(ws.root, "memory.jsonl"), "utf8")).toContain('"name":"code"');
  });

  test("gg agent, code arm: a server that never answers delays the first request by a bound, not its 60 s start; the prompt names it still starting, once", async () => {
    using ws = tempWorkspace();
    const hung = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    ws.put({ "mcp.json": JSON.stringify({ mcpServers: { fx: fixture(), hung } }) });
    await using model = await fakeModel([{ content: "```ts\nreturn (await gg.mcp.fx.echo({ text: 'up' })).text;\n```" }, { content: "Done." }]);
    const done = await gg(["agent", "--model", "m", "--arm", "code", "--task", "Echo.", "--base-url", model.baseURL, "--workspace", ws.root, "--mcp-config", join(ws.root, "mcp.json")]);
    expect(done.status, done.stderr).toBe(0);
    const systems = model.requests.map((request) => String(request.messages[0]?.content));
    expect(systems[0]).toContain("- gg.mcp.hung: still starting; a program that calls it waits for it\n");
    expect(systems[0]).toContain("- gg.mcp.fx (20 tools)");
    // The prefix is the same in every request (a prompt cache keeps it).
    expect(new Set(systems).size).toBe(1);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("up");
  }, 45_000);

  test("gg mcp: run_program calls the configured servers (gg as a code-mode front for them)", async () => {
    using ws = tempWorkspace();
    await using mcp = await connectGg(ws.root, "--mcp-config", mcpConfig(ws));
    const result = await mcp.call("run_program", { source: "return (await gg.mcp.fx.count({ n: 4 })).numbers.length", check: true });
    expect(resultText(result)).toContain("4");
    const found = resultText(await mcp.call("search_docs", { query: "count" }));
    expect(found).toContain("gg.mcp.fx.count");
  });

  test.each(["SIGTERM", "SIGKILL"] as const)("gg run stopped by %s mid-call leaves no server process behind, nor what a server started", async (signal) => {
    using ws = tempWorkspace();
    const config = mcpConfig(ws);
    // A temp folder of its own, to see that the runner's journal goes too.
    const temp = join(ws.root, "tmp");
    mkdirSync(temp);
    const child = spawn(process.execPath, [bin, "run", "-", "--mcp-config", config, "--workspace", ws.root], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TMPDIR: temp } });
    child.stdin.end("const pid = (await gg.mcp.fx.spawn_child()).text; console.log('started ' + pid); await gg.mcp.fx.slow({ ms: 60000 });");
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await expect.poll(() => out, { timeout: 20_000 }).toMatch(/started \d+/);
    const sleeper = Number(/started (\d+)/.exec(out)?.[1]);
    expect(running(tagOf(ws)).length).toBe(1);
    // SIGKILL leaves gg no last word: its runner, which holds the servers, sees the channel close and stops them.
    child.kill(signal);
    await new Promise((resolve) => child.on("close", resolve));
    await expect.poll(() => running(tagOf(ws)).length + (alive(sleeper) ? 1 : 0), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => readdirSync(temp).filter((name) => name.startsWith("gg-runner-")), { timeout: 10_000 }).toEqual([]);
  });
});
