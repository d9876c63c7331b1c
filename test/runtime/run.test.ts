import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { survivors, uniqueSleep } from "../processes.ts";
import { engineWorkspace } from "./engine.ts";

describe("running a program", () => {
  test("is the body of an async function: top-level await and return work, TypeScript types are stripped", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("interface P { n: number }\nconst p: P = { n: await Promise.resolve(41) };\nreturn p.n + 1;");
    expect(report).toMatchObject({ ok: true, result: 42 });
  });

  test("plain JavaScript runs too", async () => {
    using ws = engineWorkspace();
    expect(await ws.run("return [1, 2].map((x) => x * 2)", { language: "js" })).toMatchObject({ ok: true, result: [2, 4] });
  });

  test("JavaScript that V8 compiles runs as written: a function's text keeps its comments, and errors and stacks point at its own lines and columns", async () => {
    using ws = engineWorkspace();
    expect(await ws.run("const f = function () { /* as written */ return 1; };\nreturn String(f);", { language: "js" })).toMatchObject({ ok: true, result: "function () { /* as written */ return 1; }" });
    const report = await ws.run("console.log(new Error('here').stack);\n  throw new RangeError('bad');", { language: "js" });
    expect(report.logs.map((entry) => entry.text)).toEqual(["Error: here\n    at program.js:1:13"]);
    expect(report.error).toEqual({ code: "program-error", message: "RangeError: bad", line: 2, column: 9 });
  });

  test("console output is captured in order, with its level", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("console.log('a', 1, { b: 2 }); console.warn('w'); console.error(new Error('e')); console.info('i')");
    expect(report.logs.map((entry) => [entry.level, entry.text.split("\n")[0]])).toEqual([["log", 'a 1 {"b":2}'], ["warn", "w"], ["error", "Error: e"], ["info", "i"]]);
  });

  test("a thrown error is reported at the program's own line and column, through the TypeScript source map", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("type A = { x: string };\nconst a: A = { x: 'y' };\n\n  const b: number = a.x.length;\n    throw new RangeError(`bad ${b}`);\n");
    expect(report.error).toEqual({ code: "program-error", message: "RangeError: bad 1", line: 5, column: 11 });
  });

  test("a stack the program logs points at its own lines, without gg's frames or the wrapper around the program", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("type T = number;\nfunction inner(): T {\n  throw new Error('boom');\n}\ntry { inner(); } catch (err) { console.log(err); }\nawait gg.files.readFile('nope.txt').catch((err: Error) => console.log(err.stack));");
    expect(report.logs.map((entry) => entry.text)).toEqual([
      "Error: boom\n    at inner (program.js:3:9)\n    at program.js:5:7",
      expect.stringMatching(/^Error: Cannot read [^\n]*nope\.txt[^\n]*\n    at program\.js:6:16$/),
    ]);
  });

  test("a command still running when the run ends is listed as unfinished, and stopped", async () => {
    using ws = engineWorkspace();
    const duration = uniqueSleep();
    const report = await ws.run(`gg.shell.shell('sleep ${duration}');\nawait gg.files.listDir();\nawait gg.shell.shell('true');\nreturn 'left';`);
    expect(report.result).toBe("left");
    expect(report.calls).toEqual([
      expect.objectContaining({ name: "files.listDir", ok: true }),
      expect.objectContaining({ name: "shell.shell", args: '["true"]', ok: true }),
      expect.objectContaining({ name: "shell.shell", args: `["sleep ${duration}"]`, ok: false, unfinished: true }),
    ]);
    await expect.poll(() => survivors(duration), { timeout: 10_000 }).toEqual([]);
  });

  test("fifty commands that ignore SIGTERM, left running by a program, are all killed within the grace period", async () => {
    using ws = engineWorkspace();
    const duration = uniqueSleep();
    const report = await ws.run(`for (let i = 0; i < 50; i++) gg.shell.shell("trap '' TERM; sleep ${duration} & wait");\nawait gg.shell.shell('sleep 0.5');\nreturn 'left';`);
    expect(report.result).toBe("left");
    expect(report.calls.filter((call) => call.unfinished)).toHaveLength(50);
    // The grace period is 2 s; the poll's bound leaves room for a loaded machine.
    await expect.poll(() => survivors(duration), { timeout: 15_000 }).toEqual([]);
  });

  test("text a program logs that names another program.js (a path, not gg's frame) is left as it is", async () => {
    using ws = engineWorkspace();
    const text = "Error: x\n    at f (/tmp/ws/program.js:1:21)\n    at ./program.js:2:1";
    expect((await ws.run(`console.log(${JSON.stringify(text)})`)).logs[0]?.text).toBe(text);
  });

  test("a gg error's recovery names gg functions, not tool calls", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("await gg.files.readFile('nope.txt')");
    expect(report.error).toMatchObject({ code: "not-found", message: "Cannot read nope.txt: no such file or directory; check the path with gg.files.listDir or gg.files.tree" });
  });

  test("a gg error left uncaught fails the run with its own code, at the awaiting line", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("const x: string = 'a';\nawait gg.files.readFile('missing.txt');");
    expect(report.error).toMatchObject({ code: "not-found", line: 2 });
    expect(report.calls).toEqual([{ name: "files.readFile", args: '["missing.txt"]', ok: false, code: "not-found", ms: expect.any(Number), approval: { verdict: "allow", by: "default" } }]);
  });

  test("an import or export statement fails to compile with a hint that a program is a function body", async () => {
    using ws = engineWorkspace();
    expect((await ws.run("import type { A } from './a';\nreturn 1;")).error).toMatchObject({ code: "syntax-error", line: 1, message: expect.stringContaining("import statements do not exist") });
    expect((await ws.run("const a = 1;\nexport const b = a;")).error).toMatchObject({ code: "syntax-error", line: 2, message: expect.stringContaining("export statements do not exist") });
  });

  test.for([
    ["setTimeout(() => 1, 10)", "there are no timers"],
    ["setInterval(() => 1, 10)", "there are no timers"],
    ["require('fs')", "there are no modules"],
    ["process.exit(0)", "there is no process object"],
    ["await fetch('http://127.0.0.1:9')", "there is no network"],
  ])("a Node or browser global (%s) fails with a hint of what the sandbox has instead", async ([program, instead]) => {
    using ws = engineWorkspace();
    const { error } = await ws.run(program as string);
    expect(error).toMatchObject({ code: "program-error", line: 1, message: expect.stringMatching(/^ReferenceError: \w+ is not defined; a program runs in a sandbox with only the ES library and the gg global: /) });
    expect(error?.message).toContain(instead as string);
    // Any other name is the program's own mistake: no hint.
    expect((await ws.run("return nothingHere")).error?.message).toBe("ReferenceError: nothingHere is not defined");
  });

  test("a program that does not compile reports syntax-error with its position", async () => {
    using ws = engineWorkspace();
    expect((await ws.run("const ok = 1;\nlet x: = 2;")).error).toMatchObject({ code: "syntax-error", line: 2, column: 8 });
  });

  test("the report lists every call in order, so after a failure the program's effects are known", async () => {
    using ws = engineWorkspace();
    const report = await ws.run("await gg.files.writeFile('a.txt', 'one');\nawait gg.files.writeFile('b.txt', 'two');\nawait gg.files.editFile('a.txt', 'zzz', 'y');");
    expect(report.calls.map((call) => [call.name, call.ok, call.code])).toEqual([["files.writeFile", true, undefined], ["files.writeFile", true, undefined], ["files.editFile", false, "no-match"]]);
    expect(readFileSync(join(ws.root, "b.txt"), "utf8")).toBe("two");
    expect(report.usage.wallMs).toBeGreaterThanOrEqual(0);
    expect(report.usage.peakHeapBytes).toBeGreaterThan(0);
  });
});

describe("the gg global", () => {
  test("gg.files.* have the tool calls' semantics and results", async () => {
    using ws = engineWorkspace();
    ws.put({ "src/a.ts": "export const a = 1;\n// TODO one\n", "big.txt": Array.from({ length: 3000 }, (_, i) => `l${i + 1}`).join("\n") });
    const report = await ws.run(`
      const tree = await gg.files.tree();
      const hits = await gg.files.search("TODO", { path: "src" });
      const page = await gg.files.readFile("big.txt", { offset: 2999 });
      const capped = await gg.files.readFile("big.txt");
      await gg.files.editFile("src/a.ts", "= 1", "= 2");
      return { tree, hits, page, cappedTail: capped.split("\\n").at(-1), edited: await gg.files.readFile("src/a.ts"), list: await gg.files.listDir("src") };
    `);
    expect(report.result).toEqual({
      tree: { text: await ws.text("tree"), entries: [{ path: "big.txt", kind: "file", depth: 1 }, { path: "src", kind: "dir", depth: 1 }, { path: "src/a.ts", kind: "file", depth: 2 }], cut: false },
      hits: { matches: [{ path: "src/a.ts", line: 2, text: "// TODO one" }], filesSearched: 1, limitReached: false },
      page: "l2999\nl3000\n[showing lines 2999-3000 of 3000]",
      cappedTail: "[showing lines 1-2000 of 3000; continue with offset: 2001]",
      edited: "export const a = 2;\n// TODO one\n",
      list: { entries: [{ name: "a.ts", kind: "file" }] },
    });
  });

  test("a rejected call carries the typed code, and a caught one lets the program go on", async () => {
    using ws = engineWorkspace();
    ws.put({ "d.txt": "x\nx\n" });
    const report = await ws.run("try { await gg.files.editFile('d.txt', 'x', 'y'); } catch (e) { return [e instanceof Error, e.code, e.message.includes('at lines 1, 2')]; }");
    expect(report.result).toEqual([true, "ambiguous", true]);
  });

  test("gg.files.editFile's messages name its third parameter replacement, as its docs do (the tool call's JSON names it new)", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.txt": "x\n" });
    const message = async (call: string): Promise<string | undefined> => (await ws.run(`await ${call}`)).error?.message;
    expect(await message("gg.files.editFile('a.txt', 'x', 5)")).toBe('Cannot call gg.files.editFile: "replacement" must be string; gg.files.editFile takes "path", "old", "replacement"');
    expect(await message("gg.files.editFile('a.txt', 'x')")).toContain('missing "replacement"');
    expect(await message("gg.files.editFile('a.txt', 'x', 'x')")).toBe("Cannot edit a.txt: old and replacement are identical, so there is nothing to change");
    expect(await message("gg.files.editFile('a.txt', 'x', '\\uD800')")).toMatch(/^Cannot edit a\.txt: replacement holds a lone surrogate/);
    expect(await message("gg.files.editFile('a.txt', 'x', 'y', { new: 'z' })")).toContain('unknown parameter "new"');
    expect((await ws.run("return gg.files.editFile('a.txt', 'x', 'y')")).result).toMatchObject({ path: "a.txt", line: 1 });
  });

  test("gg.files.readFile of a picture returns its descriptor and costs the window nothing", async () => {
    using ws = engineWorkspace();
    ws.put({ "mock.dat": Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64") });
    const report = await ws.run("return [await gg.files.readFile('mock.dat'), await gg.context.breakdown()]");
    const [image, breakdown] = report.result as [Record<string, unknown>, { total: number }];
    expect(image).toEqual({ label: "mock.dat", format: "GIF", mime: "image/gif", bytes: 43, width: 1, height: 1, shown: false, reason: expect.stringContaining("gg.views.openFile") });
    expect(breakdown.total).toBe(0);
  });

  test("gg.shell.shell returns exitCode, output and truncated, and its timeout is clamped to the run's budget", async () => {
    using ws = engineWorkspace();
    const done = await ws.run("return await gg.shell.shell('echo hi; exit 4')");
    expect(done.result).toMatchObject({ exitCode: 4, output: "hi\n", truncated: false });
    // Unclamped, the command would outlast the test's timeout. The command's timeout and the run's budget fall
    // together: the program sees the command's timeout, or (on a slow machine) the run ends first at its budget.
    const clamped = await ws.run("try { await gg.shell.shell('sleep 600', { timeoutSecs: 600 }); } catch (e) { return e.code + ' ' + e.message.split(';')[0]; }", { limits: { budgetSecs: 3 } });
    if (clamped.ok) {
      const seconds = Number(/^timeout Command stopped after its ([\d.]+) s timeout/.exec(String(clamped.result))?.[1]);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(3);
    } else expect(clamped.error?.code).toBe("timeout");
  });

  test("a disabled capability's functions do not exist", async () => {
    using ws = engineWorkspace({ configEntries: [{ id: "shell", enabled: false }, { id: "write-file", enabled: false }] });
    const report = await ws.run("return [typeof gg.shell, typeof gg.files.writeFile, typeof gg.files.readFile]");
    expect(report.result).toEqual(["undefined", "undefined", "function"]);
  });
});
