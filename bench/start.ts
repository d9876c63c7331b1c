// Benchmark: how soon the README's first command answers, `bin/gg call tree '{"depth":1}'` on this repository, as
// whole processes: ms to its first byte of output and to its exit, median of RUNS, the variants alternated. Cold: V8's
// compile cache (which bin/gg.js enables, under the temp folder) emptied before each run, as no build has warmed it;
// warm: kept, as after a build (scripts/build.ts runs the new CLI once) or any earlier call. Also `node bin/gg.js`
// under the machine's older Node when there is one (the hand-over to the pinned Node), and `node -e 0` for Node's own
// start. Runs use a private temp folder, so the machine's cache is left alone.
// Rerun: `npm run build && node bench/start.ts`. Env: GG_BENCH_START_RUNS (default 15).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_START_RUNS ?? 15);
const ROOT = join(import.meta.dirname, "..");
const ARGS = ["call", "tree", '{"depth":1}'];

if (!existsSync(join(ROOT, "dist", "main.mjs"))) {
  console.error("bench: dist/ is missing; run npm run build first");
  process.exit(1);
}

const temp = mkdtempSync(join(tmpdir(), "gg-bench-start-"));
process.on("exit", () => rmSync(temp, { recursive: true, force: true }));

interface Variant {
  label: string;
  command: string[];
  cold: boolean;
  first: number[];
  exit: number[];
}

/** One run of `variant`: ms to its first output byte (its exit when it prints nothing) and to its exit. */
function once(variant: Variant): Promise<void> {
  if (variant.cold) rmSync(join(temp, "node-compile-cache"), { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first: number | undefined;
    const [command, ...args] = variant.command as [string, ...string[]];
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, TMPDIR: temp } });
    const mark = (): void => void (first ??= performance.now() - started);
    child.stdout.on("data", mark);
    child.stderr.on("data", mark);
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${variant.command.join(" ")} exited ${code}`));
      const exit = performance.now() - started;
      variant.first.push(first ?? exit);
      variant.exit.push(exit);
      resolve();
    });
  });
}

const variants: Variant[] = [];
const add = (label: string, command: string[], cold: boolean): number => variants.push({ label, command, cold, first: [], exit: [] });
add("bin/gg, cold compile cache", [join(ROOT, "bin", "gg"), ...ARGS], true);
add("bin/gg, warm", [join(ROOT, "bin", "gg"), ...ARGS], false);
// The Node on PATH, when it is not the pinned one: bin/gg.js hands over to the pinned Node.
const pathNode = spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8", env: { ...process.env, PATH: (process.env.PATH ?? "").split(":").filter((dir) => !dir.includes("node_modules")).join(":") } }).stdout.trim();
const pathVersion = pathNode === "" ? "" : spawnSync(pathNode, ["--version"], { encoding: "utf8" }).stdout.trim();
if (pathVersion !== "" && pathVersion !== process.version) add(`node ${pathVersion} bin/gg.js, warm`, [pathNode, join(ROOT, "bin", "gg.js"), ...ARGS], false);
add(`node ${process.version} -e 0`, [process.execPath, "-e", "0"], false);

// One untimed run each fills the warm variants' cache.
for (const variant of variants) await once(variant);
for (const variant of variants) variant.first.length = variant.exit.length = 0;
for (let run = 0; run < RUNS; run++) for (const variant of variants) await once(variant);

console.log(`gg ${ARGS.join(" ")} in ${ROOT}, ${RUNS} runs each, alternated\n`);
console.log("| variant | first output ms | exit ms | fastest exit ms |\n|---|---|---|---|");
for (const variant of variants) {
  console.log(`| ${variant.label} | ${median(variant.first).toFixed(0)} | ${median(variant.exit).toFixed(0)} | ${Math.min(...variant.exit).toFixed(0)} |`);
}
