import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { importCircles, importGraph, layerBreaches } from "./imports.ts";
import { tempWorkspace } from "./workspace.ts";

const root = join(import.meta.dirname, "..");

describe("imports", () => {
  test("no import circle among the project's .ts files, type imports and re-exports included", () => {
    expect(importCircles(importGraph(root))).toEqual([]);
  });

  test("no layer imports a higher one: host <- bindings <- runtime <- agent <- mcp <- study <- frameworks <- console <- cli", () => {
    expect(layerBreaches(importGraph(root))).toEqual([]);
  });

  test("importCircles names every file of a circle, even one closed only by a type import through a third file", () => {
    using ws = tempWorkspace();
    ws.put({
      "bindings/config.ts": 'import { CALLS } from "./calls.ts";\nexport const n = CALLS.length;\n',
      "bindings/calls.ts": 'export { read } from "./read.ts";\nexport const CALLS = [];\n',
      "bindings/read.ts": 'import type { Configuration } from "./config.ts";\nexport const read = (c: Configuration) => c;\n',
      "bindings/alone.ts": 'import { n } from "./config.ts";\nexport const m = n;\n',
      "node_modules/x/a.ts": 'import "./b.ts";\n',
      "node_modules/x/b.ts": 'import "./a.ts";\n',
    });
    expect(importCircles(importGraph(ws.root))).toEqual([["bindings/calls.ts", "bindings/config.ts", "bindings/read.ts"]]);
  });

  test("layerBreaches names a host file that imports bindings, and a dynamic import counts", () => {
    using ws = tempWorkspace();
    ws.put({
      "host/files.ts": 'export const f = async () => (await import("../bindings/read.ts")).read;\n',
      "bindings/read.ts": 'import { f } from "../host/files.ts";\nexport const read = f;\n',
    });
    expect(layerBreaches(importGraph(ws.root))).toEqual(["host/files.ts imports bindings/read.ts, a higher layer"]);
  });
});
