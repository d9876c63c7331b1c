// The two surfaces cannot drift: a program receives each call's outcome as data, and the text a tool-calling model
// receives for the same call is the declaration's rendering of that data.
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Value } from "typebox/value";
import { afterAll, describe, expect, test } from "vitest";
import { CALLS } from "../../bindings/index.ts";
import { engineWorkspace, type EngineWorkspace } from "./engine.ts";

/** A workspace with a bit of everything the file calls render differently. */
function layout(ws: EngineWorkspace): void {
  ws.put({
    ".gitignore": "ignored/\n",
    "ignored/x.txt": "TODO hidden\n",
    "src/a.ts": "export const a = 1;\n// TODO one\n",
    "src/deep/er/b.ts": "// todo two\n// TODO three\n",
    "src/long.txt": `${"é".repeat(150)}TODO${"x".repeat(300)}\n`,
    "empty/": "",
    "notes.txt": "alpha\nbeta\ngamma\n",
    "crlf.txt": "one\r\ntwo\r\n",
  });
  for (let i = 0; i < 1100; i++) ws.put({ [`many/f${String(i).padStart(4, "0")}.txt`]: "" });
  symlinkSync("src", join(ws.root, "to-src"));
  symlinkSync("notes.txt", join(ws.root, "to-notes"));
  symlinkSync("nowhere", join(ws.root, "dangling"));
  mkdirSync(join(ws.root, "src/deep/er/est"));
}

/** The call named `name`: the batch one (seed 003) when `batch`, else the classic one. */
const callNamed = (name: string, batch = false) => CALLS.find((candidate) => candidate.name === name && Boolean(candidate.batch) === batch);

/** A program that makes `call` with `args` through the gg global and returns what it receives. */
function program(name: string, args: Record<string, unknown>, batch = false): string {
  const call = callNamed(name, batch);
  if (!call) throw new Error(`no call ${name}`);
  const options = Object.fromEntries(Object.entries(args).filter(([key]) => !call.code.positional.includes(key)));
  const given = call.code.positional.map((key) => (key in args ? JSON.stringify(args[key]) : "undefined"));
  if (Object.keys(options).length > 0) given.push(JSON.stringify(options));
  while (given.at(-1) === "undefined") given.pop();
  return `return await gg.${call.code.module}.${call.code.name}(${given.join(", ")})`;
}

const CASES: [string, Record<string, unknown>][] = [
  ["list_dir", {}],
  ["list_dir", { path: "src" }],
  ["list_dir", { path: "empty" }],
  ["tree", {}],
  ["tree", { depth: 1 }],
  ["tree", { path: "src", depth: 2 }],
  ["tree", { path: "src/", depth: 10 }],
  ["tree", { path: "ignored" }],
  ["tree", { path: "empty" }],
  ["search", { query: "TODO" }],
  ["search", { query: "(?i)todo", path: "src", limit: 2 }],
  ["search", { query: "TODO", path: "src/long.txt" }],
  ["search", { query: "TODO", path: "ignored/x.txt" }],
  ["search", { query: "nothing here", path: "src" }],
  ["read_file", { path: "notes.txt" }],
  ["read_file", { path: "notes.txt", offset: 2, limit: 1 }],
  ["shell", { command: "printf 'a\\nb'; exit 3" }],
  ["write_file", { path: "new/file.txt", content: "x\ny\n" }],
  ["write_file", { path: "notes.txt", content: "replaced" }],
  ["edit_file", { path: "notes.txt", old: "beta\ngamma", new: "B" }],
  ["edit_file", { path: "crlf.txt", old: "two", new: "2\n3" }],
];

/** Every capability with batch calls on batch. */
const BATCH = [
  { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
  { id: "edit-file", implementation: "batch" },
  { id: "list-dir", implementation: "batch" },
  { id: "search", implementation: "batch" },
];

const BATCH_CASES: [string, Record<string, unknown>][] = [
  ["glob", { patterns: ["src/**/*.ts"] }],
  ["glob", { patterns: ["**"], limit: 3 }],
  ["glob", { patterns: ["many/*"], max_bytes: 1024 }],
  ["list", { path: "src" }],
  ["list", { cursor: 2, limit: 2 }],
  ["read", { files: [{ path: "notes.txt", start_line: 2 }, { path: "missing.txt" }, { path: "crlf.txt" }] }],
  ["read", { files: [{ path: "src/long.txt" }], max_bytes: 1024 }],
  ["edit", { path: "notes.txt", edits: [{ old: "alpha", new: "A" }, { old: "gamma", new: "G" }] }],
  ["edit", { path: "crlf.txt", edits: [{ old: "two", new: "2\n3" }] }],
  ["search", { pattern: "TODO", context_lines: 1 }],
  ["search", { pattern: "todo", case_sensitive: false, mode: "files", limit: 1 }],
  ["search", { pattern: "T.DO", regex: true, path: "src", glob: "src/**/*.ts" }],
];

/** The laid-out workspaces the read-only cases share, one per surface, by configuration. */
type Surfaces = [EngineWorkspace, EngineWorkspace];
const shared = new Map<string, Surfaces>();
afterAll(() => {
  for (const pair of shared.values()) for (const ws of pair) ws[Symbol.dispose]();
});

/**
 * A laid-out workspace per surface (a tool call's, a program's) under `config`: fresh for a call that changes the
 * workspace (disposed with the result), else the pair the read-only cases share (laying out 1,100 files is most of a
 * case's time).
 */
function surfacesFor(config: unknown, changes: boolean): { pair: Surfaces; [Symbol.dispose](): void } {
  const key = JSON.stringify(config ?? null);
  let pair = changes ? undefined : shared.get(key);
  if (!pair) {
    const laidOut = (): EngineWorkspace => {
      const ws = engineWorkspace(config === undefined ? {} : { configEntries: config });
      layout(ws);
      return ws;
    };
    pair = [laidOut(), laidOut()];
    if (!changes) shared.set(key, pair);
  }
  const own = pair;
  return { pair, [Symbol.dispose]: () => changes && own.forEach((ws) => ws[Symbol.dispose]()) };
}

describe("typed results", () => {
  test.each(BATCH_CASES)("batch %s %j: the tool's text is the compact JSON of the data a program receives", async (name, args) => {
    const call = callNamed(name, true);
    if (!call) throw new Error(`no batch call ${name}`);
    using surfaces = surfacesFor(BATCH, call.effects === true);
    const [viaTool, viaProgram] = surfaces.pair;
    const tool = await viaTool.call(name, args, BATCH);
    const report = await viaProgram.run(program(name, args, true));
    expect(report.error).toBeUndefined();
    expect(tool.ok && tool.text).toBe(JSON.stringify(report.result));
    expect(Value.Check(call.result, report.result)).toBe(true);
    expect(call.render(report.result, args)).toBe(tool.ok && tool.text);
  });

  test.each(CASES)("%s %j: the tool's text is the rendering of the data a program receives", async (name, args) => {
    const call = CALLS.find((candidate) => candidate.name === name);
    if (!call) throw new Error(`no call ${name}`);
    using surfaces = surfacesFor(undefined, call.effects === true);
    const [viaTool, viaProgram] = surfaces.pair;
    const tool = await viaTool.call(name, args);
    const report = await viaProgram.run(program(name, args));
    expect(tool.ok).toBe(true);
    expect(report.error).toBeUndefined();
    expect(Value.Check(call.result, report.result)).toBe(true);
    if (!tool.ok) return;
    // read_file hands a program its text as it is, which is its rendering.
    const rendered = name === "read_file" ? report.result : call.render(report.result, args);
    expect(rendered).toBe(tool.text);
  });

  test("search: matches with their paths, lines and cuts, the files searched, and whether the limit was reached", async () => {
    using ws = engineWorkspace();
    layout(ws);
    const report = await ws.run(`
      const all = await gg.files.search("TODO");
      const two = await gg.files.search("(?i)todo", { path: "src", limit: 2 });
      const none = await gg.files.search("nothing here");
      return { all, two, none };
    `);
    expect(report.result).toEqual({
      all: {
        matches: [
          { path: "src/a.ts", line: 2, text: "// TODO one" },
          { path: "src/deep/er/b.ts", line: 2, text: "// TODO three" },
          { path: "src/long.txt", line: 1, text: `${"é".repeat(150)}TODO${"x".repeat(46)}`, cut: 254 },
        ],
        filesSearched: 1106,
        limitReached: false,
        ignored: 1,
      },
      two: { matches: [{ path: "src/a.ts", line: 2, text: "// TODO one" }, { path: "src/deep/er/b.ts", line: 1, text: "// todo two" }], filesSearched: 2, limitReached: true },
      none: { matches: [], filesSearched: 1106, limitReached: false, ignored: 1 },
    });
  });

  test("listDir: entries with their kind, and for a symlink what it points to", async () => {
    using ws = engineWorkspace();
    layout(ws);
    const report = await ws.run("return (await gg.files.listDir()).entries.filter((entry) => !entry.name.startsWith('.'))");
    expect(report.result).toEqual([
      { name: "crlf.txt", kind: "file" },
      { name: "dangling", kind: "symlink", linksTo: "other" },
      { name: "empty", kind: "dir" },
      { name: "ignored", kind: "dir" },
      { name: "many", kind: "dir" },
      { name: "notes.txt", kind: "file" },
      { name: "src", kind: "dir" },
      { name: "to-notes", kind: "symlink", linksTo: "file" },
      { name: "to-src", kind: "symlink", linksTo: "dir" },
    ]);
  });

  test("tree: entries with paths as the call spells them, depths, and what the depth bound hides; a cut tree says so", async () => {
    using ws = engineWorkspace();
    layout(ws);
    const report = await ws.run(`
      const src = await gg.files.tree("./src", { depth: 2 });
      const root = await gg.files.tree(".", { depth: 2 });
      return { src: src.entries, srcCut: src.cut, rootCut: root.cut, rootEntries: root.entries.length, last: root.entries.at(-1), lines: root.text.split("\\n").length };
    `);
    expect(report.result).toEqual({
      src: [
        { path: "./src/a.ts", kind: "file", depth: 1 },
        { path: "./src/deep", kind: "dir", depth: 1 },
        { path: "./src/deep/er", kind: "dir", depth: 2, notShown: 2 },
        { path: "./src/long.txt", kind: "file", depth: 1 },
      ],
      srcCut: false,
      rootCut: true,
      // Every line but the cut note is an entry: .gitignore, crlf.txt, dangling, empty/, many/ and 994 of its files.
      rootEntries: 999,
      last: { path: "many/f0993.txt", kind: "file", depth: 2 },
      lines: 1000,
    });
  });

  test("writeFile and editFile: what was written, and where the edit landed", async () => {
    using ws = engineWorkspace();
    layout(ws);
    const report = await ws.run(`
      const created = await gg.files.writeFile("out/new.txt", "a\\nb");
      const overwrote = await gg.files.writeFile("out/new.txt", "héllo\\n");
      const edited = await gg.files.editFile("notes.txt", "beta\\ngamma\\n", "B\\n");
      return { created, overwrote, edited };
    `);
    expect(report.result).toEqual({
      created: { path: "out/new.txt", bytes: 3, lines: 2, created: true },
      overwrote: { path: "out/new.txt", bytes: 7, lines: 1, created: false },
      edited: { path: "notes.txt", line: 2, oldLines: 2, newLines: 1 },
    });
  });
});

describe("a result that cannot be returned", () => {
  test("a getter throwing a huge message is invalid-result with a bounded message, never result-too-large", async () => {
    using ws = engineWorkspace();
    const report = await ws.run('return { get x() { throw new Error("m".repeat(100000)); } };');
    expect(report.error?.code).toBe("invalid-result");
    expect(report.error?.message.length).toBeLessThan(2000);
    expect(report.error?.message).toMatch(/^The returned value cannot be turned into JSON \(m+\); return plain data/);
  });
});
