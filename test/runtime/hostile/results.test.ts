import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { expectClosedError, expectEngineStillWorks, hostTripwires } from "./hostile.ts";

// What a program returns or throws is turned into JSON inside the guest, so a hostile value (huge, cyclic, with
// throwing accessors, a Proxy, not an Error at all) ends as a report with a code from the closed set, never as a
// host crash; and values JSON cannot hold follow JSON's own rules.

describe("hostile: results and thrown values", () => {
  test("a huge result fails with result-too-large, and the report does not carry it", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return { rows: Array.from({ length: 100000 }, (_, i) => 'row ' + i) };", { limits: { resultChars: 10000 } });
    expect(report.error).toMatchObject({ code: "result-too-large" });
    expect(report.result).toBeUndefined();
    expect(JSON.stringify(report).length).toBeLessThan(10000);
  });

  test("a result near the memory limit fails with result-too-large or memory-limit, and the host carries on", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return 'x'.repeat(40 * 1024 * 1024);", { limits: { memoryMb: 64 } });
    expectClosedError(report);
    expect(["result-too-large", "memory-limit"]).toContain(report.error?.code);
    await expectEngineStillWorks(ws);
  });

  test("a cyclic result fails with invalid-result, however deep the cycle", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("const a: any = { b: [{ c: {} }] }; a.b[0].c.back = a; return a;");
    expect(report.error).toMatchObject({ code: "invalid-result", message: expect.stringContaining("circular") });
  });

  test("a result whose toJSON throws fails with invalid-result naming the error", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return { nested: { toJSON() { throw new Error('toJSON refuses'); } } };");
    expect(report.error).toMatchObject({ code: "invalid-result", message: expect.stringContaining("toJSON refuses") });
  });

  test("a result whose getter throws, or a Proxy whose trap throws, fails with invalid-result", async () => {
    using ws = engineWorkspace({ keepState: true });
    const getter = await ws.run("return { get x() { throw new Error('getter refuses'); } };");
    expect(getter.error).toMatchObject({ code: "invalid-result", message: expect.stringContaining("getter refuses") });
    const proxy = await ws.run("return new Proxy({}, { ownKeys() { throw new Error('trap refuses'); } });");
    expect(proxy.error).toMatchObject({ code: "invalid-result", message: expect.stringContaining("trap refuses") });
    // Returning a value first looks up its "then" (it might be a thenable): a revoked Proxy throws there, in the program.
    const revoked = await ws.run("const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy;");
    expect(revoked.error).toMatchObject({ code: "program-error", message: expect.stringContaining("revoked") });
  });

  test("a thrown error whose message getter throws in the invalid-result path is still reported in the closed set", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("return { toJSON() { throw { get message() { throw new Error('inner'); } }; } };");
    expectClosedError(report);
  });

  test("a BigInt result fails with invalid-result", async () => {
    using ws = engineWorkspace({ keepState: true });
    expect((await ws.run("return { n: 10n };")).error).toMatchObject({ code: "invalid-result" });
  });

  test("functions, symbols and undefined in a result follow JSON: dropped from objects, null in arrays, null at the top", async () => {
    using ws = engineWorkspace({ keepState: true });
    const nested = await ws.run(`return {
      f() {}, s: Symbol("x"), u: undefined, [Symbol("key")]: 1,
      arr: [undefined, () => 1, Symbol("y")], n: NaN, inf: -Infinity, date: new Date(0), map: new Map([[1, 2]]), set: new Set([1]),
      typed: new Uint8Array([1, 2]), regexp: /x/g, error: new Error("not serialised"), boxed: [new String("s"), new Number(1), Object(true)],
    };`);
    expect(nested).toMatchObject({ ok: true });
    expect(nested.result).toEqual({
      arr: [null, null, null], n: null, inf: null, date: "1970-01-01T00:00:00.000Z", map: {}, set: {},
      typed: { 0: 1, 1: 2 }, regexp: {}, error: {}, boxed: ["s", 1, true],
    });
    for (const top of ["return () => 1;", "return Symbol('x');", "return undefined;", "", "return { toJSON() { return undefined; } };"]) {
      expect(await ws.run(top)).toMatchObject({ ok: true, result: null });
    }
  });

  test("a thenable result is awaited like any returned promise; one that throws fails the run with program-error", async () => {
    using ws = engineWorkspace({ keepState: true });
    expect(await ws.run("return { then(resolve: (v: unknown) => void) { resolve(42); } };")).toMatchObject({ ok: true, result: 42 });
    expect((await ws.run("return { then() { throw new Error('then refuses'); } };")).error).toMatchObject({ code: "program-error", message: "then refuses" });
  });

  test("a result that never settles is stopped at the budget with timeout", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("await gg.files.listDir();\nreturn new Promise(() => {});", { limits: { budgetSecs: 1 } });
    expect(report.error?.code).toBe("timeout");
    expect(report.usage.wallMs).toBeGreaterThanOrEqual(1000);
    await expectEngineStillWorks(ws);
  });

  test("a thrown string is reported as program-error saying it is not an Error", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("throw 'just a string';");
    expect(report.error).toMatchObject({ code: "program-error", message: expect.stringContaining("not an Error: just a string") });
  });

  test("thrown plain values of every kind are reported in the closed set", async () => {
    using ws = engineWorkspace({ keepState: true });
    for (const value of ["undefined", "null", "42", "Symbol('s')", "10n", "{ a: 1 }", "[1, 2]", "() => 1", "Object.create(null)"]) {
      const report = await ws.run(`throw ${value};`);
      expectClosedError(report);
      expect(report.error?.code).toBe("program-error");
    }
  });

  test("a thrown object with throwing getters (message, code, name, toString) is reported as program-error", async () => {
    using ws = engineWorkspace({ keepState: true });
    const boom = "() => { throw new Error('getter refuses'); }";
    const plain = await ws.run(`throw { get message() { return (${boom})(); }, get code() { return (${boom})(); }, toString: ${boom}, toJSON: ${boom} };`);
    expect(plain.error).toMatchObject({ code: "program-error", message: expect.stringContaining("not an Error") });
    // An Error whose own accessors throw cannot be described, and says so.
    const error = await ws.run(`const e = new Error('m'); for (const key of ['code', 'name', 'message', 'stack']) Object.defineProperty(e, key, { get: ${boom} }); throw e;`);
    expect(error.error).toMatchObject({ code: "program-error", message: expect.stringContaining("cannot be described") });
  });

  test("a thrown Proxy whose every trap throws is reported as program-error", async () => {
    using ws = engineWorkspace({ keepState: true });
    const traps = ["get", "getPrototypeOf", "ownKeys", "getOwnPropertyDescriptor", "has", "apply"].map((trap) => `${trap}() { throw new Error('trap ${trap}'); }`).join(", ");
    const object = await ws.run(`throw new Proxy({}, { ${traps} });`);
    expect(object.error).toMatchObject({ code: "program-error" });
    const fn = await ws.run(`throw new Proxy(function () {}, { ${traps} });`);
    expect(fn.error).toMatchObject({ code: "program-error" });
    const error = await ws.run(`throw new Proxy(new Error('inner'), { ${traps} });`);
    expect(error.error).toMatchObject({ code: "program-error" });
    await expectEngineStillWorks(ws);
  });

  test("a thrown error's code is taken only from the closed set: anything else is program-error", async () => {
    using ws = engineWorkspace({ keepState: true });
    for (const code of ["'pwned'", "42", "{ toString() { return 'timeout'; } }", "['timeout']"]) {
      const report = await ws.run(`throw Object.assign(new Error('m'), { code: ${code} });`);
      expect(report.error?.code).toBe("program-error");
    }
  });

  test("a thrown error with a non-string name or a hostile message is described with strings", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("const e = new Error('m'); Object.defineProperty(e, 'name', { value: { toString() { return 'Named'; } } }); Object.defineProperty(e, 'message', { value: 123 }); throw e;");
    expect(report.error).toMatchObject({ code: "program-error", message: "Named: 123" });
  });

  test("throwing from a hostile value leaves no unhandled rejection or exception on the host", async () => {
    using tripwires = hostTripwires();
    using ws = engineWorkspace({ keepState: true });
    await ws.run("throw new Proxy({}, { getPrototypeOf() { throw new Error('x'); } });");
    await ws.run("return { get x() { throw new Error('x'); } };");
    await ws.run("throw { toString() { throw new Error('x'); } };");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tripwires.seen).toEqual([]);
  });
});
