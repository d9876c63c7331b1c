import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseConfiguration } from "../bindings/config.ts";
import { enabledCalls } from "../bindings/index.ts";
import { engineWorkspace } from "./runtime/engine.ts";

const dir = new URL("../examples/", import.meta.url);
const program = (name: string): string => readFileSync(new URL(name, dir), "utf8");

test.each(readdirSync(dir).filter((name) => name.endsWith(".json")))("examples/%s is a configuration gg accepts", (name) => {
  expect(() => parseConfiguration(JSON.parse(readFileSync(new URL(name, dir), "utf8")))).not.toThrow();
});

test("examples/text-only-model.json is read-only: no call it gives can change the disk or start a process", () => {
  const config = parseConfiguration(JSON.parse(readFileSync(new URL("text-only-model.json", dir), "utf8")));
  expect(enabledCalls(config).filter((call) => call.effects)).toEqual([]);
  expect(config.vision).toBe(false);
});

describe("example programs", () => {
  test("todos.ts opens the two files with the most TODOs", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.ts": "// TODO 1\n", "b.ts": "// todo 1\n// TODO 2\n// TODO 3\n", "c.ts": "// TODO 1\n// TODO 2\n", "d.ts": "todos are not TODO-free\n" });
    const report = await ws.run(program("todos.ts"));
    expect(report.result).toEqual(["b.ts: 3 TODOs", "c.ts: 2 TODOs"]);
    expect(report.views.map((view) => view.path)).toEqual(["b.ts", "c.ts"]);
  });

  test("first-failure.ts runs the tests and opens the failing file at the failing line", async () => {
    using ws = engineWorkspace();
    ws.put({
      "package.json": JSON.stringify({ name: "demo", private: true, scripts: { test: "node --test" } }),
      "src/calc.js": "exports.add = (a, b) => a - b;\n",
      "src/calc.test.js": [
        'const test = require("node:test");',
        'const assert = require("node:assert");',
        'const { add } = require("./calc.js");',
        "",
        'test("adds", () => {',
        "  assert.strictEqual(add(2, 2), 4);",
        "});",
        "",
      ].join("\n"),
    });
    const report = await ws.run(program("first-failure.ts"));
    expect(report.result).toMatch(/^exit code 1: opened .*src\/calc\.test\.js around line [56]$/);
    expect(report.views[0]?.window).toMatchObject({ first: 1, total: 7 });
  });

  test("rename.ts renames a symbol across files with editFile, duplicates included", async () => {
    using ws = engineWorkspace();
    ws.put({
      "api.ts": "export function fetchUser(id: string) {}\nexport const fetchUsers = 1;\n",
      "app.ts": "import { fetchUser } from './api';\nfetchUser('a');\nfetchUser('a');\nfetchUser('a');\n",
    });
    const report = await ws.run(program("rename.ts"));
    expect(report).toMatchObject({ ok: true, result: "renamed fetchUser to loadUser: 4 edits in 2 files" });
    expect(readFileSync(join(ws.root, "app.ts"), "utf8")).toBe("import { loadUser } from './api';\nloadUser('a');\nloadUser('a');\nloadUser('a');\n");
    expect(readFileSync(join(ws.root, "api.ts"), "utf8")).toBe("export function loadUser(id: string) {}\nexport const fetchUsers = 1;\n");
  });
});
