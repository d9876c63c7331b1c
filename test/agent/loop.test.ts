// The agent loop end to end: the official openai client against a local server speaking chat completions, which
// answers with scripted replies and keeps every request it was sent.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type Bands, bandsTotal, programOf, runAgent } from "../../agent/loop.ts";
import { imageTokens, textTokens } from "../../runtime/context.ts";
import { call, fakeModel, type Message } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

const text = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content));
/** gg's estimate of a message's text parts alone. */
const textParts = (content: unknown): number => (Array.isArray(content) ? content.reduce((sum: number, part: { text?: string }) => sum + (part.text === undefined ? 0 : textTokens(part.text)), 0) : 0);
/** The text parts of a request's views messages (the opening turn's and the others), as gg counts them. */
const viewsText = (messages: Message[] | undefined): number =>
  (messages ?? []).filter((message) => /^# (Opening turn|Open views)/.test(text((message.content as { text?: string }[])[0]?.text ?? ""))).reduce((sum, message) => sum + textParts(message.content), 0);

describe("runAgent", () => {
  test("tools arm: every tool call of a reply is answered in order by a tool message with its id; no tool call ends the run", async () => {
    using ws = tempWorkspace();
    ws.put({ "notes.txt": "draft\n" });
    await using server = await fakeModel([
      { tool_calls: [call("a", "read_file", { path: "notes.txt" }), call("b", "edit_file", { path: "notes.txt", old: "draft", new: "final" })] },
      { tool_calls: [call("c", "read_file", { path: "missing.txt" }), { id: "d", type: "function" as const, function: { name: "search", arguments: "{not json" } }] },
      { content: "Done: notes.txt says final." },
    ]);
    const turns: number[] = [];
    const report = await runAgent({ provider: server.provider, model: "m", arm: "tools", task: "Finalise the notes.", workspace: ws.root, onTurn: (turn) => turns.push(turn.turn) });
    expect(report).toMatchObject({ ok: true, answer: "Done: notes.txt says final." });
    // Each call with its arguments as the model sent them: parsed, or the text that was not JSON.
    expect(report.calls).toMatchObject([
      { name: "read_file", args: { path: "notes.txt" }, ok: true },
      { name: "edit_file", args: { path: "notes.txt", old: "draft", new: "final" }, ok: true },
      { name: "read_file", args: { path: "missing.txt" }, ok: false, code: "not-found" },
      { name: "search", args: "{not json", ok: false, code: "invalid-argument" },
    ]);
    expect(turns).toEqual([1, 2, 3]);
    expect(readFileSync(join(ws.root, "notes.txt"), "utf8")).toBe("final\n");
    expect(report.filesChanged).toEqual({ created: [], modified: ["notes.txt"], deleted: [] });
    const [first, second] = server.requests;
    expect(first?.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(text(first?.messages[0]?.content)).toContain("# Reading Files");
    expect(first?.tools).toHaveLength(7);
    const tail = second?.messages.slice(2) ?? [];
    expect(tail.map((message) => [message.role, message.tool_call_id])).toEqual([["assistant", undefined], ["tool", "a"], ["tool", "b"]]);
    expect(tail[1]?.content).toBe("draft\n");
    expect(text(server.requests[2]?.messages.at(-1)?.content)).toMatch(/^error\[invalid-argument\]: Cannot call search: its arguments are not JSON/);
    expect(report.turns[0]).toMatchObject({ usage: { promptTokens: 100, completionTokens: 10 }, calls: 2, retries: [] });
    // A reply's tool calls travel back with every later request, and are counted with the messages.
    expect(report.turns[1]?.estimate.messages).toBe(textTokens("Finalise the notes.") + textTokens(JSON.stringify(second?.messages[2]?.tool_calls)));
    // The tools band is the function definitions as sent; the totals add the turns up.
    expect(report.turns[0]?.estimate.tools).toBe(textTokens(JSON.stringify(first?.tools)));
    expect(report.totals).toEqual({
      estimate: Object.fromEntries(Object.keys(report.turns[0]?.estimate ?? {}).map((band) => [band, report.turns.reduce((sum, turn) => sum + turn.estimate[band as keyof typeof turn.estimate], 0)])),
      usage: { promptTokens: 300, completionTokens: 30 },
      turnsWithoutUsage: 0,
      retries: 0,
      // No prices given: the cost is unknown, not 0.
      cost: null,
    });
  });

  test("code arm: a reply's program runs in one runtime; the open views travel as their own band, and a closed one is gone", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    await using server = await fakeModel([
      { content: "Let me look.\n```ts\nawait gg.views.openFile('a.txt');\nreturn (await gg.files.listDir()).entries.length;\n```" },
      { content: "```ts\nawait gg.views.close('a.txt');\nawait gg.files.writeFile('b.txt', 'beta');\nreturn 'closed';\n```" },
      { content: "All done." },
    ]);
    const report = await runAgent({ provider: server.provider, model: "m", arm: "code", task: "Look at a.txt.", workspace: ws.root });
    expect(report).toMatchObject({ ok: true, answer: "All done.", calls: [{ name: "run_program", ok: true }, { name: "run_program", ok: true }] });
    // Each program with its source, and the gg calls it made nested under it, as its run report lists them.
    expect(report.calls[1]).toMatchObject({
      args: { language: "ts", source: "await gg.views.close('a.txt');\nawait gg.files.writeFile('b.txt', 'beta');\nreturn 'closed';\n" },
      calls: [
        { name: "views.close", args: '["a.txt"]', ok: true },
        { name: "files.writeFile", args: '["b.txt","beta"]', ok: true },
      ],
    });
    expect(report.calls[0]?.calls?.map((made) => made.name)).toEqual(["views.openFile", "files.listDir"]);
    expect(readFileSync(join(ws.root, "b.txt"), "utf8")).toBe("beta");
    expect(report.filesChanged).toEqual({ created: ["b.txt"], modified: [], deleted: [] });
    const [first, second, third] = server.requests.map((request) => request.messages);
    // The opening turn's views right after the system prompt, the same bytes in every request, before the task.
    expect(first?.map((message) => message.role)).toEqual(["system", "user", "user"]);
    expect(text(first?.[1]?.content)).toMatch(/^\[\{"type":"text","text":"# Opening turn"\},\{"type":"text","text":"## gg:\/\/workspace\/tree\\n\\na\.txt"\}/);
    expect(first?.[2]?.content).toBe("Look at a.txt.");
    for (const later of [second, third]) expect(text(later?.slice(0, 3))).toBe(text(first));
    // The other views last: a.txt after the first program; gone after the second closed it.
    expect(text(second?.at(-1)?.content)).toContain("## a.txt lines 1-1 of 1\\n\\nalpha");
    expect(second?.at(-2)?.content).toBe("Returned:\n1");
    expect(third?.at(-1)?.content).toBe('Returned:\n"closed"');
    expect(report.turns.map((turn, i) => turn.estimate.views === viewsText(server.requests[i]?.messages) && turn.estimate.views > 0)).toEqual([true, true, true]);
    // A report is the result of an action: counted with tool results, the task and the replies with messages.
    expect(report.turns[2]?.estimate).toMatchObject({ toolResults: textTokens("Returned:\n1") + textTokens('Returned:\n"closed"'), messages: [first?.[2], second?.[3], third?.[5]].reduce((sum, message) => sum + textTokens(text(message?.content)), 0) });
  });

  test("gg.context.breakdown() in a program is the loop's estimate of the next request, but for the program's own report", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n".repeat(40), "b.txt": "beta\n" });
    await using server = await fakeModel([
      { content: "First a.\n```ts\nawait gg.views.openFile('a.txt');\nreturn 'opened';\n```" },
      { content: "Then b, and what it costs.\n```ts\nawait gg.views.openFile('b.txt');\nreturn await gg.context.breakdown();\n```" },
      { content: "Done." },
    ]);
    const report = await runAgent({ provider: server.provider, model: "m", arm: "code", task: "Open both.", workspace: ws.root });
    const told = text(server.requests[2]?.messages.at(-2)?.content);
    const seen = JSON.parse(told.slice("Returned:\n".length)) as Record<string, number>;
    const next = report.turns[2]?.estimate as Bands;
    const own = textTokens(told);
    expect(seen).toEqual({ system: next.system, messages: next.messages, toolResults: next.toolResults - own, fileViews: next.views, images: 0, total: bandsTotal(next) - own });
    expect(seen.fileViews).toBe(viewsText(server.requests[2]?.messages));
  });

  test("cached prompt tokens are reported beside the rest when the provider gives them", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      { content: "```ts\nreturn 1;\n```", usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920, prompt_tokens_details: { cached_tokens: 0 } } },
      { content: "One.", usage: { prompt_tokens: 950, completion_tokens: 5, total_tokens: 955, prompt_tokens_details: { cached_tokens: 896 } } },
    ]);
    const report = await runAgent({ provider: server.provider, model: "m", arm: "code", task: "Count.", workspace: ws.root });
    expect(report.turns.map((turn) => turn.usage)).toEqual([
      { promptTokens: 900, completionTokens: 20, cachedTokens: 0 },
      { promptTokens: 950, completionTokens: 5, cachedTokens: 896 },
    ]);
    expect(report.totals.usage).toEqual({ promptTokens: 1850, completionTokens: 25, cachedTokens: 896 });
  });

  test("the report's cost prices each request by its own usage: cache reads and writes at their prices, a prompt past a tier's size at that tier", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      // OpenRouter's fields: 200,000 of the 250,000 prompt tokens read from the cache, 10,000 written to it.
      { content: "```ts\nreturn 1;\n```", usage: { prompt_tokens: 250_000, completion_tokens: 1000, total_tokens: 251_000, prompt_tokens_details: { cached_tokens: 200_000, cache_write_tokens: 10_000 } } },
      // An Anthropic-compatible gateway's field, at the top of usage.
      { content: "One.", usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, cache_creation_input_tokens: 400 } },
    ]);
    const perMillion = (prompt: number, completion: number, read: number, write: number) => ({ prompt: prompt / 1e6, completion: completion / 1e6, input_cache_read: read / 1e6, input_cache_write: write / 1e6 });
    const pricing = { ...perMillion(3, 15, 0.3, 3.75), tiers: [{ prompt_tokens_above: 200_000, ...perMillion(6, 22.5, 0.6, 7.5) }] };
    const report = await runAgent({ provider: server.provider, model: "m", arm: "code", task: "Count.", workspace: ws.root, pricing });
    expect(report.turns.map((turn) => turn.usage)).toEqual([
      { promptTokens: 250_000, completionTokens: 1000, cachedTokens: 200_000, cacheWriteTokens: 10_000 },
      { promptTokens: 1000, completionTokens: 100, cacheWriteTokens: 400 },
    ]);
    expect(report.totals.usage).toEqual({ promptTokens: 251_000, completionTokens: 1100, cachedTokens: 200_000, cacheWriteTokens: 10_400 });
    // At the tier: 40,000 fresh × $6 + 200,000 read × $0.6 + 10,000 written × $7.5 + 1,000 out × $22.5 per million;
    // then at the base: 600 fresh × $3 + 400 written × $3.75 + 100 out × $15 per million.
    const tiered = (40_000 * 6 + 200_000 * 0.6 + 10_000 * 7.5 + 1000 * 22.5) / 1e6;
    const base = (600 * 3 + 400 * 3.75 + 100 * 15) / 1e6;
    expect(report.totals.cost).toBeCloseTo(tiered + base, 12);
    await using other = await fakeModel([{ content: "One." }]);
    const unpriced = await runAgent({ provider: other.provider, model: "m", arm: "tools", task: "Count.", workspace: ws.root });
    expect(unpriced.totals.cost).toBeNull();
  });

  test("the run ends at max-turns, and a request over the context length is not sent", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([{ tool_calls: [call("a", "list_dir", {})] }, { tool_calls: [call("b", "list_dir", {})] }]);
    expect(await runAgent({ provider: server.provider, model: "m", arm: "tools", task: "Loop.", workspace: ws.root, maxTurns: 2 })).toMatchObject({ ok: false, error: { code: "max-turns" } });
    const sent = server.requests.length;
    const overflow = await runAgent({ provider: server.provider, model: "m", arm: "tools", task: "x".repeat(4000), workspace: ws.root, contextLength: 500 });
    expect(overflow.error).toMatchObject({ code: "context-overflow", message: expect.stringMatching(/over the model's context length of 500 \(system \d+, tools \d+, messages 1000, toolResults 0, views 0\)/) });
    expect(server.requests.length).toBe(sent);
  });

  test("learned vision: a refused picture makes the model text-only for the process, the pictures leave with a note, the turn is sent again", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG });
    const model = `text-only-${process.pid}`;
    await using server = await fakeModel([{ tool_calls: [call("a", "read_file", { path: "dot.png" }), call("b", "list_dir", {})] }, { content: "A 1x1 PNG." }, { tool_calls: [call("c", "read_file", { path: "dot.png" })] }, { content: "Still a PNG." }], { refusePictures: true });
    const first = await runAgent({ provider: server.provider, model, arm: "tools", task: "What is dot.png?", workspace: ws.root });
    expect(first).toMatchObject({ ok: true, answer: "A 1x1 PNG.", wastedRequests: 1, visionEvents: [{ turn: 2, model, status: 400 }] });
    // The refused request carried the picture; the one sent again carries the note instead, every tool_call_id kept.
    const [, refused, again] = server.requests;
    expect(JSON.stringify(refused)).toContain("image_url");
    expect(JSON.stringify(again)).not.toContain("image_url");
    expect(again?.messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id)).toEqual(["a", "b"]);
    expect(JSON.stringify(again?.messages[3]?.content)).toContain("The picture of dot.png was removed: this model cannot see images.");
    // From then on read_file's own description says pictures are described.
    expect(JSON.stringify(refused?.tools)).not.toContain("Reading images is unsupported");
    expect(JSON.stringify(again?.tools)).toContain("Reading images is unsupported for this model");
    // A second agent of the same model in this process never sends one: read_file describes the picture.
    const second = await runAgent({ provider: server.provider, model, arm: "tools", task: "And now?", workspace: ws.root });
    expect(second).toMatchObject({ ok: true, wastedRequests: 0, visionEvents: [] });
    expect(JSON.stringify(server.requests.slice(3))).not.toContain("image_url");
    expect(JSON.stringify(server.requests[4]?.messages.at(-1)?.content)).toContain("not attached: this model cannot see images");
  });

  test("learned vision in the code arm: the open views give up their pictures, the runtime describes them from then on", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG });
    const model = `text-only-code-${process.pid}`;
    await using server = await fakeModel(
      [
        { content: "```ts\nawait gg.views.openFile('dot.png');\nreturn 1;\n```" },
        { content: "```ts\nconst seen = await gg.views.openFile('dot.png');\nreturn { attached: seen.image?.attached, images: (await gg.context.breakdown()).images };\n```" },
        { content: "Done." },
      ],
      { refusePictures: true },
    );
    const report = await runAgent({ provider: server.provider, model, arm: "code", task: "Look at dot.png.", workspace: ws.root });
    expect(report).toMatchObject({ ok: true, answer: "Done.", wastedRequests: 1, visionEvents: [{ turn: 2, model, status: 400 }] });
    const [, refused, again, last] = server.requests;
    expect(JSON.stringify(refused)).toContain("image_url");
    // The picture is charged while it travels (see the next test), and not once it has left.
    expect(report.turns[1]?.estimate.views).toBe(viewsText(again?.messages));
    expect(JSON.stringify(server.requests.slice(2))).not.toContain("image_url");
    expect(JSON.stringify(again?.messages.at(-1)?.content)).toContain("The picture of dot.png was removed: this model cannot see images.");
    expect(text(again?.messages[0]?.content)).toContain("Reading images is unsupported for this model.");
    expect(text(last?.messages.at(-2)?.content)).toContain('"images":0');
    expect(text(last?.messages.at(-2)?.content)).toContain('"attached":false');
  });

  test("gg's estimate charges a picture in the views band by its tiles while it travels", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG });
    await using server = await fakeModel([{ content: "```ts\nawait gg.views.openFile('dot.png');\nreturn 1;\n```" }, { content: "Seen." }]);
    const report = await runAgent({ provider: server.provider, model: `sees-${process.pid}`, arm: "code", task: "Look.", workspace: ws.root });
    expect(JSON.stringify(server.requests[1])).toContain("image_url");
    expect(report.turns[1]?.estimate.views).toBe(viewsText(server.requests[1]?.messages) + imageTokens({ width: 1, height: 1, bytes: PNG.length }).tokens);
  });

  test("declared text-only: no picture is ever sent, and the prompt says reading images is unsupported", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG });
    await using server = await fakeModel([{ content: "```ts\nawait gg.views.openFile('dot.png');\nreturn 1;\n```" }, { content: "Seen." }]);
    const report = await runAgent({ provider: server.provider, model: "declared", arm: "code", task: "Look.", workspace: ws.root, vision: false });
    expect(report).toMatchObject({ ok: true, wastedRequests: 0 });
    expect(JSON.stringify(server.requests)).not.toContain("image_url");
    expect(text(server.requests[0]?.messages[0]?.content)).toContain("Reading images is unsupported for this model.");
    expect(text(server.requests[1]?.messages.at(-1)?.content)).toContain("dot.png: PNG image, 1x1 pixels, 70 bytes; not attached: this model cannot see images.");
  });

  test("a program is a reply's first fenced ts or js block", () => {
    expect(programOf("text\n```ts\nreturn 1\n```\n```js\nreturn 2\n```")).toEqual({ source: "return 1\n", language: "ts" });
    expect(programOf("```javascript\nreturn 2\n```")).toEqual({ source: "return 2\n", language: "js" });
    expect(programOf("```python\nprint(1)\n```")).toBeUndefined();
  });
});

describe("gg agent", () => {
  test("drives the model at --base-url: a line per turn and a summary on stderr, the answer on stdout; no key for a remote URL exits 2", async () => {
    const { spawn, spawnSync } = await import("node:child_process");
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    await using server = await fakeModel([{ tool_calls: [call("a", "read_file", { path: "a.txt" })] }, { content: "a.txt says alpha" }]);
    const bin = join(import.meta.dirname, "../../bin/gg.js");
    const env = { ...process.env, GG_API_KEY: "", OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" };
    ws.put({ "catalog.json": JSON.stringify({ source: "test", fetched: "2026-12-01", models: [{ id: "m", context_length: 100000, input_modalities: ["text"] }] }) });
    const child = spawn(process.execPath, [bin, "agent", "--model", "m", "--arm", "tools", "--task", "What does a.txt say?", "--base-url", server.baseURL, "--workspace", ws.root, "--catalog", join(ws.root, "catalog.json")], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise((resolve) => child.on("exit", resolve));
    expect({ status, stdout }).toEqual({ status: 0, stdout: "a.txt says alpha\n" });
    // The model's catalog entry is read: this one says text only, so the prompt says so.
    expect(text(server.requests[0]?.messages[0]?.content)).toContain("Reading images is unsupported for this model");
    expect(stderr).toMatch(/^\[turn 1\] 100 in, 10 out \(gg.s estimate \d+ in\), 1 call, [\d.]+ s\n\[turn 2\] 100 in, 10 out \(gg.s estimate \d+ in\), 0 calls, [\d.]+ s\nrun {5}2 turns in /);
    expect(spawnSync(process.execPath, [bin, "agent", "--model", "m", "--arm", "code", "--task", "x", "--base-url", "https://example.invalid/v1"], { env, encoding: "utf8" })).toMatchObject({ status: 2, stderr: expect.stringContaining("no API key") });
    expect(spawnSync(process.execPath, [bin, "agent", "--model", "m", "--arm", "code"], { env, encoding: "utf8" })).toMatchObject({ status: 2, stderr: expect.stringContaining("--task TEXT or --task-file FILE") });
  });
});

describe("transcripts and replay", () => {
  test("a run recorded with --transcript replays without a model, reproducing the workspace; a different outcome is reported", async () => {
    const { spawn, spawnSync } = await import("node:child_process");
    const { appendFileSync, rmSync } = await import("node:fs");
    using ws = tempWorkspace();
    ws.put({ "notes.txt": "draft\n", "dot.png": PNG });
    await using server = await fakeModel([
      { tool_calls: [call("a", "read_file", { path: "dot.png" }), call("b", "edit_file", { path: "notes.txt", old: "draft", new: "final" })] },
      { content: "Done." },
    ]);
    const bin = join(import.meta.dirname, "../../bin/gg.js");
    const file = ws.outside(`transcript-${process.pid}-${Date.now()}.jsonl`);
    const child = spawn(process.execPath, [bin, "agent", "--model", "m", "--arm", "tools", "--task", "Finalise.", "--base-url", server.baseURL, "--workspace", ws.root, "--transcript", file]);
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual(["start", "request", "response", "call", "call", "request", "response", "end"]);
    // Pictures are kept as their hash and size, never their bytes.
    const recorded = readFileSync(file, "utf8");
    expect(recorded).toMatch(/picture:image\/png;sha256=[0-9a-f]{64};bytes=70/);
    expect(recorded).not.toContain(PNG.toString("base64"));
    // Replayed on the workspace as it was, the outcomes match and the edit is made again.
    using again = tempWorkspace();
    again.put({ "notes.txt": "draft\n", "dot.png": PNG });
    expect(spawnSync(process.execPath, [bin, "agent", "--replay", file, "--workspace", again.root], { encoding: "utf8" })).toMatchObject({ status: 0, stdout: "Replayed 2 turns and 2 calls: every outcome matches the recording.\n" });
    expect(readFileSync(join(again.root, "notes.txt"), "utf8")).toBe("final\n");
    // On a workspace without the picture, the difference is named.
    using other = tempWorkspace();
    other.put({ "notes.txt": "draft\n" });
    expect(spawnSync(process.execPath, [bin, "agent", "--replay", file, "--workspace", other.root], { encoding: "utf8" })).toMatchObject({ status: 1, stdout: "call 1 (read_file): succeeded then, failed with not-found now\n" });
    appendFileSync(file, "{not json\n");
    expect(spawnSync(process.execPath, [bin, "agent", "--replay", file], { encoding: "utf8" })).toMatchObject({ status: 2, stderr: expect.stringContaining("line 9 is not JSON") });
    rmSync(file);
  });

  test("a replay without --workspace runs on the workspace the transcript recorded, shows a changed result's lines, and refuses when that folder is gone or unnamed", async () => {
    const { spawnSync } = await import("node:child_process");
    const { renameSync, writeFileSync } = await import("node:fs");
    using ws = tempWorkspace();
    ws.put({ "notes.txt": "alpha\nbeta\ndelta\n" });
    await using server = await fakeModel([{ tool_calls: [call("a", "read_file", { path: "notes.txt" })] }, { content: "Read." }]);
    const bin = join(import.meta.dirname, "../../bin/gg.js");
    const file = ws.outside(`transcript-${process.pid}-${Date.now()}-ws.jsonl`);
    using elsewhere = tempWorkspace();
    const gg = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: elsewhere.root });
    // Not spawnSync: the model answers from this process.
    const { spawn } = await import("node:child_process");
    const recording = spawn(process.execPath, [bin, "agent", "--model", "m", "--arm", "tools", "--task", "Read.", "--base-url", server.baseURL, "--workspace", ws.root, "--transcript", file], { cwd: elsewhere.root });
    expect(await new Promise((resolve) => recording.on("exit", resolve))).toBe(0);
    writeFileSync(join(ws.root, "notes.txt"), "alpha\ngamma\ndelta\n");
    const changed = gg("agent", "--replay", file);
    expect(changed.status, changed.stderr).toBe(1);
    expect(changed.stdout).toMatch(/^call 1 \(read_file\): a different result:\n {2}--- then\n {2}\+\+\+ now\n {2}@@ [^\n]+ @@\n/);
    expect(changed.stdout).toMatch(/^ {2}-.*beta$/m);
    expect(changed.stdout).toMatch(/^ {2}\+.*gamma$/m);
    expect(changed.stdout).not.toMatch(/^ {2}[-+].*(alpha|delta)$/m);
    renameSync(ws.root, `${ws.root}-moved`);
    try {
      const gone = gg("agent", "--replay", file);
      expect(gone).toMatchObject({ status: 2, stdout: "" });
      expect(gone.stderr).toContain(`The transcript ran on ${ws.root}, which is not a folder here`);
      expect(gone.stderr).toContain("--workspace");
    } finally {
      renameSync(`${ws.root}-moved`, ws.root);
    }
    const [start, ...rest] = readFileSync(file, "utf8").trim().split("\n");
    const { workspace: _, ...unnamed } = JSON.parse(start as string) as { workspace?: string };
    writeFileSync(file, [JSON.stringify(unnamed), ...rest].join("\n"));
    const nameless = gg("agent", "--replay", file);
    expect(nameless).toMatchObject({ status: 2, stdout: "" });
    expect(nameless.stderr).toContain("does not name the workspace");
    expect(readdirSync(elsewhere.root)).toEqual([]);
  });
});

describe("runAgent approvals", () => {
  test("a tools agent's denied call is answered error[denied], and the report's calls carry every verdict; approve is asked for an ask", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      { tool_calls: [call("a", "write_file", { path: "src/a.ts", content: "a" }), call("b", "write_file", { path: "secret.txt", content: "s" }), call("c", "shell", { command: "git push origin main" })] },
      { content: "Done." },
    ]);
    const asked: string[] = [];
    const report = await runAgent({
      provider: server.provider,
      model: "m",
      arm: "tools",
      task: "Write.",
      workspace: ws.root,
      config: { approvals: [{ call: "write_file", when: { path: "secret*" }, verdict: "ask" }, { call: "shell", when: { command: "git push*" }, verdict: "deny", reason: "pushing is for people" }] },
      approve: async (request) => {
        asked.push(request.call);
        return { verdict: "deny", reason: "no secrets" };
      },
    });
    expect(asked).toEqual(["write_file"]);
    expect(report.calls.map((made) => [made.name, made.ok, made.code, made.approval?.verdict, made.approval?.by])).toEqual([
      ["write_file", true, undefined, "allow", "default"],
      ["write_file", false, "denied", "deny", "person"],
      ["shell", false, "denied", "deny", "rule 2"],
    ]);
    const answers = (server.requests[1]?.messages ?? []).filter((message) => message.role === "tool").map((message) => text(message.content));
    expect(answers[2]).toMatch(/^error\[denied\]: Cannot run shell: denied by rule 2: pushing is for people/);
  });

  test("the time a person takes to answer is not charged to the run's budget: a 3 s wait in a 2 s run still ends with the answer", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([{ tool_calls: [call("a", "write_file", { path: "a.txt", content: "a" })] }, { content: "Done." }]);
    const report = await runAgent({
      provider: server.provider,
      model: "m",
      arm: "tools",
      task: "Write.",
      workspace: ws.root,
      budgetSecs: 2,
      config: { approvalDefault: "ask" },
      approve: async () => {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return { verdict: "allow" };
      },
    });
    expect(report).toMatchObject({ ok: true, answer: "Done." });
    expect(report.calls[0]?.approval).toMatchObject({ verdict: "allow", by: "person" });
  });
});
