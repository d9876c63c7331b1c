import { describe, expect, test } from "vitest";
import { CALLS } from "../../bindings/index.ts";
import { ERROR_CODES } from "../../host/errors.ts";
import { tempWorkspace } from "../workspace.ts";

const hostile: unknown[] = [
  null,
  [],
  "read_file",
  42,
  { path: null },
  { path: 7 },
  { path: "\0" },
  { path: "a".repeat(10_000) },
  { path: "x", offset: -1 },
  { path: "x", offset: 1.5 },
  { path: "x", limit: 0 },
  { path: "x", offset: Number.MAX_SAFE_INTEGER },
  { path: ".", depth: 1e9 },
  { query: "(", path: "." },
  { query: "a{99999999}" },
  { query: "x", limit: -3 },
  { path: "x", old: "", new: "y" },
  { path: "x", content: { toString: "no" } },
  { __proto__: { path: "x" } },
  { constructor: "x", path: "x" },
  { command: "\0" },
  { command: "" },
  { command: "true", timeoutSecs: Number.MAX_VALUE },
];

describe("every call, given hostile arguments", () => {
  test.each(CALLS.map((call) => call.name))("%s answers with a result or a typed error, never a throw", async (name) => {
    using ws = tempWorkspace();
    ws.put({ x: "line\n" });
    for (const args of hostile) {
      const result = await ws.call(name, args);
      if (!result.ok) {
        expect(ERROR_CODES).toContain(result.error.code);
        expect(result.error.message.length).toBeGreaterThan(10);
      }
    }
    expect(await ws.text("read_file", { path: "x" })).toBe("line\n");
  });
});
