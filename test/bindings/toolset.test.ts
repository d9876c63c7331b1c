// An AI SDK ToolSet as the application's functions: each tool is gg.app.<name> in programs and app__<name> in the
// tools arm, typed by its schemas, its input checked by gg and then by the SDK's own schema, as the SDK does.
import { jsonSchema, tool } from "ai";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { createTools } from "../../bindings/index.ts";
import { appFunctionsOf } from "../../bindings/toolset.ts";
import { createRuntime } from "../../runtime/index.ts";
import { tempWorkspace } from "../workspace.ts";

const toolSet = {
  weather: tool({
    description: "The weather in a city.",
    inputSchema: z.object({ city: z.string(), unit: z.enum(["C", "F"]).default("C") }),
    outputSchema: z.object({ city: z.string(), degrees: z.number(), unit: z.string() }),
    execute: async ({ city, unit }) => ({ city, degrees: 21, unit }),
  }),
  add: tool({
    description: "Add two numbers.",
    inputSchema: jsonSchema<{ a: number; b: number }>({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"], additionalProperties: false }),
    execute: async ({ a, b }) => a + b,
  }),
};

describe("an AI SDK ToolSet as functions", () => {
  test("createRuntime offers its tools as gg.app.<name>: zod defaults applied, bad input refused, types from their schemas", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, functions: toolSet });
    try {
      const report = await runtime.run('return [await gg.app.weather({ city: "Paris" }), await gg.app.add({ a: 1, b: 2 })];');
      expect(report.result).toEqual([{ city: "Paris", degrees: 21, unit: "C" }, 3]);
      const refused = await runtime.run('try { await gg.app.add({ a: "one", b: 2 }); } catch (error) { return error.code; }', { language: "js" });
      expect(refused.result).toBe("invalid-argument");
      const typed = await runtime.run('const w = await gg.app.weather({ city: "Oslo" });\nconst n: string = w.degrees;\nreturn n;', { check: true });
      expect(typed.error?.code).toBe("type-error");
    } finally {
      runtime.close();
    }
  });

  test("createTools offers them as app__<name> with their JSON Schemas", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: ws.root, functions: toolSet });
    const add = tools.definitions().find((definition) => definition.name === "app__add");
    expect(add).toMatchObject({ description: "Add two numbers.", parameters: { type: "object", required: ["a", "b"] } });
    expect(await tools.call("app__add", { a: 2, b: 3 })).toMatchObject({ ok: true, text: "5" });
  });

  test("a tool gg cannot run, or whose name is no identifier, is refused by name", () => {
    const clientSide = { description: "Asks the user.", inputSchema: jsonSchema({ type: "object", properties: {} }) };
    expect(() => appFunctionsOf({ ask: clientSide, add: toolSet.add })).toThrow("Cannot offer the AI SDK tools to programs: ask has no execute function, so gg cannot run it (a provider-executed or client-side tool)");
    using ws = tempWorkspace();
    expect(() => createTools({ workspace: ws.root, functions: { "get-sum": toolSet.add } })).toThrow(/has name "get-sum"; a name is an identifier/);
  });
});
