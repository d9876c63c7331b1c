import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, test } from "vitest";
import { survivors, uniqueSleep } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";
import { warmOf } from "../../cli/command.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

function gg(args: string[], cwd?: string, input?: string) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", ...(input === undefined ? {} : { input }) });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("gg call", () => {
  test("prints the result text exactly, then a newline, and exits 0", () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "one\ntwo", "b.txt": "three\n" });
    expect(gg(["call", "read_file", '{"path":"a.txt"}', "--workspace", ws.root])).toMatchObject({ status: 0, stdout: "one\ntwo\n" });
    // The newline ends the output whatever the text ends with, so a script strips exactly one.
    expect(gg(["call", "read_file", '{"path":"b.txt"}', "--workspace", ws.root])).toMatchObject({ status: 0, stdout: "three\n\n" });
  });

  test("a failed call prints error[CODE]: message and exits 1", () => {
    using ws = tempWorkspace();
    const run = gg(["call", "read_file", '{"path":"missing.txt"}', "--workspace", ws.root]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^error\[not-found\]: Cannot read .*missing\.txt/);
  });

  test("--json prints one object with text and attachments, or the error", () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "hi\n" });
    const ok = gg(["call", "read_file", '{"path":"a.txt"}', "--workspace", ws.root, "--json"]);
    expect(JSON.parse(ok.stdout)).toEqual({ ok: true, text: "hi\n", attachments: [] });
    const failed = gg(["call", "edit_file", '{"path":"a.txt","old":"zz","new":"y"}', "--workspace", ws.root, "--json"]);
    expect(failed.status).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ ok: false, error: { code: "no-match", message: expect.any(String) } });
  });

  test("the workspace defaults to the current directory", () => {
    using ws = tempWorkspace();
    ws.put({ "x/y.txt": "" });
    expect(gg(["call", "tree", '{"depth":2}'], ws.root)).toMatchObject({ status: 0, stdout: "x/\n  y.txt\n" });
  });

  test("a refused command line exits 2", () => {
    using ws = tempWorkspace();
    expect(gg(["call", "read_file", "{not json", "--workspace", ws.root]).status).toBe(2);
    expect(gg(["call", "tree", "--bogus"]).status).toBe(2);
    expect(gg(["frobnicate"]).status).toBe(2);
    expect(gg(["call", "tree", "{}", "--workspace", join(ws.root, "missing")]).status).toBe(2);
  });

  test("a refused configuration exits 2 and names every bad value", () => {
    using ws = tempWorkspace();
    const config = join(ws.root, "config.json");
    writeFileSync(config, JSON.stringify([{ id: "read-file", implementation: "nope", params: {} }, { id: "shelll" }]));
    const run = gg(["call", "tree", "{}", "--workspace", ws.root, "--config", config]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('"nope"');
    expect(run.stderr).toContain("lineCap");
    expect(run.stderr).toContain('"shelll"');
  });

  test("a disabled capability's call does not exist: naming it, or an unknown tool, is a refused command line", () => {
    using ws = tempWorkspace();
    const config = join(ws.root, "config.json");
    writeFileSync(config, JSON.stringify([{ id: "search", enabled: false }]));
    const run = gg(["call", "search", '{"query":"x"}', "--workspace", ws.root, "--config", config]);
    expect(run).toMatchObject({ status: 2, stdout: "", stderr: expect.stringMatching(/^gg: No tool "search" in this configuration; the tools are read_file, .*shell \(gg tools describes them\)\n$/) });
    expect(gg(["call", "nosuch", "{}", "--workspace", ws.root])).toMatchObject({ status: 2, stderr: expect.stringContaining('No tool "nosuch"') });
    const json = gg(["call", "nosuch", "{}", "--workspace", ws.root, "--json"]);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining('No tool "nosuch"') } });
  });
});

describe("gg call shell", () => {
  test("prints what the agent receives, and --json the structured result; a non-zero exit is still a success", () => {
    using ws = tempWorkspace();
    const plain = gg(["call", "shell", '{"command": "echo hi; exit 3"}', "--workspace", ws.root]);
    expect(plain).toMatchObject({ status: 0, stdout: "hi\n[exit code: 3]\n" });
    const json = gg(["call", "shell", '{"command": "echo hi; exit 3"}', "--workspace", ws.root, "--json"]);
    const result = JSON.parse(json.stdout) as { files: { stdout: string; stderr: string } };
    expect(result).toEqual({ ok: true, exitCode: 3, output: "hi\n", truncated: false, files: { stdout: expect.stringMatching(/^\/tmp\/gg-shell\/cmd-\d+-\d{4}\.stdout$/), stderr: expect.stringMatching(/\.stderr$/) } });
    rmSync(result.files.stdout);
    rmSync(result.files.stderr);
  });

  test("--budget clamps the timeout, and a timeout exits 1 with the error", () => {
    using ws = tempWorkspace();
    const run = gg(["call", "shell", '{"command": "echo partial; sleep 30", "timeoutSecs": 100}', "--workspace", ws.root, "--budget", "0.5", "--json"]);
    expect(run.status).toBe(1);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("partial");
    for (const file of error.message.match(/\/tmp\/gg-shell\/\S+?\.(?:stdout|stderr)/g) ?? []) rmSync(file);
    expect(gg(["call", "shell", '{"command": "true"}', "--budget", "soon"]).status).toBe(2);
  });
});

describe("gg tools", () => {
  test("prints the JSON definitions of the enabled calls", () => {
    const run = gg(["tools"]);
    expect(run.status).toBe(0);
    const tools = JSON.parse(run.stdout) as { name: string; description: string; parameters: { type: string } }[];
    expect(tools.map((t) => t.name)).toEqual(["read_file", "write_file", "edit_file", "list_dir", "tree", "search", "shell"]);
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(20);
      expect(tool.parameters.type).toBe("object");
    }
  });
});

describe("gg run", () => {
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
    expect(gg(["run", "loop.js", "--budget", "20", "--cpu", "0.5"], ws.root)).toMatchObject({ status: 1, stdout: expect.stringMatching(/^error\[timeout\]: The program was stopped at its CPU limit of 0.5 s/) });
    expect(gg(["run", "missing.ts"], ws.root).status).toBe(2);
    expect(gg(["run", "loop.js", "--memory", "lots"], ws.root).status).toBe(2);
    expect(gg(["run", "loop.js", "--memory", "4"], ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining("--memory 4 is under the smallest heap, 8 MB") });
    expect(gg(["run", "loop.js", "--budget", "3000000"], ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining("--budget 3000000 is over the largest budget, 86400 seconds") });
    expect(gg(["run", "loop.js", "--budget", "1e12"], ws.root).stderr).not.toMatch(/budgetSecs|cpuSecs|--cpu/);
  });

  test("--warm-cap sets what a run's searches keep (0 keeps nothing); a value that is not a size, or over the machine's memory, exits 2", () => {
    using ws = tempWorkspace();
    ws.put({ "src/a.txt": "needle\n", "src/b.txt": "hay\n" });
    writeFileSync(join(ws.root, "twice.js"), "const first = await gg.files.search('needle', { path: 'src' });\nconst second = await gg.files.search('needle', { path: 'src' });\nreturn [first.matches.length, second.matches.length];\n");
    for (const cap of ["0", "1", "64.5"]) expect(gg(["run", "twice.js", "--warm-cap", cap, "--json"], ws.root)).toMatchObject({ status: 0, stdout: expect.stringContaining('"result":[1,1]') });
    expect(gg(["run", "twice.js", "--warm-cap", "-1"], ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining("--warm-cap") });
    expect(gg(["run", "twice.js", "--warm-cap", "lots"], ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining("it must be 0 (keep nothing) or a number of MiB") });
    expect(gg(["mcp", "--warm-cap", "1e12"], ws.root)).toMatchObject({ status: 2, stderr: expect.stringContaining("it is over this machine's memory") });
    // What a search keeps shows in no answer, by design: the option the commands pass on is checked here.
    expect([warmOf(undefined), warmOf(0), warmOf(64.5)]).toEqual([{}, { warm: false }, { warm: { capBytes: 64.5 * 2 ** 20 } }]);
  });

  test("gg run --check reports every type error with its position and runs nothing; without it the program runs", () => {
    using ws = tempWorkspace();
    writeFileSync(join(ws.root, "typed.ts"), "await gg.files.writeFile('ran.txt', 'x');\nconst n: number = 'two';\nreturn (await gg.files.listDir()).entries.length;\n");
    writeFileSync(join(ws.root, "good.ts"), "const { entries } = await gg.files.listDir();\nreturn entries.map((entry) => entry.name).sort();\n");
    expect(gg(["run", "typed.ts", "--check"], ws.root)).toMatchObject({
      status: 1,
      stdout: "error[type-error]: The program does not type-check (1 error), so nothing ran; fix these and run it again:\nline 2, column 7: Type 'string' is not assignable to type 'number'.\n",
    });
    expect(() => statSync(join(ws.root, "ran.txt"))).toThrow();
    const json = JSON.parse(gg(["run", "typed.ts", "--check", "--json"], ws.root).stdout) as { error: object; calls: unknown[] };
    expect(json).toMatchObject({ error: { code: "type-error", line: 2, column: 7, problems: [{ line: 2, column: 7 }] }, calls: [] });
    expect(gg(["run", "good.ts", "--check"], ws.root)).toMatchObject({ status: 0, stdout: '[\n  "good.ts",\n  "typed.ts"\n]\n' });
    expect(gg(["run", "typed.ts"], ws.root)).toMatchObject({ status: 0, stdout: "3\n" });
  });

  test("gg run lists the views left open after the result, with what they cost", () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "one\ntwo\n" });
    const run = gg(["run", "-", "--workspace", ws.root], undefined, "await gg.views.openFile('a.txt'); return 'ok';");
    expect(run).toMatchObject({ status: 0, stdout: "ok\n[views open: a.txt lines 1-2 of 2 (~2 tokens)]\n" });
  });

  test("gg run - reads the program from standard input", () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "from a file" });
    expect(gg(["run", "-", "--workspace", ws.root], undefined, "const text = await gg.files.readFile('a.txt');\nreturn text;\n")).toMatchObject({ status: 0, stdout: "from a file\n" });
  });

  test("a command the program left running, even one that traps SIGTERM, does not outlive gg run", async () => {
    using ws = tempWorkspace();
    const duration = uniqueSleep();
    writeFileSync(join(ws.root, "leave.ts"), `gg.shell.shell("trap '' TERM; sleep ${duration} & wait");\nawait gg.shell.shell('sleep 0.3');\nreturn 'returned';\n`);
    expect(gg(["run", "leave.ts"], ws.root)).toMatchObject({ status: 0, stdout: "returned\n" });
    await sleep(300);
    expect(survivors(duration)).toEqual([]);
  });
});

describe("gg call shell, limits of the system", () => {
  test("a log file that cannot grow (a file size limit) does not stop the command or gg; the note says the file is incomplete", () => {
    using ws = tempWorkspace();
    // sh's ulimit -f counts 512-byte blocks: gg may write 32 KiB per file.
    const run = spawnSync("sh", ["-c", `ulimit -f 64; exec "$0" "$@"`, process.execPath, bin, "call", "shell", '{"command":"seq 100000"}', "--workspace", ws.root, "--json"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as { exitCode: number; output: string; files: { stdout: string; stderr: string } };
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^99801\n[\s\S]*\n100000\n\[Output truncated: last 200 lines\]\nstdout: \S+\n  \(incomplete: writing it failed after 32768 bytes: /);
    expect(statSync(result.files.stdout).size).toBe(32768);
    expect(readFileSync(result.files.stdout, "utf8").startsWith("1\n2\n")).toBe(true);
    rmSync(result.files.stdout);
    rmSync(result.files.stderr);
  });
});

describe("--agent", () => {
  test("an agent's allowlist decides what gg tools, call, run and docs give it; an agent the file lacks exits 2", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify({ agents: [{ id: "reviewer", allow: ["read_file", "search"] }] }), "a.txt": "alpha\n" });
    const config = ["--config", join(ws.root, "gg.json"), "--workspace", ws.root];
    const definitions = ["--config", join(ws.root, "gg.json")];
    const tools = JSON.parse(gg(["tools", ...definitions, "--agent", "reviewer"]).stdout) as { name: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(["read_file", "search"]);
    expect(gg(["call", "read_file", '{"path":"a.txt"}', ...config, "--agent", "reviewer"])).toMatchObject({ status: 0, stdout: "alpha\n\n" });
    expect(gg(["call", "shell", '{"command":"true"}', ...config, "--agent", "reviewer"])).toMatchObject({ status: 2, stderr: expect.stringContaining('No tool "shell" in this configuration; the tools are read_file, search') });
    expect(gg(["run", "-", ...config, "--agent", "reviewer"], undefined, "return [typeof gg.shell, typeof gg.files.tree]")).toMatchObject({ status: 0, stdout: '[\n  "undefined",\n  "undefined"\n]\n' });
    const docs = gg(["docs", ...definitions, "--agent", "reviewer"]).stdout;
    expect(docs).toContain("### gg.files.search");
    expect(docs).not.toContain("gg.shell");
    expect(gg(["tools", ...definitions, "--agent", "nobody"])).toMatchObject({ status: 2, stderr: 'gg: No agent "nobody" in ' + join(ws.root, "gg.json") + '; the agents are "reviewer"\n' });
    expect(gg(["tools", "--agent", "reviewer"]).status).toBe(2);
  });
});

describe("gg run and its temp folder", () => {
  test("runs without a usable temp folder, and leaves none behind when stopped by a signal", async () => {
    using ws = tempWorkspace();
    ws.put({ "not-a-dir": "x", "tmp/": "" });
    const unusable = spawnSync(process.execPath, [bin, "run", "-", "--workspace", ws.root], { encoding: "utf8", input: "return 1", env: { ...process.env, TMPDIR: join(ws.root, "not-a-dir") } });
    expect(unusable).toMatchObject({ status: 0, stdout: "1\n" });
    const tmp = join(ws.root, "tmp");
    const child = spawn(process.execPath, [bin, "run", "-", "--workspace", ws.root, "--budget", "60"], { env: { ...process.env, TMPDIR: tmp } });
    child.stdin.end("await gg.files.listDir(); for (;;) {}");
    const journals = (): string[] => readdirSync(tmp).filter((name) => name.startsWith("gg-runner-"));
    while (journals().length === 0) await sleep(20);
    child.kill("SIGTERM");
    await new Promise((resolve) => child.on("exit", resolve));
    expect(journals()).toEqual([]);
  });
});
