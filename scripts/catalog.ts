// Regenerates the shipped catalog (catalog/models.json) from models.dev (https://github.com/anomalyco/models.dev, MIT):
// from a checkout, whose TOML files it reads as models.dev's own generator does (a provider's model merged over the
// `models/<lab>/<model>.toml` its `base_model` names, the provider's fields winning, then `base_model_omit` applied),
// or from its api.json. Only the provider's models (OpenRouter's by default) are kept, under its ids.
// Run: node scripts/catalog.ts --from ../models.dev [--commit SHA --date YYYY-MM-DD] [--provider openrouter] [--out catalog/models.json]
//      node scripts/catalog.ts --from api.json --date YYYY-MM-DD
// A checkout's commit and date are read with git when not given.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parse } from "smol-toml";
import { catalogText } from "../agent/catalog.ts";
import { MODELS_DEV_API, MODELS_DEV_PROVIDER, modelsDevCatalog } from "../agent/modelsdev.ts";

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);

/** The TOML files under `dir`, by id: the path without ".toml", "/" between folders. */
function tomlFiles(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    if (name.endsWith(".toml")) found.set(name.slice(0, -5).split("\\").join("/"), join(dir, name));
  }
  return found;
}

const readToml = (file: string): Fields => {
  try {
    return parse(readFileSync(file, "utf8")) as Fields;
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`);
  }
};

/** `over` merged into `base`: tables merged key by key, anything else (arrays included) replaced. */
function mergeDeep(base: Fields, over: Fields): Fields {
  const merged: Fields = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = isRecord(value) && isRecord(base[key]) ? mergeDeep(base[key], value) : value;
  return merged;
}

/** `model` without the dot paths of `paths`, tables left empty by it removed. */
function omit(model: Fields, paths: string[]): Fields {
  const result = structuredClone(model);
  for (const path of paths) {
    const parts = path.split(".");
    const parents: Fields[] = [result];
    for (const part of parts.slice(0, -1)) {
      const next = parents.at(-1)?.[part];
      if (!isRecord(next)) break;
      parents.push(next);
    }
    if (parents.length !== parts.length) continue;
    delete parents.at(-1)?.[parts.at(-1) as string];
    for (let index = parents.length - 1; index > 0 && Object.keys(parents[index] as Fields).length === 0; index--) delete parents[index - 1]?.[parts[index - 1] as string];
  }
  return result;
}

/** What a model inherits from its base: all but the base's identity and its papers (models.dev's rule). */
const inheritable = ({ id: _id, benchmarks: _benchmarks, license: _license, links: _links, weights: _weights, ...rest }: Fields): Fields => rest;

/** A checkout's one provider as api.json has it: `{ [provider]: { id, models } }`, each model resolved over its base. */
function checkoutApi(checkout: string, provider: string): Fields {
  const bases = tomlFiles(join(checkout, "models"));
  const models: Fields = {};
  for (const [id, file] of tomlFiles(join(checkout, "providers", provider, "models"))) {
    const { base_model: baseId, base_model_omit: omitted, ...own } = readToml(file);
    if (baseId === undefined) {
      models[id] = { ...own, id };
      continue;
    }
    const baseFile = bases.get(String(baseId));
    if (!baseFile) throw new Error(`Cannot resolve the base_model "${String(baseId)}" of ${file}: there is no models/${String(baseId)}.toml`);
    models[id] = { ...omit(mergeDeep(inheritable(readToml(baseFile)), own), Array.isArray(omitted) ? omitted.map(String) : []), id };
  }
  return { [provider]: { id: provider, models } };
}

/** The commit and its date (UTC, YYYY-MM-DD) of a git checkout; a folder git cannot read needs them given. */
function commitOf(checkout: string): { commit: string; date: string } {
  let answer: string;
  try {
    // The ceiling keeps git from taking the commit of a repository the folder sits in (an unpacked snapshot in gg's own).
    const env = { ...process.env, GIT_CEILING_DIRECTORIES: dirname(resolve(checkout)) };
    answer = execFileSync("git", ["-C", checkout, "log", "-1", "--format=%H%n%cI"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env });
  } catch (error) {
    const said = String((error as { stderr?: unknown }).stderr ?? "").trim() || (error as Error).message;
    throw new Error(`Cannot read the commit of ${checkout} with git (${said.split("\n")[0]}); name the snapshot with --commit SHA --date YYYY-MM-DD`);
  }
  const [commit = "", when = ""] = answer.trim().split("\n");
  return { commit, date: new Date(when).toISOString().slice(0, 10) };
}

function main(): void {
  const { values } = parseArgs({ options: { from: { type: "string" }, commit: { type: "string" }, date: { type: "string" }, provider: { type: "string", default: MODELS_DEV_PROVIDER }, out: { type: "string", default: join(import.meta.dirname, "..", "catalog", "models.json") } } });
  if (!values.from) throw new Error("scripts/catalog.ts needs --from, a models.dev checkout or its api.json");
  const provider = values.provider;
  let api: Fields;
  let source: string;
  let fetched: string;
  let notice: string | undefined;
  if (statSync(values.from).isDirectory()) {
    if ((values.commit === undefined) !== (values.date === undefined)) throw new Error("--commit and --date name a snapshot together: give both, or neither to read them with git");
    const snapshot = values.commit && values.date ? { commit: values.commit, date: values.date } : commitOf(values.from);
    api = checkoutApi(values.from, provider);
    source = `models.dev (https://github.com/anomalyco/models.dev) commit ${snapshot.commit}, provider ${provider}`;
    fetched = snapshot.date;
    notice = readFileSync(join(values.from, "LICENSE"), "utf8").trim();
  } else {
    api = JSON.parse(readFileSync(values.from, "utf8")) as Fields;
    fetched = values.date ?? new Date().toISOString().slice(0, 10);
    source = `models.dev's ${MODELS_DEV_API}, provider ${provider}`;
  }
  const catalog = modelsDevCatalog(api, { source, fetched, provider, ...(notice === undefined ? {} : { notice }) });
  if (!catalog || catalog.models.length === 0) throw new Error(`Cannot make a catalog from ${values.from}: it has no models of the provider ${provider}`);
  writeFileSync(values.out, catalogText(catalog));
  console.log(`Wrote ${catalog.models.length} models of ${provider} to ${values.out}.`);
}

try {
  main();
} catch (error) {
  console.error(`scripts/catalog.ts: ${(error as Error).message}`);
  process.exitCode = 1;
}
