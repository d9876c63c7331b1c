// A signal to gg's pid (SIGTERM, SIGINT, SIGHUP) ends gg with 128 + the signal's number and every command it started,
// whichever surface started it: a program (gg run, gg mcp's run_program, gg agent's code arm) or a tool call (gg call,
// gg mcp, gg agent's tools arm). Real processes: each command sleeps for a duration no other test uses, and the test
// looks for it after gg is gone.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants } from "node:os";
import { describe, expect, test } from "vitest";
import { survivors, uniqueSleep, within } from "../processes.ts";
import { call, fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

/** JSON-RPC lines that open an MCP session and call `tool` with `args`. */
const mcpCall = (tool: string, args: object): string =>
  [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: tool, arguments: args } },
  ].map((line) => `${JSON.stringify(line)}\n`).join("");

/** Starts gg on `workspace` with a command sleeping `marker` under way; `options.group` makes gg lead a process group. */
type Surface = (workspace: string, marker: string, options: { group?: boolean }) => Promise<{ gg: ChildProcess; done?: () => Promise<void> }>;

const start = (args: string[], workspace: string, group = false, input?: string): ChildProcess => {
  const gg = spawn(process.execPath, [bin, ...args, "--workspace", workspace], { stdio: [input === undefined ? "ignore" : "pipe", "ignore", "ignore"], detached: group });
  if (input !== undefined) gg.stdin?.write(input);
  return gg;
};

/** A model catalog naming the model "m", so gg agent needs no network to learn about it. */
const catalog = (workspace: string): string => {
  const file = join(workspace, "catalog.json");
  writeFileSync(file, JSON.stringify({ source: "test", fetched: "2026-12-01", models: [{ id: "m", context_length: 100000, input_modalities: ["text"] }] }));
  return file;
};

const SURFACES: Record<string, Surface> = {
  "gg run, a program's command": async (workspace, marker, { group }) => {
    writeFileSync(join(workspace, "sleep.js"), `await gg.shell.shell("sleep ${marker}");\nreturn 1;\n`);
    return { gg: start(["run", join(workspace, "sleep.js"), "--budget", "600"], workspace, group) };
  },
  "gg mcp, run_program's command": async (workspace, marker, { group }) => ({ gg: start(["mcp"], workspace, group, mcpCall("run_program", { source: `await gg.shell.shell("sleep ${marker}")`, budget: 600 })) }),
  "gg mcp, the shell tool's command": async (workspace, marker, { group }) => ({ gg: start(["mcp"], workspace, group, mcpCall("shell", { command: `sleep ${marker}` })) }),
  "gg call shell": async (workspace, marker, { group }) => ({ gg: start(["call", "shell", JSON.stringify({ command: `sleep ${marker}` })], workspace, group) }),
  "gg agent, the tools arm's shell call": async (workspace, marker, { group }) => {
    const server = await fakeModel(() => ({ tool_calls: [call("a", "shell", { command: `sleep ${marker}` })] }));
    const gg = start(["agent", "--model", "m", "--arm", "tools", "--task", "sleep", "--base-url", server.baseURL, "--catalog", catalog(workspace)], workspace, group);
    return { gg, done: () => server[Symbol.asyncDispose]() };
  },
  "gg agent, the code arm's program": async (workspace, marker, { group }) => {
    const server = await fakeModel(() => ({ content: `\`\`\`js\nawait gg.shell.shell("sleep ${marker}");\n\`\`\`` }));
    const gg = start(["agent", "--model", "m", "--arm", "code", "--task", "sleep", "--base-url", server.baseURL, "--catalog", catalog(workspace), "--budget", "600"], workspace, group);
    return { gg, done: () => server[Symbol.asyncDispose]() };
  },
};

/** SIGKILLs what a failed test may have left: gg, and the processes of its command (found by their marker). */
function reap(gg: ChildProcess, marker: string): void {
  if (gg.exitCode === null && gg.signalCode === null) gg.kill("SIGKILL");
  for (const line of survivors(marker)) process.kill(Number(line.split(" ")[0]), "SIGKILL");
}

/**
 * Starts `surface`, sends `signal` (to gg's pid, or to its process group) once its command runs, and waits for gg's
 * exit: its status, and whether every process of the command was gone within 10 s.
 */
async function signalled(surface: Surface, signal: NodeJS.Signals, to: "pid" | "group"): Promise<{ status: number | string | null; left: string[] }> {
  using ws = tempWorkspace();
  const marker = uniqueSleep();
  const { gg, done } = await surface(ws.root, marker, { group: to === "group" });
  try {
    const exited = new Promise<number | string | null>((resolve) => gg.once("exit", (code, sig) => resolve(code ?? sig)));
    // sh and sleep both up: the command is under way.
    expect(await within(60, () => survivors(marker).length >= 2)).toBe(true);
    if (to === "pid") gg.kill(signal);
    else process.kill(-(gg.pid as number), signal);
    const status = await exited;
    await within(60, () => survivors(marker).length === 0);
    return { status, left: survivors(marker) };
  } finally {
    reap(gg, marker);
    await done?.();
  }
}

describe.concurrent("a signal to gg's pid ends gg and every command it started", () => {
  for (const [name, surface] of Object.entries(SURFACES)) {
    test.for(SIGNALS)(`${name}: %s`, async (signal) => {
      expect(await signalled(surface, signal, "pid")).toEqual({ status: 128 + constants.signals[signal], left: [] });
    });
  }
});

describe("Ctrl-C (SIGINT to gg's process group)", () => {
  test.for(["gg run, a program's command", "gg mcp, run_program's command"])("%s: the command ends with gg, whichever process sees the signal first", async (name) => {
    // gg and its runner both get the signal: gg must not kill the runner before the runner has stopped its commands.
    for (let round = 0; round < 3; round++) expect(await signalled(SURFACES[name] as Surface, "SIGINT", "group")).toEqual({ status: 130, left: [] });
  });
});

/** True while `pid` runs: not gone, and not a zombie waiting to be reaped. */
function running(pid: string): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return false;
  }
}

describe("a runner whose thread a program holds", () => {
  test("ends with gg all the same: a signal to gg stops it after the grace", async () => {
    using ws = tempWorkspace();
    // Until its first wait on a command, a program runs on the runner's main thread, where no signal handler runs.
    writeFileSync(join(ws.root, "spin.js"), "await gg.files.writeFile('spinning', 'x');\nfor (;;) {}\n");
    const gg = start(["run", join(ws.root, "spin.js"), "--budget", "600"], ws.root);
    const exited = new Promise<number | string | null>((resolve) => gg.once("exit", (code, sig) => resolve(code ?? sig)));
    expect(await within(60, () => existsSync(join(ws.root, "spinning")))).toBe(true);
    const runner = spawnSync("pgrep", ["-P", String(gg.pid), "-f", "runner"], { encoding: "utf8" }).stdout.trim();
    try {
      expect(runner).toMatch(/^\d+$/);
      gg.kill("SIGTERM");
      expect(await exited).toBe(143);
      expect(await within(60, () => !running(runner))).toBe(true);
    } finally {
      // A failure leaves no spinning runner behind.
      if (gg.exitCode === null && gg.signalCode === null) gg.kill("SIGKILL");
      if (/^\d+$/.test(runner) && running(runner)) process.kill(Number(runner), "SIGKILL");
    }
  });
});

/** Starts gg with `args` on `workspace`, its stdout and stderr kept as they come. */
function watched(args: string[], workspace: string) {
  const gg = spawn(process.execPath, [bin, ...args, "--workspace", workspace], { stdio: ["ignore", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  gg.stdout?.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  gg.stderr?.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) => gg.once("exit", (code, sig) => resolve(code ?? sig)));
  return { gg, output, exited };
}

describe("Ctrl-C says what the run did", () => {
  test("gg run: a log shows while the program runs; SIGINT prints the cancelled line with the calls made, exit 130, the command stopped", async () => {
    using ws = tempWorkspace();
    const marker = uniqueSleep();
    writeFileSync(join(ws.root, "p.js"), `console.log("starting");\nawait gg.files.writeFile("a.txt", "x");\nawait gg.shell.shell("sleep ${marker}");\nconsole.log("never");\n`);
    const { gg, output, exited } = watched(["run", join(ws.root, "p.js"), "--budget", "600"], ws.root);
    try {
      expect(await within(20, () => survivors(marker).length >= 2)).toBe(true);
      // Streamed: printed before the program ended.
      expect(await within(10, () => output.stdout.includes("starting\n"))).toBe(true);
      gg.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(output.stdout).toBe("starting\n");
      expect(output.stderr).toMatch(/^gg: error\[cancelled\]: The run was cancelled by Ctrl-C \(SIGINT\), after 2 gg calls: files\.writeFile ok, shell\.shell unfinished; the commands it started were stopped\n$/);
      expect(await within(10, () => survivors(marker).length === 0)).toBe(true);
    } finally {
      reap(gg, marker);
    }
  });

  test("gg agent: SIGINT while the model has not answered says so; nothing billed, exit 130", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel(["hold"]);
    const { gg, output, exited } = watched(["agent", "--model", "m", "--arm", "code", "--task", "wait", "--base-url", server.baseURL, "--catalog", catalog(ws.root)], ws.root);
    try {
      expect(await within(20, () => server.requests.length === 1)).toBe(true);
      gg.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(output.stderr).toMatch(/^run {5}0 turns in [\d.]+ s\ncalls {3}none\nfiles {3}none changed\ntokens {2}none billed\n/);
      expect(output.stderr).toContain("gg: error[cancelled]: The run was cancelled by Ctrl-C (SIGINT) in turn 1, waiting for the model; ");
    } finally {
      if (gg.exitCode === null && gg.signalCode === null) gg.kill("SIGKILL");
    }
  });

  test("gg agent: SIGINT prints the summary so far and ends the transcript with a cancelled end record, exit 130", async () => {
    using ws = tempWorkspace();
    const marker = uniqueSleep();
    await using server = await fakeModel(() => ({ tool_calls: [call("a", "shell", { command: `sleep ${marker}` })] }));
    const transcript = join(ws.root, "runs", "x.jsonl");
    const { gg, output, exited } = watched(["agent", "--model", "m", "--arm", "tools", "--task", "sleep", "--base-url", server.baseURL, "--catalog", catalog(ws.root), "--transcript", transcript], ws.root);
    try {
      expect(await within(20, () => survivors(marker).length >= 2)).toBe(true);
      gg.kill("SIGINT");
      expect(await exited).toBe(130);
      // Turn 1's request was answered (and billed) before its shell call was cut short: it counts. gg's own transcript
      // is no file the run changed.
      expect(output.stderr).toMatch(/^run {5}1 turn in [\d.]+ s\ncalls {3}none\nfiles {3}none changed\ntokens {2}billed 110: 100 in, 10 out; entered [\d,]+ in \(gg's estimate\)\n/m);
      expect(output.stderr).toContain("gg: error[cancelled]: The run was cancelled by Ctrl-C (SIGINT) while turn 1's answer was carried out; the commands it started were stopped, and the summary counts the calls that had ended\n");
      const last = JSON.parse(readFileSync(transcript, "utf8").trim().split("\n").at(-1) as string) as { type: string; report: { ok: boolean; error: { code: string } } };
      expect(last).toMatchObject({ type: "end", report: { ok: false, error: { code: "cancelled" }, turns: [{ turn: 1, usage: { promptTokens: 100, completionTokens: 10 }, calls: 1 }] } });
      expect(await within(10, () => survivors(marker).length === 0)).toBe(true);
    } finally {
      reap(gg, marker);
    }
  });
});
