// Other MCP servers, as a client: each configured server is started (stdio) or reached (Streamable HTTP) on first use,
// its tools listed whole, and its calls made through the official SDK client with a timeout that cancels. A stdio
// server runs in a process group of its own, with only the variables its entry names (and the SDK's defaults), and
// the whole group is stopped at the end; a server that dies is started again at the next call.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { type CallToolResult, ErrorCode as McpErrorCode, type JSONRPCMessage, McpError, type Tool, ToolListChangedNotificationSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { GgError } from "./errors.ts";
import { expandEntry, withheld } from "./expand_vars.ts";
import { releaseGroup, stopGroup, superviseGroup } from "./shell.ts";

/** One server as a configuration names it (the shape Claude Code's .mcp.json, Cursor and Claude Desktop use). */
export interface McpServerEntry {
  /** A stdio server: the program to start, its arguments, the variables it gets beyond the defaults, its folder. */
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** A Streamable HTTP server: its endpoint and the headers every request carries. */
  url?: string;
  /** "sse": the server at `url` speaks the older HTTP+SSE transport (an event stream from GET, messages by POST). */
  type?: "sse";
  headers?: Readonly<Record<string, string>>;
  /** False leaves the server out (default true). */
  enabled?: boolean;
  /** Seconds a call may take before it is cancelled; default {@link DEFAULT_MCP_TIMEOUT_SECS}, which a start gets at least. */
  timeoutSecs?: number;
}

/** Seconds a call to another server may take when its entry says nothing. */
export const DEFAULT_MCP_TIMEOUT_SECS = 60;

/** A listing's error for a server that was not waited for and is not listed yet. */
export const STILL_STARTING = "still starting";
/** Milliseconds a listing gives a server it does not wait for: one already started answers within them. */
const STARTING_GRACE_MS = 250;

/**
 * The variables a stdio server gets from gg's environment besides its entry's: the MCP SDK's defaults (the SDK's client
 * module is not loaded for them: it brings a CommonJS spawner the CLI's bundle cannot hold). A shell function's value
 * is not passed.
 */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
const inheritedEnv = (): Record<string, string> =>
  Object.fromEntries(INHERITED.flatMap((name) => {
    const value = process.env[name];
    return value === undefined || value.startsWith("()") ? [] : [[name, value]];
  }));

/** Lines of a stdio server's stderr kept, to say why it failed. */
const STDERR_LINES = 20;

/** Tools of one server gg reads at most, and pages of its tools/list: past them, a server paging forever is cut off. */
const MAX_TOOLS = 10_000;
const MAX_PAGES = 1_000;

/** A page of tools/list, its tools not yet read. */
const LOOSE_PAGE = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough();

/**
 * A listed tool as gg reads it: as the spec shapes it, else without the schema that breaks the shape (an outputSchema
 * that is not an object's leaves the result untyped; such an inputSchema, any object); nothing when it has no name.
 */
function toolOf(raw: unknown): Tool[] {
  const tries = [raw, { ...(raw as object), outputSchema: undefined }, { ...(raw as object), outputSchema: undefined, inputSchema: { type: "object" } }];
  for (const candidate of tries) {
    const parsed = ToolSchema.safeParse(candidate);
    if (parsed.success) return [parsed.data];
  }
  return [];
}

/** What a server offers, as listed. */
export interface ServerListing {
  server: string;
  /** The server's own instructions or title, when it gives one. */
  description?: string;
  tools: Tool[];
  /** Why the server could not be listed: it did not start, died, or is still starting (STILL_STARTING). */
  error?: string;
}

/** A stdio transport whose server runs in its own process group, so stopping it stops what it started too. */
function groupStdioTransport(entry: McpServerEntry): Transport & { stderr: string[]; failure?: string } {
  let child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  const stderr: string[] = [];
  const keepLines = (lines: readonly string[]): void => {
    stderr.push(...lines.map((line) => line.slice(0, 500)));
    if (stderr.length > STDERR_LINES) stderr.splice(0, stderr.length - STDERR_LINES);
  };
  const transport: Transport & { stderr: string[]; failure?: string } = {
    stderr,
    start: () =>
      new Promise((resolve, reject) => {
        const { command = "", args = [], env = {}, cwd } = entry;
        const started = spawn(command, [...args], { env: { ...inheritedEnv(), ...env }, stdio: ["pipe", "pipe", "pipe"], detached: true, ...(cwd ? { cwd } : {}) });
        child = started;
        started.once("error", (error) => {
          reject(error);
          transport.onerror?.(error);
        });
        started.once("spawn", () => {
          if (started.pid !== undefined) superviseGroup(started.pid);
          resolve();
        });
        started.once("exit", () => {
          // What the server started goes with it, whether it was stopped or died.
          if (started.pid !== undefined) void stopGroup(started.pid).then(() => releaseGroup(started.pid as number));
          transport.onclose?.();
        });
        started.stdin.on("error", (error) => transport.onerror?.(error));
        started.stdout.on("data", (chunk: Buffer) => read(chunk));
        started.stderr.on("data", (chunk: Buffer) => keepStderr(chunk));
      }),
    send: (message) =>
      new Promise((resolve) => {
        const stdin = child?.stdin;
        if (!stdin || stdin.destroyed) return resolve();
        if (stdin.write(serializeMessage(message))) resolve();
        else stdin.once("drain", resolve);
      }),
    // The spec's shutdown: stdin closed, then SIGTERM and SIGKILL to the whole group if it lingers.
    async close() {
      const running = child;
      if (!running || running.pid === undefined) return;
      if (running.exitCode !== null || running.signalCode !== null) return stopGroup(running.pid);
      running.stdin.end();
      await new Promise<void>((done) => {
        const timer = setTimeout(done, 1000);
        running.once("exit", () => {
          clearTimeout(timer);
          done();
        });
      });
      // Exited or not, what it started in its group is stopped.
      await stopGroup(running.pid);
      releaseGroup(running.pid);
    },
  };
  const read = stdoutReader(transport, keepLines);
  const keepStderr = (chunk: Buffer): void => keepLines(chunk.toString("utf8").split("\n").filter((line) => line.trim() !== ""));
  return transport;
}

/**
 * Reads a stdio server's stdout a chunk at a time, each JSON-RPC message to `transport`. A line that is not JSON-RPC (a
 * server's stray print) is skipped, as the SDK's own stdio transport does, and kept by `keepLines` with the stderr
 * lines, to say why if the server then fails; an answer past the read buffer ends the connection.
 */
function stdoutReader(transport: Transport & { failure?: string }, keepLines: (lines: readonly string[]) => void): (chunk: Buffer) => void {
  const buffer = new ReadBuffer();
  return (chunk) => {
    try {
      buffer.append(chunk);
    } catch (error) {
      transport.failure = OVERSIZE;
      transport.onerror?.(error as Error);
      void transport.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = buffer.readMessage();
      } catch (error) {
        keepLines([`(a line on stdout that is not JSON-RPC was skipped: ${errorMessage(error).split("\n")[0]})`]);
        continue;
      }
      if (!message) return;
      transport.onmessage?.(message);
    }
  };
}

/** MiB of one message a server may send (the SDK's read buffer of a stdio server). */
const STDIO_LIMIT_MIB = STDIO_DEFAULT_MAX_BUFFER_SIZE / 1024 / 1024;
/** Why a server's connection ended with an answer over that bound. */
const OVERSIZE = `its answer was over ${STDIO_LIMIT_MIB} MiB, more than gg reads from a server in one message; ask the tool for less`;

/** Why an SSE server's connection ended with its event stream. */
const SSE_ENDED = "its event stream ended, and a session of the HTTP+SSE transport cannot be resumed; the calls under way were lost (they may have done part of their work)";

/** One server's connection, made on first use and again after the server died. */
interface Connection {
  client: Client;
  transport: Transport & { failure?: string };
  stderr: string[];
  tools?: Tool[];
  /** Each tool's outputSchema check, made when it is first called (the SDK keeps only the last page's). */
  checks: Map<string, JsonSchemaValidator<unknown>>;
  alive: boolean;
  description?: string;
  /** What its entry's ${VAR} references gave: withheld from messages. */
  secrets: readonly string[];
}

const ajv = new AjvJsonSchemaValidator();
/** Schemas from servers are untrusted: one that cannot be compiled (an external $ref, a cycle) checks nothing, never fails the listing. */
const tolerant: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    try {
      return ajv.getValidator<T>(schema);
    } catch {
      return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
    }
  },
};

/** Fails a result that breaks `tool`'s own outputSchema (or lacks the structured content it promises). */
function checkOutput(live: Connection, server: string, tool: Tool | undefined, result: CallToolResult): void {
  if (!tool?.outputSchema || result.isError) return;
  if (result.structuredContent === undefined) throw new GgError("tool-error", `${server}.${tool.name} declares an outputSchema but returned no structuredContent; the server is at fault: call it through gg.mcp.call, or report it to the server's authors`);
  let check = live.checks.get(tool.name);
  if (!check) live.checks.set(tool.name, (check = tolerant.getValidator(tool.outputSchema as JsonSchemaType)));
  const verdict = check(result.structuredContent);
  if (!verdict.valid) throw new GgError("tool-error", `${server}.${tool.name} answered against its own outputSchema (${verdict.errorMessage}); the server is at fault: report it to the server's authors`);
}

/** The servers of a run or a session, connected on first use. */
export interface McpHub {
  /** The configured servers' names, enabled ones only, in the configuration's order. */
  readonly servers: readonly string[];
  /**
   * Each server's tools (every page of tools/list), starting what has not started; a server that fails says why. A
   * server `waitFor` leaves out is waited for `graceMs` (default {@link STARTING_GRACE_MS}) only: one not listed by
   * then is STILL_STARTING, and the hub's version changes when it is listed.
   */
  listing(waitFor?: (server: string) => boolean, graceMs?: number): Promise<ServerListing[]>;
  /** Calls `tool` of `server`; fails with unavailable (it cannot start or died), timeout or tool-error. */
  call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  /** Bumped when a server says its tools changed: the next listing asks it again. */
  readonly version: number;
  /** Stops every server (their process groups) and closes every connection. */
  close(): Promise<void>;
}

/** A server's failure as `unavailable`, with the last lines of its stderr. */
function unavailable(server: string, why: string, stderr: readonly string[], secrets: readonly string[] = []): GgError {
  const tail = stderr.length > 0 ? `; its stderr ended with:\n${stderr.slice(-5).join("\n")}` : "";
  return new GgError("unavailable", withheld(`Cannot reach MCP server "${server}": ${why}${tail}; check its entry in mcpServers (command, args, url), or try again: a server that died is started again at the next call`, secrets));
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The hub of `servers` (disabled entries left out). */
export function createMcpHub(servers: Readonly<Record<string, McpServerEntry>>): McpHub {
  const enabled = Object.entries(servers).filter(([, entry]) => entry.enabled !== false);
  const entries = new Map(enabled);
  const connections = new Map<string, Promise<Connection>>();
  /** Transports of servers still starting: close stops them rather than waiting out their start. */
  const starting = new Set<Transport>();
  let version = 0;
  let closed = false;
  const timeoutMs = (server: string): number => (entries.get(server)?.timeoutSecs ?? DEFAULT_MCP_TIMEOUT_SECS) * 1000;

  /** The live connection to `server`, made now if there is none or the last one died. */
  function connection(server: string): Promise<Connection> {
    const entry = entries.get(server);
    if (!entry) return Promise.reject(new GgError("not-found", `Cannot reach MCP server "${server}": no server of that name is configured; the servers are ${[...entries.keys()].map((name) => `"${name}"`).join(", ") || "none"}`));
    if (closed) return Promise.reject(unavailable(server, "this session has ended", []));
    const made = connections.get(server);
    const fresh = (): Promise<Connection> => {
      const next = connect(server, entry, () => version++, starting);
      connections.set(server, next);
      next.catch(() => connections.delete(server));
      return next;
    };
    if (!made) return fresh();
    return made.then((live) => (live.alive ? live : fresh()));
  }

  const toolsOf = async (server: string): Promise<{ tools: Tool[]; description?: string }> => {
    const live = await connection(server);
    live.tools ??= await listTools(live, startMs(entries.get(server))).catch((error: unknown) => {
      throw new Error(withheld(errorMessage(error), live.secrets));
    });
    return { tools: live.tools, ...(live.description ? { description: live.description } : {}) };
  };

  return {
    servers: enabled.map(([name]) => name),
    get version() {
      return version;
    },
    listing: (waitFor = () => true, graceMs = STARTING_GRACE_MS) =>
      Promise.all(
        enabled.map(async ([server]): Promise<ServerListing> => {
          try {
            const listed = toolsOf(server);
            if (waitFor(server)) return { server, ...(await listed) };
            let timer: ReturnType<typeof setTimeout> | undefined;
            const early = await Promise.race([listed, new Promise<undefined>((done) => (timer = setTimeout(() => done(undefined), graceMs)))]).finally(() => clearTimeout(timer));
            if (early) return { server, ...early };
            listed.then(() => version++, () => {});
            return { server, tools: [], error: STILL_STARTING };
          } catch (error) {
            return { server, tools: [], error: errorMessage(error) };
          }
        }),
      ),
    async call(server, tool, args, signal) {
      const live = await connection(server);
      const { tools } = await toolsOf(server);
      // The SDK keeps its listener on the signal after the answer: a signal of its own, let go of then, so that a run's
      // signal (aborted when the run ends) cancels the calls under way, not every call the run made.
      const own = signal && new AbortController();
      const abort = (): void => own?.abort(signal?.reason);
      signal?.addEventListener("abort", abort, { once: true });
      if (signal?.aborted) abort();
      let result: CallToolResult;
      try {
        result = (await live.client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs(server), ...(own ? { signal: own.signal } : {}) })) as CallToolResult;
      } catch (error) {
        const failure = callFailure(server, tool, error, live, timeoutMs(server));
        // A server may say back what it was sent (a header's token in a refusal, say): the entry's values are withheld.
        throw new GgError(failure.code, withheld(failure.message, live.secrets));
      } finally {
        signal?.removeEventListener("abort", abort);
      }
      checkOutput(live, server, tools.find((listed) => listed.name === tool), result);
      return result;
    },
    async close() {
      closed = true;
      await Promise.all([...starting].map((transport) => transport.close().catch(() => {})));
      const all = await Promise.allSettled(connections.values());
      connections.clear();
      await Promise.all(all.map((made) => (made.status === "fulfilled" ? made.value.client.close().catch(() => {}) : undefined)));
    },
  };
}

/** Milliseconds a server's start may take: a start (npx fetching a package, say) gets the default at least. */
const startMs = (entry: McpServerEntry | undefined): number => Math.max(entry?.timeoutSecs ?? 0, DEFAULT_MCP_TIMEOUT_SECS) * 1000;

/**
 * Starts (or reaches) `server` and connects a client to it; `changed` is told when it says its tools changed. Its
 * transport is in `starting` until it has answered or failed.
 */
async function connect(server: string, written: McpServerEntry, changed: () => void, starting: Set<Transport>): Promise<Connection> {
  // ${VAR} references are read now, where the server starts; what they give is withheld from every message.
  const { entry, missing, values: secrets } = expandEntry(written);
  const refs = missing.map((name) => `\${${name}}`).join(", ");
  if (missing.length > 0) throw unavailable(server, `its entry refers to ${refs}, not set in gg's environment (set it before gg starts, or give a default as \${NAME:-value})`, []);
  const stdio = entry.url === undefined ? groupStdioTransport(entry) : undefined;
  const http = { requestInit: { headers: { ...entry.headers } }, fetch: boundedFetch };
  const transport: Transport = stdio ?? (entry.type === "sse" ? new SSEClientTransport(new URL(entry.url as string), http) : new StreamableHTTPClientTransport(new URL(entry.url as string), http));
  const client = new Client({ name: "gg", version: "0.1.0" }, { capabilities: {}, jsonSchemaValidator: tolerant });
  const connection: Connection = { client, transport, stderr: stdio?.stderr ?? [], checks: new Map(), alive: true, secrets };
  client.onclose = () => {
    connection.alive = false;
  };
  // An answer over the bound ends an HTTP server's stream, and an SSE server's stream may end on its own: its client
  // would reconnect to a new session, which neither answers the calls under way nor was initialized. The connection
  // is closed, so those calls fail now, saying why, and the next one starts again.
  client.onerror = (error) => {
    const failure = error.message.includes(OVERSIZE) ? OVERSIZE : error instanceof SseError ? SSE_ENDED : undefined;
    if (failure === undefined) return;
    connection.transport.failure = failure;
    void client.close();
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    connection.tools = undefined;
    changed();
  });
  starting.add(transport);
  try {
    await client.connect(transport, { timeout: startMs(entry) });
  } catch (error) {
    await transport.close().catch(() => {});
    throw unavailable(server, `it did not start (${errorMessage(error)})`, connection.stderr, secrets);
  } finally {
    starting.delete(transport);
  }
  const description = (client.getInstructions() ?? client.getServerVersion()?.title ?? "").split("\n")[0]?.trim();
  if (description) connection.description = description.slice(0, 200);
  return connection;
}

/**
 * fetch for a server reached over HTTP: a message is read up to the bound a stdio server's message has, then the
 * request is cut off (a server cannot fill gg's memory); each chunk is counted as it streams. An event stream (which an
 * SSE server's and a Streamable HTTP server's GET keep open) is counted by event: the bytes since its last blank line.
 */
const boundedFetch: FetchLike = async (url, init) => {
  const response = await fetch(url, init);
  if (!response.body) return response;
  const events = response.headers.get("content-type")?.includes("text/event-stream") === true;
  let bytes = 0;
  let newline = false;
  const bounded = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        const end = events ? eventsEnd(text, newline) : 0;
        bytes = end > 0 ? chunk.byteLength - end : bytes + chunk.byteLength;
        newline = text[text.length - 1] === 10;
        if (bytes > STDIO_DEFAULT_MAX_BUFFER_SIZE) controller.error(new Error(OVERSIZE));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
};

/** Where the last event in `text` ends (0: none does): at a blank line, "\n\n" or "\n\r\n", perhaps begun by the chunk before (`newline`). */
function eventsEnd(text: Buffer, newline: boolean): number {
  const after = (found: number, length: number): number => (found < 0 ? 0 : found + length);
  const continued = newline && text[0] === 10 ? 1 : newline && text[0] === 13 && text[1] === 10 ? 2 : 0;
  return Math.max(after(text.lastIndexOf("\n\n"), 2), after(text.lastIndexOf("\n\r\n"), 3), continued);
}

/** Every page of a server's tools/list, each tool read on its own: one malformed tool must not take the list with it. */
async function listTools(live: Connection, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  do {
    const page = await live.client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, LOOSE_PAGE, { timeout });
    tools.push(...page.tools.flatMap((raw) => toolOf(raw)));
    cursor = page.nextCursor;
    // A server that pages forever (a cursor given twice, or page after page) is read no further.
    if (cursor !== undefined && (seen.has(cursor) || seen.size >= MAX_PAGES)) break;
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined && tools.length < MAX_TOOLS);
  live.checks.clear();
  return tools;
}

/** What a failed call to `tool` of `server` says: the server's timeout, its death, or its refusal. */
function callFailure(server: string, tool: string, error: unknown, live: Connection, timeoutMs: number): GgError {
  if (error instanceof McpError && error.code === McpErrorCode.RequestTimeout) {
    return new GgError("timeout", `Cannot finish ${server}.${tool}: no answer within ${timeoutMs / 1000} s (timeoutSecs of its server's entry), so it was cancelled; it may have done part of its work; ask for less, or raise timeoutSecs`);
  }
  if (!live.alive || (error instanceof McpError && error.code === McpErrorCode.ConnectionClosed)) return unavailable(server, live.transport.failure ?? `it closed the connection during ${tool} (${errorMessage(error)})`, live.stderr);
  if (error instanceof McpError && /output schema|structured content/i.test(error.message)) {
    return new GgError("tool-error", `${server}.${tool} answered against its own outputSchema: ${error.message}; the server is at fault: call it through gg.mcp.call to see its raw answer, or report it to the server's authors`);
  }
  if (error instanceof McpError && error.code === McpErrorCode.InvalidParams && /tool/i.test(error.message) && /not found|unknown/i.test(error.message)) {
    return new GgError("not-found", `${server} has no tool "${tool}" (${error.message}); gg.mcp.list() names its tools`);
  }
  return new GgError("tool-error", `${server}.${tool} failed: ${errorMessage(error)}`);
}
