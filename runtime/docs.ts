// The reference of the gg global, generated from its declarations: docs/api.md, what `gg docs` prints (docs/dts.ts
// writes docs/gg.d.ts from the same declarations). Both are checked for staleness by `npm test`.
import type { TSchema } from "typebox";
import { type Configuration, defaultConfiguration } from "../bindings/config.ts";
import { type GgFunction, ggFunctions } from "./api.ts";

interface Property {
  type?: string;
  description?: string;
}

// Parameter names a declaration cannot use as they are.
const RESERVED: Record<string, string> = { new: "replacement" };
const label = (name: string): string => RESERVED[name] ?? name;

const tsType = (property: Property): string => (property.type === "integer" || property.type === "number" ? "number" : (property.type ?? "unknown"));

function parts(fn: GgFunction, config: Configuration) {
  const schema = fn.parameters(config) as TSchema & { properties?: Record<string, Property>; required?: string[] };
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const positional = fn.positional.filter((name) => name in properties);
  const options = Object.keys(properties).filter((name) => !positional.includes(name));
  return { properties, required, positional, options };
}

/** `readFile(path: string, options?: { offset?: number; limit?: number }): Promise<...>` */
export function signature(fn: GgFunction, config: Configuration): string {
  const { properties, required, positional, options } = parts(fn, config);
  const params = positional.map((name) => `${label(name)}${required.has(name) ? "" : "?"}: ${tsType(properties[name] as Property)}`);
  if (options.length > 0) {
    const fields = options.map((name) => `${name}${required.has(name) ? "" : "?"}: ${tsType(properties[name] as Property)}`).join("; ");
    params.push(`options${options.some((name) => required.has(name)) ? "" : "?"}: { ${fields} }`);
  }
  return `${fn.name}(${params.join(", ")}): Promise<${fn.returns}>`;
}

/** The modules of the gg global, in the order the docs list them. */
export const MODULES = ["files", "shell", "views", "context"] as const;

/** docs/api.md: the API grouped by module, with signatures, briefs, parameters and errors. */
export function renderApiDoc(config: Configuration = defaultConfiguration()): string {
  const functions = ggFunctions(config);
  const out = [
    "# The gg global",
    "",
    "A program is the body of an async function, run with `gg run` or `createRuntime().run()`. Every function returns a",
    "promise and rejects with an Error whose `code` is one of the codes below. Generated from the declarations by",
    "`npm run docs`; `npm test` fails when it is stale. Types: [gg.d.ts](gg.d.ts).",
  ];
  for (const module of MODULES) {
    const members = functions.filter((fn) => fn.module === module);
    if (members.length === 0) continue;
    out.push("", `## gg.${module}`);
    for (const fn of members) {
      const { properties, required } = parts(fn, config);
      out.push("", `### gg.${module}.${fn.name}`, "", "```ts", signature(fn, config), "```", "", fn.brief, "");
      for (const [name, property] of Object.entries(properties)) {
        out.push(`- \`${name}\` (${tsType(property)}${required.has(name) ? "" : ", optional"}): ${property.description ?? ""}`);
      }
      out.push(`- Errors: ${["invalid-argument", ...fn.errors].map((code) => `\`${code}\``).join(", ")}`);
    }
  }
  return `${out.join("\n")}\n`;
}
