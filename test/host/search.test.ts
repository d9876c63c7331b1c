import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createTools } from "../../bindings/index.ts";
import { nodeFileHost } from "../../host/files.ts";
import { compileEngine, compileSearch, engineBytes, foldsOf } from "../../host/regex.ts";
import { createScanner, scanFile } from "../../host/search.ts";
import { tempWorkspace } from "../workspace.ts";

describe("scanFile", () => {
  test.each(["needle", "need\\w+", "(?i)NEEDLE", "^needle \\d+$"])("a file matched in pieces (%s) gives the lines and numbers it gives whole", (query) => {
    using ws = tempWorkspace();
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 97 === 0 ? `needle ${i + 1}` : `hay ${"x".repeat(i % 50)}`));
    ws.put({ "big.txt": `${lines.join("\n")}\n` });
    const path = join(ws.root, "big.txt");
    const whole = scanFile(createScanner(query, nodeFileHost, 200), path, 1000);
    const pieces = scanFile(createScanner(query, nodeFileHost, 200, 1000), path, 1000);
    expect(whole.map((match) => match.line)).toEqual(lines.flatMap((line, i) => (line.startsWith("needle") ? [i + 1] : [])));
    expect(pieces).toEqual(whole);
  });

  /** A scanner whose read buffer is `bytes` long, so that a small file is read in pieces through it. */
  const pieceScanner = (query: string, bytes: number) => Object.assign(createScanner(query, nodeFileHost, 200), { scratch: Buffer.alloc(bytes) });

  test.each(["needle", "need\\w+", "(?i)NEEDLE", "^needle \\d+$", "\\d+$"])("a file larger than the read buffer, read in pieces (%s), gives the lines and numbers it gives whole", (query) => {
    using ws = tempWorkspace();
    const lines = Array.from({ length: 5000 }, (_, i) => (i % 97 === 0 ? `needle ${i + 1}` : `hay ${"x".repeat(i % 50)}`));
    // A byte order mark, CRLF endings on some lines, and no line break at the end.
    ws.put({ "big.txt": `\ufeff${lines.map((line, i) => (i % 3 === 0 ? `${line}\r` : line)).join("\n")}` });
    const path = join(ws.root, "big.txt");
    const whole = scanFile(createScanner(query, nodeFileHost, 200), path, 1000);
    expect(whole.length).toBeGreaterThan(10);
    for (const bytes of [4096, 10_000]) expect(scanFile(pieceScanner(query, bytes), path, 1000)).toEqual(whole);
    // The limit stops at the same lines.
    expect(scanFile(pieceScanner(query, 4096), path, 7)).toEqual(whole.slice(0, 7));
  });

  test("read in pieces, a NUL after the matches still makes the file binary, and a line longer than the buffer is read whole", () => {
    using ws = tempWorkspace();
    const hay = "hay\n".repeat(5000);
    ws.put({ "late-nul.txt": `needle 1\n${hay}\u0000\n`, "long-line.txt": `${hay}${"y".repeat(20_000)} needle\n${hay}` });
    expect(scanFile(pieceScanner("needle", 4096), join(ws.root, "late-nul.txt"), 100)).toEqual([]);
    const scanner = pieceScanner("needle", 4096);
    const [match, ...rest] = scanFile(scanner, join(ws.root, "long-line.txt"), 100);
    expect(rest).toEqual([]);
    expect(match?.line).toBe(5001);
    expect(scanner.scratch.length).toBeGreaterThanOrEqual(20_000);
  });

  test.each([
    ["\\bcaf\u00e9\\s*", "un caf\u00e9\nlatte\n"],
    ["\u00e9\\s*\\b", "\u00e9\nx\n"],
    ["(?i)(?:\\B\u00e9|s)\\s?", "\u017f\ns\n"],
    ["\\b\u00e9t\u00e9\\s*$", "x \u00e9t\u00e9\ny\n\u00e9t\u00e9 \n"],
  ])("a match the engine reports ending past a line that matches (Unicode \\b, %s) still finds that line", (query, text) => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": text });
    // Each line checked on its own by the same engine: what the search must agree with.
    const { RRegex } = createRequire(import.meta.url)("rregex") as typeof import("rregex");
    const line = new RRegex(query);
    const expected = text.split("\n").slice(0, -1).flatMap((content, i) => (line.isMatch(content) ? [i + 1] : []));
    expect(expected.length).toBeGreaterThan(0);
    expect(scanFile(createScanner(query, nodeFileHost, 200), join(ws.root, "a.txt"), 100).map((match) => match.line)).toEqual(expected);
  });

  test("literal first: the lines found are exactly those the engine matches on their own, wherever the literals lie", () => {
    using ws = tempWorkspace();
    const lines = ["fn update_a(x)", "fn\tupdate(", "update fn (", "fn x", "update_b(y)", "  fn   updateAll()  ", "fn update", `${"y".repeat(70_000)} fn update_z(`, "fnupdate(", "fn update_crlf(\r", "\u00e9 fn update\u00e9("];
    const text = `${lines.join("\n")}\nfn update_last(`;
    ws.put({ "a.txt": text });
    const { RRegex } = createRequire(import.meta.url)("rregex") as typeof import("rregex");
    for (const query of ["fn\\s+update\\w*\\(", "^fn\\s+update", "update\\w*\\($", "fn update\\w*\\(\\z", "(?:fn|gn) update_"]) {
      const line = new RRegex(query);
      const expected = text.split("\n").flatMap((content, i) => (line.isMatch(content.replace(/\r$/, "")) ? [i + 1] : []));
      expect(expected.length).toBeGreaterThan(0);
      expect([query, scanFile(createScanner(query, nodeFileHost, 200), join(ws.root, "a.txt"), 100).map((match) => match.line)]).toEqual([query, expected]);
    }
  });

  test("literal first, many lines holding the literals that do not match: those that do are still found, near and past a window's bytes", () => {
    using ws = tempWorkspace();
    const { RRegex } = createRequire(import.meta.url)("rregex") as typeof import("rregex");
    const decoys = (count: number): string[] => Array.from({ length: count }, (_, i) => `const fn = handlers.update${i}(x);`);
    const files = {
      "near.txt": [...decoys(5), "fn update_near(", ...decoys(3), "fn\nupdate_across(", "fn  updateLast("].join("\n"),
      "none.txt": [...decoys(40), "fn", "update("].join("\n"),
      "far.txt": [...decoys(4), "y".repeat(70_000), ...decoys(3), "fn update_far("].join("\n"),
    };
    ws.put(files);
    for (const query of ["fn\\s+update\\w*\\(", "fn\\s+update\\w*\\($"]) {
      const line = new RRegex(query);
      for (const [name, text] of Object.entries(files)) {
        const expected = text.split("\n").flatMap((content, i) => (line.isMatch(content) ? [i + 1] : []));
        expect([query, name, scanFile(createScanner(query, nodeFileHost, 200), join(ws.root, name), 100).map((match) => match.line)]).toEqual([query, name, expected]);
      }
    }
  });

  test("a NUL byte anywhere makes the file binary, even in a later piece than the match", () => {
    using ws = tempWorkspace();
    ws.put({ "bin.txt": Buffer.concat([Buffer.from(`needle\n${"hay\n".repeat(1000)}`), Buffer.from([0]), Buffer.from("\n")]) });
    expect(scanFile(createScanner("needle", nodeFileHost, 200, 100), join(ws.root, "bin.txt"), 10)).toEqual([]);
  });

  test("a UTF-8 byte order mark is not part of the first line: ^ and \\A hold after it, and it is not shown", async () => {
    using ws = tempWorkspace();
    ws.put({ "bom.txt": "\uFEFFhello\nworld\n" });
    expect(await ws.text("search", { query: "^hello" })).toBe("bom.txt:1:hello");
    expect(await ws.text("search", { query: "\\Ahello\\z" })).toBe("bom.txt:1:hello");
    expect(await ws.text("search", { query: "hello" })).toBe("bom.txt:1:hello");
  });

  test("a search past the run's budget fails with timeout rather than outlive the run", async () => {
    using ws = tempWorkspace();
    ws.put(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, "hay\n"])));
    const tools = createTools({ workspace: ws.root, budgetSecs: 0.001 });
    await new Promise((done) => setTimeout(done, 10));
    expect(await tools.call("search", { query: "needle" })).toMatchObject({ ok: false, error: { code: "timeout", message: expect.stringContaining("after 63 files") } });
    expect(await ws.call("search", { query: "needle" })).toMatchObject({ ok: true, text: 'No matches for "needle" in . (200 files searched).' });
  });
});

describe("the regex engine's memory", () => {
  test("patterns compiled before the engine was loaded afresh (its memory past the bound) still match as they did", () => {
    // Each compile of a Unicode pattern takes megabytes the engine never returns: 120 of them pass the 64 MiB bound.
    const text = Buffer.from("a needle0x\nb\nNEEDLE7yz here\n");
    const lines = (matcher: ReturnType<typeof compileSearch>): number[] => {
      const found: number[] = [];
      matcher.scan(text, (line) => found.push(line) > 0);
      return found;
    };
    const first = compileSearch("(?i)\\bneedle\\d\\w*");
    expect(lines(first)).toEqual([1, 3]);
    for (let i = 0; i < 120; i++) compileSearch(`(?i)\\bneedle${i}\\w*`);
    expect(lines(first)).toEqual([1, 3]);
    expect(lines(compileSearch("(?i)\\bneedle7\\w*"))).toEqual([3]);
  });

  test("the engine is loaded afresh for the next pattern once its memory passes 64 MiB, and a search never fills it with a file", () => {
    using ws = tempWorkspace();
    // The string API copies its text into the engine's memory, which never shrinks.
    compileEngine("zqxj").find("a".repeat(64 << 20));
    expect(engineBytes()).toBeGreaterThan(64 << 20);
    // A pattern without a literal to screen by: the engine itself reads every byte of the 24 MB.
    ws.put({ "big.txt": "hay 123 xyz\n".repeat(2_000_000) });
    const scanner = createScanner("\\d{9}", nodeFileHost, 200);
    expect(engineBytes()).toBeLessThan(16 << 20);
    expect(scanFile(scanner, join(ws.root, "big.txt"), 10)).toEqual([]);
    expect(engineBytes()).toBeLessThan(16 << 20);
  });
});

describe("(?i) and a plain literal, screened before the engine is loaded", () => {
  test("each printable ASCII character folds to exactly the characters the engine's (?i) matches", () => {
    const { RRegex } = createRequire(import.meta.url)("rregex") as typeof import("rregex");
    for (let code = 0x20; code <= 0x7e; code++) {
      const char = String.fromCharCode(code);
      const hir = new RRegex(`(?i)\\x{${code.toString(16)}}`).syntax() as unknown as { kind: { "@variant": string; "@values": unknown[] } };
      let engine: string[];
      if (hir.kind["@variant"] === "Literal") engine = [char];
      else {
        const ranges = (hir.kind["@values"][0] as { "@values": [{ ranges: { start: string; end: string }[] }] })["@values"][0].ranges;
        engine = ranges.flatMap(({ start, end }) => Array.from({ length: (end.codePointAt(0) ?? 0) - (start.codePointAt(0) ?? 0) + 1 }, (_, i) => String.fromCodePoint((start.codePointAt(0) ?? 0) + i)));
      }
      expect([char, [...foldsOf(char)].sort()]).toEqual([char, engine.sort()]);
    }
  });

  test("a rare word is found in every case the engine folds, the Kelvin sign and long s included", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "x Zq\u212Aj\u017F y\n", "b.txt": "zqkjs\n", "c.txt": "ZQKJ S\n", "d.txt": "nothing\n" });
    expect(await ws.text("search", { query: "(?i)zqkjs" })).toBe("a.txt:1:x Zq\u212Aj\u017F y\nb.txt:1:zqkjs");
  });
});
