import ivm from "isolated-vm";
import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { expectEngineStillWorks, FIND_IVM } from "./hostile.ts";

// V8's structured stack traces (Error.prepareStackTrace receiving CallSite objects) hand a program the receiver and
// function of each frame. The frames around a gg call include the sandbox shim, which holds the host dispatcher (an
// isolated-vm Reference) and the console Callback: none of those, nor anything reachable from them, may surface.

// Guest helper: collects each frame, its receiver and function as walk roots, and a description of the frame.
const COLLECT = `${FIND_IVM}
const roots: [string, unknown][] = [];
const described: { file: string | null; fn: string | null; type: string | null; this: string; function: string }[] = [];
const collect = (label: string, frames: any[]) => {
  frames.forEach((frame, i) => {
    const at = label + "[" + i + "]";
    roots.push([at, frame], [at + ".getThis()", frame.getThis()], [at + ".getFunction()", frame.getFunction()]);
    described.push({ file: frame.getFileName() ?? null, fn: frame.getFunctionName() ?? null, type: frame.getTypeName() ?? null, this: typeof frame.getThis(), function: typeof frame.getFunction() });
  });
};
Error.stackTraceLimit = Infinity;
Error.prepareStackTrace = (_error: unknown, frames: unknown[]) => frames;
`;

interface Walked {
  frames: { file: string | null; fn: string | null; type: string | null; this: string; function: string }[];
  walk: { visited: number; flagged: string[] };
}

/** Frames of gg's own code (the shim, "<isolated-vm>", and builtins without a file) must hide their receiver and function. */
function expectShimFramesOpaque(frames: Walked["frames"]): void {
  const shim = frames.filter((frame) => frame.file !== "program.js");
  expect(shim.length).toBeGreaterThan(0);
  for (const frame of shim) expect(frame).toMatchObject({ this: "undefined", function: "undefined" });
}

describe("hostile: Error.prepareStackTrace", () => {
  test("the walker is not blind: it flags a real Reference, ExternalCopy and Callback handed into an isolate", async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      const context = await isolate.createContext();
      const found = (await context.evalClosure(`${FIND_IVM}; return JSON.stringify(findIvm([["ref", $0], ["copy", $1], ["callback", $2], ["nested", { a: [{ b: $3 }] }]]));`, [
        new ivm.Reference(async () => "x"),
        new ivm.ExternalCopy({ a: 1 }),
        new ivm.Callback((level: unknown, text: unknown) => [level, text], { ignored: true }),
        new ivm.Reference({}),
      ])) as string;
      const { flagged } = JSON.parse(found) as { flagged: string[] };
      expect(flagged).toEqual(expect.arrayContaining([expect.stringMatching(/^ref has applySync/), expect.stringMatching(/^copy has copyInto/), expect.stringMatching(/^callback is a function named .*Callback/), expect.stringMatching(/^nested\.a\.0\.b has/)]));
    } finally {
      isolate.dispose();
    }
  });

  test("frames of a failed gg call (prepareStackTrace returns the CallSites) reach no isolated-vm object", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${COLLECT}
      try { await gg.files.readFile("missing.txt"); } catch (e: any) { collect("readFile", e.stack); roots.push(["error", e]); }
      try { await gg.files.editFile("missing.txt", "a", "b"); } catch (e: any) { collect("editFile", e.stack); }
      return { frames: described, walk: findIvm(roots) };`);
    const result = report.result as Walked;
    expect(result.walk.flagged).toEqual([]);
    expect(result.frames.some((frame) => frame.file === "program.js")).toBe(true);
    expectShimFramesOpaque(result.frames);
    expect(report.calls.map((call) => call.code)).toEqual(["not-found", "not-found"]);
    await expectEngineStillWorks(ws);
  });

  test("frames of an error thrown inside a function gg calls back (a getter, toJSON, a Proxy trap) reach no isolated-vm object", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${COLLECT}
      const hostile: [string, unknown][] = [
        ["getter", { get path() { throw new Error("from a getter"); } }],
        ["toJSON", { toJSON() { throw new Error("from toJSON"); } }],
        ["proxy", new Proxy({}, { ownKeys() { throw new Error("from a trap"); } })],
      ];
      for (const [label, arg] of hostile) {
        try { await gg.files.readFile(arg as any); } catch (e: any) { collect(label, e.stack); roots.push([label + ".error", e]); }
      }
      // A stack captured, not thrown, while the shim is on the stack.
      const captured: any = {};
      try { await gg.files.readFile({ get path() { Error.captureStackTrace(captured); return "x"; } } as any); } catch {}
      collect("captured", captured.stack);
      return { frames: described, walk: findIvm(roots) };`);
    const result = report.result as Walked;
    expect(result.walk.flagged).toEqual([]);
    // The shim's frames were on the stack (it serialises the arguments), yet show no receiver and no function.
    expect(result.frames.some((frame) => frame.file === "<isolated-vm>")).toBe(true);
    expectShimFramesOpaque(result.frames);
    // Each is refused: three as arguments that cannot become JSON, the captured-stack one on the host (its path is an object).
    expect(report.calls.map((call) => call.code)).toEqual(Array(4).fill("invalid-argument"));
    await expectEngineStillWorks(ws);
  });

  test("a frame variant that reads getTypeName, getMethodName, getEvalOrigin and isNative finds nothing host-side either", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      Error.stackTraceLimit = Infinity;
      Error.prepareStackTrace = (_e: unknown, frames: any[]) => frames.map((f) => ({
        type: f.getTypeName(), method: f.getMethodName(), fn: f.getFunctionName(), file: f.getFileName(), eval: f.getEvalOrigin() ?? null,
        native: f.isNative(), toplevel: f.isToplevel(), async: f.isAsync(), promiseAll: f.isPromiseAll(), text: String(f),
      }));
      const out: unknown[] = [];
      try { await gg.files.readFile("missing.txt"); } catch (e: any) { out.push(e.stack); }
      try { await gg.files.readFile({ get path() { throw new Error("inner"); } } as any); } catch (e: any) { out.push(e.stack); }
      return out;`);
    const text = JSON.stringify(report.result);
    expect(report.ok).toBe(true);
    expect(text).not.toMatch(/Reference|ExternalCopy|applySync|derefInto|node:|process/);
    expect(text).toContain("<isolated-vm>");
  });

  test("a prepareStackTrace that runs while gg reports the program's own uncaught error sees only guest objects", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${COLLECT}
      Error.prepareStackTrace = function (this: unknown, _error: unknown, frames: any[]) {
        collect("uncaught", frames);
        roots.push(["receiver", this]);
        console.log(JSON.stringify({ frames: described, walk: findIvm(roots) }));
        return "formatted";
      };
      await gg.files.listDir();
      throw new Error("escaped");`);
    expect(report.error).toMatchObject({ code: "program-error", message: "escaped" });
    expect(report.logs).toHaveLength(1);
    const logged = JSON.parse(report.logs[0]?.text ?? "null") as Walked;
    expect(logged.walk.flagged).toEqual([]);
    expect(logged.walk.visited).toBeGreaterThan(100);
    await expectEngineStillWorks(ws);
  });

  test("a prepareStackTrace that throws or returns a hostile object leaves the report intact", async () => {
    using ws = engineWorkspace({ keepState: true });
    const throwing = await ws.run("Error.prepareStackTrace = () => { throw new Error('no stack for you'); };\nthrow new Error('first');");
    expect(throwing.error?.code).toBe("program-error");
    const hostile = await ws.run("Error.prepareStackTrace = () => ({ toString() { throw new Error('x'); } });\nawait gg.files.readFile('missing.txt');");
    expect(hostile.error).toMatchObject({ code: "not-found", message: expect.stringContaining("no such file") });
    await expectEngineStillWorks(ws);
  });

  test("Function.caller from a sloppy getter the shim calls is null: the shim's functions stay unreachable", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const seen: unknown[] = [];
      const options = {};
      Object.defineProperty(options, "path", { enumerable: true, get: function getter() { seen.push(getter.caller === null ? null : typeof getter.caller, arguments.callee === getter); return "x"; } });
      const json = { toJSON: function toJSON() { seen.push(toJSON.caller === null ? null : typeof toJSON.caller); return "y"; } };
      await gg.files.readFile(options as any).catch(() => {});
      await gg.files.readFile(json as any).catch(() => {});
      return seen;`);
    expect(report.result).toEqual([null, true, null]);
  });

  test("everything reachable from globalThis and gg (functions, prototypes, constructors, promises, errors) is free of isolated-vm objects", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${FIND_IVM}
      const roots: [string, unknown][] = Reflect.ownKeys(globalThis).map((key) => ["globalThis." + String(key), Reflect.getOwnPropertyDescriptor(globalThis, key)?.value]);
      roots.push(["gg", gg], ["console", console]);
      for (const module of Object.values(gg) as any[]) for (const fn of Object.values(module) as any[]) roots.push(["fn", fn], ["fn.prototype", fn.prototype], ["fn.constructor", fn.constructor], ["fn.bound", fn.bind(null)]);
      const pending = gg.files.listDir();
      roots.push(["pending", pending], ["resolved", await pending]);
      const failed = gg.files.readFile("missing.txt");
      roots.push(["failed", failed]);
      await failed.catch((e: unknown) => roots.push(["rejection", e]));
      return findIvm(roots);`);
    const walk = report.result as Walked["walk"];
    expect(walk.flagged).toEqual([]);
    // The walk covered the whole builtin graph, not just a few roots.
    expect(walk.visited).toBeGreaterThan(500);
  });
});
