// The opening turn: before a code agent's first turn, a view of the workspace's tree and one of each held module's
// docs, found by the search over the briefs; configurable, and never a module the agent does not hold.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, parseConfiguration } from "../../bindings/config.ts";
import { createRuntime } from "../../runtime/index.ts";
import { moduleDoc, searchDocs } from "../../runtime/docs.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const gg = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

describe("the search over the briefs", () => {
  test("ranks a function's name over its module over its brief, and leaves out what matches nothing", () => {
    expect(searchDocs("read a file").slice(0, 2).map((match) => match.function)).toEqual(["gg.files.readFile", "gg.views.openFile"]);
    expect(searchDocs("shell")).toMatchObject([{ function: "gg.shell.shell", module: "shell", signature: expect.stringMatching(/^shell\(command: string/), brief: expect.stringMatching(/^Run a shell command/) }]);
    expect(searchDocs("files").every((match) => match.module === "files")).toBe(true);
    expect(searchDocs("quantum entanglement")).toEqual([]);
  });

  test("sees only what the agent holds", () => {
    const config = parseConfiguration({ agents: [{ id: "reader", allow: ["read_file"] }] });
    expect(searchDocs("run a command", { ...config, allow: ["read_file"] })).toEqual([]);
    expect(moduleDoc("shell", { ...config, allow: ["read_file"] })).not.toContain("gg.shell.shell");
  });

  test("gg docs --search prints the ranked matches, --json as data", () => {
    expect(gg(["docs", "--search", "evict"]).stdout).toBe(
      "gg.context.evictFileView: Evict a file's views, and their pictures, from the context window; returns the tokens reclaimed.\n  evictFileView(path: string): Promise<Closed>\n",
    );
    expect(JSON.parse(gg(["docs", "--search", "evict", "--json"]).stdout)).toMatchObject([{ function: "gg.context.evictFileView", score: 3 }]);
    expect(gg(["docs", "--search", "zzz"]).stdout).toBe('No function of the gg global matches "zzz".\n');
  });
});

describe("runtime.openingTurn()", () => {
  test("opens the workspace's tree and the docs of files and shell by default, each a view with its cost", async () => {
    using ws = tempWorkspace();
    ws.put({ "src/a.ts": "", "src/deep/b.ts": "", "README.md": "" });
    const runtime = createRuntime({ workspace: ws.root });
    try {
      const opened = await runtime.openingTurn();
      expect(opened.map((view) => view.path)).toEqual(["gg://workspace/tree", "gg://docs/files", "gg://docs/shell"]);
      expect(opened[0]?.text).toBe("README.md\nsrc/\n  a.ts\n  deep/ (1 entries not shown)");
      // Each function with its parameters' defaults and limits, and its errors; the types are the code prompt's.
      expect(opened[1]?.text).toContain("### gg.files.search\n\n```ts\nsearch(query: string");
      expect(opened[1]?.text).toContain("- `limit` (number, optional): Matches to return. Default 50, at most 200.");
      expect(opened[2]?.text).toContain("- Errors: `invalid-argument`, `launch-failed`, `timeout`, `io-error`");
      expect(opened[2]?.text).not.toContain("interface ShellResult");
      for (const view of opened) expect(view.tokens).toBe(Math.ceil(Buffer.byteLength(view.text) / 4));
      // They are views like any other: listed, charged, and closed by their labels.
      const report = await runtime.run("const before = (await gg.context.breakdown()).fileViews; const closed = await gg.views.close('gg://docs/shell'); return { before, closed, left: (await gg.views.list()).map((view) => view.path) }");
      expect(report.result).toEqual({ before: opened.reduce((sum, view) => sum + view.tokens, 0), closed: { closed: 1, tokens: opened[2]?.tokens }, left: ["gg://workspace/tree", "gg://docs/files"] });
    } finally {
      runtime.close();
    }
  });

  test("follows the configuration, and never opens a module the agent does not hold", async () => {
    using ws = tempWorkspace();
    ws.put({ "a/b/c/d.txt": "" });
    const config = { openingTurn: { treeDepth: 3, modules: ["shell", "views", "context"] }, agents: [{ id: "reader", allow: ["read_file"] }] };
    const runtime = createRuntime({ workspace: ws.root, config });
    const reader = createRuntime({ workspace: ws.root, config, agent: "reader" });
    const none = createRuntime({ workspace: ws.root, config: { openingTurn: { modules: [] } } });
    try {
      const opened = await runtime.openingTurn();
      expect(opened.map((view) => view.path)).toEqual(["gg://workspace/tree", "gg://docs/shell", "gg://docs/views", "gg://docs/context"]);
      expect(opened[0]?.text).toBe("a/\n  b/\n    c/ (1 entries not shown)");
      // No tree (the reader holds no tree call) and no shell docs; views and context are every agent's.
      expect((await reader.openingTurn()).map((view) => view.path)).toEqual(["gg://docs/views", "gg://docs/context"]);
      expect((await none.openingTurn()).map((view) => view.path)).toEqual(["gg://workspace/tree"]);
    } finally {
      runtime.close();
      reader.close();
      none.close();
    }
  });

  test("a bad openingTurn is refused with every bad value named", () => {
    const refused = (() => {
      try {
        parseConfiguration({ openingTurn: { treeDepth: 11, modules: ["files", "network"], docs: true } });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    })();
    expect(refused).toEqual([
      '"openingTurn" has an unknown field "docs"; its fields are "treeDepth", "modules"',
      '"openingTurn.treeDepth" is 11; it must be a whole number from 1 to 10',
      '"openingTurn.modules" has unknown module "network"; the modules are "files", "shell", "views", "context"',
    ]);
  });

  test("gg prompt --arm code prints the system prompt, then the opening turn; --arm tools the prompt alone", () => {
    using ws = tempWorkspace();
    ws.put({ "notes.md": "" });
    const code = gg(["prompt", "--arm", "code", "--workspace", ws.root]);
    expect(code.status).toBe(0);
    expect(code.stdout).toMatch(/^You are a coding agent[\s\S]*# The gg global[\s\S]*\n# Opening turn\n\n## gg:\/\/workspace\/tree \(2 tokens\)\n\nnotes\.md\n\n## gg:\/\/docs\/files \(\d+ tokens\)/);
    const tools = gg(["prompt", "--arm", "tools", "--workspace", ws.root]);
    expect(tools.stdout).toMatch(/^You are a coding agent[\s\S]*# Running Commands/);
    expect(tools.stdout).not.toContain("Opening turn");
    expect(gg(["prompt", "--arm", "both"])).toMatchObject({ status: 2, stderr: 'gg: gg prompt needs --arm tools or --arm code, got "both"\n' });
  });
});
