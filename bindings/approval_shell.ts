// Rules judging a shell call by what its command line runs: each command it reaches (its words joined by single
// spaces) by the rules for "command", each file a redirection writes by the rules for write_file, the strictest
// verdict standing. What gg cannot judge before the line runs (an expansion, a script read from a pipe, code a
// variable or an option carries, a line that does not parse) is a verdict of its own: the strictest rule that could
// apply to it, or an approvalDefault of ask, turns it into a question, and an allowing rule never covers it. Every
// verdict that is not an allow names the part of the line it is about.
import { dirname } from "node:path";
import { throughProc } from "../host/paths.ts";
import { type ParseShell, loadShellParser, shellParserNow } from "../host/shell_parser.ts";
import { type CallTraits, type DecidedBy, type Place, type RuleVerdict, ruleVerdict, stricter } from "./approval_match.ts";
import { guardsOwnFiles } from "./approval_own.ts";
import type { ApprovalSettings, Configuration } from "./capabilities.ts";
import { type RunWord, type ShellRun, shellRun } from "./shell_commands.ts";

/** The rules that make a shell call's command line worth parsing, known once per configuration. */
interface ShellRules {
  /** Globs of rules for "command" that ask or deny, with the rule each is, the denying ones first. */
  commands: { glob: string; by: DecidedBy }[];
  /** The first rule that asks or denies some write_file call, when one does. */
  writes?: DecidedBy;
  /** approvalDefault is ask (at the top level or the agent's): it asks about what no rule allows. */
  asksByDefault: boolean;
  /** Some rule matches "command" (any verdict) or restricts write_file: the line is parsed. */
  parsed: boolean;
}

const WRITE_FILE: CallTraits = { name: "write_file", effects: true, paths: true };
/** Targets a redirection may name whatever the path rules say: they are no files that hold anything. */
const NO_FILES = new Set(["/dev/null", "/dev/tty"]);
/** Targets that are a descriptor of the command's: no file, unless the line read a file onto one (`1<f > /dev/stdout`). */
const OUTPUTS = new Set(["/dev/stdout", "/dev/stderr"]);
/** A text no literal of a glob matches (only `*` and `?` do): what a word known only at run time stands for. */
const ANY = "\uE000";

const known = new WeakMap<Configuration, ShellRules>();
function shellRules(config: Configuration): ShellRules {
  let rules = known.get(config);
  if (rules) return rules;
  rules = { commands: [], asksByDefault: false, parsed: false };
  const levels = [config.approvals, config.agentApproval].filter((level): level is ApprovalSettings => level !== undefined);
  const denying: { glob: string; by: DecidedBy }[] = [];
  let number = 1;
  for (const level of levels) {
    rules.asksByDefault ||= level.default === "ask";
    for (const rule of level.rules) {
      const by: DecidedBy = `rule ${number++}`;
      const restricts = rule.verdict !== "allow";
      const command = (rule.call === "shell" || rule.call === "*") && rule.when?.command;
      if (command && restricts) (rule.verdict === "deny" ? denying : rules.commands).push({ glob: command, by });
      if ((rule.call === "write_file" || rule.call === "*") && restricts && (rule.when === undefined || "path" in rule.when)) rules.writes ??= by;
      if (command || ((rule.call === "write_file" || rule.call === "*") && restricts)) rules.parsed = true;
    }
  }
  rules.commands.unshift(...denying);
  // gg's own files are asked whatever the rules say, so a redirection that could write one is looked for.
  if (guardsOwnFiles(config)) {
    rules.writes ??= "config";
    rules.parsed = true;
  }
  known.set(config, rules);
  return rules;
}

/** Whether some text starting with `prefix` could match command glob `glob` (`*` any run, `?` one character). */
function couldStart(glob: string, prefix: string): boolean {
  const pattern = glob.trim().replace(/\s+/g, " ");
  const text = prefix.trim().replace(/\s+/g, " ");
  for (let i = 0; i < text.length; i++) {
    const char = pattern[i];
    if (char === "*") return true;
    if (char === undefined || (char !== "?" && char !== text[i])) return false;
  }
  return true;
}

/** `a` or `b`, whichever stands: the stricter, or at the same strictness one a rule gave over a default. */
const stronger = (a: RuleVerdict, b: RuleVerdict): RuleVerdict => (stricter(b.verdict, a.verdict) || (b.verdict === a.verdict && a.by === "default" && b.by !== "default") ? b : a);

/** What asked, in the words of an unjudged verdict's reason. */
const asker = (by: DecidedBy): string => (by === "config" ? "the ask on writes of gg's own configuration" : by === "default" ? 'approvalDefault "ask"' : by);

/** The ask on what cannot be judged before the line runs, by `by`, the strictest rule that could apply to it. */
const unjudged = (by: DecidedBy, why: string, part?: string): RuleVerdict => ({
  verdict: "ask",
  by,
  reason: `gg cannot judge this command line before it runs: ${why}, and ${asker(by)} could apply to it`,
  ...(part === undefined ? {} : { part }),
});

/** `verdict` naming `part` of the line, unless it allows. */
const about = (verdict: RuleVerdict, part: string): RuleVerdict => (verdict.verdict === "allow" ? verdict : { ...verdict, part });

/**
 * The verdict on one command `words` runs: its rules', or, when a word only run time knows could decide it, the
 * question of the strictest rule that could. A rule allowing it holds only when it allows whatever that word
 * becomes: never when the command's name is unknown.
 */
function commandVerdict(words: RunWord[], rules: ShellRules, judge: (command: string) => RuleVerdict): RuleVerdict {
  const command = words.map((word) => word.text).join(" ");
  const at = words.findIndex((word) => word.open !== undefined);
  const open = words[at];
  const part = open?.of ?? command;
  const ruled = about(judge(command), part);
  if (!open) return ruled;
  const why = open.why ?? `${at === 0 ? "the name of" : "a word of"} ${JSON.stringify(command)}, ${JSON.stringify(open.text)}, is known only at run time`;
  const prefix = at === 0 ? "" : [...words.slice(0, at).map((word) => word.text), open.text.slice(0, open.open)].join(" ");
  const rule = rules.commands.find(({ glob }) => couldStart(glob, prefix));
  let verdict = rule ? stronger(ruled, unjudged(rule.by, why, part)) : ruled;
  // An allow a rule gave, or the default's ask, is weighed against what the rules say of the unknown word as text no
  // glob's literal matches: where that is not an allow, the allow does not cover every value, and the question says why.
  // (The default's allow needs no weighing: only a rule that asks or denies, found above, could be stricter.)
  if (ruled.by === "default" ? ruled.verdict === "allow" : ruled.verdict !== "allow") return verdict;
  const unknown = stronger(judge(prefix + ANY), judge(`${prefix}${ANY} ${ANY}`));
  return unknown.verdict === "allow" ? verdict : stronger(unjudged(unknown.by, why, part), verdict);
}

/** The verdict on a file a redirection writes: write_file's on its path, or a question when only run time knows which file it is. */
function writeVerdict(target: RunWord, run: ShellRun, rules: ShellRules, config: Configuration, place: Place): RuleVerdict | undefined {
  if (!rules.writes || NO_FILES.has(target.text)) return undefined;
  const part = `> ${target.text}`;
  const ask = (why: string): RuleVerdict => unjudged(rules.writes as DecidedBy, why, part);
  if (OUTPUTS.has(target.text)) return run.reads.length > 0 ? ask(`the redirection to ${target.text} reopens a descriptor this line reads ${JSON.stringify(run.reads[0]?.text)} onto, writing that file`) : undefined;
  if (target.open !== undefined) return ask(`the file a redirection writes, ${JSON.stringify(target.text)}, is known only at run time`);
  if (run.movesRoot) return ask(`it runs something under another root (chroot), so where the redirection to ${JSON.stringify(target.text)} writes is known only at run time`);
  if (run.movesDir && !target.text.startsWith("/")) return ask(`it changes directory, so where the redirection to ${JSON.stringify(target.text)} writes is known only at run time`);
  const absolute = target.text.startsWith("/") ? target.text : `${place.cwd}/${target.text}`;
  if (throughProc(absolute) || throughProc(dirname(absolute))) return ask(`the redirection to ${JSON.stringify(target.text)} goes through /proc or /dev/fd, whose files are the command's own descriptors and folders, known only at run time`);
  const ruled = ruleVerdict(config, WRITE_FILE, { path: target.text }, place);
  if (ruled.verdict === "allow") return ruled;
  return { ...ruled, reason: `${ruled.reason ? `${ruled.reason}; ` : ""}a redirection writes ${JSON.stringify(target.text)}, judged as write_file would be`, part };
}

/** The strictest rule that could apply to what gg cannot judge of a line: a command rule that asks or denies, a write rule, or the default's ask. */
const lineAsker = (rules: ShellRules): DecidedBy | undefined => rules.commands[0]?.by ?? rules.writes ?? (rules.asksByDefault ? "default" : undefined);

/** The verdict on shell call `call` whose command line runs `run`, naming every part of the line that asks or denies when there are several. */
function shellVerdict(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place, run: ShellRun, rules: ShellRules): RuleVerdict {
  const judge = (command: string): RuleVerdict => ruleVerdict(config, call, { ...args, command }, place);
  const pieces = run.commands.length === 0 ? [judge("")] : run.commands.map((words) => commandVerdict(words, rules, judge));
  for (const target of run.writes) pieces.push(writeVerdict(target, run, rules, config, place) ?? (pieces[0] as RuleVerdict));
  const by = lineAsker(rules);
  if (run.unjudged.length > 0 && by) pieces.push(unjudged(by, run.unjudged.join("; ")));
  const verdict = pieces.reduce(stronger);
  if (verdict.verdict === "allow") return verdict;
  const parts = [...new Set(pieces.flatMap((piece) => (piece.verdict !== "allow" && piece.part !== undefined ? [piece.part] : [])))];
  return parts.length > 1 ? { ...verdict, parts } : verdict;
}

/** What the rules say of call `call` with `args`, a shell call's line parsed when a rule needs it; undefined while the parser loads. */
export function callVerdict(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place): RuleVerdict | undefined {
  const rules = call.name === "shell" && typeof args.command === "string" ? shellRules(config) : undefined;
  if (!rules?.parsed) return ruleVerdict(config, call, args, place);
  const parse: ParseShell | Error | undefined = shellParserNow();
  if (parse === undefined) return undefined;
  const by = lineAsker(rules) ?? "default";
  if (parse instanceof Error) return stronger(ruleVerdict(config, call, args, place), { verdict: "ask", by, reason: `${parse.message}, so gg cannot judge the command line` });
  return shellVerdict(config, call, args, place, shellRun(args.command as string, parse), rules);
}

/** {@link callVerdict}, waiting for the shell parser to load when it must. */
export async function judgeCall(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place): Promise<RuleVerdict> {
  const now = callVerdict(config, call, args, place);
  if (now) return now;
  await loadShellParser().catch(() => undefined);
  return callVerdict(config, call, args, place) as RuleVerdict;
}
