// `${VAR}` and `${VAR:-default}` in an MCP server's entry, expanded from gg's environment as Claude Code expands them in
// .mcp.json: a variable that is set (even empty) gives its value, else the default, else it is missing. The values are
// read only where a server is started or reached, so they never enter the configuration a transcript copies.

const REFERENCE = /\$\{([^}]+)\}/g;
/** Characters a value needs to be withheld from messages: shorter ones would garble them and hide nothing. */
const WITHHELD_CHARS = 4;

/** What expanding found: the variables neither set nor defaulted, the values variables gave, and the texts nesting a reference in a default. */
export interface Expansion {
  missing: string[];
  values: string[];
  nested: string[];
}

/** `text` with its references expanded from `env`, noting in `found` what was missing and what was given. */
function expandVars(text: string, env: NodeJS.ProcessEnv, found: Expansion): string {
  return text.replace(REFERENCE, (whole, inside: string) => {
    const split = inside.indexOf(":-");
    const name = split < 0 ? inside : inside.slice(0, split);
    // ${A:-${B}} is not expanded as it reads (as in Claude Code, the first } ends the reference): a mistake to name.
    if (split >= 0 && inside.includes("${", split)) found.nested.push(text);
    const value = env[name];
    if (value !== undefined) {
      if (value.length >= WITHHELD_CHARS) found.values.push(value);
      return value;
    }
    if (split >= 0) return inside.slice(split + 2);
    found.missing.push(name);
    return whole;
  });
}

/** The fields of a server's entry that references are expanded in: its command, args, env, url and headers. */
export interface Expandable {
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  url?: string;
  headers?: Readonly<Record<string, string>>;
}

/**
 * `entry` with every reference expanded, the variables that are missing (each once, in order) and the values the
 * references gave (to withhold from messages: they may be secrets).
 */
export function expandEntry<T extends Expandable>(entry: T, env: NodeJS.ProcessEnv = process.env): { entry: T } & Expansion {
  const found: Expansion = { missing: [], values: [], nested: [] };
  const one = (text: string): string => expandVars(text, env, found);
  const record = (values: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, one(value)]));
  const expanded: T = {
    ...entry,
    ...(entry.command !== undefined ? { command: one(entry.command) } : {}),
    ...(entry.args ? { args: entry.args.map(one) } : {}),
    ...(entry.env ? { env: record(entry.env) } : {}),
    ...(entry.url !== undefined ? { url: one(entry.url) } : {}),
    ...(entry.headers ? { headers: record(entry.headers) } : {}),
  };
  return { entry: expanded, missing: [...new Set(found.missing)], values: [...new Set(found.values)], nested: [...new Set(found.nested)] };
}

/**
 * `text` with each of `values` (a server's expanded variables) withheld. The longest go first: a value inside another
 * (a user name inside its password) withheld first would leave the rest of the other in the text.
 */
export const withheld = (text: string, values: readonly string[]): string =>
  [...values].sort((a, b) => b.length - a.length).reduce((out, value) => out.split(value).join("[withheld]"), text);
