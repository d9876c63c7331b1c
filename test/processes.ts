// Test fixture: commands that name themselves, so a test finds what it left running and nothing another test (or
// another copy of the suite) started.
import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";

let made = 0;

/** A `sleep` duration no other test uses: about 1000 s, its fraction unique to this process and call. */
export const uniqueSleep = (): string => `1000.${process.pid}${String(++made).padStart(3, "0")}`;

/** Processes whose command line contains `marker`, as pgrep lists them (pid and command). */
export function survivors(marker: string): string[] {
  const found = spawnSync("pgrep", ["-af", marker.replaceAll(".", "\\.")], { encoding: "utf8" }).stdout;
  return found.split("\n").filter((line) => line !== "" && !line.includes("pgrep"));
}

/** Polls `probe` every 50 ms for up to `seconds` (generous: a loaded machine is slow to start and end processes); true when it held. */
export async function within(seconds: number, probe: () => boolean): Promise<boolean> {
  for (const until = Date.now() + seconds * 1000; Date.now() < until; await sleep(50)) if (probe()) return true;
  return probe();
}

/** A bound on one MCP tool call in tests, as vitest's on a test: the SDK's default, 60 s, is short of a loaded machine's. */
export const CALL_TIMEOUT_MS = 300_000;
