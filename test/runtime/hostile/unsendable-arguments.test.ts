import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { numRuns } from "../../deep.ts";
import { engineWorkspace } from "../engine.ts";
import { CLOSED_CODES, expectEngineStillWorks } from "./hostile.ts";

// A property of the call surface: whatever value a program passes, each gg call answers, or rejects with a code from
// the closed set and a message under 2,000 characters; never a plain error of the guest's. A value JSON cannot carry
// (a BigInt, a cycle, a throwing getter or Proxy trap, anywhere inside it) is refused with invalid-argument.

/** How a program builds one argument. */
type Recipe =
  | { kind: "json"; value: unknown }
  | { kind: "bigint"; value: bigint }
  | { kind: "getter"; message: string }
  | { kind: "proxy"; trap: "get" | "ownKeys" | "getOwnPropertyDescriptor"; message: string }
  | { kind: "cycle"; inner: Recipe }
  | { kind: "deep"; depth: number }
  | { kind: "object"; entries: [string, Recipe][] }
  | { kind: "array"; items: Recipe[] };

const { recipe } = fc.letrec<{ recipe: Recipe }>((tie) => ({
  recipe: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ kind: fc.constant("json" as const), value: fc.jsonValue({ maxDepth: 3 }) }),
    fc.record({ kind: fc.constant("bigint" as const), value: fc.bigInt() }),
    fc.record({ kind: fc.constant("getter" as const), message: fc.string({ maxLength: 5000 }) }),
    fc.record({ kind: fc.constant("proxy" as const), trap: fc.constantFrom("get" as const, "ownKeys" as const, "getOwnPropertyDescriptor" as const), message: fc.string() }),
    fc.record({ kind: fc.constant("cycle" as const), inner: tie("recipe") }),
    fc.record({ kind: fc.constant("deep" as const), depth: fc.integer({ min: 1000, max: 20000 }) }),
    fc.record({ kind: fc.constant("object" as const), entries: fc.array(fc.tuple(fc.string(), tie("recipe")), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("array" as const), items: fc.array(tie("recipe"), { maxLength: 3 }) }),
  ),
}));

/** The guest expression that builds `r`; keys are computed, so "__proto__" stays a key. */
function build(r: Recipe): string {
  const text = (value: string): string => JSON.stringify(value);
  switch (r.kind) {
    case "json":
      return `(${JSON.stringify(r.value)})`;
    case "bigint":
      return `(${r.value}n)`;
    case "getter":
      return `({ get path() { throw new Error(${text(r.message)}); } })`;
    case "proxy":
      return `new Proxy({ a: 1 }, { ${r.trap}() { throw new Error(${text(r.message)}); } })`;
    case "cycle":
      return `(() => { const o: any = { x: ${build(r.inner)} }; o.self = o; return o; })()`;
    case "deep":
      return `(() => { let d: any = {}; for (let i = 0; i < ${r.depth}; i++) d = { a: d }; return d; })()`;
    case "object":
      return `({ ${r.entries.map(([key, value]) => `[${text(key)}]: ${build(value)}`).join(", ")} })`;
    case "array":
      return `[${r.items.map(build).join(", ")}]`;
  }
}

/** Whether JSON cannot carry `r`, wherever the fault sits (deep nesting aside: whether it fits depends on the stack). */
const unsendable = (r: Recipe): boolean =>
  r.kind === "bigint" || r.kind === "getter" || r.kind === "proxy" || r.kind === "cycle" || (r.kind === "object" && r.entries.some(([, value]) => unsendable(value))) || (r.kind === "array" && r.items.some(unsendable));

describe("hostile: unsendable arguments", () => {
  test("any value passed to gg.files and gg.shell calls is answered or refused with a closed code and a bounded message; one JSON cannot carry, with invalid-argument", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    await fc.assert(
      fc.asyncProperty(recipe, async (r) => {
        const report = await ws.run(`
          const value: any = ${build(r)};
          const calls = [() => gg.files.readFile(value), () => gg.files.readFile("a.txt", { offset: value }), () => gg.files.writeFile("p.txt", value), () => gg.files.listDir(value), () => gg.files.search("alpha", value), () => gg.shell.shell("true", value)];
          const out: unknown[] = [];
          for (const call of calls) {
            try { await call(); out.push({ ok: true }); } catch (e: any) { out.push({ code: e?.code, length: String(e?.message).length, name: String(e?.name) }); }
          }
          return out;`);
        expect(report.ok, JSON.stringify(report.error)).toBe(true);
        for (const outcome of report.result as { ok?: true; code?: string; length?: number }[]) {
          if (outcome.ok) {
            expect(unsendable(r)).toBe(false);
            continue;
          }
          expect(CLOSED_CODES).toContain(outcome.code);
          expect(outcome.length).toBeLessThan(2000);
          if (unsendable(r)) expect(outcome.code).toBe("invalid-argument");
        }
      }),
      { numRuns: numRuns(40), seed: 17 },
    );
    await expectEngineStillWorks(ws);
  });
});
