// The commands a command line runs, wrappers seen through: `env`, `sudo`, `timeout 5`, `xargs` and the like run the
// command that follows them, `sh -c`/`bash -c`/`eval` of a literal run a script parsed again, a command named by
// its path is also its bare name. Each is judged as written and as the wrapper runs it.
import { basename } from "node:path";
import type { ParseShell, ShellWord } from "../host/shell_parser.ts";

/** A word of a command a line runs; `why` says what a word standing for something only run time gives stands for. */
export interface RunWord extends ShellWord {
  why?: string;
}

/** What a line runs: every command it reaches (wrappers and what they run), its writes, what cannot be judged. */
export interface ShellRun {
  commands: RunWord[][];
  writes: ShellWord[];
  unjudged: string[];
  /** It changes directory (`cd`, `pushd`, `popd`), so where a relative write lands is known only at run time. */
  movesDir: boolean;
}

/** How a wrapper's options are read before the command it runs. */
interface Wrapper {
  /** Short options without a value. */
  flags: string;
  /** Short options that take a value (the next word, or the rest of the same word). */
  valued: string;
  /** Long options that take a value (unless given with `=`); any other long option takes none. */
  long?: string[];
  /** Words to skip after the options before the command (timeout's DURATION). */
  skip?: number;
  /** NAME=VALUE words before the command are settings (env, sudo). */
  settings?: boolean;
  /** An option among these means nothing is run (`command -v`). */
  inert?: string;
  /** Options whose command gg does not follow (`env -S` splits a string of its own). */
  opaque?: string[];
}

const WRAPPERS: Record<string, Wrapper> = {
  env: { flags: "i0v", valued: "uCS", long: ["--unset", "--chdir", "--split-string"], settings: true, opaque: ["-S", "--split-string"] },
  command: { flags: "p", valued: "", inert: "vV" },
  exec: { flags: "cl", valued: "a" },
  builtin: { flags: "", valued: "" },
  nice: { flags: "0123456789", valued: "n", long: ["--adjustment"] },
  nohup: { flags: "", valued: "" },
  time: { flags: "pvqa", valued: "fo", long: ["--format", "--output"] },
  timeout: { flags: "v", valued: "sk", long: ["--signal", "--kill-after"], skip: 1 },
  sudo: { flags: "AbEHiKknPSsVv", valued: "uUgChpRrtTD", long: ["--user", "--group", "--close-from", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--chdir", "--chroot"], settings: true },
  doas: { flags: "ns", valued: "uC" },
  stdbuf: { flags: "", valued: "ioe", long: ["--input", "--output", "--error"] },
  setsid: { flags: "cfw", valued: "" },
  ionice: { flags: "t", valued: "cn", long: ["--class", "--classdata"] },
  coproc: { flags: "", valued: "" },
  chroot: { flags: "", valued: "", long: ["--userspec", "--groups"], skip: 1 },
  flock: { flags: "sxunoFe", valued: "wEc", long: ["--timeout", "--conflict-exit-code", "--command"], skip: 1, opaque: ["-c", "--command"] },
  xargs: { flags: "0prtxo", valued: "adEeIiLlnPs", long: ["--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"] },
};

/** Shells that run a script given with -c, or read one from their standard input. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);
/** Nested scripts (`sh -c "sh -c ..."`) past this depth are not followed. */
const MAX_NESTING = 8;

const bare = (word: ShellWord): ShellWord => ({ text: basename(word.text) });
/** A word standing for what only run time gives (a script read from stdin, xargs' input), with what it is. */
const runTime = (why: string): RunWord => ({ text: "…", open: 0, why });

/** The words after `wrapper`'s options in `args` (the command it runs), or a reason it cannot be read. */
function afterOptions(wrapper: Wrapper, args: ShellWord[]): { rest: ShellWord[]; replace?: string } | string {
  let i = 0;
  let replace: string | undefined;
  for (; i < args.length; i++) {
    const { text, open } = args[i] as ShellWord;
    if (open !== undefined) return `its option ${JSON.stringify(text)} is known only at run time`;
    if (text === "--") {
      i++;
      break;
    }
    if (text.startsWith("--")) {
      const [name = text] = text.split("=", 1);
      if (wrapper.opaque?.includes(name)) return `gg does not follow its option ${name}`;
      if (name === "--replace") replace = text.includes("=") ? text.slice(text.indexOf("=") + 1) : "{}";
      else if (wrapper.long?.includes(name) && !text.includes("=")) i++;
      continue;
    }
    if (!text.startsWith("-") || text === "-") break;
    for (let c = 1; c < text.length; c++) {
      const option = text[c] as string;
      if (wrapper.inert?.includes(option)) return { rest: [] };
      if (wrapper.opaque?.includes(`-${option}`)) return `gg does not follow its option -${option}`;
      if (wrapper.valued.includes(option)) {
        const value = c + 1 < text.length ? text.slice(c + 1) : (args[++i]?.text ?? "");
        if (option === "I" || option === "i") replace = value || "{}";
        break;
      }
      if (!wrapper.flags.includes(option)) return `gg does not know its option -${option}`;
    }
  }
  while (wrapper.settings && i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]?.text ?? "")) i++;
  return { rest: args.slice(i + (wrapper.skip ?? 0)), ...(replace === undefined ? {} : { replace }) };
}

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
const WATCH: Wrapper = { flags: "bcdegprtwx", valued: "nq", long: ["--interval", "--equexit"] };

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

/** git's options before its command that take a value as the next word. */
const GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path", "--list-cmds"]);

/** git's command without git's own options before it (`git -C . push` is `git push`); one defining an alias is open. */
function gitCommand(args: ShellWord[]): RunWord[] | undefined {
  let i = 0;
  for (; i < args.length && (args[i] as ShellWord).text.startsWith("-"); i++) {
    const { text, open } = args[i] as ShellWord;
    const value = GIT_VALUED.has(text) ? args[++i] : undefined;
    if (open !== undefined || value?.open !== undefined || /^alias\./.test(value?.text ?? text.replace(/^-c/, ""))) return [runTime("git options on the line are known only at run time or define an alias")];
  }
  return i === 0 ? undefined : [{ text: "git" }, ...args.slice(i)];
}

/** Script files that are a pipe or a redirection under another name. */
const STDIN_FILES = /^\/dev\/(stdin|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;

/** The script `base` runs, parsed again into `run`; one only run time gives is open; a script file is not read. */
function runScript(base: string, given: Script, run: ShellRun, parse: ParseShell, nesting: number): void {
  if (given === "stdin") return void run.commands.push([runTime(`the script ${base} reads from its standard input (a pipe or a redirection)`)]);
  if (given === undefined) return;
  if ("file" in given) {
    const { file } = given;
    if (file.open !== undefined || STDIN_FILES.test(file.text)) run.commands.push([runTime(`the script ${base} runs from ${JSON.stringify(file.text)} is known only at run time`)]);
    return;
  }
  const { script } = given;
  if (script.open === undefined) return nested(script.text, run, parse, nesting + 1);
  run.commands.push([runTime(script.why ?? `the script ${base} runs, ${JSON.stringify(script.text)}, is known only at run time`)]);
}

/** The commands `find` runs with -exec, -execdir, -ok, -okdir: each up to its `;` or `+`, `{}` open. */
function findCommands(args: ShellWord[]): RunWord[][] {
  const commands: ShellWord[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i]?.text ?? "")) continue;
    const end = args.findIndex((word, at) => at > i && (word.text === ";" || word.text === "+"));
    const words = args.slice(i + 1, end === -1 ? undefined : end);
    commands.push(words.map((word) => (word.text.includes("{}") && word.open === undefined ? { text: word.text, open: word.text.indexOf("{}") } : word)));
    i = end === -1 ? args.length : end;
  }
  return commands;
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
    if (["cd", "pushd", "popd"].includes(base)) run.movesDir = true;
    if (base === "alias" && args.length > 0) run.commands.push([runTime("an alias defined here changes what later words run")]);
    if (base === "find") for (const command of findCommands(args)) unwrap(command, run, parse, nesting);
    const git = base === "git" ? gitCommand(args) : undefined;
    if (git) run.commands.push(git);
    const script = scriptOf(base, args);
    if (script) return runScript(base, script, run, parse, nesting);
    const wrapper = WRAPPERS[base];
    if (!wrapper) return;
    const after = afterOptions(wrapper, args);
    if (typeof after === "string") return void run.commands.push([runTime(`which command ${base} runs is not known: ${after}`)]);
    current = base === "xargs" ? xargsCommand(after.rest, after.replace) : after.rest;
  }
}

/** Adds what the script `line` runs, parsed again, to `run`. */
function nested(line: string, run: ShellRun, parse: ParseShell, nesting: number): void {
  if (nesting >= MAX_NESTING) return void run.unjudged.push(`it nests scripts (sh -c, eval) deeper than ${MAX_NESTING} levels`);
  const script = parse(line);
  run.writes.push(...script.writes);
  run.unjudged.push(...script.unjudged);
  for (const words of script.commands) unwrap(words, run, parse, nesting);
}

/** What command line `line` runs, as far as can be known before it runs. */
export function shellRun(line: string, parse: ParseShell): ShellRun {
  const run: ShellRun = { commands: [], writes: [], unjudged: [], movesDir: false };
  nested(line, run, parse, 0);
  return run;
}
