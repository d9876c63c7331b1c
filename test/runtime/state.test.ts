// A session's programs share one realm (keepState): what a program declares stays for the next, redeclaring
// replaces, builtins are restored between programs, and a realm that was lost is said in the next report.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runAgent } from "../../agent/loop.ts";
import { differences, recordedCalls, replayOptions, type TranscriptEntry } from "../../agent/transcript.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { createMcpServer } from "../../mcp/server.ts";
import { createRuntime } from "../../runtime/index.ts";
import { fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";
import { engineWorkspace } from "./engine.ts";

describe("a session's realm", () => {
  test("top-level bindings stay for the next program, live; redeclaring replaces; gg.context.state lists them", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "log.txt": "ok 1\nFAIL 2\nok 3\nFAIL 4\n" });
    const first = await ws.run("const lines = (await gg.files.readFile('log.txt')).split('\\n');\nlet seen = 0;\nfunction failures(text: string[]) { seen++; return text.filter((line) => line.startsWith('FAIL')); }\nclass Tally { count = 2; }\nreturn failures(lines).length;");
    expect(first).toMatchObject({ ok: true, result: 2 });
    const second = await ws.run("seen += 10;\nreturn [failures(lines), new Tally().count, seen];");
    expect(second).toMatchObject({ ok: true, result: [["FAIL 2", "FAIL 4"], 2, 12] });
    // A const from an earlier program is read-only; declaring the name again replaces it, whatever its kind.
    const assign = await ws.run("lines = [];");
    expect(assign.error?.message).toMatch(/constant variable .lines., declared by an earlier program/);
    expect(await ws.run("const lines = 'again';\nfunction failures() { return 'replaced'; }\nreturn [lines, failures()];")).toMatchObject({ ok: true, result: ["again", "replaced"] });
    expect(await ws.run("return [lines, failures(), seen];")).toMatchObject({ ok: true, result: ["again", "replaced", 12] });
    const state = await ws.run("(globalThis as any).cache = { hits: [1, 2, 3] };\nreturn gg.context.state();");
    const held = state.result as { name: string; kind: string; bytes: number }[];
    expect(held.map((entry) => [entry.name, entry.kind])).toEqual(expect.arrayContaining([["lines", "string"], ["seen", "number"], ["failures", "function"], ["Tally", "class"], ["cache", "object"]]));
    expect(held.every((entry) => entry.bytes > 0)).toBe(true);
  });

  test("a program stopped at its memory limit ends the realm: the next report says so and starts empty", async () => {
    using ws = engineWorkspace({ keepState: true });
    const limits = { limits: { memoryMb: 32 } };
    expect(await ws.run("const kept = 'before';\nreturn kept;", limits)).toMatchObject({ ok: true });
    expect((await ws.run("const hog: string[] = [];\nfor (;;) hog.push('x'.repeat(1024) + Math.random());", limits)).error?.code).toBe("memory-limit");
    const after = await ws.run("return typeof kept;", limits);
    expect(after).toMatchObject({ ok: true, result: "undefined" });
    expect(after.stateLost).toMatch(/stopped \(memory-limit\)/);
    expect((await ws.run("return 1;", limits)).stateLost).toBeUndefined();
  });

  test("--check knows what earlier programs declared, with their inferred types; redeclaring replaces", async () => {
    using ws = engineWorkspace({ keepState: true });
    const check = { check: true };
    expect(await ws.run("const hits = [{ path: 'a.ts', line: 3 }];\ninterface Hit { path: string; line: number }\nfunction lines(list: Hit[]) { return list.map((hit) => hit.line); }\nreturn 1;", check)).toMatchObject({ ok: true });
    expect(await ws.run("const total: number = lines(hits).reduce((a, b) => a + b, 0);\nreturn total;", check)).toMatchObject({ ok: true, result: 3 });
    const wrong = await ws.run("const name: number = hits[0].path;\nreturn name;", check);
    expect(wrong.error).toMatchObject({ code: "type-error", line: 1 });
    expect(wrong.error?.message).toMatch(/Type 'string' is not assignable to type 'number'/);
    // Declared again with another type: the later program sees the new one.
    expect(await ws.run("const hits = 'none';\nreturn hits.length;", check)).toMatchObject({ ok: true, result: 4 });
    expect((await ws.run("return hits.toUpperCase();", check))).toMatchObject({ ok: true, result: "NONE" });
  });

  test("without keepState (gg run) each program starts empty, and gg.context.state lists nothing", async () => {
    using ws = engineWorkspace();
    expect(await ws.run("const x = 1;\n(globalThis as any).cache = [1];\nreturn x;")).toMatchObject({ ok: true, result: 1 });
    expect(await ws.run("return [typeof x, typeof (globalThis as any).cache, await gg.context.state()];")).toMatchObject({ ok: true, result: ["undefined", "undefined", []] });
  });

  test("a runner that had to be restarted lost the realm, and the next report says so", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, keepState: true });
    try {
      expect(await runtime.run("const x = 1;\nreturn x;")).toMatchObject({ ok: true });
      // The command's parent is the runner process: killing it is a runner crash.
      const crash = await runtime.run("await gg.shell.shell('kill -9 $PPID');\nreturn 1;");
      expect(crash.ok).toBe(false);
      const after = await runtime.run("return typeof x;");
      expect(after).toMatchObject({ ok: true, result: "undefined" });
      expect(after.stateLost).toMatch(/runner process ended/);
    } finally {
      runtime.close();
    }
  });
});

describe("state across a session's programs", () => {
  test("gg agent: a helper declared in one turn's program is called from the next", async () => {
    using ws = tempWorkspace();
    ws.put({ "data.txt": "3\n4\n" });
    await using server = await fakeModel([
      { content: "```ts\nconst numbers = (await gg.files.readFile('data.txt')).trim().split('\\n').map(Number);\nfunction total(list: number[]) { return list.reduce((a, b) => a + b, 0); }\nreturn numbers.length;\n```" },
      { content: "```ts\nreturn total(numbers) * 10;\n```" },
      { content: "The total is 70." },
    ]);
    const report = await runAgent({ provider: server.provider, model: "m", arm: "code", task: "Add up data.txt.", workspace: ws.root });
    expect(report).toMatchObject({ ok: true, answer: "The total is 70." });
    const third = JSON.stringify(server.requests[2]?.messages.at(-1)?.content);
    expect(third).toContain("70");
  });

  test("a replay runs the recorded programs in order, so the realm is rebuilt: the second program's result matches the recording", async () => {
    using ws = tempWorkspace();
    ws.put({ "data.txt": "3\n4\n" });
    await using server = await fakeModel([
      { content: "```ts\nconst numbers = (await gg.files.readFile('data.txt')).trim().split('\\n').map(Number);\nreturn numbers.length;\n```" },
      { content: "```ts\nawait gg.files.writeFile('total.txt', String(numbers.reduce((a, b) => a + b, 0)));\nreturn numbers;\n```" },
      { content: "Wrote 7." },
    ]);
    const entries: TranscriptEntry[] = [];
    const options = { model: "m", arm: "code" as const, task: "Total data.txt into total.txt.", workspace: ws.root };
    const first = await runAgent({ ...options, provider: server.provider, onRecord: (entry) => entries.push(entry) });
    expect(first).toMatchObject({ ok: true, answer: "Wrote 7." });
    using again = tempWorkspace();
    again.put({ "data.txt": "3\n4\n" });
    const recorded = recordedCalls(entries);
    const replay = await runAgent(replayOptions({ type: "start", ...options }, entries, again.root));
    expect(replay).toMatchObject({ ok: true, answer: "Wrote 7." });
    expect(readFileSync(join(again.root, "total.txt"), "utf8")).toBe("7");
    expect(recorded).toHaveLength(2);
    expect(differences(recorded, replay.calls)).toEqual([]);
  });

  test("MCP: run_program calls of one session share their realm, and reset starts afresh", async () => {
    using ws = tempWorkspace();
    const session = createMcpServer({ workspace: ws.root, config: parseConfiguration([]) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.server.connect(serverSide);
    const client = new Client({ name: "gg-test", version: "0.0.0" });
    await client.connect(clientSide);
    const run = async (args: Record<string, unknown>): Promise<string> => {
      const result = (await client.callTool({ name: "run_program", arguments: args })) as CallToolResult;
      return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    };
    try {
      expect(await run({ source: "const hits = [1, 2, 3];\nreturn hits.length;" })).toContain("3");
      expect(await run({ source: "return hits.map((hit) => hit * 2);" })).toContain("[2,4,6]");
      expect(await run({ source: "return typeof hits;", reset: true })).toContain('"undefined"');
    } finally {
      await client.close();
      await session.close();
    }
  });
});
