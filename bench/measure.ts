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
