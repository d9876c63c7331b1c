// A deny of `git push*` on real processes: a stand-in `git` first on PATH records every run, and no shape of a line
// that would push (or might) gets it to run, through `gg call shell` or a program's gg.shell. Under an allowlist, no
// line that hides a command (a backquote in ${...}, git's configuration, a variable carrying code, a wrapper, sed's e)
// runs it, and no redirection through a descriptor, /proc or another folder writes secrets/, through gg call, a
// program and gg mcp alike; with the person's allow, every one of them does.
import { execFile, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { CALL_TIMEOUT_MS } from "../processes.ts";
import { ALLOWLIST, HIDDEN, ISSUE_SHAPES, PUSHES, SIDE_WRITES, UNKNOWNS } from "../bindings/shell_shapes.ts";
import { type TempWorkspace, tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg");
const DENY_PUSH = JSON.stringify({ approvals: [{ call: "shell", when: { command: "git push*" }, verdict: "deny", reason: "pushing is for people" }] });
const run = promisify(execFile);

/** A workspace whose bin/git records its arguments in git-ran, and the environment that puts it first on PATH. */
function withStandIn(): { ws: TempWorkspace; env: NodeJS.ProcessEnv; ran: () => string } {
  const ws = tempWorkspace();
  ws.put({ "gg.json": DENY_PUSH, "bin/git": `#!/bin/sh\necho "git $*" >> '${join(ws.root, "git-ran")}'\n`, "script.sh": "git push\n" });
  chmodSync(join(ws.root, "bin/git"), 0o755);
  const ran = (): string => (existsSync(join(ws.root, "git-ran")) ? readFileSync(join(ws.root, "git-ran"), "utf8") : "");
  return { ws, env: { ...process.env, PATH: `${join(ws.root, "bin")}:${process.env.PATH}` }, ran };
}

/** The shapes as this workspace writes them: the stand-in named by its own path where a shape names git's. */
const shapes = (ws: TempWorkspace): string[] => [...PUSHES, ...UNKNOWNS].map((line) => line.replace("/usr/bin/git", join(ws.root, "bin/git")).replace("./git", "./bin/git"));

test("the stand-in runs when nothing forbids it, so its silence below means something", () => {
  const { ws, env, ran } = withStandIn();
  using _ = ws;
  const allowed = spawnSync(bin, ["call", "shell", JSON.stringify({ command: "true && git status; echo git push | sh" }), "--config", "gg.json"], { cwd: ws.root, env, encoding: "utf8" });
  expect(allowed.status).toBe(1);
  expect(allowed.stdout).toMatch(/^error\[denied\]: .*gg cannot judge this command line before it runs: the script sh reads from its standard input/);
  expect(ran()).toBe("");
  expect(spawnSync(bin, ["call", "shell", JSON.stringify({ command: "true && git status" }), "--config", "gg.json"], { cwd: ws.root, env, encoding: "utf8" }).status).toBe(0);
  expect(spawnSync(bin, ["call", "shell", JSON.stringify({ command: "echo git push | sh" }), "--approve", "allow", "--config", "gg.json"], { cwd: ws.root, env, encoding: "utf8" }).status).toBe(0);
  expect(ran()).toBe("git status\ngit push\n");
}, 120_000);

test("gg call shell: every shape the issue lists is denied and git never runs", async () => {
  const { ws, env, ran } = withStandIn();
  using _ = ws;
  // A gg process each: the issue's shapes here; every shape goes through a program below, the same gate.
  const lines = ISSUE_SHAPES;
  const outcomes: string[] = [];
  // A few at a time: each is a gg process.
  for (let i = 0; i < lines.length; i += 4) {
    const batch = lines.slice(i, i + 4).map(async (command) => {
      const call = await run(bin, ["call", "shell", JSON.stringify({ command }), "--config", "gg.json"], { cwd: ws.root, env, encoding: "utf8" }).then(
        (done) => `ran: ${done.stdout}`,
        (failed: { stdout: string }) => failed.stdout,
      );
      return `${JSON.stringify(command)} -> ${call.split(":")[0]}`;
    });
    outcomes.push(...(await Promise.all(batch)));
  }
  expect(outcomes).toEqual(lines.map((command) => `${JSON.stringify(command)} -> error[denied]`));
  expect(ran()).toBe("");
}, 300_000);

test("a program's gg.shell: every shape is denied and git never runs; the program goes on", () => {
  const { ws, env, ran } = withStandIn();
  using _ = ws;
  const lines = shapes(ws);
  const program = `const out = [];
for (const command of ${JSON.stringify(lines)}) {
  try { await gg.shell.shell(command); out.push("ran " + command); } catch (e) { out.push(e.code); }
}
return out;`;
  const done = spawnSync(bin, ["run", "-", "--config", "gg.json", "--json"], { cwd: ws.root, env, input: program, encoding: "utf8" });
  const report = JSON.parse(done.stdout) as { result: string[]; calls: { approval: { verdict: string; by: string } }[] };
  expect(report.result).toEqual(lines.map(() => "denied"));
  expect(report.calls.every((call) => call.approval.verdict === "deny")).toBe(true);
  expect(ran()).toBe("");
}, 120_000);

test("a redirection is a write judged by the path rules: nothing lands in secrets/ or the home folder's .bashrc", () => {
  using ws = tempWorkspace();
  const home = join(ws.root, "home");
  ws.put({
    "home/": "",
    "secrets/": "",
    "gg.json": JSON.stringify({ approvals: [{ call: "write_file", when: { path: "secrets/**" }, verdict: "deny" }, { call: "write_file", when: { path: "home/**" }, verdict: "deny" }] }),
  });
  const lines = ["echo x > secrets/a", "echo x >> ./secrets/a", "ls 2> secrets/a", "ls &> secrets/a", "(echo x) > secrets/a", "sh -c 'echo x > secrets/a'", "cat > secrets/a <<EOF\nx\nEOF", "echo x > ~/.bashrc", "cd secrets && echo x > a", "f=secrets/a; echo x > $f"];
  const program = `const out = [];
for (const command of ${JSON.stringify(lines)}) {
  try { await gg.shell.shell(command); out.push("ran " + command); } catch (e) { out.push(e.code); }
}
out.push((await gg.shell.shell("echo x > out.txt 2>/dev/null")).exitCode);
return out;`;
  const done = spawnSync(bin, ["run", "-", "--config", "gg.json", "--json"], { cwd: ws.root, env: { ...process.env, HOME: home }, input: program, encoding: "utf8" });
  expect((JSON.parse(done.stdout) as { result: unknown[] }).result).toEqual([...lines.map(() => "denied"), 0]);
  expect([existsSync(join(ws.root, "secrets/a")), existsSync(join(home, ".bashrc")), readFileSync(join(ws.root, "out.txt"), "utf8")]).toEqual([false, false, "x\n"]);
}, 120_000);

/** The allowlist of HIDDEN with cd, env, find and sh allowed too, and writes to secrets/** asked: SIDE_WRITES run only allowed commands. */
const HIDING = JSON.stringify({
  approvalDefault: "ask",
  approvals: [
    ...ALLOWLIST.approvals,
    ...["cd*", "env*", "find*", "sh*"].map((command) => ({ call: "shell", when: { command }, verdict: "allow" })),
    { call: "write_file", when: { path: "secrets/**" }, verdict: "ask", reason: "secrets need a person" },
  ],
});
const LINES = [...HIDDEN.map(([line]) => line), ...SIDE_WRITES];

/** Programs the lines run that a machine may lack. */
const MAYBE_MISSING = ["strace", "script", "setarch", "taskset", "prlimit", "make", "npm"];
/** Whether `tool` is here and runs (strace needs ptrace, which a container may refuse). */
const works = (tool: string): boolean => spawnSync("sh", ["-c", tool === "strace" ? "strace -o /dev/null true" : `command -v ${tool}`], { stdio: "ignore" }).status === 0;

/** A git repository holding a.txt, pwn.cjs (which makes `pwned`), secrets/a and gg.json (HIDING). */
function hidingWorkspace(): TempWorkspace {
  const ws = tempWorkspace();
  ws.put({ "a.txt": "a line\n", "pwn.cjs": 'require("node:fs").writeFileSync("pwned", "");\n', "secrets/a": "secret\n", "gg.json": HIDING });
  spawnSync("git", ["init", "-q"], { cwd: ws.root });
  return ws;
}

/** A program running each line, then whether it made `pwned` and what secrets/a holds (each put back for the next). */
const probing = `const out = [];
for (const line of ${JSON.stringify(LINES)}) {
  let code = "ran";
  try { await gg.shell.shell(line); } catch (e) { code = e.code; }
  let left = "";
  try { left = (await gg.shell.shell("test -e pwned && echo pwned; rm -f pwned; cat secrets/a; echo secret > secrets/a")).output; } catch {}
  out.push(code + " " + left.split("\\n").filter((l) => l && !l.startsWith("[")).join(","));
}
return out;`;

describe("lines that hide what they run, on real processes", () => {
  test("a program: every line is denied, naming its part, and nothing runs; with --approve allow every one does", () => {
    using ws = hidingWorkspace();
    const denied = spawnSync(bin, ["run", "-", "--config", "gg.json", "--json"], { cwd: ws.root, input: probing, encoding: "utf8" });
    const report = JSON.parse(denied.stdout) as { result: string[]; calls: { args: { command: string }; approval: { verdict: string; part?: string } }[] };
    // The probe after each line is denied too (no one allowed rm): nothing of it ran either.
    expect(report.result).toEqual(LINES.map(() => "denied "));
    const parts = report.calls.filter((_, index) => index % 2 === 0).map((call) => call.approval.part);
    expect(parts).toEqual([...HIDDEN.map(([, part]) => part), ...SIDE_WRITES.map(() => expect.stringMatching(/^> /))]);
    expect([existsSync(join(ws.root, "pwned")), readFileSync(join(ws.root, "secrets/a"), "utf8")]).toEqual([false, "secret\n"]);
    const allowed = spawnSync(bin, ["run", "-", "--config", "gg.json", "--json", "--approve", "allow"], { cwd: ws.root, input: probing, encoding: "utf8" });
    const ran = (JSON.parse(allowed.stdout) as { result: string[] }).result;
    // A line whose program this machine lacks (or cannot run: strace without ptrace) proves nothing either way.
    const proves = LINES.map((line) => !MAYBE_MISSING.some((tool) => line.includes(`${tool} `) && !works(tool)));
    expect(ran.map((outcome, index) => `${LINES[index]} -> ${proves[index] ? outcome : "not here"}`)).toEqual(LINES.map((line, index) => `${line} -> ${proves[index] ? `ran ${index < HIDDEN.length ? "pwned,secret" : "pwned"}` : "not here"}`));
  }, 300_000);

  test("gg call: a line of each family is denied, exit 1, the message naming its part; nothing runs", async () => {
    using ws = hidingWorkspace();
    const lines = [HIDDEN[1], HIDDEN[6], HIDDEN[10], HIDDEN[20], [SIDE_WRITES[0], "> /dev/fd/3"]] as [string, string][];
    const outcomes = await Promise.all(
      lines.map(([command]) => run(bin, ["call", "shell", JSON.stringify({ command }), "--config", "gg.json"], { cwd: ws.root, encoding: "utf8" }).then(() => "ran", (failed: { stdout: string }) => failed.stdout)),
    );
    expect(outcomes).toEqual(lines.map(([, part]) => expect.stringMatching(new RegExp(`^error\\[denied\\]: Cannot run shell: denied: .*\\(for ${JSON.stringify(part).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)`))));
    expect([existsSync(join(ws.root, "pwned")), readFileSync(join(ws.root, "secrets/a"), "utf8")]).toEqual([false, "secret\n"]);
  }, 120_000);

  test("gg mcp: every line is asked, the question naming its part; declined, nothing runs", async () => {
    using ws = hidingWorkspace();
    const transport = new StdioClientTransport({ command: process.execPath, args: [join(import.meta.dirname, "../../bin/gg.js"), "mcp", "--workspace", ws.root, "--config", join(ws.root, "gg.json")], stderr: "pipe" });
    const client = new Client({ name: "gg-test", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "decline" };
    });
    await client.connect(transport);
    try {
      for (const command of LINES) {
        const result = (await client.callTool({ name: "shell", arguments: { command } }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
        expect([command, result.isError]).toEqual([command, true]);
      }
    } finally {
      await client.close();
    }
    expect(asked.map((message) => /^It asks about: (.*)$/m.exec(message)?.[1])).toEqual([...HIDDEN.map(([, part]) => part), ...SIDE_WRITES.map(() => expect.stringMatching(/^> /))]);
    expect([existsSync(join(ws.root, "pwned")), readFileSync(join(ws.root, "secrets/a"), "utf8")]).toEqual([false, "secret\n"]);
  }, 300_000);
});
