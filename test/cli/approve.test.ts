// Asks on the command line: a person at a terminal (a pseudo-terminal made by util-linux's script) answers each one;
// without a terminal --approve decides, deny by default.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg");
const ASK_WRITES = JSON.stringify({ approvals: [{ call: "write_file", when: { path: "**" }, verdict: "ask", reason: "writes need a person" }] });
const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** gg with `args` under a pseudo-terminal, `typed` waiting on it as a person's keys would. */
function atTerminal(args: string[], cwd: string, typed: string) {
  const command = [bin, ...args].map(shellQuote).join(" ");
  const run = spawnSync("script", ["-qec", command, "/dev/null"], { cwd, input: typed, encoding: "utf8" });
  return { status: run.status, output: run.stdout };
}

describe("without a terminal", () => {
  test("an ask is a deny saying why, nothing written; --approve allow lets it run; a bad --approve is refused", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": ASK_WRITES });
    const args = ["call", "write_file", '{"path": "a.txt", "content": "x"}', "--config", "gg.json"];
    const denied = spawnSync(bin, args, { cwd: ws.root, encoding: "utf8" });
    expect(denied.status).toBe(1);
    expect(denied.stdout).toMatch(/^error\[denied\]: Cannot run write_file: denied: no one to ask: there is no terminal to ask a person on, and --approve allow was not given; rule 1 \(writes need a person\) asked; nothing of it ran/);
    expect(existsSync(join(ws.root, "a.txt"))).toBe(false);
    expect(spawnSync(bin, [...args, "--approve", "allow"], { cwd: ws.root, encoding: "utf8" }).status).toBe(0);
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("x");
    expect(spawnSync(bin, [...args, "--approve", "maybe"], { cwd: ws.root, encoding: "utf8" }).status).toBe(2);
  });

  test("gg run: the program sees denied on the asked call and goes on; the report records the verdict", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": ASK_WRITES });
    const program = `const out = [];
for (const name of ["a.txt", "b.txt"]) {
  try { await gg.files.writeFile(name, "x"); out.push("wrote"); } catch (e) { out.push(e.code); }
}
return out;`;
    const run = spawnSync(bin, ["run", "-", "--config", "gg.json", "--json"], { cwd: ws.root, input: program, encoding: "utf8" });
    const report = JSON.parse(run.stdout) as { result: string[]; calls: { approval: { verdict: string; by: string } }[] };
    expect(report.result).toEqual(["denied", "denied"]);
    expect(report.calls.map((call) => call.approval)).toEqual([expect.objectContaining({ verdict: "deny", by: "standing" }), expect.objectContaining({ verdict: "deny", by: "standing" })]);
  });
});

describe("at a terminal", () => {
  test("y allows once: the question names the call, its arguments and the rule's reason", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": ASK_WRITES });
    const run = atTerminal(["call", "write_file", '{"path": "a.txt", "content": "x"}', "--config", "gg.json"], ws.root, "y\n");
    expect(run.status).toBe(0);
    expect(run.output).toContain("gg: write_file asks for approval: rule 1 (writes need a person)");
    expect(run.output).toContain('  arguments (39 characters):\r\n    {\r\n      "path": "a.txt",');
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("x");
  });

  test("a long line hiding a command behind a comment and U+202E: the question names the part, keeps head and tail, escapes", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": JSON.stringify({ approvalDefault: "ask", approvals: [{ call: "shell", when: { command: "true*" }, verdict: "allow" }] }) });
    const command = `true # \u202e${"x".repeat(10_000)}\ntouch pwned`;
    const run = atTerminal(["call", "shell", JSON.stringify({ command }), "--config", "gg.json"], ws.root, "n\n");
    expect(run.status).toBe(1);
    expect(run.output).toContain("gg: shell asks for approval: approvalDefault");
    expect(run.output).toContain("\r\n  it asks about: touch pwned\r\n  command line (10,020 characters):\r\n    true # \\u202exxx");
    expect(run.output).toMatch(/\r\n {4}\[… 6,020 characters left out …\]\r\n {4}x+\r\n {4}touch pwned\r\n/);
    expect(run.output).not.toContain("\u202e");
    expect(existsSync(join(ws.root, "pwned"))).toBe(false);
  });

  test("n denies: the call fails with denied and nothing is written", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": ASK_WRITES });
    const run = atTerminal(["call", "write_file", '{"path": "a.txt", "content": "x"}', "--config", "gg.json"], ws.root, "n\n");
    expect(run.status).toBe(1);
    expect(run.output).toContain("error[denied]");
    expect(existsSync(join(ws.root, "a.txt"))).toBe(false);
  });

  test("a allows the rule for the rest of the run: one question for three writes from a program", () => {
    using ws = tempWorkspace();
    ws.put({ "gg.json": ASK_WRITES, "p.ts": 'for (const n of [1, 2, 3]) await gg.files.writeFile(`f${n}.txt`, "x");\nreturn "done";' });
    const run = atTerminal(["run", "p.ts", "--config", "gg.json"], ws.root, "a\n");
    expect(run.status).toBe(0);
    expect(run.output.match(/asks for approval/g)).toHaveLength(1);
    expect(["f1.txt", "f2.txt", "f3.txt"].every((name) => existsSync(join(ws.root, name)))).toBe(true);
  });
});

test("the README's approvals example does what the README says, copied as written", () => {
  const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
  const section = readme.split("\n## Approvals\n")[1]?.split("\n## ")[0] ?? "";
  const config = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  const hook = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (config === undefined || hook === undefined) throw new Error("README.md's Approvals section lacks its JSON or sh block");
  using ws = tempWorkspace();
  ws.put({ "gg.json": config, "approve.sh": hook, "src/keep.txt": "" });
  const call = (tool: string, args: unknown) => spawnSync(bin, ["call", tool, JSON.stringify(args), "--config", "gg.json"], { cwd: ws.root, encoding: "utf8" });
  expect(call("shell", { command: "git push origin feat/x" }).stdout).toMatch(/^error\[denied\]: .*rule 1: pushing is for people/);
  expect(call("shell", { command: "ls src" })).toMatchObject({ status: 0, stdout: "keep.txt\n[exit code: 0]\n" });
  expect(call("shell", { command: "rm -rf src" }).stdout).toMatch(/^error\[denied\]: .*hook: recursive removal is not allowed/);
  expect(existsSync(join(ws.root, "src/keep.txt"))).toBe(true);
  expect(call("write_file", { path: "./src/a.ts", content: "x" }).status).toBe(0);
  expect(call("write_file", { path: "README.md", content: "x" }).stdout).toMatch(/^error\[denied\]/);
  expect(existsSync(join(ws.root, "README.md"))).toBe(false);
});
