// `gg models refresh`: the user's copy of the catalog rewritten from a list read from a URL or a file, whichever of
// the shapes it is: models.dev's api.json, OpenRouter's /models answer, or a catalog file of gg's. The copy is
// replaced by a rename once the new one is written whole; an answer that fails, is cut short, garbled or empty
// leaves it byte for byte.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Catalog, CatalogError, type CatalogModel, catalogText, parseCatalog, userCatalogPath } from "./catalog.ts";
import { isModelsDev, MODELS_DEV_API, modelsDevCatalog } from "./modelsdev.ts";
import { pricingOf, pricingText } from "./pricing.ts";
import { makeFolder } from "../host/folders.ts";

/** How long a list may take to arrive (ms). */
const FETCH_TIMEOUT_MS = 60_000;

/** Why fetch failed: it says only "fetch failed" or "terminated"; its cause names the failure (connect ECONNREFUSED 127.0.0.1:9). */
const reasonOf = (error: unknown): string => ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;

/** The text at `from`, an http(s) URL or a file; throws an Error saying why it could not be had. */
async function textAt(from: string): Promise<string> {
  if (!/^https?:\/\//i.test(from)) return readFileSync(from, "utf8");
  let response: Response;
  try {
    response = await fetch(from, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(reasonOf(error));
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  try {
    return await response.text();
  } catch (error) {
    throw new Error(`the answer was cut short (${reasonOf(error)})`);
  }
}

/** OpenRouter's /models answer as a catalog: each model's id, context length, input modalities and prices (a router's "-1" is none). */
function openRouterModels(data: unknown[]): CatalogModel<string>[] {
  return (data as { id?: unknown; context_length?: unknown; architecture?: { input_modalities?: unknown }; pricing?: unknown }[]).flatMap((model): CatalogModel<string>[] => {
    if (typeof model?.id !== "string" || model.id === "") return [];
    const length = model.context_length;
    const modalities = model.architecture?.input_modalities;
    const pricing = pricingOf(model.pricing);
    return [
      {
        id: model.id,
        ...(typeof length === "number" && Number.isInteger(length) && length > 0 ? { context_length: length } : {}),
        ...(Array.isArray(modalities) && modalities.every((entry) => typeof entry === "string") ? { input_modalities: modalities as string[] } : {}),
        ...(pricing ? { pricing: pricingText(pricing) } : {}),
      },
    ];
  });
}

/** The catalog a list of one of the three shapes makes; throws an Error naming what the list is not. */
function catalogOf(body: unknown, source: string, fetched: string): Catalog<string> {
  const data = typeof body === "object" && body !== null ? (body as { data?: unknown }).data : undefined;
  if (Array.isArray(data)) return { source, fetched, models: openRouterModels(data).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
  if (isModelsDev(body)) {
    const catalog = modelsDevCatalog(body, { source, fetched });
    if (!catalog) throw new Error("it is models.dev's list but has no provider openrouter");
    return catalog;
  }
  if (typeof body === "object" && body !== null && "models" in body) {
    const catalog = parseCatalog(body, source);
    return { ...catalog, models: catalog.models.map(({ pricing, ...model }) => ({ ...model, ...(pricing ? { pricing: pricingText(pricing) } : {}) })) };
  }
  throw new Error(`it is neither models.dev's api.json (${MODELS_DEV_API}) nor OpenRouter's /models answer ({"data": [...]})`);
}

/** Writes `catalog` to `file` through a temporary file renamed over it, so the file is whole or as it was; throws a CatalogError when the disk refuses. */
function writeWhole(file: string, catalog: Catalog<string>): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    makeFolder(dirname(file));
    writeFileSync(temp, catalogText(catalog));
    renameSync(temp, file);
  } catch (error) {
    // existsSync, not rmSync's force: a parent that is a file makes rmSync throw ENOTDIR.
    if (existsSync(temp)) rmSync(temp);
    throw new CatalogError(`Cannot write the catalog to ${file}: ${(error as Error).message}; it is unchanged (make its folder writable, or set XDG_CONFIG_HOME to one that is)`);
  }
}

/**
 * Reads the list at `from` (a URL or a file; default `${baseURL}/models`), makes it a catalog and writes it as the
 * user's copy (or `file`); returns the catalog written. Throws a CatalogError in one line when the list cannot be had
 * or used, the copy left as it was.
 */
export async function refreshCatalog(options: { from?: string; baseURL: string; file?: string; now?: Date }): Promise<Catalog<string>> {
  const file = options.file ?? userCatalogPath();
  const from = options.from ?? `${options.baseURL.replace(/\/+$/, "")}/models`;
  const source = /^https?:\/\//i.test(from) ? from : resolve(from);
  const refuse = (reason: string): never => {
    throw new CatalogError(`Cannot refresh the catalog from ${source}: ${reason.replace(/\s+/g, " ").trim()}; ${file} is unchanged`);
  };
  let text = "";
  try {
    text = await textAt(from);
  } catch (error) {
    refuse((error as Error).message);
  }
  if (text.trim() === "") refuse("the answer is empty");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    refuse(`the answer is not whole JSON (${(error as Error).message.slice(0, 120)})`);
  }
  let catalog: Catalog<string> | undefined;
  try {
    catalog = catalogOf(body, source, (options.now ?? new Date()).toISOString().slice(0, 10));
  } catch (error) {
    refuse((error as Error).message);
  }
  if (!catalog || catalog.models.length === 0) return refuse("it lists no models");
  writeWhole(file, catalog);
  return catalog;
}
