import { execFileSync, spawnSync } from "node:child_process";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { binaryBlob, tempWorkspace } from "../workspace.ts";

const lines = (text: string) => text.split("\n");

describe("search", () => {
  test("returns path:line:text in path order then line order", async () => {
    using ws = tempWorkspace();
    ws.put({ "b.txt": "hit one\nmiss\nhit two\n", "a/z.txt": "hit z\n", "a.txt": "hit a\n" });
    expect(lines(await ws.text("search", { query: "hit" }))).toEqual(["a/z.txt:1:hit z", "a.txt:1:hit a", "b.txt:1:hit one", "b.txt:3:hit two"]);
  });

  test("speaks Rust regex syntax: alternation, classes, flags, named groups, Unicode", async () => {
    using ws = tempWorkspace();
    ws.put({
      "src.rs": ["fn  update(x)", "pub fn other()", "// TODO: later", "let α = 1;", "café", "x1y", "x١y", "word-end"].join("\n"),
    });
    const hits = async (query: string) => {
      const text = await ws.text("search", { query });
      return text.startsWith("No matches") ? [] : lines(text).map((l) => l.split(":")[1]);
    };
    expect(await hits("fn\\s+update")).toEqual(["1"]);
    expect(await hits("update|other")).toEqual(["1", "2"]);
    expect(await hits("(?i)todo")).toEqual(["3"]);
    expect(await hits("(?P<name>oth)er")).toEqual(["2"]);
    expect(await hits("\\p{Greek}")).toEqual(["4"]);
    expect(await hits("^caf[[:alpha:]]$")).toEqual([]);
    expect(await hits("^caf\\w$")).toEqual(["5"]);
    expect(await hits("^x\\dy$")).toEqual(["6", "7"]);
    expect(await hits("caf\\b")).toEqual([]);
    expect(await hits("end\\b")).toEqual(["8"]);
  });

  test("^ and $ anchor each line, including CRLF lines", async () => {
    using ws = tempWorkspace();
    ws.put({ "crlf.txt": "alpha\r\nbeta\r\ngamma", "lf.txt": "beta\nxbeta\n" });
    expect(lines(await ws.text("search", { query: "^beta$" }))).toEqual(["crlf.txt:2:beta", "lf.txt:1:beta"]);
    expect(lines(await ws.text("search", { query: "a$" }))).toEqual(["crlf.txt:1:alpha", "crlf.txt:2:beta", "crlf.txt:3:gamma", "lf.txt:1:beta", "lf.txt:2:xbeta"]);
  });

  test("\\A and \\z anchor each line too, since each line is matched on its own", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "one\ntwo\nthree\n" });
    expect(lines(await ws.text("search", { query: "\\At" }))).toEqual(["f.txt:2:two", "f.txt:3:three"]);
    expect(lines(await ws.text("search", { query: "e\\z" }))).toEqual(["f.txt:1:one", "f.txt:3:three"]);
  });

  test("a pattern never matches across lines", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "foo\nbar\nfoo bar\n" });
    expect(lines(await ws.text("search", { query: "foo\\s+bar" }))).toEqual(["f.txt:3:foo bar"]);
    expect(lines(await ws.text("search", { query: "o[^x]*b" }))).toEqual(["f.txt:3:foo bar"]);
  });

  test("a match running across lines does not hide a match on the next line", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "a\nm\nc\n" });
    expect(lines(await ws.text("search", { query: "a[^z]*c|m" }))).toEqual(["f.txt:2:m"]);
  });

  test("a plain query (found without the regex engine) answers exactly as the same query as a regex", async () => {
    using ws = tempWorkspace();
    ws.put({
      "crlf.txt": "say hit\r\nno\r\nhit hit\r\n",
      "latin1.txt": Buffer.from("caf\xe9 hit\nmiss\n", "latin1"),
      "nul.bin": Buffer.from("hit\0\n"),
      "u.txt": "é hit é\nlast hit",
    });
    for (const [plain, regex] of [["hit", "(?:hit)"], ["é hit", "(?:é hit)"], ["say hit", "say\\x20hit"]] as const) {
      expect(await ws.text("search", { query: plain })).toBe(await ws.text("search", { query: regex }));
    }
    expect(lines(await ws.text("search", { query: "hit" }))).toEqual(["crlf.txt:1:say hit", "crlf.txt:3:hit hit", "latin1.txt:1:caf\uFFFD hit", "u.txt:1:é hit é", "u.txt:2:last hit"]);
  });

  test("a file many times the scan window long is matched line for line", async () => {
    using ws = tempWorkspace();
    const lineTexts = Array.from({ length: 40_000 }, (_, i) => (i % 997 === 0 ? "" : i % 1499 === 0 ? `x${i}\r` : `line ${i} of text`));
    ws.put({ "big.txt": `${lineTexts.join("\n")}\n` });
    const expectedEmpty = lineTexts.flatMap((text, i) => (text === "" ? [`big.txt:${i + 1}:`] : []));
    expect(lines(await ws.text("search", { query: "^$", limit: 200 }))).toEqual(expectedEmpty);
    const expectedX = lineTexts.flatMap((text, i) => (text.startsWith("x") ? [`big.txt:${i + 1}:${text.slice(0, -1)}`] : []));
    expect(lines(await ws.text("search", { query: "^x\\d+$", limit: 200 }))).toEqual(expectedX);
  });

  test("(?i) folds as Rust folds, the Kelvin sign and long s included, in files screened before matching", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "plain ks\n", "b.txt": "kelvin \u212As\n", "c.txt": "long K\u017F\n", "d.txt": "none here\n", "e.txt": "KS\nks\n" });
    expect(lines(await ws.text("search", { query: "(?i)ks" }))).toEqual(["a.txt:1:plain ks", "b.txt:1:kelvin \u212As", "c.txt:1:long K\u017F", "e.txt:1:KS", "e.txt:2:ks"]);
    expect(lines(await ws.text("search", { query: "(?i)kelvin \\x{212A}s" }))).toEqual(["b.txt:1:kelvin \u212As"]);
    // Screened runs of three or more: folded members on either side of the rarest position, which is searched first.
    ws.put({ "f.txt": "Z\u212A\u017F\n", "g.txt": "\u212AKz\n", "h.txt": "zks kkz\n", "i.txt": "z k s k k z\n" });
    expect(lines(await ws.text("search", { query: "(?i)zks" }))).toEqual(["f.txt:1:Z\u212A\u017F", "h.txt:1:zks kkz"]);
    expect(lines(await ws.text("search", { query: "(?i)kkz" }))).toEqual(["g.txt:1:\u212AKz", "h.txt:1:zks kkz"]);
  });

  test("lookaround and backreferences are refused as invalid-argument, as Rust refuses them", async () => {
    using ws = tempWorkspace();
    for (const query of ["(?<=a)b", "a(?=b)", "(?!x)y", "(a)\\1"]) {
      expect(await ws.call("search", { query })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    }
  });

  test("a blank query and an invalid pattern are invalid-argument", async () => {
    using ws = tempWorkspace();
    for (const query of ["", "   ", "(", "[a-"]) {
      expect(await ws.call("search", { query })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    }
  });

  test("(a+)+$ against a 1 MB line answers (no catastrophic backtracking)", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": `${"a".repeat(1_000_000)}!\n` });
    // No clock here: a backtracking engine would take years on this line, so the test's own timeout is the bound.
    expect(await ws.text("search", { query: "(a+)+$" })).toMatch(/^No matches/);
  });

  test("limit defaults to 50 and is capped at 200", async () => {
    using ws = tempWorkspace();
    ws.put({ "many.txt": Array.from({ length: 500 }, (_, i) => `hit ${i}`).join("\n") });
    expect(lines(await ws.text("search", { query: "hit" }))).toHaveLength(50);
    expect(lines(await ws.text("search", { query: "hit", limit: 7 }))).toEqual(Array.from({ length: 7 }, (_, i) => `many.txt:${i + 1}:hit ${i}`));
    expect(lines(await ws.text("search", { query: "hit", limit: 1000 }))).toHaveLength(200);
    expect(await ws.call("search", { query: "hit", limit: 0 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("a line over 200 characters is cut there and annotated", async () => {
    using ws = tempWorkspace();
    const long = `${"x".repeat(150)}needle${"y".repeat(144)}`;
    ws.put({ "long.txt": `${long}\n` });
    expect(await ws.text("search", { query: "needle" })).toBe(`long.txt:1:${long.slice(0, 200)} (100 more chars...)`);
  });

  test("a line cut counts characters, not bytes", async () => {
    using ws = tempWorkspace();
    const long = "é".repeat(250);
    ws.put({ "u.txt": long });
    expect(await ws.text("search", { query: "é" })).toBe(`u.txt:1:${"é".repeat(200)} (50 more chars...)`);
  });

  test("says how many entries the ignore rules left out, an ignored directory once whatever it holds", async () => {
    using ws = tempWorkspace();
    ws.put({ ".gitignore": "node_modules/\ndist/\n", "node_modules/p/a.js": "needle", "node_modules/q/b.js": "needle", "pkg/.gitignore": "*.log\n", "pkg/dist/c.js": "needle", "pkg/x.log": "needle", "pkg/src/d.ts": "hay" });
    expect(await ws.text("search", { query: "needle" })).toBe('No matches for "needle" in . (3 files searched; 3 ignored entries left out).');
    const [all, narrow] = [await ws.call("search", { query: "needle" }), await ws.call("search", { query: "needle", path: "pkg/src" })];
    expect(all.ok && all.data).toMatchObject({ matches: [], filesSearched: 3, ignored: 3 });
    expect(narrow.ok && narrow.data).not.toHaveProperty("ignored");
  });

  test("a file with a NUL byte is skipped", async () => {
    using ws = tempWorkspace();
    ws.put({ "bin.dat": Buffer.from("needle\0rest\n"), "text.txt": "needle\n" });
    expect(await ws.text("search", { query: "needle" })).toBe("text.txt:1:needle");
  });

  test("a file that is not UTF-8 is still searched", async () => {
    using ws = tempWorkspace();
    ws.put({ "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]) });
    expect(await ws.text("search", { query: "needle" })).toBe("latin1.txt:1:caf\uFFFD needle");
  });

  test("path roots the search at a directory or a single file", async () => {
    using ws = tempWorkspace();
    ws.put({ "src/a.ts": "hit\n", "lib/b.ts": "hit\n" });
    expect(await ws.text("search", { query: "hit", path: "src" })).toBe("src/a.ts:1:hit");
    expect(await ws.text("search", { query: "hit", path: "lib/b.ts" })).toBe("lib/b.ts:1:hit");
    expect(await ws.text("search", { query: "hit", path: `${ws.root}/src` })).toBe(`${ws.root}/src/a.ts:1:hit`);
  });

  test("a missing path is not-found", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("search", { query: "x", path: "nope" })).toMatchObject({ ok: false, error: { code: "not-found" } });
  });

  test("no match is a plain answer, not an error", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "abc\n" });
    expect(await ws.call("search", { query: "zzz" })).toMatchObject({ ok: true, text: expect.stringMatching(/^No matches for "zzz"/) });
  });

  test("dotfiles are searched; symbolic links are not followed", async () => {
    using ws = tempWorkspace();
    ws.put({ ".env": "hit\n", "real/a.txt": "hit\n" });
    symlinkSync(`${ws.root}/real`, `${ws.root}/link`);
    expect(lines(await ws.text("search", { query: "hit" }))).toEqual([".env:1:hit", "real/a.txt:1:hit"]);
  });

  test("a FIFO in the walk is skipped rather than blocking the search", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "hit\n" });
    execFileSync("mkfifo", [`${ws.root}/pipe`]);
    expect(await ws.text("search", { query: "hit" })).toBe("a.txt:1:hit");
    expect(await ws.call("search", { query: "hit", path: "pipe" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("agrees with ripgrep on which lines match, where ripgrep is installed", async () => {
    let rg = "";
    try {
      rg = execFileSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).trim();
    } catch {
      return;
    }
    using ws = tempWorkspace();
    ws.put({
      "a.txt": ["fn main() {", "  let x = 1;", "  // TODO fix", "}", "Ωmega", "tab\there", "end"].join("\n"),
      "b/c.rs": ["pub fn update(&mut self)", "fn  update ()", "UPDATE"].join("\r\n"),
    });
    for (const query of ["fn\\s+update", "(?i)update", "^\\s+", "\\w+$", "\\p{Greek}", "[[:upper:]]{3}", "e$", "^$|x"]) {
      const expected = execFileSync(rg, ["-n", "--no-require-git", "--sort", "path", "--no-heading", "--with-filename", "--crlf", query, "."], { cwd: ws.root, encoding: "utf8" }).trim().split("\n").map((l) => l.replace(/^\.\//, "").split(":").slice(0, 2).join(":"));
      const actual = lines(await ws.text("search", { query })).map((l) => l.split(":").slice(0, 2).join(":"));
      expect(actual, query).toEqual(expected);
    }
  });
});

const bin = join(import.meta.dirname, "../../bin/gg.js");
/** gg as a process (dist/), killed if it outlives a generous minute: a call that never ends fails, not hangs, the test. */
const gg = (args: string[], input?: string) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL", maxBuffer: 64 << 20, ...(input === undefined ? {} : { input }) });

describe("search of system paths and binaries", () => {
  test("a search of /proc/self answers, its endless files bounded: classic, batch, and from a program", () => {
    using ws = tempWorkspace();
    const batch = join(ws.root, "batch.json");
    writeFileSync(batch, JSON.stringify([{ id: "search", implementation: "batch" }]));
    const classic = gg(["call", "search", JSON.stringify({ query: "zqxj_never", path: "/proc/self" }), "--workspace", ws.root]);
    expect([classic.status, classic.stdout]).toEqual([0, expect.stringMatching(/^No matches for "zqxj_never" in \/proc\/self \(\d+ files searched\)/)]);
    const batched = gg(["call", "search", JSON.stringify({ pattern: "zqxj_never", path: "/proc/self" }), "--workspace", ws.root, "--config", batch]);
    expect([batched.status, JSON.parse(batched.stdout)]).toEqual([0, expect.objectContaining({ results: [], truncated: false })]);
    const program = gg(["run", "-", "--workspace", ws.root], 'return (await gg.files.search("zqxj_never", { path: "/proc/self" })).matches.length');
    expect([program.status, program.stdout]).toEqual([0, "0\n"]);
  });

  test("a binary file of a few MB is skipped, a match past its head included; read_file still reaches it", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.out": binaryBlob(3), "text.txt": "needle\n" });
    expect(await ws.text("search", { query: "needle" })).toBe("text.txt:1:needle");
    expect(await ws.text("search", { query: "needle", path: "a.out" })).toMatch(/^No matches/);
    expect(await ws.call("read_file", { path: "a.out" })).toMatchObject({ ok: true });
  });
});
