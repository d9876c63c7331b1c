import { chmodSync, chownSync, linkSync, lstatSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LINES_SHOWN, occurrences } from "../../bindings/edit_file.ts";
import { numRuns } from "../deep.ts";
import { tempWorkspace } from "../workspace.ts";

/** 1-based numbers of the lines of `text` on which each occurrence of `needle` starts. */
function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) lines.push(text.slice(0, i).split("\n").length);
  return lines;
}

describe("edit_file", () => {
  test("replaces the one occurrence of old with new", async () => {
    using ws = tempWorkspace();
    const before = "const a = 1;\nconst b = 2;\nconst c = 3;\n";
    ws.put({ "f.js": before });
    await ws.text("edit_file", { path: "f.js", old: "const b = 2;", new: "const b = 20;" });
    expect(readFileSync(join(ws.root, "f.js"), "utf8")).toBe(before.replace("const b = 2;", "const b = 20;"));
  });

  test("replaces text spanning several lines, and can delete it", async () => {
    using ws = tempWorkspace();
    const before = "keep\ndrop one\ndrop two\nkeep too\n";
    ws.put({ "f.txt": before });
    await ws.text("edit_file", { path: "f.txt", old: "drop one\ndrop two\n", new: "" });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("keep\nkeep too\n");
  });

  test("inserts new literally, with no replacement-pattern expansion", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "price: X\n" });
    await ws.text("edit_file", { path: "f.txt", old: "X", new: "$& $1 $$ $`" });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("price: $& $1 $$ $`\n");
  });

  test("absent text is no-match with a message telling to re-read the file", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "alpha\nbeta\n" });
    const result = await ws.call("edit_file", { path: "f.txt", old: "gamma", new: "delta" });
    expect(result).toMatchObject({ ok: false, error: { code: "no-match" } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/re-?read|read (the file|it) again/i);
  });

  test("text that differs only in whitespace is no-match", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "if (x) {\n\treturn;\n}\n" });
    expect(await ws.call("edit_file", { path: "f.txt", old: "    return;", new: "\treturn 1;" })).toMatchObject({ ok: false, error: { code: "no-match" } });
  });

  test("text found several times is ambiguous, giving the count and the line of every occurrence", async () => {
    using ws = tempWorkspace();
    const before = ["start", "target();", "x", "y", "  target();", "z", "", "w", "target(); // again", "end", ""].join("\n");
    ws.put({ "dup.txt": before });
    const lines = occurrenceLines(before, "target();");
    expect(lines).toHaveLength(3);

    const result = await ws.call("edit_file", { path: "dup.txt", old: "target();", new: "other();" });
    expect(result).toMatchObject({ ok: false, error: { code: "ambiguous" } });
    if (result.ok) return;
    expect(result.error.message).toMatch(new RegExp(`\\b${lines.length}\\b`));
    expect(result.error.message).toMatch(new RegExp(lines.map((n) => `\\b${n}\\b`).join("\\D+")));
  });

  test("overlapping occurrences make an edit ambiguous", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "aaa\n" });
    const result = await ws.call("edit_file", { path: "f.txt", old: "aa", new: "b" });
    expect(result).toMatchObject({ ok: false, error: { code: "ambiguous" } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/\b2\b/);
    expect(result.error.message).toBe("Cannot edit f.txt: old occurs 2 times, at line 1; add surrounding lines to old so it matches exactly one place");
  });

  test("occurrences sharing a line name that line once", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "x = x + 1\ny = 2\nx\n" });
    const result = await ws.call("edit_file", { path: "f.txt", old: "x", new: "z" });
    expect(result).toMatchObject({ ok: false, error: { code: "ambiguous", message: expect.stringContaining("old occurs 3 times, at lines 1, 3;") } });
  });

  test("an ambiguous edit of a 30,000-line file names its first 10 lines and how many, in a bounded message", async () => {
    using ws = tempWorkspace();
    const before = Array.from({ length: 30_000 }, (_, i) => `line ${i + 1} here\n`).join("");
    ws.put({ "big.txt": before });
    const result = await ws.call("edit_file", { path: "big.txt", old: "e", new: "E" });
    expect(result).toMatchObject({ ok: false, error: { code: "ambiguous" } });
    if (result.ok) return;
    expect(result.error.message).toBe(
      "Cannot edit big.txt: old occurs 90,000 times, at 30,000 lines, starting with lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10; add surrounding lines to old so it matches exactly one place",
    );
    expect(readFileSync(join(ws.root, "big.txt"), "utf8")).toBe(before);
  });

  test("1 MiB of one letter on one line, with old two of it, is ambiguous at line 1", async () => {
    using ws = tempWorkspace();
    ws.put({ "z.txt": "z".repeat(1 << 20) });
    const result = await ws.call("edit_file", { path: "z.txt", old: "zz", new: "y" });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "ambiguous", message: "Cannot edit z.txt: old occurs 1,048,575 times, at line 1; add surrounding lines to old so it matches exactly one place" },
    });
  });

  test.each([
    ["old", { old: "a\ud800b", new: "x" }, "old holds a lone surrogate U+D800 at line 1, column 2 (character 2)"],
    ["new", { old: "two", new: "2\n\udc00" }, "new holds a lone surrogate U+DC00 at line 2, column 1 (character 3)"],
  ])("a lone surrogate in %s is invalid-argument naming its place, and the file is unchanged", async (_, edit, where) => {
    using ws = tempWorkspace();
    const before = "one\ntwo\na\ufffdb\n";
    ws.put({ "f.txt": before });
    const result = await ws.call("edit_file", { path: "f.txt", ...edit });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining(where) } });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe(before);
  });

  test("old and new identical is invalid-argument naming the parameters as the JSON does", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "one\n" });
    expect(await ws.call("edit_file", { path: "f.txt", old: "one", new: "one" })).toMatchObject({
      ok: false,
      error: { code: "invalid-argument", message: "Cannot edit f.txt: old and new are identical, so there is nothing to change" },
    });
  });

  test("a failed edit leaves the file byte for byte unchanged", async () => {
    using ws = tempWorkspace();
    const before = Buffer.from("one\r\ntwo\r\ntwo\r\n\xff\n", "latin1");
    ws.put({ "f.txt": before });
    expect(await ws.call("edit_file", { path: "f.txt", old: "three", new: "3" })).toMatchObject({ ok: false, error: { code: "no-match" } });
    expect(readFileSync(join(ws.root, "f.txt"))).toEqual(before);
    expect(await ws.call("edit_file", { path: "f.txt", old: "two", new: "2" })).toMatchObject({ ok: false, error: { code: "ambiguous" } });
    expect(readFileSync(join(ws.root, "f.txt"))).toEqual(before);
  });

  test("a CRLF file edited with LF text keeps CRLF on every line", async () => {
    using ws = tempWorkspace();
    ws.put({ "win.txt": "alpha\r\nbeta\r\ngamma\r\ndelta\r\n" });
    await ws.text("edit_file", { path: "win.txt", old: "beta\ngamma", new: "BETA\nnew line\nGAMMA" });
    const after = readFileSync(join(ws.root, "win.txt"), "utf8");
    expect(after).toBe("alpha\r\nBETA\r\nnew line\r\nGAMMA\r\ndelta\r\n");
    expect(after.replaceAll("\r\n", "")).not.toContain("\n");
  });

  test("a one-line edit that adds lines to a CRLF file adds them with CRLF", async () => {
    using ws = tempWorkspace();
    ws.put({ "win.txt": "alpha\r\nbeta\r\ngamma\r\n" });
    await ws.text("edit_file", { path: "win.txt", old: "beta", new: "beta\nbeta two" });
    const after = readFileSync(join(ws.root, "win.txt"), "utf8");
    expect(after).toBe("alpha\r\nbeta\r\nbeta two\r\ngamma\r\n");
  });

  test("a byte order mark survives an edit", async () => {
    using ws = tempWorkspace();
    ws.put({ "bom.txt": "\uFEFFfirst\nsecond\n" });
    await ws.text("edit_file", { path: "bom.txt", old: "first", new: "1st" });
    const after = readFileSync(join(ws.root, "bom.txt"));
    expect(after).toEqual(Buffer.from("\uFEFF1st\nsecond\n", "utf8"));
    expect(after.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  test("bytes that are not UTF-8 outside the edited span survive byte for byte", async () => {
    using ws = tempWorkspace();
    const head = Buffer.from("caf\xe9 na\xefve \xff\xfe\n", "latin1");
    const tail = Buffer.from("\n\xff\xfe\x80 end\n", "latin1");
    const before = Buffer.concat([head, Buffer.from("replace me", "utf8"), tail]);
    ws.put({ "latin1.txt": before });
    await ws.text("edit_file", { path: "latin1.txt", old: "replace me", new: "replaced ✓" });
    expect(readFileSync(join(ws.root, "latin1.txt"))).toEqual(Buffer.concat([head, Buffer.from("replaced ✓", "utf8"), tail]));
  });

  test("old equal to new is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "same\n" });
    expect(await ws.call("edit_file", { path: "f.txt", old: "same", new: "same" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("same\n");
  });

  test("an empty old is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "text\n" });
    expect(await ws.call("edit_file", { path: "f.txt", old: "", new: "x" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("text\n");
  });

  test("a missing file is not-found", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("edit_file", { path: "nope.txt", old: "a", new: "b" })).toMatchObject({ ok: false, error: { code: "not-found" } });
  });

  test("a directory is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "dir/": "" });
    expect(await ws.call("edit_file", { path: "dir", old: "a", new: "b" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("an empty path or an unknown parameter is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "a\n" });
    expect(await ws.call("edit_file", { path: "", old: "a", new: "b" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(await ws.call("edit_file", { path: "f.txt", old: "a", new: "b", all: true })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("a\n");
  });

  test("keeps the file's mode", async () => {
    using ws = tempWorkspace();
    ws.put({ "run.sh": "#!/bin/sh\necho old\n" });
    chmodSync(join(ws.root, "run.sh"), 0o755);
    await ws.text("edit_file", { path: "run.sh", old: "old", new: "new" });
    expect(statSync(join(ws.root, "run.sh")).mode & 0o7777).toBe(0o755);
    expect(readFileSync(join(ws.root, "run.sh"), "utf8")).toBe("#!/bin/sh\necho new\n");
  });

  test("editing a file with another hard link changes what both names read", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "one\ntwo\n" });
    linkSync(join(ws.root, "a.txt"), join(ws.root, "b.txt"));
    await ws.text("edit_file", { path: "b.txt", old: "two", new: "2" });
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("one\n2\n");
    expect(statSync(join(ws.root, "a.txt")).nlink).toBe(2);
  });

  test.skipIf(process.getuid?.() !== 0)("keeps the file's owner and group (as root)", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "one\n" });
    chownSync(join(ws.root, "f.txt"), 1234, 1234);
    await ws.text("edit_file", { path: "f.txt", old: "one", new: "1" });
    expect(statSync(join(ws.root, "f.txt"))).toMatchObject({ uid: 1234, gid: 1234 });
  });

  test("editing through a symlink edits its target and keeps the link", async () => {
    using ws = tempWorkspace();
    ws.put({ "real/t.txt": "before\n" });
    symlinkSync("real/t.txt", join(ws.root, "link.txt"));
    await ws.text("edit_file", { path: "link.txt", old: "before", new: "after" });
    expect(lstatSync(join(ws.root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(ws.root, "real/t.txt"), "utf8")).toBe("after\n");
  });

  test("an absolute path and a path through .. both edit the file", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "one\n", "sub/": "" });
    await ws.text("edit_file", { path: join(ws.root, "a.txt"), old: "one", new: "two" });
    await ws.text("edit_file", { path: "sub/../a.txt", old: "two", new: "three" });
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("three\n");
  });
});

describe("occurrences", () => {
  test("counts every occurrence, overlapping ones included, with the first offset and the lines, as a naive scan does", () => {
    const bytes = fc.uint8Array({ maxLength: 400 }).map((array) => Buffer.from(array.map((byte) => [97, 98, 10][byte % 3] as number)));
    fc.assert(
      fc.property(bytes, bytes.filter((needle) => needle.length > 0 && needle.length < 6), (haystack, needle) => {
        const starts: number[] = [];
        for (let i = 0; i + needle.length <= haystack.length; i++) if (haystack.subarray(i, i + needle.length).equals(needle)) starts.push(i);
        const lines = [...new Set(starts.map((start) => haystack.subarray(0, start).filter((byte) => byte === 10).length + 1))];
        expect(occurrences(haystack, needle)).toEqual({ count: starts.length, first: starts[0] ?? -1, lines: lines.length, shown: lines.slice(0, LINES_SHOWN) });
      }),
      { numRuns: numRuns(500), seed: 17 },
    );
  });
});

