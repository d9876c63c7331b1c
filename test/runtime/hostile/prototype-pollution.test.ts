import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { expectClosedError, expectEngineStillWorks, FIND_IVM } from "./hostile.ts";

// A program may rewrite every builtin of its realm. gg's shim captured what it needs before the program ran, so
// calls keep working (a failure still rejects with its code, a success still returns the right text), or fail
// only inside the guest; the report the host builds stays within its contract; and the next program gets a fresh
// isolate with none of it left.

describe("hostile: prototype pollution", () => {
  test("Object.prototype.ok, .value, .error and .code set by the program change nothing gg calls resolve or reject with", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`
      Object.assign(Object.prototype, { ok: true, value: "forged value", error: { code: "timeout", message: "forged" }, code: "forged-code", result: "forged" });
      const read = await gg.files.readFile("a.txt");
      let code: unknown, message: unknown;
      try { await gg.files.readFile("missing.txt"); } catch (e: any) { code = e.code; message = e.message; }
      return { read, code, message, listed: await gg.files.listDir() };`);
    expect(report.result).toEqual({ read: "alpha\n", code: "not-found", message: expect.stringContaining("no such file"), listed: { entries: [{ name: "a.txt", kind: "file" }] } });
    expect(report.calls.map((call) => [call.name, call.code])).toEqual([["files.readFile", undefined], ["files.readFile", "not-found"], ["files.listDir", undefined]]);
  });

  test("Array.prototype index accessors do not leak into the arguments gg sends", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`
      for (let i = 0; i < 4; i++) Object.defineProperty(Array.prototype, i, { get() { return "/etc/passwd"; }, set() {}, configurable: true });
      Object.defineProperty(Array.prototype, "length", { get() { return 99; } });
      return [await gg.files.readFile("a.txt"), await gg.files.listDir()];`);
    // Redefining Array.prototype.length throws (it is not configurable), which is the guest's own error.
    expect(report.error).toMatchObject({ code: "program-error", message: expect.stringContaining("length") });
    const withoutLength = await ws.run(`
      for (let i = 0; i < 4; i++) Object.defineProperty(Array.prototype, i, { get() { return "/etc/passwd"; }, set() {}, configurable: true });
      return [await gg.files.readFile("a.txt"), await gg.files.listDir()];`);
    expect(withoutLength).toMatchObject({ ok: true, result: ["alpha\n", { entries: [{ name: "a.txt", kind: "file" }] }] });
    expect(withoutLength.calls.map((call) => call.args)).toEqual(['["a.txt"]', "[]"]);
  });

  test("Array.prototype.toJSON sabotaging the arguments fails the call with invalid-argument, inside the closed set", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      (Array.prototype as any).toJSON = () => undefined;
      try { await gg.files.listDir(); return "called"; } catch (e: any) { return e.code; }`);
    expect(report.result).toBe("invalid-argument");
  });

  test("JSON.parse and JSON.stringify replaced by the program: gg keeps its own copies and sends the real arguments", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`
      const real = JSON.stringify;
      JSON.parse = () => ({ ok: true, value: "forged" });
      JSON.stringify = () => '["/etc/passwd"]';
      const read = await gg.files.readFile("a.txt");
      let code: unknown;
      try { await gg.files.readFile("missing.txt"); } catch (e: any) { code = e.code; }
      return real([read, code]);`);
    expect(report.ok).toBe(true);
    // The result is serialised with gg's own stringify, not the program's.
    expect(report.result).toBe('["alpha\\n","not-found"]');
    expect(report.calls.map((call) => call.args)).toEqual(['["a.txt"]', '["missing.txt"]']);
  });

  test("Promise.prototype.then and constructor replaced: gg calls still settle, and the promises the program intercepts are plain guest promises", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${FIND_IVM}
      const intercepted: [string, unknown][] = [];
      const then = Promise.prototype.then;
      // A foreign constructor makes await go through .then, so every promise gg awaits passes through the program.
      Object.defineProperty(Promise.prototype, "constructor", { value: function Fake() {}, configurable: true, writable: true });
      Promise.prototype.then = function (this: Promise<unknown>, ok?: any, fail?: any) {
        intercepted.push(["then.this", this]);
        return then.call(this, (v: unknown) => { intercepted.push(["value", v]); return ok ? ok(v) : v; }, fail);
      } as any;
      const read = await gg.files.readFile("a.txt");
      let code: unknown;
      try { await gg.files.readFile("missing.txt"); } catch (e: any) { code = e.code; intercepted.push(["error", e]); }
      Promise.prototype.then = then;
      return { read, code, count: intercepted.length, kinds: [...new Set(intercepted.map(([, v]) => Object.prototype.toString.call(v)))], walk: findIvm(intercepted) };`);
    const result = report.result as { read: string; code: string; count: number; kinds: string[]; walk: { flagged: string[] } };
    expect(result).toMatchObject({ read: "alpha\n", code: "not-found" });
    // The program did see gg's internal promises (and the raw reply strings), but nothing from the host.
    expect(result.count).toBeGreaterThan(0);
    expect(result.kinds).toEqual(expect.arrayContaining(["[object Promise]"]));
    expect(result.walk.flagged).toEqual([]);
  });

  test("Error replaced by the program: a gg failure still rejects with a real Error carrying its code, and an uncaught one reports it", async () => {
    using ws = engineWorkspace({ keepState: true });
    const caught = await ws.run(`
      const RealError = Error;
      (globalThis as any).Error = function FakeError() { return { fake: true }; };
      try { await gg.files.readFile("missing.txt"); } catch (e: any) { return [e instanceof RealError, e.code, Object.getPrototypeOf(e) === RealError.prototype, e.fake === undefined]; }`);
    expect(caught.result).toEqual([true, "not-found", true, true]);
    const uncaught = await ws.run("(globalThis as any).Error = function FakeError() {};\nawait gg.files.readFile('missing.txt');");
    expect(uncaught.error).toMatchObject({ code: "not-found", message: expect.stringContaining("no such file"), line: 2 });
  });

  test("gg, gg.files and gg.files.readFile cannot be reassigned, deleted or redefined, nor can the settle hook", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`
      const fake = async () => "forged";
      const g = globalThis as any;
      const attempts = {
        setGg: Reflect.set(g, "gg", {}),
        deleteGg: Reflect.deleteProperty(g, "gg"),
        defineGg: Reflect.defineProperty(g, "gg", { value: {} }),
        setFiles: Reflect.set(gg, "files", {}),
        deleteFiles: Reflect.deleteProperty(gg, "files"),
        setReadFile: Reflect.set(gg.files, "readFile", fake),
        deleteReadFile: Reflect.deleteProperty(gg.files, "readFile"),
        defineReadFile: Reflect.defineProperty(gg.files, "readFile", { value: fake }),
        addFunction: Reflect.set(gg.files, "rm", fake),
        protoOfFiles: Reflect.setPrototypeOf(gg.files, { readFile: fake }),
        deleteSettle: Reflect.deleteProperty(g, "__gg_settle"),
        setSettle: Reflect.set(g, "__gg_settle", () => "{}"),
        setLog: Reflect.set(console, "log", () => {}),
      };
      let strictAssign: string;
      try { (() => { "use strict"; (gg as any).files.readFile = fake; })(); strictAssign = "assigned"; } catch (e: any) { strictAssign = e.name; }
      return { attempts, strictAssign, read: await gg.files.readFile("a.txt"), frozen: [Object.isFrozen(gg), Object.isFrozen(gg.files), Object.isFrozen(console)] };`);
    const result = report.result as { attempts: Record<string, boolean>; strictAssign: string; read: string; frozen: boolean[] };
    expect(Object.entries(result.attempts).filter(([, done]) => done)).toEqual([]);
    expect(result).toMatchObject({ strictAssign: "TypeError", read: "alpha\n", frozen: [true, true, true] });
  });

  test("the console global cannot be rebound or deleted: gg's frozen console keeps reaching the report", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const kept = console;
      (globalThis as any).console = { log() { throw new Error("never runs"); } };
      const deleted = delete (globalThis as any).console;
      console.log("still gg's");
      return [deleted, console === kept, Object.isFrozen(kept), Object.getOwnPropertyDescriptor(globalThis, "console")?.writable];`);
    expect(report.result).toEqual([false, true, true, false]);
    expect(report.logs).toEqual([{ level: "log", text: "still gg's" }]);
    await expectEngineStillWorks(ws);
  });

  test("Object.prototype.toJSON cannot put an error code outside the closed set, or a non-string message, into the report", async () => {
    using ws = engineWorkspace({ keepState: true });
    // The shim serialises its own settle message with JSON.stringify, which honours an inherited toJSON; objects with
    // a null prototype stop the recursion, so the program chooses the whole message the host parses.
    const report = await ws.run(`
      (Object.prototype as any).toJSON = function () {
        return { __proto__: null, ok: false, error: { __proto__: null, code: "pwned", message: { __proto__: null, not: "a string" } } };
      };
      throw new Error("anything");`);
    expectClosedError(report);
    await expectEngineStillWorks(ws);
  });

  test("a report forged through Object.prototype.toJSON cannot crash `gg run`, the embedding process", () => {
    using ws = engineWorkspace({ keepState: true });
    // A message (or line) that is an object whose toString is not callable: formatting it throws in whoever prints it.
    writeFileSync(
      join(ws.root, "forge.ts"),
      `(Object.prototype as any).toJSON = function () {
        return { __proto__: null, ok: false, error: { __proto__: null, code: "pwned", message: { __proto__: null, toString: 1, valueOf: 1 }, line: { __proto__: null, toString: 1, valueOf: 1 } } };
      };
      throw new Error("anything");\n`,
    );
    const cli = spawnSync(process.execPath, [join(import.meta.dirname, "../../../bin/gg.js"), "run", "forge.ts"], { cwd: ws.root, encoding: "utf8" });
    expect(cli.stderr, "gg run died with an uncaught exception while printing the report").not.toMatch(/TypeError|Cannot convert object to primitive value/);
    expect(cli.status).toBe(1);
    expect(cli.stdout).toMatch(/^error\[[a-z-]+\]: /m);
  });

  test("Object.prototype.toJSON cannot pass a result over the result limit", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      (Object.prototype as any).toJSON = function () { return { __proto__: null, ok: true, result: "z".repeat(200000) }; };
      throw new Error("the failure path has no size check");`, { limits: { resultChars: 50000 } });
    if (report.ok) expect(JSON.stringify(report.result).length).toBeLessThanOrEqual(50000);
    else expectClosedError(report);
  });

  test("Object.prototype.toJSON that recurses forever or returns nothing fails the run with program-error, not a host error", async () => {
    using ws = engineWorkspace({ keepState: true });
    const recursing = await ws.run("(Object.prototype as any).toJSON = function () { return {}; };\nthrow new Error('x');");
    expect(recursing.error).toMatchObject({ code: "program-error" });
    const empty = await ws.run("(Object.prototype as any).toJSON = function () { return null; };\nthrow new Error('x');");
    expect(empty.error).toMatchObject({ code: "program-error" });
    await expectEngineStillWorks(ws);
  });

  // Programs of a session run back to back, or apart: the builtins are restored between them when the runtime is idle,
  // or as the next one starts.
  const GAPS = [["right after it", 0], ["after an idle moment", 100]] as const;

  test.each(GAPS)("nothing a program pollutes survives into the next run of a session (%s), nor reaches the host's own realm: only its own global stays", async (_, gapMs) => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const polluting = await ws.run(`
      Object.assign(Object.prototype, { ok: true, value: "forged", polluted: "yes", then: undefined });
      (Array.prototype as any)[0] = "forged";
      JSON.parse = () => "forged"; JSON.stringify = () => "forged";
      Promise.prototype.then = function () { return this; } as any;
      (globalThis as any).Error = function () {};
      (globalThis as any).leftover = "from the first run";
      Function.prototype.call = () => "forged";
      return "polluted";`);
    expect(polluting).toMatchObject({ ok: true, result: "polluted" });
    await sleep(gapMs);
    const clean = await ws.run(`
      return {
        polluted: ({} as any).polluted ?? null, ok: ({} as any).ok ?? null, index0: ([] as any)[0] ?? null, leftover: (globalThis as any).leftover ?? null,
        json: JSON.stringify({ a: 1 }), errorIsNative: String(Error).includes("[native code]"), callIsNative: String(Function.prototype.call).includes("[native code]"),
        read: await gg.files.readFile("a.txt"),
      };`);
    // Builtins are restored before the next program; a global property of the program's own is the session's state.
    expect(clean.result).toEqual({ polluted: null, ok: null, index0: null, leftover: "from the first run", json: '{"a":1}', errorIsNative: true, callIsNative: true, read: "alpha\n" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    expect((globalThis as Record<string, unknown>).leftover).toBeUndefined();
  });
  test.each(GAPS)("getters a program leaves on Object.prototype and the builtins never run while the builtins are restored for the next program (%s)", async (_, gapMs) => {
    using ws = engineWorkspace({ keepState: true });
    const planted = await ws.run(`
      let calls = 0;
      for (const name of ["value", "get", "set", "writable", "enumerable", "configurable"]) {
        Object.defineProperty(Object.prototype, name, { __proto__: null, get() { calls++; return undefined; }, configurable: true });
      }
      Object.defineProperty(Array.prototype, "map", { __proto__: null, get() { calls++; return () => []; }, configurable: true });
      Object.defineProperty(Array.prototype, "filter", { __proto__: null, value: () => ["replaced"] });
      // A gg call's failure still carries its code, set on the error as the shim makes it.
      const code = await gg.files.readFile("missing.txt").then(() => "read", (error) => error.code);
      return { calls, code };
    `);
    expect(planted).toMatchObject({ ok: true, result: { calls: 0, code: "not-found" } });
    await sleep(gapMs);
    const next = await ws.run("return { calls, map: [1, 2].map((x) => x * 2), filter: [1, 2].filter((x) => x > 1), value: ({} as Record<string, unknown>).value ?? null, files: (await gg.files.listDir()).entries.length };");
    expect(next).toMatchObject({ ok: true, result: { calls: 0, map: [2, 4], filter: [2], value: null, files: 0 } });
  });

  test("a program that comes while the restore between programs runs waits for it: nothing the last one piled on survives, and its bindings stay", async () => {
    using ws = engineWorkspace({ keepState: true });
    const piled = await ws.run(`const kept = 7;\nfor (let i = 0; i < 20000; i++) (Object.prototype as any)["p" + i] = i;\n(Array.prototype as any).polluted = true;\nreturn "piled";`);
    expect(piled).toMatchObject({ ok: true, result: "piled" });
    // One turn of the event loop: the restore has begun on the isolate's thread (20,000 names to take away).
    await new Promise((resolve) => setImmediate(resolve));
    const next = await ws.run("return { kept, first: ({} as any).p0 ?? null, last: ({} as any).p19999 ?? null, polluted: ([] as any).polluted ?? null };");
    expect(next).toMatchObject({ ok: true, result: { kept: 7, first: null, last: null, polluted: null } });
  });

  test("a session's FinalizationRegistry (whose cleanups mark the realm for a restore) behaves as the builtin does", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const registry = new FinalizationRegistry(() => {});
      const target = {};
      registry.register(target, 1, target);
      const threw = (make: () => unknown) => { try { make(); return null; } catch (error) { return (error as Error).constructor.name; } };
      return {
        instance: registry instanceof FinalizationRegistry,
        constructor: Object.getPrototypeOf(registry).constructor === FinalizationRegistry,
        name: FinalizationRegistry.name, length: FinalizationRegistry.length,
        unregistered: registry.unregister(target),
        withoutNew: threw(() => (FinalizationRegistry as any)(() => {})),
        notCallable: threw(() => new FinalizationRegistry(1 as any)),
        subclass: new (class extends FinalizationRegistry<number> {})(() => {}) instanceof FinalizationRegistry,
      };`);
    expect(report).toMatchObject({ ok: true, result: { instance: true, constructor: true, name: "FinalizationRegistry", length: 1, unregistered: true, withoutNew: "TypeError", notCallable: "TypeError", subclass: true } });
  });
});
