// bin/gg.js started by a Node older than 24 runs gg under the Node gg-runtime depends on. An older Node is simulated with
// a preloaded module that rewrites process.versions, so the test needs no second Node on the machine.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const OLD_NODE = `data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.1.0" } });`;

/** Runs `script` as a Node that says it is 20.1.0 would. */
const asOldNode = (script: string, args: string[], input?: string, env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, ["--import", OLD_NODE, script, ...args], { encoding: "utf8", env, ...(input === undefined ? {} : { input }) });

describe("bin/gg.js on an older Node", () => {
  test("hands over to the pinned Node: programs run, and the exit status comes back", () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    const parent = asOldNode(bin, ["call", "shell", '{"command":"ps -o args= -p $PPID"}', "--workspace", ws.root]);
    expect(parent.status).toBe(0);
    // gg itself ran under the pinned Node, not under the Node that started it.
    expect(parent.stdout).toContain(join("node_modules", "node", "bin", "node"));
    expect(parent.stdout).not.toContain("--import");
    expect(asOldNode(bin, ["run", "-", "--workspace", ws.root], "return (await gg.files.listDir()).entries.map((entry) => entry.name)")).toMatchObject({ status: 0, stdout: '[\n  "a.txt"\n]\n' });
    expect(asOldNode(bin, ["call", "read_file", '{"path":"missing.txt"}', "--workspace", ws.root])).toMatchObject({ status: 1, stdout: expect.stringMatching(/^error\[not-found\]/) });
    expect(asOldNode(bin, ["call", "nope"]).status).toBe(2);
  });

  test("handed over to a Node that is old too, it says so rather than hand over again", () => {
    const run = asOldNode(bin, ["tools"], undefined, { ...process.env, GG_HANDED_OVER_FROM_NODE: "18.0.0" });
    expect(run).toMatchObject({ status: 2, stdout: "" });
    expect(run.stderr).toBe(`gg: cannot start: gg needs Node 24 or later, this is Node 20.1.0, and the Node that Node 18.0.0 handed over to (${process.execPath}) is older too; run npm ci in ${join(import.meta.dirname, "../..")}/, or use Node 24\n`);
  });

  test("without the pinned Node, in a checkout, it names npm ci in one line and exits 2", () => {
    using ws = tempWorkspace();
    mkdirSync(join(ws.root, "bin"));
    copyFileSync(bin, join(ws.root, "bin", "gg.js"));
    expect(asOldNode(join(ws.root, "bin", "gg.js"), ["tools"])).toMatchObject({
      status: 2,
      stdout: "",
      stderr: `gg: cannot start: gg needs Node 24 or later, this is Node 20.1.0, and the Node 24 it depends on (npm's node package) is not installed; run npm ci in ${ws.root}/, or use Node 24\n`,
    });
  });

  test("without the pinned Node, installed, it names the npx line that brings Node 24 with the same arguments", () => {
    using ws = tempWorkspace();
    const installed = join(ws.root, "node_modules", "gg-runtime", "bin");
    mkdirSync(installed, { recursive: true });
    copyFileSync(bin, join(installed, "gg.js"));
    expect(asOldNode(join(installed, "gg.js"), ["mcp", "--workspace", "/my project/it's"])).toMatchObject({
      status: 2,
      stdout: "",
      stderr: `gg: cannot start: gg needs Node 24 or later, this is Node 20.1.0, and the Node 24 it depends on (npm's node package) is not installed; run it as: npx -y -p node@24 -p gg-runtime gg mcp --workspace '/my project/it'\\''s'\n`,
    });
  });
});

describe("bin/gg, the command npm links", () => {
  test("runs gg under the pinned Node whatever node is on PATH, also through a link to it from elsewhere", () => {
    using ws = tempWorkspace();
    symlinkSync(join(import.meta.dirname, "../../bin/gg"), join(ws.root, "gg"));
    // A PATH whose node is not the pinned one: the launcher must not depend on it.
    const run = spawnSync(join(ws.root, "gg"), ["call", "shell", '{"command":"ps -o args= -p $PPID"}', "--workspace", ws.root], { encoding: "utf8", env: { ...process.env, PATH: "/usr/bin:/bin" } });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^\\S*${join("node_modules", "node", "bin", "node").replaceAll("/", "\\/")} \\S*bin/gg\\.js call shell`));
  });

  test("finds the pinned Node beside gg-runtime, where npm puts it in a project's or npx's node_modules", () => {
    using ws = tempWorkspace();
    const root = join(import.meta.dirname, "../..");
    const installed = join(ws.root, "node_modules", "gg-runtime");
    mkdirSync(join(installed, "bin"), { recursive: true });
    for (const file of ["gg", "gg.js"]) copyFileSync(join(root, "bin", file), join(installed, "bin", file));
    symlinkSync(join(root, "dist"), join(installed, "dist"));
    symlinkSync(join(root, "node_modules", "node"), join(ws.root, "node_modules", "node"));
    const run = spawnSync(join(installed, "bin", "gg"), ["call", "shell", '{"command":"ps -o args= -p $PPID"}', "--workspace", ws.root], { encoding: "utf8", env: { ...process.env, PATH: "/usr/bin:/bin" } });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${installed}/bin/\\.\\./\\.\\./node/bin/node ${installed}/bin/gg\\.js call shell`));
  });
});

test("gg piped into a reader that stops early ends quietly, exit 0, no stack", () => {
  const run = spawnSync("bash", ["-o", "pipefail", "-c", `'${process.execPath}' '${bin}' docs | head -1`], { encoding: "utf8" });
  expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: "# The gg global\n", stderr: "" });
});
