// The model side's one seam: a provider answers a chat completion request. The OpenAI-compatible one is the official
// `openai` client with its own retries turned off, so every retry is gg's: bounded, with backoff, honouring
// Retry-After, and recorded. Whether a failure is a model refusing pictures is decided here, in one place.
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";

/** A chat completion request, as the loop builds it. */
export type ChatRequest = Pick<ChatCompletionCreateParamsNonStreaming, "model" | "messages" | "tools">;

/** One retry a request took: why, and how long gg waited before it. */
export interface Retry {
  attempt: number;
  /** The HTTP status that was retried, or undefined for a network error or a timeout. */
  status?: number;
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

/** Milliseconds a Retry-After header asks for (seconds, or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
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

/** A provider for any OpenAI-compatible chat completions endpoint. */
export function openAIProvider(options: OpenAIProviderOptions): Provider {
  const key = options.apiKey === undefined ? apiKeyFor(options.baseURL, options.env) : { key: options.apiKey };
  if ("refused" in key) throw new ProviderError(key.refused, undefined, []);
  const client = new OpenAI({ apiKey: key.key, baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs ?? 600_000 });
  const maxRetries = options.maxRetries ?? 4;
  const backoffMs = options.backoffMs ?? 500;
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
          const reason = error instanceof Error ? error.message : String(error);
          if (!(error instanceof OpenAI.APIError) || !retriable(status) || attempt >= maxRetries) {
            throw new ProviderError(`The model's provider refused the request${status ? ` (HTTP ${status})` : ""}: ${reason}`, status, retries);
          }
          const headers = error.headers as Headers | undefined;
          const waitMs = retryAfterMs(headers?.get("retry-after")) ?? backoffMs * 2 ** attempt;
          retries.push({ attempt: attempt + 1, ...(status === undefined ? {} : { status }), reason, waitMs });
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
      }
    },
  };
}
