// The names of external tools as rules and allowlists give them: `mcp__<server>__<tool>`, `app__<name>`, or a prefix of
// one ending in `*` (`mcp__memory__*`, `mcp__*`, `app__*`). Their tools are known only once their servers are listed,
// so a configuration names them unchecked.

/** Whether `call` names external tools: one, or every one whose name starts with what comes before a final `*`. */
export const isExternalName = (call: string): boolean => /^(mcp__|app__)/.test(call) && !call.slice(0, -1).includes("*");

/** Whether `pattern` (a name, or a prefix ending in `*`, of external tools) covers the external tool `name`. */
export const coversExternal = (pattern: string, name: string): boolean =>
  isExternalName(pattern) && (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name);
