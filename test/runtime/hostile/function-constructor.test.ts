import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { expectEngineStillWorks } from "./hostile.ts";

// A program that builds code from strings (Function, eval, a function's .constructor) or imports a module still runs
// in the isolate's own bare V8 realm: none of Node's globals exist there, and import() is refused inside the guest.

// Guest helper: what an attempt produced: "typeof <value>", or "threw <ErrorName>" for an error thrown in the guest.
const ATTEMPT = `
const attempt = (fn: () => unknown): string => {
  try { return "typeof " + typeof fn(); } catch (e: any) { return "threw " + (e && e.constructor === Error ? "Error" : e?.name); }
};
`;
const NODE_NAMES = ["process", "require", "module", "exports", "global", "Buffer", "setTimeout", "setImmediate", "fetch", "__dirname", "__filename"];

describe("hostile: code built from strings", () => {
  test("Function('return process')() finds none of Node's globals: each name is unbound in the guest", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${ATTEMPT}
      const names = ${JSON.stringify(NODE_NAMES)};
      return Object.fromEntries(names.map((name) => [name, [attempt(() => Function("return " + name)()), attempt(() => (0, eval)(name)), Function("return typeof " + name)()]]));`);
    expect(report.ok).toBe(true);
    expect(report.result).toEqual(Object.fromEntries(NODE_NAMES.map((name) => [name, ["threw ReferenceError", "threw ReferenceError", "undefined"]])));
    await expectEngineStillWorks(ws);
  });

  test("(() => {}).constructor('return this')() is the guest's own global, holding only ECMAScript builtins, console and gg", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const g = (() => {}).constructor("return this")();
      return { same: g === globalThis, names: Object.getOwnPropertyNames(g), symbols: Object.getOwnPropertySymbols(g).map(String), chain: (() => { const out = []; for (let p = Object.getPrototypeOf(g); p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) out.push(Reflect.ownKeys(p).map(String)); return out; })() };`);
    const result = report.result as { same: boolean; names: string[]; symbols: string[]; chain: string[][] };
    expect(result.same).toBe(true);
    // Between the global and Object.prototype V8 keeps one object holding only "constructor"; nothing is hidden there.
    expect(result.chain).toEqual([["constructor"]]);
    // Anything beyond ECMAScript, WebAssembly and Intl must be a deliberate part of the guest: console, gg and the settle hook.
    const allowed = new Set([
      ...["Object", "Function", "Array", "Number", "parseFloat", "parseInt", "Infinity", "NaN", "undefined", "Boolean", "String", "Symbol", "Date", "Promise", "RegExp"],
      ...["Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "SuppressedError", "globalThis", "JSON", "Math", "Intl"],
      ...["ArrayBuffer", "SharedArrayBuffer", "Atomics", "DataView", "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array", "BigUint64Array", "BigInt64Array"],
      ...["Uint8ClampedArray", "Float16Array", "Float32Array", "Float64Array", "Map", "BigInt", "Set", "Iterator", "WeakMap", "WeakSet", "Proxy", "Reflect", "FinalizationRegistry", "WeakRef"],
      ...["decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape", "eval", "isFinite", "isNaN", "DisposableStack", "AsyncDisposableStack", "WebAssembly"],
      ...["console", "gg", "__gg_settle", "__gg_keep"],
    ]);
    expect(result.names.filter((name) => !allowed.has(name))).toEqual([]);
    expect(result.symbols).toEqual([]);
    await expectEngineStillWorks(ws);
  });

  test("gg.files.readFile.constructor is the guest's Function: the code it builds sees no process", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${ATTEMPT}
      const fn: any = gg.files.readFile;
      return {
        isGuestFunction: fn.constructor === Function && Object.getPrototypeOf(fn) === Function.prototype,
        process: attempt(() => fn.constructor("return process")()),
        require: attempt(() => fn.constructor("return require")()),
        thisIsGlobal: fn.constructor("return this")() === globalThis,
        bound: attempt(() => fn.bind(null).constructor("return process")()),
      };`);
    expect(report.result).toEqual({ isGuestFunction: true, process: "threw ReferenceError", require: "threw ReferenceError", thisIsGlobal: true, bound: "threw ReferenceError" });
    await expectEngineStillWorks(ws);
  });

  test("globalThis.constructor.constructor is the guest's Function, whatever path reaches it", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      // Runs the built function to completion (iterating a generator, awaiting a promise): "threw <Name>" or "typeof <value>".
      const settle = async (F: any, body: string): Promise<string> => {
        try {
          let value = F(body)();
          if (value && typeof value.next === "function") value = await value.next();
          else if (value && typeof value.then === "function") value = await value;
          return "typeof " + typeof value;
        } catch (e: any) { return "threw " + e?.name; }
      };
      const paths: Record<string, any> = {
        globalThis: (globalThis as any).constructor.constructor,
        console: (console.log as any).constructor,
        gg: (gg as any).constructor.constructor,
        promise: gg.files.listDir().constructor.constructor,
        async: (async () => {}).constructor,
        generator: (function* () {}).constructor,
        asyncGenerator: (async function* () {}).constructor,
      };
      const out: Record<string, string[]> = {};
      for (const [key, F] of Object.entries(paths)) out[key] = [await settle(F, "return process"), await settle(F, "return require")];
      return out;`);
    const threw = ["threw ReferenceError", "threw ReferenceError"];
    expect(report.result).toEqual({ globalThis: threw, console: threw, gg: threw, promise: threw, async: threw, generator: threw, asyncGenerator: threw });
    await expectEngineStillWorks(ws);
  });

  test("the async-function constructor's body rejects in the guest: process is unbound there too", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const AsyncFunction: any = (async () => {}).constructor;
      try { await AsyncFunction("return process")(); return "reached process"; } catch (e: any) { return e.name; }`);
    expect(report).toMatchObject({ ok: true, result: "ReferenceError" });
  });

  test("import('node:fs') and other dynamic imports reject inside the guest, and the program can catch them", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const out: Record<string, string> = {};
      for (const specifier of ["node:fs", "fs", "node:child_process", "isolated-vm", "data:text/javascript,export default 1", "./program.js"]) {
        try { const mod: any = await import(specifier); out[specifier] = "imported " + typeof mod; } catch (e: any) { out[specifier] = "threw " + e?.name + ": " + e?.message; }
      }
      return out;`);
    expect(report.ok).toBe(true);
    const result = report.result as Record<string, string>;
    expect(Object.keys(result)).toHaveLength(6);
    for (const outcome of Object.values(result)) expect(outcome).toMatch(/^threw /);
    expect(report.calls).toEqual([]);
    await expectEngineStillWorks(ws);
  });

  test("an uncaught import('node:fs') fails only the run, with program-error", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("const fs = await import('node:fs');\nreturn typeof fs.readFileSync;");
    expect(report).toMatchObject({ ok: false, error: { code: "program-error" } });
    await expectEngineStillWorks(ws);
  });

  test("require, module, exports and process are unbound in the program itself", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return [typeof require, typeof module, typeof exports, typeof process, typeof global, typeof Buffer, typeof (globalThis as any).ivm, typeof (globalThis as any)._ivm];");
    expect(report.result).toEqual(Array(8).fill("undefined"));
    const direct = await ws.run("return require('node:fs');");
    expect(direct.error).toMatchObject({ code: "program-error", message: expect.stringContaining("require is not defined") });
  });
});
