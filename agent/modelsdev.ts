// models.dev (https://github.com/anomalyco/models.dev, MIT) as gg's catalog: one provider's models of its api.json,
// under that provider's ids, in the shape gg reads (OpenRouter's). models.dev gives prices in USD per million tokens
// and long-context tiers as `cost.tiers` (older answers: `cost.context_over_200k`); the catalog holds USD per token as
// decimal strings, as OpenRouter writes them, converted digit for digit (0.3 per million is "0.0000003").
import type { Catalog, CatalogModel } from "./catalog.ts";
import { decimalText, type Prices, type Pricing, type PricingTier } from "./pricing.ts";

/** models.dev's whole catalog, every provider with its models. */
export const MODELS_DEV_API = "https://models.dev/api.json";

/** The provider whose models the catalog holds: OpenRouter, where requests go by default. */
export const MODELS_DEV_PROVIDER = "openrouter";

/** models.dev's notice, for a catalog made from its api.json (a checkout gives its LICENSE file whole). */
export const MODELS_DEV_NOTICE = "Model data from models.dev (https://github.com/anomalyco/models.dev), MIT License, Copyright (c) 2025 models.dev.";

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether `value` has the shape of models.dev's api.json: providers, each with an object of models. */
export const isModelsDev = (value: unknown): value is Fields => isRecord(value) && !("data" in value) && !("models" in value) && Object.values(value).some((provider) => isRecord(provider) && isRecord(provider.models));

const perMillion = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);

/** models.dev's cost fields as per-token strings, or undefined without an input and an output price. */
function pricesOf(cost: Fields): Prices<string> | undefined {
  const [input, output, read, write] = [cost.input, cost.output, cost.cache_read, cost.cache_write].map(perMillion);
  if (input === undefined || output === undefined) return undefined;
  const text = (value: number): string => decimalText(value, 6);
  return { prompt: text(input), completion: text(output), ...(read === undefined ? {} : { input_cache_read: text(read) }), ...(write === undefined ? {} : { input_cache_write: text(write) }) };
}

/** The long-context tiers of a cost: `tiers` of type context, else the older `context_over_200k`. */
function tiersOf(cost: Fields): PricingTier<string>[] {
  const authored = Array.isArray(cost.tiers) ? cost.tiers : isRecord(cost.context_over_200k) ? [{ ...cost.context_over_200k, tier: { type: "context", size: 200_000 } }] : [];
  return authored.flatMap((tier: unknown) => {
    if (!isRecord(tier) || !isRecord(tier.tier) || (tier.tier.type ?? "context") !== "context" || typeof tier.tier.size !== "number") return [];
    const prices = pricesOf(tier);
    return prices ? [{ prompt_tokens_above: tier.tier.size, ...prices }] : [];
  });
}

/** The pricing of a models.dev cost, or undefined when it has none. */
function pricingOf(cost: unknown): Pricing<string> | undefined {
  if (!isRecord(cost)) return undefined;
  const prices = pricesOf(cost);
  const tiers = tiersOf(cost);
  return prices && tiers.length > 0 ? { ...prices, tiers } : prices;
}

/** One models.dev model as a catalog entry: its context, input modalities and prices, each when it has them. */
function modelOf(id: string, model: Fields): CatalogModel<string> {
  const context = isRecord(model.limit) ? model.limit.context : undefined;
  const modalities = isRecord(model.modalities) ? model.modalities.input : undefined;
  const pricing = pricingOf(model.cost);
  return {
    id,
    ...(typeof context === "number" && Number.isInteger(context) && context > 0 ? { context_length: context } : {}),
    ...(Array.isArray(modalities) && modalities.every((entry) => typeof entry === "string") ? { input_modalities: modalities as string[] } : {}),
    ...(pricing ? { pricing } : {}),
  };
}

/** The models of `provider` in models.dev's api.json, sorted by id; undefined when the provider is not in it. */
export function modelsDevModels(api: Fields, provider = MODELS_DEV_PROVIDER): CatalogModel<string>[] | undefined {
  const entry = api[provider];
  if (!isRecord(entry) || !isRecord(entry.models)) return undefined;
  const models = entry.models;
  return Object.keys(models)
    .sort()
    .flatMap((id) => (isRecord(models[id]) ? [modelOf(id, models[id] as Fields)] : []));
}

/** A catalog file made from models.dev's api.json: `source` and `fetched` say which snapshot, `notice` its licence. */
export function modelsDevCatalog(api: Fields, from: { source: string; fetched: string; notice?: string; provider?: string }): Catalog<string> | undefined {
  const models = modelsDevModels(api, from.provider);
  return models && { source: from.source, fetched: from.fetched, notice: from.notice ?? MODELS_DEV_NOTICE, models };
}
