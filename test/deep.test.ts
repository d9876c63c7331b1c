// `npm run test:deep` names its files by hand: it must name every test file that does less in `npm test` (each reads
// test/deep.ts), so no heavy test is left running only its quick pass.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";

const ROOT = join(import.meta.dirname, "..");

test("npm run test:deep runs exactly the test files that read test/deep.ts", () => {
  const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["test:deep"] ?? "";
  const named = script.split(/\s+/).filter((word) => word.endsWith(".test.ts"));
  const files = readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".test.ts"));
  const reading = files.filter((file) => /from "(\.\.\/|\.\/)+deep\.ts"/.test(readFileSync(join(ROOT, "test", file), "utf8"))).map((file) => relative(ROOT, join(ROOT, "test", file)));
  expect(reading.length).toBeGreaterThan(0);
  expect([...named].sort()).toEqual(reading.sort());
});
