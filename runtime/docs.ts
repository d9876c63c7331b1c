// The reference of the gg global, generated from its declarations: docs/api.md (what `gg docs` prints), docs/gg.d.ts
// (the types a program is checked against), the compact declarations a code agent's prompt carries, and the opening
// turn's docs of a module. Parameter and result types are rendered from the same schemas that validate arguments and
// describe results. The two files are checked for staleness by `npm test`.
import type { TSchema } from "typebox";
import { type Configuration, defaultConfiguration } from "../bindings/config.ts";
import { GG_MODULES, type GgModule } from "../bindings/capabilities.ts";
import { ErrorCode } from "../bindings/define.ts";
import { type CompactStyle, compactDeclaration, compactTypeOf, declarations, docComment, type NamedTypes, namedUses, typeOf } from "../bindings/types.ts";
import { type GgFunction, ggFunctions } from "./api.ts";
import type { ExternalCatalog } from "../bindings/external.ts";
import { briefOf, declarationOf, MCP_TEXT_RESULT_DTS, namespaceDts, rankTools } from "./external_api.ts";
import { scoreOf, words } from "./rank.ts";

interface Property {
  description?: string;
}

function parts(fn: GgFunction, config: Configuration) {
  const schema = fn.parameters(config) as TSchema & { properties?: Record<string, TSchema & Property>; required?: string[] };
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const positional = fn.positional.filter((name) => name in properties);
  const options = Object.keys(properties).filter((name) => !positional.includes(name));
  return { properties, required, positional, options };
}

/** A signature whose types `render` spells. */
function signatureWith(fn: GgFunction, config: Configuration, render: (schema: TSchema, result: boolean) => string, optionsName = "options", pad = " "): string {
  const { properties, required, positional, options } = parts(fn, config);
  const typed = (name: string): string => `${required.has(name) ? "" : "?"}: ${render(properties[name] as TSchema, false)}`;
  const params = positional.map((name) => `${fn.names?.[name] ?? name}${typed(name)}`);
  if (options.length > 0) {
    params.push(`${optionsName}${options.some((name) => required.has(name)) ? "" : "?"}: {${pad}${options.map((name) => `${name}${typed(name)}`).join("; ")}${pad}}`);
  }
  return `${fn.name}(${params.join(", ")}): Promise<${render(fn.result, true)}>`;
}

/** A signature as the compact declarations spell it: results show what every result holds. */
function compactSignature(fn: GgFunction, config: Configuration, declared: ReadonlySet<string>): string {
  const params: CompactStyle = { declared };
  const results: CompactStyle = { declared, requiredOnly: true };
  return signatureWith(fn, config, (schema, result) => compactTypeOf(schema, result ? results : params), "opts", "");
}

/**
 * A function as the shape of its simplest call, `search(query): McpMatch[]`: its parameters' names (an options object
 * only when it has a required option), and what it resolves to, a named type by its name (gg.d.ts declares them all),
 * unknown left unsaid. For a prompt that names functions where their full declarations would cost more than they tell.
 */
export function callShape(fn: GgFunction, config: Configuration): string {
  const { required, positional, options } = parts(fn, config);
  const optional = (name: string): string => (required.has(name) ? "" : "?");
  const params = positional.map((name) => `${fn.names?.[name] ?? name}${optional(name)}`);
  if (options.some((name) => required.has(name))) params.push(`{${options.map((name) => `${name}${optional(name)}`).join(", ")}}`);
  const result = compactTypeOf(fn.result, { declared: new Set(namedUses([fn.result]).keys()) });
  return `${fn.name}(${params.join(", ")})${result === "unknown" ? "" : `: ${result}`}`;
}

/** `readFile(path: string, options?: { offset?: number; limit?: number }): Promise<...>`; named types go to `named`. */
export function signature(fn: GgFunction, config: Configuration, named: NamedTypes = new Map()): string {
  return signatureWith(fn, config, (schema) => typeOf(schema, named));
}

/** The modules of the gg global, in the order the docs list them. */
export const MODULES = GG_MODULES;

// An interface and a var, as the DOM and Node libraries declare console, so gg.d.ts merges with either in an editor.
const CONSOLE = `/** The program's console: each call is one entry of the run's logs (values joined by spaces, each value that is not a string as JSON). */
interface Console {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
}
declare var console: Console;`;

const GG_ERROR = `/** Every gg function rejects with an Error carrying the code of what failed. */
interface GgError extends Error {
  code: ErrorCode;
}`;

/**
 * docs/gg.d.ts: the gg global under `config` as TypeScript declarations (with the console a program has), for a
 * model, an editor, and the type-checking of programs.
 */
export function renderDts(config: Configuration = defaultConfiguration(), external?: ExternalCatalog): string {
  const functions = ggFunctions(config, external);
  const named: NamedTypes = new Map();
  // The external tools' namespaces sit beside gg.mcp's and gg.app's own functions.
  const spaces = namespaceDts(external);
  const modules = MODULES.map((module) => {
    const members = [...functions.filter((fn) => fn.module === module).map((fn) => `${docComment(fn.brief, "    ")}    ${signature(fn, config, named)};`), ...(module === "mcp" || module === "app" ? spaces[module] : [])].join("\n");
    return members ? `  ${module}: {\n${members}\n  };` : "";
  }).filter(Boolean);
  typeOf(ErrorCode, named);
  const types = [...declarations(named), ...(functions.some((fn) => fn.module === "mcp") ? [MCP_TEXT_RESULT_DTS] : [])];
  return `// Generated from gg's declarations; do not edit.\n\n${types.join("\n\n")}\n\n${GG_ERROR}\n\n${CONSOLE}\n\ndeclare const gg: {\n${modules.join("\n")}\n};\n`;
}

/**
 * The gg global under `config` as compact declarations, for a code agent's prompt: one line per function of
 * `modules` and one per type they name more than once, every other type spelled out where it is used, no comments,
 * and results as every result holds them (their optional fields are in {@link renderDts}, which a program is checked
 * against).
 */
export function compactDts(config: Configuration = defaultConfiguration(), modules: readonly GgModule[] = MODULES, external?: ExternalCatalog): string {
  const functions = ggFunctions(config, external).filter((fn) => modules.includes(fn.module));
  // The application's functions are declared where they are called; MCP tools never are (gg.mcp.describe gives them).
  const app = namespaceDts(external).app.map((line) => `  ${line.trim()}`);
  const named = namedUses(functions.flatMap((fn) => [fn.parameters(config), fn.result]));
  const declared = new Set([...named].filter(([, found]) => found.uses > 1).map(([name]) => name));
  const results: CompactStyle = { declared, requiredOnly: true };
  const types = [...declared].map((name) => compactDeclaration(name, named.get(name)?.schema as TSchema, results));
  const blocks = modules.flatMap((module) => {
    const members = [...functions.filter((fn) => fn.module === module).map((fn) => `    ${compactSignature(fn, config, declared)};`), ...(module === "app" ? app.map((line) => `  ${line}`) : [])];
    return members.length > 0 ? [`  ${module}: {`, ...members, "  };"] : [];
  });
  return [...types, "declare const gg: {", ...blocks, "};", ""].join("\n");
}

/** One function as the docs show it: its signature, brief, each parameter with its description, and its errors. */
function functionSection(fn: GgFunction, config: Configuration, named: NamedTypes): string[] {
  const { properties, required } = parts(fn, config);
  const out = [`### gg.${fn.module}.${fn.name}`, "", "```ts", signature(fn, config, named), "```", "", fn.brief, ""];
  for (const [name, property] of Object.entries(properties)) {
    out.push(`- \`${fn.names?.[name] ?? name}\` (${typeOf(property, named)}${required.has(name) ? "" : ", optional"}): ${property.description ?? ""}`);
  }
  out.push(`- Errors: ${["invalid-argument", ...fn.errors].map((code) => `\`${code}\``).join(", ")}`);
  return out;
}

/** The external tools of `external` as the reference shows them: a section per server, a declaration per tool. */
function externalSections(external: ExternalCatalog | undefined): string[] {
  const out: string[] = [];
  for (const server of external?.servers ?? []) {
    out.push("", `## ${server.call ?? `gg.mcp.call("${server.server}", ...)`}`, "", `MCP server "${server.server}"${server.description ? `: ${server.description}` : ""}${server.error ? ` (not available: ${server.error})` : ""}.`);
    for (const tool of external?.tools.filter((candidate) => candidate.source === "mcp" && candidate.server === server.server) ?? []) {
      out.push("", `### ${tool.call ?? `gg.mcp.call("${server.server}", "${tool.tool}", input)`}`, "", "```ts", declarationOf(tool), "```", `JSON tool \`${tool.name}\`${tool.readOnly ? " (read-only)" : ""}.`);
    }
    for (const { tool, why } of server.leftOut) out.push("", `- \`${tool}\` is left out of the namespace (${why}): call it with gg.mcp.call("${server.server}", "${tool}", input).`);
  }
  const app = external?.tools.filter((tool) => tool.source === "app") ?? [];
  if (app.length > 0) out.push("", "## The application's functions (gg.app)");
  for (const tool of app) out.push("", `### ${tool.call}`, "", "```ts", declarationOf(tool), "```", `JSON tool \`${tool.name}\`${tool.readOnly ? " (read-only)" : ""}.`);
  return out;
}

/** docs/api.md: the API grouped by module, with signatures, briefs, parameters and errors, then the types. */
export function renderApiDoc(config: Configuration = defaultConfiguration(), external?: ExternalCatalog): string {
  const functions = ggFunctions(config, external);
  const named: NamedTypes = new Map();
  const out = [
    "# The gg global",
    "",
    "A program is the body of an async function, run with `gg run` or `createRuntime().run()`. Every function returns a",
    "promise and rejects with an Error whose `code` is one of the codes listed with it. Generated from the declarations",
    "by `npm run docs`; `npm test` fails when it is stale. The types below are also in [gg.d.ts](gg.d.ts).",
  ];
  for (const module of MODULES) {
    const members = functions.filter((fn) => fn.module === module);
    if (members.length === 0) continue;
    out.push("", `## gg.${module}`);
    for (const fn of members) out.push("", ...functionSection(fn, config, named));
  }
  out.push(...externalSections(external));
  out.push("", "## Types", "", "```ts", [...declarations(named), ...(functions.some((fn) => fn.module === "mcp") ? [MCP_TEXT_RESULT_DTS] : [])].join("\n\n"), "```");
  return `${out.join("\n")}\n`;
}

/** One function a search over the briefs found. */
export interface DocMatch {
  /** e.g. "gg.files.search". */
  function: string;
  module: GgFunction["module"];
  signature: string;
  brief: string;
  /** Higher is a better match. */
  score: number;
}

/**
 * The gg functions `config` gives, ranked by how well `query` matches them: a query word in the function's name
 * counts 3, in its module 2, in its brief 1. The functions that match nothing are left out.
 */
export function searchDocs(query: string, config: Configuration = defaultConfiguration(), external?: ExternalCatalog): DocMatch[] {
  const terms = [...new Set(words(query))].filter((term) => term !== "gg");
  const matches: DocMatch[] = [];
  for (const fn of ggFunctions(config, external)) {
    const score = scoreOf(terms, [
      [words(fn.name), 3],
      [[fn.module], 2],
      [words(fn.brief), 1],
    ]);
    if (score > 0) matches.push({ function: `gg.${fn.module}.${fn.name}`, module: fn.module, signature: signature(fn, config), brief: fn.brief, score });
  }
  for (const found of rankTools(external, terms)) matches.push({ function: found.call, module: found.tool.source, signature: declarationOf(found.tool, true), brief: briefOf(found.tool.description), score: found.score });
  // Stable: equal scores keep the declarations' order.
  return matches.sort((a, b) => b.score - a.score);
}

/**
 * The documentation of one module as the opening turn shows it (under the module's label, gg://docs/files): a line
 * per function with its brief, and its note where it has something to add to its compact signature in the code
 * prompt.
 */
export function moduleDoc(module: GgFunction["module"], config: Configuration = defaultConfiguration()): string {
  return ggFunctions(config)
    .filter((fn) => fn.module === module)
    .map((fn) => `${fn.name}: ${fn.brief}${fn.note ? ` ${fn.note(config)}` : ""}`)
    .join("\n");
}
