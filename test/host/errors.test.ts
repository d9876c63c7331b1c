import { describe, expect, test } from "vitest";
import { callError, clampMessage, ERROR_CODES, fromSystemError, GgError, MESSAGE_CHARS, quote } from "../../host/errors.ts";

const errno = (code: string) => Object.assign(new Error(`${code}: system message`), { code });

describe("fromSystemError", () => {
  test.each([
    ["ENOENT", "not-found"],
    ["ENOTDIR", "not-found"],
    ["EACCES", "permission-denied"],
    ["EPERM", "permission-denied"],
    ["EROFS", "permission-denied"],
    ["EISDIR", "invalid-argument"],
    ["ENAMETOOLONG", "invalid-argument"],
    ["ELOOP", "invalid-argument"],
    ["EIO", "io-error"],
  ])("%s becomes %s, with the action and the path in the message", (code, expected) => {
    const error = fromSystemError("read", "/w/a.txt", errno(code));
    expect(error.code).toBe(expected);
    expect(error.message).toMatch(/^Cannot read \/w\/a\.txt: /);
    expect(ERROR_CODES).toContain(error.code);
  });

  test("a GgError passes through unchanged", () => {
    const original = new GgError("ambiguous", "x");
    expect(fromSystemError("read", "p", original)).toBe(original);
  });

  test("something that is not an Error still becomes an io-error", () => {
    expect(fromSystemError("read", "p", "boom").code).toBe("io-error");
  });
});

describe("bounded messages", () => {
  test("a message within the bound is kept whole", () => {
    const message = `Cannot read a: ${"x".repeat(MESSAGE_CHARS - 15)}`;
    expect(message.length).toBe(MESSAGE_CHARS);
    expect(clampMessage(message)).toBe(message);
  });

  test("a longer one keeps its head and its way out, says how much it held, and fits the bound", () => {
    const message = `Cannot search for ${"(".repeat(1_000_000)}: it is not valid; fix the pattern`;
    const clamped = clampMessage(message);
    expect(clamped.length).toBeLessThanOrEqual(MESSAGE_CHARS);
    expect(clamped).toMatch(/^Cannot search for \(\(\(/);
    expect(clamped).toMatch(/: it is not valid; fix the pattern$/);
    expect(clamped).toMatch(/\[…[\d,]+ of 1,000,052 characters left out…\]/);
  });

  test("a cut never splits a surrogate pair", () => {
    for (let shift = 0; shift < 4; shift++) {
      const clamped = clampMessage("a".repeat(shift) + "😀".repeat(2_000));
      expect(clamped.isWellFormed()).toBe(true);
    }
  });

  test("GgError and callError clamp what they are given", () => {
    const huge = `Cannot do it: ${"z".repeat(2_000_000)}; retry`;
    expect(new GgError("io-error", huge).message.length).toBeLessThanOrEqual(MESSAGE_CHARS);
    expect(callError("invalid-argument", huge).message.length).toBeLessThanOrEqual(MESSAGE_CHARS);
    expect(fromSystemError("read", "/w/".concat("d/".repeat(100_000)), Object.assign(new Error("EIO"), { code: "EIO" })).message.length).toBeLessThanOrEqual(MESSAGE_CHARS);
  });

  test("quote gives short input whole as JSON, long input as an excerpt and its length", () => {
    expect(quote('a"b')).toBe('"a\\"b"');
    expect(quote("q".repeat(1_000_000))).toBe(`"${"q".repeat(120)}…" (1,000,000 characters)`);
  });
});
