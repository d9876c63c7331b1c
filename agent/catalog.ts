// The model catalog: per model id, its context length, input modalities and prices as OpenRouter's model list reports
// them.
// Three places, first found wins: a file named on the command line, the user's copy (`gg models refresh` writes it),
// the copy shipped with gg. A model absent from it, or without a modality list, has unknown vision (not text-only).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { ggPackage } from "../host/package.ts";

/** One model as the catalog holds it. */
export interface CatalogModel {
  id: string;
  /** Tokens. */
  context_length?: number;
  /** e.g. ["text", "image"]; absent when the source gave none. */
  input_modalities?: string[];
  /** USD per token (OpenRouter's figures, its field names); absent when the source gave none. */
  pricing?: Pricing;
}

/** A model's prices in USD per token. */
export interface Pricing {
  prompt: number;
  completion: number;
  /** Prompt tokens read from the provider's cache; absent: billed as prompt tokens. */
  input_cache_read?: number;
}

/** A price as OpenRouter writes it (a decimal string) or as a person does (a number): USD per token, or undefined. */
const priceOf = (value: unknown): number | undefined => {
  const price = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof price === "number" && Number.isFinite(price) && price >= 0 ? price : undefined;
};

/** The pricing of a catalog entry or of OpenRouter's list, or undefined without both prompt and completion prices. */
function pricingOf(value: unknown): Pricing | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { prompt, completion, input_cache_read: cached } = value as Record<string, unknown>;
  const [input, output, read] = [priceOf(prompt), priceOf(completion), priceOf(cached)];
  if (input === undefined || output === undefined) return undefined;
  return { prompt: input, completion: output, ...(read === undefined ? {} : { input_cache_read: read }) };
}

/** What a run's usage cost at `pricing`, in USD. */
export function costOf(pricing: Pricing, usage: { promptTokens: number; completionTokens: number; cachedTokens?: number }): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  return (usage.promptTokens - cached) * pricing.prompt + cached * (pricing.input_cache_read ?? pricing.prompt) + usage.completionTokens * pricing.completion;
}

/** What usage cost in USD, or null when it is not known (no prices for the model): never 0 for "unknown". */
export const costOrNull = (pricing: Pricing | undefined, usage: Parameters<typeof costOf>[1]): number | null => (pricing ? costOf(pricing, usage) : null);

/** A catalog file: where it came from, when, and its models. */
export interface Catalog {
  source: string;
  /** ISO date. */
  fetched: string;
  models: CatalogModel[];
}

/** Where requests go when --base-url names nothing: OpenRouter, whose model ids the catalog uses. */
export const DEFAULT_BASE_URL = "https://openrouter.ai/api/v1";

/** A catalog file that cannot be used, with every problem named. */
export class CatalogError extends Error {}

/** The user's copy: $XDG_CONFIG_HOME/gg/models.json, else ~/.config/gg/models.json. */
export const userCatalogPath = (env: Record<string, string | undefined> = process.env): string => join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "gg", "models.json");

/** Checks a catalog's shape; `where` names it in the refusal. */
export function parseCatalog(value: unknown, where: string): Catalog {
  const problems: string[] = [];
  const record = (candidate: unknown): candidate is Record<string, unknown> => typeof candidate === "object" && candidate !== null && !Array.isArray(candidate);
  if (!record(value)) throw new CatalogError(`Cannot use the catalog ${where}: it must be an object {"source", "fetched", "models": [...]}`);
  if (typeof value.source !== "string") problems.push('"source" must be a string');
  if (typeof value.fetched !== "string") problems.push('"fetched" must be a date string');
  const models: CatalogModel[] = [];
  if (!Array.isArray(value.models)) problems.push('"models" must be an array of {"id", "context_length", "input_modalities"}');
  else {
    value.models.forEach((model, index) => {
      if (!record(model) || typeof model.id !== "string" || model.id === "") return problems.push(`models[${index}] needs a string "id"`);
      const { id, context_length: length, input_modalities: modalities, pricing } = model;
      if (pricing !== undefined && pricingOf(pricing) === undefined) problems.push(`models[${index}] (${id}) has pricing ${JSON.stringify(pricing)}; it must be {"prompt", "completion"} in USD per token, each a number of at least 0`);
      if (length !== undefined && !(typeof length === "number" && Number.isInteger(length) && length > 0)) problems.push(`models[${index}] (${id}) has context_length ${JSON.stringify(length)}; it must be a whole number of tokens`);
      if (modalities !== undefined && !(Array.isArray(modalities) && modalities.every((entry) => typeof entry === "string"))) problems.push(`models[${index}] (${id}) has input_modalities ${JSON.stringify(modalities)}; it must be an array of strings`);
      const prices = pricingOf(pricing);
      models.push({ id, ...(typeof length === "number" ? { context_length: length } : {}), ...(Array.isArray(modalities) ? { input_modalities: modalities as string[] } : {}), ...(prices ? { pricing: prices } : {}) });
    });
  }
  if (problems.length > 0) throw new CatalogError(`Cannot use the catalog ${where}: ${problems.join("; ")}`);
  return { source: value.source as string, fetched: value.fetched as string, models };
}

const readCatalog = (file: string): Catalog => {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CatalogError(`Cannot read the catalog ${file}: ${(error as Error).message}`);
  }
  try {
    return parseCatalog(JSON.parse(text), file);
  } catch (error) {
    if (error instanceof CatalogError) throw error;
    throw new CatalogError(`Cannot parse the catalog ${file}: ${(error as Error).message}`);
  }
};

/** The catalog in force: `file` when given, else the user's copy when there is one, else the shipped one. */
export function loadCatalog(file?: string, env: Record<string, string | undefined> = process.env): { catalog: Catalog; path: string } {
  if (file !== undefined) return { catalog: readCatalog(file), path: file };
  const user = userCatalogPath(env);
  try {
    return { catalog: readCatalog(user), path: user };
  } catch (error) {
    if (!(error instanceof CatalogError) || !/^Cannot read /.test(error.message)) throw error;
  }
  const shipped = join(ggPackage()?.dir ?? ".", "catalog", "models.json");
  return { catalog: readCatalog(shipped), path: shipped };
}

/** What the catalog says of `model`: its context length, whether it sees images (undefined: unknown), its prices. */
export function modelInfo(catalog: Catalog, model: string): { contextLength?: number; vision?: boolean; pricing?: Pricing } {
  const entry = catalog.models.find((candidate) => candidate.id === model);
  if (!entry) return {};
  return {
    ...(entry.context_length === undefined ? {} : { contextLength: entry.context_length }),
    ...(entry.input_modalities === undefined ? {} : { vision: entry.input_modalities.includes("image") }),
    ...(entry.pricing === undefined ? {} : { pricing: entry.pricing }),
  };
}

/**
 * Fetches `${baseURL}/models` (OpenRouter's list, or a server speaking it) and writes it as the user's copy (or
 * `file`), atomically; returns the catalog written.
 */
export async function refreshCatalog(baseURL: string, file = userCatalogPath(), now = new Date()): Promise<Catalog> {
  const url = `${baseURL.replace(/\/+$/, "")}/models`;
  let body: unknown;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = await response.json();
  } catch (error) {
    throw new CatalogError(`Cannot refresh the catalog from ${url}: ${(error as Error).message}; the catalog in force is unchanged`);
  }
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) throw new CatalogError(`Cannot refresh the catalog from ${url}: the answer has no "data" list of models; the catalog in force is unchanged`);
  const models = data.flatMap((model: { id?: unknown; context_length?: unknown; architecture?: { input_modalities?: unknown }; pricing?: unknown }): CatalogModel[] => {
    if (typeof model?.id !== "string" || model.id === "") return [];
    const length = model.context_length;
    const modalities = model.architecture?.input_modalities;
    // OpenRouter gives its routers a price of "-1" (decided per request): no price.
    const pricing = pricingOf(model.pricing);
    return [
      {
        id: model.id,
        ...(typeof length === "number" && Number.isInteger(length) && length > 0 ? { context_length: length } : {}),
        ...(Array.isArray(modalities) && modalities.every((entry) => typeof entry === "string") ? { input_modalities: modalities as string[] } : {}),
        ...(pricing ? { pricing } : {}),
      },
    ];
  });
  const catalog: Catalog = { source: url, fetched: now.toISOString().slice(0, 10), models: models.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(catalog, null, 2)}\n`);
  renameSync(temp, file);
  return catalog;
}
