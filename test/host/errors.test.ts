import { describe, expect, test } from "vitest";
import { ERROR_CODES, fromSystemError, GgError } from "../../host/errors.ts";

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
