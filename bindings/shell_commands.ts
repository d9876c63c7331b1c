// The commands a command line runs, wrappers seen through: `env`, `sudo`, `timeout 5`, `xargs` and the like run the
// command that follows them, `sh -c`/`bash -c`/`eval` of a literal and a backquote's body run a script parsed again, a
// command named by its path is also its bare name, and what git, sed, tar, make, npm and variables set on the line run
// is followed too. Each is judged as written and as it runs; what runs that gg cannot name stands as a word only run
// time knows, saying why.
import { basename } from "node:path";
import type { ParseShell, ShellWord } from "../host/shell_parser.ts";
import { assignmentReach } from "./shell_env.ts";
import { gitReach } from "./shell_git.ts";
import { type Reach, type RunWord, runTime, spoken } from "./shell_reach.ts";
import { runnerReach } from "./shell_runners.ts";
import { afterOptions, type Wrapper, WRAPPERS } from "./shell_wrappers.ts";

export type { RunWord } from "./shell_reach.ts";

/** What a line runs: every command it reaches (wrappers and what they run), its writes, what cannot be judged. */
export interface ShellRun {
  commands: RunWord[][];
  writes: ShellWord[];
  /** The files its redirections read (a descriptor they open can be reopened for writing through `/dev/stdout`). */
  reads: ShellWord[];
  unjudged: string[];
  /** It changes directory (`cd`, `env -C`, `find -execdir`), so where a relative write lands is known only at run time. */
  movesDir: boolean;
  /** It runs something under another root (`chroot`), so where any write lands is known only at run time. */
  movesRoot: boolean;
}

/** Shells that run a script given with -c, or read one from their standard input. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);
/** Nested scripts (`sh -c "sh -c ..."`, backquotes in backquotes) past this depth are not followed. */
const MAX_NESTING = 8;

const bare = (word: ShellWord): ShellWord => ({ text: basename(word.text) });

/** xargs' command: its words with the replace string open, then the arguments it reads from stdin. */
function xargsCommand(rest: ShellWord[], replace: string | undefined): RunWord[] {
  const words = rest.length > 0 ? rest : [{ text: "echo" }];
  const marked = replace === undefined ? words : words.map((word) => (word.text.includes(replace) && word.open === undefined ? { text: word.text, open: word.text.indexOf(replace) } : word));
  return [...marked, runTime("the arguments xargs reads from its standard input")];
}

/** What a shell, `eval`, `trap`, `su -c` or `source` runs: a script given as words, a script file, or stdin. */
type Script = { script: RunWord } | { file: ShellWord } | "stdin" | undefined;

/** A shell's script: the -c operand, the script file it names, or its standard input. */
function shellScript(args: ShellWord[]): Script {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const { text } = args[i] as ShellWord;
    if (text === "--" || text === "-") return command && args[i + 1] ? { script: args[i + 1] as ShellWord } : "stdin";
    if (text === "--rcfile" || text === "--init-file") i++;
    else if (/^[-+][A-Za-z]+$/.test(text)) {
      if (text.includes("c")) command = true;
      if (text.includes("s")) return "stdin";
      if (/[oO]/.test(text)) i++;
    } else if (!text.startsWith("--")) return command ? { script: args[i] as ShellWord } : { file: args[i] as ShellWord };
  }
  return command ? { script: runTime("no script follows -c") } : "stdin";
}

/** `watch`'s options: what follows them is run by `sh -c`, joined by spaces. */
const WATCH: Wrapper = { flags: "bcdegprtwx", valued: "nq", long: ["--interval", "--equexit"], longFlags: ["--beep", "--color", "--no-color", "--differences", "--errexit", "--chgexit", "--precise", "--no-title", "--no-wrap", "--exec", "--help", "--version"] };

/** Words joined by spaces into the script `eval` and `watch` run; open when one of them is. */
const joined = (words: ShellWord[]): Script => ({ script: { text: words.map((word) => word.text).join(" "), ...(words.some((word) => word.open !== undefined) ? { open: 0 } : {}) } });

/** The script `base` runs with `args`, when it is one that runs a script. */
function scriptOf(base: string, args: ShellWord[]): Script {
  if (SHELLS.has(base)) return shellScript(args);
  if (base === "eval") return joined(args);
  if (base === "watch") {
    const after = afterOptions(WATCH, args);
    return typeof after === "string" ? { script: runTime(`which command watch runs is not known: ${after}`) } : joined(after.rest);
  }
  if (base === "." || base === "source") return args[0] ? { file: args[0] } : undefined;
  const given = args[0]?.text === "--" ? args.slice(1) : args;
  if (base === "trap") return given.length >= 2 && given[0]?.text !== "-" ? { script: given[0] as ShellWord } : undefined;
  if (base === "su" || base === "runuser") {
    const at = args.findIndex((arg) => arg.text === "-c" || arg.text === "--command");
    const inline = args.find((arg) => arg.text.startsWith("--command="));
    if (inline) return { script: { ...inline, text: inline.text.slice("--command=".length) } };
    return at === -1 ? undefined : { script: args[at + 1] ?? runTime("no script follows -c") };
  }
  return undefined;
}

/** Script files that are a pipe or a redirection under another name. */
const STDIN_FILES = /^\/dev\/(stdin|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;

/** The script `base` runs as a reach: parsed again when literal; one only run time gives cannot be named; a script file is not read. */
function scriptReach(base: string, given: Script): Reach[] {
  if (given === "stdin") return [{ opaque: `the script ${base} reads from its standard input (a pipe or a redirection)` }];
  if (given === undefined) return [];
  if ("file" in given) {
    const { file } = given;
    return file.open !== undefined || STDIN_FILES.test(file.text) ? [{ opaque: `the script ${base} runs from ${JSON.stringify(file.text)} is known only at run time` }] : [];
  }
  return [{ script: given.script, by: base }];
}

/** The commands `find` runs with -exec, -execdir, -ok, -okdir (each up to its `;` or `+`, `{}` open); the -dir ones run where each file is. */
function findReach(args: ShellWord[]): Reach[] {
  const reach: Reach[] = [];
  for (let i = 0; i < args.length; i++) {
    const action = args[i]?.text ?? "";
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(action)) continue;
    const end = args.findIndex((word, at) => at > i && (word.text === ";" || word.text === "+"));
    const words = args.slice(i + 1, end === -1 ? undefined : end);
    if (action.endsWith("dir")) reach.push({ moves: "dir" });
    reach.push({ command: words.map((word) => (word.text.includes("{}") && word.open === undefined ? { text: word.text, open: word.text.indexOf("{}") } : word)) });
    i = end === -1 ? args.length : end;
  }
  return reach;
}

/** Adds to `run` what `reach` names, `of` being the command of the line that reaches it. */
function follow(reach: readonly Reach[], of: string, run: ShellRun, parse: ParseShell, nesting: number): void {
  for (const item of reach) {
    if ("command" in item) unwrap(item.command, run, parse, nesting);
    else if ("moves" in item) {
      run.movesDir = true;
      run.movesRoot ||= item.moves === "root";
    } else if ("opaque" in item) run.commands.push([runTime(item.opaque, of)]);
    else if (item.script.open === undefined) nested(item.script.text, run, parse, nesting + 1);
    else run.commands.push([runTime((item.script as RunWord).why ?? `the script ${item.by} runs, ${JSON.stringify(item.script.text)}, is known only at run time`, of)]);
  }
}

/** What command `name` with `args` reaches besides wrapped commands: git's, a runner's, a script's, find's. */
function reachOf(base: string, args: ShellWord[]): Reach[] {
  const reach: Reach[] = [...runnerReach(base, args), ...scriptReach(base, scriptOf(base, args))];
  if (base === "git") reach.push(...gitReach(args));
  // git-push is git push: git's commands are programs named git-NAME too.
  else if (base.startsWith("git-") && base.length > 4) reach.push({ command: [{ text: "git" }, { text: base.slice(4) }, ...args] });
  if (base === "find") reach.push(...findReach(args));
  if (["cd", "pushd", "popd"].includes(base)) reach.push({ moves: "dir" });
  if (base === "alias" && args.length > 0) reach.push({ opaque: "an alias defined here changes what later words run" });
  return reach;
}

/** Adds to `run` what `words` runs, through wrappers and nested scripts. */
function unwrap(words: RunWord[], run: ShellRun, parse: ParseShell, nesting: number): void {
  let current = words;
  while (current.length > 0) {
    run.commands.push(current);
    const [name, ...args] = current as [ShellWord, ...ShellWord[]];
    if (name.open !== undefined) return;
    const base = basename(name.text);
    if (base !== name.text) run.commands.push([bare(name), ...args]);
    if (base === "busybox") {
      current = args;
      continue;
    }
    const of = spoken(current);
    const reach = reachOf(base, args);
    const wrapper = WRAPPERS[base];
    const after = wrapper && afterOptions(wrapper, args);
    if (typeof after === "string") reach.push({ opaque: `which command ${base} runs is not known: ${after}` });
    else if (after) reach.push(...after.reach);
    follow(reach, of, run, parse, nesting);
    current = after && typeof after !== "string" ? (base === "xargs" ? xargsCommand(after.rest, after.replace) : after.rest) : [];
  }
}

/** Adds what the script `line` runs, parsed again, to `run`. */
function nested(line: string, run: ShellRun, parse: ParseShell, nesting: number): void {
  if (nesting >= MAX_NESTING) return void run.unjudged.push(`it nests scripts (sh -c, eval, backquotes) deeper than ${MAX_NESTING} levels`);
  const script = parse(line);
  run.writes.push(...script.writes);
  run.reads.push(...script.reads);
  run.unjudged.push(...script.unjudged);
  for (const assignment of script.assignments) follow(assignmentReach(assignment), assignment.written, run, parse, nesting);
  for (const body of script.scripts) nested(body, run, parse, nesting + 1);
  for (const words of script.commands) unwrap(words, run, parse, nesting);
}

/** What command line `line` runs, as far as can be known before it runs. */
export function shellRun(line: string, parse: ParseShell): ShellRun {
  const run: ShellRun = { commands: [], writes: [], reads: [], unjudged: [], movesDir: false, movesRoot: false };
  nested(line, run, parse, 0);
  return run;
}
