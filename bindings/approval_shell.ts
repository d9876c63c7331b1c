// Rules judging a shell call by what its command line runs: each command it reaches (its words joined by single
// spaces) by the rules for "command", each file a redirection writes by the rules for write_file, the strictest
// verdict standing. What only run time knows (an expansion, a script read from a pipe, a line that does not parse)
// is asked, where a rule that asks or denies could apply to it.
import { type ParseShell, loadShellParser, shellParserNow } from "../host/shell_parser.ts";
import { type CallTraits, type DecidedBy, type Place, type RuleVerdict, ruleVerdict, stricter } from "./approval_match.ts";
import { guardsOwnFiles } from "./approval_own.ts";
import type { ApprovalSettings, Configuration } from "./capabilities.ts";
import { type RunWord, type ShellRun, shellRun } from "./shell_commands.ts";

/** The rules that make a shell call's command line worth parsing, known once per configuration. */
interface ShellRules {
  /** Globs of rules for "command" that ask or deny, with the rule each is. */
  commands: { glob: string; by: DecidedBy }[];
  /** The first rule that asks or denies some write_file call, when one does. */
  writes?: DecidedBy;
  /** Some rule matches "command" (any verdict) or restricts write_file: the line is parsed. */
  parsed: boolean;
}

const WRITE_FILE: CallTraits = { name: "write_file", effects: true, paths: true };
/** Targets a redirection may name whatever the path rules say: they are no files that hold anything. */
const NO_FILES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

const known = new WeakMap<Configuration, ShellRules>();
function shellRules(config: Configuration): ShellRules {
  let rules = known.get(config);
  if (rules) return rules;
  rules = { commands: [], parsed: false };
  const levels = [config.approvals, config.agentApproval].filter((level): level is ApprovalSettings => level !== undefined);
  let number = 1;
  for (const level of levels) {
    for (const rule of level.rules) {
      const by: DecidedBy = `rule ${number++}`;
      const restricts = rule.verdict !== "allow";
      const command = (rule.call === "shell" || rule.call === "*") && rule.when?.command;
      if (command && restricts) rules.commands.push({ glob: command, by });
      if ((rule.call === "write_file" || rule.call === "*") && restricts && (rule.when === undefined || "path" in rule.when)) rules.writes ??= by;
      if (command || ((rule.call === "write_file" || rule.call === "*") && restricts)) rules.parsed = true;
    }
  }
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

/** An ask for what cannot be judged before the line runs. */
const unjudged = (by: DecidedBy, why: string): RuleVerdict => ({ verdict: "ask", by, reason: `gg cannot judge this command line before it runs: ${why}, and ${by === "config" ? "the ask on writes of gg's own configuration" : by} could apply to it` });

/** The verdict on one command `words` runs: its rules', or an ask when a word only run time knows could decide it. */
function commandVerdict(words: RunWord[], rules: ShellRules, judge: (command: string) => RuleVerdict): RuleVerdict {
  const command = words.map((word) => word.text).join(" ");
  const ruled = judge(command);
  const at = words.findIndex((word) => word.open !== undefined);
  const open = words[at];
  if (!open) return ruled;
  const prefix = [...words.slice(0, at).map((word) => word.text), open.text.slice(0, open.open)].join(" ");
  const rule = rules.commands.find(({ glob }) => couldStart(glob, at === 0 ? "" : prefix));
  if (!rule) return ruled;
  const why = open.why ?? `${at === 0 ? "the name of" : "a word of"} ${JSON.stringify(command)}, ${JSON.stringify(open.text)}, is known only at run time`;
  return stronger(ruled, unjudged(rule.by, why));
}

/** The verdict on a file a redirection writes: write_file's on its path. */
function writeVerdict(target: RunWord, run: ShellRun, rules: ShellRules, config: Configuration, place: Place): RuleVerdict | undefined {
  if (!rules.writes || NO_FILES.has(target.text)) return undefined;
  if (target.open !== undefined) return unjudged(rules.writes, `the file a redirection writes, ${JSON.stringify(target.text)}, is known only at run time`);
  if (run.movesDir && !target.text.startsWith("/")) return unjudged(rules.writes, `it changes directory, so where the redirection to ${JSON.stringify(target.text)} writes is known only at run time`);
  const ruled = ruleVerdict(config, WRITE_FILE, { path: target.text }, place);
  if (ruled.verdict === "allow") return ruled;
  return { ...ruled, reason: `${ruled.reason ? `${ruled.reason}; ` : ""}a redirection writes ${JSON.stringify(target.text)}, judged as write_file would be` };
}

/** The verdict on shell call `call` whose command line runs `run`. */
function shellVerdict(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place, run: ShellRun, rules: ShellRules): RuleVerdict {
  const judge = (command: string): RuleVerdict => ruleVerdict(config, call, { ...args, command }, place);
  let verdict = run.commands.length === 0 ? judge("") : commandVerdict(run.commands[0] as RunWord[], rules, judge);
  for (const words of run.commands.slice(1)) verdict = stronger(verdict, commandVerdict(words, rules, judge));
  for (const target of run.writes) verdict = stronger(verdict, writeVerdict(target, run, rules, config, place) ?? verdict);
  const first = rules.commands[0]?.by ?? rules.writes;
  if (run.unjudged.length > 0 && first) verdict = stronger(verdict, unjudged(first, run.unjudged.join("; ")));
  return verdict;
}

/** What the rules say of call `call` with `args`, a shell call's line parsed when a rule needs it; undefined while the parser loads. */
export function callVerdict(config: Configuration, call: CallTraits, args: Record<string, unknown>, place: Place): RuleVerdict | undefined {
  const rules = call.name === "shell" && typeof args.command === "string" ? shellRules(config) : undefined;
  if (!rules?.parsed) return ruleVerdict(config, call, args, place);
  const parse: ParseShell | Error | undefined = shellParserNow();
  if (parse === undefined) return undefined;
  const by = rules.commands[0]?.by ?? rules.writes ?? "default";
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
