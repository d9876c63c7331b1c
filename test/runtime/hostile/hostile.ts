// Shared pieces of the hostile-program tests: the closed set of codes, host-side tripwires, and a guest-side walker
// that looks for isolated-vm objects in whatever a program can reach.
import { expect } from "vitest";
import { ERROR_CODES } from "../../../host/errors.ts";
import type { RunReport } from "../../../runtime/report.ts";
import type { EngineWorkspace } from "../engine.ts";

/** The codes a report may carry. */
export const CLOSED_CODES: readonly string[] = ERROR_CODES;

/** Asserts the report failed with a code from the closed set and a string message. */
export function expectClosedError(report: RunReport): void {
  expect(report.ok).toBe(false);
  expect(CLOSED_CODES).toContain(report.error?.code);
  expect(typeof report.error?.message).toBe("string");
}

/** Proves the engine is still usable after an attack: a fresh program runs, calls the host and returns. */
export async function expectEngineStillWorks(ws: EngineWorkspace): Promise<void> {
  ws.put({ "after-attack.txt": "still here\n" });
  const report = await ws.run("return [await gg.files.readFile('after-attack.txt'), typeof process, typeof require];");
  expect(report).toMatchObject({ ok: true, result: ["still here\n", "undefined", "undefined"] });
}

/** Host-process tripwires: every unhandledRejection and uncaughtException seen while installed. */
export function hostTripwires(): { seen: string[]; remove(): void } & Disposable {
  const seen: string[] = [];
  const onRejection = (reason: unknown): void => {
    seen.push(`unhandledRejection: ${String(reason)}`);
  };
  const onException = (error: unknown): void => {
    seen.push(`uncaughtException: ${String(error)}`);
  };
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  const remove = (): void => {
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  };
  return { seen, remove, [Symbol.dispose]: remove };
}

/** Samples this (host) process's resident set while `work` runs; returns its result and the growth in bytes. */
export async function withRssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growthBytes: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growthBytes: peak - base };
  } finally {
    clearInterval(sampler);
  }
}

/** A tiny WebAssembly module, hand-assembled: `(module (func (export "f") (loop (br 0))))`. */
export const WASM_INFINITE_LOOP = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type section: one type, () -> ()
  0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
  0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // export section: "f" -> function 0
  0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // code: loop (br 0) end end
];

/**
 * Guest JavaScript defining `findIvm(roots)`: walks everything reachable from `[path, value]` roots (own properties
 * by descriptor, so no getter runs; prototypes; accessor functions) and returns `{ visited, flagged }`, where flagged
 * lists the paths of anything that looks like an isolated-vm object: a Reference or ExternalCopy (their methods, or
 * their constructor's name) or a host Callback (a native function isolated-vm names after the host function's inferred,
 * dotted name).
 */
export const FIND_IVM = String.raw`
const findIvm = (roots) => {
  const IVM_CTORS = ["Reference", "ExternalCopy", "Callback", "Isolate", "Context", "Script", "NativeModule", "RemoteHandle"];
  const IVM_METHODS = ["applySync", "applySyncPromise", "applyIgnored", "derefInto", "copySync", "copyInto", "getSync", "setSync", "deleteSync"];
  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";
  const seen = new Set();
  const flagged = [];
  const queue = roots.slice();
  const ownName = (v) => {
    const d = Object.getOwnPropertyDescriptor(v, "name");
    return d && typeof d.value === "string" ? d.value : "";
  };
  const constructorName = (v) => {
    for (let o = v, depth = 0; o !== null && depth < 50; o = Object.getPrototypeOf(o), depth++) {
      const d = Object.getOwnPropertyDescriptor(o, "constructor");
      if (d) return d.value && typeof d.value === "function" ? ownName(d.value) : "";
    }
    return "";
  };
  while (queue.length > 0) {
    const [path, v] = queue.shift();
    if (!isObject(v) || seen.has(v)) continue;
    seen.add(v);
    try {
      const methods = IVM_METHODS.filter((m) => m in v);
      if (methods.length > 0) flagged.push(path + " has " + methods.join("+"));
      const ctor = constructorName(v);
      if (IVM_CTORS.includes(ctor)) flagged.push(path + " is a " + ctor);
      if (typeof v === "function") {
        const name = ownName(v);
        // isolated-vm names a Callback after the host function's inferred name ("ivm.Callback.ignored", "a.b.c"):
        // no builtin's name has a dot outside a [Symbol.x] part.
        const native = /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(v));
        const dotted = name.replace(/\[[^\]]*\]/g, "").includes(".");
        if (IVM_CTORS.includes(name) || /ivm|Callback|evalClosure/.test(name) || (native && dotted)) flagged.push(path + " is a function named " + name);
      }
      queue.push([path + ".__proto__", Object.getPrototypeOf(v)]);
      for (const key of Reflect.ownKeys(v)) {
        const d = Reflect.getOwnPropertyDescriptor(v, key);
        if (!d) continue;
        const at = path + "." + String(key);
        if ("value" in d) queue.push([at, d.value]);
        if (d.get) queue.push([at + "<get>", d.get]);
        if (d.set) queue.push([at + "<set>", d.set]);
      }
    } catch (error) {
      flagged.push(path + " could not be inspected: " + String(error));
    }
  }
  return { visited: seen.size, flagged };
};
`;
