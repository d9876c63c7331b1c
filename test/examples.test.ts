import { readdirSync, readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { parseConfiguration } from "../bindings/config.ts";

const dir = new URL("../examples/", import.meta.url);

test.each(readdirSync(dir).filter((name) => name.endsWith(".json")))("examples/%s is a configuration gg accepts", (name) => {
  expect(() => parseConfiguration(JSON.parse(readFileSync(new URL(name, dir), "utf8")))).not.toThrow();
});
