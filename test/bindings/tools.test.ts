import { expect, test } from "vitest";
import { defaultConfiguration } from "../../bindings/config.ts";
import { toolDefinitions } from "../../bindings/index.ts";

test("the tool definitions a model receives are pinned", async () => {
  await expect(`${JSON.stringify(toolDefinitions(defaultConfiguration()), null, 2)}\n`).toMatchFileSnapshot("__snapshots__/tools.json");
});
