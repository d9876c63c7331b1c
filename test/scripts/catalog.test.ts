// scripts/catalog.ts: the shipped catalog regenerated from a small models.dev checkout laid out as the real one is
// (models/<lab>/<model>.toml, providers/<provider>/models/<id>.toml), and from an api.json.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseCatalog } from "../../agent/catalog.ts";
import { tempWorkspace } from "../workspace.ts";

const root = join(import.meta.dirname, "../..");
const script = join(root, "scripts/catalog.ts");

/** Runs the script to its end without blocking the test's event loop. */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A models.dev checkout: base models, OpenRouter's models (one overriding its base, one omitting a field, one on its own, one unpriced), another provider's. */
const CHECKOUT = {
  LICENSE: "MIT License\n\nCopyright (c) 2025 models.dev\n",
  "models/meta/llama-3.3-70b-instruct.toml": 'name = "Llama 3.3 70B"\n[limit]\ncontext = 128_000\noutput = 4_096\n[modalities]\ninput = ["text"]\noutput = ["text"]\n',
  "models/anthropic/claude-sonnet-4-5.toml": 'name = "Claude Sonnet 4.5"\nlicense = "proprietary"\n[limit]\ncontext = 200_000\ninput = 200_000\n[modalities]\ninput = ["text", "image", "pdf"]\noutput = ["text"]\n',
  "providers/openrouter/provider.toml": 'name = "OpenRouter"\napi = "https://openrouter.ai/api/v1"\n',
  "providers/openrouter/models/meta-llama/llama-3.3-70b-instruct.toml": 'base_model = "meta/llama-3.3-70b-instruct"\n[cost]\ninput = 0.1\noutput = 0.32\n[limit]\ncontext = 131_072\noutput = 16_384\n',
  "providers/openrouter/models/anthropic/claude-sonnet-4.5.toml":
    'base_model = "anthropic/claude-sonnet-4-5"\nbase_model_omit = ["limit.input"]\n[cost]\ninput = 3\noutput = 15\ncache_read = 0.3\ncache_write = 3.75\n[[cost.tiers]]\ntier = { type = "context", size = 200_000 }\ninput = 6\noutput = 22.5\ncache_read = 0.6\ncache_write = 7.5\n[limit]\ncontext = 1_000_000\n',
  "providers/openrouter/models/acme/solo.toml": 'name = "Solo"\n[cost]\ninput = 0.075\noutput = 0.3\n[limit]\ncontext = 32_768\noutput = 8_192\n[modalities]\ninput = ["text", "audio"]\noutput = ["text"]\n',
  "providers/openrouter/models/openrouter/auto.toml": 'name = "Auto"\n[limit]\ncontext = 2_000_000\noutput = 32_000\n[modalities]\ninput = ["text", "image"]\noutput = ["text"]\n',
  "providers/anthropic/models/claude-sonnet-4-5.toml": 'base_model = "anthropic/claude-sonnet-4-5"\n[cost]\ninput = 3\noutput = 15\n[limit]\ncontext = 200_000\noutput = 64_000\n',
};

/** What the checkout makes: OpenRouter's models by id, prices per token as decimal strings. */
const EXPECTED = [
  { id: "acme/solo", context_length: 32768, input_modalities: ["text", "audio"], pricing: { prompt: "0.000000075", completion: "0.0000003" } },
  {
    id: "anthropic/claude-sonnet-4.5",
    context_length: 1_000_000,
    input_modalities: ["text", "image", "pdf"],
    pricing: { prompt: "0.000003", completion: "0.000015", input_cache_read: "0.0000003", input_cache_write: "0.00000375", tiers: [{ prompt_tokens_above: 200_000, prompt: "0.000006", completion: "0.0000225", input_cache_read: "0.0000006", input_cache_write: "0.0000075" }] },
  },
  // The provider's context (131,072) wins over its base's (128,000); the modalities come from the base.
  { id: "meta-llama/llama-3.3-70b-instruct", context_length: 131_072, input_modalities: ["text"], pricing: { prompt: "0.0000001", completion: "0.00000032" } },
  { id: "openrouter/auto", context_length: 2_000_000, input_modalities: ["text", "image"] },
];

describe("scripts/catalog.ts", () => {
  test("regenerates the catalog from a checkout: OpenRouter's models, each over its base_model, with the commit, its date and the MIT notice", async () => {
    using ws = tempWorkspace();
    ws.put(Object.fromEntries(Object.entries(CHECKOUT).map(([path, text]) => [`models.dev/${path}`, text])));
    const checkout = join(ws.root, "models.dev");
    const git = (...args: string[]) => spawnSync("git", ["-C", checkout, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8", env: { ...process.env, GIT_COMMITTER_DATE: "2026-07-01T16:40:28Z", GIT_AUTHOR_DATE: "2026-07-01T16:40:28Z" } });
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "snapshot");
    const commit = git("rev-parse", "HEAD").stdout.trim();
    const out = join(ws.root, "models.json");
    const done = await run(["--from", checkout, "--out", out]);
    expect(done).toMatchObject({ status: 0, stdout: `Wrote 4 models of openrouter to ${out}.\n` });
    const text = readFileSync(out, "utf8");
    const written = JSON.parse(text) as { source: string; fetched: string; notice: string; models: unknown[] };
    expect(written).toEqual({ source: `models.dev (https://github.com/anomalyco/models.dev) commit ${commit}, provider openrouter`, fetched: "2026-07-01", notice: CHECKOUT.LICENSE.trim(), models: EXPECTED });
    // A model a line, and a file gg reads.
    expect(text.split("\n").filter((line) => line.startsWith('    {"id":'))).toHaveLength(4);
    expect(parseCatalog(written, out).models).toHaveLength(4);
  });

  test("a folder that is not a git checkout (even inside one) is named by --commit and --date, and refused in one line without them", async () => {
    using ws = tempWorkspace();
    ws.put(Object.fromEntries(Object.entries(CHECKOUT).map(([path, text]) => [`unpacked/${path}`, text])));
    // The folder sits in a repository with a commit, whose commit is not the snapshot's.
    spawnSync("git", ["-C", ws.root, "init", "-q"]);
    spawnSync("git", ["-C", ws.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "outer"]);
    const checkout = join(ws.root, "unpacked");
    const out = join(ws.root, "models.json");
    const refused = await run(["--from", checkout, "--out", out]);
    expect(refused).toMatchObject({ status: 1, stdout: "" });
    expect(refused.stderr).toMatch(new RegExp(`^scripts/catalog\\.ts: Cannot read the commit of ${checkout.replace(/[.]/g, "\\.")} with git \\([^\n]+\\); name the snapshot with --commit SHA --date YYYY-MM-DD\n$`));
    const commit = "f".repeat(40);
    expect(await run(["--from", checkout, "--commit", commit, "--out", out])).toMatchObject({ status: 1, stderr: "scripts/catalog.ts: --commit and --date name a snapshot together: give both, or neither to read them with git\n" });
    expect(await run(["--from", checkout, "--commit", commit, "--date", "2026-07-01", "--out", out])).toMatchObject({ status: 0 });
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({ source: `models.dev (https://github.com/anomalyco/models.dev) commit ${commit}, provider openrouter`, fetched: "2026-07-01", notice: CHECKOUT.LICENSE.trim(), models: EXPECTED });
  });

  test("regenerates from an api.json dated by --date (an older tier field read too); a provider it lacks is refused", async () => {
    using ws = tempWorkspace();
    const api = { openrouter: { id: "openrouter", models: { "acme/solo": { id: "acme/solo", cost: { input: 0.075, output: 0.3, context_over_200k: { input: 1, output: 2 } }, limit: { context: 32768, output: 8192 }, modalities: { input: ["text"], output: ["text"] } } } } };
    ws.put({ "api.json": JSON.stringify(api) });
    const out = join(ws.root, "models.json");
    expect(await run(["--from", join(ws.root, "api.json"), "--date", "2026-07-02", "--out", out])).toMatchObject({ status: 0 });
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({
      source: "models.dev's https://models.dev/api.json, provider openrouter",
      fetched: "2026-07-02",
      models: [{ id: "acme/solo", context_length: 32768, input_modalities: ["text"], pricing: { prompt: "0.000000075", completion: "0.0000003", tiers: [{ prompt_tokens_above: 200_000, prompt: "0.000001", completion: "0.000002" }] } }],
    });
    const refused = await run(["--from", join(ws.root, "api.json"), "--provider", "nowhere", "--out", out]);
    expect(refused).toMatchObject({ status: 1, stderr: `scripts/catalog.ts: Cannot make a catalog from ${join(ws.root, "api.json")}: it has no models of the provider nowhere\n` });
  });
});
