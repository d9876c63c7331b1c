// Approval rules matched against one call: which rules apply to its arguments, and the verdict the rules and the
// defaults give it. Pure: no process, no disk. Paths are resolved lexically and matched relative to the workspace.
import { isAbsolute, relative, resolve } from "node:path";
import picomatch from "picomatch";
import type { ApprovalRule, ApprovalSettings, Configuration, Verdict } from "./capabilities.ts";

/**
 * Who decided a call's verdict: the defaults, a numbered rule, the hook, a person asked, an MCP client asked, or the
 * standing answer of a run where no one is asked (gg's --approve, or deny without a terminal).
 */
export type DecidedBy = "default" | `rule ${number}` | "hook" | "person" | "client" | "standing";

/** The decision on one call, as every call record carries it. */
export interface Approval {
  verdict: "allow" | "deny";
  by: DecidedBy;
  /** The rule's, the hook's or the person's reason, when one was given. */
  reason?: string;
  /** Milliseconds the call waited for a person (or a client), when it did. */
  waitedMs?: number;
}

/** What the hook and a person asked receive about a call. */
export interface ApprovalRequest {
  agent: string;
  /** The tool name, also for a call made from a program (gg.files.writeFile is write_file). */
  call: string;
  args: unknown;
  arm: "tools" | "code";
  from: "tool" | "program";
  runId: string;
  /** The call's number in its run, from 0. */
  seq: number;
  workspace: string;
  /** Only in what a person (or client) is asked: the rule, the default or the hook whose verdict is ask, and its reason. */
  asking?: { by: DecidedBy; reason?: string };
}

/** A person's (or a client's) answer to an ask. */
export interface ApprovalAnswer {
  verdict: Verdict;
  reason?: string;
  /** Who answered: a person (the default) or an MCP client on someone's behalf. */
  by?: "person" | "client" | "standing";
}

/** Asks about a call whose verdict is ask; the call waits, its run's clocks stopped, until it answers. */
export type Approve = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** How a run's calls are put to its approvals: who is asked, and what the hook is told about the run. */
export interface ApprovalContext {
  approve?: Approve;
  arm: "tools" | "code";
  runId: string;
  /** Stops the run's clocks (wall-clock budget, deadline) while a person is asked; returns the function that restarts them. */
  pause?: () => () => void;
}

/**
 * A fresh run id, as the hook and a person asked receive it. Math.random, not node:crypto: loading crypto costs every
 * gg process milliseconds, and the id only tells runs apart.
 */
export const newRunId = (): string => `${Date.now().toString(36)}-${Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, "0")}`;

/** Seconds a call may wait for a person when the configuration names none. */
export const DEFAULT_APPROVAL_TIMEOUT_SECS = 300;
/** Seconds the approval hook may run when it names no timeout. */
export const DEFAULT_HOOK_TIMEOUT_SECS = 30;

const STRICTNESS: Record<Verdict, number> = { allow: 0, ask: 1, deny: 2 };
/** The stricter of two verdicts (deny over ask over allow). */
export const stricter = (a: Verdict, b: Verdict): boolean => STRICTNESS[a] > STRICTNESS[b];

/** The argument every file call names its file by; a batch read names one per range, in `files`. */
const PATH = "path";

/**
 * A matcher for a glob of argument `name`: a path glob (picomatch: `*` within a segment, `**` across, dot files
 * included) for "path"; for any other argument (a command line) the whole value, where `*` crosses `/` and `?` is one
 * character. Throws on a glob that cannot be read (an unclosed bracket or brace).
 */
export function globMatcher(name: string, glob: string): (value: string) => boolean {
  if (name === PATH) return picomatch(glob, { dot: true, strictBrackets: true });
  const pattern = glob.trim().replace(/\s+/g, " ");
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[\\s\\S]*").replaceAll("?", "[\\s\\S]");
  const regex = new RegExp(`^${source}$`);
  // Runs of blanks count as one, so `git  push` is not a way around `git push*`.
  return (value) => regex.test(value.trim().replace(/\s+/g, " "));
}

/** Compiled matchers, built once per rule. */
const compiled = new WeakMap<ApprovalRule, [string, (value: string) => boolean][]>();
const matchersOf = (rule: ApprovalRule): [string, (value: string) => boolean][] => {
  let matchers = compiled.get(rule);
  if (!matchers) compiled.set(rule, (matchers = Object.entries(rule.when ?? {}).map(([name, glob]) => [name, globMatcher(name, glob)])));
  return matchers;
};

/** Where paths resolve: the working directory, and the workspace they are matched relative to. */
export interface Place {
  workspace: string;
  cwd: string;
}

/**
 * `path` as a path rule sees it: relative to the workspace once resolved from `cwd` (`./src/a.ts` and an absolute
 * path inside both become `src/a.ts`, the root itself "."), or absolute when it lies outside.
 */
export function rulePath(path: string, place: Place): string {
  // Already in its resolved form (the common case, spared the resolving).
  if (place.cwd === place.workspace && !path.startsWith("/") && !/(^|\/)\.\.?(\/|$)|\/\/|\/$/.test(path) && path !== "") return path;
  const absolute = resolve(place.cwd, path);
  const inside = relative(place.workspace, absolute);
  if (inside === "") return ".";
  return inside.startsWith("..") || isAbsolute(inside) ? absolute : inside;
}

/** The paths a call names (a batch read: each range's); one that leaves its path out names the working directory. */
function pathsOf(args: Record<string, unknown>): string[] {
  const files = args.files;
  if (Array.isArray(files)) return files.map((file) => String((file as { path?: unknown } | null)?.path ?? "."));
  return [typeof args[PATH] === "string" ? args[PATH] : "."];
}

/** Whether `rule` applies to call `call` with `args` (a call with one path, as rules see it). */
function applies(rule: ApprovalRule, call: string, args: Record<string, unknown>, path: string | undefined): boolean {
  if (rule.call !== call && rule.call !== "*") return false;
  for (const [name, match] of matchersOf(rule)) {
    const value = name === PATH ? path : args[name];
    if (typeof value !== "string" || !match(value)) return false;
  }
  return true;
}

/** A verdict with who gave it. */
export interface RuleVerdict {
  verdict: Verdict;
  by: DecidedBy;
  reason?: string;
}

/** The strictest verdict of `rules` (numbered from `first`) that apply, or undefined when none does. */
function strictestRule(rules: readonly ApprovalRule[], first: number, call: string, args: Record<string, unknown>, path: string | undefined): RuleVerdict | undefined {
  let found: RuleVerdict | undefined;
  rules.forEach((rule, index) => {
    if (!applies(rule, call, args, path) || (found && !stricter(rule.verdict, found.verdict))) return;
    found = { verdict: rule.verdict, by: `rule ${first + index}`, ...(rule.reason === undefined ? {} : { reason: rule.reason }) };
  });
  return found;
}

/** One level's verdict: its rules', else its default (ask applies to calls with effects only). */
function levelVerdict(settings: ApprovalSettings, first: number, call: string, effects: boolean, args: Record<string, unknown>, path: string | undefined): RuleVerdict | undefined {
  return strictestRule(settings.rules, first, call, args, path) ?? (settings.default === "ask" && effects ? { verdict: "ask", by: "default" } : undefined);
}

/** What rules need to know of a call: its tool name, whether it has effects, whether it names paths. */
export interface CallTraits {
  name: string;
  effects: boolean;
  /** It takes a "path" (or, a batch read, "files" with a path each). */
  paths: boolean;
}

const ALLOWED: RuleVerdict = { verdict: "allow", by: "default" };
const NO_RULES: ApprovalSettings = { rules: [] };

/** True when `config` has no approval rule, no hook and no ask by default: every call is allowed at once. */
export const allowsEverything = (config: Configuration): boolean => {
  const { approvals: top, agentApproval: agent } = config;
  const idle = (level: ApprovalSettings | undefined): boolean => level === undefined || (level.rules.length === 0 && level.hook === undefined && level.default !== "ask");
  return idle(top) && idle(agent);
};

/** Whether any rule of `config` matches a path, known once per configuration. */
const pathRules = new WeakMap<Configuration, boolean>();
const usesPaths = (config: Configuration): boolean => {
  let uses = pathRules.get(config);
  if (uses === undefined) {
    uses = [config.approvals, config.agentApproval].some((level) => level?.rules.some((rule) => rule.when !== undefined && PATH in rule.when));
    pathRules.set(config, uses);
  }
  return uses;
};

/**
 * What the rules and defaults say of call `call` with `args`: the top level's verdict and the agent's (numbered on
 * from the top level's), the stricter of the two, so an agent's entry can only add restrictions; a call naming several
 * paths gets the strictest of its paths' verdicts.
 */
export function ruleVerdict(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place): RuleVerdict {
  const { name, effects } = call;
  const top = config.approvals ?? NO_RULES;
  const agent = config.agentApproval;
  const paths = usesPaths(config) && call.paths ? pathsOf(args).map((path) => rulePath(path, place)) : [undefined];
  let decided = ALLOWED;
  for (const path of paths) {
    for (const level of [levelVerdict(top, 1, name, effects, args, path), agent && levelVerdict(agent, top.rules.length + 1, name, effects, args, path)]) {
      if (level && (stricter(level.verdict, decided.verdict) || (level.verdict === decided.verdict && decided.by === "default" && level.by !== "default"))) decided = level;
    }
  }
  return decided;
}
