// An AI SDK ToolSet as the application's functions: each tool with an `execute` becomes an AppFunction (gg.app.<name>,
// app__<name>), its input schema turned into JSON Schema by the SDK's own asSchema. The SDK (`ai`, an optional peer)
// is loaded only when a ToolSet is given, so gg alone never loads it; its types are read structurally here, so gg's
// own declarations never name it.
import { createRequire } from "node:module";
import type { TSchema } from "typebox";
import { GgError } from "../host/errors.ts";
import type { AppFunction } from "./external.ts";

/** An AI SDK tool as gg reads it: the SDK's `Tool`, structurally. */
export interface SdkTool {
  description?: unknown;
  /** A zod schema, `jsonSchema(...)` or any schema the SDK's asSchema takes. */
  inputSchema: unknown;
  outputSchema?: unknown;
  execute?: (input: never, options: never) => unknown;
  type?: string;
}

/** An AI SDK `ToolSet`: tools by name. */
export type ToolSetLike = Readonly<Record<string, SdkTool>>;

/** The application's functions as gg's options take them: AppFunctions, or an AI SDK ToolSet. */
export type Functions = readonly AppFunction[] | ToolSetLike;

/** What gg uses of the `ai` package. */
interface AiSdk {
  asSchema(schema: unknown): { readonly jsonSchema: unknown; readonly validate?: (value: unknown) => unknown };
}

/** The `ai` package the application installed beside gg; a missing one is named in one line. */
function aiSdk(): AiSdk {
  try {
    // Synchronous, so createRuntime and createTools stay so: Node 24 requires an ES module as the one `import` loads.
    return createRequire(import.meta.url)("ai") as AiSdk;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND" && (error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new GgError("unavailable", "Cannot offer an AI SDK ToolSet to programs: the package ai is not installed beside gg-runtime; install it with npm install ai");
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === "function";

/** The last value of a tool's execute: a streaming tool yields preliminary ones, and its output is the last. */
async function finalOutput(value: unknown): Promise<unknown> {
  const given = await value;
  if (typeof (given as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] !== "function") return given;
  let last: unknown;
  for await (const output of given as AsyncIterable<unknown>) last = output;
  return last;
}

/** Tool `name` of a ToolSet as an AppFunction, or why it cannot be one. */
function appFunction(sdk: AiSdk, name: string, tool: SdkTool): AppFunction | string {
  const { execute } = tool;
  if (typeof execute !== "function") return `${name} has no execute function, so gg cannot run it (a provider-executed or client-side tool)`;
  const input = sdk.asSchema(tool.inputSchema);
  const inputJson = input.jsonSchema;
  const outputJson = tool.outputSchema === undefined ? undefined : sdk.asSchema(tool.outputSchema).jsonSchema;
  if (isThenable(inputJson) || isThenable(outputJson)) return `${name} has a schema whose JSON Schema is a promise; gg needs it at once: pass a plain object to jsonSchema()`;
  const description = typeof tool.description === "function" ? (tool.description as (options: object) => unknown)({ context: undefined }) : tool.description;
  let calls = 0;
  return {
    name,
    description: typeof description === "string" ? description : "",
    input: inputJson as TSchema,
    ...(outputJson === undefined ? {} : { output: outputJson as TSchema }),
    // gg has checked the input against the JSON Schema; the SDK's own validation then gives what execute expects
    // (a zod schema's defaults and transforms applied), as the SDK does before it calls a tool.
    async run(given: unknown) {
      const checked = input.validate ? ((await input.validate(given)) as { success: boolean; value?: unknown; error?: Error }) : { success: true, value: given };
      if (!checked.success) throw new GgError("invalid-argument", `Cannot call app.${name}: its input does not match its schema: ${checked.error?.message ?? "no reason given"}`);
      const run = execute as (input: unknown, options: object) => unknown;
      return finalOutput(run(checked.value, { toolCallId: `gg-app-${name}-${++calls}`, messages: [], context: undefined }));
    },
  };
}

/** The application's functions given as AppFunctions or as an AI SDK ToolSet, as AppFunctions; every problem at once. */
export function appFunctionsOf(functions: Functions | undefined): readonly AppFunction[] | undefined {
  if (functions === undefined || Array.isArray(functions)) return functions as readonly AppFunction[] | undefined;
  const entries = Object.entries(functions as ToolSetLike);
  if (entries.length === 0) return [];
  const sdk = aiSdk();
  const converted = entries.map(([name, tool]) => appFunction(sdk, name, tool));
  const problems = converted.filter((entry): entry is string => typeof entry === "string");
  if (problems.length > 0) throw new GgError("invalid-argument", `Cannot offer the AI SDK tools to programs: ${problems.join("; ")}`);
  return converted as AppFunction[];
}
