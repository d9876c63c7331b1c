// Benchmark: gg mcp under large bad input, raw lines into its stdin. For each line, the time until its answer and the
// server's peak resident memory (VmHWM) after it: a 16 MiB line of garbage (refused), a 16 MiB write_file (handled),
// a line of 64 MiB, twice the limit (answered as it streams in and skipped: the peak must not grow by its size).
// Goal: every line answered, the server alive after them, peak memory below 256 MiB.
// Rerun: `node bench/mcp_input.ts`.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const MIB = 1024 * 1024;
const workspace = mkdtempSync(join(tmpdir(), "gg-bench-mcp-input-"));
const child = spawn(process.execPath, [new URL("../bin/gg.js", import.meta.url).pathname, "mcp", "--workspace", workspace], { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map<string | null, (message: { error?: { code: number } }) => void>();
createInterface({ input: child.stdout }).on("line", (line) => {
  const message = JSON.parse(line) as { id: string | null; error?: { code: number } };
  waiting.get(message.id)?.(message);
  waiting.delete(message.id);
});

/** Writes `line` and resolves with the answer to `id` and the ms it took. */
const answered = (line: string, id: string | null): Promise<[{ error?: { code: number } }, number]> =>
  new Promise((resolve) => {
    const started = performance.now();
    waiting.set(id, (message) => resolve([message, performance.now() - started]));
    child.stdin.write(`${line}\n`);
  });

const peakMib = (): number => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const request = (id: string, method: string, params: unknown): string => JSON.stringify({ jsonrpc: "2.0", id, method, params });

try {
  await answered(request("warm", "tools/list", {}), "warm");
  const rows: [string, string, number, number][] = [];
  const before = peakMib();
  for (const [name, line, id] of [
    ["16 MiB of garbage", "x".repeat(16 * MIB), null],
    ["16 MiB write_file", request("write", "tools/call", { name: "write_file", arguments: { path: "big.txt", content: "z".repeat(16 * MIB) } }), "write"],
    ["64 MiB line (over the 32 MiB limit)", " ".repeat(64 * MIB), null],
    ["tools/list after them", request("after", "tools/list", {}), "after"],
  ] as const) {
    const [message, ms] = await answered(line, id);
    rows.push([name, message.error ? `error ${message.error.code}` : "result", ms, peakMib()]);
  }
  console.log("## gg mcp under large bad input (raw lines over stdio)\n");
  console.log(`| line | answer | ms | server peak RSS MiB |\n| --- | --- | ---: | ---: |\n| (after start) | | | ${before.toFixed(0)} |`);
  for (const [name, answer, ms, peak] of rows) console.log(`| ${name} | ${answer} | ${ms.toFixed(0)} | ${peak.toFixed(0)} |`);
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}; node ${process.version}`);
  console.log("reproduce: node bench/mcp_input.ts (part of npm run bench)");
} finally {
  child.kill();
  rmSync(workspace, { recursive: true, force: true });
}
