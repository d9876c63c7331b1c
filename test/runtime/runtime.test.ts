import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createRuntime } from "../../runtime/index.ts";
import { survivors, uniqueSleep } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

/** The pid of this process's runner child. */
const runnerPid = (): number | undefined => {
  const found = spawnSync("pgrep", ["-P", String(process.pid), "-f", "runner"], { encoding: "utf8" }).stdout.trim().split("\n")[0];
  return found ? Number(found) : undefined;
};

/** Polls `probe` every 10 ms until it gives a value (the test's own timeout bounds it). */
async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("createRuntime", () => {
  test("runs programs in a runner process and keeps views across runs", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    const runtime = createRuntime({ workspace: ws.root });
    try {
      expect(await runtime.run("await gg.views.openFile('a.txt'); return process === undefined")).toMatchObject({ ok: false, error: { code: "program-error", message: expect.stringContaining("process is not defined") } });
      const second = await runtime.run("return (await gg.views.list()).map((view) => view.path)");
      expect(second).toMatchObject({ ok: true, result: ["a.txt"] });
      expect(second.views).toHaveLength(1);
    } finally {
      runtime.close();
    }
  });

  test("unserialisable-arguments: a BigInt, a cycle, 10,000-deep nesting, a throwing getter or Proxy reject gg.files and gg.shell calls with invalid-argument, and the runner carries on with its views", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    const runtime = createRuntime({ workspace: ws.root });
    try {
      expect(await runtime.run("await gg.views.openFile('a.txt'); return 'opened'")).toMatchObject({ ok: true });
      const runner = runnerPid();
      const report = await runtime.run(`
        const cyclic: any = {}; cyclic.self = cyclic;
        let deep: any = {}; for (let i = 0; i < 10000; i++) deep = { a: deep };
        const values: unknown[] = [1n, cyclic, deep, { get path() { throw new Error("getter"); } }, new Proxy({}, { ownKeys() { throw new Error("trap"); } })];
        const codes: unknown[] = [];
        for (const value of values) {
          for (const call of [() => gg.files.readFile(value as never), () => gg.files.writeFile("w.txt", value as never), () => gg.shell.shell("echo", value as never)]) {
            try { await call(); codes.push("ok"); } catch (e: any) { codes.push([e.code, String(e.message).length < 600]); }
          }
        }
        return codes;`);
      expect(report.result).toEqual(Array(15).fill(["invalid-argument", true]));
      expect(runnerPid()).toBe(runner);
      expect(await runtime.run("return (await gg.views.list()).map((view) => view.path)")).toMatchObject({ ok: true, result: ["a.txt"] });
      expect(existsSync(join(ws.root, "w.txt"))).toBe(false);
    } finally {
      runtime.close();
    }
  });

  test("views() hands the embedder what the open views show, and a run's baseline sets the bands gg does not hold", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n", "b.txt": "beta\n" });
    const runtime = createRuntime({ workspace: ws.root });
    try {
      expect(await runtime.views()).toEqual([]);
      await runtime.run("await gg.views.openFile('a.txt'); await gg.views.openFile('b.txt'); await gg.views.close('a.txt');");
      expect(await runtime.views()).toEqual([{ path: "b.txt", text: "beta\n", window: { first: 1, last: 1, total: 1 } }]);
      const report = await runtime.run("return await gg.context.breakdown()", { baseline: { system: 1200, messages: 300, toolResults: 40 } });
      expect(report.result).toMatchObject({ system: 1200, messages: 300, toolResults: 40, fileViews: 2, images: 0, total: 1542 });
    } finally {
      runtime.close();
    }
  });

  test("runner-crash: a program that brings its runner down is reported with the calls it completed, and the next run works", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const crashed = await runtime.run("await gg.files.writeFile('before.txt', 'x');\nawait gg.shell.shell('kill -9 $PPID');");
      expect(crashed.ok).toBe(false);
      expect(crashed.error).toMatchObject({ code: "program-error", message: expect.stringContaining("runner process was ended by SIGKILL") });
      const terminated = await runtime.run("await gg.shell.shell('kill -TERM $PPID; sleep 1');");
      expect(terminated.error).toMatchObject({ code: "program-error", message: expect.stringContaining("runner process was ended by SIGTERM") });
      expect(crashed.calls).toMatchObject([{ name: "files.writeFile", ok: true }, { name: "shell.shell", unfinished: true }]);
      expect(await runtime.run("return 'alive'")).toMatchObject({ ok: true, result: "alive" });
    } finally {
      runtime.close();
    }
  });

  test("runner-oom-after-write: a write made just before the runner runs out of memory is in the report", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const report = await runtime.run("await gg.files.writeFile('pre-oom.txt', 'x'); return Array.from({ length: 1e8 }, (_, i) => i).length");
      expect(report.error?.code).toBe("memory-limit");
      expect(readFileSync(join(ws.root, "pre-oom.txt"), "utf8")).toBe("x");
      expect(report.calls).toMatchObject([{ name: "files.writeFile", ok: true }]);
      expect(report.calls[0]?.unfinished).toBeUndefined();
      // Behind 16 MB of logs waiting for the channel, the write is still known.
      const flooded = await runtime.run(
        "for (let i = 0; i < 2000; i++) console.log('x'.repeat(8000)); await gg.files.writeFile('flood.txt', 'y'); return Array.from({ length: 1e8 }, (_, i) => i).length",
        { limits: { logBytes: 32 * 1024 * 1024 } },
      );
      expect(flooded.error?.code).toBe("memory-limit");
      expect(flooded.calls).toMatchObject([{ name: "files.writeFile", ok: true }]);
    } finally {
      runtime.close();
    }
  });

  test("runner-killed-after-edit: an edit made just before the runner is killed by a signal is in the report", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const running = runtime.run("await gg.files.editFile('a.txt', 'alpha', 'beta'); await gg.files.writeFile('b.txt', 'x'); for (;;) {}", { budget: 60 });
      const runner = await waitFor(() => (existsSync(join(ws.root, "b.txt")) ? runnerPid() : undefined));
      process.kill(runner, "SIGKILL");
      const report = await running;
      expect(report.error).toMatchObject({ code: "program-error", message: expect.stringContaining("SIGKILL") });
      expect(report.calls).toMatchObject([
        { name: "files.editFile", ok: true },
        { name: "files.writeFile", ok: true },
      ]);
    } finally {
      runtime.close();
    }
  });

  test("runner-killed-during-shell: a command the runner started is listed unfinished when the runner dies under it", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const report = await runtime.run("await gg.shell.shell('kill -9 $PPID; sleep 5')");
      expect(report.calls).toMatchObject([{ name: "shell.shell", ok: false, unfinished: true }]);
    } finally {
      runtime.close();
    }
  });

  test("runner-crash-forged-journal: lines a program's commands add to the journal neither replace nor hide what gg did", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const forged = Array.from({ length: 5 }, (_, i) => JSON.stringify({ id: i + 1, seq: 0, record: { name: "files.readFile", args: "[]", ok: true, ms: 1 } })).join("\\n");
      const forge = `for f in /proc/$PPID/fd/*; do case $(readlink $f) in *calls.jsonl) printf '%s\\n' '${forged}' >> $f;; esac; done; kill -9 $PPID`;
      const report = await runtime.run(`await gg.files.writeFile('a.txt', 'x'); await gg.shell.shell(${JSON.stringify(forge)});`);
      expect(report.calls).toMatchObject([{ name: "files.writeFile", ok: true }, { name: "shell.shell", unfinished: true }]);
      expect(report.calls).toHaveLength(2);
    } finally {
      runtime.close();
    }
  });

  test("runner-oom-after-1000-calls: a write past the listed calls is still counted when the runner dies", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const report = await runtime.run("for (let i = 0; i < 1001; i++) await gg.files.listDir(); await gg.files.writeFile('late.txt', 'x'); return Array.from({ length: 1e8 }, (_, i) => i).length");
      expect(report.error?.code).toBe("memory-limit");
      expect(readFileSync(join(ws.root, "late.txt"), "utf8")).toBe("x");
      // The listDir calls are listed only as far as the channel carried them out; the write, past the listed ones, is
      // counted whatever happened to them.
      expect(report.callsDropped).toBeGreaterThanOrEqual(1);
      expect(report.calls.length + report.callsDropped).toBeLessThanOrEqual(1002);
    } finally {
      runtime.close();
    }
  });

  test("run-cancelled: aborting a run's signal stops the program and the commands it started; one that never yields is stopped with its runner", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    const sleep = uniqueSleep();
    try {
      await runtime.run("return 1");
      const waiting = new AbortController();
      const running = runtime.run(`await gg.files.writeFile('a.txt', 'x'); await gg.shell.shell('sleep ${sleep}'); return 1`, { budget: 60 }, { signal: waiting.signal });
      await waitFor(() => (survivors(sleep).length > 0 ? true : undefined));
      waiting.abort();
      const report = await running;
      expect(report.error?.code).toBe("cancelled");
      expect(report.calls).toMatchObject([{ name: "files.writeFile", ok: true }, { name: "shell.shell", unfinished: true }]);
      await waitFor(() => (survivors(sleep).length === 0 ? true : undefined));
      // Cancelled once the program is in its loop (the file it writes first says so), never before it starts.
      const busy = new AbortController();
      const spinning = runtime.run("await gg.files.writeFile('spinning.txt', 'x'); for (;;) {}", { budget: 60 }, { signal: busy.signal });
      await waitFor(() => (existsSync(join(ws.root, "spinning.txt")) ? true : undefined));
      busy.abort();
      expect((await spinning).error).toMatchObject({ code: "cancelled", message: expect.stringContaining("did not stop, so its runner was stopped") });
      // Busy after a call's answer: the program's code runs on the runner's thread there too (docs/programs.md).
      const busyAfter = new AbortController();
      const looping = runtime.run("await gg.shell.shell('true'); await gg.files.writeFile('looping.txt', 'x'); for (;;) {}", { budget: 60 }, { signal: busyAfter.signal });
      await waitFor(() => (existsSync(join(ws.root, "looping.txt")) ? true : undefined));
      busyAfter.abort();
      expect((await looping).error).toMatchObject({ code: "cancelled", message: expect.stringContaining("did not stop, so its runner was stopped") });
      const early = new AbortController();
      early.abort();
      expect((await runtime.run("return 1", {}, { signal: early.signal })).error).toMatchObject({ code: "cancelled", message: expect.stringContaining("nothing ran") });
      expect(await runtime.run("return 'alive'")).toMatchObject({ ok: true, result: "alive" });
    } finally {
      runtime.close();
    }
  });

  test("runtime-closed: closing stops the program under way, even a busy one, and runs queued behind it never start", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    await runtime.run("return 1");
    const runner = runnerPid() as number;
    const busy = runtime.run("for (;;) {}", { budget: 600 });
    const queued = runtime.run("await gg.files.writeFile('queued.txt', 'x');");
    await new Promise((resolve) => setTimeout(resolve, 200));
    runtime.close();
    expect((await busy).error).toMatchObject({ code: "cancelled", message: expect.stringContaining("runtime was closed") });
    expect((await queued).error).toMatchObject({ code: "cancelled", message: expect.stringContaining("nothing ran") });
    expect(existsSync(join(ws.root, "queued.txt"))).toBe(false);
    await waitFor(() => (existsSync(`/proc/${runner}`) ? undefined : true));
  });

  test("run-cancelled-during-check: a cancel that arrives while the program is checked stops it before it runs", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      await runtime.run("return 1");
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 50);
      // The check takes far longer than 50 ms: the first loads the compiler (which a compile cache can make quick),
      // and these 3,000 lines take it a while on their own.
      const lines = Array.from({ length: 3000 }, (_, i) => `const v${i} = [1, 2, 3].map((x) => ({ x, y: String(x + ${i}) })).filter((o) => o.y.length > 0);`);
      const report = await runtime.run(`${lines.join("\n")}\nawait gg.files.writeFile('checked.txt', 'x'); return 'ran';`, { check: true }, { signal: cancel.signal });
      expect(report.error?.code).toBe("cancelled");
      expect(existsSync(join(ws.root, "checked.txt"))).toBe(false);
    } finally {
      runtime.close();
    }
  });

  test("takes the configuration as a file holds it, and run options budget and memory", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, config: [{ id: "shell", enabled: false }] });
    try {
      expect(await runtime.run("return typeof gg.shell", { language: "js" })).toMatchObject({ ok: true, result: "undefined" });
      const stopped = await runtime.run("for (;;) {}", { budget: 0.5 });
      expect(stopped.error?.code).toBe("timeout");
      expect(stopped.usage.wallMs).toBeGreaterThanOrEqual(500);
      expect((await runtime.run("const a = []; for (;;) a.push('x'.repeat(1000) + Math.random());", { memory: 16 })).error?.code).toBe("memory-limit");
    } finally {
      runtime.close();
    }
  });

  test("limits that cannot be honoured are refused with invalid-argument, and the runner carries on", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      for (const run of [{ budget: -5 }, { budget: Number.NaN }, { memory: 4 }, { limits: { logBytes: 1.5 } }, { baseline: { system: -5 } }, { baseline: { messages: "abc" as unknown as number } }]) {
        const report = await runtime.run("return 1", run);
        expect(report).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining("Cannot run the program with these options") } });
      }
      expect((await runtime.run("return 'still here'")).result).toBe("still here");
    } finally {
      runtime.close();
    }
  });

  test("commands a dead runner left running are killed by the embedding process", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const duration = uniqueSleep();
      const report = await runtime.run(`gg.shell.shell('sleep ${duration}'); await gg.shell.shell('sleep 0.2; kill -KILL $PPID');`);
      expect(report.ok).toBe(false);
      await new Promise((done) => setTimeout(done, 300));
      expect(survivors(duration)).toEqual([]);
    } finally {
      runtime.close();
    }
  });

  test("runs queue one after another", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const reports = await Promise.all([1, 2, 3].map((n) => runtime.run(`await gg.files.listDir(); return ${n}`)));
      expect(reports.map((report) => report.result)).toEqual([1, 2, 3]);
    } finally {
      runtime.close();
    }
  });
});
