import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, test } from "vitest";
import { createTools } from "../../bindings/index.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { effectiveTimeoutMs, SHELL_MAX_TIMEOUT_SECS, type ShellResult } from "../../bindings/shell.ts";
import { uniqueSleep } from "../processes.ts";
import { engineWorkspace } from "../runtime/engine.ts";
import { tempWorkspace } from "../workspace.ts";

const created: string[] = [];
afterEach(() => {
  for (const file of created.splice(0)) rmSync(file, { force: true });
});

/** Details of a successful shell call; its offloaded files are removed after the test. */
async function shell(ws: ReturnType<typeof tempWorkspace>, args: object, config?: unknown) {
  const result = await ws.call("shell", args, config);
  if (!result.ok) throw new Error(`shell failed: error[${result.error.code}]: ${result.error.message}`);
  const details = result.data as ShellResult;
  if (details.files) created.push(details.files.stdout, details.files.stderr);
  return { text: result.text, ...details };
}

/** True while process `pid` exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

describe("shell", () => {
  test.each([0, 1, 42, 255])("passes exit code %i through as a result, not a failure", async (code) => {
    using ws = tempWorkspace();
    const result = await shell(ws, { command: `echo out; exit ${code}` });
    expect(result.exitCode).toBe(code);
    expect(result.text).toBe(`out\n[exit code: ${code}]`);
  });

  test("a command ended by a signal reports 128 + its number and the signal's name", async () => {
    using ws = tempWorkspace();
    const result = await shell(ws, { command: "kill -9 $$" });
    expect(result).toMatchObject({ exitCode: 137, signal: "SIGKILL" });
    expect(result.text).toBe("(no output)\n[exit code: 137 (SIGKILL)]");
  });

  test("runs in the workspace root with stdin closed", async () => {
    using ws = tempWorkspace();
    const result = await shell(ws, { command: "pwd; cat; echo done" });
    expect(result.output).toBe(`${ws.root}\ndone\n`);
  });

  test("merges stdout and stderr in arrival order", async () => {
    using ws = tempWorkspace();
    const result = await shell(ws, { command: "echo 1; sleep 0.05; echo 2 >&2; sleep 0.05; echo 3" });
    expect(result.output).toBe("1\n2\n3\n");
    expect(readFileSync(result.files?.stdout ?? "", "utf8")).toBe("1\n3\n");
    expect(readFileSync(result.files?.stderr ?? "", "utf8")).toBe("2\n");
  });

  test("stderr-only output comes back", async () => {
    using ws = tempWorkspace();
    expect((await shell(ws, { command: "echo only-err >&2; exit 2" })).text).toBe("only-err\n[exit code: 2]");
  });

  test("output that is not UTF-8 comes back with U+FFFD", async () => {
    using ws = tempWorkspace();
    expect((await shell(ws, { command: "printf 'a\\377\\376b\\n'" })).output).toBe("a\uFFFD\uFFFDb\n");
  });

  test("a timeout kills the whole group, also children that ignore SIGTERM, and fails the call with the output so far", async () => {
    using ws = tempWorkspace();
    const result = await ws.call("shell", { command: "trap '' TERM; echo started; echo $$ > sh.pid; sleep 1000 & echo $! > child.pid; wait", timeoutSecs: 0.5 });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
    const message = result.ok ? "" : result.error.message;
    expect(message).toContain("0.5 s timeout");
    expect(message).toContain("started");
    const files = [...message.matchAll(/\/tmp\/gg-shell\/\S+?\.(?:stdout|stderr)/g)].map((m) => m[0]);
    expect(files).toHaveLength(2);
    created.push(...files);
    expect(readFileSync(files[0] ?? "", "utf8")).toBe("started\n");
    for (const name of ["sh.pid", "child.pid"]) expect(alive(Number(readFileSync(join(ws.root, name), "utf8")))).toBe(false);
  });

  test("processes left running when sh exits are stopped, even one that ignores SIGTERM", async () => {
    using ws = tempWorkspace();
    const duration = uniqueSleep();
    const result = await shell(ws, { command: `(trap '' TERM; exec sleep ${duration}) & echo $! > bg.pid; (sleep ${duration} &) ; echo ok` });
    expect(result.output).toBe("ok\n");
    expect(alive(Number(readFileSync(join(ws.root, "bg.pid"), "utf8")))).toBe(false);
    const left = spawnSync("pgrep", ["-f", `^sleep ${duration.replaceAll(".", "\\.")}$`], { encoding: "utf8" }).stdout.trim();
    expect(left.split("\n").filter(Boolean).map(Number).filter(alive)).toEqual([]);
  });

  test("a command that ended within its timeout is not a timeout, though what it left behind takes longer to stop", async () => {
    using ws = tempWorkspace();
    // sh exits at once; its background job ignores SIGTERM, so stopping it takes the grace, past the timeout.
    const result = await ws.call("shell", { command: `(trap '' TERM; sleep ${uniqueSleep()}) & echo done`, timeoutSecs: 0.5 });
    expect(result).toMatchObject({ ok: true, data: { exitCode: 0, output: "done\n" } });
  });

  test("a command stopped by its caller is not a timeout, though its timeout falls while it is being stopped", async (context) => {
    using ws = tempWorkspace();
    const cancel = new AbortController();
    const started = performance.now();
    const call = createTools({ workspace: ws.root }).call("shell", { command: `trap '' TERM; touch ready; sleep ${uniqueSleep()}`, timeoutSecs: 0.9 }, cancel.signal);
    while (!existsSync(join(ws.root, "ready"))) await sleep(10);
    // sh and sleep ignore the stop's SIGTERM and are SIGKILLed after the grace (1 s): the timeout falls in between.
    cancel.abort();
    const late = performance.now() - started > 800;
    const result = await call;
    if (late) context.skip("the machine was too slow to stop the command before its timeout");
    expect(result).toMatchObject({ ok: true, data: { exitCode: 137, signal: "SIGKILL" } });
  });

  test("a call whose signal is already aborted stops its command at once", async () => {
    using ws = tempWorkspace();
    const result = await createTools({ workspace: ws.root }).call("shell", { command: `sleep ${uniqueSleep()}; touch ran` }, AbortSignal.abort());
    expect(result).toMatchObject({ ok: true, data: { exitCode: 143, signal: "SIGTERM" } });
    expect(existsSync(join(ws.root, "ran"))).toBe(false);
  });

  test("a process that cannot be launched fails with launch-failed", async () => {
    const tools = createTools({ workspace: "/nonexistent/gg-workspace" });
    expect(await tools.call("shell", { command: "true" })).toMatchObject({ ok: false, error: { code: "launch-failed" } });
  });

  test("a command longer than the system takes in one process start is launch-failed, with the way out: a script file", async () => {
    using ws = tempWorkspace();
    const result = await ws.call("shell", { command: `echo ${"a".repeat(200_000)}` });
    expect(result).toMatchObject({ ok: false, error: { code: "launch-failed", message: expect.stringMatching(/^Cannot run the command: the command is 200005 bytes, .*\(E2BIG\); write it to a script file and run that file/) } });
    // The same for a program's command.
    using engine = engineWorkspace();
    const report = await engine.run(`try { await gg.shell.shell("echo " + "a".repeat(200000)); } catch (error) { return error.code; }`);
    expect(report).toMatchObject({ ok: true, result: "launch-failed" });
  });

  test("a launch failure names the missing working directory and leaves no file open", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: join(ws.root, "gone") });
    const open = () => readdirSync("/proc/self/fd").length;
    const before = open();
    for (let i = 0; i < 20; i++) {
      const result = await tools.call("shell", { command: "true" });
      expect(result).toMatchObject({ ok: false, error: { code: "launch-failed", message: expect.stringContaining(`working directory ${join(ws.root, "gone")} does not exist`) } });
    }
    expect(open()).toBeLessThan(before + 5);
  });

  test.each([0, -1, "10", null])("timeoutSecs %j is invalid-argument", async (timeoutSecs) => {
    using ws = tempWorkspace();
    expect(await ws.call("shell", { command: "true", timeoutSecs })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("the timeout is clamped to what is left of the run's budget", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: ws.root, budgetSecs: 1 });
    const result = await tools.call("shell", { command: "sleep 30", timeoutSecs: 600 });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
    const seconds = Number(/after its ([\d.]+) s timeout/.exec(result.ok ? "" : result.error.message)?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(1);
    expect(result.ok ? "" : result.error.message).toContain("what was left of the run's wall-clock budget");
    if (!result.ok) created.push(...[...result.error.message.matchAll(/\/tmp\/gg-shell\/\S+?\.(?:stdout|stderr)/g)].map((m) => m[0]));
  });

  test("a spent budget starts nothing", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: ws.root, budgetSecs: 0.001 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await tools.call("shell", { command: "touch started" })).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(existsSync(join(ws.root, "started"))).toBe(false);
  });

  test("a request is clamped to 24 hours, then to the budget left", () => {
    expect(effectiveTimeoutMs(undefined, undefined)).toBe(3600 * 1000);
    expect(effectiveTimeoutMs(1e9, undefined)).toBe(SHELL_MAX_TIMEOUT_SECS * 1000);
    expect(effectiveTimeoutMs(1e9, 5_000, 0)).toBe(5_000);
    expect(effectiveTimeoutMs(2, 5_000, 0)).toBe(2_000);
  });

  test("offload: output at the line ceiling is untouched; one line more is cut with the note", async () => {
    using ws = tempWorkspace();
    const config = [{ id: "shell", implementation: "offload", params: { maxLines: 20, maxChars: 8000 } }];
    const fits = await shell(ws, { command: "seq 1 20" }, config);
    expect(fits).toMatchObject({ output: `${Array.from({ length: 20 }, (_, i) => i + 1).join("\n")}\n`, truncated: false });
    const over = await shell(ws, { command: "seq 1 21" }, config);
    expect(over.truncated).toBe(true);
    expect(over.output).toBe(
      [
        ...Array.from({ length: 20 }, (_, i) => i + 2),
        "[Output truncated: last 20 lines]",
        `stdout: ${over.files?.stdout}`,
        "  21 lines; line length p50 2, p95 2, p99 2",
        "  longest lines: 2 chars @ 10, 2 @ 11, 2 @ 12, 2 @ 13, 2 @ 14",
        `stderr: ${over.files?.stderr}`,
        "  0 lines",
      ].join("\n"),
    );
    expect(readFileSync(over.files?.stdout ?? "", "utf8")).toBe(`${Array.from({ length: 21 }, (_, i) => i + 1).join("\n")}\n`);
  });

  test("offload: output at the character ceiling is untouched; one character more is cut", async () => {
    using ws = tempWorkspace();
    const config = [{ id: "shell", implementation: "offload", params: { maxLines: 200, maxChars: 50 } }];
    expect(await shell(ws, { command: "printf '%050d' 0" }, config)).toMatchObject({ output: "0".repeat(50), truncated: false });
    const over = await shell(ws, { command: "printf '1%050d' 0" }, config);
    expect(over.output.startsWith(`${"0".repeat(50)}\n[Output truncated: last 50 chars]\n`)).toBe(true);
  });

  test("inline: the whole output up to 16 KiB, then its last 16 KiB, and nothing on disk", async () => {
    using ws = tempWorkspace();
    const config = [{ id: "shell", implementation: "inline", params: { maxLines: 10, maxChars: 10 } }];
    const fits = await shell(ws, { command: "head -c 16384 /dev/zero | tr '\\0' x" }, config);
    expect(fits).toMatchObject({ output: "x".repeat(16384), truncated: false });
    expect(fits.files).toBeUndefined();
    const over = await shell(ws, { command: "printf y; head -c 16384 /dev/zero | tr '\\0' x" }, config);
    expect(over.output).toBe(`${"x".repeat(16384)}\n[Output truncated: capped at 16384 bytes]`);
  });

  test("the tool's description tells the model to read the offloaded files rather than re-run", async () => {
    using ws = tempWorkspace();
    const description = createTools({ workspace: ws.root }).definitions().find((tool) => tool.name === "shell")?.description ?? "";
    expect(description).toContain("/tmp/gg-shell");
    expect(description).toMatch(/instead of running the command again/);
    const inline = createTools({ workspace: ws.root, config: parseConfiguration([{ id: "shell", implementation: "inline", params: { maxLines: 1, maxChars: 1 } }]) });
    expect(inline.definitions().find((tool) => tool.name === "shell")?.description).not.toContain("/tmp/gg-shell");
  });
});
