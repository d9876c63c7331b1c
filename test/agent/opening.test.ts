// The opening turn: before a code agent's first turn, a view of the workspace's tree within its token budget and one of
// each held module's docs; configurable, and never a module the agent does not hold.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, defaultConfiguration, parseConfiguration } from "../../bindings/config.ts";
import { createEngine } from "../../runtime/engine.ts";
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
      expect(opened[0]?.text).toBe("README.md\nsrc/\n  a.ts\n  deep/ (1 entry not shown)");
      // A line per function: its brief, then what its compact signature in the prompt does not say (defaults, limits).
      const files = (opened[1]?.text ?? "").split("\n");
      expect(files.map((line) => line.slice(0, line.indexOf(":")))).toEqual(["readFile", "writeFile", "editFile", "listDir", "tree", "search"]);
      expect(files[5]).toBe("search: Find the lines matching a Rust regular expression across the workspace's files. query e.g. foo|bar, fn\\s+update, (?i)todo. limit: default 50, at most 200.");
      expect(opened[2]?.text).toMatch(/^shell: Run a shell command and get its exit code and output\. sh -c in the workspace; timeoutSecs: default 3600;/);
      // No types: the code prompt carries them, once.
      expect(opened.map((view) => view.text).join("\n")).not.toMatch(/interface|Promise<|\{ path: string/);
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
    // Engines in this process: what the runtime's openingTurn asks its runner's engine for, without a runner each.
    const engine = (file: object, agent?: string) => createEngine({ workspace: ws.root, config: parseConfiguration(file), ...(agent ? { agent } : {}) });
    const [runtime, reader, none, treeless] = [engine(config), engine(config, "reader"), engine({ openingTurn: { modules: [] } }), engine({ openingTurn: { treeTokens: 0 } })];
    try {
      const opened = runtime.openingTurn();
      expect(opened.map((view) => view.path)).toEqual(["gg://workspace/tree", "gg://docs/shell", "gg://docs/views", "gg://docs/context"]);
      expect(opened[0]?.text).toBe("a/\n  b/\n    c/ (1 entry not shown)");
      expect(opened[2]?.text).toMatch(/^openFile: Show a file to yourself/);
      // No tree (the reader holds no tree call) and no shell docs; views and context are every agent's.
      expect(reader.openingTurn().map((view) => view.path)).toEqual(["gg://docs/views", "gg://docs/context"]);
      expect(none.openingTurn().map((view) => view.path)).toEqual(["gg://workspace/tree"]);
      expect(treeless.openingTurn().map((view) => view.path)).toEqual(["gg://docs/files", "gg://docs/shell"]);
    } finally {
      for (const each of [runtime, reader, none, treeless]) await each.close();
    }
  });

  test("a bad openingTurn is refused with every bad value named", () => {
    const refused = (() => {
      try {
        parseConfiguration({ openingTurn: { treeDepth: 11, treeTokens: -1, modules: ["files", "network"], docs: true } });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    })();
    expect(refused).toEqual([
      '"openingTurn" has an unknown field "docs"; its fields are "treeDepth", "treeTokens", "modules"',
      '"openingTurn.treeDepth" is 11; it must be a whole number from 1 to 10',
      '"openingTurn.treeTokens" is -1; it must be a whole number of tokens, 0 for no tree',
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
    expect(gg(["prompt", "--arm", "both"])).toMatchObject({ status: 2, stderr: "gg: option '--arm <arm>' argument 'both' is invalid: the choices are tools, code; gg prompt --help lists its usage\n" });
  });
});

describe("the opening tree's token budget", () => {
  const opening = async (root: string, openingTurn: object = {}) => {
    const engine = createEngine({ workspace: root, config: parseConfiguration({ openingTurn: { modules: [], ...openingTurn } }) });
    try {
      return engine.openingTurn()[0];
    } finally {
      await engine.close();
    }
  };

  test("a deep folder is shown at the deepest depth whose tree fits the budget", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = {};
    for (const dir of ["alpha", "beta", "gamma"]) for (let i = 0; i < 30; i++) files[`${dir}/module-${String(i).padStart(2, "0")}.ts`] = "";
    ws.put({ ...files, "README.md": "" });
    // Depth 2 lists 94 lines (about 250 tokens); depth 1 fits 200 tokens.
    const view = await opening(ws.root);
    expect(view?.text).toBe("README.md\nalpha/ (30 entries not shown)\nbeta/ (30 entries not shown)\ngamma/ (30 entries not shown)");
    expect((await opening(ws.root, { treeTokens: 400 }))?.text.split("\n")).toHaveLength(94);
    // The configured depth stays the deepest it may go.
    expect((await opening(ws.root, { treeTokens: 400, treeDepth: 1 }))?.text).toBe(view?.text);
  });

  test("a flat folder too big for the budget is summarised in a few lines: every entry counted, none silently left out", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = { "fp/": "", "docs/guide.md": "", "README.md": "", LICENSE: "", "package.json": "" };
    for (let i = 0; i < 640; i++) files[`function-number-${i}.js`] = "";
    for (let i = 0; i < 12; i++) files[`fp/f${i}.js`] = "";
    ws.put(files);
    const view = await opening(ws.root);
    expect(view?.text).toBe(
      [
        "(645 entries at the top level, too many to list in the opening turn: 643 files, 2 directories)",
        "directories (entries): docs/ (1), fp/ (12)",
        "files: .js 640, .json 1, .md 1, no extension 1",
        'gg.files.listDir() lists them all; gg.files.tree("docs") shows a directory.',
      ].join("\n"),
    );
    expect(view?.tokens).toBeLessThanOrEqual(200);
  });

  test("a summary cut by its budget counts what it leaves out; a tree the tree call cuts is never shown", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = {};
    // 1,100 entries: even a generous budget would show a tree cut at its 1,000 lines, so the summary is shown.
    for (let i = 0; i < 60; i++) files[`directory-with-a-long-name-${String(i).padStart(2, "0")}/x.txt`] = "";
    for (let i = 0; i < 1040; i++) files[`file-${i}.${["ts", "js", "md", "json", "txt", "css", "html", "yml"][i % 8]}${i % 40 === 0 ? `.v${i}` : ""}`] = "";
    ws.put(files);
    const tight = await opening(ws.root, { treeTokens: 100 });
    const lines = tight?.text.split("\n") ?? [];
    expect(lines[0]).toBe("(1,100 entries at the top level, too many to list in the opening turn: 1,040 files, 60 directories)");
    expect(lines[1]).toMatch(/^directories \(entries\): directory-with-a-long-name-00\/ \(1\)(, .*)?, and \d+ more$/);
    expect(lines[2]).toMatch(/^files: \.css 130, \.html 130, .*, and \d+ more$/);
    expect(lines.at(-1)).toBe('gg.files.listDir() lists them all; gg.files.tree("directory-with-a-long-name-00") shows a directory.');
    expect(tight?.tokens).toBeLessThanOrEqual(100);
    const roomy = await opening(ws.root, { treeTokens: 100_000 });
    expect(roomy?.text).toMatch(/^\(1,100 entries at the top level/);
    expect(roomy?.text).toContain("directory-with-a-long-name-59/ (1)\nfiles: .css 130, .html 130, .js 130, .json 130, .md 130, .txt 130, .yml 130, .ts 104, .v0 1, .v1000 1, .v120 1,");
  });

  test("an empty folder is said to be empty", async () => {
    using ws = tempWorkspace();
    expect(await opening(ws.root)).toMatchObject({ path: "gg://workspace/tree", text: "(empty directory)" });
  });
});

describe("the opening tree's edges", () => {
  test("an empty folder under the smallest budget is still just said to be empty", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, config: { openingTurn: { modules: [], treeTokens: 1 } } });
    try {
      expect((await runtime.openingTurn()).map((view) => view.text)).toEqual(["(empty directory)"]);
    } finally {
      runtime.close();
    }
  });

  test("without list_dir and without a directory, the summary points to tree", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`note-${i}.md`] = "";
    ws.put(files);
    const config = { openingTurn: { modules: [], treeTokens: 50 }, agents: [{ id: "lister", allow: ["tree"] }] };
    const runtime = createRuntime({ workspace: ws.root, config, agent: "lister" });
    try {
      expect((await runtime.openingTurn())[0]?.text).toBe("(50 entries at the top level, too many to list in the opening turn: 50 files)\nfiles: .md 50\ngg.files.tree() lists as many as it can.");
    } finally {
      runtime.close();
    }
  });

  test("a configuration parsed before the tree had a budget (a transcript's) gets the default one", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "" });
    const config = defaultConfiguration();
    const { treeDepth, modules } = config.openingTurn;
    const runtime = createRuntime({ workspace: ws.root, config: { ...config, openingTurn: { treeDepth, modules } as typeof config.openingTurn } });
    try {
      expect((await runtime.openingTurn()).map((view) => view.path)).toEqual(["gg://workspace/tree", "gg://docs/files", "gg://docs/shell"]);
    } finally {
      runtime.close();
    }
  });
});
