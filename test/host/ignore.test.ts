import { execFileSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { walkFiles, walkRoot } from "../../host/walk.ts";
import { tempWorkspace } from "../workspace.ts";

const files = (root: string, workspace = root) => [...walkFiles(walkRoot(root, workspace))].map((f) => f.relative);

const layout = {
  ".gitignore": "*.log\nbuild/\n!keep.log\n/rootonly.txt\n",
  "app.log": "",
  "keep.log": "",
  "rootonly.txt": "",
  "build/out.js": "",
  "src/rootonly.txt": "",
  "src/.gitignore": "generated/\n!build/\n*.tmp\n",
  "src/generated/g.ts": "",
  "src/x.tmp": "",
  "src/main.ts": "",
  "src/deep/.gitignore": "!x.tmp\n",
  "src/deep/x.tmp": "",
  "docs/.ignore": "draft.md\n",
  "docs/draft.md": "",
  "docs/final.md": "",
  "notes/.gitignore": "secret.txt\n",
  "notes/.ignore": "!secret.txt\n",
  "notes/secret.txt": "",
};

const expected = [
  ".gitignore",
  "docs/.ignore",
  "docs/final.md",
  "keep.log",
  "notes/.gitignore",
  "notes/.ignore",
  "notes/secret.txt",
  "src/.gitignore",
  "src/deep/.gitignore",
  "src/deep/x.tmp",
  "src/main.ts",
  "src/rootonly.txt",
];

describe("ignore rules", () => {
  test("nested .gitignore and .ignore files with negations apply in a folder that is not a repository", async () => {
    using ws = tempWorkspace();
    ws.put(layout);
    expect(files(ws.root)).toEqual(expected);
  });

  test("the same rules apply in a git repository, plus .git/info/exclude, and .git itself is skipped", async () => {
    using ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.root]);
    ws.put({ ...layout, ".git/info/exclude": "src/main.ts\n" });
    expect(files(ws.root)).toEqual(expected.filter((f) => f !== "src/main.ts"));
  });

  test("matches git's own view of which files are not ignored", async () => {
    using ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.root]);
    const { "docs/.ignore": _a, "notes/.ignore": _b, ...gitOnly } = layout;
    ws.put({ ...gitOnly, ".git/info/exclude": "*.md\n" });
    const git = execFileSync("git", ["ls-files", "--others", "--cached", "--exclude-standard"], { cwd: ws.root, encoding: "utf8" })
      .trim()
      .split("\n")
      .sort();
    expect(files(ws.root).sort()).toEqual(git);
  });

  test("rules of enclosing directories apply to a walk rooted below them", async () => {
    using ws = tempWorkspace();
    ws.put(layout);
    expect(files(`${ws.root}/src`, ws.root)).toEqual([".gitignore", "deep/.gitignore", "deep/x.tmp", "main.ts", "rootonly.txt"]);
  });

  test("anchored rules of the enclosing repository apply however the root is spelled (inner, inner/., a workspace below)", async () => {
    using ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.root]);
    ws.put({ ".gitignore": "/inner/deep\n/inner/top.txt\n", "inner/deep/f.txt": "", "inner/top.txt": "", "inner/kept.txt": "" });
    for (const root of [`${ws.root}/inner`, `${ws.root}/inner/.`, `${ws.root}/inner/../inner/`]) expect(files(root, ws.root)).toEqual(["kept.txt"]);
    expect(files(`${ws.root}/inner/.`, `${ws.root}/inner`)).toEqual(["kept.txt"]);
  });

  test("rules are case-sensitive, as git's are here: build/ and *.log do not hide Build/ or X.LOG", async () => {
    using ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.root]);
    ws.put({ ".gitignore": "build/\n*.log\n", "Build/a.txt": "", "build/b.txt": "", "X.LOG": "", "y.log": "" });
    const git = execFileSync("git", ["ls-files", "--others", "--exclude-standard"], { cwd: ws.root, encoding: "utf8" }).trim().split("\n").sort();
    expect(files(ws.root).sort()).toEqual(git);
    expect(git).toEqual([".gitignore", "Build/a.txt", "X.LOG"]);
  });

  test("a root inside an ignored directory holds nothing for tree and search, even named explicitly; .git neither", async () => {
    using ws = tempWorkspace();
    ws.put({ ".gitignore": "node_modules/\n", "node_modules/pkg/index.js": "needle\n", ".git/config": "needle\n" });
    expect(files(`${ws.root}/node_modules/pkg`, ws.root)).toEqual([]);
    expect(files(`${ws.root}/.git`, ws.root)).toEqual([]);
    expect(await ws.text("search", { query: "needle", path: "node_modules" })).toBe('No matches for "needle" in node_modules (0 files searched; 1 ignored entry left out).');
    expect(await ws.text("search", { query: "needle", path: "node_modules/pkg/index.js" })).toBe('No matches for "needle" in node_modules/pkg/index.js (0 files searched; 1 ignored entry left out).');
    expect(await ws.text("tree", { path: "node_modules" })).toMatch(/^\(ignored: /);
    expect(await ws.text("list_dir", { path: "node_modules" })).toBe("pkg/");
  });

  test("a workspace inside a folder its enclosing repository ignores is searched whole: rules above it do not hide it", async () => {
    using ws = tempWorkspace();
    execFileSync("git", ["init", "-q", ws.root]);
    ws.put({ ".gitignore": "build/\n", "build/ws/src/a.txt": "needle\n", "build/ws/.gitignore": "skip/\n", "build/ws/skip/b.txt": "needle\n" });
    expect(files(`${ws.root}/build/ws`, `${ws.root}/build/ws`)).toEqual([".gitignore", "src/a.txt"]);
    expect(files(`${ws.root}/build/ws/src`, `${ws.root}/build/ws`)).toEqual(["a.txt"]);
    expect(files(`${ws.root}/build/ws/skip`, `${ws.root}/build/ws`)).toEqual([]);
  });

  test("an ignored file stays reachable by path through the other calls", async () => {
    using ws = tempWorkspace();
    ws.put({ ".gitignore": "secret.txt\n", "secret.txt": "needle\n" });
    expect(await ws.text("search", { query: "needle" })).toMatch(/^No matches/);
    expect(await ws.text("read_file", { path: "secret.txt" })).toBe("needle\n");
    expect(await ws.text("search", { query: "needle", path: "secret.txt" })).toBe('No matches for "needle" in secret.txt (0 files searched; 1 ignored entry left out).');
    expect(await ws.text("list_dir")).toBe(".gitignore\nsecret.txt");
    await ws.text("edit_file", { path: "secret.txt", old: "needle", new: "thread" });
    expect(await ws.text("read_file", { path: "secret.txt" })).toBe("thread\n");
  });

  test("a FIFO named .gitignore is skipped as unreadable, not waited on for a writer that never comes", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "needle\n" });
    execFileSync("mkfifo", [`${ws.root}/.gitignore`]);
    expect(files(ws.root)).toEqual(["a.txt"]);
    expect(await ws.text("search", { query: "needle" })).toBe("a.txt:1:needle");
  });
});
