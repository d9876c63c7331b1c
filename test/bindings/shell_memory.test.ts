import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { deepOr } from "../deep.ts";

const SHELL = fileURLToPath(new URL("../../bindings/shell.ts", import.meta.url));
// 1 GiB in the deep run, half of it in the quick one: either is past what the bound would hold were it kept.
const GIB = deepOr(1024 * 1024 * 1024, 512 * 1024 * 1024);

// Its own process, so the peak memory measured is the call's alone.
test(`a command printing ${GIB / 1024 ** 2} MiB is streamed to disk with memory that stays flat`, () => {
  const script = `
    import { statSync, rmSync } from "node:fs";
    import { execute } from ${JSON.stringify(SHELL)};
    const result = await execute("head -c ${GIB} /dev/zero | tr '\\\\0' a | fold -w 99", {
      cwd: "/tmp", policy: { mode: "offload", maxLines: 200, maxChars: 8000 }, agent: "memtest",
    });
    const size = statSync(result.files.stdout).size;
    rmSync(result.files.stdout);
    rmSync(result.files.stderr);
    console.log(JSON.stringify({ size, truncated: result.truncated, head: result.output.split("\\n").slice(-6), maxRssKb: process.resourceUsage().maxRSS }));
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  const report = JSON.parse(run.stdout) as { size: number; truncated: boolean; head: string[]; maxRssKb: number };
  // fold adds a newline after every 99 characters.
  expect(report.size).toBe(GIB + Math.floor(GIB / 99));
  expect(report.truncated).toBe(true);
  expect(report.head[0]).toBe("[Output truncated: last 8000 chars]");
  expect(report.head[2]).toBe(`  ${(Math.ceil(GIB / 99)).toLocaleString("en-US").replaceAll(",", "")} lines; line length p50 99, p95 99, p99 99`);
  expect(report.maxRssKb).toBeLessThan(300 * 1024);
});
