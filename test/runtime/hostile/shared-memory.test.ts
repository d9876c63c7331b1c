import { readdirSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { expectEngineStillWorks, withRssGrowth } from "./hostile.ts";

// SharedArrayBuffer and Atomics exist in the guest, but nothing is shared with the host: arguments cross as JSON.
// What they can still do is block the isolate's thread (Atomics.wait) or reserve memory outside the V8 heap; the
// watchdog must stop the first, and the memory limit must cover the second.

const MIB = 1024 * 1024;

describe("hostile: shared memory", () => {
  test("SharedArrayBuffer and Atomics do not exist, so no program can block on shared memory or grow it", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return [typeof SharedArrayBuffer, typeof Atomics, Object.getOwnPropertyNames(globalThis).filter((n) => /shared|atomics/i.test(n))]");
    expect(report.result).toEqual(["undefined", "undefined", []]);
  });

  test("Atomics.wait fails inside the program instead of blocking its thread", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);", { limits: { budgetSecs: 2 } });
    expect(report.error).toMatchObject({ code: "program-error", message: expect.stringContaining("is not defined") });
    await expectEngineStillWorks(ws);
  });

  test("a resizable ArrayBuffer is refused with a RangeError in the program; a fixed one still works", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      let resizable: string;
      try { new ArrayBuffer(1, { maxByteLength: 1024 }); resizable = "created"; } catch (e: any) { resizable = e.name; }
      const fixed = new ArrayBuffer(8);
      class Sub extends ArrayBuffer {}
      const sub = new Sub(4);
      const sliced = new Uint8Array([1, 2, 3]).buffer.slice(1);
      return { resizable, fixed: fixed.byteLength, sub: [sub instanceof Sub, sub instanceof ArrayBuffer, sub.byteLength], sliced: sliced.byteLength, same: fixed.constructor === ArrayBuffer, isView: ArrayBuffer.isView(new Uint8Array(1)) };`);
    expect(report.result).toEqual({ resizable: "RangeError", fixed: 8, sub: [true, true, 4], sliced: 2, same: true, isView: true });
  });

  test("the native ArrayBuffer constructor cannot be found again to make a resizable buffer", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const candidates = [ArrayBuffer, new Uint8Array(1).buffer.constructor, Object.getPrototypeOf(new ArrayBuffer(1)).constructor, (new ArrayBuffer(1) as any).constructor[Symbol.species]];
      const made: string[] = [];
      for (const C of candidates) { try { new (C as any)(1, { maxByteLength: 8 }); made.push(C.name); } catch {} }
      return made;`);
    expect(report.result).toEqual([]);
  });

  test("a typed array, ArrayBuffer or DataView passed to gg arrives as JSON and is refused with invalid-argument", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`
      const sab = new ArrayBuffer(8);
      const attempts: [string, () => Promise<unknown>][] = [
        ["buffer as path", () => gg.files.readFile(sab as any)],
        ["typed array as content", () => gg.files.writeFile("a.txt", new Int32Array(sab) as any)],
        ["bytes as content", () => gg.files.writeFile("b.txt", new TextEncoder().encode("text") as any)],
        ["dataview as content", () => gg.files.writeFile("c.txt", new DataView(sab) as any)],
        ["buffer in options", () => gg.files.readFile("a.txt", { offset: new Uint8Array(sab) } as any)],
      ];
      const out: Record<string, unknown> = {};
      for (const [label, fn] of attempts) { try { await fn(); out[label] = "accepted"; } catch (e: any) { out[label] = e.code ?? e.name; } }
      return out;`);
    // TextEncoder is not part of a bare V8 realm, so that attempt fails in the guest with a ReferenceError.
    expect(report.result).toEqual({ "buffer as path": "invalid-argument", "typed array as content": "invalid-argument", "bytes as content": "ReferenceError", "dataview as content": "invalid-argument", "buffer in options": "invalid-argument" });
    expect(report.calls.map((call) => call.args)).toEqual(["[{}]", '["a.txt",{"0":0,"1":0}]', '["c.txt",{}]', '["a.txt",{"offset":{"0":0,"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0}}]']);
    expect(readdirSync(ws.root)).toEqual([]);
  });

  test("a resizable ArrayBuffer cannot commit memory past the memory limit", async () => {
    using ws = engineWorkspace({ keepState: true });
    const { value: report, growthBytes } = await withRssGrowth(() =>
      ws.run(`const b = new ArrayBuffer(1, { maxByteLength: ${512 * MIB} });\nb.resize(${512 * MIB});\nnew Uint8Array(b).fill(7);\nreturn b.byteLength;`, { limits: { memoryMb: 32 } }),
    );
    expect(report.ok && report.result === 512 * MIB, `a 32 MB program held a ${512} MiB resizable ArrayBuffer; host RSS grew ${Math.round(growthBytes / MIB)} MiB`).toBe(false);
    expect(growthBytes).toBeLessThan(256 * MIB);
    await expectEngineStillWorks(ws);
  });
});
