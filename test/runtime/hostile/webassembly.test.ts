import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { expectEngineStillWorks, WASM_INFINITE_LOOP } from "./hostile.ts";

// WebAssembly memories live outside the allocator isolated-vm limits (measured: a 32 MB program held 2 GiB through
// Memory.grow), so programs get no WebAssembly at all. These tests prove it is gone and cannot be found again.

const LOOP = `new Uint8Array(${JSON.stringify(WASM_INFINITE_LOOP)})`;

describe("hostile: WebAssembly", () => {
  test("the WebAssembly global does not exist in a program", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return [typeof WebAssembly, 'WebAssembly' in globalThis, Object.getOwnPropertyNames(globalThis).includes('WebAssembly')]");
    expect(report.result).toEqual(["undefined", false, false]);
  });

  test("compiling the infinite-loop module fails inside the program, never reaching a loop", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`const m = new WebAssembly.Module(${LOOP});\nreturn 'compiled';`, { limits: { budgetSecs: 2 } });
    expect(report.error).toMatchObject({ code: "program-error", message: expect.stringContaining("WebAssembly is not defined"), line: 1 });
    await expectEngineStillWorks(ws);
  });

  test("no other path reaches WebAssembly: not through Function, eval, or another global", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const found: string[] = [];
      const probes: [string, () => unknown][] = [
        ["Function", () => Function("return typeof WebAssembly")()],
        ["indirect eval", () => (0, eval)("typeof WebAssembly")],
        ["globalThis", () => typeof (globalThis as any).WebAssembly],
        ["Reflect", () => typeof Reflect.get(globalThis, "WebAssembly")],
      ];
      for (const [label, probe] of probes) { try { const v = probe(); if (v !== "undefined") found.push(label + ": " + String(v)); } catch (e) { /* refused: fine */ } }
      for (const name of Object.getOwnPropertyNames(globalThis)) { if (/wasm|webassembly/i.test(name)) found.push(name); }
      return found;`);
    expect(report.result).toEqual([]);
  });

  test("a program that redefines WebAssembly gets only its own object, and the next run is clean", async () => {
    using ws = engineWorkspace({ keepState: true });
    expect((await ws.run("(globalThis as any).WebAssembly = { fake: true }; return (globalThis as any).WebAssembly.fake")).result).toBe(true);
    expect((await ws.run("return typeof WebAssembly")).result).toBe("undefined");
  });
});
