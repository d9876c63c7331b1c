import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

describe("list_dir", () => {
  test("lists entries in path order with directories suffixed /", async () => {
    using ws = tempWorkspace();
    ws.put({ "b.txt": "", "a/": "", "C.md": "", ".hidden": "", "node_modules/x.js": "", ".gitignore": "node_modules\n" });
    expect(await ws.text("list_dir", { path: "." })).toBe([".gitignore", ".hidden", "C.md", "a/", "b.txt", "node_modules/"].join("\n"));
  });

  test("defaults to the working directory", async () => {
    using ws = tempWorkspace();
    ws.put({ "x.txt": "" });
    expect(await ws.text("list_dir")).toBe("x.txt");
  });

  test("an empty directory says so", async () => {
    using ws = tempWorkspace();
    ws.put({ "empty/": "" });
    expect(await ws.text("list_dir", { path: "empty" })).toBe("(empty directory)");
  });

  test("a missing path is not-found and a file is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "x" });
    expect(await ws.call("list_dir", { path: "nope" })).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(await ws.call("list_dir", { path: "f.txt" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("an empty path is refused", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("list_dir", { path: "" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });
});
