import { test } from "vitest";
import { engineWorkspace } from "../engine.ts";
const progs: [string, string][] = [
  ["late-async", `(async () => { await gg.files.listDir(); throw new Error('late'); })(); return 1;`],
  ["pending-read-nowait", `gg.files.readFile('missing'); return 1;`],
  ["pending-read-nowait-work", `gg.files.readFile('missing'); let s = 0; for (let i = 0; i < 1e7; i++) s += i; return 1;`],
  ["pending-read-nowait-await", `gg.files.readFile('missing'); await gg.files.listDir(); return 1;`],
];
test("explore", async () => {
  using ws = engineWorkspace();
  for (const [name, src] of progs) {
    const out: string[] = [];
    for (let i = 0; i < 8; i++) { const r = await ws.run(src, { limits: { budgetSecs: 10 } }); out.push(r.ok ? 'ok' : r.error!.code + ':' + r.error!.message.slice(0, 20)); }
    console.log(name, out.join(' | '));
  }
}, 60000);
