// Tools from outside gg: other MCP servers' (host/mcp_client.ts) and the application's own functions, in one registry
// from which the tools arm's JSON tools, the program surface (gg.mcp, gg.app), the types, the docs and the approvals are
// all derived, as gg's own surfaces are from bindings/. A catalog is plain data, so it crosses between processes; the
// MCP tools run where the registry was made (a runtime's runner process, beside its programs' isolates), the
// application's functions in the process that holds them (the registry relays their calls: AppPart).
import { resolve } from "node:path";
import { type Static, type TSchema, Type } from "typebox";
import { createMcpHub, type McpHub, STILL_STARTING } from "../host/mcp_client.ts";
import { clampMessage, GgError, isGgError } from "../host/errors.ts";
import { similarNames } from "../host/similar.ts";
import type { Configuration } from "./capabilities.ts";
import type { Attachment, CallContext, Runnable } from "./define.ts";
import { coversExternal, cutName } from "./external_names.ts";
import { namespaceOf, toIdentifier } from "./identifiers.ts";

/** A function of the application's own, offered to programs as `gg.app.<name>` and to tool calls as `app__<name>`. */
export interface AppFunction<Input extends TSchema = TSchema> {
  /** An identifier: `[A-Za-z_][A-Za-z0-9_]*`, not `call`. */
  name: string;
  description: string;
  /** The input's TypeBox schema (an object): calls are checked against it before `run` sees them. */
  input: Input;
  /** The output's schema, for the types and docs programs get. */
  output?: TSchema;
  /** True when it changes nothing: an approvalDefault of ask does not ask for it. */
  readOnly?: boolean;
  run(input: Static<Input>): unknown;
}

/** One external tool as every surface derives it. */
export interface ExternalTool {
  source: "mcp" | "app";
  /** The server's name; "app" for the application's functions. */
  server: string;
  /** Its name as its server gives it. */
  tool: string;
  /** Its JSON tool's name, which approval rules name too: `mcp__memory__create_entities`, `app__lookup`. */
  name: string;
  /** How a program calls it, `gg.mcp.memory.create_entities`; absent when it was left out of the namespace. */
  call?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** Marked read-only by its server (readOnlyHint) or its author: an approvalDefault of ask does not ask for it. */
  readOnly: boolean;
}

/** What a catalog says of each server: its tools' count and what went wrong, for prompts and gg.mcp.list(). */
export interface ServerSummary {
  server: string;
  /** `gg.mcp.<identifier>`, absent when the server's name came out the same as another's. */
  call?: string;
  description?: string;
  tools: string[];
  /** Why the server has no tools: it did not start, or died, or is still starting (then `starting` too). */
  error?: string;
  /** Not listed yet: a listing that did not wait for it was made while it started. */
  starting?: true;
  /** Tools a program can call only through gg.mcp.call, and why. */
  leftOut: { tool: string; why: string }[];
}

/** Every external tool at one moment; `version` changes when a server says its tools changed. */
export interface ExternalCatalog {
  version: number;
  servers: ServerSummary[];
  tools: ExternalTool[];
}

/** A call's outcome: the value a program receives, the text and pictures a tool-calling model receives. */
export interface ExternalOutput {
  data: unknown;
  text: string;
  attachments?: Attachment[];
}

/** Runs an external tool by its JSON name with arguments the gate checked; rejects with a GgError. */
export type CallTool = (name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<ExternalOutput>;

/** Characters of an external tool's text that a tool-calling model receives; a program gets the whole result. */
export const EXTERNAL_TEXT_CHARS = 50_000;

/** An external tool's declaration for the gate, with the tool it declares. */
export type ExternalDeclaration = ReturnType<typeof externalDeclaration>;

/** What the tools arm offers of the external tools at one moment: the catalog and each tool's declaration, by JSON name. */
export interface ExternalSurface {
  catalog: ExternalCatalog;
  declarations: ReadonlyMap<string, ExternalDeclaration>;
}

/** The external tools of a run or a session: listed on first need, each call run here. */
export interface Externals {
  /**
   * Every tool, each server waited for; or, given a program's source, the servers it could name (see
   * {@link serversNamed}) waited for, the others listed as far as they got (STILL_STARTING), so that a server that is
   * slow to start delays only the programs that use it.
   */
  catalog(program?: string): Promise<ExternalCatalog>;
  /** The catalog with `server` waited for (a program reached it without naming it), the others as far as they got. */
  settle(server: string): Promise<ExternalCatalog>;
  /** The catalog with every server waited for `ms` at most: one not listed by then is still starting. */
  within(ms: number): Promise<ExternalCatalog>;
  /** The catalog with each tool's declaration, for createTools' `external`. */
  surface(): Promise<ExternalSurface>;
  /** Runs tool `name` (its JSON tool name) with `args` already checked by the gate; throws a GgError. */
  run: CallTool;
  /** Stops every server this started. */
  close(): Promise<void>;
}

const APP = "app";
/**
 * A tool's JSON name, which approval rules, the hook and the console see alike: `mcp__<server>__<tool>`, `app__<name>`,
 * cut (cutName) when over TOOL_NAME_CHARS.
 */
const jsonName = (source: string, server: string, tool: string): string => cutName(`${source}__${server}__${tool}`.replace(/^app__app__/, "app__"));

/** A tool's JSON name part: its own name where tool-calling APIs take it, else its identifier. */
const toolPart = (tool: string): string => (/^[A-Za-z0-9_-]+$/.test(tool) ? tool : (toIdentifier(tool) ?? "tool"));

/** The words a left-out tool's reason gives. */
const WHY = { collision: "its name comes out the same as another tool's", then: "it is named then, which would make the namespace look like a promise", "no-identifier": "nothing of its name can be an identifier" };

/** The catalog of MCP servers' listings and the application's functions' tools. */
function catalogOf(listings: Awaited<ReturnType<McpHub["listing"]>>, appTools: readonly ExternalTool[], version: number): ExternalCatalog {
  const servers: ServerSummary[] = [];
  const tools: ExternalTool[] = [];
  const serverIds = namespaceOf(listings.map((listing) => listing.server));
  const serverCall = new Map([...serverIds.byIdentifier].map(([identifier, server]) => [server, identifier]));
  for (const listing of listings) {
    const space = namespaceOf(listing.tools.map((tool) => tool.name));
    const identifierOf = new Map([...space.byIdentifier].map(([identifier, tool]) => [tool, identifier]));
    const prefix = serverCall.get(listing.server);
    const leftOut = space.leftOut.map((out) => ({ tool: out.name, why: WHY[out.reason] }));
    if (!prefix) leftOut.unshift(...listing.tools.map((tool) => ({ tool: tool.name, why: "its server's name comes out the same as another server's" })));
    servers.push({ server: listing.server, ...(prefix ? { call: `gg.mcp.${prefix}` } : {}), ...(listing.description ? { description: listing.description } : {}), tools: listing.tools.map((tool) => tool.name), ...(listing.error ? { error: listing.error } : {}), ...(listing.error === STILL_STARTING ? { starting: true as const } : {}), leftOut });
    for (const tool of listing.tools) {
      const identifier = identifierOf.get(tool.name);
      tools.push({
        source: "mcp",
        server: listing.server,
        tool: tool.name,
        name: jsonName("mcp", listing.server, toolPart(tool.name)),
        ...(prefix && identifier ? { call: `gg.mcp.${prefix}.${identifier}` } : {}),
        description: tool.description ?? tool.title ?? "",
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
        readOnly: tool.annotations?.readOnlyHint === true,
      });
    }
  }
  return withoutClashes({ version, servers, tools: [...tools, ...appTools] });
}

/** An application function's tool. */
const appTool = (fn: AppFunction): ExternalTool => ({
  source: "app",
  server: APP,
  tool: fn.name,
  name: jsonName("app", APP, fn.name),
  call: `gg.app.${fn.name}`,
  description: fn.description,
  inputSchema: JSON.parse(JSON.stringify(fn.input)) as Record<string, unknown>,
  ...(fn.output ? { outputSchema: JSON.parse(JSON.stringify(fn.output)) as Record<string, unknown> } : {}),
  readOnly: fn.readOnly === true,
});

/**
 * `catalog` without tools whose JSON names came out the same (a tool's identifier standing in for its name, say): both
 * are left out, named in their servers' leftOut, so a call never reaches a tool its approval did not name.
 */
function withoutClashes(catalog: ExternalCatalog): ExternalCatalog {
  const counts = new Map<string, number>();
  for (const tool of catalog.tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  const clashing = catalog.tools.filter((tool) => (counts.get(tool.name) ?? 0) > 1);
  if (clashing.length === 0) return catalog;
  const servers = catalog.servers.map((summary) => ({ ...summary, leftOut: [...summary.leftOut, ...clashing.filter((tool) => tool.server === summary.server).map((tool) => ({ tool: tool.tool, why: `its tool name ${tool.name} comes out the same as another tool's` }))] }));
  return { ...catalog, servers, tools: catalog.tools.filter((tool) => !clashing.includes(tool)) };
}

/** An application function's name: an identifier gg.app can hold. */
const APP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Refuses application functions gg cannot offer as written: every problem at once. */
export function checkAppFunctions(functions: readonly AppFunction[]): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [index, fn] of functions.entries()) {
    const where = `functions[${index}]`;
    if (typeof fn?.name !== "string" || !APP_NAME.test(fn.name) || ["call", "then"].includes(fn.name) || toIdentifier(fn.name) !== fn.name) problems.push(`${where} has name ${JSON.stringify(fn?.name)}; a name is an identifier ([A-Za-z_][A-Za-z0-9_]*), not a reserved word, "call" or "then"`);
    else if (seen.has(fn.name)) problems.push(`${where} is named ${JSON.stringify(fn.name)} like an earlier function; names are unique`);
    else seen.add(fn.name);
    if (typeof fn?.description !== "string") problems.push(`${where} has no description; the model reads it to know when to call the function`);
    if (typeof fn?.input !== "object" || fn.input === null || (fn.input as { type?: unknown }).type !== "object") problems.push(`${where} has an input that is not an object schema; use Type.Object({...})`);
    if (typeof fn?.run !== "function") problems.push(`${where} has no run function`);
  }
  if (problems.length > 0) throw new GgError("invalid-argument", `Cannot offer the application's functions: ${problems.join("; ")}`);
}

/** The text of an MCP result's content as a tool-calling model reads it: text as it is, other blocks named. */
function contentText(content: readonly Record<string, unknown>[]): string {
  return content
    .map((block) => {
      if (block.type === "text") return String(block.text);
      if (block.type === "image") return "";
      if (block.type === "resource_link") return `[resource link: ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ""}]`;
      if (block.type === "resource") return `[resource: ${String((block.resource as { uri?: unknown } | undefined)?.uri)}]${typeof (block.resource as { text?: unknown } | undefined)?.text === "string" ? `\n${(block.resource as { text: string }).text}` : ""}`;
      return `[${String(block.type)} content]`;
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** `text` within EXTERNAL_TEXT_CHARS, saying what was cut. */
const clipped = (text: string, name: string): string =>
  text.length <= EXTERNAL_TEXT_CHARS ? text : `${text.slice(0, EXTERNAL_TEXT_CHARS)}\n[cut at ${EXTERNAL_TEXT_CHARS} of ${text.length} characters; call ${name} from a program to keep only what you need of it]`;

/** An MCP tool's result as the registry gives it; isError rejects with tool-error. */
function mcpOutput(tool: ExternalTool, result: { content?: unknown; structuredContent?: unknown; isError?: unknown }): ExternalOutput {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const text = content.filter((block) => block.type === "text").map((block) => String(block.text)).join("\n");
  if (result.isError === true) throw new GgError("tool-error", `${tool.server}.${tool.tool} failed: ${text || "its server gave no reason"}`);
  const shown = contentText(content) || (result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent, null, 2));
  const attachments = content.flatMap((block): Attachment[] => (block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string" ? [{ type: "image", mime: block.mimeType, dataUrl: `data:${block.mimeType};base64,${block.data}` }] : []));
  const data = tool.outputSchema && result.structuredContent !== undefined ? result.structuredContent : { text, content };
  return { data, text: clipped(shown, tool.name), ...(attachments.length > 0 ? { attachments } : {}) };
}

/** An application function's value as the registry gives it: as JSON, which is what crosses to a program. */
function appOutput(tool: ExternalTool, value: unknown): ExternalOutput {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new GgError("tool-error", `app.${tool.tool} returned a value that is not JSON (${error instanceof Error ? error.message : String(error)}); return plain data`);
  }
  const data: unknown = json === undefined ? null : JSON.parse(json);
  const text = typeof data === "string" ? data : (JSON.stringify(data, null, 2) ?? "");
  return { data, text: clipped(text, tool.name) };
}

/** Milliseconds after which a server that could not be listed (it did not start) is tried again, at the next use. */
const RETRY_FAILED_MS = 10_000;

/** Runs application function `fn` (tool `tool`) on its checked input; what it throws is a tool-error, a GgError keeps its code. */
async function runApp(tool: ExternalTool, fn: AppFunction, args: Record<string, unknown>): Promise<ExternalOutput> {
  try {
    return appOutput(tool, await fn.run(args));
  } catch (error) {
    if (isGgError(error)) throw error;
    throw new GgError("tool-error", `app.${tool.tool} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The application's functions as a registry holds them: their tools, and the call of one by its JSON name. Plain data
 * but for `run`, so a runner process holds the tools and relays each call to the process that holds the functions.
 */
export interface AppPart {
  tools: readonly ExternalTool[];
  run: CallTool;
}

/** The part of the application's `functions`, checked; their calls run here. */
export function appPart(functions: readonly AppFunction[]): AppPart {
  checkAppFunctions(functions);
  const tools = functions.map(appTool);
  const run: CallTool = async (name, args) => {
    const tool = tools.find((candidate) => candidate.name === name);
    const fn = functions.find((candidate) => candidate.name === tool?.tool);
    if (!tool || !fn) throw new GgError("not-found", clampMessage(`Cannot call ${JSON.stringify(name)}: the application has no function of that name; its functions are ${tools.map((known) => known.name).join(", ") || "none"}`));
    return runApp(tool, fn, args);
  };
  return { tools, run };
}

/** The application's functions alone, as createTools offers them: nothing to start, so nothing to wait for. */
export function appSurface(functions: readonly AppFunction[]): ExternalSurface {
  const app = appPart(functions);
  const catalog = catalogOf([], app.tools, 0);
  return { catalog, declarations: new Map(catalog.tools.map((tool) => [tool.name, externalDeclaration(tool, app.run)])) };
}

/**
 * The registry of `config`'s MCP servers and the application's `functions` (or their part, whose calls run elsewhere);
 * undefined when there are neither. Its stdio servers start in `workspace` (or their entry's cwd, resolved against it).
 */
export function createExternals(config: Configuration, functions: readonly AppFunction[] | AppPart = [], workspace?: string): Externals | undefined {
  const servers = Object.entries(config.mcpServers ?? {}).filter(([, entry]) => entry.enabled !== false);
  const app = "run" in functions ? functions : appPart(functions);
  if (servers.length === 0 && app.tools.length === 0) return undefined;
  // A stdio server starts in the folder served (its entry's cwd resolved against it), whatever gg's own folder is.
  const placed = servers.map(([name, entry]) => [name, entry.url !== undefined || workspace === undefined ? entry : { ...entry, cwd: resolve(workspace, entry.cwd ?? ".") }] as const);
  const hub = createMcpHub(Object.fromEntries(placed));
  let cached: Promise<ExternalCatalog> | undefined;
  let cachedVersion = -1;
  /** Listings made so far: each catalog's version, which changes with its contents. */
  let listed = 0;
  /** When a listing with a server that could not be listed is old enough to try that server again. */
  let retryAt = Number.POSITIVE_INFINITY;
  /** The catalog with the servers `needs` names waited for, and (given `graceMs`) every other one for that long. */
  const listing = async (needs: (server: string) => boolean, graceMs?: number): Promise<ExternalCatalog> => {
    const current = cached && cachedVersion === hub.version && Date.now() < retryAt ? await cached : undefined;
    if (current && !current.servers.some((summary) => summary.starting && (graceMs !== undefined || needs(summary.server)))) return current;
    cachedVersion = hub.version;
    const version = ++listed;
    retryAt = Number.POSITIVE_INFINITY;
    cached = hub.listing(needs, graceMs).then((listings) => {
      if (listings.some((listing) => listing.error !== undefined)) retryAt = Date.now() + RETRY_FAILED_MS;
      return catalogOf(listings, app.tools, version);
    });
    return cached;
  };
  const catalog = (program?: string): Promise<ExternalCatalog> => listing(program === undefined ? () => true : serversNamed(program, hub.servers));
  const externals: Externals = {
    catalog,
    settle: (server) => listing((name) => name === server),
    within: (ms) => listing(() => false, ms),
    async surface() {
      const current = await catalog();
      return { catalog: current, declarations: new Map(current.tools.map((tool) => [tool.name, externalDeclaration(tool, externals.run)])) };
    },
    async run(name, args, signal) {
      // The catalog as it stands, without waiting for servers still starting; theirs only if it lacks the tool.
      const find = (listed: ExternalCatalog) => listed.tools.find((candidate) => candidate.name === name);
      const tool = find(await catalog("")) ?? find(await catalog());
      if (!tool) throw new GgError("not-found", `Cannot call ${JSON.stringify(name)}: no MCP server lists a tool of that name now, and the application has no such function (its server may have changed its tools since they were listed); call one of the tools listed now`);
      if (tool.source === "app") return app.run(name, args, signal);
      return mcpOutput(tool, await hub.call(tool.server, tool.tool, args, signal));
    },
    close: () => hub.close(),
  };
  return externals;
}

/**
 * Whether a program with `source` could name each of `servers`: those it reaches as `gg.mcp.<name>` (by its name's
 * identifier), or every one when it says `mcp` in any other way (gg.mcp.list(), gg.mcp.call(...), gg.mcp[...], an
 * alias). Wrong only towards waiting: a word mcp anywhere else makes it wait for them all.
 */
export function serversNamed(source: string, servers: readonly string[]): (server: string) => boolean {
  const byIdentifier = namespaceOf(servers).byIdentifier;
  const named = new Set<string>();
  for (const match of source.matchAll(/(?<![\w$])mcp(?![\w$])(\s*\.\s*([A-Za-z_$][\w$]*))?/g)) {
    const server = match[2] === undefined ? undefined : byIdentifier.get(match[2]);
    if (server === undefined) return () => true;
    named.add(server);
  }
  return (server) => named.has(server);
}

/** A tool the catalog lacks, with the nearest names it holds. */
export function unknownExternal(catalog: ExternalCatalog, server: string, tool: string | undefined): GgError {
  const summary = catalog.servers.find((candidate) => candidate.server === server);
  if (server !== APP && !summary) {
    const near = similarNames(server, catalog.servers.map((candidate) => candidate.server));
    return new GgError("not-found", `No MCP server ${JSON.stringify(server)}${near.length ? ` (did you mean ${near.join(" or ")}?)` : ""}; the servers are ${catalog.servers.map((candidate) => candidate.server).join(", ") || "none"}`);
  }
  const names = catalog.tools.filter((candidate) => candidate.server === server).map((candidate) => candidate.tool);
  const near = similarNames(tool ?? "", names);
  const where = server === APP ? "The application has" : `MCP server ${JSON.stringify(server)} has`;
  const why = summary?.starting ? `; it is still starting: a program that names it (${summary.call ?? `gg.mcp.call(${JSON.stringify(server)}, ...)`}) waits for it` : summary?.error ? `; it could not be listed: ${summary.error}` : "";
  return new GgError("not-found", clampMessage(`${where} no tool ${JSON.stringify(tool)}${near.length ? ` (did you mean ${near.join(" or ")}?)` : ""}; its tools are ${names.slice(0, 40).join(", ") || "none"}${why}`));
}

/** Whether `config`'s agent holds external tool `name`: without an allowlist every one; with one, a name or glob of it. */
export const holdsExternal = (config: Configuration, name: string): boolean => config.allow === undefined || config.allow.some((allowed) => coversExternal(allowed, name));

/** `catalog` as `config`'s agent holds it: without an allowlist whole; with one, only the tools (and servers) it names. */
export function heldCatalog(catalog: ExternalCatalog, config: Configuration): ExternalCatalog {
  if (config.allow === undefined) return catalog;
  const tools = catalog.tools.filter((tool) => holdsExternal(config, tool.name));
  const servers = catalog.servers.flatMap((summary) => {
    const held = new Set(tools.filter((tool) => tool.source === "mcp" && tool.server === summary.server).map((tool) => tool.tool));
    return held.size === 0 ? [] : [{ ...summary, tools: summary.tools.filter((tool) => held.has(tool)), leftOut: summary.leftOut.filter((out) => held.has(out.tool)) }];
  });
  return { ...catalog, servers, tools };
}

/** The argument path rules judge (bindings/approval_match.ts), as gg's own file calls name it (their `files` are objects). */
const PATH_ARGUMENTS = ["path"];

/**
 * The arguments of an MCP tool as the gate checks them: any object (its server checks the rest), naming the path
 * arguments its schema has, so that path rules judge them as they judge gg's own calls'.
 */
function mcpArguments(tool: ExternalTool): TSchema {
  const declared = (tool.inputSchema as { properties?: unknown }).properties;
  const named = typeof declared === "object" && declared !== null ? PATH_ARGUMENTS.filter((name) => Object.hasOwn(declared, name)) : [];
  return Type.Object(Object.fromEntries(named.map((name) => [name, Type.Optional(Type.Unknown())])), { additionalProperties: true });
}

/**
 * The declaration the gate judges an external tool by: its JSON name (which rules name), its effects (none when it is
 * read-only), and a run that calls `callTool`. An application function's input is checked against its schema (plain
 * JSON Schema after the catalog's copy, which TypeBox checks as it is), an MCP tool's by its server, but for the path
 * arguments path rules judge.
 */
export function externalDeclaration(tool: ExternalTool, callTool: CallTool) {
  const schema = tool.source === "app" ? (tool.inputSchema as TSchema) : mcpArguments(tool);
  return {
    tool,
    name: tool.name,
    parameters: () => schema,
    ...(tool.readOnly ? {} : { effects: true as const, openWorld: true as const }),
    async: true as const,
    run: (args: Record<string, unknown>, context: CallContext) => callTool(tool.name, args, context.signal),
    render: (output: ExternalOutput) => output.text,
    attachments: (output: ExternalOutput) => output.attachments,
  } satisfies Runnable<ExternalOutput> & { tool: ExternalTool };
}
