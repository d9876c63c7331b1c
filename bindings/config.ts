// The capability configuration: which calls exist for a run and which implementation each one uses.
// A configuration gg cannot honour exactly as written is refused whole, naming every bad value at once.
import { BATCH, CAPABILITIES, type Capability, type CapabilityId, type Configuration, type GgModule, OPENING_MODULES, PARAM_KINDS, type ParamKind } from "./capabilities.ts";
import { CALLS } from "./calls.ts";
import { APPROVAL_FIELDS, checkApprovalSettings } from "./approval_rules.ts";
import { offeredBy } from "./define.ts";
import { MAX_RANGE_LINES } from "./batch.ts";
import { TREE_DEFAULT_DEPTH, TREE_MAX_DEPTH } from "./tree.ts";
import { checkMcpServers } from "./mcp_config.ts";
import { externalNameProblem, isExternalName } from "./external_names.ts";
import { checkSandboxParams } from "./sandbox.ts";

export { CAPABILITIES, type Capability, type CapabilityEntry, type CapabilityId, type Configuration } from "./capabilities.ts";

/** The params of a fresh configuration. */
const DEFAULT_PARAMS: Record<string, number> = { lineCap: 2000, maxLines: 200, maxChars: 8000 };
/**
 * The largest shell ceilings served: the tail is tracked line by line within them, and inline output stops at
 * 16 KiB whatever they say, so a larger one would only cost memory.
 */
const MAX_PARAMS: Record<string, number> = { maxLines: 1_000_000, maxChars: 1_000_000 };

/** The refusal of a configuration, listing every value that cannot be honoured. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Cannot use this configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}


const ids = Object.keys(CAPABILITIES) as CapabilityId[];

/** Tokens the opening turn's tree may take by default: small, since every request of a code agent carries it. */
export const OPENING_TREE_TOKENS = 200;

/**
 * A fresh configuration: every capability enabled, read-file on default-cap with a lineCap of 2000, shell on
 * offload with maxLines 200 and maxChars 8000 and no sandbox.
 */
export function defaultConfiguration(): Configuration {
  const capabilities = {} as Record<CapabilityId, Capability>;
  for (const id of ids) {
    const params: readonly string[] = CAPABILITIES[id].params;
    capabilities[id] = {
      enabled: true,
      implementation: CAPABILITIES[id].implementations[0],
      params: Object.fromEntries(params.filter((name) => PARAM_KINDS[name] === "count").map((name) => [name, DEFAULT_PARAMS[name]])),
    };
  }
  return { capabilities, vision: true, agents: {}, openingTurn: { treeDepth: TREE_DEFAULT_DEPTH, treeTokens: OPENING_TREE_TOKENS, modules: ["files", "shell"] } };
}

/** True for a configuration already parsed (every capability present with its settings), not a file's raw form. */
export function isConfiguration(value: unknown): value is Configuration {
  if (!isRecord(value) || typeof value.vision !== "boolean" || !isRecord(value.capabilities)) return false;
  const capabilities = value.capabilities;
  return isRecord(value.agents) && isRecord(value.openingTurn) && ids.every((id) => isRecord(capabilities[id]) && typeof capabilities[id].enabled === "boolean");
}

/**
 * The configuration as agent `agent` sees it: only the calls its allowlist names, when the file gives it one; an agent
 * without an entry, or no agent, gets every enabled call.
 */
export function forAgent(config: Configuration, agent: string | undefined): Configuration {
  if (agent === undefined || !Object.hasOwn(config.agents, agent)) return config;
  const approval = config.agentApprovals && Object.hasOwn(config.agentApprovals, agent) ? config.agentApprovals[agent] : undefined;
  return { ...config, allow: config.agents[agent], ...(approval ? { agentApproval: approval } : {}) };
}

/** Checks the "openingTurn" field; every bad value lands in `problems`. */
function checkOpeningTurn(input: unknown, problems: string[]): Configuration["openingTurn"] {
  const turn = { ...defaultConfiguration().openingTurn };
  if (!isRecord(input)) {
    problems.push(`"openingTurn" must be an object like {"treeDepth": 2, "treeTokens": ${OPENING_TREE_TOKENS}, "modules": ["files", "shell"]}`);
    return turn;
  }
  const fields = ["treeDepth", "treeTokens", "modules"];
  for (const key of Object.keys(input)) if (!fields.includes(key)) problems.push(`"openingTurn" has an unknown field "${key}"; its fields are ${quote(fields)}`);
  const { treeDepth, treeTokens, modules } = input;
  if (treeDepth !== undefined) {
    if (typeof treeDepth === "number" && Number.isInteger(treeDepth) && treeDepth >= 1 && treeDepth <= TREE_MAX_DEPTH) turn.treeDepth = treeDepth;
    else problems.push(`"openingTurn.treeDepth" is ${show(treeDepth)}; it must be a whole number from 1 to ${TREE_MAX_DEPTH}`);
  }
  if (treeTokens !== undefined) {
    if (typeof treeTokens === "number" && Number.isSafeInteger(treeTokens) && treeTokens >= 0) turn.treeTokens = treeTokens;
    else problems.push(`"openingTurn.treeTokens" is ${show(treeTokens)}; it must be a whole number of tokens, 0 for no tree`);
  }
  if (modules !== undefined) {
    const known: readonly string[] = OPENING_MODULES;
    if (!Array.isArray(modules)) problems.push(`"openingTurn.modules" is ${show(modules)}; it must be an array of modules, e.g. ["files", "shell"], or [] for none`);
    else {
      for (const module of modules) if (typeof module !== "string" || !known.includes(module)) problems.push(`"openingTurn.modules" has unknown module ${show(module)}; the modules are ${quote(known)}`);
      turn.modules = [...new Set(modules.filter((module): module is GgModule => known.includes(module)))];
    }
  }
  return turn;
}

/** Checks the "agents" field against the parsed capabilities; every bad value lands in `problems`. */
function checkAgents(input: unknown, config: Configuration, problems: string[]): Pick<Configuration, "agents" | "agentApprovals"> {
  // No prototype: an agent may be called "constructor" or "__proto__" like any other.
  const agents: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  const agentApprovals: NonNullable<Configuration["agentApprovals"]> = Object.create(null) as NonNullable<Configuration["agentApprovals"]>;
  if (!Array.isArray(input)) {
    problems.push(`"agents" must be an array of entries like {"id": "reviewer", "allow": ["read_file", "search"]}`);
    return { agents, agentApprovals };
  }
  // A name may be declared twice (search: classic and batch), each offered under its own implementations.
  const calls = new Map<string, (typeof CALLS)[number][]>();
  for (const call of CALLS) calls.set(call.name, [...(calls.get(call.name) ?? []), call]);
  const fields = ["id", "allow", ...APPROVAL_FIELDS];
  input.forEach((entry, index) => {
    const where = `agent #${index + 1}`;
    if (!isRecord(entry)) return problems.push(`${where} must be an object like {"id": "reviewer", "allow": ["read_file", "search"]}`);
    for (const key of Object.keys(entry)) if (!fields.includes(key)) problems.push(`${where} has an unknown field "${key}"; the fields are ${quote(fields)}`);
    const { id, allow } = entry;
    const name = typeof id === "string" && id !== "" ? `agent "${id}"` : where;
    if (typeof id !== "string" || id === "") problems.push(`${where} has id ${show(id)}; an agent id is a non-empty string`);
    else if (Object.hasOwn(agents, id)) problems.push(`${name} is listed more than once; keep one entry`);
    const approvals = checkApprovalSettings(entry, name, config, problems);
    // An entry with approvals alone holds every call: its allowlist is every call's name.
    if (allow === undefined && approvals) {
      if (typeof id === "string" && id !== "" && !Object.hasOwn(agents, id)) {
        agents[id] = [...calls.keys(), "mcp__*", "app__*"];
        agentApprovals[id] = approvals;
      }
      return;
    }
    if (!Array.isArray(allow)) return problems.push(`${name} has allow ${show(allow)}; it must be an array of call names, e.g. ["read_file", "search"]`);
    for (const call of allow) checkAllowed(call, name, calls, config, problems);
    if (typeof id === "string" && id !== "" && !Object.hasOwn(agents, id)) {
      agents[id] = allow.filter((call): call is string => typeof call === "string");
      if (approvals) agentApprovals[id] = approvals;
    }
  });
  return { agents, agentApprovals };
}

/** Checks one call of agent `name`'s allowlist: declared, enabled, and offered by its capability's implementation. */
function checkAllowed(call: unknown, name: string, calls: Map<string, (typeof CALLS)[number][]>, config: Configuration, problems: string[]): void {
  // Other servers' tools are known once they are listed: an allowlist names them (or a prefix of them) unchecked.
  if (typeof call === "string" && isExternalName(call)) {
    const long = externalNameProblem(call);
    if (long) problems.push(`${name} allows ${long}`);
    return;
  }
  const declared = typeof call === "string" ? calls.get(call) : undefined;
  if (declared === undefined) {
    problems.push(`${name} allows unknown call ${show(call)}; the calls are ${quote([...calls.keys()])}`);
    return;
  }
  const capability = declared[0]?.capability as CapabilityId;
  const { enabled, implementation } = config.capabilities[capability];
  // An unknown implementation is refused already; what it would offer is not known.
  const known = (CAPABILITIES[capability].implementations as readonly string[]).includes(implementation);
  if (!enabled) problems.push(`${name} allows ${String(call)}, whose capability "${capability}" is disabled; enable it or drop ${String(call)}`);
  else if (known && !declared.some((definition) => offeredBy(definition, implementation))) {
    const offered = CALLS.filter((definition) => definition.capability === capability && offeredBy(definition, implementation)).map((definition) => definition.name);
    problems.push(`${name} allows ${String(call)}, which capability "${capability}" does not offer under implementation "${implementation}" (it offers ${quote(offered)}); drop ${String(call)} or change the implementation`);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const quote = (values: readonly string[]): string => values.map((v) => `"${v}"`).join(", ");
/** A value as the configuration wrote it, as near as parsed JSON allows (1e400 parses to Infinity, not null). */
export const show = (value: unknown): string => (typeof value === "number" ? String(value) : JSON.stringify(value));

/** Checks a param that is not a count (PARAM_KINDS): a choice of words, true or false, or a list of folders. */
function checkParam(name: string, key: string, value: unknown, kind: Exclude<ParamKind, "count">, problems: string[]): void {
  if (value === undefined) return;
  if (Array.isArray(kind)) {
    if (!kind.includes(value as string)) problems.push(`${name} has ${key} ${show(value)}; it is one of ${quote(kind)}`);
  } else if (kind === "boolean") {
    if (typeof value !== "boolean") problems.push(`${name} has ${key} ${show(value)}; use true or false`);
  } else if (!Array.isArray(value)) {
    problems.push(`${name} has ${key} ${show(value)}; it must be an array of folders, e.g. ["/root/.cache"], absolute, under "~/", or relative to the workspace`);
  } else {
    for (const folder of value) {
      if (typeof folder !== "string" || folder.trim() === "" || folder.includes("\0")) problems.push(`${name} has ${key} entry ${show(folder)}; each entry is a folder path, e.g. "/root/.cache"`);
    }
  }
}

/** Checks a count param: a whole number, 1 or more, within what gg serves; required when `required`. */
function checkCount(name: string, key: string, value: unknown, implementation: unknown, required: boolean, problems: string[]): void {
  if (value === undefined) {
    if (required) problems.push(`${name} has no params.${key}; set it to a whole number, 1 or more (e.g. ${DEFAULT_PARAMS[key]})`);
  } else if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    problems.push(`${name} has ${key} ${show(value)}; it must be a whole number, 1 or more`);
  } else if (value > (MAX_PARAMS[key] ?? Number.POSITIVE_INFINITY)) {
    problems.push(`${name} has ${key} ${show(value)}; the most gg serves is ${MAX_PARAMS[key]} (inline output stops at 16 KiB in any case)`);
  } else if (key === "lineCap" && implementation === BATCH && value > MAX_RANGE_LINES) {
    problems.push(`${name} has lineCap ${show(value)} under batch, where it is the default lines per range; a range holds at most ${MAX_RANGE_LINES} lines (e.g. 200)`);
  }
}

/**
 * Checks an implementation and its params against a capability's: every bad value lands in `problems`, each named
 * with `name` (e.g. `capability "shell"`). Counts are required when `required` (an enabled capability). `allowed` are
 * the params this entry may write (default: all of the capability's; a command hook's output mode: the ceilings).
 */
export function checkImplementation(id: CapabilityId, name: string, entry: { implementation?: unknown; params?: unknown }, required: boolean, problems: string[], allowed: readonly string[] = CAPABILITIES[id].params): Capability | undefined {
  const spec = CAPABILITIES[id];
  const implementations: readonly string[] = spec.implementations;
  const implementation = entry.implementation === undefined ? implementations[0] : entry.implementation;
  if (typeof implementation !== "string" || !implementations.includes(implementation)) {
    problems.push(`${name} has unknown implementation ${show(entry.implementation)}; the implementations are ${quote(implementations)}`);
  }
  const params = entry.params ?? {};
  if (!isRecord(params)) {
    problems.push(`${name} has params ${show(params)}; params must be an object`);
    return undefined;
  }
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) problems.push(`${name} has an unknown param "${key}"; ${allowed.length ? `its params are ${quote(allowed)}` : "it takes no params"}`);
  }
  for (const key of allowed) {
    const kind = PARAM_KINDS[key] ?? "count";
    if (kind === "count") checkCount(name, key, params[key], implementation, required, problems);
    else checkParam(name, key, params[key], kind, problems);
  }
  if (allowed.includes("sandbox")) checkSandboxParams(name, params, problems);
  return { enabled: true, implementation: String(implementation), params };
}

function checkEntry(entry: unknown, index: number, seen: Set<string>, problems: string[]): Capability | undefined {
  const where = `capability #${index + 1}`;
  if (!isRecord(entry)) {
    problems.push(`${where} must be an object like {"id": "read-file", "enabled": true}`);
    return undefined;
  }
  const known = new Set(["id", "enabled", "implementation", "params"]);
  for (const key of Object.keys(entry)) if (!known.has(key)) problems.push(`${where} has an unknown field "${key}"; the fields are ${quote([...known])}`);
  const { id } = entry;
  if (typeof id !== "string" || !(id in CAPABILITIES)) {
    problems.push(`${where} has unknown id ${show(id)}; the capabilities are ${quote(ids)}`);
    return undefined;
  }
  const name = `capability "${id}"`;
  if (seen.has(id)) problems.push(`${name} is listed more than once; keep one entry`);
  seen.add(id);
  if (entry.enabled !== undefined && typeof entry.enabled !== "boolean") problems.push(`${name} has enabled ${show(entry.enabled)}; use true or false`);
  const enabled = entry.enabled !== false;
  const capability = checkImplementation(id as CapabilityId, name, entry, enabled, problems);
  return capability && { ...capability, enabled };
}

/** What the configuration says of the model: whether it sees pictures, whether its requests mark cache breakpoints. */
function parseModel(model: unknown, config: Configuration, problems: string[]): void {
  if (!isRecord(model)) {
    problems.push(`"model" must be an object like {"vision": false}`);
    return;
  }
  const fields = ["vision", "cacheMarks"];
  for (const key of Object.keys(model)) if (!fields.includes(key)) problems.push(`"model" has an unknown field "${key}"; its fields are ${quote(fields)}`);
  for (const field of fields) {
    const value = model[field];
    if (value !== undefined && typeof value !== "boolean") problems.push(`"model.${field}" is ${show(value)}; use true or false`);
  }
  if (model.vision === false) config.vision = false;
  if (typeof model.cacheMarks === "boolean") config.cacheMarks = model.cacheMarks;
}

/**
 * Validates a configuration: either an array of capability entries, or an object
 * `{"capabilities": [...], "model": {"vision": false}, "agents": [{"id": "reviewer", "allow": ["read_file"]}]}`, with
 * approval settings ("approvals", "approvalDefault", "approvalHook", "approvalTimeoutSecs") at the top level and in
 * agents' entries.
 * Capabilities it does not list keep their fresh defaults.
 * Throws {@link ConfigError} naming every problem.
 */
export function parseConfiguration(input: unknown): Configuration {
  const config = defaultConfiguration();
  const problems: string[] = [];
  let entries: unknown = input;
  const fields = ["capabilities", "model", "agents", "openingTurn", "mcpServers", ...APPROVAL_FIELDS];
  if (isRecord(input)) {
    for (const key of Object.keys(input)) {
      if (!fields.includes(key)) problems.push(`the configuration has an unknown field "${key}"; the fields are ${quote(fields)}`);
    }
    entries = input.capabilities ?? [];
    parseModel(input.model ?? {}, config, problems);
  }
  if (!Array.isArray(entries)) {
    throw new ConfigError([...problems, "the capabilities must be a JSON array of entries like {\"id\": \"read-file\", \"enabled\": true}"]);
  }
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const capability = checkEntry(entry, index, seen, problems);
    if (capability && isRecord(entry)) config.capabilities[entry.id as CapabilityId] = capability;
  });
  // Agents are checked against the capabilities as parsed: an allowlist may not name a disabled call.
  if (isRecord(input) && input.agents !== undefined) {
    const { agents, agentApprovals } = checkAgents(input.agents, config, problems);
    config.agents = agents;
    if (Object.keys(agentApprovals ?? {}).length > 0) config.agentApprovals = agentApprovals;
  }
  const approvals = isRecord(input) ? checkApprovalSettings(input, "", config, problems) : undefined;
  if (approvals) config.approvals = approvals;
  if (isRecord(input) && input.openingTurn !== undefined) config.openingTurn = checkOpeningTurn(input.openingTurn, problems);
  if (isRecord(input) && input.mcpServers !== undefined) config.mcpServers = checkMcpServers(input.mcpServers, '"mcpServers"', problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * `config` with the servers of an --mcp-config file's JSON (`{"mcpServers": {...}}`, as .mcp.json and Claude Desktop
 * write it; its other fields are the client's own and left alone) added; a server named twice is refused.
 * Throws {@link ConfigError} naming every problem.
 */
export function withMcpConfig(config: Configuration, json: unknown, file: string): Configuration {
  const problems: string[] = [];
  if (!isRecord(json) || json.mcpServers === undefined) throw new ConfigError([`${file} has no "mcpServers"; an MCP configuration is {"mcpServers": {"name": {"command": "...", "args": [...]}}}`]);
  const added = checkMcpServers(json.mcpServers, `"mcpServers" of ${file}`, problems);
  const servers = Object.assign(Object.create(null) as Record<string, NonNullable<Configuration["mcpServers"]>[string]>, config.mcpServers);
  for (const [name, entry] of Object.entries(added)) {
    if (Object.hasOwn(servers, name)) problems.push(`MCP server ${JSON.stringify(name)} is configured in both --config and ${file}; keep one entry`);
    servers[name] = entry;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...config, mcpServers: servers };
}
