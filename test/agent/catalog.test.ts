// The model catalog: what it says of a model, where it is read from, and its refresh from a server speaking
// OpenRouter's model list (local, on 127.0.0.1).
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CatalogError, costOf, loadCatalog, modelInfo, parseCatalog } from "../../agent/catalog.ts";
import { fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const CATALOG = { source: "test", fetched: "2026-12-01", models: [{ id: "a/seeing", context_length: 1000, input_modalities: ["text", "image"] }, { id: "a/text", context_length: 2000, input_modalities: ["text"] }, { id: "a/unknown" }] };

describe("the model catalog", () => {
  test("a model's context length and vision: seeing, text-only, or unknown when absent or without modalities", () => {
    const catalog = parseCatalog(CATALOG, "test");
    expect(modelInfo(catalog, "a/seeing")).toEqual({ contextLength: 1000, vision: true });
    expect(modelInfo(catalog, "a/text")).toEqual({ contextLength: 2000, vision: false });
    expect(modelInfo(catalog, "a/unknown")).toEqual({});
    expect(modelInfo(catalog, "b/absent")).toEqual({});
  });

  test("prices in USD per token, as OpenRouter writes them (strings) or as numbers; a cost counts cached tokens at their price", () => {
    const catalog = parseCatalog({ ...CATALOG, models: [{ id: "a/priced", pricing: { prompt: "0.000003", completion: 0.000015, input_cache_read: "0.0000003", request: "0" } }] }, "test");
    const pricing = { prompt: 0.000003, completion: 0.000015, input_cache_read: 0.0000003 };
    expect(modelInfo(catalog, "a/priced")).toEqual({ pricing });
    expect(() => parseCatalog({ ...CATALOG, models: [{ id: "a/free", pricing: { prompt: "-1", completion: "0" } }, { id: "a/half", pricing: { prompt: "0.000001" } }] }, "f.json")).toThrow(/models\[0\] \(a\/free\) has pricing .*; it must be \{"prompt", "completion"\} in USD per token, each a number of at least 0; models\[1\] \(a\/half\) has pricing/);
    expect(costOf(pricing, { promptTokens: 1_000_000, completionTokens: 100_000, cachedTokens: 400_000 })).toBeCloseTo(0.6 * 3 + 0.4 * 0.3 + 0.1 * 15, 10);
    expect(costOf({ prompt: 0.000001, completion: 0.000002 }, { promptTokens: 1000, completionTokens: 100, cachedTokens: 500 })).toBeCloseTo(0.0012, 10);
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
    expect(modelInfo(shipped.catalog, "openai/gpt-4o-mini")).toEqual({ contextLength: 128000, vision: true, pricing: { prompt: 0.00000015, completion: 0.0000006 } });
  });

  test("gg models refresh rewrites the user's copy from the list a server gives, prices kept (a router's -1 is none); gg models lists it", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([], {
      models: [
        { id: "z/text", context_length: 8192, architecture: { input_modalities: ["text"] }, pricing: { prompt: "0.00000015", completion: "0.0000006", input_cache_read: "0.000000075" } },
        { id: "y/seeing", context_length: 4096, architecture: { input_modalities: ["image", "text"] }, pricing: { prompt: "-1", completion: "-1" } },
        { id: "x/bare" },
      ],
    });
    const env = { ...process.env, XDG_CONFIG_HOME: join(ws.root, "config") };
    const baseURL = server.baseURL;
    // Spawned, not spawned synchronously: the server answering it runs in this process.
    const gg = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, ...args], { env });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("exit", (status) => resolve({ status, stdout, stderr }));
      });
    expect(await gg(["models", "refresh", "--base-url", baseURL])).toMatchObject({ status: 0, stdout: `Wrote 3 models from ${baseURL}/models.\n` });
    const written = JSON.parse(readFileSync(join(ws.root, "config/gg/models.json"), "utf8")) as { models: unknown[] };
    expect(written.models).toEqual([{ id: "x/bare" }, { id: "y/seeing", context_length: 4096, input_modalities: ["image", "text"] }, { id: "z/text", context_length: 8192, input_modalities: ["text"], pricing: { prompt: 0.00000015, completion: 0.0000006, input_cache_read: 0.000000075 } }]);
    const listed = spawnSync(process.execPath, [bin, "models"], { env, encoding: "utf8" });
    expect(listed.stdout).toContain("z/text  8192 tokens  text  $0.15 in, $0.6 out per million tokens\n");
    expect(listed.stdout).toContain("y/seeing  4096 tokens  image,text\n");
    expect(listed.stdout).toContain("x/bare  ? tokens  modalities unknown\n");
    const failed = await gg(["models", "refresh", "--base-url", `${baseURL}/nothing`]);
    expect(failed).toMatchObject({ status: 1, stderr: expect.stringContaining("the catalog in force is unchanged") });
  });
});
