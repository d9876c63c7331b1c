// gg models: the model catalog in force as a table for a person (or JSON), narrowed by a word and --vision;
// `gg models refresh` rewrites the user's copy from models.dev's api.json, OpenRouter's /models answer or a file.
import { Argument, Option } from "commander";
import { type Catalog, type CatalogModel, CatalogError, DEFAULT_BASE_URL, loadCatalog } from "../agent/catalog.ts";
import { MODELS_DEV_API } from "../agent/modelsdev.ts";
import type { Prices } from "../agent/pricing.ts";
import { refreshCatalog } from "../agent/refresh.ts";
import { grouped, plural } from "../host/lines.ts";
import { checkBaseURL, defineCommand, type Io, options, UsageError } from "./command.ts";

interface ModelsFlags {
  catalog?: string;
  baseUrl?: string;
  from?: string;
  vision?: boolean;
  json?: boolean;
}

/** A price per token as dollars per million tokens, without float noise (0.00000015 is 0.15); "-" when there is none. */
const perMillion = (usd: number | undefined): string => (usd === undefined ? "-" : `$${Number((usd * 1_000_000).toPrecision(6))}`);

/** The long-context tiers of a model, "past 200,000: $6 in, $22.5 out", or "". */
const tiersText = (model: CatalogModel): string => (model.pricing?.tiers ?? []).map((tier) => `past ${grouped(tier.prompt_tokens_above)}: ${perMillion(tier.prompt)} in, ${perMillion(tier.completion)} out`).join("; ");

/** One row of the table: id, context, input modalities, prices per million (in, cache read, cache write, out), tiers. */
function row(model: CatalogModel): string[] {
  const prices: Partial<Prices> = model.pricing ?? {};
  return [model.id, model.context_length === undefined ? "?" : grouped(model.context_length), model.input_modalities?.join(",") ?? "?", perMillion(prices.prompt), perMillion(prices.input_cache_read), perMillion(prices.input_cache_write), perMillion(prices.completion), tiersText(model)];
}

/** Rows as aligned columns: text columns padded on the right, figures on the left; no trailing spaces. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((cells) => cells[column]?.length ?? 0))) ?? [];
  const figures = new Set([1, 3, 4, 5, 6]);
  return rows.map((cells) => `${cells.map((cell, column) => (figures.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join("  ").trimEnd()}\n`).join("");
}

/** The models `word` (a part of the id, any case) and `vision` (image input declared) leave. */
function chosen(catalog: Catalog, word: string | undefined, vision: boolean): CatalogModel[] {
  const needle = word?.toLowerCase();
  return catalog.models.filter((model) => (needle === undefined || model.id.toLowerCase().includes(needle)) && (!vision || (model.input_modalities?.includes("image") ?? false)));
}

/** The listing for a person: where the catalog comes from, then a table of the models chosen. */
function listing(catalog: Catalog, path: string, models: CatalogModel[], narrowed: boolean): string {
  const counted = narrowed ? `${models.length} of ${plural(catalog.models.length, "model")}` : plural(models.length, "model");
  const head = `# ${catalog.source}, ${catalog.fetched}: ${counted} (${path}); prices in USD per million tokens\n`;
  if (models.length === 0) return `${head}No model of the catalog matches.\n`;
  return head + table([["model", "context", "input", "in", "cached", "cache write", "out", "long prompts"], ...models.map(row)]);
}

/** gg models [word] [--vision] [--json], and gg models refresh [--from URL_OR_FILE]. */
export function modelsCommand(io: Io) {
  return defineCommand(io, "models", "list the model catalog (context, input modalities, prices); refresh rewrites your copy from models.dev or OpenRouter", ["gg models claude --vision", `gg models refresh --from ${MODELS_DEV_API}`], async (word: string | undefined, flags: ModelsFlags) => {
    try {
      if (word === "refresh") {
        if (flags.baseUrl !== undefined) checkBaseURL(flags.baseUrl);
        const catalog = await refreshCatalog({ baseURL: flags.baseUrl ?? DEFAULT_BASE_URL, ...(flags.from === undefined ? {} : { from: flags.from }) });
        io.out(`Wrote ${plural(catalog.models.length, "model")} from ${catalog.source}.\n`);
        return 0;
      }
      const { catalog, path } = loadCatalog(flags.catalog);
      const models = chosen(catalog, word, flags.vision ?? false);
      if (flags.json) io.out(`${JSON.stringify({ ...catalog, models })}\n`);
      else io.out(listing(catalog, path, models, word !== undefined || flags.vision === true));
      return 0;
    } catch (error) {
      if (!(error instanceof CatalogError)) throw error;
      // A catalog that cannot be read is a refused command line; one that cannot be fetched, a failure.
      if (word !== "refresh") throw new UsageError(error.message);
      io.err(`gg: ${error.message}\n`);
      return 1;
    }
  })
    .addArgument(new Argument("[word]", "refresh: rewrite your copy; anything else: list only the models whose id has it"))
    .addOption(options.catalog())
    .addOption(new Option("--vision", "list only the models that take image input"))
    .addOption(new Option("--from <url-or-file>", `with refresh: models.dev's api.json (${MODELS_DEV_API}), OpenRouter's /models answer, or a catalog file`))
    .addOption(new Option("--base-url <url>", "with refresh and no --from: the provider whose /models list is read (default OpenRouter)"))
    .addOption(options.json("print the catalog (the models listed) as JSON"));
}
