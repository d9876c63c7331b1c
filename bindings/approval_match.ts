// Approval rules matched against one call: which rules apply to its arguments, and the verdict the rules and the
// defaults give it. A path is matched relative to the workspace twice, as written (resolved lexically) and as the file
// system resolves it (host/paths.ts realPath), and the stricter verdict stands; the disk is asked only when a path
// rule could give the real path a stricter verdict than the written one got.
import { coversExternal } from "./external_names.ts";
import { isAbsolute, relative, resolve } from "node:path";
import picomatch from "picomatch";
import { GgError } from "../host/errors.ts";
import type { TouchCheck } from "../host/files.ts";
import { hardLinks, realPath } from "../host/paths.ts";
import { ownFileAsk } from "./approval_own.ts";
import type { ApprovalRule, ApprovalSettings, Configuration, Verdict } from "./capabilities.ts";

/**
 * Who decided a call's verdict: the defaults, a numbered rule, the hook, a person asked, an MCP client asked, the
 * standing answer of a run where no one is asked (gg's --approve, or deny without a terminal), or gg itself (a write
 * of its own configuration, always asked).
 */
export type DecidedBy = "default" | `rule ${number}` | "hook" | "person" | "client" | "standing" | "config";

/** Every named decider (a rule is `rule N`); a record, so a decider added to DecidedBy cannot be missing here. */
const DECIDERS: Record<Exclude<DecidedBy, `rule ${number}`>, true> = { default: true, hook: true, person: true, client: true, standing: true, config: true };

/** Whether `value` names who decided a call, as a recording (a transcript, a journal) may hold it. */
export const isDecidedBy = (value: unknown): value is DecidedBy => typeof value === "string" && (Object.hasOwn(DECIDERS, value) || /^rule \d+$/.test(value));

/** The decision on one call, as every call record carries it. */
export interface Approval {
  verdict: "allow" | "deny";
  by: DecidedBy;
  /** The rule's, the hook's or the person's reason, when one was given. */
  reason?: string;
  /**
   * For a shell call whose rules asked or denied: the part of its command line that did (a command it runs, a file it
   * writes, what gg could not judge).
   */
  part?: string;
  /** Milliseconds the call waited for a person (or a client), when it did. */
  waitedMs?: number;
  /** In a replay: the transcript recorded an allow that the recorded configuration's rules deny, so it was refused. */
  tampered?: true;
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
  /**
   * Only in what a person (or client) is asked: the rule, the default or the hook whose verdict is ask, its reason, and
   * for a shell call the part of its command line that asked (and every part that asked or denied, when there are several).
   */
  asking?: { by: DecidedBy; reason?: string; part?: string; parts?: string[] };
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

/** Each workspace's real path, resolved once. */
const realWorkspaces = new Map<string, string>();

/** `path` as a path rule sees it once the file system resolves it: its real path, relative to the workspace's real path when inside. */
export function realRulePath(path: string, place: Place): string {
  // Not lexically resolved first: `link/..` is the link's target's parent, as the kernel resolves it.
  return realForm(realPath(path.startsWith("/") ? path : `${place.cwd}/${path}`), place);
}

/**
 * The real paths `path` may reach: as gg resolves it, and, for a path through `/proc/self/cwd`, as a command's shell
 * does, whose working directory is `place.cwd` (a redirection's target is judged as write_file's path).
 */
function realRulePaths(path: string, place: Place): string[] {
  const real = realRulePath(path, place);
  const shells = path.replace(/^\/proc\/(self|thread-self)\/cwd(?=\/|$)/, place.cwd);
  return shells === path ? [real] : [real, realRulePath(shells, place)];
}

/** The paths a call names (a batch read: each range's); one that leaves its path out names the working directory. */
function pathsOf(args: Record<string, unknown>): string[] {
  const files = args.files;
  if (Array.isArray(files)) return files.map((file) => String((file as { path?: unknown } | null)?.path ?? "."));
  return [typeof args[PATH] === "string" ? args[PATH] : "."];
}

/** The calls that read a file: their rules judge the path of a call that walks too, and what it shows. */
export const READ_CALLS: readonly string[] = ["read_file", "read", "view_image"];

/** Whether `rule` is for `call`: named by it, "*", a name or prefix of external tools covering it, or, for a call that walks or reads what it edits, a call that reads. */
export const ruleFor = (rule: ApprovalRule, call: CallTraits): boolean => rule.call === call.name || rule.call === "*" || coversExternal(rule.call, call.name) || ((call.walks === true || call.reads === true) && READ_CALLS.includes(rule.call));

/** Whether `rule` applies to call `call` with `args` (a call with one path, as rules see it). */
export function applies(rule: ApprovalRule, call: CallTraits, args: Record<string, unknown>, path: string | undefined): boolean {
  if (!ruleFor(rule, call)) return false;
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
  /** For a shell call: the part of its command line the verdict is about (see {@link Approval.part}). */
  part?: string;
  /** For a shell call that is not allowed, when several parts of its command line ask or deny: each, in the order it runs them. */
  parts?: string[];
}

/** The strictest verdict of `rules` (numbered from `first`) that apply, or undefined when none does. */
function strictestRule(rules: readonly ApprovalRule[], first: number, call: CallTraits, args: Record<string, unknown>, path: string | undefined): RuleVerdict | undefined {
  let found: RuleVerdict | undefined;
  rules.forEach((rule, index) => {
    if (!applies(rule, call, args, path) || (found && !stricter(rule.verdict, found.verdict))) return;
    found = { verdict: rule.verdict, by: `rule ${first + index}`, ...(rule.reason === undefined ? {} : { reason: rule.reason }) };
  });
  return found;
}

/** One level's verdict: its rules', else its default (ask applies to calls with effects only). */
function levelVerdict(settings: ApprovalSettings, first: number, call: CallTraits, args: Record<string, unknown>, path: string | undefined): RuleVerdict | undefined {
  return strictestRule(settings.rules, first, call, args, path) ?? (settings.default === "ask" && call.effects ? { verdict: "ask", by: "default" } : undefined);
}

/** What rules need to know of a call: its tool name, whether it has effects, whether it names paths. */
export interface CallTraits {
  name: string;
  effects: boolean;
  /** It takes a "path" (or, a batch read, "files" with a path each). */
  paths: boolean;
  /** It walks a directory (search, tree, list_dir, list, glob): the read calls' rules judge its path too. */
  walks?: boolean;
  /** It reads the file it edits and tells of its content (edit_file, edit): the read calls' rules judge it too. */
  reads?: boolean;
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

/** `b` when it decides over `a`: stricter, or as strict and given by a rule where `a` was the defaults'. */
const over = (a: RuleVerdict, b: RuleVerdict | undefined): RuleVerdict =>
  b && (stricter(b.verdict, a.verdict) || (b.verdict === a.verdict && a.by === "default" && b.by !== "default")) ? b : a;

/** The strictest verdict of both levels over `paths` (as rules see them), from `decided` on. */
function verdictOver(config: Configuration, call: CallTraits, args: Record<string, unknown>, paths: readonly (string | undefined)[], decided: RuleVerdict): RuleVerdict {
  const top = config.approvals ?? NO_RULES;
  const agent = config.agentApproval;
  for (const path of paths) {
    decided = over(decided, levelVerdict(top, 1, call, args, path));
    if (agent) decided = over(decided, levelVerdict(agent, top.rules.length + 1, call, args, path));
  }
  return decided;
}

/** The strictest verdict a path could get `call` under `config` (its path rules', and the defaults'), with who gives it, known once. */
const ceilings = new WeakMap<Configuration, Map<string, RuleVerdict>>();
function ceilingOf(config: Configuration, call: CallTraits): RuleVerdict {
  let known = ceilings.get(config);
  if (!known) ceilings.set(config, (known = new Map()));
  const key = `${call.name} ${call.effects} ${call.walks === true} ${call.reads === true}`;
  let ceiling = known.get(key);
  if (ceiling === undefined) {
    ceiling = ALLOWED;
    let number = 1;
    for (const level of [config.approvals, config.agentApproval]) {
      if (level?.default === "ask" && call.effects && stricter("ask", ceiling.verdict)) ceiling = { verdict: "ask", by: "default" };
      for (const rule of level?.rules ?? []) {
        const by: DecidedBy = `rule ${number++}`;
        if (rule.when !== undefined && PATH in rule.when && ruleFor(rule, call) && stricter(rule.verdict, ceiling.verdict)) ceiling = { verdict: rule.verdict, by, ...(rule.reason === undefined ? {} : { reason: rule.reason }) };
      }
    }
    known.set(key, ceiling);
  }
  return ceiling;
}

/** The ask on a file with `links` names (hard links): another may lie where `ceiling`'s rule forbids, and no name shows where. */
const linked = (path: string, links: number, ceiling: RuleVerdict): RuleVerdict => ({
  verdict: "ask",
  by: ceiling.by,
  reason: `${path} has ${links} names (hard links), and gg cannot see where the others lie: ${ceiling.by === "default" ? 'approvalDefault "ask"' : ceiling.by}${ceiling.reason ? ` (${ceiling.reason})` : ""} could apply to one of them`,
});

/** `real` (a real path) as a path rule sees it: relative to the workspace's real path when inside. */
function realForm(real: string, place: Place): string {
  let workspace = realWorkspaces.get(place.workspace);
  if (workspace === undefined) realWorkspaces.set(place.workspace, (workspace = realPath(place.workspace)));
  return rulePath(real, { workspace, cwd: workspace });
}

/**
 * What the rules and defaults say of call `call` with `args`: the top level's verdict and the agent's (numbered on
 * from the top level's), the stricter of the two, so an agent's entry can only add restrictions; a call naming several
 * paths gets the strictest of its paths' verdicts, each path judged as written and as the file system resolves it. A
 * write of one of gg's own files is asked at least (approval_own.ts).
 */
export function ruleVerdict(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place): RuleVerdict {
  const judgesPaths = call.paths && usesPaths(config);
  const writes = call.paths && call.effects;
  const given = judgesPaths || writes ? pathsOf(args) : [];
  let decided = verdictOver(config, call, args, judgesPaths ? given.map((path) => rulePath(path, place)) : [undefined], ALLOWED);
  // Only a rule (or a default) stricter than the written paths' verdict can make the real paths, and the links, matter.
  const ceiling = judgesPaths ? ceilingOf(config, call) : ALLOWED;
  if (stricter(ceiling.verdict, decided.verdict)) {
    decided = verdictOver(config, call, args, given.flatMap((path) => realRulePaths(path, place)), decided);
    for (const path of given) {
      const links = hardLinks(path.startsWith("/") ? path : `${place.cwd}/${path}`);
      if (links > 1 && stricter(ceiling.verdict, decided.verdict)) decided = over(decided, linked(path, links, ceiling));
    }
  }
  if (!writes || decided.verdict === "deny") return decided;
  // A write of gg's own files is asked whatever the rules allow, with the reason saying why.
  return ownFileAsk(config, given, place) ?? decided;
}

/** Verdicts a call runs under: allowed by the rules (or a hook), or asked and allowed by someone. */
const ASKED: readonly DecidedBy[] = ["person", "client", "standing"];

/**
 * The check of what call `call` (with `args`, from `place`) touches as it runs, under `config`'s path rules: the real
 * path it reaches and its hard links judged again, and the call refused where they are stricter than what it was
 * allowed under (the rules' allow, or an ask someone allowed). Undefined where no path rule could make them so.
 */
export function touchCheck(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place, approval: Approval): TouchCheck | undefined {
  if (!call.paths || call.walks === true || !usesPaths(config)) return undefined;
  const allowed: Verdict = ASKED.includes(approval.by) ? "ask" : "allow";
  const ceiling = ceilingOf(config, call);
  if (!stricter(ceiling.verdict, allowed)) return undefined;
  return ({ real, links }) => {
    let touched = verdictOver(config, call, args, [realForm(real, place)], ALLOWED);
    if (links > 1) touched = over(touched, linked(real, links, ceiling));
    if (!stricter(touched.verdict, allowed)) return;
    const said = `${touched.by === "default" ? "approvalDefault" : touched.by} ${touched.verdict === "deny" ? "denies" : "asks about"} it${touched.reason ? ` (${touched.reason})` : ""}`;
    throw new GgError("denied", `Cannot run ${call.name}: the file it reaches now is ${real}, and ${said}: its path changed after the call was judged, or it has names elsewhere; nothing of it ran; do the task another way`);
  };
}
