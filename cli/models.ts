// gg models: the model catalog in force, a line a model (or JSON); `gg models refresh` rewrites the user's copy from
// the provider's list.
import { Argument, Option } from "commander";
import { CatalogError, DEFAULT_BASE_URL, loadCatalog, refreshCatalog } from "../agent/catalog.ts";
import { defineCommand, type Io, options, UsageError } from "./command.ts";

interface ModelsFlags {
  catalog?: string;
  baseUrl?: string;
  json?: boolean;
}

/** A price per token as dollars per million tokens, without float noise (0.00000015 is 0.15). */
const perMillion = (usd: number): string => String(Number((usd * 1_000_000).toPrecision(6)));

export function modelsCommand(io: Io) {
  return defineCommand(io, "models", "list the model catalog (context length, input modalities); refresh rewrites your copy from OpenRouter's list", ["gg models", "gg models refresh"], async (action: "refresh" | undefined, flags: ModelsFlags) => {
    try {
      if (action === "refresh") {
        const catalog = await refreshCatalog(flags.baseUrl ?? DEFAULT_BASE_URL);
        io.out(`Wrote ${catalog.models.length} models from ${catalog.source}.\n`);
        return 0;
      }
      const { catalog, path } = loadCatalog(flags.catalog);
      if (flags.json) io.out(`${JSON.stringify(catalog)}\n`);
      else {
        io.out(`# ${path}: ${catalog.source}, ${catalog.fetched}\n`);
        for (const model of catalog.models) {
          const price = model.pricing ? `  $${perMillion(model.pricing.prompt)} in, $${perMillion(model.pricing.completion)} out per million tokens` : "";
          io.out(`${model.id}  ${model.context_length ?? "?"} tokens  ${model.input_modalities?.join(",") ?? "modalities unknown"}${price}\n`);
        }
      }
      return 0;
    } catch (error) {
      if (!(error instanceof CatalogError)) throw error;
      // A catalog that cannot be read is a refused command line; one that cannot be fetched, a failure.
      if (action !== "refresh") throw new UsageError(error.message);
      io.err(`gg: ${error.message}\n`);
      return 1;
    }
  })
    .addArgument(new Argument("[action]", "refresh: fetch the list and write it to your copy").choices(["refresh"]))
    .addOption(options.catalog())
    .addOption(new Option("--base-url <url>", "with refresh: the provider whose /models list is fetched (default OpenRouter)"))
    .addOption(options.json("print the catalog as JSON"));
}
