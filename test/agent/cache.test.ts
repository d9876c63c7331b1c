// Prompt-cache breakpoints: a model whose provider caches only where asked (Anthropic's, here through an
// OpenAI-compatible fake that caches like Anthropic) gets cache_control marks on the stable prefix and the
// conversation's end; the next request reads the marked prefix from the cache, and the report prices it so.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { marksCache } from "../../agent/cache.ts";
import { runAgent } from "../../agent/loop.ts";
import { requestCost } from "../../agent/pricing.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { call, fakeModel, type Message } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

/** The indexes of a request's messages that carry a breakpoint. */
const marks = (messages: Message[]): number[] => messages.flatMap((message, index) => (JSON.stringify(message.content).includes('"cache_control":{"type":"ephemeral"}') ? [index] : []));

const PRICING = { prompt: 0.000003, completion: 0.000015, input_cache_read: 0.0000003, input_cache_write: 0.00000375 };

test("which models get breakpoints: Anthropic's and Gemini's by their ids, unless configured", () => {
  expect(["anthropic/claude-sonnet-4.5", "claude-3-5-haiku", "google/gemini-2.5-pro", "openai/gpt-5", "m"].map((model) => marksCache(model))).toEqual([true, true, true, false, false]);
  expect([marksCache("m", true), marksCache("anthropic/claude-sonnet-4.5", false)]).toEqual([true, false]);
});

for (const arm of ["tools", "code"] as const) {
  test(`${arm} arm: the system prompt, the opening turn and the conversation's end are marked; the prefix is read from the cache and priced so`, async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    const replies = arm === "tools"
      ? [{ tool_calls: [call("a", "read_file", { path: "a.txt" })] }, { tool_calls: [call("b", "list_dir", { path: "." })] }, { content: "Done." }]
      : [{ content: "```ts\nawait gg.views.openFile('a.txt');\nreturn 1;\n```" }, { content: "```ts\nreturn 2;\n```" }, { content: "Done." }];
    await using server = await fakeModel(replies, { anthropicCache: true });
    const report = await runAgent({ provider: server.provider, model: "anthropic/claude-sonnet-4.5", arm, task: "Look at a.txt.", workspace: ws.root, pricing: PRICING });
    expect(report.ok).toBe(true);
    const [first, second, third] = server.requests.map((request) => request.messages);
    // Code arm: system, opening views, task (+ the views last, unmarked); tools arm: system, task.
    const opening = arm === "code" ? 2 : 1;
    expect(marks(first ?? [])).toEqual([0, opening]);
    expect(marks(second ?? [])).toEqual([0, opening, (second?.length ?? 0) - (arm === "code" ? 2 : 1)]);
    expect(marks(third ?? []).length).toBeLessThanOrEqual(4);
    // The marked prefix is byte-identical from request to request.
    const plain = (messages: Message[] | undefined): string => JSON.stringify(messages?.slice(0, opening + 1));
    expect(plain(second)).toBe(plain(first));
    const [one, two, three] = report.turns.map((turn) => turn.usage);
    expect(one).toMatchObject({ cachedTokens: 0 });
    expect(one?.cacheWriteTokens).toBeGreaterThan(0);
    // Each later request reads at least the one before's marked prefix.
    expect(two?.cachedTokens).toBeGreaterThanOrEqual(one?.cacheWriteTokens ?? Infinity);
    expect(three?.cachedTokens).toBeGreaterThan(two?.cachedTokens ?? Infinity);
    const uncached = report.turns.reduce((sum, turn) => sum + requestCost(PRICING, { promptTokens: turn.usage?.promptTokens ?? 0, completionTokens: turn.usage?.completionTokens ?? 0 }), 0);
    expect(report.totals.cost).toBeCloseTo(report.turns.reduce((sum, turn) => sum + requestCost(PRICING, turn.usage ?? { promptTokens: 0, completionTokens: 0 }), 0), 12);
    expect(report.totals.cost).toBeLessThan(uncached);
  });
}

test("a model that caches by itself gets no marks", async () => {
  using ws = tempWorkspace();
  await using server = await fakeModel([{ content: "Done." }]);
  await runAgent({ provider: server.provider, model: "openai/gpt-5", arm: "tools", task: "Nothing.", workspace: ws.root });
  expect(marks(server.requests[0]?.messages ?? [])).toEqual([]);
});

test("the configuration's model.cacheMarks decides over the model's id, and gg agent's --cache-marks over both, recorded in the transcript", async () => {
  using ws = tempWorkspace();
  await using server = await fakeModel([{ content: "Done." }, { content: "Done." }, { content: "Done." }]);
  await runAgent({ provider: server.provider, model: "openai/gpt-5", arm: "tools", task: "Nothing.", workspace: ws.root, config: { model: { cacheMarks: true } } });
  await runAgent({ provider: server.provider, model: "anthropic/claude-sonnet-4.5", arm: "tools", task: "Nothing.", workspace: ws.root, config: { model: { cacheMarks: false } } });
  expect(server.requests.map((request) => marks(request.messages))).toEqual([[0, 1], []]);
  expect(() => parseConfiguration({ model: { cacheMarks: "yes", speed: 1 } })).toThrow(/"model" has an unknown field "speed"; its fields are "vision", "cacheMarks"[\s\S]*"model.cacheMarks" is "yes"; use true or false/);
  // The command line's word goes in the configuration a transcript records, so a replay marks the same way.
  const transcript = ws.outside(`cache-marks-${process.pid}.jsonl`);
  const agent = spawn(process.execPath, [join(import.meta.dirname, "../../bin/gg.js"), "agent", "--model", "anthropic/claude-sonnet-4.5", "--arm", "tools", "--task", "Nothing.", "--base-url", server.baseURL, "--workspace", ws.root, "--no-cache-marks", "--transcript", transcript]);
  expect(await new Promise((resolve) => agent.on("exit", resolve))).toBe(0);
  expect(marks(server.requests[2]?.messages ?? [])).toEqual([]);
  const start = JSON.parse(readFileSync(transcript, "utf8").split("\n")[0] as string) as { config: { cacheMarks?: boolean } };
  rmSync(transcript);
  expect(start.config.cacheMarks).toBe(false);
});
