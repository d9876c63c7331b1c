// gg mcp: the agent surface as a Model Context Protocol server. A thin layer: the tools are the calls the agent holds
// (their TypeBox schemas served as they are), run_program runs programs in one runtime for the whole session, and
// search_docs, the resources and the prompts are the generated docs, types and system prompts. Nothing is declared
// twice; stdout carries the protocol and nothing else. The folder served is the workspace given, or, when asked, the
// client's first root: roots are listed after initialize, so the tools and the runtime are made once it is known.
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { getMethodLiteral } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode as McpErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type Static, Type } from "typebox";
import { type Arm, programRules, systemPrompt, viewsText } from "../agent/prompts.ts";
import { RunProgram, type RunProgramArgs, runProgramTool } from "../agent/program_tool.ts";
import { type Configuration, forAgent } from "../bindings/config.ts";
import { checkArguments, type Attachment, errorText } from "../bindings/define.ts";
import { createTools, type ToolsOptions, toolAnnotations } from "../bindings/index.ts";
import { ggPackage } from "../host/package.ts";
import { killAllCommands } from "../host/shell.ts";
import { renderApiDoc, renderDts, searchDocs } from "../runtime/docs.ts";
import { createRuntime, type OpenedView } from "../runtime/index.ts";
import { VIEW_HEADINGS } from "../runtime/window.ts";
import { elicitingApprove } from "./elicit.ts";
import { quote } from "./messages.ts";
import { lineTransport } from "./transport.ts";

/** What a server serves: a workspace, a configuration, and the agent whose allowlist applies. */
export interface McpOptions {
  /** The folder served: relative paths resolve against it and commands run in it. */
  workspace: string;
  /** Serve the client's first root instead, when the client lists roots; `workspace` is then served when it lists none. */
  roots?: boolean;
  config: Configuration;
  agent?: string;
  /** What searches keep between calls (see createTools' `warm`). */
  warm?: ToolsOptions["warm"];
  /** Told the folder the session serves once it is settled, and why that one (gg mcp says so on stderr). */
  onServing?: (workspace: string, why: string) => void;
}

/** How long a client has to answer roots/list (ms) before the session serves `workspace`. */
const ROOTS_TIMEOUT_MS = 10_000;

/** The folder a server with these options serves, as a sentence's object: exact, or the rule when roots may decide. */
function servedFolder(options: Pick<McpOptions, "workspace" | "roots">): string {
  return options.roots ? `the client's first root (the first folder it lists in roots/list), or ${options.workspace} when it lists none` : options.workspace;
}

/** The server's instructions: the folder it serves, and where the docs are. */
const instructions = (options: McpOptions): string =>
  `gg serves ${servedFolder(options)}: relative paths resolve against it and shell commands run in it. run_program runs a program against the gg global (its types: the resource gg://types/gg.d.ts; search_docs finds a function).`;

/** The folder the session serves and why: the client's first root that is a directory, when asked for and listed, else `workspace`. */
async function settleWorkspace(server: Server, options: McpOptions): Promise<{ workspace: string; why: string }> {
  const fallback = (why: string) => ({ workspace: options.workspace, why });
  if (!options.roots) return fallback("the workspace given");
  if (server.getClientCapabilities()?.roots === undefined) return fallback("the folder gg mcp started in: the client offers no roots");
  let roots: { uri: string }[];
  try {
    ({ roots } = await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS }));
  } catch (error) {
    return fallback(`the folder gg mcp started in: the client's roots/list failed (${(error as Error).message})`);
  }
  const skipped: string[] = [];
  // The SDK has checked that each is a file:// URI.
  for (const { uri } of roots) {
    const path = fileURLToPath(uri);
    if (isDirectory(path)) return { workspace: path, why: `the client's first root${skipped.length > 0 ? ` that is a folder (not ${skipped.join(", ")})` : ""}` };
    skipped.push(uri);
  }
  return fallback(`the folder gg mcp started in: the client lists ${roots.length === 0 ? "no roots" : `no root that is a folder (${skipped.join(", ")})`}`);
}

/** Whether `path` is an existing directory. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const SearchDocs = Type.Object({ query: Type.String({ description: "Words of what you want to do, e.g. read a file, run a command." }) }, { additionalProperties: false });

const RESOURCES = [
  { uri: "gg://docs/api.md", name: "api.md", mimeType: "text/markdown", description: "The gg global: every function with its signature, brief, parameters and errors, then the types." },
  { uri: "gg://types/gg.d.ts", name: "gg.d.ts", mimeType: "text/typescript", description: "The gg global as TypeScript declarations: what programs are type-checked against." },
  { uri: "gg://views", name: "views", mimeType: "application/json", description: "The views programs opened in this session, oldest first: each one's path, its lines, and whether its file changed since (stale)." },
] as const;

const PROMPTS = [
  { name: "tools-agent", description: "The system prompt of an agent that acts through gg's tools." },
  { name: "code-agent", description: "The system prompt of an agent that acts by writing programs (run_program), then its opening turn: the workspace's tree and the docs of the modules it holds." },
] as const;

/** A tool's failure as the model reads it. */
const failure = (code: string, message: string): CallToolResult => ({ isError: true, content: [{ type: "text", text: errorText({ code, message }) }], structuredContent: { code, message } });

/** A picture's data: URL as an image block: its base64 and its mime type. */
const imageBlock = (dataUrl: string) => ({ type: "image" as const, data: dataUrl.slice(dataUrl.indexOf(",") + 1), mimeType: dataUrl.slice(5, dataUrl.indexOf(";")) });

/** A JSON-RPC error the SDK answers with as it is (an McpError's message would begin "MCP error -32602: "). */
const rpcError = (code: number, message: string): Error => Object.assign(new Error(message), { code });

/** Creates the server for one session; `close` stops its runtime. */
export function createMcpServer(options: McpOptions) {
  const config = forAgent(options.config, options.agent);
  const agent = options.agent === undefined ? {} : { agent: options.agent };
  const server = new Server({ name: "gg", version: ggPackage()?.version ?? "unknown" }, { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: instructions(options) });
  // An ask, from a tool call or a program, is put to the client as an elicitation.
  const approve = elicitingApprove(server, config);
  /** The session's tools and runtime, made once the folder served is settled (the first request that needs them waits). */
  let opened: Promise<{ tools: ReturnType<typeof createTools>; held: Set<string>; runtime: ReturnType<typeof createRuntime> }> | undefined;
  const session = () =>
    (opened ??= settleWorkspace(server, options).then(({ workspace, why }) => {
      options.onServing?.(workspace, why);
      const warm = options.warm === undefined ? {} : { warm: options.warm };
      const tools = createTools({ workspace, config, ...agent, approve, ...warm });
      // The session's programs share one realm: each one's top-level declarations stay for the next.
      const runtime = createRuntime({ workspace, config, ...agent, approve, keepState: true, ...warm });
      return { tools, held: new Set(tools.names()), runtime };
    }));
  // Settled as soon as the client may be asked for its roots, so the first call does not wait for them.
  server.oninitialized = () => void session();
  /** The views the model was already shown (by id, unique for the runtime's life), so a run sends only those it opened. */
  const shown = new Set<number>();
  /** run_program and the opening turn run one at a time, each with the views it reads, so a report and the views line up. */
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => {});
    return result;
  };
  let opening: Promise<OpenedView[]> | undefined;

  const ownTools = [
    {
      name: "run_program",
      description: [
        "Run a program against the gg global in this session's runtime, where the views programs open stay open.",
        ...programRules({ delivery: "tool" }).slice(1),
        "The gg global's types are the resource gg://types/gg.d.ts; search_docs finds a function.",
      ].join(" "),
      inputSchema: RunProgram,
      // A program can make any call the session holds, shell included.
      annotations: toolAnnotations({ effects: true, openWorld: true }),
    },
    { name: "search_docs", description: "Find the gg functions for what you want to do: ranked matches with their signatures and briefs.", inputSchema: SearchDocs, annotations: toolAnnotations({}) },
  ];

  /** The methods served: the SDK's Server answers initialize and ping itself. */
  const served = ["initialize", "ping"];
  const handle: typeof server.setRequestHandler = (schema, handler) => {
    served.push(getMethodLiteral(schema));
    server.setRequestHandler(schema, handler);
  };
  // Any other method is answered in a sentence that names those served.
  server.fallbackRequestHandler = async (request) => {
    throw rpcError(McpErrorCode.MethodNotFound, `Cannot handle ${quote(request.method)}: gg does not serve that method; the methods served are ${served.join(", ")}`);
  };

  const runProgram = async (args: RunProgramArgs, signal: AbortSignal): Promise<CallToolResult> => {
    const { runtime } = await session();
    const answer = await runProgramTool(runtime, shown, args, signal);
    if ("refused" in answer) return failure(answer.refused.code, answer.refused.message);
    const content = answer.parts.map((part) => (part.type === "text" ? part : imageBlock(part.dataUrl)));
    return { ...(answer.report.ok ? {} : { isError: true }), content, structuredContent: answer.report as unknown as Record<string, unknown> };
  };

  handle(ListToolsRequestSchema, async () => {
    const { tools } = await session();
    return {
      tools: [...tools.definitions().map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters, annotations: tools.annotations(tool.name) })), ...ownTools],
    } as never;
  });

  handle(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args: unknown = request.params.arguments ?? {};
    if (name === "run_program" || name === "search_docs") {
      const refused = checkArguments(name, name === "run_program" ? RunProgram : SearchDocs, args);
      if (refused) return failure(refused.code, refused.message);
      if (name === "search_docs") {
        const matches = searchDocs((args as Static<typeof SearchDocs>).query, config, await (await session()).runtime.catalog());
        const text = matches.length === 0 ? "No function of the gg global matches that." : matches.map((match) => `${match.function}: ${match.brief}\n  ${match.signature}`).join("\n");
        return { content: [{ type: "text", text }], structuredContent: { matches } };
      }
      return serially(() => runProgram(args as RunProgramArgs, extra.signal));
    }
    const { tools, held, runtime } = await session();
    if (!held.has(name)) {
      throw rpcError(McpErrorCode.InvalidParams, `Cannot call the tool ${quote(name)}: the session holds no tool of that name; the tools are ${[...held, ...ownTools.map((tool) => tool.name)].join(", ")}`);
    }
    const result = await tools.call(name, args, extra.signal);
    if (!result.ok) return failure(result.error.code, result.error.message);
    const pictures = (result.attachments ?? []).map((picture: Attachment) => imageBlock(picture.dataUrl));
    // A call that may change files names the open views it made stale (a runner that was never started has none).
    const changed = tools.annotations(name)?.readOnlyHint ? [] : (await serially(() => runtime.views())).flatMap((view) => (view.changed ? [view.changed] : []));
    const stale = changed.length > 0 ? [{ type: "text" as const, text: `Stale views:\n${changed.join("\n")}` }] : [];
    return { content: [{ type: "text", text: result.text }, ...pictures, ...stale] };
  });

  handle(ListResourcesRequestSchema, () => ({ resources: RESOURCES.map((resource) => ({ ...resource })) }));
  // Every resource has a fixed URI: a client that asks for templates learns there are none, rather than of a method gg lacks.
  handle(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  handle(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const resource = RESOURCES.find((candidate) => candidate.uri === uri);
    if (!resource) throw rpcError(McpErrorCode.InvalidParams, `Cannot read the resource ${quote(uri)}: gg serves no resource of that URI; the resources are ${RESOURCES.map((candidate) => candidate.uri).join(", ")}`);
    if (uri === "gg://views") {
      const { runtime } = await session();
      const views = (await serially(() => runtime.views())).map((view) => ({ path: view.path, ...(view.window ? { window: view.window } : {}), stale: view.stale === true }));
      return { contents: [{ uri, mimeType: resource.mimeType, text: JSON.stringify(views) }] };
    }
    const external = await (await session()).runtime.catalog();
    return { contents: [{ uri, mimeType: resource.mimeType, text: uri === "gg://docs/api.md" ? renderApiDoc(config, external) : renderDts(config, external) }] };
  });

  handle(ListPromptsRequestSchema, () => ({ prompts: PROMPTS.map((prompt) => ({ ...prompt })) }));
  handle(GetPromptRequestSchema, async (request) => {
    const prompt = PROMPTS.find((candidate) => candidate.name === request.params.name);
    if (!prompt) throw rpcError(McpErrorCode.InvalidParams, `Cannot get the prompt ${quote(request.params.name)}: gg serves no prompt of that name; the prompts are ${PROMPTS.map((candidate) => candidate.name).join(", ")}`);
    const arm: Arm = prompt.name === "tools-agent" ? "tools" : "code";
    const messages = [{ role: "user" as const, content: { type: "text" as const, text: systemPrompt({ arm, config, delivery: "tool", ...(arm === "code" ? { external: await (await session()).runtime.catalog() } : {}) }) } }];
    if (arm === "code") {
      // Opened once per session: its views stay in the session's window like any other.
      opening ??= serially(async () => {
        const views = await (await session()).runtime.openingTurn();
        for (const view of views) shown.add(view.id);
        return views;
      });
      const views = await opening;
      if (views.length > 0) messages.push({ role: "user", content: { type: "text", text: `${VIEW_HEADINGS.opening}\n\n${viewsText(views)}` } });
    }
    return { description: prompt.description, messages };
  });

  return {
    server,
    /** Stops the runtime and every command the session started. */
    async close(): Promise<void> {
      // A session closed before it settled has no runtime yet, and asks the client nothing more.
      // The runtime's close ends the runner and stops its MCP servers their way (stdin, then signals) before the rest goes.
      await (await opened?.catch(() => undefined))?.runtime.close();
      killAllCommands();
      await server.close();
    },
  };
}

/** Serves one session over stdio; resolves with the exit status once stdin closes. */
export async function serveStdio(options: McpOptions): Promise<number> {
  const session = createMcpServer(options);
  return new Promise((resolve, reject) => {
    let closing = false;
    // The transport closes when stdin ends, and the server's onclose follows.
    session.server.onclose = (): void => {
      if (closing) return;
      closing = true;
      session.close().finally(() => resolve(0));
    };
    session.server.connect(lineTransport()).catch(reject);
  });
}
