// The code arm's fixed prefix (system prompt and opening turn) as the loop estimates its first request: at most 1,000
// tokens on any workspace, and well under the tools arm's (system prompt and function definitions).
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type Bands, runAgent } from "../../agent/loop.ts";
import type { Arm } from "../../agent/prompts.ts";
import { OPENING_TREE_TOKENS } from "../../bindings/config.ts";
import { textTokens } from "../../runtime/context.ts";
import { fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

/** The fixed prefix of `arm` on `workspace`: every band of the first request but the task (the model answers at once). */
async function prefix(arm: Arm, workspace: string): Promise<number> {
  await using model = await fakeModel(() => ({ content: "Done." }));
  const report = await runAgent({ provider: model.provider, model: "m", arm, task: "", workspace });
  const first = report.turns[0]?.estimate as Bands;
  return first.system + first.tools + first.views;
}

describe("the code arm's fixed prefix", () => {
  test("is at most 1,000 tokens on an empty folder, a flat one, a deep one and this repository, half the tools arm's", async () => {
    using empty = tempWorkspace();
    using flat = tempWorkspace();
    using deep = tempWorkspace();
    const files: Record<string, string> = { "fp/": "" };
    for (let i = 0; i < 700; i++) files[`a-rather-long-function-module-name-${i}.js`] = "";
    flat.put(files);
    const nested: Record<string, string> = {};
    for (const a of ["src", "test", "docs", "scripts"]) for (const b of ["core", "extras", "utils", "math", "io"]) for (let i = 0; i < 12; i++) nested[`${a}/${b}/file-${i}.ts`] = "";
    deep.put(nested);
    const repository = join(import.meta.dirname, "../..");
    const tools = await prefix("tools", empty.root);
    for (const workspace of [empty.root, flat.root, deep.root, repository]) {
      const code = await prefix("code", workspace);
      expect(code).toBeLessThanOrEqual(1000);
      expect(code).toBeLessThan(tools / 1.8);
    }
  });

  test("stays under 1,000 tokens with a tree that fills its whole budget", async () => {
    using empty = tempWorkspace();
    // The empty folder's tree replaced by one of the budget's size, its heading rounding up a token at most.
    const emptyTree = textTokens("## gg://workspace/tree\n\n(empty directory)");
    const full = textTokens(`## gg://workspace/tree\n\n${"x".repeat(OPENING_TREE_TOKENS * 4)}`);
    expect((await prefix("code", empty.root)) - emptyTree + full).toBeLessThanOrEqual(1000);
  });
});
