// What the in-process benchmarks share: timing a call after its warm-ups, the median of the times, and what /proc
// tells of a runtime's runner processes (their memory and CPU time).
import { readdirSync, readFileSync } from "node:fs";

/** The middle value (the upper one of an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The wall times in ms of `runs` calls of `fn`, after `warmups` untimed ones. */
export async function timings(fn: () => Promise<unknown>, runs: number, warmups: number): Promise<number[]> {
  for (let i = 0; i < warmups; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}

/** The runners of this process's runtimes (children running runner.{ts,mjs}), oldest first. */
export function runnerPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === process.pid && readFileSync(`/proc/${name}/cmdline`, "utf8").includes("runner")) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids.sort((a, b) => a - b);
}

/** A process's resident memory now and at its peak, in MiB. */
export function memoryMib(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** The CPU time a process has used, user and system, in ms (at the kernel's 10 ms tick). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * A 100-line program that uses the typed results of gg's calls, varied by `variant` so no check can reuse another's:
 * what the type-checking benchmarks check.
 */
export function checkedProgram(variant: number): string {
  const lines = [`const limit = ${variant};`, "const found = await gg.files.search('file', { limit: 10 });", "const byPath = new Map<string, number[]>();"];
  for (let i = 0; lines.length < 97; i++) {
    lines.push(
      `for (const match of found.matches.filter((m) => m.line > ${i % 3})) byPath.set(match.path, [...(byPath.get(match.path) ?? []), match.line + ${i}]);`,
      `const summary${i}: { path: string; count: number }[] = [...byPath].map(([path, found${i}]) => ({ path, count: found${i}.length }));`,
      `if (summary${i}.length > limit + ${i}) console.log(summary${i}.map((entry) => entry.path.toUpperCase()).join(","));`,
    );
  }
  lines.push("const listed = (await gg.files.listDir('small')).entries.filter((entry) => entry.kind === 'file');", "return listed.length + byPath.size;");
  return lines.slice(0, 100).join("\n");
}
