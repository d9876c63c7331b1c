// The reference page of the calls, generated from their declarations so it cannot drift from them.
import { type Configuration, defaultConfiguration } from "./config.ts";
import { CALLS } from "./index.ts";

interface PropertySchema {
  type?: string;
  description?: string;
}

/** Markdown for every call: one-line brief, parameters, and the description the model reads (fresh configuration). */
export function renderCallsDoc(config: Configuration = defaultConfiguration()): string {
  const out = [
    "# gg calls",
    "",
    "Generated from the declarations in `bindings/` by `npm run docs`; `npm test` fails when it is stale.",
    "Descriptions are shown for a fresh configuration (read-file on default-cap, lineCap 2000).",
    "",
    "| call | brief |",
    "|---|---|",
    ...CALLS.map((call) => `| \`${call.name}\` | ${call.brief} |`),
  ];
  for (const call of CALLS) {
    const schema = call.parameters(config) as { properties?: Record<string, PropertySchema>; required?: string[] };
    const required = new Set(schema.required ?? []);
    out.push("", `## ${call.name}`, "", call.brief, "", `Capability: \`${call.capability}\`.`, "", "| parameter | type | |", "|---|---|---|");
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      out.push(`| \`${name}\` | ${property.type ?? "any"}${required.has(name) ? "" : ", optional"} | ${property.description ?? ""} |`);
    }
    out.push("", call.description(config));
  }
  return `${out.join("\n")}\n`;
}
