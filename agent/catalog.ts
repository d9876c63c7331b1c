// The model catalog: per model id, its context length, input modalities and prices, in the shape of OpenRouter's model
// list. Three places, first found wins: a file named on the command line, the user's copy (`gg models refresh` writes
// it), the copy shipped with gg (generated from models.dev by scripts/catalog.ts). A model absent from it, or without a
// modality list, has unknown vision (not text-only).
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ggPackage } from "../host/package.ts";
import { type Pricing, pricingOf } from "./pricing.ts";

/** One model as the catalog holds it; `P` is a price's type (number in memory, string in a file). */
export interface CatalogModel<P = number> {
  id: string;
  /** Tokens. */
  context_length?: number;
  /** e.g. ["text", "image"]; absent when the source gave none. */
  input_modalities?: string[];
  /** USD per token (OpenRouter's figures, its field names); absent when the source gave none. */
  pricing?: Pricing<P>;
}

/** A catalog file: where it came from, when, the source's licence notice, and its models. */
export interface Catalog<P = number> {
  source: string;
  /** ISO date. */
  fetched: string;
  /** The source's licence notice, kept with data that needs one (models.dev's MIT notice). */
  notice?: string;
  models: CatalogModel<P>[];
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
  if (value.notice !== undefined && typeof value.notice !== "string") problems.push('"notice" must be a string');
  const models: CatalogModel[] = [];
  if (!Array.isArray(value.models)) problems.push('"models" must be an array of {"id", "context_length", "input_modalities"}');
  else {
    value.models.forEach((model, index) => {
      if (!record(model) || typeof model.id !== "string" || model.id === "") return problems.push(`models[${index}] needs a string "id"`);
      const { id, context_length: length, input_modalities: modalities, pricing } = model;
      if (pricing !== undefined && pricingOf(pricing) === undefined) problems.push(`models[${index}] (${id}) has pricing ${JSON.stringify(pricing)}; it must be {"prompt", "completion"} in USD per token, each a number of at least 0, with "tiers" (if any) each the same plus a whole "prompt_tokens_above"`);
      if (length !== undefined && !(typeof length === "number" && Number.isInteger(length) && length > 0)) problems.push(`models[${index}] (${id}) has context_length ${JSON.stringify(length)}; it must be a whole number of tokens`);
      if (modalities !== undefined && !(Array.isArray(modalities) && modalities.every((entry) => typeof entry === "string"))) problems.push(`models[${index}] (${id}) has input_modalities ${JSON.stringify(modalities)}; it must be an array of strings`);
      const prices = pricingOf(pricing);
      models.push({ id, ...(typeof length === "number" ? { context_length: length } : {}), ...(Array.isArray(modalities) ? { input_modalities: modalities as string[] } : {}), ...(prices ? { pricing: prices } : {}) });
    });
  }
  if (problems.length > 0) throw new CatalogError(`Cannot use the catalog ${where}: ${problems.join("; ")}`);
  return { source: value.source as string, fetched: value.fetched as string, ...(typeof value.notice === "string" ? { notice: value.notice } : {}), models };
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

/** A catalog file's text: its fields, then its models one a line, so two snapshots differ by the lines of the models that changed. */
export function catalogText(catalog: Catalog<string> | Catalog): string {
  const { models, ...fields } = catalog;
  const head = Object.entries(fields).map(([name, value]) => `  ${JSON.stringify(name)}: ${JSON.stringify(value)},\n`);
  const lines = (models as CatalogModel<unknown>[]).map((model) => `    ${JSON.stringify(model)}`);
  return `{\n${head.join("")}  "models": [\n${lines.join(",\n")}\n  ]\n}\n`;
}
