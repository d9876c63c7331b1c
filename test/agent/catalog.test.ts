// The model catalog: what it says of a model, where it is read from, and the one shipped with gg.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CatalogError, loadCatalog, modelInfo, parseCatalog } from "../../agent/catalog.ts";
import { tempWorkspace } from "../workspace.ts";

const CATALOG = { source: "test", fetched: "2026-12-01", models: [{ id: "a/seeing", context_length: 1000, input_modalities: ["text", "image"] }, { id: "a/text", context_length: 2000, input_modalities: ["text"] }, { id: "a/unknown" }] };

describe("the model catalog", () => {
  test("a model's context length and vision: seeing, text-only, or unknown when absent or without modalities", () => {
    const catalog = parseCatalog(CATALOG, "test");
    expect(modelInfo(catalog, "a/seeing")).toEqual({ contextLength: 1000, vision: true });
    expect(modelInfo(catalog, "a/text")).toEqual({ contextLength: 2000, vision: false });
    expect(modelInfo(catalog, "a/unknown")).toEqual({});
    expect(modelInfo(catalog, "b/absent")).toEqual({});
  });

  test("prices in USD per token, as OpenRouter writes them (strings) or as numbers, with their long-context tiers", () => {
    const catalog = parseCatalog({ ...CATALOG, models: [{ id: "a/priced", pricing: { prompt: "0.000003", completion: 0.000015, input_cache_read: "0.0000003", request: "0", tiers: [{ prompt_tokens_above: 200000, prompt: "0.000006", completion: "0.0000225" }] } }] }, "test");
    expect(modelInfo(catalog, "a/priced")).toEqual({ pricing: { prompt: 0.000003, completion: 0.000015, input_cache_read: 0.0000003, tiers: [{ prompt_tokens_above: 200000, prompt: 0.000006, completion: 0.0000225 }] } });
    expect(() => parseCatalog({ ...CATALOG, models: [{ id: "a/free", pricing: { prompt: "-1", completion: "0" } }, { id: "a/half", pricing: { prompt: "0.000001" } }] }, "f.json")).toThrow(/models\[0\] \(a\/free\) has pricing .*; it must be \{"prompt", "completion"\} in USD per token, each a number of at least 0, with "tiers" \(if any\) each the same plus a whole "prompt_tokens_above"; models\[1\] \(a\/half\) has pricing/);
  });

  test("a bad catalog is refused naming every problem", () => {
    expect(() => parseCatalog({ source: 1, fetched: "x", models: [{ id: "" }, { id: "m", context_length: -1, input_modalities: "text" }] }, "f.json")).toThrow(
      new CatalogError('Cannot use the catalog f.json: "source" must be a string; models[0] needs a string "id"; models[1] (m) has context_length -1; it must be a whole number of tokens; models[1] (m) has input_modalities "text"; it must be an array of strings'),
    );
  });

  test("read from --catalog, else the user's copy, else the one shipped with gg", () => {
    using ws = tempWorkspace();
    ws.put({ "mine.json": JSON.stringify(CATALOG), "config/gg/models.json": JSON.stringify({ ...CATALOG, source: "user" }) });
    expect(loadCatalog(join(ws.root, "mine.json")).catalog.source).toBe("test");
    expect(loadCatalog(undefined, { XDG_CONFIG_HOME: join(ws.root, "config") }).catalog.source).toBe("user");
    const shipped = loadCatalog(undefined, { XDG_CONFIG_HOME: join(ws.root, "nowhere") });
    expect(shipped.path).toBe(join(import.meta.dirname, "../../catalog/models.json"));
  });

  test("the shipped catalog is models.dev's OpenRouter list: its commit, date and MIT notice, every model with its context and input modalities", () => {
    const file = join(import.meta.dirname, "../../catalog/models.json");
    const shipped = parseCatalog(JSON.parse(readFileSync(file, "utf8")), file);
    expect(shipped.source).toMatch(/^models\.dev \(https:\/\/github\.com\/anomalyco\/models\.dev\) commit [0-9a-f]{40}, provider openrouter$/);
    expect(shipped.fetched).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(shipped.notice).toMatch(/^MIT License\n\nCopyright \(c\) 2025 models\.dev\n/);
    expect(shipped.models.length).toBeGreaterThanOrEqual(300);
    expect(shipped.models.filter((model) => model.context_length === undefined || model.input_modalities === undefined)).toEqual([]);
    // Facts of the snapshot (providers/openrouter/models/...): the provider's context wins over its base model's
    // (128,000 for Llama 3.3 70B); Claude Sonnet 4.5 has cache prices and a tier past 200,000 tokens.
    expect(modelInfo(shipped, "meta-llama/llama-3.3-70b-instruct")).toEqual({ contextLength: 131_072, vision: false, pricing: { prompt: 0.0000001, completion: 0.00000032 } });
    expect(modelInfo(shipped, "anthropic/claude-sonnet-4.5")).toEqual({
      contextLength: 1_000_000,
      vision: true,
      pricing: { prompt: 0.000003, completion: 0.000015, input_cache_read: 0.0000003, input_cache_write: 0.00000375, tiers: [{ prompt_tokens_above: 200_000, prompt: 0.000006, completion: 0.0000225, input_cache_read: 0.0000006, input_cache_write: 0.0000075 }] },
    });
  });
});
