// The console's HTTP server: the bundled page and the JSON API, on 127.0.0.1 only. Every request carries the token
// the printed URL holds (as Jupyter's does): in the query, then the cookie the page sets, then a header. A request
// naming another host (DNS rebinding), or an API request from another origin, is refused before anything is read.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { type ConsoleSources, checkConfiguration, configurationState, listModels, listRuns, listStudies, runDetail, saveConfiguration } from "./api.ts";

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

const cookieName = (port: number): string => `gg-console-${port}`;

/** Whether `given` is `token`, in time that does not depend on where they differ. */
const sameToken = (given: string, token: string): boolean => given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token));

/** The token a request carries: the query's, the cookie's, or the header's; undefined without one. */
function tokenOf(request: IncomingMessage, url: URL, port: number): string | undefined {
  const query = url.searchParams.get("token");
  if (query !== null) return query;
  const cookie = (request.headers.cookie ?? "").split(/;\s*/).find((pair) => pair.startsWith(`${cookieName(port)}=`));
  if (cookie !== undefined) return decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1));
  const header = request.headers["x-gg-token"];
  return typeof header === "string" ? header : undefined;
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "content-security-policy": CSP, ...headers });
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

/** Why a request is refused before its path is looked at, or undefined when it may go on. */
function gate(request: IncomingMessage, url: URL, port: number, token: string): { status: number; message: string } | undefined {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(request.headers.host ?? "")) return { status: 421, message: `Cannot answer for host ${JSON.stringify(request.headers.host ?? "")}: the console answers ${hosts.join(" and ")} only` };
  const given = tokenOf(request, url, port);
  if (given === undefined) return { status: 401, message: "Cannot open the console without its token: open the URL gg console printed (it ends with ?token=...)" };
  if (!sameToken(given, token)) return { status: 403, message: "Cannot open the console with this token: it is not the one gg console printed; open the URL it printed" };
  const origin = request.headers.origin;
  if (url.pathname.startsWith("/api/") && origin !== undefined && !hosts.some((host) => origin === `http://${host}`)) {
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
  if (route === "GET /api/models") return json(response, 200, listModels(sources));
  if (route === "GET /api/runs") return json(response, 200, listRuns(sources));
  if (route === "GET /api/run") {
    const run = runDetail(sources, url.searchParams.get("id") ?? "");
    return run ? json(response, 200, run) : json(response, 404, { error: `Cannot show run ${JSON.stringify(url.searchParams.get("id"))}: no transcript given to gg console has that id; the Runs page lists them` });
  }
  if (route === "GET /api/studies") return json(response, 200, listStudies(sources));
  return json(response, 404, { error: `Cannot answer ${route}: the console has no such API` });
}

/** Starts the console on 127.0.0.1:`port` (0: a free one), serving the bundle in `assets`. */
export async function startConsole(options: { port: number; assets: string; sources: ConsoleSources; token?: string }): Promise<ConsoleServer> {
  const token = options.token ?? randomBytes(24).toString("hex");
  const files = new Map(Object.entries(ASSETS).map(([path, asset]) => [path, { body: readFileSync(join(options.assets, asset.file)), type: asset.type }]));
  let port = options.port;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const refused = gate(request, url, port, token);
    if (refused) return refuse(response, refused.status, refused.message);
    if (url.pathname.startsWith("/api/")) {
      api(request, response, url, options.sources).catch((error: unknown) => json(response, 500, { error: `Cannot answer ${url.pathname}: ${(error as Error).message}` }));
      return;
    }
    const asset = files.get(url.pathname);
    if (!asset || request.method !== "GET") return refuse(response, 404, `Cannot find ${url.pathname}: the console's pages are under /`);
    // The page keeps the token in a cookie, so its own requests carry it without it in every URL.
    const cookie: Record<string, string> = url.pathname === "/" ? { "set-cookie": `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict` } : {};
    send(response, 200, asset.type, asset.body, cookie);
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
