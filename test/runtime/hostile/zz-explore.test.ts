import { test } from "vitest";
import { engineWorkspace } from "../engine.ts";

const progs: [string, string][] = [
  ["fn", `const out: any = {};
  const t = (k: string, f: () => unknown) => { try { out[k] = typeof f(); } catch (e: any) { out[k] = 'threw ' + e?.name + ': ' + e?.message; } };
  t('Function process', () => Function('return typeof process')());
  t('arrow this', () => (() => {}).constructor('return this')());
  t('gthis keys', () => 0);
  out.keys = Object.getOwnPropertyNames((() => {}).constructor('return this')());
  t('readFile ctor', () => (gg.files.readFile as any).constructor('return typeof process')());
  t('globalThis.constructor.constructor', () => (globalThis as any).constructor.constructor('return this')());
  try { await import('node:fs'); out.imp = 'ok'; } catch (e: any) { out.imp = 'threw ' + e?.name + ': ' + e?.message; }
  out.req = typeof (globalThis as any).require;
  return out;`],
  ["pst", `Error.prepareStackTrace = (err, frames) => frames.map(f => [typeof f.getThis(), f.getTypeName(), typeof f.getFunction(), f.getFunctionName(), f.getFileName()]);
   const out: any[] = [];
   try { await gg.files.readFile('missing'); } catch (e: any) { out.push(e.stack); }
   try { await (gg.files.readFile as any)({get path() { throw new Error('in getter'); }}); } catch (e: any) { out.push(e.stack); }
   return out;`],
  ["sab", `return [typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly];`],
];

test("explore", async () => {
  using ws = engineWorkspace();
  for (const [name, src] of progs) {
    const r = await ws.run(src, { limits: { budgetSecs: 3 } });
    console.log(name, JSON.stringify({ ok: r.ok, result: r.result, error: r.error, calls: r.calls }, null, 1));
  }
});
