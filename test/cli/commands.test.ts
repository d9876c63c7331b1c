// The command line as a person meets it: help per command, the version, suggestions for typos, options a command
// does not take refused by name, and refusals as JSON under --json.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../../cli/main.ts";
import { tempWorkspace } from "../workspace.ts";

/** gg's command line run in this process, as bin/gg.js runs it (main), its output captured: no process start per call. */
const gg = async (...args: string[]) => {
  let stdout = "";
  let stderr = "";
  const status = await main(args, (text) => (stdout += text), (text) => (stderr += text));
  return { status, stdout, stderr };
};
const COMMANDS = ["call", "run", "tools", "docs", "prompt", "mcp", "agent", "models", "logs", "study"];

describe("help", () => {
  test.each(COMMANDS)("gg help %s and gg COMMAND --help print its own usage, options and two examples", async (name) => {
    const help = await gg("help", name);
    expect(help).toMatchObject({ status: 0, stderr: "" });
    expect((await gg(name, "--help")).stdout).toBe(help.stdout);
    expect(help.stdout).toMatch(new RegExp(`^Usage: gg ${name} `));
    expect(help.stdout).toContain("\nOptions:\n");
    const examples = help.stdout.split("\nExamples:\n")[1]?.trim().split("\n") ?? [];
    expect(examples).toHaveLength(2);
    for (const example of examples) expect(example.trim()).toMatch(new RegExp(`^(.*\\| )?gg ${name}\\b`));
  });

  test("gg --help and gg help list every command; gg alone prints the list on stderr and exits 2", async () => {
    const help = await gg("--help");
    expect(help.status).toBe(0);
    for (const name of COMMANDS) expect(help.stdout).toMatch(new RegExp(`\\n  ${name} `));
    expect((await gg("help")).stdout).toBe(help.stdout);
    expect(await gg()).toMatchObject({ status: 2, stdout: "", stderr: help.stdout });
  });

  test("options differ per command: each help lists what that command takes", async () => {
    expect((await gg("help", "run")).stdout).toContain("--memory <mb>");
    expect((await gg("help", "call")).stdout).not.toContain("--memory");
    expect((await gg("help", "agent")).stdout).toContain("--replay <file>");
  });
});

test("gg --version and -v print the package's version", async () => {
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };
  expect(await gg("--version")).toMatchObject({ status: 0, stdout: `${version}\n` });
  expect((await gg("-v")).stdout).toBe(`${version}\n`);
});

describe("refusals", () => {
  test("a mistyped command gets a suggestion, from gg and from gg help alike; exit 2", async () => {
    expect(await gg("rnu")).toMatchObject({ status: 2, stdout: "", stderr: "gg: unknown command 'rnu' (did you mean run?); gg --help lists the commands\n" });
    expect(await gg("help", "rnu")).toMatchObject({ status: 2, stderr: expect.stringContaining("did you mean run?") });
    expect(await gg("frobnicate")).toMatchObject({ status: 2, stderr: expect.not.stringContaining("did you mean") });
  });

  test("a mistyped option gets a suggestion", async () => {
    expect(await gg("call", "tree", "--workspce", ".")).toMatchObject({ status: 2, stderr: "gg: gg call does not take --workspce; did you mean --workspace? gg call --help lists its options.\n" });
  });

  test("an option the command does not take is refused by name, saying which command takes it", async () => {
    const run = await gg("call", "list_dir", "{}", "--check", "--memory", "5", "--arm", "x");
    expect(run).toMatchObject({ status: 2, stdout: "", stderr: "gg: gg call does not take --check (gg run takes it). gg call --help lists its options.\n" });
    expect(await gg("tools", "--workspace", ".")).toMatchObject({ status: 2, stderr: expect.stringContaining("gg tools does not take --workspace") });
    expect(await gg("agent", "--replay", "t.jsonl", "--model", "m")).toMatchObject({ status: 2, stderr: expect.stringContaining("--replay takes only --workspace and --json") });
  });

  test("a bad value names the option and why, negative numbers included", async () => {
    expect(await gg("call", "tree", "--budget", "-1")).toMatchObject({ status: 2, stderr: "gg: option '--budget <seconds>' argument '-1' is invalid: it must be a positive number; gg call --help lists its usage\n" });
    expect((await gg("prompt", "--arm", "x")).stderr).toContain("'--arm <arm>' argument 'x' is invalid: the choices are tools, code");
    expect((await gg("prompt")).stderr).toContain("required option '--arm <arm>' not specified");
    expect((await gg("call", "a", "b", "c")).stderr).toContain("too many arguments for 'call'");
  });

  test("under --json a refused command line is one JSON object on stdout naming the option, exit 2", async () => {
    for (const args of [["call", "tree", "--check", "--json"], ["call", "tree", "--budget", "-1", "--json"], ["rnu", "--json"], ["call", "nope", "--json"]]) {
      const run = await gg(...args);
      expect(run).toMatchObject({ status: 2, stderr: "" });
      expect(JSON.parse(run.stdout)).toEqual({ ok: false, error: { code: "invalid-argument", message: expect.any(String) } });
    }
    expect(JSON.parse((await gg("call", "tree", "--check", "--json")).stdout).error.message).toContain("--check");
    expect(JSON.parse((await gg("call", "tree", "--budget", "-1", "--json")).stdout).error.message).toContain("--budget");
  });
});

describe("gg logs", () => {
  test("lists what the log folder holds, and clean removes every log no running command holds", async () => {
    using ws = tempWorkspace();
    ws.put({ "cmd-1-0001.stdout": "out\n", "cmd-1-0001.stderr": "", "cmd-1-0002.stdout": "x".repeat(2048), "cmd-1-0002.stderr": "", "notes.txt": "not a log" });
    expect(await gg("logs", "--dir", ws.root)).toMatchObject({ status: 0, stdout: expect.stringMatching(new RegExp(`^4 shell log files \\(0\\.0 MB\\) in ${ws.root}, the oldest written .* UTC; 0 held by running commands\\. gg logs clean removes the others\\.\\n$`)) });
    const listed = JSON.parse((await gg("logs", "--dir", ws.root, "--json")).stdout) as { logs: { path: string; bytes: number; held: boolean }[] };
    expect(listed.logs.map((log) => log.path).sort()).toEqual(["cmd-1-0001.stderr", "cmd-1-0001.stdout", "cmd-1-0002.stderr", "cmd-1-0002.stdout"].map((name) => join(ws.root, name)));
    expect(JSON.parse((await gg("logs", "clean", "--dir", ws.root, "--json")).stdout)).toEqual({ ok: true, dir: ws.root, files: 4, bytes: 2052 });
    expect(readdirSync(ws.root)).toEqual(["notes.txt"]);
    expect((await gg("logs", "clean", "--dir", ws.root)).stdout).toBe(`Removed 0 files (0.0 MB) from ${ws.root}.\n`);
    expect((await gg("logs", "--dir", ws.root)).stdout).toBe(`No shell logs in ${ws.root}.\n`);
    expect((await gg("logs", "purge")).status).toBe(2);
  });
});
