// What the in-process benchmarks share: timing a call after its warm-ups, and the median of the times.

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
