import ts from "typescript";
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { renderCallsDoc } from "../../bindings/docs.ts";
import { renderApiDoc, renderDts } from "../../runtime/docs.ts";
import { defaultConfiguration } from "../../bindings/config.ts";
import { CALLS } from "../../bindings/index.ts";
import { ggFunctions } from "../../runtime/api.ts";
import { diagnostics } from "../typecheck.ts";

test("docs/calls.md is the page the declarations generate (run npm run docs when this fails)", () => {
  expect(readFileSync(new URL("../../docs/calls.md", import.meta.url), "utf8")).toBe(renderCallsDoc());
});

test("docs/api.md and docs/gg.d.ts are what the declarations generate (run npm run docs when this fails)", () => {
  expect(readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8")).toBe(renderApiDoc());
  expect(readFileSync(new URL("../../docs/gg.d.ts", import.meta.url), "utf8")).toBe(renderDts());
});

test("gg.files.editFile's third parameter is replacement in its signature and its parameter list alike", () => {
  const section = renderApiDoc().split("### gg.files.editFile")[1]?.split("###")[0] ?? "";
  expect(section).toContain("editFile(path: string, old: string, replacement: string)");
  expect(section).toContain("- `replacement` (string)");
  expect(section).not.toContain("`new`");
});

test("docs/gg.d.ts is valid TypeScript", () => {
  const { diagnostics } = ts.transpileModule(renderDts(), { reportDiagnostics: true, fileName: "gg.ts" });
  expect(diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
});

test("every call has a one-line brief, on each surface", () => {
  for (const brief of CALLS.flatMap((call) => [call.brief, call.code.brief ?? call.brief])) {
    expect(brief).toMatch(/^[A-Z].*\.$/);
    expect(brief).not.toContain("\n");
  }
});

test("gg.files.readFile's brief says it shows nothing, and where a picture is shown", () => {
  const brief = ggFunctions(defaultConfiguration()).find((fn) => fn.module === "files" && fn.name === "readFile")?.brief;
  expect(brief).toContain("without showing it to you");
  expect(brief).toContain("gg.views.openFile shows it");
});

test("docs/gg.d.ts type-checks beside the DOM library, as an editor would hold it", () => {
  const files = new Map([["/gg.d.ts", renderDts()], ["/p.ts", "console.log(gg.files.search('x'));\nexport {};\n"]]);
  expect(diagnostics(files, ["lib.esnext.d.ts", "lib.dom.d.ts"])).toEqual([]);
});
