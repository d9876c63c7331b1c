// Benchmark: gg console. First page ready: from spawning `bin/gg console --port 0` to its URL printed, and to the
// Configuration page rendered in headless Chromium with the parser's verdict shown (the first API answers included);
// a 5,000-turn run's page ready (its figures' first page shown) after navigating to it; and the static bundle's size,
// raw and gzipped. Medians of RUNS; Chromium is the system's, else the one @sparticuz/chromium ships (test/browser.ts).
// Rerun: `npm run build && node bench/console.ts`. Env: GG_BENCH_CONSOLE_RUNS (default 7).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { findChromium, launchChromium } from "../test/browser.ts";
import { writeCatalog, writeLongRun, writeRuns } from "../test/console/fixtures.ts";
import { median } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_CONSOLE_RUNS ?? 7);
const ROOT = join(import.meta.dirname, "..");
const build = /"\.\/(build-[\w-]+)\//.exec(existsSync(join(ROOT, "dist", "main.mjs")) ? readFileSync(join(ROOT, "dist", "main.mjs"), "utf8") : "")?.[1];
if (build === undefined) {
  console.error("bench: dist/ is missing; run npm run build first");
  process.exit(1);
}

const page = join(ROOT, "dist", build, "console-page");
const files = ["index.html", "app.js", "app.css"].map((name) => ({ name, bytes: readFileSync(join(page, name)) }));
const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
console.log("gg console's static bundle (dist/<build>/console-page/)\n");
console.log("| file | bytes | KiB gzipped |\n|---|---|---|");
for (const file of files) console.log(`| ${file.name} | ${file.bytes.length} | ${kib(gzipSync(file.bytes, { level: 9 }).length)} |`);
const total = files.reduce((sum, file) => sum + gzipSync(file.bytes, { level: 9 }).length, 0);
console.log(`| all | ${files.reduce((sum, file) => sum + file.bytes.length, 0)} | ${kib(total)} (goal ≤ 300) |\n`);

const temp = mkdtempSync(join(tmpdir(), "gg-bench-console-"));
process.on("exit", () => rmSync(temp, { recursive: true, force: true }));
mkdirSync(join(temp, "runs"));
await writeRuns(join(temp, "runs"));
writeLongRun(join(temp, "runs", "long.jsonl"), 5000);
writeCatalog(join(temp, "catalog.json"));

/** Starts gg console; resolves when it printed its URL. */
function start(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(join(ROOT, "bin", "gg"), ["console", "--port", "0", "--config", "gg.json", "--catalog", "catalog.json", "--runs", "runs"], { cwd: temp, stdio: ["ignore", "pipe", "ignore"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve({ child, url: out.split("\n")[0] as string });
    });
    child.on("exit", (code) => reject(new Error(`gg console exited ${code}`)));
  });
}

const browser = await launchChromium();
const times = { url: [] as number[], ready: [] as number[], long: [] as number[] };
for (let run = 0; run <= RUNS; run++) {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const started = performance.now();
  const { child, url } = await start();
  const printed = performance.now() - started;
  await tab.goto(url);
  await tab.getByText("The parser accepts this configuration.").waitFor();
  const ready = performance.now() - started;
  const navigated = performance.now();
  await tab.goto(`${url.slice(0, url.indexOf("/?"))}/#/runs/${encodeURIComponent("0/long.jsonl")}`);
  await tab.getByText("1–100 of 5000").first().waitFor();
  const long = performance.now() - navigated;
  await context.close();
  child.removeAllListeners("exit");
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  // The first run warms the compile cache and the browser: untimed.
  if (run === 0) continue;
  times.url.push(printed);
  times.ready.push(ready);
  times.long.push(long);
}
await browser.close();

console.log(`gg console in headless Chromium (${(await findChromium()).source}), ${RUNS} runs (after one untimed)\n`);
console.log("| measure | median ms | fastest ms |\n|---|---|---|");
console.log(`| start → URL printed | ${median(times.url).toFixed(0)} | ${Math.min(...times.url).toFixed(0)} |`);
console.log(`| start → Configuration page ready (goal ≤ 1000) | ${median(times.ready).toFixed(0)} | ${Math.min(...times.ready).toFixed(0)} |`);
console.log(`| 5,000-turn run page ready (goal ≤ 2000) | ${median(times.long).toFixed(0)} | ${Math.min(...times.long).toFixed(0)} |`);
