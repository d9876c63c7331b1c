// The names of external tools as rules and allowlists give them: `mcp__<server>__<tool>`, `app__<name>`, or a prefix of
// one ending in `*` (`mcp__memory__*`, `mcp__*`, `app__*`). Their tools are known only once their servers are listed,
// so a configuration names them unchecked.
import { createHash } from "node:crypto";

/** Characters a tool's name may have in OpenAI's and Anthropic's tool-calling APIs. */
export const TOOL_NAME_CHARS = 64;
/** Hex digits of the hash that ends a name cut to TOOL_NAME_CHARS. */
const CUT_HASH_CHARS = 8;
/** Characters of a name's start that its cut keeps. */
const KEPT_CHARS = TOOL_NAME_CHARS - CUT_HASH_CHARS - 1;
/** Characters a server's name may have: mcp__<server>__ stays whole in a cut name, so mcp__<server>__* covers its tools. */
export const SERVER_NAME_CHARS = KEPT_CHARS - "mcp____".length;

/**
 * `name` as tool-calling APIs take it: one over TOOL_NAME_CHARS is cut, ending with a hash of the whole, so the same
 * name is always cut the same way and two cut alike differ.
 */
export function cutName(name: string): string {
  if (name.length <= TOOL_NAME_CHARS) return name;
  return `${name.slice(0, KEPT_CHARS)}_${createHash("sha256").update(name).digest("hex").slice(0, CUT_HASH_CHARS)}`;
}

/**
 * What is wrong with `call` as a name of external tools, if anything: a prefix ending in `*` longer than what a cut name
 * keeps could not be told to cover a cut tool or not, so a deny could let it run; it is refused rather than guessed.
 */
export function externalNameProblem(call: string): string | undefined {
  const prefix = call.length - 1;
  if (!call.endsWith("*") || prefix <= KEPT_CHARS) return undefined;
  return `${JSON.stringify(call)}, a prefix of ${prefix} characters before its * (at most ${KEPT_CHARS}: a tool's name over ${TOOL_NAME_CHARS} characters keeps only its first ${KEPT_CHARS}, then a hash); shorten it`;
}

/** Whether `call` names external tools: one, or every one whose name starts with what comes before a final `*`. */
export const isExternalName = (call: string): boolean => /^(mcp__|app__)/.test(call) && !call.slice(0, -1).includes("*");

/**
 * Whether `pattern` (a name, or a prefix ending in `*`, of external tools) covers the external tool `name`; a name is
 * cut as the tool's is, so a rule may give a long one in full.
 */
export const coversExternal = (pattern: string, name: string): boolean =>
  isExternalName(pattern) && (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : cutName(pattern) === name);
