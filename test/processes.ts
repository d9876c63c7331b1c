// Test fixture: commands that name themselves, so a test finds what it left running and nothing another test (or
// another copy of the suite) started.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
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

/** Whether process `pid` runs (a zombie no one reaped has ended). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z");
  } catch {
    return false;
  }
}

/**
 * Runs `command` to its end with `typed` on its stdin and no provider key in its environment, keeping this process's
 * event loop free (for a fake model it serves); its status and output whole.
 */
export function finished(command: string, args: readonly string[], typed = ""): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { env: { ...process.env, GG_API_KEY: "", OPENAI_API_KEY: "" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(typed);
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}
