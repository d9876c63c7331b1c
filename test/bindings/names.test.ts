// A file name holding a line break (or another control character) is shown on one line by every text rendering,
// as a JSON string that can be given back to a call; the data programs receive keeps the real name.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { shownPath } from "../../host/paths.ts";
import { tempWorkspace } from "../workspace.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f5e0b50000000049454e44ae426082", "hex");

describe("shownPath", () => {
  test.each([
    ["an ordinary name is shown as it is", "src/a b.ts", "src/a b.ts"],
    ["a quote inside a name leaves it as it is", 'a"b.txt', 'a"b.txt'],
    ["a line break is escaped, in quotes", "a\nb.txt", '"a\\nb.txt"'],
    ["a tab, a DEL and a line separator are escaped", "t\tx\u007f\u2028", '"t\\tx\\u007f\\u2028"'],
    ["a bidirectional control is escaped", "x\u202ey", '"x\\u202ey"'],
    ["a name beginning with a quote is quoted, so a shown quote always opens a JSON string", '"q', '"\\"q"'],
  ])("%s", (_, name, shown) => {
    expect(shownPath(name)).toBe(shown);
    if (shown.startsWith('"')) expect(JSON.parse(shown)).toBe(name);
  });
});

describe("a name holding a line break", () => {
  test("list_dir, tree and search show it on one line, escaped; the data keeps it", async () => {
    using ws = tempWorkspace();
    ws.put({ "a\nb.txt": "needle\n", "d\nir/x.txt": "needle\n", "plain.txt": "needle\n" });
    expect(await ws.text("list_dir", {})).toBe('"a\\nb.txt"\n"d\\nir"/\nplain.txt');
    expect(await ws.text("tree", {})).toBe('"a\\nb.txt"\n"d\\nir"/\n  x.txt\nplain.txt');
    expect(await ws.text("search", { query: "needle" })).toBe('"a\\nb.txt":1:needle\n"d\\nir/x.txt":1:needle\nplain.txt:1:needle');
    expect(await ws.text("search", { query: "absent", path: "d\nir" })).toBe('No matches for "absent" in "d\\nir" (1 file searched).');
    const listed = await ws.call("list_dir", {});
    expect(listed.ok && (listed.data as { entries: { name: string }[] }).entries.map((entry) => entry.name)).toEqual(["a\nb.txt", "d\nir", "plain.txt"]);
  });

  test("the name as shown, given back to a call as JSON, reaches the file", async () => {
    using ws = tempWorkspace();
    ws.put({ "a\nb.txt": "inside\n" });
    const shown = (await ws.text("list_dir", {})).split("\n")[0] as string;
    expect(await ws.text("read_file", JSON.parse(`{"path": ${shown}}`))).toBe("inside\n");
  });

  test("write_file, edit_file and a picture's read say the name on one line", async () => {
    using ws = tempWorkspace();
    ws.put({ "p\n.png": PNG });
    expect(await ws.text("write_file", { path: "w\nx.txt", content: "one\n" })).toBe('Created "w\\nx.txt" (4 bytes, 1 line)');
    expect(await ws.text("edit_file", { path: "w\nx.txt", old: "one", new: "two" })).toBe('Edited "w\\nx.txt": replaced 1 line at line 1 with 1 line');
    expect(readFileSync(join(ws.root, "w\nx.txt"), "utf8")).toBe("two\n");
    expect(await ws.text("read_file", { path: "p\n.png" })).toMatch(/^"p\\n\.png": PNG image, 1x1 pixels/);
  });

  test("an error quoting the path keeps it on one line", async () => {
    using ws = tempWorkspace();
    ws.put({ "f\n.txt": "x\n" });
    for (const [name, args] of [
      ["read_file", { path: "gone\nfile.txt" }],
      ["edit_file", { path: "f\n.txt", old: "absent", new: "y" }],
      ["list_dir", { path: "f\n.txt" }],
      ["read", { files: [{ path: "gone\nfile.txt" }] }],
    ] as const) {
      const result = await ws.call(name, args, name === "read" ? [{ id: "read-file", implementation: "batch", params: { lineCap: 200 } }] : undefined);
      const text = result.ok ? result.text : result.error.message;
      expect(text).not.toContain("\n");
      expect(text).toMatch(/"(gone\\nfile|f\\n)\.txt"/);
    }
  });
});
