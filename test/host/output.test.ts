import { readFileSync, rmSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { createOutputSink, OUTPUT_BYTE_CAP, type OutputPolicy, type OutputResult } from "../../host/output.ts";

const offload = (maxLines: number, maxChars: number): OutputPolicy => ({ mode: "offload", maxLines, maxChars });
const inline: OutputPolicy = { mode: "inline", maxLines: 200, maxChars: 8000 };
const made: OutputResult[] = [];

/** Feeds `chunks` (stream, text or bytes) through a sink and returns its result. */
function run(policy: OutputPolicy, chunks: [("stdout" | "stderr"), string | Buffer][]): OutputResult {
  const sink = createOutputSink(policy, "test");
  for (const [stream, chunk] of chunks) sink.write(stream, Buffer.from(chunk));
  const result = sink.finish();
  made.push(result);
  return result;
}

afterEach(() => {
  for (const result of made.splice(0)) {
    if (result.files) for (const file of Object.values(result.files)) rmSync(file, { force: true });
  }
});

const numbered = (count: number, width = 1): string => Array.from({ length: count }, (_, i) => `${i + 1}`.padStart(width, "0")).join("\n") + "\n";

describe("offload", () => {
  test("an agent id that cannot stand in a file name is made safe, and each agent numbers its own commands", () => {
    const first = createOutputSink(offload(5, 100), "a/b c").finish();
    const second = createOutputSink(offload(5, 100), "a/b c").finish();
    made.push(first, second);
    expect(first.files?.stdout).toMatch(/^\/tmp\/gg-shell\/cmd-a_b_c-\d{4}\.stdout$/);
    const number = (result: OutputResult) => Number(/-(\d+)\.stdout$/.exec(result.files?.stdout ?? "")?.[1]);
    expect(number(second)).toBe(number(first) + 1);
  });

  test("a stream of one line is described in the seed's form, 1 lines", () => {
    const result = run(offload(1, 100), [["stdout", "a\nbb\n"], ["stderr", "err\n"]]);
    expect(result.output).toContain("\n  1 lines; line length p50 3, p95 3, p99 3\n  longest lines: 3 chars @ 1");
  });

  test("many short lines are counted exactly, with a line-length histogram rather than a list", () => {
    const text = "ab\n".repeat(500_000) + "x".repeat(20_000) + "\n";
    const result = run(offload(3, 100_000), [["stdout", text]]);
    expect(result.output).toContain("  500001 lines; line length p50 2, p95 2, p99 2\n  longest lines: 20000 chars @ 500001, 2 @ 1, 2 @ 2, 2 @ 3, 2 @ 4");
  });

  test("output that fits comes back untouched, with no note, and both streams are still on disk", () => {
    const result = run(offload(200, 8000), [["stdout", "one\n"], ["stderr", "two\n"], ["stdout", "three"]]);
    expect(result).toMatchObject({ output: "one\ntwo\nthree", truncated: false });
    expect(readFileSync(result.files?.stdout ?? "", "utf8")).toBe("one\nthree");
    expect(readFileSync(result.files?.stderr ?? "", "utf8")).toBe("two\n");
    expect(result.files?.stdout).toMatch(/^\/tmp\/gg-shell\/cmd-test-\d{4}\.stdout$/);
  });

  test("exactly maxLines lines fit; one more is cut to the last maxLines lines", () => {
    expect(run(offload(5, 8000), [["stdout", numbered(5)]])).toMatchObject({ output: numbered(5), truncated: false });
    const over = run(offload(5, 8000), [["stdout", numbered(6)]]);
    expect(over.truncated).toBe(true);
    expect(over.output.startsWith("2\n3\n4\n5\n6\n[Output truncated: last 5 lines]\n")).toBe(true);
  });

  test("a trailing newline ends the last line rather than starting one, as tail -n counts", () => {
    expect(run(offload(2, 8000), [["stdout", "a\nb\n"]])).toMatchObject({ output: "a\nb\n", truncated: false });
    expect(run(offload(2, 8000), [["stdout", "a\nb"]])).toMatchObject({ output: "a\nb", truncated: false });
    expect(run(offload(2, 8000), [["stdout", "a\nb\nc"]]).output.startsWith("b\nc\n[Output truncated: last 2 lines]")).toBe(true);
  });

  test("exactly maxChars characters fit; one more is cut to the last maxChars characters", () => {
    expect(run(offload(200, 10), [["stdout", "0123456789"]])).toMatchObject({ output: "0123456789", truncated: false });
    const over = run(offload(200, 10), [["stdout", "x0123456789"]]);
    expect(over.output.startsWith("0123456789\n[Output truncated: last 10 chars]\n")).toBe(true);
  });

  test("characters are counted, not bytes", () => {
    expect(run(offload(200, 4), [["stdout", "éééé"]])).toMatchObject({ output: "éééé", truncated: false });
    expect(run(offload(200, 3), [["stdout", "é😀éé"]]).output.startsWith("😀éé\n[Output truncated: last 3 chars]")).toBe(true);
  });

  test("the tighter ceiling decides", () => {
    // 10 lines of 9 chars: the last 3 lines are 30 characters with their newlines.
    const text = Array.from({ length: 10 }, (_, i) => `line ${i}...`).join("\n") + "\n";
    expect(run(offload(3, 100), [["stdout", text]]).output).toMatch(/^line 7\.\.\.\nline 8\.\.\.\nline 9\.\.\.\n\[Output truncated: last 3 lines\]/);
    expect(run(offload(3, 12), [["stdout", text]]).output).toMatch(/^\.\nline 9\.\.\.\n\[Output truncated: last 12 chars\]/);
  });

  test("the 16 KiB byte cap cuts further and says so", () => {
    const line = `${"x".repeat(99)}\n`;
    const result = run(offload(200, 1_000_000), [["stdout", line.repeat(300)]]);
    const [kept, note] = [result.output.slice(0, result.output.indexOf("[Output")), result.output.slice(result.output.indexOf("[Output"))];
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(OUTPUT_BYTE_CAP);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(OUTPUT_BYTE_CAP - line.length);
    expect(note.split("\n")[0]).toBe("[Output truncated: last 200 lines, capped at 16384 bytes]");
  });

  test("the note gives each stream's path, line count, percentiles and five longest lines", () => {
    // stdout: 100 lines whose lengths are 1..100 in a chosen order; stderr: 3 lines.
    const lengths = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    const stdout = lengths.map((n) => "o".repeat(n)).join("\n") + "\n";
    const result = run(offload(10, 100_000), [["stdout", stdout], ["stderr", "ab\nabcd\nab\n"]]);
    const note = result.output.slice(result.output.indexOf("[Output truncated"));
    const lineOf = (length: number) => lengths.indexOf(length) + 1;
    expect(note).toBe(
      [
        "[Output truncated: last 10 lines]",
        `stdout: ${result.files?.stdout}`,
        "  100 lines; line length p50 50, p95 95, p99 99",
        `  longest lines: 100 chars @ ${lineOf(100)}, 99 @ ${lineOf(99)}, 98 @ ${lineOf(98)}, 97 @ ${lineOf(97)}, 96 @ ${lineOf(96)}`,
        `stderr: ${result.files?.stderr}`,
        "  3 lines; line length p50 2, p95 4, p99 4",
        "  longest lines: 4 chars @ 2, 2 @ 1, 2 @ 3",
      ].join("\n"),
    );
  });

  test("ties between equally long lines go to the earlier line, and an empty stream is 0 lines", () => {
    const result = run(offload(1, 8000), [["stdout", "aaa\nbbb\nc\nddd\neee\nfff\nggg\n"]]);
    expect(result.output).toContain("  longest lines: 3 chars @ 1, 3 @ 2, 3 @ 4, 3 @ 5, 3 @ 6\n");
    expect(result.output.endsWith(`stderr: ${result.files?.stderr}\n  0 lines`)).toBe(true);
  });

  test("stderr-only output is returned and described", () => {
    const result = run(offload(2, 8000), [["stderr", "e1\ne2\ne3\n"]]);
    expect(result.output.startsWith("e2\ne3\n[Output truncated: last 2 lines]\n")).toBe(true);
    expect(result.output).toContain(`stdout: ${result.files?.stdout}\n  0 lines\n`);
    expect(result.output).toContain("  3 lines; line length p50 2, p95 2, p99 2");
  });

  test("bytes that are not UTF-8 come back as U+FFFD and stay raw on disk", () => {
    const raw = Buffer.from([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0x0a]);
    const result = run(offload(200, 8000), [["stdout", raw]]);
    expect(result.output).toBe("ok \uFFFD\uFFFD\n");
    expect(readFileSync(result.files?.stdout ?? "")).toEqual(raw);
  });

  test("a character split across two chunks of one stream is decoded whole", () => {
    const bytes = Buffer.from("é");
    const result = run(offload(200, 8000), [["stdout", bytes.subarray(0, 1)], ["stderr", "x"], ["stdout", bytes.subarray(1)]]);
    expect(result.output).toBe("xé");
  });
});

describe("inline", () => {
  test("returns the whole output, whatever the ceilings, with nothing on disk", () => {
    const result = run(inline, [["stdout", numbered(500)]]);
    expect(result).toEqual({ output: numbered(500), truncated: false });
  });

  test("caps at 16 KiB, keeping the end, and says so", () => {
    const text = `${"y".repeat(100)}\n`.repeat(200);
    const result = run(inline, [["stdout", text]]);
    const kept = result.output.slice(0, result.output.lastIndexOf("[Output"));
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(OUTPUT_BYTE_CAP);
    expect(text.endsWith(kept)).toBe(true);
    expect(result.output.endsWith("\n[Output truncated: capped at 16384 bytes]")).toBe(true);
    expect(result.files).toBeUndefined();
  });

  test("16 KiB exactly fits", () => {
    const text = "z".repeat(OUTPUT_BYTE_CAP);
    expect(run(inline, [["stdout", text]])).toEqual({ output: text, truncated: false });
  });
});
