// bin/gg.js started by a Node older than 24 runs gg under the Node the project pins. An older Node is simulated with
// a preloaded module that rewrites process.versions, so the test needs no second Node on the machine.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const OLD_NODE = `data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.1.0" } });`;

/** Runs `script` as a Node that says it is 20.1.0 would. */
const asOldNode = (script: string, args: string[], input?: string) =>
  spawnSync(process.execPath, ["--import", OLD_NODE, script, ...args], { encoding: "utf8", ...(input === undefined ? {} : { input }) });

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

  test("without the pinned Node it says what to do, and exits 2", () => {
    using ws = tempWorkspace();
    mkdirSync(join(ws.root, "bin"));
    copyFileSync(bin, join(ws.root, "bin", "gg.js"));
    expect(asOldNode(join(ws.root, "bin", "gg.js"), ["tools"])).toMatchObject({
      status: 2,
      stdout: "",
      stderr: "gg: cannot start: gg needs Node 24 or later, this is Node 20.1.0, and the pinned Node is not installed; run npm ci in gg's folder, or use Node 24\n",
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
});
