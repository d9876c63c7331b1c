import { symlinkSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { TREE_MAX_BYTES, TREE_MAX_LINES } from "../../bindings/tree.ts";
import { tempWorkspace } from "../workspace.ts";

describe("tree", () => {
  test("renders the seed's example layout exactly", async () => {
    using ws = tempWorkspace();
    ws.put({
      "README.md": "",
      "engine/game.js": "",
      "engine/input.js": "",
      "engine/render/a.js": "",
      "engine/render/b.js": "",
      "engine/render/c/": "",
      "engine/render/d/x.js": "",
      "src/main.js": "",
      ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`src/systems/s${i}.js`, ""])),
    });
    expect(await ws.text("tree")).toBe(
      ["README.md", "engine/", "  game.js", "  input.js", "  render/ (4 entries not shown)", "src/", "  main.js", "  systems/ (7 entries not shown)"].join("\n"),
    );
  });

  test("depth 1 lists the root's own entries, with counts on directories", async () => {
    using ws = tempWorkspace();
    ws.put({ "a/x": "", "a/y": "", "b/": "", "c.txt": "" });
    expect(await ws.text("tree", { depth: 1 })).toBe(["a/ (2 entries not shown)", "b/", "c.txt"].join("\n"));
  });

  test("a single entry at the bound is counted in the singular", async () => {
    using ws = tempWorkspace();
    ws.put({ "a/b/c.txt": "" });
    expect(await ws.text("tree", { depth: 1 })).toBe("a/ (1 entry not shown)");
  });

  test("depth above 10 is answered at 10", async () => {
    using ws = tempWorkspace();
    const deep = Array.from({ length: 12 }, (_, i) => `d${i}`).join("/");
    ws.put({ [`${deep}/f.txt`]: "" });
    const text = await ws.text("tree", { depth: 50 });
    expect(text).toBe(await ws.text("tree", { depth: 10 }));
    expect(text.split("\n")).toHaveLength(10);
    expect(text.split("\n").at(-1)).toBe(`${"  ".repeat(9)}d9/ (1 entry not shown)`);
  });

  test("depth 0 and negative depths are invalid-argument", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("tree", { depth: 0 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(await ws.call("tree", { depth: -1 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("an empty root renders as (empty directory)", async () => {
    using ws = tempWorkspace();
    expect(await ws.text("tree")).toBe("(empty directory)");
  });

  test("a missing path is not-found and a file is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "" });
    expect(await ws.call("tree", { path: "missing" })).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(await ws.call("tree", { path: "f.txt" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("path roots the tree at a directory, unnamed", async () => {
    using ws = tempWorkspace();
    ws.put({ "src/a/b.ts": "", "src/c.ts": "" });
    expect(await ws.text("tree", { path: "src" })).toBe(["a/", "  b.ts", "c.ts"].join("\n"));
  });

  test("siblings come in path order, directories and files interleaved by name", async () => {
    using ws = tempWorkspace();
    ws.put({ "b.txt": "", "a/z": "", "A.txt": "", "_x": "", "a.txt": "" });
    expect(await ws.text("tree")).toBe(["A.txt", "_x", "a/", "  z", "a.txt", "b.txt"].join("\n"));
  });

  test("ignored entries are absent and .git is never shown", async () => {
    using ws = tempWorkspace();
    ws.put({ ".gitignore": "node_modules/\n*.log\n", "node_modules/p/i.js": "", "app.log": "", ".git/HEAD": "", "src/a.ts": "" });
    expect(await ws.text("tree")).toBe([".gitignore", "src/", "  a.ts"].join("\n"));
    // As data, how many entries the rules left out of what the tree shows: node_modules, app.log and .git.
    const data = await ws.call("tree");
    expect(data.ok && data.data).toMatchObject({ ignored: 3 });
  });

  test("a tree over 1000 lines is cut at 1000 lines, ending with a note", async () => {
    using ws = tempWorkspace();
    ws.put(Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`f${String(i).padStart(4, "0")}`, ""])));
    const lines = (await ws.text("tree")).split("\n");
    expect(lines).toHaveLength(TREE_MAX_LINES);
    expect(lines.at(-1)).toMatch(/^\[tree cut at 1000 lines/);
    expect(lines[0]).toBe("f0000");
    expect(lines.at(-2)).toBe("f0998");
  });

  test("a tree over 16 KiB is cut under 16 KiB, ending with a note", async () => {
    using ws = tempWorkspace();
    const name = (i: number) => `${String(i).padStart(3, "0")}-${"n".repeat(120)}`;
    ws.put(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [name(i), ""])));
    const text = await ws.text("tree");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TREE_MAX_BYTES);
    const lines = text.split("\n");
    expect(lines.at(-1)).toMatch(/^\[tree cut at 16 KiB/);
    expect(lines.slice(0, -1)).toEqual(Array.from({ length: lines.length - 1 }, (_, i) => name(i)));
  });

  test("a tree of exactly 1000 lines is whole, with no note", async () => {
    using ws = tempWorkspace();
    ws.put(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${String(i).padStart(4, "0")}`, ""])));
    const lines = (await ws.text("tree")).split("\n");
    expect(lines).toHaveLength(1000);
    expect(lines.at(-1)).toBe("f0999");
  });

  test("symbolic links are listed but not entered", async () => {
    using ws = tempWorkspace();
    ws.put({ "real/f.txt": "" });
    symlinkSync(`${ws.root}/real`, `${ws.root}/link`);
    symlinkSync(ws.root, `${ws.root}/real/loop`);
    expect(await ws.text("tree", { depth: 10 })).toBe(["link/ (symbolic link, not followed)", "real/", "  f.txt", "  loop/ (symbolic link, not followed)"].join("\n"));
  });
});
