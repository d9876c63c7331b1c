// Every failure a call reports is typed and its message stays under 2,000 characters, however large the input it
// names: on the tool-call surface under both configurations, and on the gg.* surface of a program.
import { describe, expect, test } from "vitest";
import { CALLS } from "../../bindings/index.ts";
import { ERROR_CODES } from "../../host/errors.ts";
import { engineWorkspace } from "../runtime/engine.ts";
import { deepOr } from "../deep.ts";
import { tempWorkspace } from "../workspace.ts";

// A million characters in the deep run, a hundred thousand in the quick one: either is far past the bound.
const MB = deepOr(1_000_000, 100_000);
const BOUND = 2_000;

const BATCH = [
  { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
  { id: "edit-file", implementation: "batch" },
  { id: "list-dir", implementation: "batch" },
  { id: "search", implementation: "batch" },
];

const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`unknown_${i}_${"u".repeat(200)}`, i]));

const hostile: unknown[] = [
  { path: "p".repeat(MB) },
  { path: `${"d/".repeat(MB / 2)}x`, content: "c" },
  { path: "\0".repeat(MB) },
  { query: "(".repeat(MB) },
  { pattern: "(".repeat(MB), regex: true },
  { pattern: "a\n".repeat(MB / 2) },
  { pattern: "x", glob: "[".repeat(MB) },
  { patterns: ["[".repeat(MB)] },
  { path: "x", old: "zz".repeat(MB / 2), new: "y" },
  { path: "x", edits: [{ old: "q".repeat(MB), new: "" }] },
  { files: [{ path: "p".repeat(MB) }] },
  { ["k".repeat(MB)]: 1 },
  many,
  { command: "x".repeat(MB) },
];

/** Checks a failure is typed and bounded; returns its length, for the test's own message. */
function bounded(where: string, error: { code: string; message: string }): void {
  expect(ERROR_CODES, where).toContain(error.code);
  expect(error.message.length, `${where}: ${error.message.slice(0, 200)}`).toBeLessThan(BOUND);
}

describe("failure messages, whatever the size of the input", () => {
  test.each([
    ["the classic calls", undefined],
    ["the batch calls", BATCH],
  ])("every call of %s fails with a typed message under 2,000 characters", async (_, config) => {
    using ws = tempWorkspace();
    ws.put({ x: "zz line\n" });
    let failures = 0;
    for (const call of CALLS) {
      for (const args of hostile) {
        const result = await ws.call(call.name, args, config);
        if (result.ok) continue;
        failures++;
        bounded(`${call.name} ${JSON.stringify(args).slice(0, 60)}`, result.error);
      }
    }
    expect(failures).toBeGreaterThan(hostile.length * 5);
    expect(await ws.text("read_file", { path: "x" })).toBe("zz line\n");
  });

  test(`a call of a ${MB.toLocaleString("en-US")}-character tool name is refused with a bounded message`, async () => {
    using ws = tempWorkspace();
    const result = await ws.call("n".repeat(MB), {});
    expect(result.ok).toBe(false);
    if (!result.ok) bounded("tool name", result.error);
  });

  test("a program's gg calls fail with bounded messages, caught or uncaught", async () => {
    using ws = engineWorkspace();
    const caught = await ws.run(`
      const messages = [];
      const attempts = [
        () => gg.files.search("(".repeat(${MB})),
        () => gg.files.readFile("p".repeat(${MB})),
        () => gg.files.editFile("x", "q".repeat(${MB}), "y"),
        () => gg.files.writeFile("${"d/".repeat(3_000)}x", "c"),
      ];
      for (const attempt of attempts) {
        try { await attempt(); messages.push("succeeded"); } catch (error) { messages.push(error.code + " " + error.message); }
      }
      return messages;
    `);
    expect(caught.ok).toBe(true);
    const messages = (caught.result ?? []) as string[];
    expect(messages).toHaveLength(4);
    for (const message of messages) expect(message.length, message.slice(0, 200)).toBeLessThan(BOUND);
    const uncaught = await ws.run(`await gg.files.search("(".repeat(${MB}));`);
    expect(uncaught.error?.code).toBe("invalid-argument");
    expect(uncaught.error?.message.length).toBeLessThan(BOUND);
  });

  test("a program's own error, however long its message, ends the run with a bounded one", async () => {
    using ws = engineWorkspace();
    const thrown = await ws.run(`throw new RangeError("start " + "x".repeat(20_000));`);
    expect(thrown.error).toMatchObject({ code: "program-error", message: expect.stringMatching(/^RangeError: start x+ \[…[\d,]+ of [\d,]+ characters left out…\] x+$/) });
    expect(thrown.error?.message.length).toBeLessThan(BOUND);
    const coded = await ws.run(`throw Object.assign(new Error("m".repeat(20_000)), { code: "not-found" });`);
    expect(coded.error?.code).toBe("not-found");
    expect(coded.error?.message.length).toBeLessThan(BOUND);
    const syntax = await ws.run(`const a = 1 ${"b".repeat(MB)};`);
    expect(syntax.error?.code).toBe("syntax-error");
    expect(syntax.error?.message.length).toBeLessThan(BOUND);
  });
});
