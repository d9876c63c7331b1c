import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createRuntime } from "../../runtime/index.ts";
import { tempWorkspace } from "../workspace.ts";

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

  test("runner-crash: a program that brings its runner down is reported with the calls it completed, and the next run works", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const crashed = await runtime.run("await gg.files.writeFile('before.txt', 'x');\nawait gg.shell.shell('kill -9 $PPID');");
      expect(crashed.ok).toBe(false);
      expect(crashed.error).toMatchObject({ code: "memory-limit", message: expect.stringContaining("runner process down") });
      expect(crashed.calls.map((call) => call.name)).toEqual(["files.writeFile"]);
      expect(await runtime.run("return 'alive'")).toMatchObject({ ok: true, result: "alive" });
    } finally {
      runtime.close();
    }
  });

  test("takes the configuration as a file holds it, and run options budget and memory", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, config: [{ id: "shell", enabled: false }] });
    try {
      expect(await runtime.run("return typeof gg.shell", { language: "js" })).toMatchObject({ ok: true, result: "undefined" });
      const started = performance.now();
      expect((await runtime.run("for (;;) {}", { budget: 0.5 })).error?.code).toBe("timeout");
      expect(performance.now() - started).toBeLessThan(3000);
      expect((await runtime.run("const a = []; for (;;) a.push('x'.repeat(1000) + Math.random());", { memory: 16 })).error?.code).toBe("memory-limit");
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

describe("gg run", () => {
  const bin = join(import.meta.dirname, "../../bin/gg.js");
  const gg = (args: string[], cwd?: string) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });

  test("prints the logs and the result, exit 0; a failure prints error[CODE] with its position, exit 1", () => {
    using ws = tempWorkspace();
    writeFileSync(join(ws.root, "ok.ts"), "const n: number = 2;\nconsole.log('hello');\nreturn { n };\n");
    writeFileSync(join(ws.root, "bad.ts"), "const n: number = 2;\nthrow new Error('no');\n");
    expect(gg(["run", "ok.ts"], ws.root)).toMatchObject({ status: 0, stdout: 'hello\n{\n  "n": 2\n}\n' });
    expect(gg(["run", "bad.ts"], ws.root)).toMatchObject({ status: 1, stdout: "error[program-error]: no (line 2, column 7)\n" });
    const json = JSON.parse(gg(["run", "bad.ts", "--json"], ws.root).stdout) as { ok: boolean; error: object };
    expect(json).toMatchObject({ ok: false, error: { code: "program-error", line: 2 } });
  });

  test("--budget and --memory set the limits; a bad command line exits 2", () => {
    using ws = tempWorkspace();
    writeFileSync(join(ws.root, "loop.js"), "for (;;) {}\n");
    expect(gg(["run", "loop.js", "--budget", "0.5"], ws.root)).toMatchObject({ status: 1, stdout: expect.stringMatching(/^error\[timeout\]/) });
    expect(gg(["run", "missing.ts"], ws.root).status).toBe(2);
    expect(gg(["run", "loop.js", "--memory", "lots"], ws.root).status).toBe(2);
  });
});
