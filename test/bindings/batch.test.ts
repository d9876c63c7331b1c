// The batch calls of seed 003 other than search: list, glob, read, edit and view_image, with every number the seed
// fixes, on real temp workspaces.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { edit } from "../../bindings/batch_edit.ts";
import { invoke } from "../../bindings/define.ts";
import { callContext } from "../../bindings/index.ts";
import { nodeFileHost } from "../../host/files.ts";
import { tempWorkspace } from "../workspace.ts";

const BATCH = [
  { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
  { id: "edit-file", implementation: "batch" },
  { id: "list-dir", implementation: "batch" },
  { id: "search", implementation: "batch" },
];

interface Answer {
  results: unknown[];
  truncated: boolean;
  next: unknown;
  skipped: number;
}

/** A batch call's answer, checked to be the compact JSON of its data. */
async function answer(ws: ReturnType<typeof tempWorkspace>, name: string, args: unknown): Promise<Answer> {
  const result = await ws.call(name, args, BATCH);
  if (!result.ok) throw new Error(`${name} failed: error[${result.error.code}]: ${result.error.message}`);
  expect(result.text).toBe(JSON.stringify(result.data));
  return JSON.parse(result.text) as Answer;
}

async function refusal(ws: ReturnType<typeof tempWorkspace>, name: string, args: unknown): Promise<{ code: string; message: string }> {
  const result = await ws.call(name, args, BATCH);
  if (result.ok) throw new Error(`${name} succeeded: ${result.text}`);
  return result.error;
}

const numbered = (count: number, prefix = "line"): string => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join("");

describe("glob and list", () => {
  test("glob matches whole workspace-relative paths with **, *, ?, braces and classes, even when path narrows the walk", async () => {
    using ws = tempWorkspace();
    ws.put({ "src/a.rs": "", "src/deep/b.rs": "", "src/c.ts": "", "tests/t1.rs": "", "tests/t22.rs": "", ".hidden/x.rs": "", "top.rs": "" });
    expect((await answer(ws, "glob", { patterns: ["src/**/*.rs", "tests/**/*.rs"] })).results).toEqual(["src/a.rs", "src/deep/b.rs", "tests/t1.rs", "tests/t22.rs"]);
    expect((await answer(ws, "glob", { patterns: ["tests/t?.rs"] })).results).toEqual(["tests/t1.rs"]);
    expect((await answer(ws, "glob", { patterns: ["src/*.{rs,ts}"] })).results).toEqual(["src/a.rs", "src/c.ts"]);
    expect((await answer(ws, "glob", { patterns: ["tests/t[0-9].rs"] })).results).toEqual(["tests/t1.rs"]);
    expect((await answer(ws, "glob", { patterns: ["**/*.rs"] })).results).toContain(".hidden/x.rs");
    // path narrows the walk; the pattern still reads the path from the working directory.
    expect((await answer(ws, "glob", { patterns: ["src/deep/*.rs"], path: "src" })).results).toEqual(["src/deep/b.rs"]);
    expect((await answer(ws, "glob", { patterns: ["deep/*.rs"], path: "src" })).results).toEqual([]);
  });

  test("default 100 results, at most 500, and a numeric cursor that resumes exactly", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = {};
    for (let i = 0; i < 620; i++) files[`f/${String(i).padStart(4, "0")}.txt`] = "";
    ws.put(files);
    const first = await answer(ws, "glob", { patterns: ["**"], max_bytes: 64000 });
    expect(first).toMatchObject({ truncated: true, next: 100 });
    expect(first.results).toHaveLength(100);
    const all: unknown[] = [];
    let cursor: unknown = 0;
    while (cursor !== null) {
      const page = await answer(ws, "glob", { patterns: ["**"], cursor, limit: 500, max_bytes: 64000 });
      all.push(...page.results);
      cursor = page.next;
    }
    expect(all).toEqual(Object.keys(files).sort());
    expect((await refusal(ws, "glob", { patterns: ["**"], limit: 501 })).code).toBe("invalid-argument");
    const listed = await answer(ws, "list", { path: "f", limit: 500, max_bytes: 64000 });
    expect(listed).toMatchObject({ truncated: true, next: 500 });
    expect((await answer(ws, "list", { path: "f", cursor: 500, limit: 500, max_bytes: 64000 })).results).toHaveLength(120);
  });

  test("the byte budget cuts a page with a cursor that continues where it stopped; 1024 and 64000 are its bounds", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = {};
    for (let i = 0; i < 90; i++) files[`${"d".repeat(40)}/${String(i).padStart(3, "0")}.txt`] = "";
    ws.put(files);
    const page = await answer(ws, "glob", { patterns: ["**"], max_bytes: 1024 });
    expect(page.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(1024);
    const rest = await answer(ws, "glob", { patterns: ["**"], cursor: page.next, limit: 500, max_bytes: 64000 });
    expect([...page.results, ...rest.results]).toEqual(Object.keys(files).sort());
    for (const max_bytes of [1023, 64001]) expect((await refusal(ws, "glob", { patterns: ["**"], max_bytes })).code).toBe("invalid-argument");
  });

  test("the skip list: node_modules and .git are left out and counted, include_ignored walks them, a named root is walked", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.js": "", "node_modules/m/index.js": "", ".git/HEAD": "", "sub/target/out.js": "" });
    expect(await answer(ws, "glob", { patterns: ["**/*.js"] })).toEqual({ results: ["a.js"], truncated: false, next: null, skipped: 3 });
    expect((await answer(ws, "glob", { patterns: ["**/*.js"], include_ignored: true })).results).toEqual(["a.js", "node_modules/m/index.js", "sub/target/out.js"]);
    expect((await answer(ws, "glob", { patterns: ["**/*.js"], path: "node_modules" })).results).toEqual(["node_modules/m/index.js"]);
    expect(await answer(ws, "list", {})).toEqual({ results: [{ path: "a.js", kind: "file" }, { path: "sub", kind: "dir" }], truncated: false, next: null, skipped: 2 });
  });

  test("a walk visits 10,000 entries; the 10,001st fails naming the bound and asking for a narrower path", async () => {
    using ws = tempWorkspace();
    ws.put({ "d/": "" });
    for (let i = 0; i < 9999; i++) writeFileSync(join(ws.root, "d", String(i)), "");
    // d and its 9,999 files: 10,000 entries.
    expect((await answer(ws, "glob", { patterns: ["d/1"] })).results).toEqual(["d/1"]);
    writeFileSync(join(ws.root, "d", "one-more"), "");
    const error = await refusal(ws, "glob", { patterns: ["d/1"] });
    expect(error.code).toBe("over-cap");
    expect(error.message).toMatch(/more than 10,000 entries.*narrower path/);
    // It says what the root holds that the walk leaves out, and which narrower paths there are.
    ws.put({ "node_modules/m/index.js": "", "e/x.js": "" });
    expect((await refusal(ws, "glob", { patterns: ["d/1"] })).message).toBe(
      "Cannot walk the working directory: it holds more than 10,000 entries, the most one walk visits, besides node_modules (on the skip list, left out); pass a narrower path, such as one of its directories: d, e",
    );
  });

  test("a name beginning with .. is a name inside the working directory, not the way out of it", async () => {
    using ws = tempWorkspace();
    ws.put({ "..cfg/a.ts": "" });
    expect((await answer(ws, "glob", { patterns: ["..cfg/*.ts"], path: "..cfg" })).results).toEqual(["..cfg/a.ts"]);
    expect((await answer(ws, "list", { path: "..cfg" })).results).toEqual([{ path: "..cfg/a.ts", kind: "file" }]);
  });

  test("one directory's entries are paged however many; only the recursive walks are bounded", async () => {
    using ws = tempWorkspace();
    ws.put({ "flat/": "" });
    for (let i = 0; i <= 10_000; i++) writeFileSync(join(ws.root, "flat", String(i).padStart(5, "0")), "");
    expect(await answer(ws, "list", { path: "flat", cursor: 9998, limit: 5 })).toMatchObject({ results: [{ path: "flat/09998" }, { path: "flat/09999" }, { path: "flat/10000" }], truncated: false, next: null });
    expect((await refusal(ws, "glob", { patterns: ["**"] })).code).toBe("over-cap");
  });

  test("a result that cannot fit the budget even alone fails the call rather than answer with no progress", async () => {
    using ws = tempWorkspace();
    const name = "\u0001".repeat(200);
    ws.put({ [name]: "" });
    const error = await refusal(ws, "glob", { patterns: ["*"], max_bytes: 1024 });
    expect(error).toMatchObject({ code: "over-cap", message: expect.stringContaining("raise max_bytes") });
    expect(await answer(ws, "glob", { patterns: ["*"], max_bytes: 2048 })).toMatchObject({ results: [name], truncated: false });
    const missing = `${"m".repeat(900)}.txt`;
    expect((await refusal(ws, "read", { files: [{ path: missing }], max_bytes: 1024 })).code).toBe("over-cap");
  });

  test("bad patterns, paths and files are clear errors", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "" });
    expect((await refusal(ws, "glob", { patterns: [] })).code).toBe("invalid-argument");
    expect((await refusal(ws, "glob", { patterns: ["*"], path: "missing" })).code).toBe("not-found");
    expect(await refusal(ws, "list", { path: "f.txt" })).toEqual({ code: "invalid-argument", message: "Cannot list f.txt: it is not a directory; read it with read" });
  });
});

describe("read", () => {
  test("many ranges of many files; repeated ranges of one file; a missing file fails beside the others", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": numbered(10), "b.txt": "one\r\ntwo\r\n", "bom.txt": "\uFEFFfirst\n" });
    const read = await answer(ws, "read", {
      files: [{ path: "a.txt", start_line: 2, end_line: 3 }, { path: "missing.txt" }, { path: "b.txt" }, { path: "a.txt", start_line: 9 }, { path: "bom.txt" }],
    });
    expect(read).toEqual({
      results: [
        { path: "a.txt", start_line: 2, end_line: 3, total_lines: 10, text: "line 2\nline 3" },
        // The way out it names is a call this configuration holds.
        { path: "missing.txt", error: { code: "not-found", message: expect.stringMatching(/missing\.txt.*check the path with list or glob$/) } },
        { path: "b.txt", start_line: 1, end_line: 2, total_lines: 2, text: "one\ntwo" },
        { path: "a.txt", start_line: 9, end_line: 10, total_lines: 10, text: "line 9\nline 10" },
        { path: "bom.txt", start_line: 1, end_line: 1, total_lines: 1, text: "first" },
      ],
      truncated: false,
      next: null,
      skipped: 1,
    });
  });

  test("a range without an end holds lineCap lines (200 by default under batch); 1000 lines at most", async () => {
    using ws = tempWorkspace();
    ws.put({ "long.txt": numbered(1500, "") });
    const [range] = (await answer(ws, "read", { files: [{ path: "long.txt" }], max_bytes: 64000 })).results as { end_line: number }[];
    expect(range?.end_line).toBe(200);
    const whole = await ws.call("read", { files: [{ path: "long.txt", start_line: 1, end_line: 1000 }], max_bytes: 64000 }, BATCH);
    expect(whole.ok).toBe(true);
    const over = await refusal(ws, "read", { files: [{ path: "long.txt", start_line: 1, end_line: 1001 }] });
    expect(over).toMatchObject({ code: "invalid-argument", message: expect.stringContaining("1001 lines is over the 1000") });
    const capped = await ws.call("read", { files: [{ path: "long.txt" }], max_bytes: 64000 }, [{ id: "read-file", implementation: "batch", params: { lineCap: 50 } }]);
    expect(capped.ok && (JSON.parse(capped.text) as Answer).results[0]).toMatchObject({ end_line: 50 });
  });

  test("16 ranges are taken, 17 refused; a malformed range or an empty path refuses the whole call", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": numbered(3) });
    const ranges = (count: number) => Array.from({ length: count }, () => ({ path: "a.txt", start_line: 1, end_line: 1 }));
    expect((await answer(ws, "read", { files: ranges(16) })).results).toHaveLength(16);
    expect((await refusal(ws, "read", { files: ranges(17) })).code).toBe("invalid-argument");
    for (const bad of [{ path: "a.txt", start_line: 0 }, { path: "a.txt", start_line: 3, end_line: 2 }, { path: "" }]) {
      expect((await refusal(ws, "read", { files: [{ path: "a.txt" }, bad] })).code).toBe("invalid-argument");
    }
  });

  test("the budget is shared by every range; next names the range and its first unread line, keeping its end", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": numbered(300, "a".repeat(30)), "b.txt": numbered(5) });
    const files = [{ path: "b.txt", start_line: 1, end_line: 2 }, { path: "a.txt", start_line: 1, end_line: 250 }, { path: "b.txt" }];
    const first = await answer(ws, "read", { files, max_bytes: 2000 });
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThanOrEqual(2000);
    expect(first.truncated).toBe(true);
    const next = first.next as { file_index: number; start_line: number; end_line: number };
    expect(next).toMatchObject({ file_index: 1, end_line: 250 });
    const partial = first.results[1] as { end_line: number; text: string };
    expect(next.start_line).toBe(partial.end_line + 1);
    // Continuing with that range and the files after it reads the rest exactly once.
    const lines = [partial.text];
    let rest: Answer["next"] = next;
    while (rest) {
      const at = rest as typeof next;
      const page = await answer(ws, "read", { files: [{ path: files[at.file_index]?.path, start_line: at.start_line, end_line: at.end_line }, ...files.slice(at.file_index + 1)], max_bytes: 2000 });
      for (const result of page.results) if ((result as { path: string }).path === "a.txt") lines.push((result as { text: string }).text);
      rest = page.next === null ? null : { ...(page.next as typeof next), file_index: (page.next as typeof next).file_index + at.file_index };
    }
    expect(lines.join("\n")).toBe(numbered(250, "a".repeat(30)).trimEnd());
  });

  test("a line larger than the whole budget is an error with a continuation past it, never a clipped line", async () => {
    using ws = tempWorkspace();
    ws.put({ "wide.txt": `short\n${"x".repeat(5000)}\nafter\n` });
    const first = await answer(ws, "read", { files: [{ path: "wide.txt", start_line: 2, end_line: 3 }], max_bytes: 1024 });
    expect(first.results).toEqual([{ path: "wide.txt", start_line: 2, error: { code: "over-cap", message: expect.stringContaining("raise max_bytes") } }]);
    expect(first).toMatchObject({ truncated: true, next: { file_index: 0, start_line: 3, end_line: 3 }, skipped: 1 });
    expect(JSON.stringify(first)).not.toContain("xxxx");
    expect((await answer(ws, "read", { files: [{ path: "wide.txt", start_line: 2, end_line: 2 }], max_bytes: 6000 })).results[0]).toMatchObject({ text: "x".repeat(5000) });
  });

  test("an answer never passes max_bytes, whatever the ranges, their line numbers and their failures", async () => {
    using ws = tempWorkspace();
    ws.put({ "e.txt": numbered(12_000, "e"), "wide.txt": `${"w".repeat(3000)}\n`, [`${"p".repeat(60)}/${"q".repeat(200)}.txt`]: numbered(50) });
    const ranges = [
      ...Array.from({ length: 13 }, (_, i) => ({ path: "e.txt", start_line: 1 + i * 900, end_line: 1000 + i * 900 })),
      { path: "missing.txt" },
      { path: "wide.txt" },
      { path: `${"p".repeat(60)}/${"q".repeat(200)}.txt`, start_line: 11_000, end_line: 11_999 },
    ];
    for (const max_bytes of [1024, 1500, 4000, 31_180, 64_000]) {
      let files = ranges as { path: string; start_line?: number; end_line?: number }[];
      for (let page = 0; page < 200 && files.length > 0; page++) {
        const result = await ws.call("read", { files, max_bytes }, BATCH);
        if (!result.ok) {
          expect(result.error.code).toBe("over-cap");
          break;
        }
        expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(max_bytes);
        const next = (result.data as { next: { file_index: number; start_line: number; end_line: number } | null }).next;
        files = next ? [{ path: files[next.file_index]?.path as string, start_line: next.start_line, end_line: next.end_line }, ...files.slice(next.file_index + 1)] : [];
      }
    }
    // Ranges whose end has more digits than their start, and a continuation with long line numbers, across many
    // budgets: whichever range the budget cuts, the answer stays within it.
    const { createTools } = await import("../../bindings/index.ts");
    const { parseConfiguration } = await import("../../bindings/config.ts");
    const tools = createTools({ workspace: ws.root, config: parseConfiguration(BATCH) });
    ws.put({ "blank.txt": "\n".repeat(1000) });
    const wide = [...Array.from({ length: 15 }, () => ({ path: "blank.txt", start_line: 1, end_line: 1000 })), { path: "blank.txt", start_line: 999_999_999, end_line: 999_999_999 }];
    for (let max_bytes = 29_000; max_bytes <= 33_000; max_bytes += 7) {
      const result = await tools.call("read", { files: wide, max_bytes });
      expect(result.ok && Buffer.byteLength(result.text) <= max_bytes).toBe(true);
    }
  });

  test("a picture or a binary file is refused as text, beside the readable ranges", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64"), "bin.dat": Buffer.from([1, 0, 2]), "ok.txt": "ok\n" });
    const read = await answer(ws, "read", { files: [{ path: "dot.png" }, { path: "bin.dat" }, { path: "ok.txt" }] });
    expect(read.results).toMatchObject([{ error: { code: "invalid-argument", message: expect.stringContaining("view_image") } }, { error: { code: "invalid-argument", message: expect.stringContaining("binary") } }, { text: "ok" }]);
  });
});

describe("edit", () => {
  test("replacements apply in order to the evolving text, in one write; line_number picks one of several", async () => {
    using ws = tempWorkspace();
    ws.put({ "app.rs": "fn a() { return false; }\nlet label = \"old label\";\nx = 1;\nx = 1;\n" });
    const done = await answer(ws, "edit", {
      path: "app.rs",
      edits: [
        { old: "return false;", new: "return true;" },
        { old: "old label", new: "new label" },
        { old: "new label", new: "newer label" },
        { old: "x = 1;", new: "x = 2;", line_number: 4 },
      ],
    });
    expect(done).toEqual({ results: [{ path: "app.rs", edits: 4, lines: [1, 2, 2, 4] }], truncated: false, next: null, skipped: 0 });
    expect(readFileSync(join(ws.root, "app.rs"), "utf8")).toBe("fn a() { return true; }\nlet label = \"newer label\";\nx = 1;\nx = 2;\n");
  });

  test("any invalid replacement leaves the file unchanged and names which one failed and why", async () => {
    using ws = tempWorkspace();
    const before = "one\ntwo\ntwo\n";
    ws.put({ "f.txt": before });
    const absent = await refusal(ws, "edit", { path: "f.txt", edits: [{ old: "one", new: "1" }, { old: "three", new: "3" }] });
    expect(absent).toMatchObject({ code: "no-match", message: expect.stringContaining("replacement 2 of 2") });
    const several = await refusal(ws, "edit", { path: "f.txt", edits: [{ old: "one", new: "1" }, { old: "two", new: "2" }] });
    expect(several).toMatchObject({ code: "ambiguous", message: expect.stringMatching(/replacement 2 of 2 .*2 times, at lines 2, 3/) });
    const elsewhere = await refusal(ws, "edit", { path: "f.txt", edits: [{ old: "two", new: "2", line_number: 1 }] });
    expect(elsewhere).toMatchObject({ code: "no-match", message: expect.stringContaining("not on line 1; it occurs at lines 2, 3") });
    const multiline = await refusal(ws, "edit", { path: "f.txt", edits: [{ old: "one\ntwo", new: "x", line_number: 1 }] });
    expect(multiline.code).toBe("invalid-argument");
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe(before);
  });

  test("an ambiguous old in a 30,000-line file is refused with its first lines and their count; line_number finds its line there", async () => {
    using ws = tempWorkspace();
    const before = Array.from({ length: 30_000 }, (_, i) => `line ${i + 1} here\n`).join("");
    ws.put({ "big.txt": before });
    const several = await refusal(ws, "edit", { path: "big.txt", edits: [{ old: "e", new: "E" }] });
    expect(several).toEqual({
      code: "ambiguous",
      message:
        "Cannot edit big.txt: replacement 1 of 1 has an old that occurs 90,000 times, at 30,000 lines, starting with lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10; add surrounding text to old, or pass line_number; the file is unchanged",
    });
    const onLine = await refusal(ws, "edit", { path: "big.txt", edits: [{ old: "e", new: "E", line_number: 29_999 }] });
    expect(onLine).toMatchObject({ code: "ambiguous", message: expect.stringContaining("occurs 3 times on line 29999") });
    const past = await refusal(ws, "edit", { path: "big.txt", edits: [{ old: "here", new: "there", line_number: 30_001 }] });
    expect(past).toMatchObject({ code: "no-match", message: expect.stringContaining("not on line 30001; it occurs at 30,000 lines, starting with lines 1, 2,") });
    expect(readFileSync(join(ws.root, "big.txt"), "utf8")).toBe(before);
    await answer(ws, "edit", { path: "big.txt", edits: [{ old: "here", new: "there", line_number: 29_999 }] });
    expect(readFileSync(join(ws.root, "big.txt"), "utf8")).toBe(before.replace("line 29999 here", "line 29999 there"));
  });

  test("line_number picks its line in a CRLF file, and on a last line without an ending", async () => {
    using ws = tempWorkspace();
    ws.put({ "win.txt": "x\r\nx\r\nx" });
    await answer(ws, "edit", { path: "win.txt", edits: [{ old: "x", new: "two", line_number: 2 }, { old: "x", new: "three", line_number: 3 }] });
    expect(readFileSync(join(ws.root, "win.txt"), "utf8")).toBe("x\r\ntwo\r\nthree");
  });

  test("a lone surrogate in any replacement is invalid-argument naming the replacement and its place; nothing is written", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "one\ntwo\n" });
    const lone = await refusal(ws, "edit", { path: "f.txt", edits: [{ old: "one", new: "1" }, { old: "two", new: "\ud83d" }] });
    expect(lone).toMatchObject({ code: "invalid-argument", message: expect.stringContaining("replacement 2 of 2 has a new that holds a lone surrogate U+D83D at line 1, column 1") });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("one\ntwo\n");
  });

  test("64 replacements are taken, 65 refused", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": numbered(65, "item") });
    const edits = (count: number) => Array.from({ length: count }, (_, i) => ({ old: `item ${i + 1}\n`, new: `done ${i + 1}\n` }));
    expect((await refusal(ws, "edit", { path: "f.txt", edits: edits(65) })).code).toBe("invalid-argument");
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe(numbered(65, "item"));
    await answer(ws, "edit", { path: "f.txt", edits: edits(64) });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe(`${numbered(64, "done")}item 65\n`);
  });

  test("CRLF endings and a byte-order mark are kept; LF text edits a CRLF file", async () => {
    using ws = tempWorkspace();
    ws.put({ "win.txt": "\uFEFFfirst\r\nsecond\r\nthird\r\n" });
    await answer(ws, "edit", { path: "win.txt", edits: [{ old: "first\nsecond", new: "1st\n2nd\nmore" }] });
    expect(readFileSync(join(ws.root, "win.txt"), "utf8")).toBe("\uFEFF1st\r\n2nd\r\nmore\r\nthird\r\n");
  });

  test("a file with mixed line endings takes LF text, as read shows it, across lines that end in CRLF", async () => {
    using ws = tempWorkspace();
    ws.put({ "mixed.txt": "a\r\nb\r\nc\n" });
    await answer(ws, "edit", { path: "mixed.txt", edits: [{ old: "a\nb", new: "A\nB" }] });
    expect(readFileSync(join(ws.root, "mixed.txt"), "utf8")).toBe("A\r\nB\r\nc\n");
  });

  test("a change made by another writer after the edit read the file is caught: conflict, and nothing is written", async () => {
    using ws = tempWorkspace();
    const file = join(ws.root, "f.txt");
    ws.put({ "f.txt": "alpha\n" });
    // Another process writes the file between the edit's read and its write (the second read is the check).
    let reads = 0;
    const files = {
      ...nodeFileHost,
      readFile(path: string): Buffer {
        if (++reads === 2) writeFileSync(file, "alpha, as someone else left it\n");
        return nodeFileHost.readFile(path);
      },
    };
    const result = await invoke(edit, { path: "f.txt", edits: [{ old: "alpha", new: "beta" }] }, { ...callContext({ workspace: ws.root, config: BATCH }), files });
    expect(result).toMatchObject({ ok: false, error: { code: "conflict", message: expect.stringContaining("changed since this edit read it") } });
    expect(readFileSync(file, "utf8")).toBe("alpha, as someone else left it\n");
  });
});

describe("view_image", () => {
  const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

  test("a picture travels as a picture, or is described for a model without vision; other files are refused", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG, "notes.txt": "text\n" });
    const seen = await ws.call("view_image", { path: "dot.png" }, BATCH);
    expect(seen).toMatchObject({ ok: true, attachments: [{ type: "image", mime: "image/png" }] });
    expect(seen.ok && JSON.parse(seen.text)).toEqual({ results: [{ path: "dot.png", format: "PNG", bytes: PNG.length, width: 1, height: 1, attached: true }], truncated: false, next: null, skipped: 0 });
    const blind = await ws.call("view_image", { path: "dot.png" }, { capabilities: BATCH, model: { vision: false } });
    expect(blind.ok && blind.attachments).toBeUndefined();
    expect(blind.ok && JSON.parse(blind.text).results[0]).toMatchObject({ attached: false, withheld: "this model cannot see images" });
    expect((await refusal(ws, "view_image", { path: "notes.txt" })).code).toBe("invalid-argument");
  });
});

describe("configurations", () => {
  test("each capability offers its batch calls under batch and its classic ones otherwise; mixing is allowed", async () => {
    using ws = tempWorkspace();
    const names = async (config: unknown) => {
      const { createTools } = await import("../../bindings/index.ts");
      const { parseConfiguration } = await import("../../bindings/config.ts");
      return createTools({ workspace: ws.root, config: parseConfiguration(config) }).definitions().map((tool) => tool.name);
    };
    expect(await names(BATCH)).toEqual(["read", "view_image", "write_file", "edit", "list", "glob", "search", "shell"]);
    expect(await names([{ id: "read-file", implementation: "batch", params: { lineCap: 200 } }])).toEqual(["read", "view_image", "write_file", "edit_file", "list_dir", "tree", "search", "shell"]);
    expect(await names([{ id: "edit-file", implementation: "batch" }, { id: "search", implementation: "batch" }])).toEqual(["read_file", "write_file", "edit", "list_dir", "tree", "search", "shell"]);
  });

  test("refusals name every bad value in one pass: a lineCap over 1000 under batch, an allowlist naming a call the implementation does not offer", async () => {
    const { parseConfiguration } = await import("../../bindings/config.ts");
    expect(() =>
      parseConfiguration({
        capabilities: [{ id: "read-file", implementation: "batch", params: { lineCap: 1001 } }, { id: "list-dir", implementation: "bulk" }],
        agents: [{ id: "a", allow: ["read_file", "glob", "list"] }, { id: "b", allow: ["edit"] }],
      }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          expect.stringContaining('"read-file" has lineCap 1001 under batch'),
          expect.stringContaining('"list-dir" has unknown implementation "bulk"; the implementations are "default", "batch"'),
          expect.stringContaining('allows read_file, which capability "read-file" does not offer under implementation "batch" (it offers "read", "view_image")'),
          expect.stringContaining('allows edit, which capability "edit-file" does not offer under implementation "default" (it offers "edit_file")'),
        ],
      }),
    );
  });
});
