// A model's prices and what a run cost at them: the one cost function behind every figure gg shows (the agent's
// summary and --json report, study records and reports, the console). Each request is priced by its own usage, since
// a prompt past a tier's size is billed at that tier's prices for the whole request.
import type { Usage } from "./usage.ts";

/** Prices in USD per token, as OpenRouter's model list names them; `P` is number in memory, string in a catalog file. */
export interface Prices<P = number> {
  prompt: P;
  completion: P;
  /** Prompt tokens read from the provider's cache; absent: billed as prompt tokens. */
  input_cache_read?: P;
  /** Prompt tokens written to the provider's cache; absent: billed as prompt tokens. */
  input_cache_write?: P;
}

/** Prices for a request whose prompt has more than `prompt_tokens_above` tokens (a long-context tier). */
export type PricingTier<P = number> = Prices<P> & { prompt_tokens_above: number };

/** A model's prices: the base ones, and the long-context tiers when it has some. */
export type Pricing<P = number> = Prices<P> & { tiers?: PricingTier<P>[] };

const PRICE_NAMES = ["prompt", "completion", "input_cache_read", "input_cache_write"] as const;

/** A price as OpenRouter writes it (a decimal string) or as a person does (a number): USD per token, or undefined. */
const priceOf = (value: unknown): number | undefined => {
  const price = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof price === "number" && Number.isFinite(price) && price >= 0 ? price : undefined;
};

/** The prices of `value`, or undefined without both a prompt and a completion price. */
function pricesOf(value: Record<string, unknown>): Prices | undefined {
  const [prompt, completion, read, write] = PRICE_NAMES.map((name) => priceOf(value[name]));
  if (prompt === undefined || completion === undefined) return undefined;
  return { prompt, completion, ...(read === undefined ? {} : { input_cache_read: read }), ...(write === undefined ? {} : { input_cache_write: write }) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The pricing of a catalog entry or of OpenRouter's list, or undefined when it is not one (a tier without its size, say). */
export function pricingOf(value: unknown): Pricing | undefined {
  if (!isRecord(value)) return undefined;
  const prices = pricesOf(value);
  if (!prices || value.tiers === undefined) return prices;
  if (!Array.isArray(value.tiers)) return undefined;
  const tiers: PricingTier[] = [];
  for (const tier of value.tiers) {
    const size = isRecord(tier) ? tier.prompt_tokens_above : undefined;
    const tierPrices = isRecord(tier) ? pricesOf(tier) : undefined;
    if (!tierPrices || !(typeof size === "number" && Number.isInteger(size) && size >= 0)) return undefined;
    tiers.push({ ...tierPrices, prompt_tokens_above: size });
  }
  return tiers.length === 0 ? prices : { ...prices, tiers: tiers.sort((a, b) => a.prompt_tokens_above - b.prompt_tokens_above) };
}

/** The prices a request with `promptTokens` is billed at: the largest tier it passes, else the base prices. */
export function pricesFor(pricing: Pricing, promptTokens: number): Prices {
  const tier = (pricing.tiers ?? []).filter((each) => promptTokens > each.prompt_tokens_above).at(-1);
  return tier ?? pricing;
}

/**
 * What one request cost in USD: (prompt - cached - written) at the prompt price, cached at the cache-read price,
 * written at the cache-write price (each the prompt price when the model has none), completion at the completion
 * price; all at the tier the prompt reaches.
 */
export function requestCost(pricing: Pricing, usage: Usage): number {
  const prices = pricesFor(pricing, usage.promptTokens);
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.promptTokens - cached);
  const fresh = usage.promptTokens - cached - written;
  return fresh * prices.prompt + cached * (prices.input_cache_read ?? prices.prompt) + written * (prices.input_cache_write ?? prices.prompt) + usage.completionTokens * prices.completion;
}

/**
 * What a run's requests cost in USD, each priced by its own usage (those without usage not counted), or null when it
 * is not known: no prices for the model, or no usage reported at all. Never 0 for "unknown".
 */
export function runCost(pricing: Pricing | undefined, usages: readonly (Usage | undefined)[]): number | null {
  const reported = usages.filter((usage): usage is Usage => usage !== undefined);
  if (!pricing || reported.length === 0) return null;
  return reported.reduce((sum, usage) => sum + requestCost(pricing, usage), 0);
}

/** A number as a decimal without an exponent, its digits exactly as JavaScript prints it, shifted `shift` places left (6: per million to per token). */
export function decimalText(value: number, shift = 0): string {
  const [mantissa = "0", exponentText = "0"] = value.toExponential().split("e");
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const point = Number(exponentText) - shift + 1;
  const whole = point <= 0 ? `0.${"0".repeat(-point)}${digits}` : point >= digits.length ? digits.padEnd(point, "0") : `${digits.slice(0, point)}.${digits.slice(point)}`;
  const trimmed = whole.includes(".") ? whole.replace(/0+$/, "").replace(/\.$/, "") : whole;
  return `${negative && trimmed !== "0" ? "-" : ""}${trimmed}`;
}

/** Pricing as a catalog file holds it: each price a decimal string of USD per token, as OpenRouter writes them. */
export function pricingText(pricing: Pricing): Pricing<string> {
  const text = (prices: Prices): Prices<string> => Object.fromEntries(PRICE_NAMES.filter((name) => prices[name] !== undefined).map((name) => [name, decimalText(prices[name] as number)])) as unknown as Prices<string>;
  const tiers = pricing.tiers?.map((tier) => ({ prompt_tokens_above: tier.prompt_tokens_above, ...text(tier) }));
  return { ...text(pricing), ...(tiers && tiers.length > 0 ? { tiers } : {}) };
}
