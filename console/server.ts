// The console's HTTP server: the bundled page and the JSON API, on 127.0.0.1 only. The API answers only requests
// carrying the token the printed URL holds, in the x-gg-token header: the page keeps the token in its tab's
// sessionStorage (which is per origin, port included) and sends it itself, so no cookie holds it (a browser sends
// 127.0.0.1's cookies to every port). The page's files hold no data and are served without it. A request naming
// another host (DNS rebinding), or an API request from another origin, is refused before anything is read; a request
// that cannot be parsed gets a 400, and a handler's failure a 500 for that request alone.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { type ConsoleSources, checkConfiguration, configurationState, listModels, listRuns, listStudies, runDetail, saveConfiguration } from "./api.ts";
import { isSkipped } from "./runs.ts";

/** A running console. */
export interface ConsoleServer {
  server: Server;
  port: number;
  token: string;
  /** The URL to open: the page, with the token. */
  url: string;
  close(): Promise<void>;
}

/** The bundle's files the server hands out, by URL path, with their types. */
const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};

/** What the page may do: its own scripts and styles only, no frames, no other hosts. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A body the API takes: at most this many bytes (a configuration is a few KiB). */
const MAX_BODY = 1024 * 1024;

/** The header the API takes the token in. */
export const TOKEN_HEADER = "x-gg-token";

/** Whether `given` is `token`, in time that does not depend on where they differ (compared as bytes: any text may come). */
function sameToken(given: string, token: string): boolean {
  const [a, b] = [Buffer.from(given), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request's target as a URL, or undefined when it is not a path this server can parse (`http://[`, `*`). */
function targetOf(request: IncomingMessage): URL | undefined {
  const target = request.url ?? "";
  if (!target.startsWith("/") || target.startsWith("//")) return undefined;
  try {
    return new URL(target, "http://127.0.0.1");
  } catch {
    return undefined;
  }
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": type, "content-length": String(Buffer.byteLength(body)), "cache-control": "no-store", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "content-security-policy": CSP, ...headers });
  response.end(body);
}

const json = (response: ServerResponse, status: number, value: unknown): void => send(response, status, "application/json; charset=utf-8", JSON.stringify(value));
const refuse = (response: ServerResponse, status: number, message: string): void => send(response, status, "text/plain; charset=utf-8", `${message}\n`);

/** Reads a JSON body of at most MAX_BODY bytes; undefined when it is not JSON. */
async function bodyOf(request: IncomingMessage): Promise<{ value: unknown } | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * Why a request is refused before its path is looked at, or undefined when it may go on. The page's files need no
 * token, but one given in their URL must be right (a person who pasted a stale URL learns it at once).
 */
function gate(request: IncomingMessage, url: URL, port: number, token: string): { status: number; message: string } | undefined {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(request.headers.host ?? "")) return { status: 421, message: `Cannot answer for host ${JSON.stringify(request.headers.host ?? "")}: the console answers ${hosts.join(" and ")} only` };
  const api = url.pathname.startsWith("/api/");
  const header = request.headers[TOKEN_HEADER];
  const given = api ? (typeof header === "string" ? header : undefined) : (url.searchParams.get("token") ?? undefined);
  if (given === undefined && api) return { status: 401, message: "Cannot answer without the console's token: open the URL gg console printed (it ends with ?token=...) in this tab" };
  if (given !== undefined && !sameToken(given, token)) return { status: 403, message: "Cannot open the console with this token: it is not the one gg console printed; open the URL it printed" };
  const origin = request.headers.origin;
  if (api && origin !== undefined && !hosts.some((host) => origin === `http://${host}`)) {
    return { status: 403, message: `Cannot answer a request from ${origin}: the console's API answers its own page only` };
  }
  return undefined;
}

/** Answers an API request. */
async function api(request: IncomingMessage, response: ServerResponse, url: URL, sources: ConsoleSources): Promise<void> {
  const route = `${request.method} ${url.pathname}`;
  if (route === "GET /api/config") return json(response, 200, configurationState(sources));
  if (route === "POST /api/config/check" || route === "POST /api/config/save") {
    const body = await bodyOf(request);
    if (!body) return json(response, 400, { error: "Cannot read the request: its body must be JSON of at most 1 MiB" });
    if (route.endsWith("check")) return json(response, 200, checkConfiguration(body.value));
    const saved = saveConfiguration(sources, body.value);
    return json(response, saved.saved ? 200 : 409, saved);
  }
  if (route === "GET /api/models") return json(response, 200, await listModels(sources));
  if (route === "GET /api/runs") return json(response, 200, await listRuns(sources));
  if (route === "GET /api/run") {
    const id = url.searchParams.get("id") ?? "";
    const run = await runDetail(sources, id);
    if (run === undefined) return json(response, 404, { error: `Cannot show run ${JSON.stringify(id)}: no transcript given to gg console has that id; the Runs page lists them` });
    return isSkipped(run) ? json(response, 422, { error: `Cannot show ${run.file} as a run: ${run.reason}` }) : json(response, 200, run);
  }
  if (route === "GET /api/studies") return json(response, 200, await listStudies(sources));
  return json(response, 404, { error: `Cannot answer ${route}: the console has no such API` });
}

/** Answers a request whose handler failed with a 500 for it alone; a response already begun is cut off. */
function failed(response: ServerResponse, target: string | undefined, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  json(response, 500, { error: `Cannot answer ${target}: ${error instanceof Error ? error.message : String(error)}; the console still serves other requests` });
}

/** Starts the console on 127.0.0.1:`port` (0: a free one), serving the bundle in `assets`. */
export async function startConsole(options: { port: number; assets: string; sources: ConsoleSources; token?: string }): Promise<ConsoleServer> {
  const token = options.token ?? randomBytes(24).toString("hex");
  const files = new Map(Object.entries(ASSETS).map(([path, asset]) => [path, { body: readFileSync(join(options.assets, asset.file)), type: asset.type }]));
  let port = options.port;
  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = targetOf(request);
    if (url === undefined) return refuse(response, 400, `Cannot read the request target ${JSON.stringify(request.url)}: the console takes a path that starts with /`);
    const refused = gate(request, url, port, token);
    if (refused) return refuse(response, refused.status, refused.message);
    if (url.pathname.startsWith("/api/")) return api(request, response, url, options.sources);
    const asset = files.get(url.pathname);
    if (!asset || request.method !== "GET") return refuse(response, 404, `Cannot find ${url.pathname}: the console's pages are under /`);
    send(response, 200, asset.type, asset.body);
  };
  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => failed(response, request.url, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as { port: number }).port;
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      // A browser keeps its connections open: they would hold close() for minutes.
      server.closeAllConnections();
    });
  return { server, port, token, url: `http://127.0.0.1:${port}/?token=${token}`, close };
}
