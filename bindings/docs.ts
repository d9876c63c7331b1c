// The reference page of the calls, generated from their declarations so it cannot drift from them.
import { type Configuration, defaultConfiguration, parseConfiguration } from "./config.ts";
import { CALLS } from "./index.ts";

interface PropertySchema {
  type?: string;
  description?: string;
}

/** A configuration with every capability that has batch calls on batch (read-file's lineCap at the batch tools' 200). */
const BATCH_CONFIG = parseConfiguration([
  { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
  { id: "edit-file", implementation: "batch" },
  { id: "list-dir", implementation: "batch" },
  { id: "search", implementation: "batch" },
]);

/**
 * Markdown for every call: one-line brief, parameters, and the description the model reads (a fresh configuration,
 * or for a batch call the batch one).
 */
export function renderCallsDoc(classic: Configuration = defaultConfiguration()): string {
  const out = [
    "# gg calls",
    "",
    "Generated from the declarations in `bindings/` by `npm run docs`; `npm test` fails when it is stale.",
    "Descriptions are shown for a fresh configuration (read-file on default-cap, lineCap 2000); those of the batch calls,",
    "offered when their capability's implementation is `batch`, with read-file's lineCap at 200.",
    "",
    "| call | brief |",
    "|---|---|",
    ...CALLS.map((call) => `| \`${call.name}\`${call.batch ? " (batch)" : ""} | ${call.brief} |`),
  ];
  for (const call of CALLS) {
    const config = call.batch ? BATCH_CONFIG : classic;
    const schema = call.parameters(config) as { properties?: Record<string, PropertySchema>; required?: string[] };
    const required = new Set(schema.required ?? []);
    const heading = call.batch ? `${call.name} (batch)` : call.name;
    const capability = call.batch ? `Capability: \`${call.capability}\`, implementation \`batch\`.` : `Capability: \`${call.capability}\`.`;
    out.push("", `## ${heading}`, "", call.brief, "", capability, "", "| parameter | type | |", "|---|---|---|");
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      out.push(`| \`${name}\` | ${property.type ?? "any"}${required.has(name) ? "" : ", optional"} | ${property.description ?? ""} |`);
    }
    out.push("", call.description(config));
  }
  return `${out.join("\n")}\n`;
}
