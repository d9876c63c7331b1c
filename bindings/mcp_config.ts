// The "mcpServers" of a configuration (and of an --mcp-config file), in the shape Claude Code's .mcp.json, Cursor and
// Claude Desktop use: each entry a stdio server (command) or one reached over HTTP (url: Streamable HTTP, or the older
// HTTP+SSE with type "sse"). Every bad value is named.
import { expandEntry } from "../host/expand_vars.ts";
import type { McpServerEntry } from "../host/mcp_client.ts";
import { SERVER_NAME_CHARS } from "./external_names.ts";

/** What a server may be called: it names gg.mcp.<server> and the tools mcp__<server>__<tool>. */
export const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** A server's name may not hold `__`: it separates the server from the tool in `mcp__<server>__<tool>`. */
const SEPARATOR = "__";
/** gg.mcp's own functions: no server may take their names. */
export const RESERVED_SERVER_NAMES: readonly string[] = ["call", "search", "describe", "list"];

const FIELDS = ["command", "args", "env", "cwd", "url", "headers", "enabled", "timeoutSecs", "type"];
/** The transports a `type` may name, as other clients write them, and whether each is a stdio one. */
const TYPES: Record<string, "stdio" | "http"> = { stdio: "stdio", http: "http", "streamable-http": "http", sse: "http" };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const show = (value: unknown): string => (typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value)));
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");
const isStringRecord = (value: unknown): value is Record<string, string> => isRecord(value) && Object.values(value).every((item) => typeof item === "string");

/** Checks one server entry; its problems are pushed to `problems`, each naming `where`. */
function checkServer(where: string, entry: unknown, problems: string[]): McpServerEntry | undefined {
  if (!isRecord(entry)) {
    problems.push(`${where} must be an object like {"command": "node", "args": ["server.js"]} or {"url": "http://127.0.0.1:3000/mcp"}`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(entry)) if (!FIELDS.includes(key)) problems.push(`${where} has an unknown field "${key}"; its fields are ${FIELDS.map((field) => `"${field}"`).join(", ")}`);
  const { command, args, env, cwd, url, headers, enabled, timeoutSecs, type } = entry;
  if ((command === undefined) === (url === undefined)) problems.push(`${where} has ${command === undefined ? "neither" : "both"} "command" and "url"; give "command" (and "args") for a server gg starts, or "url" for one it reaches over HTTP`);
  if (command !== undefined && (typeof command !== "string" || command === "")) problems.push(`${where} has command ${show(command)}; it must be a non-empty string, the program to start`);
  if (args !== undefined && !isStrings(args)) problems.push(`${where} has args ${show(args)}; it must be an array of strings`);
  if (env !== undefined && !isStringRecord(env)) problems.push(`${where} has env ${show(env)}; it must be an object of strings, e.g. {"API_KEY": "..."}`);
  if (headers !== undefined && !isStringRecord(headers)) problems.push(`${where} has headers ${show(headers)}; it must be an object of strings, e.g. {"authorization": "Bearer ..."}`);
  if (cwd !== undefined && (typeof cwd !== "string" || cwd === "")) problems.push(`${where} has cwd ${show(cwd)}; it must be a folder's path`);
  if (url !== undefined && typeof url !== "string") problems.push(badUrl(where, url));
  if (url !== undefined && (args !== undefined || env !== undefined || cwd !== undefined)) problems.push(`${where} has a url and stdio fields (args, env, cwd); a server reached over HTTP takes only "url" and "headers"`);
  if (command !== undefined && headers !== undefined) problems.push(`${where} has a command and headers; headers are for a server reached by "url"`);
  if (enabled !== undefined && typeof enabled !== "boolean") problems.push(`${where} has enabled ${show(enabled)}; use true or false`);
  if (timeoutSecs !== undefined && !(typeof timeoutSecs === "number" && Number.isFinite(timeoutSecs) && timeoutSecs > 0 && timeoutSecs <= 86_400)) problems.push(`${where} has timeoutSecs ${show(timeoutSecs)}; it must be a number of seconds above 0, at most 86400`);
  if (type !== undefined && !(typeof type === "string" && Object.hasOwn(TYPES, type) && TYPES[type] === (url === undefined ? "stdio" : "http"))) {
    problems.push(`${where} has type ${show(type)}; it may be left out, or be "stdio" with "command", "http" or "sse" (a server on the older HTTP+SSE transport) with "url"`);
  }
  if (problems.length > before) return undefined;
  const server: McpServerEntry = {
    ...(typeof command === "string" ? { command } : {}),
    ...(isStrings(args) ? { args: [...args] } : {}),
    ...(isStringRecord(env) ? { env: { ...env } } : {}),
    ...(typeof cwd === "string" ? { cwd } : {}),
    ...(typeof url === "string" ? { url } : {}),
    ...(type === "sse" ? { type } : {}),
    ...(isStringRecord(headers) ? { headers: { ...headers } } : {}),
    ...(enabled === false ? { enabled: false } : {}),
    ...(typeof timeoutSecs === "number" ? { timeoutSecs } : {}),
  };
  if (server.enabled !== false) checkExpanded(where, server, problems);
  return problems.length > before ? undefined : server;
}

/**
 * Checks `server` as it will be started: its ${VAR} references expanded (the entry keeps them, their values are read at
 * the start, and no message here shows one). A server left out is never started, so it needs none of its variables.
 */
function checkExpanded(where: string, server: McpServerEntry, problems: string[]): void {
  const expanded = expandEntry(server);
  for (const name of expanded.missing) problems.push(`${where} refers to \${${name}}, which is not set in gg's environment; set it, or give a default as \${${name}:-value}`);
  for (const text of expanded.nested) problems.push(`${where} has ${show(text)}, a reference in a default, which is not expanded; give the default as plain text`);
  if (expanded.missing.length > 0) return;
  if (server.url !== undefined && !validUrl(expanded.entry.url)) problems.push(badUrl(where, server.url));
  if (expanded.entry.command === "") problems.push(`${where} has command ${show(server.command)}, which comes out empty; it must name the program to start`);
}

const badUrl = (where: string, url: unknown): string => `${where} has url ${show(url)}; it must be an http:// or https:// address`;

function validUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * Checks an "mcpServers" object (`source` says where it was read, for the messages): the servers by name, every bad
 * name and entry pushed to `problems`.
 */
export function checkMcpServers(input: unknown, source: string, problems: string[]): Record<string, McpServerEntry> {
  // No prototype: a server may be called "constructor" like any other name the pattern allows.
  const servers = Object.create(null) as Record<string, McpServerEntry>;
  if (!isRecord(input)) {
    problems.push(`${source} must be an object of servers by name, like {"memory": {"command": "node", "args": ["server.js"]}}`);
    return servers;
  }
  for (const [name, entry] of Object.entries(input)) {
    const where = `MCP server ${JSON.stringify(name)}`;
    const before = problems.length;
    if (!SERVER_NAME.test(name) || name.includes(SEPARATOR)) problems.push(`${where} has a name gg cannot use; a name starts with a letter and holds letters, digits, "_" and "-", and no "__" (it separates server and tool in mcp__<server>__<tool>)`);
    else if (RESERVED_SERVER_NAMES.includes(name)) problems.push(`${where} takes a name gg.mcp uses itself (${RESERVED_SERVER_NAMES.join(", ")}); rename it`);
    else if (name.length > SERVER_NAME_CHARS) problems.push(`${where} has a name of ${name.length} characters; a name has at most ${SERVER_NAME_CHARS}, so that every tool's name (cut to 64 characters) starts with mcp__<server>__ and a rule mcp__<server>__* covers it`);
    const usable = problems.length === before;
    const server = checkServer(where, entry, problems);
    if (server && usable) servers[name] = server;
  }
  return servers;
}

/** What shows no secret of `config`'s MCP servers: each entry's env and headers values withheld (a transcript's copy). */
export function withoutServerSecrets<T>(config: T): T {
  const servers = (config as { mcpServers?: Record<string, { env?: object; headers?: object; url?: string }> } | undefined)?.mcpServers;
  if (typeof servers !== "object" || servers === null) return config;
  const withheld = (values: object | undefined) => values && Object.fromEntries(Object.keys(values).map((key) => [key, "[withheld]"]));
  const entries = Object.entries(servers).map(([name, entry]) => [name, { ...entry, ...(entry.env ? { env: withheld(entry.env) } : {}), ...(entry.headers ? { headers: withheld(entry.headers) } : {}), ...(typeof entry.url === "string" ? { url: entry.url.replace(/\/\/[^/@]*@/, "//[withheld]@") } : {}) }]);
  return { ...config, mcpServers: Object.fromEntries(entries) };
}
