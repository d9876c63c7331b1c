// The model side's one seam: a provider answers a chat completion request. The OpenAI-compatible one is the official
// `openai` client with its own retries turned off, so every retry is gg's: bounded, with backoff, honouring
// Retry-After, and recorded. Whether a failure is a model refusing pictures is decided here, in one place.
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { plural } from "../host/lines.ts";

/** A chat completion request, as the loop builds it. */
export type ChatRequest = Pick<ChatCompletionCreateParamsNonStreaming, "model" | "messages" | "tools">;

/** One retry a request took: why, and how long gg waited before it. */
export interface Retry {
  /** 1 for the first retry. */
  attempt: number;
  /** The HTTP status that was retried, or undefined for a network error or a timeout. */
  status?: number;
  /** The provider's message, or the network failure named ("could not connect to HOST:PORT (connection refused)"). */
  reason: string;
  waitMs: number;
}

/** What a provider answers: the completion, and the retries it took to get it. */
export interface Answer {
  completion: ChatCompletion;
  retries: Retry[];
}

/** A request the provider refused for good (retries spent, or not worth one). */
export class ProviderError extends Error {
  readonly status: number | undefined;
  readonly retries: Retry[];
  constructor(message: string, status: number | undefined, retries: Retry[]) {
    super(message);
    this.name = "ProviderError";
    this.status = status;
    this.retries = retries;
  }
}

/** The seam the loop talks through; tests and embedders bring their own. */
export interface Provider {
  complete(request: ChatRequest, signal?: AbortSignal): Promise<Answer>;
}

/** Options of the OpenAI-compatible provider. */
export interface OpenAIProviderOptions {
  baseURL: string;
  /** Default: GG_API_KEY, else OPENAI_API_KEY, else OPENROUTER_API_KEY. */
  apiKey?: string;
  /** Milliseconds one request may take (default 10 minutes). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** Milliseconds of the first backoff, doubled each time (default 500). */
  backoffMs?: number;
  /** Environment the key is read from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Called when a retry is decided, before its wait: progress lines. `maxRetries` is the bound in force. */
  onRetry?(retry: Retry, maxRetries: number): void;
}

const KEY_VARIABLES = ["GG_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"] as const;
/** The longest Retry-After honoured, in milliseconds; a longer one is waited this long. */
const MAX_RETRY_AFTER_MS = 60_000;

/** True for a base URL on this machine, where a local server needs no key. */
export function isLoopback(baseURL: string): boolean {
  try {
    const host = new URL(baseURL).hostname;
    return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/** The API key for `baseURL`, or why there is none; never logged. */
export function apiKeyFor(baseURL: string, env: Record<string, string | undefined> = process.env): { key: string } | { refused: string } {
  for (const name of KEY_VARIABLES) {
    const key = env[name];
    if (key) return { key };
  }
  if (isLoopback(baseURL)) return { key: "none" };
  return { refused: `Cannot call the model at ${baseURL}: no API key; set GG_API_KEY (or OPENAI_API_KEY, or OPENROUTER_API_KEY)` };
}

/**
 * Removes from `env` each key variable that holds `key`: the commands an agent runs inherit gg's environment, and the
 * model must not read gg's key there (`echo $GG_API_KEY`).
 */
export function withholdKey(key: string, env: Record<string, string | undefined> = process.env): void {
  for (const name of KEY_VARIABLES) if (env[name] === key) delete env[name];
}

/**
 * A scrubber taking `key` out of text: whatever the model read (a file, a command's output) may hold it, and nothing
 * gg prints or writes must. A short key (a local server's placeholder) would garble text, and guards nothing.
 */
export const scrubberOf = (key: string): ((text: string) => string) => (key.length < 8 ? (text) => text : (text) => text.split(key).join("[API key]"));

/** Milliseconds a Retry-After header asks for (seconds, or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/**
 * Why a request failed for good: a network failure named with the URL tried (nothing was refused), or the provider's
 * HTTP answer; with the retries spent and a way out.
 */
function failureMessage(url: string, status: number | undefined, network: string | undefined, reason: string, retried: number): string {
  const after = retried > 0 ? `, after ${plural(retried, "retry", "retries")}` : "";
  if (network) return `Cannot reach the model at ${url}: ${network}${after}; check that the server is up and that the base URL names it`;
  if (status === undefined) return `Cannot get an answer from the model at ${url}: ${reason}${after}`;
  // The client's message starts with the status, and is the raw body when the answer named no message.
  const said = reason.startsWith(`${status}`) ? reason.slice(`${status}`.length).trim() : reason;
  const quoted = said === "" || said === "{}" || said === "status code (no body)" ? "" : ` (${said})`;
  const way = status === 401 || status === 403 ? "; check the API key (GG_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY)" : status === 404 ? "; check the model id and the base URL" : status === 429 || status >= 500 ? "; try again later" : "";
  return `Cannot get an answer from the model at ${url}: the provider answered HTTP ${status}${quoted}${after}${way}`;
}

/** Whether a failed request is worth another try: rate limits, timeouts, conflicts, server errors, the network. */
const retriable = (status: number | undefined): boolean => status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Whether a failure is the model refusing pictures: the request carried one, and the answer is a 4xx that is not
 * about the key, the rate or the request's timing (OpenRouter answers 404, OpenAI 400, other servers 400 or 422).
 */
export function isPictureRefusal(status: number | undefined, carriedPictures: boolean): boolean {
  if (!carriedPictures || status === undefined || status < 400 || status >= 500) return false;
  return ![401, 402, 403, 408, 409, 429].includes(status);
}

/** A URL as messages show it: without credentials or a query, either of which may hold a secret. */
export function shownURL(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "the base URL given";
  }
}

/** Network failures by their system code, as a person reads them. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "timed out",
  UND_ERR_CONNECT_TIMEOUT: "timed out",
  UND_ERR_SOCKET: "the connection closed before an answer",
};

/**
 * A failure that got no HTTP answer, named: "could not connect to HOST:PORT (connection refused)", "could not resolve
 * HOST", "no answer from HOST:PORT within 600 s". Undefined for an HTTP answer, whose status says it all.
 */
export function networkFailure(error: unknown, baseURL: string, timeoutMs: number): string | undefined {
  if (!(error instanceof OpenAI.APIConnectionError)) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(baseURL);
  } catch {
    url = undefined;
  }
  const host = url ? `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}` : "the server";
  if (error instanceof OpenAI.APIConnectionTimeoutError) return `no answer from ${host} within ${timeoutMs / 1000} s`;
  const codes: string[] = [];
  const messages: string[] = [];
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const { code } = cause as NodeJS.ErrnoException;
    if (typeof code === "string") codes.push(code);
    messages.push(cause.message);
  }
  if (codes.includes("ENOTFOUND") || codes.includes("EAI_AGAIN")) return `could not resolve ${url?.hostname ?? "the server's name"}`;
  const known = codes.map((code) => NETWORK_CODES[code]).find((named) => named !== undefined);
  const detail = known ?? codes[0] ?? messages.at(-1) ?? error.message;
  return `could not connect to ${host} (${detail})`;
}

/** A provider for any OpenAI-compatible chat completions endpoint. */
export function openAIProvider(options: OpenAIProviderOptions): Provider {
  const key = options.apiKey === undefined ? apiKeyFor(options.baseURL, options.env) : { key: options.apiKey };
  if ("refused" in key) throw new ProviderError(key.refused, undefined, []);
  const timeoutMs = options.timeoutMs ?? 600_000;
  const client = new OpenAI({ apiKey: key.key, baseURL: options.baseURL, maxRetries: 0, timeout: timeoutMs });
  const maxRetries = options.maxRetries ?? 4;
  const backoffMs = options.backoffMs ?? 500;
  const url = shownURL(`${options.baseURL.replace(/\/+$/, "")}/chat/completions`);
  return {
    async complete(request, signal) {
      const retries: Retry[] = [];
      for (let attempt = 0; ; attempt++) {
        try {
          const completion = await client.chat.completions.create({ ...request }, signal ? { signal } : {});
          return { completion, retries };
        } catch (error) {
          if (signal?.aborted) throw error;
          const status = error instanceof OpenAI.APIError ? error.status : undefined;
          const network = networkFailure(error, options.baseURL, timeoutMs);
          const reason = network ?? (error instanceof Error ? error.message : String(error));
          if (!(error instanceof OpenAI.APIError) || !retriable(status) || attempt >= maxRetries) {
            throw new ProviderError(failureMessage(url, status, network, reason, retries.length), status, retries);
          }
          const headers = error.headers as Headers | undefined;
          const waitMs = retryAfterMs(headers?.get("retry-after")) ?? backoffMs * 2 ** attempt;
          const retry: Retry = { attempt: attempt + 1, ...(status === undefined ? {} : { status }), reason, waitMs };
          retries.push(retry);
          options.onRetry?.(retry, maxRetries);
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
      }
    },
  };
}
