import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { renderCallsDoc } from "../../bindings/docs.ts";
import { CALLS } from "../../bindings/index.ts";

test("docs/calls.md is the page the declarations generate (run npm run docs when this fails)", () => {
  expect(readFileSync(new URL("../../docs/calls.md", import.meta.url), "utf8")).toBe(renderCallsDoc());
});

test("every call has a one-line brief", () => {
  for (const call of CALLS) {
    expect(call.brief).toMatch(/^[A-Z].*\.$/);
    expect(call.brief).not.toContain("\n");
  }
});
