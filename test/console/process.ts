// A real `gg console` for the console's tests: started on a free port in a folder, read until it prints its URL.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

/** The gg command of this checkout. */
export const GG = join(import.meta.dirname, "..", "..", "bin", "gg");

/** A running gg console: its process, the URL it printed, and that URL's parts. */
export interface RunningConsole {
  child: ChildProcess;
  url: string;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  token: string;
  /** What it wrote to stderr so far. */
  stderr(): string;
}

/** Starts `gg console --port 0 ARGS` in `cwd`; resolves once it printed its URL, rejects if it exits first. */
export function startGgConsole(cwd: string, args: string[]): Promise<RunningConsole> {
  const child = spawn(GG, ["console", "--port", "0", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes("\n")) return;
      const url = out.split("\n")[0] as string;
      const parsed = new URL(url);
      resolve({ child, url, base: parsed.origin, port: Number(parsed.port), token: parsed.searchParams.get("token") as string, stderr: () => err });
    });
    child.on("exit", (code) => reject(new Error(`gg console exited (${code}): ${err}`)));
  });
}
