import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { engineWorkspace } from "../engine.ts";
import { CLOSED_CODES, expectEngineStillWorks } from "./hostile.ts";

// Arguments cross to the host as one JSON string made in the guest, so whatever runs while they are read (getters,
// Proxy traps, toJSON) runs in the guest, once, before the call; the host parses that snapshot and validates it.
// Every hostile argument must end as a typed gg error the program can catch: one JSON cannot carry (a BigInt, a cycle,
// nesting past the guest's stack, a getter or trap that throws) is refused with invalid-argument, and nothing runs.

// Guest helper: "ok" with the value, a gg error (a code from the closed set), or an error thrown in the guest (no code).
const OUTCOME = `
type Outcome = { kind: "ok"; value: unknown } | { kind: "gg-error"; code: string; message: string } | { kind: "guest-error"; name: string; message: string };
const outcome = async (fn: () => Promise<unknown>): Promise<Outcome> => {
  try { return { kind: "ok", value: await fn() }; }
  catch (e: any) {
    return typeof e?.code === "string" ? { kind: "gg-error", code: e.code, message: String(e.message) } : { kind: "guest-error", name: String(e?.name), message: String(e?.message).slice(0, 200) };
  }
};
const g: any = gg;
`;

type Outcome = { kind: "ok"; value: unknown } | { kind: "gg-error"; code: string; message: string } | { kind: "guest-error"; name: string; message: string };

const invalid = { kind: "gg-error", code: "invalid-argument" };
/** A refusal of arguments the guest could not turn into JSON, for the reason `reason` (the guest's error). */
const unsent = (reason: string) => ({ ...invalid, message: expect.stringContaining(`its arguments cannot be sent as JSON (${reason}`) });

/** A directory outside the workspace that hostile arguments aim at; it must stay empty. */
function outsideDir(): { path: string } & Disposable {
  const path = mkdtempSync(join(tmpdir(), "gg-outside-"));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

describe("hostile: argument traps", () => {
  test("a getter in the options runs once, in the guest: the host reads only the snapshot it was given", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${OUTCOME}
      let reads = 0;
      const options = { get path() { reads++; return reads === 1 ? "a.txt" : "/etc/passwd"; } };
      const first = await outcome(() => g.files.readFile(undefined, options));
      const readsAfterFirst = reads;
      let pathReads = 0;
      const asPath = await outcome(() => g.files.readFile({ get path() { pathReads++; return "a.txt"; } }));
      return { first, readsAfterFirst, asPath, pathReads };`);
    expect(report.result).toEqual({ first: { kind: "ok", value: "alpha\n" }, readsAfterFirst: 1, asPath: expect.objectContaining(invalid), pathReads: 1 });
    expect(report.calls.map((call) => call.args)).toEqual(['[null,{"path":"a.txt"}]', '[{"path":"a.txt"}]']);
  });

  test("an object, array or number where a string is expected is refused on the host with invalid-argument", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${OUTCOME}
      return [
        await outcome(() => g.files.readFile({ path: "a.txt" })),
        await outcome(() => g.files.readFile(["a.txt"])),
        await outcome(() => g.files.readFile(42)),
        await outcome(() => g.files.readFile("a.txt", { offset: "1" })),
        await outcome(() => g.files.readFile("a.txt", "not options")),
        await outcome(() => g.files.readFile("a.txt", ["options"])),
        await outcome(() => g.files.readFile("a.txt", {}, "one too many")),
        await outcome(() => g.files.writeFile("x.txt", { toString() { return "content"; } })),
        await outcome(() => g.files.writeFile("x.txt", "content", { mode: 0o777 })),
      ];`);
    const outcomes = report.result as Outcome[];
    expect(outcomes).toHaveLength(9);
    for (const result of outcomes) expect(result).toMatchObject(invalid);
    expect(report.calls.every((call) => call.code === "invalid-argument")).toBe(true);
    expect(readdirSync(ws.root).sort()).toEqual(["a.txt"]);
  });

  test("a Proxy whose traps throw is refused with invalid-argument naming the trap's error; nothing runs on the host", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      const boom = (trap: string) => () => { throw new Error("trap " + trap); };
      const { proxy: revoked, revoke } = Proxy.revocable({}, {});
      revoke();
      return [
        await outcome(() => g.files.readFile(new Proxy({}, { ownKeys: boom("ownKeys") }))),
        await outcome(() => g.files.readFile("a.txt", new Proxy({ offset: 1 }, { get: boom("get") }))),
        await outcome(() => g.files.readFile("a.txt", new Proxy({ offset: 1 }, { getOwnPropertyDescriptor: boom("getOwnPropertyDescriptor") }))),
        await outcome(() => g.files.readFile(new Proxy([], { get: boom("array get") }))),
        await outcome(() => g.files.readFile(revoked)),
      ];`);
    const outcomes = report.result as Outcome[];
    expect(outcomes).toEqual([unsent("Error: trap ownKeys)"), unsent("Error: trap get)"), unsent("Error: trap getOwnPropertyDescriptor)"), unsent("Error: trap array get)"), unsent("TypeError: ")]);
    // Listed as failed calls, with no arguments: none could be read.
    expect(report.calls.map(({ name, args, code }) => ({ name, args, code }))).toEqual(Array(5).fill({ name: "files.readFile", args: "", code: "invalid-argument" }));
    await expectEngineStillWorks(ws);
  });

  test("a Proxy whose traps log: every trap runs in the guest before the call, and the host writes only the plain snapshot", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      const traps: string[] = [];
      let gets = 0;
      const target = { path: "p.txt", content: "first" };
      const proxy = new Proxy(target, {
        get(t: any, key) { traps.push("get " + String(key)); if (key === "content") gets++; return key === "content" && gets > 1 ? "changed" : t[key]; },
        ownKeys(t) { traps.push("ownKeys"); return Reflect.ownKeys(t); },
        getOwnPropertyDescriptor(t, key) { traps.push("gopd " + String(key)); return Reflect.getOwnPropertyDescriptor(t, key); },
      });
      const result = await outcome(() => g.files.writeFile(undefined, undefined, proxy));
      const trapsBeforeReturn = traps.length;
      return { result, traps, trapsBeforeReturn, tail: await outcome(() => g.files.readFile("p.txt")) };`);
    const result = report.result as { result: Outcome; traps: string[]; trapsBeforeReturn: number; tail: Outcome };
    expect(result.result).toMatchObject({ kind: "ok" });
    expect(result.traps).toEqual(expect.arrayContaining(["ownKeys", "get path", "get content"]));
    expect(result.traps).toHaveLength(result.trapsBeforeReturn);
    expect(result.tail).toEqual({ kind: "ok", value: "first" });
    expect(report.calls[0]?.args).toBe('[null,null,{"path":"p.txt","content":"first"}]');
  });

  test("Symbol.toPrimitive is ignored and toJSON's odd results arrive as JSON: the host validates what arrives", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${OUTCOME}
      return {
        toPrimitive: await outcome(() => g.files.readFile({ [Symbol.toPrimitive]() { return "a.txt"; } })),
        toJSONString: await outcome(() => g.files.readFile({ toJSON() { return "a.txt"; } })),
        toJSONUndefined: await outcome(() => g.files.readFile({ toJSON() { return undefined; } })),
        toJSONArrayOptions: await outcome(() => g.files.readFile("a.txt", { toJSON() { return ["a.txt"]; } })),
        toJSONNested: await outcome(() => g.files.readFile({ toJSON() { return { toJSON() { return "a.txt"; } }; } })),
        toJSONFunction: await outcome(() => g.files.readFile({ toJSON() { return () => "a.txt"; } })),
        toJSONBigInt: await outcome(() => g.files.readFile({ toJSON() { return 1n; } })),
        toJSONThrows: await outcome(() => g.files.readFile({ toJSON() { throw new RangeError("no json"); } })),
        toStringPath: await outcome(() => g.files.readFile({ toString() { return "a.txt"; }, valueOf() { return "a.txt"; } })),
      };`);
    expect(report.result).toEqual({
      toPrimitive: expect.objectContaining(invalid),
      // JSON semantics: a toJSON returning a string is that string, so this is an ordinary read.
      toJSONString: { kind: "ok", value: "alpha\n" },
      toJSONUndefined: expect.objectContaining(invalid),
      toJSONArrayOptions: expect.objectContaining(invalid),
      // The object toJSON returns is serialised as is (its own toJSON is not called again): {"toJSON":...} drops to {}.
      toJSONNested: expect.objectContaining(invalid),
      toJSONFunction: expect.objectContaining(invalid),
      toJSONBigInt: unsent("TypeError: Do not know how to serialize a BigInt)"),
      toJSONThrows: unsent("RangeError: no json)"),
      toStringPath: expect.objectContaining(invalid),
    });
  });

  test("functions and symbols arrive as null: a missing required argument is invalid-argument, an optional one is dropped", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${OUTCOME}
      return [
        await outcome(() => g.files.readFile(() => "a.txt")),
        await outcome(() => g.files.readFile(Symbol("a.txt"))),
        await outcome(() => g.files.readFile(class A {})),
        await outcome(() => g.files.readFile("a.txt", { offset: () => 1, [Symbol("limit")]: 1 })),
        await outcome(() => g.files.writeFile("f.txt", () => "content")),
      ];`);
    expect(report.result).toEqual([
      expect.objectContaining(invalid),
      expect.objectContaining(invalid),
      expect.objectContaining(invalid),
      { kind: "ok", value: "alpha\n" },
      expect.objectContaining(invalid),
    ]);
    expect(report.calls.map((call) => call.args)).toEqual(["[null]", "[null]", "[null]", '["a.txt",{}]', '["f.txt",null]']);
  });

  test("a BigInt cannot be serialised: refused with invalid-argument before anything runs on the host", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      return [await outcome(() => g.files.readFile(1n)), await outcome(() => g.files.readFile("a.txt", { offset: 2n ** 70n }))];`);
    expect(report.result).toEqual([unsent("TypeError: Do not know how to serialize a BigInt)"), unsent("TypeError: Do not know how to serialize a BigInt)")]);
    expect(report.calls.map((call) => call.code)).toEqual(["invalid-argument", "invalid-argument"]);
  });

  test("arguments JSON cannot carry (a BigInt, a cycle, 5,000-deep nesting, a throwing getter or Proxy trap) reject every gg.files and gg.shell call with invalid-argument and a bounded message", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${OUTCOME}
      const cyclic: any = { a: 1 }; cyclic.self = cyclic;
      let deep: any = {}; for (let i = 0; i < 5000; i++) deep = { a: deep };
      const values: Record<string, () => unknown> = {
        bigint: () => 1n,
        cyclic: () => cyclic,
        deep: () => deep,
        getter: () => ({ get path() { throw new Error("getter " + "x".repeat(100000)); } }),
        proxy: () => new Proxy({}, { ownKeys() { throw new TypeError("trap"); } }),
      };
      const calls: Record<string, (value: unknown) => Promise<unknown>> = {
        readFile: (v) => g.files.readFile(v),
        readFileOptions: (v) => g.files.readFile("a.txt", { offset: v }),
        writeFile: (v) => g.files.writeFile("w.txt", v),
        editFile: (v) => g.files.editFile("a.txt", "alpha", v),
        listDir: (v) => g.files.listDir(v),
        tree: (v) => g.files.tree(".", v),
        search: (v) => g.files.search(v),
        shell: (v) => g.shell.shell(v),
        shellOptions: (v) => g.shell.shell("echo hi", v),
      };
      const out: Record<string, Outcome> = {};
      for (const [value, make] of Object.entries(values)) for (const [call, fn] of Object.entries(calls)) out[value + " " + call] = await outcome(() => fn(make()));
      return out;`);
    const outcomes = Object.entries(report.result as Record<string, Outcome>);
    expect(outcomes).toHaveLength(45);
    for (const [name, result] of outcomes) {
      // Nesting overflows the guest's stack somewhere near 5,000 levels, depending on the stack below the call: short
      // of it, the value crosses and the host refuses it as the wrong type.
      const refusal = name.startsWith("deep") ? /^Cannot call gg\.(files|shell)\.\w+: / : /^Cannot call gg\.(files|shell)\.\w+: its arguments cannot be sent as JSON \(.+\); pass plain data/;
      expect({ name, result }).toEqual({ name, result: { kind: "gg-error", code: "invalid-argument", message: expect.stringMatching(refusal) } });
      expect((result as { message: string }).message.length).toBeLessThan(600);
    }
    // Each is listed as a failed call, though it never reached the host's files or commands.
    expect(report.calls).toHaveLength(45);
    expect(report.calls.every((call) => call.code === "invalid-argument")).toBe(true);
    expect(readdirSync(ws.root)).toEqual(["a.txt"]);
    await expectEngineStillWorks(ws);
  });

  test("an unserialisable argument the program does not catch ends the run with invalid-argument, not a plain TypeError", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run("const cyclic: any = {}; cyclic.self = cyclic; await gg.shell.shell('echo', cyclic as never);");
    expect(report.ok).toBe(false);
    expect(report.error).toMatchObject({ code: "invalid-argument", message: expect.stringContaining("Cannot call gg.shell.shell: its arguments cannot be sent as JSON (TypeError: Converting circular structure to JSON") });
    await expectEngineStillWorks(ws);
  });

  test("a 70 MB string argument is refused with invalid-argument (or stops the run at its memory limit), and nothing is written", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      const huge = "x".repeat(70 * 1024 * 1024);
      return await outcome(() => g.files.writeFile("big.txt", huge));`);
    if (report.ok) {
      expect(report.result).toMatchObject({ kind: "gg-error", code: "invalid-argument", message: expect.stringContaining("over the") });
      expect(report.calls).toEqual([expect.objectContaining({ name: "files.writeFile", ok: false, code: "invalid-argument" })]);
      expect(report.calls[0]?.args.length).toBeLessThanOrEqual(303);
    } else {
      expect(report.error?.code).toBe("memory-limit");
    }
    expect(readdirSync(ws.root)).toEqual([]);
    await expectEngineStillWorks(ws);
  });

  test("100,000-deep arrays and objects overflow the guest's stack while serialising: refused with invalid-argument", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      let array: any = []; for (let i = 0; i < 100000; i++) array = [array];
      let object: any = {}; for (let i = 0; i < 100000; i++) object = { a: object };
      return [await outcome(() => g.files.readFile(array)), await outcome(() => g.files.readFile("a.txt", { offset: object }))];`);
    expect(report.result).toEqual([unsent("RangeError: Maximum call stack size exceeded)"), unsent("RangeError: Maximum call stack size exceeded)")]);
    expect(report.calls.map((call) => call.code)).toEqual(["invalid-argument", "invalid-argument"]);
    await expectEngineStillWorks(ws);
  });

  test("a deep value the guest can serialise crosses to the host and is refused there, its record cut at 300 characters", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      let deep: any = 1; for (let i = 0; i < 2000; i++) deep = [deep];
      return [await outcome(() => g.files.readFile(deep)), await outcome(() => g.files.readFile("a.txt", { offset: deep })), await outcome(() => g.files.readFile("a.txt", { extra: deep }))];`);
    expect(report.result).toEqual([expect.objectContaining(invalid), expect.objectContaining(invalid), expect.objectContaining(invalid)]);
    expect(report.calls).toHaveLength(3);
    for (const call of report.calls) expect(call.args.length).toBeLessThanOrEqual(303);
  });

  test("sparse arrays: holes arrive as null, so extra positions are too many arguments and holes in values are refused", async () => {
    using ws = engineWorkspace({ keepState: true });
    ws.put({ "a.txt": "alpha\n" });
    const report = await ws.run(`${OUTCOME}
      const holes: any[] = []; holes[3] = "a.txt";
      const trailing: any[] = ["a.txt"]; trailing.length = 5;
      const huge: any[] = []; huge.length = 2 ** 32 - 1;
      return {
        holes: await outcome(() => g.files.readFile.apply(null, holes)),
        trailing: await outcome(() => g.files.readFile.apply(null, trailing)),
        inValue: await outcome(() => g.files.readFile("a.txt", { offset: [, 1] })),
        onlyHoles: await outcome(() => g.files.readFile(...[, ,])),
        hugeApply: await outcome(() => g.files.readFile.apply(null, huge)),
      };`);
    expect(report.result).toEqual({
      holes: expect.objectContaining(invalid),
      // Trailing undefined arguments are dropped before crossing, so this is an ordinary read.
      trailing: { kind: "ok", value: "alpha\n" },
      inValue: expect.objectContaining(invalid),
      onlyHoles: expect.objectContaining(invalid),
      hugeApply: expect.objectContaining({ kind: "guest-error", name: "RangeError" }),
    });
    expect(report.calls.map((call) => call.args)).toEqual(['[null,null,null,"a.txt"]', '["a.txt"]', '["a.txt",{"offset":[null,1]}]', "[]"]);
  });

  test("a sparse array too long to serialise is refused with invalid-argument, or stops the run at its memory limit", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      const sparse: any[] = []; sparse.length = 2 ** 30;
      return await outcome(() => g.files.readFile("a.txt", { offset: sparse }));`, { limits: { memoryMb: 64, budgetSecs: 20 } });
    if (report.ok) {
      expect(report.result).toMatchObject(unsent("RangeError: "));
      expect(report.calls.map((call) => call.code)).toEqual(["invalid-argument"]);
    } else {
      expect(report.error?.code).toBe("memory-limit");
      expect(report.calls).toEqual([]);
    }
    await expectEngineStillWorks(ws);
  });

  test("__proto__ and constructor keys stay plain keys: the host refuses them as unknown parameters, and nothing outside the workspace is written", async () => {
    using ws = engineWorkspace({ keepState: true });
    using outside = outsideDir();
    ws.put({ "a.txt": "alpha\n" });
    const target = JSON.stringify(join(outside.path, "pwned.txt"));
    const report = await ws.run(`${OUTCOME}
      return {
        readProto: await outcome(() => g.files.readFile(undefined, JSON.parse('{"__proto__": {"path": "/etc/passwd"}}'))),
        readProtoOffset: await outcome(() => g.files.readFile("a.txt", JSON.parse('{"__proto__": {"offset": 2}}'))),
        writeProto: await outcome(() => g.files.writeFile(undefined, undefined, JSON.parse('{"__proto__": {"path": ${JSON.stringify(target).slice(1, -1)}, "content": "pwned"}}'))),
        writeConstructor: await outcome(() => g.files.writeFile("w.txt", "x", JSON.parse('{"constructor": {"prototype": {"path": ${JSON.stringify(target).slice(1, -1)}}}}'))),
        nullProto: await outcome(() => g.files.readFile(undefined, { __proto__: null, path: "a.txt" })),
        literalProto: await outcome(() => g.files.readFile(undefined, { __proto__: { path: "/etc/passwd" } })),
      };`);
    const result = report.result as Record<string, Outcome>;
    expect(result.readProto).toMatchObject({ ...invalid, message: expect.stringContaining('unknown parameter "__proto__"') });
    expect(result.readProto).not.toMatchObject({ message: expect.stringContaining("root:") });
    expect(result.readProtoOffset).toMatchObject({ ...invalid, message: expect.stringContaining('"__proto__"') });
    expect(result.writeProto).toMatchObject(invalid);
    expect(result.writeConstructor).toMatchObject({ ...invalid, message: expect.stringContaining('"constructor"') });
    expect(result.nullProto).toEqual({ kind: "ok", value: "alpha\n" });
    // A literal __proto__ sets the prototype, which JSON never sees: the options arrive empty and path is missing.
    expect(result.literalProto).toMatchObject(invalid);
    expect(readdirSync(outside.path)).toEqual([]);
    expect(readdirSync(ws.root).sort()).toEqual(["a.txt"]);
    // The host's own prototypes are untouched.
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("path");
    expect(({} as Record<string, unknown>).path).toBeUndefined();
  });

  test("every failed call in these traps carries a code from the closed set", async () => {
    using ws = engineWorkspace({ keepState: true });
    const report = await ws.run(`${OUTCOME}
      const attempts = [() => g.files.readFile({}), () => g.files.listDir(1), () => g.shell.shell(["ls"]), () => g.views.openFile(null), () => g.context.breakdown("x"), () => g.files.search({ query: 1 })];
      return Promise.all(attempts.map((fn) => outcome(fn)));`);
    const outcomes = report.result as Outcome[];
    expect(outcomes).toHaveLength(6);
    for (const result of outcomes) {
      expect(result.kind).toBe("gg-error");
      expect(CLOSED_CODES).toContain((result as { code: string }).code);
    }
  });
});
