// Approval settings as a configuration writes them (top level or an agent's entry), checked against the calls gg
// declares: every bad rule is named at once, as the configuration's other refusals are.
import { externalNameProblem, isExternalName } from "./external_names.ts";
import { globMatcher } from "./approval_match.ts";
import { type ApprovalRule, type ApprovalSettings, type Configuration, VERDICTS } from "./capabilities.ts";
import { CALLS } from "./calls.ts";

/** The approval fields of the configuration's top level and of an agent's entry. */
export const APPROVAL_FIELDS = ["approvals", "approvalDefault", "approvalHook", "approvalTimeoutSecs"] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const show = (value: unknown): string => (typeof value === "number" ? String(value) : JSON.stringify(value));
const quote = (values: Iterable<string>): string => [...values].map((v) => `"${v}"`).join(", ");
const isSeconds = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value > 0 && value <= 24 * 3600;

/** The arguments a rule's `when` may name, per call name: its string arguments, and "path" for a batch read's ranges. */
function matchableArguments(config: Configuration): Map<string, Set<string>> {
  const calls = new Map<string, Set<string>>();
  for (const call of CALLS) {
    const properties = (call.parameters(config) as { properties?: Record<string, { type?: string }> }).properties ?? {};
    const names = calls.get(call.name) ?? new Set<string>();
    for (const [name, schema] of Object.entries(properties)) {
      if (schema.type === "string") names.add(name);
      if (name === "files") names.add("path");
    }
    calls.set(call.name, names);
  }
  return calls;
}

/** Why `glob` cannot be a glob of argument `name`, or undefined when it can. */
function badGlob(name: string, glob: unknown): string | undefined {
  if (typeof glob !== "string" || glob.trim() === "") return "is not a non-empty string";
  if (name === "path") {
    if (glob.startsWith("./")) return `starts with "./"; path globs are matched against workspace-relative paths, so write ${show(glob.slice(2))}`;
    if (glob.split("/").includes("..")) return 'has a ".." segment; a path outside the workspace is matched as an absolute path, so write an absolute glob (e.g. "/etc/**")';
  }
  try {
    globMatcher(name, glob);
    return undefined;
  } catch (error) {
    return `cannot be read as a glob (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** Checks one rule; its problems name it by `name`. */
function checkRule(input: unknown, name: string, calls: Map<string, Set<string>>, problems: string[]): ApprovalRule | undefined {
  const example = '{"call": "shell", "when": {"command": "git push*"}, "verdict": "deny", "reason": "pushing is for people"}';
  if (!isRecord(input)) {
    problems.push(`${name} must be an object like ${example}`);
    return undefined;
  }
  const before = problems.length;
  const fields = ["call", "when", "verdict", "reason"];
  for (const key of Object.keys(input)) if (!fields.includes(key)) problems.push(`${name} has an unknown field "${key}"; its fields are ${quote(fields)}`);
  const { call, when, verdict, reason } = input;
  // An external tool's arguments are its server's to check: a rule naming one takes any argument.
  const external = typeof call === "string" && isExternalName(call);
  const known = typeof call === "string" && (call === "*" || calls.has(call) || external);
  if (!known) problems.push(`${name} names unknown call ${show(call)}; name a tool (${quote(calls.keys())}), an MCP server's (mcp__server__tool, mcp__server__*) or "*" for every call`);
  const long = external ? externalNameProblem(call) : undefined;
  if (long) problems.push(`${name} names ${long}`);
  if (!(VERDICTS as readonly unknown[]).includes(verdict)) problems.push(`${name} has verdict ${show(verdict)}; the verdicts are ${quote(VERDICTS)}`);
  if (reason !== undefined && typeof reason !== "string") problems.push(`${name} has reason ${show(reason)}; a reason is a string`);
  if (when !== undefined && !isRecord(when)) problems.push(`${name} has when ${show(when)}; it must be an object of argument globs, e.g. {"path": "src/**"}`);
  if (isRecord(when)) {
    for (const [argument, glob] of Object.entries(when)) {
      const takes = call === "*" ? [...calls.values()].some((names) => names.has(argument)) : known && calls.get(call as string)?.has(argument);
      if (known && !external && !takes) {
        const own = call === "*" ? new Set([...calls.values()].flatMap((names) => [...names])) : (calls.get(call as string) ?? new Set());
        problems.push(`${name} matches argument "${argument}", which ${call === "*" ? "no call" : String(call)} takes as a string; ${call === "*" ? "the calls'" : "its"} string arguments are ${quote(own)}`);
      }
      const bad = badGlob(argument, glob);
      if (bad) problems.push(`${name} has a glob for "${argument}" that ${bad}`);
    }
  }
  if (problems.length > before) return undefined;
  return { call: call as string, ...(when === undefined ? {} : { when: when as Record<string, string> }), verdict: verdict as ApprovalRule["verdict"], ...(reason === undefined ? {} : { reason: reason as string }) };
}

/**
 * Checks the approval fields of `entry` (the configuration's top level, or an agent's entry, named by `where`):
 * undefined when it has none. Every bad value lands in `problems`.
 */
export function checkApprovalSettings(entry: Record<string, unknown>, where: string, config: Configuration, problems: string[]): ApprovalSettings | undefined {
  if (!APPROVAL_FIELDS.some((field) => entry[field] !== undefined)) return undefined;
  const at = (field: string): string => (where === "" ? `"${field}"` : `${where}'s "${field}"`);
  const settings: { rules: ApprovalRule[] } & Omit<ApprovalSettings, "rules"> = { rules: [] };
  const { approvals, approvalDefault, approvalHook, approvalTimeoutSecs } = entry;
  if (approvals !== undefined) {
    if (!Array.isArray(approvals)) problems.push(`${at("approvals")} must be an array of rules like {"call": "write_file", "when": {"path": "src/**"}, "verdict": "allow"}`);
    else {
      const calls = matchableArguments(config);
      approvals.forEach((input, index) => {
        const rule = checkRule(input, `${at("approvals")} rule #${index + 1}`, calls, problems);
        if (rule) settings.rules.push(rule);
      });
    }
  }
  if (approvalDefault !== undefined) {
    if (approvalDefault === "allow" || approvalDefault === "ask") settings.default = approvalDefault;
    else problems.push(`${at("approvalDefault")} is ${show(approvalDefault)}; it is "allow" (calls with effects run unless a rule says otherwise) or "ask"`);
  }
  if (approvalHook !== undefined) {
    const example = '{"command": "./approve.sh", "timeoutSecs": 10}';
    if (!isRecord(approvalHook)) problems.push(`${at("approvalHook")} must be an object like ${example}`);
    else {
      for (const key of Object.keys(approvalHook)) if (key !== "command" && key !== "timeoutSecs") problems.push(`${at("approvalHook")} has an unknown field "${key}"; its fields are "command", "timeoutSecs"`);
      const { command, timeoutSecs } = approvalHook;
      if (typeof command !== "string" || command.trim() === "") problems.push(`${at("approvalHook")} has command ${show(command)}; it must be a command line, e.g. ${example}`);
      if (timeoutSecs !== undefined && !isSeconds(timeoutSecs)) problems.push(`${at("approvalHook")} has timeoutSecs ${show(timeoutSecs)}; it must be a positive number of seconds, at most 86400`);
      if (typeof command === "string" && command.trim() !== "") settings.hook = { command, ...(isSeconds(timeoutSecs) ? { timeoutSecs } : {}) };
    }
  }
  if (approvalTimeoutSecs !== undefined) {
    if (isSeconds(approvalTimeoutSecs)) settings.timeoutSecs = approvalTimeoutSecs;
    else problems.push(`${at("approvalTimeoutSecs")} is ${show(approvalTimeoutSecs)}; it must be a positive number of seconds, at most 86400 (default 300)`);
  }
  return settings;
}
