// The batch search (seed 003) on real temp workspaces: literal and regex patterns, glob, context lines, files mode,
// the limit, the {file_index, line} cursor, the byte budget, snippets, skipped files, the skip list and the walk cap.
import { linkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const BATCH_SEARCH = [{ id: "search", implementation: "batch" }];

interface Hit {
  path: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

interface Answer {
  results: (Hit | string)[];
  truncated: boolean;
  next: { file_index: number; line: number } | null;
  skipped: number;
}

type Workspace = ReturnType<typeof tempWorkspace>;

/** The call's answer: its text parsed as JSON, checked to be its data. */
async function search(ws: Workspace, args: Record<string, unknown>): Promise<Answer> {
  const result = await ws.call("search", args, BATCH_SEARCH);
  if (!result.ok) throw new Error(`search failed: error[${result.error.code}]: ${result.error.message}`);
  const parsed = JSON.parse(result.text) as Answer;
  expect(result.data).toEqual(parsed);
  return parsed;
}

async function refusal(ws: Workspace, args: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const result = await ws.call("search", args, BATCH_SEARCH);
  if (result.ok) throw new Error(`search succeeded: ${result.text}`);
  return result.error;
}

/** path:line of each hit. */
const where = (answer: Answer): string[] => answer.results.map((hit) => (typeof hit === "string" ? hit : `${hit.path}:${hit.line}`));

/** Every page of a search, from the start, following next. */
async function allPages(ws: Workspace, args: Record<string, unknown>): Promise<{ pages: Answer[]; results: (Hit | string)[] }> {
  const pages: Answer[] = [];
  let cursor: Answer["next"] | undefined;
  do {
    const page = await search(ws, cursor ? { ...args, cursor } : args);
    pages.push(page);
    expect(page.truncated).toBe(page.next !== null);
    cursor = page.next;
  } while (cursor && pages.length < 100);
  return { pages, results: pages.flatMap((page) => page.results) };
}

describe("batch search: patterns", () => {
  test("the pattern is literal by default: . ( [ * match themselves", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "a.b\naxb\nf(x)\n[*]\nf x\n" });
    expect(await search(ws, { pattern: "a.b" })).toEqual({ results: [{ path: "a.txt", line: 1, text: "a.b" }], truncated: false, next: null, skipped: 0 });
    expect(where(await search(ws, { pattern: "f(" }))).toEqual(["a.txt:3"]);
    expect(where(await search(ws, { pattern: "[*]" }))).toEqual(["a.txt:4"]);
    expect(where(await search(ws, { pattern: "zzz" }))).toEqual([]);
  });

  test("the pattern is case-sensitive by default; case_sensitive false folds case, Unicode too", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "Hello\nhello\nHELLO\nhelo\nÄPFEL\n" });
    expect(where(await search(ws, { pattern: "hello" }))).toEqual(["a.txt:2"]);
    expect(where(await search(ws, { pattern: "hello", case_sensitive: false }))).toEqual(["a.txt:1", "a.txt:2", "a.txt:3"]);
    expect(where(await search(ws, { pattern: "äpfel", case_sensitive: false }))).toEqual(["a.txt:5"]);
    expect(where(await search(ws, { pattern: "h.llo", case_sensitive: false }))).toEqual([]);
    expect(where(await search(ws, { pattern: "h.llo", regex: true, case_sensitive: false }))).toEqual(["a.txt:1", "a.txt:2", "a.txt:3"]);
  });

  test("regex true reads the pattern as a Rust regex: classes, alternation, anchors per line", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.rs": "fn configure() {}\nfn validate(x: u8)\nlet v2 = 3;\nlet vv = 4;\r\n" });
    expect(where(await search(ws, { pattern: "v[0-9]", regex: true }))).toEqual(["a.rs:3"]);
    expect(where(await search(ws, { pattern: "configure|validate", regex: true }))).toEqual(["a.rs:1", "a.rs:2"]);
    expect(where(await search(ws, { pattern: "\\d;$", regex: true }))).toEqual(["a.rs:3", "a.rs:4"]);
    // The \r of a CRLF ending is not part of the line.
    expect((await search(ws, { pattern: "vv", regex: true })).results).toEqual([{ path: "a.rs", line: 4, text: "let vv = 4;" }]);
  });

  test("lookaround and backreferences are refused with invalid-argument, as is an invalid regex", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "aa\n" });
    expect((await refusal(ws, { pattern: "a(?=a)", regex: true })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "(?=x)", regex: true })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "(a)\\1", regex: true })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "a(", regex: true })).message).toMatch(/not a valid Rust regular expression/);
    // The same text as a literal is fine.
    expect(where(await search(ws, { pattern: "a(" }))).toEqual([]);
  });

  test("bad input gets a typed error: empty pattern, a literal with a line break, a bad glob, unknown parameters", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "a  b\n" });
    expect((await refusal(ws, { pattern: "" })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "a\nb" })).message).toMatch(/line break/);
    expect((await refusal(ws, { pattern: "a", glob: "src/[a" })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "a", query: "a" })).message).toMatch(/unknown parameter "query"/);
    expect((await refusal(ws, { pattern: "a", mode: "lines" })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "a", cursor: { file_index: -1, line: 0 } })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "a", cursor: { file_index: 0 } })).code).toBe("invalid-argument");
    // Whitespace is a literal like any other.
    expect(where(await search(ws, { pattern: "  " }))).toEqual(["a.txt:1"]);
  });

  test("a missing path is not-found; a path that is neither a file nor a directory is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "x\n" });
    const missing = await refusal(ws, { pattern: "x", path: "nope" });
    expect(missing.code).toBe("not-found");
    expect(missing.message).toMatch(/^Cannot search nope: no such file or directory/);
    expect((await refusal(ws, { pattern: "x", path: "/dev/null" })).code).toBe("invalid-argument");
  });
});

describe("batch search: which files", () => {
  test("glob matches the full workspace-relative path, directory prefix included, even when path narrows the walk", async () => {
    using ws = tempWorkspace();
    ws.put({ "src/a.rs": "hit\n", "src/deep/b.rs": "hit\n", "src/c.ts": "hit\n", "tests/t.rs": "hit\n", ".dot/d.rs": "hit\n" });
    expect(where(await search(ws, { pattern: "hit", glob: "src/**/*.rs" }))).toEqual(["src/a.rs:1", "src/deep/b.rs:1"]);
    expect(where(await search(ws, { pattern: "hit", glob: "**/*.rs" }))).toEqual([".dot/d.rs:1", "src/a.rs:1", "src/deep/b.rs:1", "tests/t.rs:1"]);
    expect(where(await search(ws, { pattern: "hit", glob: "src/deep/*.rs", path: "src" }))).toEqual(["src/deep/b.rs:1"]);
    expect(where(await search(ws, { pattern: "hit", glob: "deep/*.rs", path: "src" }))).toEqual([]);
    expect(where(await search(ws, { pattern: "hit", glob: "*.rs", path: "src" }))).toEqual([]);
    // A path naming a file searches that file, the glob still applying to its path.
    expect(where(await search(ws, { pattern: "hit", path: "src/c.ts" }))).toEqual(["src/c.ts:1"]);
    expect(where(await search(ws, { pattern: "hit", path: "src/c.ts", glob: "**/*.rs" }))).toEqual([]);
  });

  test("binary, non-UTF-8 and oversize (over 16 MiB) files are skipped and counted", async () => {
    using ws = tempWorkspace();
    const big = Buffer.alloc(16 * 1024 * 1024 + 1, "a");
    big.write("hit\n", 0);
    const edge = Buffer.alloc(16 * 1024 * 1024, "b");
    edge.write("hit\n", 0);
    ws.put({
      "a.bin": Buffer.from("hit\0\n"),
      "b.latin1": Buffer.from("caf\xe9 hit\n", "latin1"),
      "c.big": big,
      "d.edge": edge,
      "e.txt": "hit\n",
      "f.late-nul": Buffer.concat([Buffer.from("hit\n"), Buffer.alloc(9000, "x"), Buffer.from([0])]),
    });
    const answer = await search(ws, { pattern: "hit" });
    // A NUL past the first 8 KiB does not make a file binary; exactly 16 MiB is not over the limit.
    expect(where(answer)).toEqual(["d.edge:1", "e.txt:1", "f.late-nul:1"]);
    expect(answer.skipped).toBe(3);
    expect((await search(ws, { pattern: "hit", path: "c.big" })).skipped).toBe(1);
  });

  test("at most 64 MiB of files is read per page; the next page starts at the next file", async () => {
    using ws = tempWorkspace();
    const files: Record<string, Buffer> = {};
    for (const name of ["a", "b", "c", "d", "e"]) {
      const content = Buffer.alloc(14 * 1024 * 1024, "z");
      content.write(`hit ${name}\n`, 0);
      files[`${name}.txt`] = content;
    }
    ws.put(files);
    const first = await search(ws, { pattern: "hit" });
    expect(where(first)).toEqual(["a.txt:1", "b.txt:1", "c.txt:1", "d.txt:1"]);
    expect(first).toMatchObject({ truncated: true, next: { file_index: 4, line: 0 } });
    const second = await search(ws, { pattern: "hit", cursor: first.next });
    expect(second).toMatchObject({ results: [{ path: "e.txt", line: 1, text: "hit e" }], truncated: false, next: null });
  });

  test("node_modules and the rest of the skip list are not walked unless include_ignored; a path naming one is searched", async () => {
    using ws = tempWorkspace();
    ws.put({ "node_modules/pkg/i.js": "hit\n", ".git/config": "hit\n", "src/a.js": "hit\n" });
    expect(where(await search(ws, { pattern: "hit" }))).toEqual(["src/a.js:1"]);
    expect(where(await search(ws, { pattern: "hit", include_ignored: true }))).toEqual([".git/config:1", "node_modules/pkg/i.js:1", "src/a.js:1"]);
    expect(where(await search(ws, { pattern: "hit", path: "node_modules" }))).toEqual(["node_modules/pkg/i.js:1"]);
  });

  test("symbolic links are not followed in a walk, but a path naming one is searched", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "hit\n", "dir/b.txt": "hit\n" });
    symlinkSync(join(ws.root, "a.txt"), join(ws.root, "link.txt"));
    symlinkSync(join(ws.root, "dir"), join(ws.root, "linkdir"));
    expect(where(await search(ws, { pattern: "hit" }))).toEqual(["a.txt:1", "dir/b.txt:1"]);
    expect(where(await search(ws, { pattern: "hit", path: "link.txt" }))).toEqual(["link.txt:1"]);
    expect(where(await search(ws, { pattern: "hit", path: "linkdir" }))).toEqual(["linkdir/b.txt:1"]);
  });

  test("a walk over 10,000 entries fails with over-cap, asking for a narrower path", async () => {
    using ws = tempWorkspace();
    ws.put({ "many/0.txt": "" });
    // Hard links to one empty file: 10,001 plain files, made many times faster than by writing each.
    for (let i = 1; i <= 10_001; i++) linkSync(join(ws.root, "many", "0.txt"), join(ws.root, "many", `${i}.txt`));
    const error = await refusal(ws, { pattern: "x" });
    expect(error.code).toBe("over-cap");
    expect(error.message).toMatch(/10,000 entries.*narrower path/);
  });
});

describe("batch search: results", () => {
  test("context_lines 0 gives no context; 3 gives up to 3 lines each side, not crossing the file's ends; 4 is refused", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "l1\nl2 hit\nl3\nl4\nl5\nl6\nl7\nl8\nl9 hit\r\nl10\n" });
    expect((await search(ws, { pattern: "hit" })).results).toEqual([
      { path: "f.txt", line: 2, text: "l2 hit" },
      { path: "f.txt", line: 9, text: "l9 hit" },
    ]);
    expect((await search(ws, { pattern: "hit", context_lines: 0 })).results[0]).toEqual({ path: "f.txt", line: 2, text: "l2 hit" });
    expect((await search(ws, { pattern: "hit", context_lines: 3 })).results).toEqual([
      { path: "f.txt", line: 2, text: "l2 hit", before: ["l1"], after: ["l3", "l4", "l5"] },
      { path: "f.txt", line: 9, text: "l9 hit", before: ["l6", "l7", "l8"], after: ["l10"] },
    ]);
    expect((await search(ws, { pattern: "l", context_lines: 1, limit: 2 })).results).toEqual([
      { path: "f.txt", line: 1, text: "l1", before: [], after: ["l2 hit"] },
      { path: "f.txt", line: 2, text: "l2 hit", before: ["l1"], after: ["l3"] },
    ]);
    expect((await refusal(ws, { pattern: "hit", context_lines: 4 })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "hit", context_lines: -1 })).code).toBe("invalid-argument");
  });

  test('mode "files" returns the paths of files with a match, and limit counts files', async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "hit\nhit\n", "b.txt": "miss\n", "c.txt": "x\nhit\n", "d.txt": "hit\n" });
    expect(await search(ws, { pattern: "hit", mode: "files" })).toEqual({ results: ["a.txt", "c.txt", "d.txt"], truncated: false, next: null, skipped: 0 });
    const first = await search(ws, { pattern: "hit", mode: "files", limit: 2 });
    expect(first).toEqual({ results: ["a.txt", "c.txt"], truncated: true, next: { file_index: 3, line: 0 }, skipped: 0 });
    expect((await search(ws, { pattern: "hit", mode: "files", limit: 2, cursor: first.next })).results).toEqual(["d.txt"]);
  });

  test("a line over 200 characters is shown from 40 before its first match, cuts marked inside the text", async () => {
    using ws = tempWorkspace();
    const long = `${"é".repeat(250)}NEEDLE${"x".repeat(300)}`;
    ws.put({ "f.txt": `before ${"b".repeat(300)}\n${long}\n${"a".repeat(201)}\n`, "short.txt": `${"s".repeat(190)}NEEDLE${"t".repeat(4)}\n` });
    const expected = `[\u2026210 chars]${"é".repeat(40)}NEEDLE${"x".repeat(154)}[146 chars\u2026]`;
    const literal = await search(ws, { pattern: "NEEDLE", path: "f.txt", context_lines: 1 });
    expect(literal.results).toEqual([{ path: "f.txt", line: 2, text: expected, before: [`before ${"b".repeat(193)}[107 chars\u2026]`], after: [`${"a".repeat(200)}[1 chars\u2026]`] }]);
    // A regex finds the same first match, its byte offset counted in characters.
    expect((await search(ws, { pattern: "N[E]+DLE", regex: true, path: "f.txt" })).results).toEqual([{ path: "f.txt", line: 2, text: expected }]);
    expect((await search(ws, { pattern: "needle", case_sensitive: false, path: "f.txt" })).results).toEqual([{ path: "f.txt", line: 2, text: expected }]);
    // The first match, not a later one; a match near the start cuts only the end; a line of 200 is shown whole.
    const twice = `${"é".repeat(250)}NEEDLE${"x".repeat(300)}NEEDLE`;
    const start = `NEEDLE${"y".repeat(300)}`;
    ws.put({ "g.txt": `${twice}\n${start}\n` });
    expect((await search(ws, { pattern: "NEEDLE", path: "g.txt" })).results.map((hit) => (hit as Hit).text)).toEqual([
      `[\u2026210 chars]${"é".repeat(40)}NEEDLE${"x".repeat(154)}[152 chars\u2026]`,
      `NEEDLE${"y".repeat(194)}[106 chars\u2026]`,
    ]);
    expect((await search(ws, { pattern: "NEEDLE", path: "short.txt" })).results).toEqual([{ path: "short.txt", line: 1, text: `${"s".repeat(190)}NEEDLE${"t".repeat(4)}` }]);
    // A match near the end of a long line: the window still starts 40 before it.
    ws.put({ "h.txt": `${"q".repeat(400)}END\n` });
    expect((await search(ws, { pattern: "END", path: "h.txt" })).results).toEqual([{ path: "h.txt", line: 1, text: `[\u2026360 chars]${"q".repeat(40)}END` }]);
  });

  test("a byte-order mark is not part of the first line", async () => {
    using ws = tempWorkspace();
    ws.put({ "bom.txt": "\uFEFFfirst hit\nsecond\n" });
    expect((await search(ws, { pattern: "second", context_lines: 1 })).results).toEqual([{ path: "bom.txt", line: 2, text: "second", before: ["first hit"], after: [] }]);
    expect((await search(ws, { pattern: "first" })).results).toEqual([{ path: "bom.txt", line: 1, text: "first hit" }]);
  });
});

describe("batch search: paging", () => {
  test("50 hits by default: 60 hits give 50 and a zero-based next line", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": Array.from({ length: 60 }, (_, i) => `hit ${i + 1}\n`).join("") });
    const first = await search(ws, { pattern: "hit", max_bytes: 64000 });
    expect(first.results).toHaveLength(50);
    // Line 50 (1-based) was the last returned: the first line not reported is index 50, line 51.
    expect(first).toMatchObject({ truncated: true, next: { file_index: 0, line: 50 } });
    const second = await search(ws, { pattern: "hit", max_bytes: 64000, cursor: first.next });
    expect(where(second)).toEqual(Array.from({ length: 10 }, (_, i) => `f.txt:${i + 51}`));
    expect(second).toMatchObject({ truncated: false, next: null });
  });

  test("limit is at most 200; 201 and 0 are refused", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": Array.from({ length: 250 }, (_, i) => `h${i}\n`).join("") });
    const page = await search(ws, { pattern: "h", limit: 200, max_bytes: 64000 });
    expect(page.results).toHaveLength(200);
    expect(page.next).toEqual({ file_index: 0, line: 200 });
    expect((await refusal(ws, { pattern: "h", limit: 201 })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "h", limit: 0 })).code).toBe("invalid-argument");
  });

  test("the cursor continues across pages and files with every hit exactly once, in order", async () => {
    using ws = tempWorkspace();
    ws.put({
      "a.txt": "hit\nmiss\nhit\nhit\n",
      "b.txt": "miss\n",
      "c/d.txt": "hit\n".repeat(5),
      "e.bin": "hit\0",
      "f.txt": "miss\nmiss\nhit\n",
    });
    const whole = await search(ws, { pattern: "hit", limit: 200 });
    expect(where(whole)).toEqual(["a.txt:1", "a.txt:3", "a.txt:4", "c/d.txt:1", "c/d.txt:2", "c/d.txt:3", "c/d.txt:4", "c/d.txt:5", "f.txt:3"]);
    for (const limit of [1, 2, 3, 4, 5]) {
      const { results } = await allPages(ws, { pattern: "hit", limit });
      expect(results.map((hit) => `${(hit as Hit).path}:${(hit as Hit).line}`)).toEqual(where(whole));
    }
    const first = await search(ws, { pattern: "hit", limit: 2 });
    // a.txt:3 was the last returned; its next hit, a.txt:4, is line index 3.
    expect(first.next).toEqual({ file_index: 0, line: 3 });
    // The last hit of a file reached at the limit: the next page starts at the next file.
    expect((await search(ws, { pattern: "hit", limit: 3 })).next).toEqual({ file_index: 1, line: 0 });
    // A cursor past the end is an empty last page.
    expect(await search(ws, { pattern: "hit", cursor: { file_index: 9, line: 0 } })).toEqual({ results: [], truncated: false, next: null, skipped: 0 });
  });

  test("a limit reached exactly at the last hit of the last file is not truncated", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "hit\n", "b.txt": "hit\nhit\n" });
    expect(await search(ws, { pattern: "hit", limit: 3 })).toMatchObject({ truncated: false, next: null });
    expect(await search(ws, { pattern: "hit", limit: 2 })).toMatchObject({ truncated: true, next: { file_index: 1, line: 1 } });
  });

  test("the byte budget cuts a page with a next that resumes exactly; 1024 to 64000", async () => {
    using ws = tempWorkspace();
    const files: Record<string, string> = {};
    for (let f = 0; f < 4; f++) files[`dir/file${f}.txt`] = Array.from({ length: 30 }, (_, i) => `${i % 3 === 0 ? "hit" : "pad"} ${"w".repeat(40)} ${i}\n`).join("");
    ws.put(files);
    const whole = await search(ws, { pattern: "hit", limit: 200, max_bytes: 64000, context_lines: 1 });
    expect(whole.results).toHaveLength(40);
    const first = await search(ws, { pattern: "hit", limit: 200, max_bytes: 1024, context_lines: 1 });
    expect(first.truncated).toBe(true);
    expect(first.results.length).toBeGreaterThan(0);
    expect(first.results.length).toBeLessThan(40);
    const last = first.results.at(-1) as Hit;
    expect(first.next).toEqual({ file_index: Number(last.path.match(/file(\d)/)?.[1]), line: last.line + 2 });
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThanOrEqual(1024);
    const { pages, results } = await allPages(ws, { pattern: "hit", limit: 200, max_bytes: 1024, context_lines: 1 });
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(1024);
    expect(results).toEqual(whole.results);
    expect((await refusal(ws, { pattern: "hit", max_bytes: 1023 })).code).toBe("invalid-argument");
    expect((await refusal(ws, { pattern: "hit", max_bytes: 64001 })).code).toBe("invalid-argument");
  });

  test("a first hit larger than the whole budget is an over-cap error, not an empty page", async () => {
    using ws = tempWorkspace();
    const wide = `${"\u0001".repeat(190)}hit`;
    ws.put({ "f.txt": `${wide}\n${wide}\n${wide}\n${wide}\n` });
    const error = await refusal(ws, { pattern: "hit", context_lines: 3, max_bytes: 1024 });
    expect(error.code).toBe("over-cap");
    expect(error.message).toMatch(/raise max_bytes .* lower context_lines/);
    expect((await search(ws, { pattern: "hit", context_lines: 3, max_bytes: 64000 })).results).toHaveLength(4);
  });
});
