// A provider's count of one request, read from the usage object of its answer. Chat-completions servers all give
// prompt_tokens and completion_tokens (prompt_tokens counting every input token, read from a cache or not); what they
// read from or wrote to their prompt cache they name differently:
// - OpenAI and OpenRouter: prompt_tokens_details.cached_tokens (read); OpenRouter: prompt_tokens_details.cache_write_tokens;
// - gateways in front of Anthropic (LiteLLM and others): cache_read_input_tokens and cache_creation_input_tokens, at the
//   top of usage or in prompt_tokens_details.

/** A provider's own count of a request and its answer (tokens). */
export interface Usage {
  /** Every input token, those read from or written to the cache included. */
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the provider read from its cache: a prefix it had seen. Absent when the provider does not say. */
  cachedTokens?: number;
  /** Prompt tokens the provider wrote to its cache (billed at its cache-write price). Absent when it does not say. */
  cacheWriteTokens?: number;
}

type Fields = Record<string, unknown>;

const fields = (value: unknown): Fields => (typeof value === "object" && value !== null ? (value as Fields) : {});

/** The first of `names` that is a count of tokens in one of `places`. */
function countOf(places: Fields[], names: string[]): number | undefined {
  for (const place of places) {
    for (const name of names) {
      const value = place[name];
      if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    }
  }
  return undefined;
}

/** The usage object of a chat completion as gg records it, or undefined when it has no prompt_tokens. */
export function usageOf(usage: unknown): Usage | undefined {
  const top = fields(usage);
  if (typeof top.prompt_tokens !== "number") return undefined;
  const places = [fields(top.prompt_tokens_details), top];
  const cached = countOf(places, ["cached_tokens", "cache_read_input_tokens"]);
  const written = countOf(places, ["cache_write_tokens", "cache_creation_input_tokens", "cache_creation_tokens"]);
  return {
    promptTokens: top.prompt_tokens,
    completionTokens: typeof top.completion_tokens === "number" ? top.completion_tokens : 0,
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(written === undefined ? {} : { cacheWriteTokens: written }),
  };
}
