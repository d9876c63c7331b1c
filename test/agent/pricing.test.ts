// The one cost function and what it reads: prices (base, cache read, cache write, long-context tiers) and a
// provider's usage in each of the shapes providers report it.
import { describe, expect, test } from "vitest";
import { decimalText, type Pricing, pricingOf, pricingText, requestCost, runCost } from "../../agent/pricing.ts";
import { usageOf } from "../../agent/usage.ts";

/** Prices given per million tokens, held per token. */
const perMillion = (prompt: number, completion: number, read?: number, write?: number) => ({
  prompt: prompt / 1e6,
  completion: completion / 1e6,
  ...(read === undefined ? {} : { input_cache_read: read / 1e6 }),
  ...(write === undefined ? {} : { input_cache_write: write / 1e6 }),
});
const SONNET: Pricing = { ...perMillion(3, 15, 0.3, 3.75), tiers: [{ prompt_tokens_above: 200_000, ...perMillion(6, 22.5, 0.6, 7.5) }] };

describe("requestCost", () => {
  test("(prompt - cached - written) at the prompt price, cached at the cache-read price, written at the cache-write price, completion at its price", () => {
    expect(requestCost(SONNET, { promptTokens: 10_000, completionTokens: 500, cachedTokens: 6000, cacheWriteTokens: 3000 })).toBeCloseTo((1000 * 3 + 6000 * 0.3 + 3000 * 3.75 + 500 * 15) / 1e6, 12);
  });

  test("a prompt past a tier's size is billed at the tier for all its tokens; at the size exactly, at the base", () => {
    expect(requestCost(SONNET, { promptTokens: 200_001, completionTokens: 100, cachedTokens: 1 })).toBeCloseTo((200_000 * 6 + 1 * 0.6 + 100 * 22.5) / 1e6, 12);
    expect(requestCost(SONNET, { promptTokens: 200_000, completionTokens: 100 })).toBeCloseTo((200_000 * 3 + 100 * 15) / 1e6, 12);
  });

  test("without a cache price, cached and written tokens are billed as prompt tokens; counts past the prompt are capped", () => {
    const plain = perMillion(1, 2);
    expect(requestCost(plain, { promptTokens: 1000, completionTokens: 100, cachedTokens: 500, cacheWriteTokens: 200 })).toBeCloseTo((1000 * 1 + 100 * 2) / 1e6, 12);
    expect(requestCost(SONNET, { promptTokens: 100, completionTokens: 0, cachedTokens: 80, cacheWriteTokens: 80 })).toBeCloseTo((80 * 0.3 + 20 * 3.75) / 1e6, 12);
  });
});

describe("runCost", () => {
  test("sums each request at its own usage, so one long request is priced at the tier and the short ones are not", () => {
    const long = { promptTokens: 300_000, completionTokens: 1000 };
    const short = { promptTokens: 1000, completionTokens: 100 };
    expect(runCost(SONNET, [long, short, undefined, short])).toBeCloseTo((300_000 * 6 + 1000 * 22.5 + 2 * (1000 * 3 + 100 * 15)) / 1e6, 12);
  });

  test("unknown (null, never 0) without prices or without any usage; 0 for a free model", () => {
    expect(runCost(undefined, [{ promptTokens: 1, completionTokens: 1 }])).toBeNull();
    expect(runCost(SONNET, [undefined])).toBeNull();
    expect(runCost(perMillion(0, 0), [{ promptTokens: 1, completionTokens: 1 }])).toBe(0);
  });
});

describe("prices in a catalog", () => {
  test("read from strings or numbers, tiers sorted by size; a tier without its size makes the pricing unusable", () => {
    expect(pricingOf({ prompt: "0.000003", completion: 0.000015, input_cache_write: "0.00000375", request: "0", tiers: [{ prompt_tokens_above: 500_000, prompt: "1", completion: "1" }, { prompt_tokens_above: 200_000, prompt: "0.000006", completion: "0.0000225" }] })).toEqual({
      prompt: 0.000003,
      completion: 0.000015,
      input_cache_write: 0.00000375,
      tiers: [
        { prompt_tokens_above: 200_000, prompt: 0.000006, completion: 0.0000225 },
        { prompt_tokens_above: 500_000, prompt: 1, completion: 1 },
      ],
    });
    expect(pricingOf({ prompt: "0.000003", completion: "0.000015", tiers: [{ prompt: "1", completion: "1" }] })).toBeUndefined();
    expect(pricingOf({ prompt: "-1", completion: "-1" })).toBeUndefined();
  });

  test("written back as OpenRouter writes them: decimal strings of USD per token, digit for digit", () => {
    expect(pricingText(SONNET)).toEqual({ prompt: "0.000003", completion: "0.000015", input_cache_read: "0.0000003", input_cache_write: "0.00000375", tiers: [{ prompt_tokens_above: 200_000, prompt: "0.000006", completion: "0.0000225", input_cache_read: "0.0000006", input_cache_write: "0.0000075" }] });
    expect([decimalText(0.075, 6), decimalText(0.3, 6), decimalText(150, 6), decimalText(0, 6), decimalText(1.5e-7), decimalText(1234.5), decimalText(2e21)]).toEqual(["0.000000075", "0.0000003", "0.00015", "0", "0.00000015", "1234.5", "2000000000000000000000"]);
  });
});

describe("usageOf", () => {
  test("OpenAI and OpenRouter: cached_tokens and cache_write_tokens under prompt_tokens_details", () => {
    expect(usageOf({ prompt_tokens: 1000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 896 } })).toEqual({ promptTokens: 1000, completionTokens: 10, cachedTokens: 896 });
    expect(usageOf({ prompt_tokens: 194, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100, audio_tokens: 0 } })).toEqual({ promptTokens: 194, completionTokens: 2, cachedTokens: 0, cacheWriteTokens: 100 });
  });

  test("gateways in front of Anthropic: cache_read_input_tokens and cache_creation_input_tokens, at the top or in the details", () => {
    expect(usageOf({ prompt_tokens: 3000, completion_tokens: 5, cache_read_input_tokens: 2000, cache_creation_input_tokens: 900 })).toEqual({ promptTokens: 3000, completionTokens: 5, cachedTokens: 2000, cacheWriteTokens: 900 });
    expect(usageOf({ prompt_tokens: 3000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2000, cache_creation_tokens: 900 } })).toEqual({ promptTokens: 3000, completionTokens: 5, cachedTokens: 2000, cacheWriteTokens: 900 });
  });

  test("no usage, or none with a prompt count, is none; a usage without cache fields says nothing of the cache", () => {
    expect(usageOf(undefined)).toBeUndefined();
    expect(usageOf({ total_tokens: 5 })).toBeUndefined();
    expect(usageOf({ prompt_tokens: 5, completion_tokens: 1 })).toEqual({ promptTokens: 5, completionTokens: 1 });
  });
});
