// A sandbox asked for where none can start (no bwrap on the PATH): gg call's command is refused, naming what is
// missing and how to install it, and nothing runs unconfined; gg mcp and gg agent say so once, before any request.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { within } from "../processes.ts";
import { call, fakeModel } from "../provider.ts";
import { describeSandboxed, SANDBOX_CONFIG } from "../sandbox.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const WARNING = /^gg: the shell's sandbox \(workspace-write\) cannot start: bwrap \(bubblewrap\) is not installed or not on the PATH; install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap;.*every shell command will be refused, none runs unconfined$/m;

/** gg started with a PATH that holds no bwrap (an empty folder); what it printed so far stays readable while it runs. */
function ggWithoutBwrap(args: string[], root: string) {
  const empty = join(root, "no-bwrap");
  mkdirSync(empty, { recursive: true });
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, PATH: empty, GG_API_KEY: "k", OPENAI_API_KEY: "", OPENROUTER_API_KEY: "" } });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  const done = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, output, done };
}

describe("a sandbox that cannot start", () => {
  test("gg call shell refuses the command with launch-failed, naming bwrap and how to install it; nothing runs", async () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify(SANDBOX_CONFIG) });
    const gg = ggWithoutBwrap(["call", "--workspace", ws.root, "--config", join(ws.root, "gg.json"), "shell", JSON.stringify({ command: "echo ran > ran.txt" })], ws.root);
    expect(await gg.done).toBe(1);
    expect(gg.output.stdout + gg.output.stderr).toMatch(/error\[launch-failed\]: Cannot run the command: the shell's sandbox \(workspace-write\) cannot start: bwrap \(bubblewrap\) is not installed or not on the PATH; install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap;.*nothing was run/);
    expect(existsSync(join(ws.root, "ran.txt"))).toBe(false);
  });

  test("gg mcp says so once on stderr as it starts, before any request", async () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify(SANDBOX_CONFIG) });
    const gg = ggWithoutBwrap(["mcp", "--workspace", ws.root, "--config", join(ws.root, "gg.json")], ws.root);
    try {
      expect(await within(60, () => WARNING.test(gg.output.stderr))).toBe(true);
      expect(gg.output.stderr.match(new RegExp(WARNING, "gm"))).toHaveLength(1);
    } finally {
      gg.child.kill();
      await gg.done;
    }
  });

  test("gg agent says so once, before its first request, and the model's shell call is refused", async () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify(SANDBOX_CONFIG), "catalog.json": JSON.stringify({ source: "test", fetched: "2026-12-01", models: [{ id: "m", context_length: 100000, input_modalities: ["text"] }] }) });
    let warnedFirst: boolean | undefined;
    let requests = 0;
    let stderr = (): string => "";
    await using server = await fakeModel(() => {
      if (requests++ === 0) {
        warnedFirst = WARNING.test(stderr());
        return { tool_calls: [call("a", "shell", { command: "echo ran > ran.txt" })] };
      }
      return { content: "done" };
    });
    const gg = ggWithoutBwrap(["agent", "--model", "m", "--arm", "tools", "--task", "t", "--base-url", server.baseURL, "--workspace", ws.root, "--config", join(ws.root, "gg.json"), "--catalog", join(ws.root, "catalog.json")], ws.root);
    stderr = () => gg.output.stderr;
    expect(await gg.done).toBe(0);
    expect(warnedFirst).toBe(true);
    expect(gg.output.stderr.match(new RegExp(WARNING, "gm"))).toHaveLength(1);
    expect(existsSync(join(ws.root, "ran.txt"))).toBe(false);
  });
});

describeSandboxed("gg call shell in the sandbox", () => {
  test("runs the command confined, and --json says so: the workspace written, nothing outside it, secrets/ read-only", () => {
    using ws = tempWorkspace();
    using outside = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify(SANDBOX_CONFIG), "secrets/token.txt": "kept\n" });
    const command = `echo made > made.txt; echo x > ${outside.root}/x; printf 'echo pwned > secrets/token.txt' > w.sh; sh w.sh`;
    const printed = JSON.parse(execFileSync(process.execPath, [bin, "call", "--workspace", ws.root, "--config", join(ws.root, "gg.json"), "--json", "shell", JSON.stringify({ command })], { encoding: "utf8" }));
    expect(printed).toMatchObject({ ok: true, sandbox: "workspace-write", output: expect.stringContaining("Read-only file system") });
    expect(existsSync(join(ws.root, "made.txt"))).toBe(true);
    expect(existsSync(join(outside.root, "x"))).toBe(false);
    expect(readFileSync(join(ws.root, "secrets/token.txt"), "utf8")).toBe("kept\n");
  });
});
