// gg mcp, tested as a client meets it: the SDK's own Client over StdioClientTransport, spawning `gg mcp`.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { createTools } from "../../bindings/index.ts";
import { CALL_TIMEOUT_MS, survivors, uniqueSleep } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";
import { connectGg, resultText } from "./client.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

const connect = connectGg;
const text = resultText;

/** Polls until `probe` holds (the test's own timeout bounds it). */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("gg mcp", () => {
  test("lists every call with the schema gg tools gives, and answers each as the tool call does", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\nbeta\n", "src/b.ts": "// TODO one\n" });
    await using mcp = await connect(ws.root);
    const listed = await mcp.client.listTools();
    const definitions = createTools({ workspace: ws.root }).definitions();
    expect(listed.tools.map((tool) => tool.name)).toEqual([...definitions.map((tool) => tool.name), "run_program", "search_docs"]);
    for (const definition of definitions) {
      expect(listed.tools.find((tool) => tool.name === definition.name)).toMatchObject({ description: definition.description, inputSchema: JSON.parse(JSON.stringify(definition.parameters)) });
    }
    const cases: [string, Record<string, unknown>][] = [
      ["read_file", { path: "a.txt" }],
      ["list_dir", {}],
      ["tree", { depth: 2 }],
      ["search", { query: "TODO" }],
      ["shell", { command: "echo hi; exit 3" }],
      ["edit_file", { path: "a.txt", old: "beta", new: "gamma" }],
      ["write_file", { path: "c.txt", content: "new\n" }],
    ];
    using mirror = tempWorkspace();
    mirror.put({ "a.txt": "alpha\nbeta\n", "src/b.ts": "// TODO one\n" });
    for (const [name, args] of cases) {
      const expected = await mirror.call(name, args);
      const result = await mcp.call(name, args);
      expect(result.isError).toBeFalsy();
      expect(text(result)).toBe(expected.ok ? expected.text.replaceAll(mirror.root, ws.root) : "");
    }
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("alpha\ngamma\n");
    // A read cut to a window is the window and the seed's footer, as every route returns it.
    expect(text(await mcp.call("read_file", { path: "a.txt", offset: 2, limit: 1 }))).toBe("gamma\n[showing lines 2-2 of 2]");
  });

  test("a picture comes back as an image block; a failure as isError with its code", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG });
    await using mcp = await connect(ws.root);
    const picture = await mcp.call("read_file", { path: "dot.png" });
    expect(picture.content).toEqual([
      { type: "text", text: "dot.png: PNG image, 1x1 pixels, 70 bytes; attached." },
      { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
    ]);
    const missing = await mcp.call("read_file", { path: "missing.txt" });
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: "not-found", message: expect.stringContaining("missing.txt") } });
    expect(text(missing)).toMatch(/^error\[not-found\]: Cannot read missing\.txt/);
    expect(await mcp.call("read_file", { path: 3 })).toMatchObject({ isError: true, structuredContent: { code: "invalid-argument" } });
    expect(await mcp.call("run_program", { source: "return 1", language: "py" })).toMatchObject({ isError: true, structuredContent: { code: "invalid-argument" } });
    // A budget the schema lets through but the limits cannot honour is named as run_program's argument.
    expect(await mcp.call("run_program", { source: "return 1", budget: 0.0001 })).toMatchObject({
      isError: true,
      structuredContent: { code: "invalid-argument", message: "Cannot run the program with these arguments: budget 0.0001 is under the smallest budget, 0.001 seconds" },
    });
  });

  test("run_program: one runtime for the session; the value, the console and the views a program opened come back", async () => {
    using ws = tempWorkspace();
    ws.put({ "notes.md": "# Notes\nfirst\n", "dot.png": PNG });
    await using mcp = await connect(ws.root);
    const first = await mcp.call("run_program", { source: "console.log('opening'); await gg.views.openFile('notes.md'); await gg.views.openFile('dot.png'); return { n: 1 }" });
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([
      { type: "text", text: 'Console:\nopening\n\nReturned:\n{"n":1}' },
      { type: "text", text: expect.stringMatching(/^\[view notes\.md, \d+ tokens\]\n# Notes\nfirst\n$/) },
      { type: "text", text: expect.stringMatching(/^\[view dot\.png, \d+ tokens\]\ndot\.png: PNG image, 1x1 pixels, 70 bytes; attached\.$/) },
      { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
    ]);
    expect(first.structuredContent).toMatchObject({ ok: true, result: { n: 1 }, views: [{ path: "notes.md" }, { path: "dot.png" }] });
    // The views stay open for the next program, and only what a program opens comes back with it.
    const second = await mcp.call("run_program", { source: "return (await gg.views.list()).map((view) => view.path)" });
    expect(second.content).toEqual([{ type: "text", text: 'Returned:\n["notes.md","dot.png"]' }]);
    // A tool call that changes a viewed file names the view it made stale, once; the view lists as stale.
    const edited = await mcp.call("edit_file", { path: "notes.md", old: "first", new: "second" });
    expect(edited.content.at(-1)).toEqual({ type: "text", text: "Stale views:\nnotes.md changed on disk since your view of turn 1; open it again to see it now" });
    expect(text(await mcp.call("read_file", { path: "notes.md" }))).not.toContain("Stale views");
    const resource = await mcp.client.readResource({ uri: "gg://views" });
    const [views] = resource.contents;
    expect(JSON.parse(views && "text" in views ? views.text : "")).toEqual([{ path: "notes.md", window: { first: 1, last: 2, total: 2 }, stale: true }, { path: "dot.png", stale: false }]);
    expect(text(await mcp.call("run_program", { source: "return (await gg.views.list()).map((view) => view.stale)" }))).toBe("Returned:\n[true,false]");
    const failed = await mcp.call("run_program", { source: "await gg.files.writeFile('w.txt', 'x');\nnull.x;" });
    expect(failed).toMatchObject({ isError: true, structuredContent: { ok: false, error: { code: "program-error", line: 2 } } });
    expect(text(failed)).toMatch(/^error\[program-error\]: .* \(line 2, column \d+\)\n\nCalls made before it ended: files\.writeFile ok$/);
    const typed = await mcp.call("run_program", { source: "const n: number = 'x';", check: true });
    expect(text(typed)).toContain("error[type-error]: The program does not type-check (1 error)");
  });

  test("a program that brings the runner down is reported as what it is, and the next program runs", async () => {
    using ws = tempWorkspace();
    await using mcp = await connect(ws.root);
    const crashed = await mcp.call("run_program", { source: "await gg.files.writeFile('pre.txt', 'x'); const keep = []; for (;;) keep.push(new Array(1 << 20).fill(Math.random()));" });
    expect(crashed).toMatchObject({ isError: true, structuredContent: { error: { code: "memory-limit" }, calls: [{ name: "files.writeFile", ok: true }] } });
    expect(await mcp.call("run_program", { source: "return 'alive'" })).toMatchObject({ structuredContent: { ok: true, result: "alive" } });
    // The views a new runner opens come back like any others.
    const opened = await mcp.call("run_program", { source: "await gg.views.openFile('pre.txt'); return 1" });
    expect(text(opened)).toMatch(/\[view pre\.txt, 1 tokens\]\nx$/);
  });

  test("cancelling a call stops its command, process group included; cancelling a program stops it", async () => {
    using ws = tempWorkspace();
    await using mcp = await connect(ws.root);
    const sleep = uniqueSleep();
    const cancel = new AbortController();
    const pending = mcp.call("shell", { command: `sleep ${sleep} & sleep ${sleep}; wait` }, cancel.signal);
    await until(() => survivors(sleep).length >= 2);
    cancel.abort();
    await expect(pending).rejects.toThrow();
    await until(() => survivors(sleep).length === 0);
    const program = new AbortController();
    const running = mcp.call("run_program", { source: `await gg.shell.shell('sleep ${sleep}')` }, program.signal);
    await until(() => survivors(sleep).length > 0);
    program.abort();
    await expect(running).rejects.toThrow();
    await until(() => survivors(sleep).length === 0);
    expect(await mcp.call("run_program", { source: "return 2" })).toMatchObject({ structuredContent: { ok: true, result: 2 } });
  });

  test("an allowlisted agent is served nothing it does not hold: tools, gg global, types, docs, prompts", async () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify({ agents: [{ id: "reviewer", allow: ["read_file", "search"] }] }) });
    await using mcp = await connect(ws.root, "--config", join(ws.root, "gg.json"), "--agent", "reviewer");
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(["read_file", "search", "run_program", "search_docs"]);
    expect(await mcp.call("run_program", { source: "return [typeof gg.shell, typeof gg.files.writeFile, typeof gg.files.search]" })).toMatchObject({ structuredContent: { result: ["undefined", "undefined", "function"] } });
    expect(await mcp.call("shell", { command: "true" }).catch((error: Error) => error.message)).toBe('MCP error -32602: Cannot call the tool "shell": the session holds no tool of that name; the tools are read_file, search, run_program, search_docs');
    for (const uri of ["gg://types/gg.d.ts", "gg://docs/api.md"]) {
      const [content] = (await mcp.client.readResource({ uri })).contents;
      expect(content && "text" in content ? content.text : "").not.toMatch(/shell|writeFile/);
    }
    for (const name of ["tools-agent", "code-agent"]) {
      const prompt = await mcp.client.getPrompt({ name });
      expect(JSON.stringify(prompt.messages)).not.toMatch(/shell|write_file|writeFile/);
    }
    expect(text(await mcp.call("search_docs", { query: "run a command" }))).toBe("No function of the gg global matches that.");
  });

  test("under the batch implementations it serves the batch tools, answering with their compact JSON, and the gg functions follow", async () => {
    using ws = tempWorkspace();
    const batch = ["read-file", "edit-file", "list-dir", "search"].map((id) => ({ id, implementation: "batch", ...(id === "read-file" ? { params: { lineCap: 200 } } : {}) }));
    ws.put({ "gg.json": JSON.stringify(batch), "src/a.ts": "one\ntwo\n" });
    await using mcp = await connect(ws.root, "--config", join(ws.root, "gg.json"));
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(["read", "view_image", "write_file", "edit", "list", "glob", "search", "shell", "run_program", "search_docs"]);
    expect(text(await mcp.call("glob", { patterns: ["src/**"] }))).toBe('{"results":["src/a.ts"],"truncated":false,"next":null,"skipped":0}');
    expect(text(await mcp.call("read", { files: [{ path: "src/a.ts", start_line: 2 }] }))).toBe('{"results":[{"path":"src/a.ts","start_line":2,"end_line":2,"total_lines":2,"text":"two"}],"truncated":false,"next":null,"skipped":0}');
    expect(await mcp.call("run_program", { source: "return [typeof gg.files.readFile, (await gg.files.glob(['src/*'])).results]" })).toMatchObject({ structuredContent: { result: ["undefined", ["src/a.ts"]] } });
  });

  test("serves the docs and types as resources, and both system prompts, the code one with its opening turn", async () => {
    using ws = tempWorkspace();
    ws.put({ "src/a.ts": "" });
    await using mcp = await connect(ws.root);
    expect((await mcp.client.listResources()).resources.map((resource) => resource.uri)).toEqual(["gg://docs/api.md", "gg://types/gg.d.ts", "gg://views"]);
    expect((await mcp.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    const types = (await mcp.client.readResource({ uri: "gg://types/gg.d.ts" })).contents[0];
    expect(types && "text" in types ? types.text : "").toBe(readFileSync(join(import.meta.dirname, "../../docs/gg.d.ts"), "utf8"));
    expect((await mcp.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["tools-agent", "code-agent"]);
    const tools = await mcp.client.getPrompt({ name: "tools-agent" });
    expect(tools.messages).toHaveLength(1);
    expect(JSON.stringify(tools.messages[0])).toContain("# Reading Files");
    const code = await mcp.client.getPrompt({ name: "code-agent" });
    expect(code.messages.map((message) => (message.content.type === "text" ? message.content.text : "")).join("\n")).toMatch(/run_program[\s\S]*# Opening turn\n\n## gg:\/\/workspace\/tree \(\d+ tokens\)\n\nsrc\/\n  a\.ts/);
    // The opening turn's views are the session's: programs see them.
    expect(await mcp.call("run_program", { source: "return (await gg.views.list()).map((view) => view.path)" })).toMatchObject({ structuredContent: { result: ["gg://workspace/tree", "gg://docs/files", "gg://docs/shell"] } });
    expect(text(await mcp.call("search_docs", { query: "evict" }))).toMatch(/^gg\.context\.evictFileView: /);
  });

  test("the server exits when stdin closes, leaving no runner and no command behind", async () => {
    using ws = tempWorkspace();
    const sleep = uniqueSleep();
    const mcp = await connect(ws.root);
    const pid = mcp.pid as number;
    void mcp.call("shell", { command: `sleep ${sleep}` }).catch(() => {});
    await mcp.call("run_program", { source: "return 1" });
    await until(() => survivors(sleep).length > 0);
    const runner = Number(spawnSync("pgrep", ["-P", String(pid), "-f", "runner"], { encoding: "utf8" }).stdout.trim());
    expect(runner).toBeGreaterThan(0);
    await mcp.client.close();
    await until(() => !existsSync(`/proc/${pid}`) && !existsSync(`/proc/${runner}`));
    await until(() => survivors(sleep).length === 0);
  });
});
