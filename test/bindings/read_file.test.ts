import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { imageSize } from "image-size";
import { describe, expect, test } from "vitest";
import { binaryBlob, tempWorkspace } from "../workspace.ts";

const KIB = 1024;
const BYTE_CEILING = 256 * KIB;
const IMAGE_LIMIT = 8 * 1024 * KIB;

/** Lines "line 1\n" … "line n\n" as an array (each with its newline). */
const numberedLines = (n: number): string[] => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`);
/** Lines `from`..`to` (1-based, inclusive) of `lines`, joined. */
const slice = (lines: string[], from: number, to: number): string => lines.slice(from - 1, to).join("");

const capped = (lineCap: number) => [{ id: "read-file", enabled: true, implementation: "default-cap", params: { lineCap } }];
const unlimited = (lineCap: number) => [{ id: "read-file", enabled: true, implementation: "unlimited", params: { lineCap } }];

/** A valid 1x1 RGBA PNG, built chunk by chunk with real CRCs. */
function png1x1(): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0); // width
  ihdr.writeUInt32BE(1, 4); // height
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  // compression, filter, interlace stay 0
  const scanline = Buffer.from([0, 0xff, 0x00, 0x00, 0xff]); // filter byte + one red pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(scanline)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Tiny valid 1x1 pictures of each recognised format, with the names and MIME types they must be reported under. */
const IMAGES = [
  { format: "PNG", mime: "image/png", sizeType: "png", bytes: png1x1() },
  {
    format: "JPEG",
    mime: "image/jpeg",
    sizeType: "jpg",
    bytes: Buffer.from(
      "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
      "base64",
    ),
  },
  { format: "GIF", mime: "image/gif", sizeType: "gif", bytes: Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64") },
  { format: "WebP", mime: "image/webp", sizeType: "webp", bytes: Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64") },
] as const;

function ok(result: Awaited<ReturnType<ReturnType<typeof tempWorkspace>["call"]>>) {
  if (!result.ok) throw new Error(`call failed: error[${result.error.code}]: ${result.error.message}`);
  return result;
}

describe("read_file: whole files", () => {
  test("a whole file comes back byte for byte with no note", async () => {
    using ws = tempWorkspace();
    const content = "first line\n  indented\ttab\n\nlast line\n";
    ws.put({ "a.txt": content });
    expect(await ws.text("read_file", { path: "a.txt" })).toBe(content);
  });

  test("a CRLF file keeps its carriage returns", async () => {
    using ws = tempWorkspace();
    const content = "one\r\ntwo\r\nthree\r\n";
    ws.put({ "crlf.txt": content });
    expect(await ws.text("read_file", { path: "crlf.txt" })).toBe(content);
  });

  test("a file that is not UTF-8 reads with U+FFFD for each bad byte, whole and windowed, with no extra note", async () => {
    using ws = tempWorkspace();
    ws.put({ "latin1.txt": Buffer.from("caf\xe9\nna\xefve\nthird\n", "latin1") });
    expect(await ws.text("read_file", { path: "latin1.txt" })).toBe("caf\uFFFD\nna\uFFFDve\nthird\n");
    expect(await ws.text("read_file", { path: "latin1.txt", limit: 1 })).toBe("caf\uFFFD\n[showing lines 1-1 of 3; continue with offset: 2]");
  });

  test("a UTF-8 byte order mark is kept", async () => {
    using ws = tempWorkspace();
    const content = "\uFEFFhello\nwörld ✓\n";
    ws.put({ "bom.txt": content });
    const text = await ws.text("read_file", { path: "bom.txt" });
    expect(text).toBe(content);
    expect(Buffer.from(text, "utf8").subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  test("a file without a trailing newline gets none added", async () => {
    using ws = tempWorkspace();
    const content = "alpha\nbeta\ngamma";
    ws.put({ "no-eol.txt": content });
    expect(await ws.text("read_file", { path: "no-eol.txt" })).toBe(content);
  });

  test("an empty file reads as the empty string from offset 1", async () => {
    using ws = tempWorkspace();
    ws.put({ "empty.txt": "" });
    expect(await ws.text("read_file", { path: "empty.txt" })).toBe("");
    expect(await ws.text("read_file", { path: "empty.txt", offset: 1 })).toBe("");
  });

  test("a file shorter than the cap reads identically under default-cap and unlimited", async () => {
    using ws = tempWorkspace();
    const content = slice(numberedLines(100), 1, 100);
    ws.put({ "short.txt": content });
    const underCap = await ws.text("read_file", { path: "short.txt" }, capped(250));
    const underUnlimited = await ws.text("read_file", { path: "short.txt" }, unlimited(250));
    expect(underCap).toBe(content);
    expect(underUnlimited).toBe(underCap);
  });

  test("a file exactly as long as the cap is returned whole with no note", async () => {
    using ws = tempWorkspace();
    const content = slice(numberedLines(250), 1, 250);
    ws.put({ "exact.txt": content });
    expect(await ws.text("read_file", { path: "exact.txt" }, capped(250))).toBe(content);
  });

  test("a limit covering the whole file returns it exactly under default-cap", async () => {
    using ws = tempWorkspace();
    const content = slice(numberedLines(1200), 1, 1200);
    ws.put({ "big.txt": content });
    expect(await ws.text("read_file", { path: "big.txt", limit: 1200 }, capped(250))).toBe(content);
    expect(await ws.text("read_file", { path: "big.txt", limit: 5000 }, capped(250))).toBe(content);
    expect(await ws.text("read_file", { path: "big.txt", offset: 1, limit: 1200 }, unlimited(250))).toBe(content);
  });
});

describe("read_file: line windows", () => {
  const lines = numberedLines(1200);
  const file = lines.join("");

  test("default-cap with no limit returns lineCap lines and a footer saying where to continue", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt" }, capped(250))).toBe(
      `${slice(lines, 1, 250)}[showing lines 1-250 of 1200; continue with offset: 251]`,
    );
  });

  test("one line past the cap is enough to window the read", async () => {
    using ws = tempWorkspace();
    ws.put({ "251.txt": slice(lines, 1, 251) });
    expect(await ws.text("read_file", { path: "251.txt" }, capped(250))).toBe(
      `${slice(lines, 1, 250)}[showing lines 1-250 of 251; continue with offset: 251]`,
    );
  });

  test("offset and limit select a middle window with a continuation footer", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt", offset: 251, limit: 250 }, capped(250))).toBe(
      `${slice(lines, 251, 500)}[showing lines 251-500 of 1200; continue with offset: 501]`,
    );
  });

  test("under default-cap an offset with no limit returns lineCap lines from the offset", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt", offset: 251 }, capped(250))).toBe(
      `${slice(lines, 251, 500)}[showing lines 251-500 of 1200; continue with offset: 501]`,
    );
  });

  test("a window reaching the end from past line 1 names its lines without a continuation", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt", offset: 1101 }, capped(250))).toBe(
      `${slice(lines, 1101, 1200)}[showing lines 1101-1200 of 1200]`,
    );
  });

  test("a limit running past the end stops at the end without a continuation", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt", offset: 1151, limit: 500 }, capped(250))).toBe(
      `${slice(lines, 1151, 1200)}[showing lines 1151-1200 of 1200]`,
    );
  });

  test("the footer goes on its own line when the file has no trailing newline", async () => {
    using ws = tempWorkspace();
    const content = slice(lines, 1, 300).replace(/\n$/, "");
    ws.put({ "no-eol.txt": content });
    expect(await ws.text("read_file", { path: "no-eol.txt", offset: 251 }, capped(250))).toBe(
      `${slice(lines, 251, 300).replace(/\n$/, "")}\n[showing lines 251-300 of 300]`,
    );
  });

  test("a CRLF window keeps its carriage returns and counts lines by newline", async () => {
    using ws = tempWorkspace();
    const crlf = Array.from({ length: 10 }, (_, i) => `row ${i + 1}\r\n`);
    ws.put({ "crlf.txt": crlf.join("") });
    expect(await ws.text("read_file", { path: "crlf.txt", offset: 3, limit: 2 })).toBe(
      `${crlf.slice(2, 4).join("")}[showing lines 3-4 of 10; continue with offset: 5]`,
    );
  });

  test("unlimited with no limit reads from the offset to the end", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt" }, unlimited(250))).toBe(file);
    expect(await ws.text("read_file", { path: "big.txt", offset: 701 }, unlimited(250))).toBe(
      `${slice(lines, 701, 1200)}[showing lines 701-1200 of 1200]`,
    );
  });

  test("unlimited honours a given limit verbatim", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt", limit: 10 }, unlimited(250))).toBe(
      `${slice(lines, 1, 10)}[showing lines 1-10 of 1200; continue with offset: 11]`,
    );
  });

  test("default-cap honours a limit larger than the cap verbatim", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    expect(await ws.text("read_file", { path: "big.txt", limit: 600 }, capped(250))).toBe(
      `${slice(lines, 1, 600)}[showing lines 1-600 of 1200; continue with offset: 601]`,
    );
  });

  test("the fresh configuration caps reads at 2000 lines", async () => {
    using ws = tempWorkspace();
    const many = numberedLines(2500);
    ws.put({ "huge.txt": many.join("") });
    expect(await ws.text("read_file", { path: "huge.txt" })).toBe(`${slice(many, 1, 2000)}[showing lines 1-2000 of 2500; continue with offset: 2001]`);
  });

  test("an offset past the end is invalid-argument naming the file's line count", async () => {
    using ws = tempWorkspace();
    ws.put({ "big.txt": file });
    const result = await ws.call("read_file", { path: "big.txt", offset: 1201 });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/\b1200\b/);
  });

  test("an offset past the end of an empty file is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "empty.txt": "" });
    expect(await ws.call("read_file", { path: "empty.txt", offset: 2 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("the last line is a valid offset whether or not the file ends in a newline", async () => {
    using ws = tempWorkspace();
    ws.put({ "eol.txt": "a\nb\nc\n", "no-eol.txt": "a\nb\nc" });
    expect(await ws.text("read_file", { path: "eol.txt", offset: 3 })).toBe("c\n[showing lines 3-3 of 3]");
    expect(await ws.text("read_file", { path: "no-eol.txt", offset: 3 })).toBe("c\n[showing lines 3-3 of 3]");
    expect(await ws.call("read_file", { path: "eol.txt", offset: 4 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(await ws.call("read_file", { path: "no-eol.txt", offset: 4 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });
});

describe("read_file: the 256 KiB byte ceiling", () => {
  test("a window of exactly 256 KiB is returned whole", async () => {
    using ws = tempWorkspace();
    const line = `${"x".repeat(63)}\n`;
    const content = line.repeat(BYTE_CEILING / line.length);
    expect(content.length).toBe(BYTE_CEILING);
    ws.put({ "exact.txt": content });
    expect(await ws.text("read_file", { path: "exact.txt" }, unlimited(10_000))).toBe(content);
  });

  test("a window over 256 KiB is cut at a line boundary with a note and a continuation footer", async () => {
    using ws = tempWorkspace();
    const lines = Array.from({ length: 3000 }, (_, i) => `${String(i + 1).padStart(6, "0")} ${"y".repeat(92)}\n`);
    const lineBytes = 100;
    expect(lines.every((l) => l.length === lineBytes)).toBe(true);
    ws.put({ "wide.txt": lines.join("") });
    const kept = Math.floor(BYTE_CEILING / lineBytes);

    const text = await ws.text("read_file", { path: "wide.txt" }, unlimited(10_000));
    const body = slice(lines, 1, kept);
    expect(text.startsWith(body)).toBe(true);
    const notes = text.slice(body.length).split("\n");
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/256 KiB/);
    expect(notes[1]).toBe(`[showing lines 1-${kept} of 3000; continue with offset: ${kept + 1}]`);
  });

  test("continuing from the offset a cut window gives picks up at the next line", async () => {
    using ws = tempWorkspace();
    const lines = Array.from({ length: 3000 }, (_, i) => `${String(i + 1).padStart(6, "0")} ${"y".repeat(92)}\n`);
    ws.put({ "wide.txt": lines.join("") });
    const kept = Math.floor(BYTE_CEILING / 100);

    const text = await ws.text("read_file", { path: "wide.txt", offset: kept + 1 }, unlimited(10_000));
    expect(text).toBe(`${slice(lines, kept + 1, 3000)}[showing lines ${kept + 1}-3000 of 3000]`);
  });

  test("the ceiling applies to a window that starts past line 1", async () => {
    using ws = tempWorkspace();
    const lines = Array.from({ length: 4000 }, (_, i) => `${String(i + 1).padStart(6, "0")} ${"z".repeat(92)}\n`);
    ws.put({ "wide.txt": lines.join("") });
    const kept = Math.floor(BYTE_CEILING / 100);
    const from = 101;
    const to = from + kept - 1;

    const text = await ws.text("read_file", { path: "wide.txt", offset: from, limit: 3500 }, capped(250));
    const body = slice(lines, from, to);
    expect(text.startsWith(body)).toBe(true);
    const notes = text.slice(body.length).split("\n");
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/256 KiB/);
    expect(notes[1]).toBe(`[showing lines ${from}-${to} of 4000; continue with offset: ${to + 1}]`);
  });

  test("a single line over 256 KiB is cut to the ceiling with a note", async () => {
    using ws = tempWorkspace();
    const long = "q".repeat(300_000);
    ws.put({ "long.txt": `${long}\nshort\n` });

    const text = await ws.text("read_file", { path: "long.txt" }, unlimited(10_000));
    const head = long.slice(0, BYTE_CEILING);
    expect(text.startsWith(head)).toBe(true);
    expect(text.startsWith(`${head}q`)).toBe(false);
    const notes = text.slice(head.length).replace(/^\n/, "").split("\n");
    expect(notes.some((note) => /256 KiB/.test(note))).toBe(true);
    expect(notes.at(-1)).toMatch(/^\[showing lines 1-1 of 2; continue with offset: 2\]$/);
  });

  test("a line whose text fills the ceiling exactly is shown whole, noting only its line ending was left out", async () => {
    using ws = tempWorkspace();
    const full = "z".repeat(BYTE_CEILING);
    const ending = "[line 1 fills the 256 KiB read limit: it is shown whole, without its line ending]";
    ws.put({ "lf.txt": `${full}\n`, "crlf.txt": `${full}\r\n`, "crlf-short.txt": `${full.slice(1)}\r\n`, "more.txt": `${full}\nnext\n` });
    expect(await ws.text("read_file", { path: "lf.txt" })).toBe(`${full}\n${ending}\n[showing lines 1-1 of 1]`);
    expect(await ws.text("read_file", { path: "crlf.txt" })).toBe(`${full}\n${ending}\n[showing lines 1-1 of 1]`);
    expect(await ws.text("read_file", { path: "crlf-short.txt" })).toBe(`${full.slice(1)}\n${ending}\n[showing lines 1-1 of 1]`);
    expect(await ws.text("read_file", { path: "more.txt" })).toBe(`${full}\n${ending}\n[showing lines 1-1 of 2; continue with offset: 2]`);
  });

  test("a line one byte over the ceiling is cut, and the note gives both lengths", async () => {
    using ws = tempWorkspace();
    ws.put({ "over.txt": `${"z".repeat(BYTE_CEILING + 1)}\n` });
    const text = await ws.text("read_file", { path: "over.txt" });
    expect(text.split("\n").slice(1)).toEqual([
      "[line 1 is 262145 bytes long: only its first 262144 bytes fit the 256 KiB read limit; use search to find text in it]",
      "[showing lines 1-1 of 1]",
    ]);
  });

  test("a long line is cut on a character boundary, never inside a UTF-8 sequence", async () => {
    using ws = tempWorkspace();
    const long = `a${"é".repeat(200_000)}`; // 1 + 400,000 bytes, so byte 262,144 falls inside an "é"
    ws.put({ "accents.txt": long });

    const text = await ws.text("read_file", { path: "accents.txt" }, unlimited(10_000));
    const [body] = text.split("\n");
    expect(body).toBeDefined();
    expect(body).not.toContain("\uFFFD");
    expect(long.startsWith(body ?? "")).toBe(true);
    expect(Buffer.byteLength(body ?? "", "utf8")).toBe(BYTE_CEILING - 1);
  });

  test("a binary file's text stays within 256 KiB as the model receives it, each byte that is not UTF-8 a 3-byte U+FFFD", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.out": binaryBlob(3) });
    const text = await ws.text("read_file", { path: "a.out" }, unlimited(10_000_000));
    const notes = text.lastIndexOf("\n[the 256 KiB read limit ended this window after line ");
    expect(notes).toBeGreaterThan(0);
    const body = text.slice(0, notes);
    expect(body).toContain("\uFFFD");
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BYTE_CEILING);
    // Not far below it either: the window shrinks by what the text grew, not by halves.
    expect(Buffer.byteLength(body)).toBeGreaterThan(BYTE_CEILING * 0.9);
    const last = /\[showing lines 1-(\d+) of \d+; continue with offset: (\d+)\]$/.exec(text);
    expect(Number(last?.[2])).toBe(Number(last?.[1]) + 1);
  });
});

describe("read_file: paths and arguments", () => {
  test("an absolute path reads that file", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "absolute\n" });
    expect(await ws.text("read_file", { path: join(ws.root, "a.txt") })).toBe("absolute\n");
  });

  test("an absolute path outside the workspace is reachable", async () => {
    using ws = tempWorkspace();
    const outside = mkdtempSync(join(tmpdir(), "gg-outside-"));
    try {
      writeFileSync(join(outside, "o.txt"), "from outside\n");
      expect(await ws.text("read_file", { path: join(outside, "o.txt") })).toBe("from outside\n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test(".. in a path is resolved by the file system", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "dotdot\n", "sub/": "" });
    expect(await ws.text("read_file", { path: "sub/../a.txt" })).toBe("dotdot\n");
  });

  test(".. after a symlinked directory climbs from the link's target, as the kernel does", async () => {
    using ws = tempWorkspace();
    ws.put({ "real/deep/x.txt": "", "real/target.txt": "beside the target\n", "target.txt": "beside the link\n" });
    symlinkSync(join(ws.root, "real/deep"), join(ws.root, "link"));
    expect(await ws.text("read_file", { path: "link/../target.txt" })).toBe("beside the target\n");
  });

  test("an empty path is invalid-argument", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("read_file", { path: "" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("a missing file is not-found", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("read_file", { path: "nope.txt" })).toMatchObject({ ok: false, error: { code: "not-found" } });
    // The message names the file as the caller spelled it, and says how to recover.
    expect(await ws.call("read_file", { path: "sub/nope.txt" })).toMatchObject({
      ok: false,
      error: { message: "Cannot read sub/nope.txt: no such file or directory; check the path with list_dir or tree" },
    });
  });

  test("a directory is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "dir/": "" });
    expect(await ws.call("read_file", { path: "dir" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("an unknown parameter is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "x\n" });
    expect(await ws.call("read_file", { path: "a.txt", lines: 3 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("offset 0 is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "x\n" });
    expect(await ws.call("read_file", { path: "a.txt", offset: 0 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("a limit of 0 or a fractional offset is invalid-argument", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "x\n" });
    expect(await ws.call("read_file", { path: "a.txt", limit: 0 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(await ws.call("read_file", { path: "a.txt", offset: 1.5 })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("a missing path argument is invalid-argument", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("read_file", {})).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });
});

describe("read_file: images", () => {
  test("the fixture pictures are valid 1x1 images", async () => {
    for (const image of IMAGES) {
      expect(imageSize(image.bytes)).toMatchObject({ width: 1, height: 1, type: image.sizeType });
    }
  });

  for (const image of IMAGES) {
    test(`a ${image.format} is detected by content and attached as a data URL under a misleading name`, async () => {
      using ws = tempWorkspace();
      const path = `mock-${image.format.toLowerCase()}.txt`;
      ws.put({ [path]: image.bytes });

      const result = ok(await ws.call("read_file", { path }));
      expect(result.text).not.toContain("\n");
      expect(result.text).toContain(path);
      expect(result.text).toContain(image.format);
      expect(result.text).toMatch(new RegExp(`\\b${image.bytes.length} bytes\\b`));
      expect(result.attachments).toHaveLength(1);
      const [attachment] = result.attachments ?? [];
      expect(attachment).toMatchObject({ type: "image", mime: image.mime });
      const prefix = `data:${image.mime};base64,`;
      expect(attachment?.dataUrl.startsWith(prefix)).toBe(true);
      expect(Buffer.from(attachment?.dataUrl.slice(prefix.length) ?? "", "base64")).toEqual(image.bytes);
    });
  }

  test("a PNG named mock.txt reads as a picture", async () => {
    using ws = tempWorkspace();
    const png = png1x1();
    ws.put({ "mock.txt": png });
    const result = ok(await ws.call("read_file", { path: "mock.txt" }));
    expect(result.attachments).toEqual([{ type: "image", mime: "image/png", dataUrl: `data:image/png;base64,${png.toString("base64")}` }]);
  });

  test("a text file named fake.png reads as text", async () => {
    using ws = tempWorkspace();
    ws.put({ "fake.png": "not a picture\n" });
    const result = ok(await ws.call("read_file", { path: "fake.png" }));
    expect(result.text).toBe("not a picture\n");
    expect(result.attachments ?? []).toEqual([]);
  });

  test("a RIFF file that is not WebP reads as an ordinary file", async () => {
    using ws = tempWorkspace();
    const content = "RIFF1234WAVEfmt \n";
    ws.put({ "sound.webp": content });
    const result = ok(await ws.call("read_file", { path: "sound.webp" }));
    expect(result.text).toBe(content);
    expect(result.attachments ?? []).toEqual([]);
  });

  test("offset and limit are ignored for a picture", async () => {
    using ws = tempWorkspace();
    ws.put({ "p.png": png1x1() });
    const plain = ok(await ws.call("read_file", { path: "p.png" }));
    expect(ok(await ws.call("read_file", { path: "p.png", offset: 1000, limit: 1 }))).toEqual(plain);
    expect(ok(await ws.call("read_file", { path: "p.png", offset: 1, limit: 1 }, capped(1)))).toEqual(plain);
  });

  test("an image of exactly 8 MiB is still attached", async () => {
    using ws = tempWorkspace();
    const bytes = Buffer.alloc(IMAGE_LIMIT);
    png1x1().copy(bytes);
    ws.put({ "edge.png": bytes });
    const result = ok(await ws.call("read_file", { path: "edge.png" }));
    expect(result.attachments).toHaveLength(1);
    expect(result.attachments?.[0]?.dataUrl).toBe(`data:image/png;base64,${bytes.toString("base64")}`);
  });

  test("an image over 8 MiB is described with no attachment", async () => {
    using ws = tempWorkspace();
    const bytes = Buffer.alloc(IMAGE_LIMIT + 1);
    png1x1().copy(bytes);
    ws.put({ "huge.png": bytes });
    const result = ok(await ws.call("read_file", { path: "huge.png" }));
    expect(result.attachments ?? []).toEqual([]);
    expect(result.text).not.toContain("\n");
    expect(result.text).toContain("huge.png");
    expect(result.text).toContain("PNG");
    expect(result.text).toMatch(new RegExp(`\\b${IMAGE_LIMIT + 1} bytes\\b`));
  });

  test("a model that cannot see images gets a description instead of an attachment", async () => {
    using ws = tempWorkspace();
    const png = png1x1();
    ws.put({ "shot.png": png });
    const result = ok(await ws.call("read_file", { path: "shot.png" }, { capabilities: [], model: { vision: false } }));
    expect(result.attachments ?? []).toEqual([]);
    expect(result.text).not.toContain("\n");
    expect(result.text).toContain("shot.png");
    expect(result.text).toContain("PNG");
    expect(result.text).toMatch(new RegExp(`\\b${png.length} bytes\\b`));
  });

  test("a picture reached through a symlink is read from the target", async () => {
    using ws = tempWorkspace();
    const gif = IMAGES[2].bytes;
    ws.put({ "assets/real.gif": gif });
    mkdirSync(join(ws.root, "links"));
    symlinkSync(join(ws.root, "assets/real.gif"), join(ws.root, "links/alias.bin"));
    const result = ok(await ws.call("read_file", { path: "links/alias.bin" }));
    expect(result.attachments?.[0]?.dataUrl).toBe(`data:image/gif;base64,${readFileSync(join(ws.root, "assets/real.gif")).toString("base64")}`);
  });
});
