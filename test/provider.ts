// Test fixture: the one fake OpenAI-compatible provider every test talks to, a real HTTP server on 127.0.0.1. It
// answers chat completions from a script (replies in order, or a rule deciding from each request), can refuse
// pictures as a text-only model does, hold or delay answers, lists models, and keeps every request it was sent.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { openAIProvider, type Provider } from "../agent/provider.ts";

/** A tool call as a model sends it. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A tool call of `name` with `args` (sent as JSON text, as models do). */
export const call = (id: string, name: string, args: object): ToolCall => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

/** A message of a request, as gg sent it. */
export interface Message {
  role: string;
  content: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

/** The body of a chat completions request. */
export interface ChatBody {
  model: string;
  messages: Message[];
  tools?: unknown[];
}

/** A request as the server received it. */
export interface Received {
  body: ChatBody;
  headers: IncomingHttpHeaders;
  /** The prefixes the server's Anthropic-like cache holds (see FakeOptions.anthropicCache). */
  cache?: Set<string>;
}

/** An answer: the assistant message's fields, and its usage (the server's default when absent; none when null). */
export interface Reply {
  content?: string | null;
  tool_calls?: ToolCall[];
  usage?: object | null;
}

/** An error answer: HTTP `status` with an OpenAI-style error body. */
export interface Refusal {
  status: number;
  message?: string;
  headers?: Record<string, string>;
}

/** How one request is answered: a reply, a refusal, "hold" (never answered while the server runs), or a rule. */
export type Step = Reply | Refusal | "hold" | ((request: Received) => Step);

/** The answer once a script runs out. */
const OUT_OF_SCRIPT: Reply = { content: "Out of script." };
const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
/** What a text-only model answers to a picture (the words gg recognises, as providers write them). */
const PICTURE_REFUSAL: Refusal = { status: 400, message: "Invalid content type. image_url is only supported by certain models." };

export interface FakeOptions {
  /** Usage reported with each reply that names none; null reports none. */
  usage?: object | null;
  /** Refuse requests carrying a picture: every model's (true) or those named. */
  refusePictures?: boolean | readonly string[];
  /** Milliseconds before each answer: keeps requests in flight together. */
  delayMs?: number;
  /** The model list answered at GET /v1/models (404 when absent). */
  models?: object[];
  /** The port to listen on (a free one when absent): where a printed example points. */
  port?: number;
  /**
   * Cache like Anthropic: a prefix a request marks with `cache_control` is written to the cache, and a later request
   * starting with it reads it; usage counts each request at 4 bytes a token, reads and writes in prompt_tokens_details.
   */
  anthropicCache?: boolean;
}

/** What the server saw besides the requests themselves. */
export interface Seen {
  /** Most requests in flight at once, overall and per model. */
  maxInFlight: number;
  maxInFlightByModel: Record<string, number>;
  /** Requests carrying a picture, by model, and how many were refused. */
  pictures: Record<string, { sent: number; refused: number }>;
}

const json = (response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void =>
  void response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

/** Writes `step`'s answer to `body`; a rule is asked first. */
function answer(step: Step, received: Received, response: ServerResponse, options: FakeOptions, held: ServerResponse[]): void {
  if (typeof step === "function") return answer(step(received), received, response, options, held);
  if (step === "hold") return void held.push(response);
  if ("status" in step) return json(response, step.status, { error: { message: step.message ?? "refused", type: "invalid_request_error", code: step.status } }, step.headers);
  const { usage = options.usage === undefined ? (options.anthropicCache ? cacheUsage(received) : USAGE) : options.usage, ...fields } = step;
  const message = { role: "assistant", content: null, ...fields };
  json(response, 200, { id: "c", object: "chat.completion", created: 0, model: received.body.model, choices: [{ index: 0, finish_reason: "stop", message }], ...(usage === null ? {} : { usage }) });
}

/**
 * Starts a fake provider answering chat completions at `baseURL` by `script`: its steps in order (then "Out of
 * script."), or one rule for every request. Dispose it to stop it (held requests are dropped).
 */
export async function fakeModel(script: Step[] | ((request: Received) => Step), options: FakeOptions = {}) {
  const requests: ChatBody[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const seen: Seen = { maxInFlight: 0, maxInFlightByModel: {}, pictures: {} };
  const cache = new Set<string>();
  const held: ServerResponse[] = [];
  const inFlight = { all: 0, byModel: {} as Record<string, number> };
  const http = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      if (request.method === "GET" && request.url === "/v1/models" && options.models) return json(response, 200, { data: options.models });
      if (request.method !== "POST" || request.url !== "/v1/chat/completions") return json(response, 404, { error: { message: `no route ${request.method} ${request.url}` } });
      const body = JSON.parse(text) as ChatBody;
      requests.push(body);
      headers.push(request.headers);
      const model = body.model;
      inFlight.all++;
      inFlight.byModel[model] = (inFlight.byModel[model] ?? 0) + 1;
      seen.maxInFlight = Math.max(seen.maxInFlight, inFlight.all);
      seen.maxInFlightByModel[model] = Math.max(seen.maxInFlightByModel[model] ?? 0, inFlight.byModel[model]);
      response.once("close", () => {
        inFlight.all--;
        inFlight.byModel[model] = (inFlight.byModel[model] ?? 1) - 1;
      });
      // A refused picture takes no step of the script: the model answers the request sent again.
      const step = picture(model, text, options, seen) ?? (Array.isArray(script) ? (script.shift() ?? OUT_OF_SCRIPT) : script);
      setTimeout(() => answer(step, { body, headers: request.headers, cache }, response, options, held), options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve, reject) => http.once("error", reject).listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  const baseURL = `http://127.0.0.1:${port}/v1`;
  return {
    port,
    baseURL,
    /** gg's provider for this server (no key needed on 127.0.0.1). */
    provider: openAIProvider({ baseURL, env: {} }) satisfies Provider,
    /** Each chat request's body and headers, in the order they came. */
    requests,
    headers,
    seen,
    /** Requests answered "hold", unanswered. */
    held,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * A body's bytes up to the end of message `last`, without its marks: what a breakpoint there caches. A text content
 * is the one text part it stands for, as Anthropic reads both.
 */
const prefixOf = (body: ChatBody, last: number): string => {
  const messages = body.messages.slice(0, last + 1).map((message) => ({ ...message, content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content }));
  return JSON.stringify([body.tools ?? [], messages]).replaceAll(/,?"cache_control":\{"type":"ephemeral"\}/g, "");
};

/** Usage as an Anthropic-like cache reports a request: the longest prefix cached before read, the longest marked one written. */
function cacheUsage(received: Received): object {
  const { body } = received;
  const cache = received.cache ?? new Set<string>();
  const marked = body.messages.flatMap((message, index) => (JSON.stringify(message.content ?? "").includes('"cache_control"') ? [prefixOf(body, index)] : []));
  const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);
  // A breakpoint also finds a prefix cached at an earlier message: Anthropic looks back from it for the longest hit.
  const lastMark = body.messages.findLastIndex((message) => JSON.stringify(message.content ?? "").includes('"cache_control"'));
  const hits = body.messages.slice(0, lastMark + 1).map((_, index) => prefixOf(body, index)).filter((prefix) => cache.has(prefix));
  const read = Math.max(0, ...hits.map(tokens));
  const longest = Math.max(0, ...marked.map(tokens));
  for (const prefix of marked) cache.add(prefix);
  const prompt = tokens(prefixOf(body, body.messages.length - 1));
  return { prompt_tokens: prompt, completion_tokens: 10, total_tokens: prompt + 10, prompt_tokens_details: { cached_tokens: read, cache_write_tokens: Math.max(0, longest - read) } };
}

/** Tallies a request carrying a picture; the refusal when its model is refused pictures. */
function picture(model: string, text: string, options: FakeOptions, seen: Seen): Refusal | undefined {
  if (!text.includes('"image_url"')) return undefined;
  const tally = (seen.pictures[model] ??= { sent: 0, refused: 0 });
  tally.sent++;
  const refused = options.refusePictures === true || (Array.isArray(options.refusePictures) && options.refusePictures.includes(model));
  if (!refused) return undefined;
  tally.refused++;
  return PICTURE_REFUSAL;
}

/** A port nothing listens on: one the system just gave and took back. */
export async function closedPort(): Promise<number> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  await new Promise<void>((resolve) => http.close(() => resolve()));
  return port;
}
