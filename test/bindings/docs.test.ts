import ts from "typescript";
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { renderCallsDoc } from "../../bindings/docs.ts";
import { renderDts } from "../../docs/dts.ts";
import { renderApiDoc } from "../../runtime/docs.ts";
import { CALLS } from "../../bindings/index.ts";

test("docs/calls.md is the page the declarations generate (run npm run docs when this fails)", () => {
  expect(readFileSync(new URL("../../docs/calls.md", import.meta.url), "utf8")).toBe(renderCallsDoc());
});

test("docs/api.md and docs/gg.d.ts are what the declarations generate (run npm run docs when this fails)", () => {
  expect(readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8")).toBe(renderApiDoc());
  expect(readFileSync(new URL("../../docs/gg.d.ts", import.meta.url), "utf8")).toBe(renderDts());
});

test("docs/gg.d.ts is valid TypeScript", () => {
  const { diagnostics } = ts.transpileModule(renderDts(), { reportDiagnostics: true, fileName: "gg.ts" });
  expect(diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
});

test("every call has a one-line brief", () => {
  for (const call of CALLS) {
    expect(call.brief).toMatch(/^[A-Z].*\.$/);
    expect(call.brief).not.toContain("\n");
  }
});
