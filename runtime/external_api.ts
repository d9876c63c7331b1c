// gg.mcp and gg.app: the external tools of bindings/external.ts on the gg global. Four functions find and call any
// tool (gg.mcp.call, list, search, describe; gg.app.call); the namespaces gg.mcp.<server>.<tool> and gg.app.<name> are
// the same calls under the tools' own names, built by the shim from the catalog in force (realm.ts's layout).
import { Type } from "typebox";
import type { Configuration } from "../bindings/config.ts";
import { type CallResult, checkArguments, parametersOf } from "../bindings/define.ts";
import { type CallTool, type ExternalCatalog, type ExternalTool, externalDeclaration, heldCatalog, unknownExternal } from "../bindings/external.ts";
import { type CallOrigin, runApproved } from "../bindings/gate.ts";
import { toIdentifier } from "../bindings/identifiers.ts";
import { toolDeclaration } from "../bindings/schema_types.ts";
import { GgError } from "../host/errors.ts";
import type { ExternalEnv, GgEnv, GgFunction } from "./functions.ts";
import { scoreOf, words } from "./rank.ts";

/**
 * The environment of `catalog` with calls made through `callTool`, the tools `config`'s agent does not hold left out;
 * `settle` gives the catalog once a server still starting in it is listed.
 */
export function externalEnv(catalog: ExternalCatalog, callTool: CallTool, config: Configuration, settle?: (server: string) => Promise<ExternalCatalog>): ExternalEnv {
  const held = heldCatalog(catalog, config);
  return {
    catalog: held,
    declarations: new Map(held.tools.map((tool) => [tool.name, externalDeclaration(tool, callTool)])),
    ...(settle ? { settle: async (server: string) => externalEnv(await settle(server), callTool, config, settle) } : {}),
  };
}

/** The type a program receives from a tool without an outputSchema. */
export const MCP_TEXT_RESULT = "McpTextResult";
/** Its declaration, beside the gg global's. */
export const MCP_TEXT_RESULT_DTS = `/** What a tool without an outputSchema returns: its text blocks joined with newlines, and every block as sent. */
interface ${MCP_TEXT_RESULT} {
  text: string;
  content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | { type: string; [key: string]: unknown })[];
}`;

/** A tool's declaration as gg.mcp.describe gives it and the types hold it: `name(input: {...}): Promise<...>;`. */
export const declarationOf = (tool: ExternalTool, compact = false): string =>
  toolDeclaration(tool.call?.split(".").pop() ?? tool.tool, { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.source === "app" && !tool.outputSchema ? {} : tool.outputSchema }, { untypedOutput: MCP_TEXT_RESULT, compact });

/** A tool's description in one line of at most 160 characters: what search and list show. */
export const briefOf = (description: string): string => {
  const line = description.split("\n").find((text) => text.trim() !== "")?.trim() ?? "";
  const sentence = /^(.*?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
};

const noArgs = () => Type.Object({}, { additionalProperties: false });
const Listed = Type.Object({ server: Type.String(), tools: Type.Array(Type.String(), { description: "Its tools' names, as gg.mcp.call and describe take them." }), description: Type.Optional(Type.String()), error: Type.Optional(Type.String({ description: "Why it has no tools: it did not start, or died." })) }, { $id: "McpServer" });
const Found = Type.Object({ server: Type.String(), tool: Type.String(), call: Type.String({ description: 'How to call it: "gg.mcp.memory.create_entities", or gg.mcp.call(...) for a tool left out of its namespace.' }), brief: Type.String() }, { $id: "McpMatch" });
const Described = Type.Object({
  server: Type.String(),
  tool: Type.String(),
  call: Type.String(),
  description: Type.String(),
  declaration: Type.String({ description: "Its TypeScript declaration: input and result types." }),
  inputSchema: Type.Record(Type.String(), Type.Unknown()),
  outputSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { $id: "McpTool" });

/** How a program calls `tool`: its namespace's name, or gg.mcp.call with the server's own names. */
const callOf = (tool: ExternalTool): string => tool.call ?? (tool.source === "app" ? `gg.app.call(${JSON.stringify(tool.tool)}, input)` : `gg.mcp.call(${JSON.stringify(tool.server)}, ${JSON.stringify(tool.tool)}, input)`);

/** The external environment of a run; a runtime without external tools has none, and these functions do not exist there. */
const externalOf = (env: GgEnv): ExternalEnv => {
  const external = env.external?.();
  if (external) return external;
  throw new GgError("unavailable", "This runtime has no external tools: configure mcpServers (or --mcp-config), or give createRuntime functions");
};

/** Calls `tool` with `input` through the gate, as a tool call would be; the program receives its data. */
function callExternal(env: GgEnv, tool: ExternalTool | undefined, input: unknown, origin: CallOrigin, missing: () => GgError): Promise<unknown> {
  const external = externalOf(env);
  const declaration = tool && external.declarations.get(tool.name);
  if (!tool || !declaration) return Promise.reject(missing());
  const args = input === undefined || input === null ? {} : input;
  const refused = checkArguments(callOf(tool), parametersOf(declaration, env.context.config), args);
  if (refused) return Promise.reject(new GgError(refused.code, refused.message));
  return runApproved(declaration, args as Record<string, unknown>, env.context, origin).then((result: CallResult) => {
    if (!result.ok) throw new GgError(result.error.code, result.error.message);
    return (result.data as { data: unknown }).data;
  });
}

/** The MCP tool a gg.mcp.call names, if the catalog in force has it. */
const mcpToolOf = (args: Record<string, unknown>, env: GgEnv): ExternalTool | undefined =>
  externalOf(env).catalog.tools.find((candidate) => candidate.source === "mcp" && candidate.server === args.server && candidate.tool === args.tool);
/** The server a call names (by its name or its namespace's) when it is still starting in the catalog in force. */
const startingServer = (server: unknown, env: GgEnv): string | undefined =>
  externalOf(env).catalog.servers.find((summary) => summary.starting && (summary.server === server || summary.call === `gg.mcp.${String(server)}`))?.server;

/**
 * The environment a call of a tool the catalog in force lacks runs in: the one once its server is listed, when that
 * server is still starting (a program that reached it without naming it waits for it, as one naming it would have).
 */
async function settledFor(args: Record<string, unknown>, env: GgEnv): Promise<GgEnv> {
  const server = mcpToolOf(args, env) ? undefined : startingServer(args.server, env);
  const settle = externalOf(env).settle;
  if (server === undefined || !settle) return env;
  const settled = await settle(server);
  return { ...env, external: () => settled };
}
/** The application function a gg.app.call names, if there is one. */
const appToolOf = (args: Record<string, unknown>, env: GgEnv): ExternalTool | undefined => externalOf(env).catalog.tools.find((candidate) => candidate.source === "app" && candidate.tool === args.name);

const mcpCall: GgFunction = {
  module: "mcp",
  name: "call",
  brief: "Call a tool of a configured MCP server by the server's own names (any tool, also one left out of gg.mcp.<server>).",
  positional: ["server", "tool", "input"],
  parameters: () =>
    Type.Object({ server: Type.String({ description: "The server's name in mcpServers." }), tool: Type.String({ description: "The tool's name as its server lists it." }), input: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The tool's input object." })) }, { additionalProperties: false }),
  result: Type.Unknown(),
  errors: ["not-found", "tool-error", "unavailable", "timeout", "denied"],
  sync: false,
  // A tool marked read-only changes nothing gg can see: its calls are not journaled (a call of an unknown one runs nothing).
  effects: (args, env) => {
    const tool = mcpToolOf(args, env);
    return tool ? !tool.readOnly : startingServer(args.server, env) !== undefined;
  },
  run: async (args, env, origin) => {
    const { server, tool, input } = args as { server: string; tool: string; input?: unknown };
    const settled = await settledFor(args, env);
    return callExternal(settled, mcpToolOf(args, settled), input, origin, () => unknownExternal(externalOf(settled).catalog, server, tool));
  },
};

const appCall: GgFunction = {
  ...mcpCall,
  module: "app",
  brief: "Call one of the application's own functions by its name (gg.app.<name>(input) is the same call).",
  positional: ["name", "input"],
  parameters: () => Type.Object({ name: Type.String({ description: "The function's name." }), input: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Its input object." })) }, { additionalProperties: false }),
  errors: ["invalid-argument", "not-found", "tool-error", "denied"],
  effects: (args, env) => appToolOf(args, env)?.readOnly === false,
  run: (args, env, origin) => {
    const { name, input } = args as { name: string; input?: unknown };
    return callExternal(env, appToolOf(args, env), input, origin, () => unknownExternal(externalOf(env).catalog, "app", name));
  },
};

const mcpList: GgFunction = {
  module: "mcp",
  name: "list",
  brief: "List the configured MCP servers: each one's tools by name, its description, and why it failed if it did.",
  positional: [],
  parameters: noArgs,
  result: Type.Array(Listed),
  errors: [],
  sync: true,
  run: (_args, env) =>
    externalOf(env).catalog.servers.map((server) => ({
      server: server.server,
      tools: externalOf(env).catalog.tools.filter((tool) => tool.source === "mcp" && tool.server === server.server).map((tool) => tool.tool),
      ...(server.description ? { description: server.description } : {}),
      ...(server.error ? { error: server.error } : {}),
    })),
};

/** The external tools matching the query's `terms`, best first: a word in the tool's name counts 3, its server's 2, its description 1. */
export function rankTools(catalog: ExternalCatalog | undefined, terms: readonly string[]): { tool: ExternalTool; call: string; score: number }[] {
  return (catalog?.tools ?? [])
    .map((tool, order) => ({ tool, call: callOf(tool), order, score: scoreOf(terms, [[words(tool.tool), 3], [words(tool.server), 2], [words(tool.description), 1]]) }))
    .filter((match) => match.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order);
}

/** The MCP tools matching `query`, best first, at most `limit`. */
export function searchTools(catalog: ExternalCatalog, query: string, limit = 10): { server: string; tool: string; call: string; brief: string }[] {
  const mcp = { ...catalog, tools: catalog.tools.filter((tool) => tool.source === "mcp") };
  return rankTools(mcp, [...new Set(words(query))]).slice(0, limit).map(({ tool, call }) => ({ server: tool.server, tool: tool.tool, call, brief: briefOf(tool.description) }));
}

const mcpSearch: GgFunction = {
  module: "mcp",
  name: "search",
  brief: "Find MCP tools for a task: the best matches of the query's words in their names, servers and descriptions.",
  positional: ["query"],
  parameters: () => Type.Object({ query: Type.String({ description: "Words of what you want done, e.g. \"create entity\"." }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: "Matches at most (default 10)." })) }, { additionalProperties: false }),
  result: Type.Array(Found),
  errors: [],
  sync: true,
  run: (args, env) => searchTools(externalOf(env).catalog, String(args.query), (args.limit as number | undefined) ?? 10),
};

/** The MCP tool `name` of `server`, each by its own name or as a program calls it. */
function namedTool(catalog: ExternalCatalog, server: string, name: string): ExternalTool {
  const tool = catalog.tools.find((candidate) => candidate.source === "mcp" && (candidate.server === server || candidate.call?.split(".")[2] === server) && (candidate.tool === name || candidate.call === `gg.mcp.${server}.${name}`));
  if (!tool) throw unknownExternal(catalog, catalog.servers.find((summary) => summary.call === `gg.mcp.${server}`)?.server ?? server, name);
  return tool;
}

/** The one MCP tool called `name` (its own name or its identifier) on any server; several or none say to name its server. */
function bareTool(catalog: ExternalCatalog, name: string): ExternalTool {
  const found = catalog.tools.filter((candidate) => candidate.source === "mcp" && (candidate.tool === name || candidate.call?.split(".")[3] === name));
  if (found.length === 1) return found[0] as ExternalTool;
  const which = found.length > 1 ? `several servers have a tool ${JSON.stringify(name)}: ${found.map((tool) => `${tool.server}.${tool.tool}`).join(", ")}` : `no server has a tool ${JSON.stringify(name)}`;
  throw new GgError("not-found", `Cannot describe ${JSON.stringify(name)}: ${which}; give it as "server.tool" (gg.mcp.search finds tools)`);
}

const mcpDescribe: GgFunction = {
  module: "mcp",
  name: "describe",
  brief: "One MCP tool in full: its description, TypeScript declaration and JSON Schemas.",
  positional: ["tool"],
  parameters: () => Type.Object({ tool: Type.String({ description: 'The tool as "server.tool" (its server\'s names), as a program calls it ("gg.mcp.server.tool"), or by its name alone when one server has it.' }) }, { additionalProperties: false }),
  result: Described,
  errors: ["not-found"],
  sync: true,
  run: (args, env) => {
    const catalog = externalOf(env).catalog;
    const given = String(args.tool).replace(/^gg\.mcp\./, "");
    const dot = given.indexOf(".");
    const tool = dot < 0 ? bareTool(catalog, given) : namedTool(catalog, given.slice(0, dot), given.slice(dot + 1));
    return { server: tool.server, tool: tool.tool, call: callOf(tool), description: tool.description, declaration: declarationOf(tool), inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) };
  },
};

/** gg.mcp's and gg.app's functions under `catalog`: the modules exist when there are servers, or functions. */
export function externalFunctions(catalog: ExternalCatalog | undefined): GgFunction[] {
  if (!catalog) return [];
  const mcp = catalog.servers.length > 0 ? [mcpCall, mcpList, mcpSearch, mcpDescribe] : [];
  const app = catalog.tools.some((tool) => tool.source === "app") ? [appCall] : [];
  return [...mcp, ...app];
}

/** What the shim builds gg.mcp.<server>.<tool> and gg.app.<name> from: each name a program calls, and the names it calls. */
export interface NamespaceLayout {
  version: number;
  mcp: Record<string, Record<string, [server: string, tool: string]>>;
  /** Per server, the identifiers left out of its namespace (a collision, then): they stay undefined there. */
  hidden: Record<string, string[]>;
  app: string[];
}

/** The namespaces of `external`'s tools. */
export function namespaceLayout(external: ExternalEnv): NamespaceLayout {
  // No prototypes: a server may be called constructor, a tool __proto__.
  const layout: NamespaceLayout = { version: external.catalog.version, mcp: Object.create(null) as NamespaceLayout["mcp"], hidden: Object.create(null) as NamespaceLayout["hidden"], app: [] };
  for (const summary of external.catalog.servers) {
    const server = summary.call?.split(".")[2];
    if (server) layout.hidden[server] = summary.leftOut.flatMap((out) => toIdentifier(out.tool) ?? []);
  }
  for (const tool of external.catalog.tools) {
    if (!tool.call) continue;
    if (tool.source === "app") layout.app.push(tool.tool);
    else {
      const [, , server = "", name = ""] = tool.call.split(".");
      (layout.mcp[server] ??= Object.create(null) as NamespaceLayout["mcp"][string])[name] = [tool.server, tool.tool];
    }
  }
  return layout;
}

/** The declarations of the namespaces for the type-checker: `memory: { create_entities(input: ...): Promise<...>; }`. */
export function namespaceDts(external: ExternalCatalog | undefined): { mcp: string[]; app: string[] } {
  const tools = (external?.tools ?? []).filter((tool) => tool.call);
  const mcp = [...new Set(tools.filter((tool) => tool.source === "mcp").map((tool) => tool.call?.split(".")[2] as string))].map((server) => {
    const members = tools.filter((tool) => tool.source === "mcp" && tool.call?.split(".")[2] === server).map((tool) => `      ${declarationOf(tool, true)}`);
    return `    ${server}: {\n${members.join("\n")}\n    };`;
  });
  const app = tools.filter((tool) => tool.source === "app").map((tool) => `    ${declarationOf(tool, true)}`);
  return { mcp, app };
}
