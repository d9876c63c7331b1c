import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { TYPE_PROBLEMS_SHOWN } from "../../runtime/check.ts";
import { engineWorkspace } from "./engine.ts";

describe("type-checking before a run", () => {
  test("type errors come back as type-error with the program's own lines and columns, all of them, and nothing runs", async () => {
    using ws = engineWorkspace();
    const report = await ws.run(
      [
        "await gg.files.writeFile('ran.txt', 'x');",
        "const found = await gg.files.search('x');",
        "const first: number = found.matches[0].path;",
        "",
        "  found.nope();",
        "const entries = (await gg.files.listDir()).entries.map((entry) => entry.size);",
        "return first;",
      ].join("\n"),
      { check: true },
    );
    expect(report.ok).toBe(false);
    expect(report.error).toMatchObject({
      code: "type-error",
      line: 3,
      column: 7,
      problems: [
        { line: 3, column: 7, message: "Type 'string' is not assignable to type 'number'." },
        { line: 5, column: 9, message: "Property 'nope' does not exist on type 'SearchResult'." },
        { line: 6, column: 73, message: "Property 'size' does not exist on type 'DirEntry'." },
      ],
    });
    expect(report.error?.message).toContain("line 5, column 9: Property 'nope' does not exist on type 'SearchResult'.");
    expect(report.calls).toEqual([]);
    expect(existsSync(join(ws.root, "ran.txt"))).toBe(false);
    expect(report.usage.checkMs).toBeGreaterThan(0);
  });

  test("a program that type-checks runs, with the typed results of its calls", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.ts": "// TODO one\n" });
    const report = await ws.run(
      "const { matches, limitReached }: SearchResult = await gg.files.search('TODO');\nconst edit = await gg.files.editFile('a.ts', 'one', 'two');\nconsole.log(edit.line);\nreturn { paths: matches.map((m) => m.path), limitReached };",
      { check: true },
    );
    expect(report).toMatchObject({ ok: true, result: { paths: ["a.ts"], limitReached: false } });
    expect(report.logs).toEqual([{ level: "log", text: "1" }]);
  });

  test("the library is the ES library alone: no DOM, no Node, no timers", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("document.title;\nprocess.exit(1);\nsetTimeout(() => {}, 1);\nrequire('fs');\nreturn new Map([[1, 2]]).size + [1, 2].at(-1)! + Object.groupBy([1], (x) => x).length;", { check: true });
    const realm = "a program runs in a bare V8 realm with the ES library, the gg global and console only; reach files and commands through gg";
    expect(report.error?.problems?.map((problem) => [problem.line, problem.message])).toEqual([
      [1, `Cannot find name 'document': ${realm}`],
      [2, `Cannot find name 'process': ${realm}`],
      [3, "Cannot find name 'setTimeout'."],
      [4, `Cannot find name 'require': ${realm}`],
      [5, expect.stringContaining("Property 'length' does not exist")],
    ]);
  });

  test("the types are those of the gg global the agent holds: a disabled capability's functions do not exist", async () => {
    using ws = engineWorkspace({ configEntries: [{ id: "shell", enabled: false }] });
    const report = await ws.run("const run = await gg.shell.shell('true');\nreturn run.exitCode;", { check: true });
    expect(report.error).toMatchObject({ code: "type-error", line: 1, message: expect.stringContaining("Property 'shell' does not exist") });
  });

  test("what V8 runs type-checks: Set methods, iterator helpers, Promise.try, Array.fromAsync", async () => {
    using ws = engineWorkspace();
    const report = await ws.run(
      "const both = new Set([1, 2]).intersection(new Set([2, 3]));\nconst doubled = [1, 2].values().map((n) => n * 2).toArray();\nconst tried = await Promise.try(() => 3);\nconst all = await Array.fromAsync([Promise.resolve(4)]);\nreturn [...both, ...doubled, tried, ...all];",
      { check: true },
    );
    expect(report).toMatchObject({ ok: true, result: [2, 2, 4, 3, 4] });
  });

  test("a check that spends the whole budget leaves the program unrun", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("await gg.files.writeFile('late.txt', 'x');", { check: true, budget: 0.001 });
    expect(report.error).toMatchObject({ code: "timeout", message: expect.stringContaining("Type-checking the program took its whole wall-clock budget") });
    expect(report.calls).toEqual([]);
    expect(existsSync(join(ws.root, "late.txt"))).toBe(false);
  });

  test("positions count lines at \\n only, whatever else a string holds; an import gets gg's own message", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("const a = 'x\u2028y';\nconst b: number = a;\nconst m = await import('node:fs');", { check: true });
    expect(report.error?.problems).toEqual([
      { line: 2, column: 7, message: "Type 'string' is not assignable to type 'number'." },
      { line: 3, column: 24, message: "Cannot import 'node:fs': a program imports nothing; reach files and commands through gg" },
    ]);
  });

  test("JavaScript programs are not checked: they run as they are", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("const n = 'text'; return n.length", { check: true, language: "js" });
    expect(report).toMatchObject({ ok: true, result: 4 });
    expect(report.usage.checkMs).toBeUndefined();
  });

  test(`at most ${TYPE_PROBLEMS_SHOWN} errors are listed, and the rest are counted`, async () => {
    using ws = engineWorkspace();
    const source = Array.from({ length: 30 }, (_, i) => `const v${i}: number = "${i}";`).join("\n");
    const report = await ws.run(source, { check: true });
    expect(report.error?.problems).toHaveLength(TYPE_PROBLEMS_SHOWN);
    expect(report.error?.message).toMatch(/^The program does not type-check \(30 errors\)/);
    expect(report.error?.message).toContain("(and 10 more)");
    expect(report.error?.problems?.at(-1)).toMatchObject({ line: 20, column: 7 });
  });

  test("a syntax error is reported as syntax-error before any check, and check must be a boolean", async () => {
    using ws = engineWorkspace();
    expect((await ws.run("const = 1;", { check: true })).error?.code).toBe("syntax-error");
    expect((await ws.run("return 1", { check: "yes" as unknown as boolean })).error).toMatchObject({ code: "invalid-argument", message: expect.stringContaining("check yes is not true or false") });
  });

  test("the example programs type-check", async () => {
    using ws = engineWorkspace();
    const { readdirSync, readFileSync } = await import("node:fs");
    const dir = new URL("../../examples/", import.meta.url);
    for (const name of readdirSync(dir).filter((file) => file.endsWith(".ts"))) {
      // Checked only: a program that cannot see `return` is wrapped so it returns before doing anything.
      const source = readFileSync(new URL(name, dir), "utf8");
      const report = await ws.run(`if (Math.random() < 2) return "checked";\n${source}`, { check: true });
      expect({ name, error: report.error }).toEqual({ name, error: undefined });
    }
  });
});
