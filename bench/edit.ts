// Benchmark: edits and writes where their cost once grew with the square of the input (issue 17, items 2 and 8), in
// process (createTools().call), on generated files: no corpus needed.
// 1. An ambiguous edit of a 30,000-line file (old "e", 90,000 occurrences), by edit_file and by batch edit; and 1 MiB
//    of "z" on one line with old "zz". Goal: <= 50 ms each (they took 17 to 26 s), the message bounded.
// 2. write_file beside 10,000 other files, where a write sweeps stale temp files: the median of a write, against the
//    same write in an empty directory.
// Medians of RUNS (default 15) after 3 warm-ups. Rerun: `node bench/edit.ts`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfiguration } from "../bindings/config.ts";
import { createTools } from "../bindings/index.ts";
import { median, timings } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 15);
const GOAL_MS = 50;
const root = mkdtempSync(join(tmpdir(), "gg-bench-edit-"));

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

try {
  writeFileSync(join(root, "lines.txt"), Array.from({ length: 30_000 }, (_, i) => `line ${i + 1} here\n`).join(""));
  writeFileSync(join(root, "z.txt"), "z".repeat(1 << 20));
  const classic = createTools({ workspace: root });
  const batch = createTools({ workspace: root, config: parseConfiguration([{ id: "edit-file", implementation: "batch" }]) });
  const cases: [string, () => ReturnType<typeof classic.call>][] = [
    ["edit_file, 30,000 lines, old \"e\"", () => classic.call("edit_file", { path: "lines.txt", old: "e", new: "E" })],
    ["batch edit, 30,000 lines, old \"e\"", () => batch.call("edit", { path: "lines.txt", edits: [{ old: "e", new: "E" }] })],
    ["edit_file, 1 MiB of z, old \"zz\"", () => classic.call("edit_file", { path: "z.txt", old: "zz", new: "y" })],
  ];
  console.log(`ambiguous edits, in process, medians of ${RUNS} (goal <= ${GOAL_MS} ms):`);
  for (const [label, call] of cases) {
    const result = await call();
    if (result.ok || result.error.code !== "ambiguous") fail(`${label} was not refused as ambiguous`);
    const ms = median(await timings(call, RUNS, 3));
    console.log(`  ${label.padEnd(36)} ${ms.toFixed(2).padStart(7)} ms, message ${result.error.message.length} characters${ms > GOAL_MS ? "  OVER THE GOAL" : ""}`);
  }

  mkdirSync(join(root, "crowded"));
  mkdirSync(join(root, "empty"));
  for (let i = 0; i < 10_000; i++) writeFileSync(join(root, "crowded", `f${i}.txt`), "");
  let n = 0;
  const write = (dir: string) => async () => {
    const result = await classic.call("write_file", { path: `${dir}/target.txt`, content: `write ${n++}\n` });
    if (!result.ok) fail(`write_file: ${result.error.message}`);
  };
  const crowded = median(await timings(write("crowded"), RUNS * 4, 3));
  const empty = median(await timings(write("empty"), RUNS * 4, 3));
  console.log(`write_file, medians of ${RUNS * 4}: beside 10,000 files ${crowded.toFixed(2)} ms, in an empty directory ${empty.toFixed(2)} ms`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
