// Text written or inserted round-trips byte for byte as UTF-8, or is refused with invalid-argument and the file is
// left unchanged: a lone surrogate has no UTF-8 form and is never silently replaced (issue 17, item 6).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { numRuns } from "../deep.ts";
import { engineWorkspace } from "../runtime/engine.ts";
import { tempWorkspace } from "../workspace.ts";

const BATCH = [{ id: "edit-file", implementation: "batch" }];

/** One unit of text: any code point, a line break, or half of a surrogate pair on its own. */
const unit = fc.oneof(
  { arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), weight: 6 },
  { arbitrary: fc.constantFrom("\n", "\r\n", "a", "é", "😀"), weight: 2 },
  { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), weight: 2 },
);
const text = fc.string({ unit, maxLength: 40 });

/** Checks a call's outcome against the rule: well-formed text is done, other text refused. */
function expectRoundTripOrRefusal(result: { ok: boolean; error?: { code: string; message: string } }, given: string): void {
  if (given.isWellFormed()) expect(result, JSON.stringify(given)).toMatchObject({ ok: true });
  else expect(result, JSON.stringify(given)).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining("lone surrogate") } });
}

describe("text through the calls, any string at all", () => {
  test("write_file writes content exactly as UTF-8, or refuses it and leaves the file as it was", async () => {
    using ws = tempWorkspace();
    const file = join(ws.root, "f.txt");
    await fc.assert(
      fc.asyncProperty(text, async (content) => {
        writeFileSync(file, "before\n");
        expectRoundTripOrRefusal(await ws.call("write_file", { path: "f.txt", content }), content);
        const after = readFileSync(file);
        if (content.isWellFormed()) {
          expect(after).toEqual(Buffer.from(content, "utf8"));
          expect(after.toString("utf8")).toBe(content);
        } else expect(after.toString()).toBe("before\n");
      }),
      { numRuns: numRuns(300), seed: 17 },
    );
  });

  test.each([
    ["edit_file", (replacement: string) => ({ path: "f.txt", old: "TARGET", new: replacement }), undefined],
    ["edit", (replacement: string) => ({ path: "f.txt", edits: [{ old: "TARGET", new: replacement }] }), BATCH],
  ])("%s inserts new exactly, or refuses it and leaves the file as it was", async (name, args, config) => {
    using ws = tempWorkspace();
    const file = join(ws.root, "f.txt");
    const before = "start\nTARGET\nend\n";
    await fc.assert(
      fc.asyncProperty(
        text.filter((replacement) => replacement !== "TARGET"),
        async (replacement) => {
          writeFileSync(file, before);
          expectRoundTripOrRefusal(await ws.call(name, args(replacement), config), replacement);
          const after = readFileSync(file);
          expect(after).toEqual(replacement.isWellFormed() ? Buffer.from(`start\n${replacement}\nend\n`, "utf8") : Buffer.from(before));
        },
      ),
      { numRuns: numRuns(200), seed: 17 },
    );
  });

  test("an old holding a lone surrogate is refused, never matched against the U+FFFD it would encode to", async () => {
    using ws = tempWorkspace();
    const file = join(ws.root, "f.txt");
    const before = Buffer.from("a\ufffdb \ufffd\ufffd\n", "utf8");
    await fc.assert(
      fc.asyncProperty(text, async (old) => {
        writeFileSync(file, before);
        const result = await ws.call("edit_file", { path: "f.txt", old: old || "x", new: "N" });
        if (!(old || "x").isWellFormed()) {
          expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
          expect(readFileSync(file)).toEqual(before);
        }
      }),
      { numRuns: numRuns(200), seed: 17 },
    );
    expect(await ws.call("edit_file", { path: "f.txt", old: "a\ud800b", new: "N" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(readFileSync(file)).toEqual(before);
  });

  test("a program's gg.files.writeFile follows the same rule", async () => {
    using ws = engineWorkspace();
    const file = join(ws.root, "p.txt");
    await fc.assert(
      fc.asyncProperty(text, async (content) => {
        writeFileSync(file, "before\n");
        const report = await ws.run(`try { await gg.files.writeFile("p.txt", ${JSON.stringify(content)}); return "ok"; } catch (error) { return error.code; }`);
        expect(report.result).toBe(content.isWellFormed() ? "ok" : "invalid-argument");
        expect(readFileSync(file)).toEqual(Buffer.from(content.isWellFormed() ? content : "before\n", "utf8"));
      }),
      { numRuns: numRuns(60), seed: 17 },
    );
  });
});
