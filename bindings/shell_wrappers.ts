// Wrappers: commands that run the command their arguments name after their own options (`env`, `sudo`, `timeout 5`,
// `strace`, `taskset 1`), read option by option as each reads them. An option gg does not know could take the next word
// as its value, so it is not guessed at: what such a wrapper runs cannot be judged.
import type { ShellWord } from "../host/shell_parser.ts";
import { assignmentReach, settingOf } from "./shell_env.ts";
import { longOption, type Reach } from "./shell_reach.ts";

/** How a wrapper's options are read before the command it runs. */
export interface Wrapper {
  /** Short options without a value. */
  flags: string;
  /** Short options that take a value (the next word, or the rest of the same word). */
  valued: string;
  /** Short options whose value, when there is one, is the rest of the same word (`xargs -i[R]`, `prlimit -n[N]`). */
  optional?: string;
  /** Long options that take a value (unless given with `=`). */
  long?: string[];
  /** Long options without a value, or whose value comes only after `=`. Any other long option is not known. */
  longFlags?: string[];
  /** Words before the options (setarch's ARCH). */
  lead?: number;
  /** Words to skip after the options before the command (timeout's DURATION, taskset's MASK). */
  skip?: number;
  /** NAME=VALUE words before the command are settings (env, sudo). */
  settings?: boolean;
  /** Options meaning nothing is run (`command -v`, `taskset -p`). */
  inert?: string[];
  /** Options whose command gg does not follow (`env -S` splits a string of its own). */
  opaque?: string[];
  /** Options whose value is a shell script it runs (`script -c`, `flock -c`). */
  scripted?: string[];
  /** Options whose value, when it begins with `|` or `!`, is a command its output goes to (`strace -o '|cmd'`). */
  piped?: string[];
  /** Options whose value is a NAME=VALUE setting for the command (`strace -E`). */
  setting?: string[];
  /** Options that run the command in another directory (`env -C`, `sudo -D`, `sudo -i`). */
  chdir?: string[];
  /** A lone `-` is an option (env's, for -i), not the command. */
  dash?: true;
  /** It runs the command under another root (`chroot`). */
  root?: true;
  /** Its words after the options are no command (`script`'s FILE). */
  noCommand?: true;
  /** With no command after its options it runs a shell that reads its standard input (`script`, `setarch`). */
  shell?: true;
}

const HELP = ["--help", "--version"];
const SETARCH: Wrapper = {
  flags: "vRFZLXBIST3",
  valued: "",
  longFlags: [...HELP, "--verbose", "--addr-no-randomize", "--fdpic-funcptrs", "--mmap-page-zero", "--addr-compat-layout", "--read-implies-exec", "--32bit", "--short-inode", "--whole-seconds", "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6", "--list", "--show"],
  shell: true,
};

/** The wrappers gg reads, by name. */
export const WRAPPERS: Record<string, Wrapper> = {
  env: {
    flags: "i0v",
    valued: "uCS",
    long: ["--unset", "--chdir", "--split-string"],
    longFlags: [...HELP, "--ignore-environment", "--null", "--debug", "--default-signal", "--ignore-signal", "--block-signal", "--list-signal-handling"],
    settings: true,
    dash: true,
    opaque: ["-S", "--split-string"],
    chdir: ["-C", "--chdir"],
  },
  command: { flags: "p", valued: "", inert: ["-v", "-V"] },
  exec: { flags: "cl", valued: "a" },
  builtin: { flags: "", valued: "" },
  nice: { flags: "0123456789", valued: "n", long: ["--adjustment"], longFlags: HELP },
  nohup: { flags: "", valued: "", longFlags: HELP },
  time: { flags: "pvqa", valued: "fo", long: ["--format", "--output"], longFlags: [...HELP, "--append", "--verbose", "--portability", "--quiet"] },
  timeout: { flags: "v", valued: "sk", long: ["--signal", "--kill-after"], longFlags: [...HELP, "--foreground", "--preserve-status", "--verbose"], skip: 1 },
  sudo: {
    flags: "AbEHiKknPSsVv",
    valued: "uUgChpRrtTD",
    long: ["--user", "--group", "--close-from", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--chdir", "--chroot"],
    longFlags: [...HELP, "--askpass", "--background", "--bell", "--preserve-env", "--set-home", "--login", "--remove-timestamp", "--reset-timestamp", "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--validate"],
    settings: true,
    chdir: ["-D", "--chdir", "-i", "--login", "-R", "--chroot"],
  },
  doas: { flags: "ns", valued: "uC" },
  stdbuf: { flags: "", valued: "ioe", long: ["--input", "--output", "--error"], longFlags: HELP },
  setsid: { flags: "cfw", valued: "", longFlags: [...HELP, "--ctty", "--fork", "--wait"] },
  ionice: { flags: "t", valued: "cnpPu", long: ["--class", "--classdata", "--pid", "--pgid", "--uid"], longFlags: [...HELP, "--ignore"] },
  coproc: { flags: "", valued: "" },
  chroot: { flags: "", valued: "", long: ["--userspec", "--groups"], longFlags: [...HELP, "--skip-chdir"], skip: 1, root: true },
  flock: {
    flags: "sxeunoF",
    valued: "wEc",
    long: ["--timeout", "--conflict-exit-code", "--command"],
    longFlags: [...HELP, "--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close", "--no-fork", "--verbose"],
    skip: 1,
    scripted: ["-c", "--command"],
  },
  xargs: {
    flags: "0prtxo",
    valued: "adEILnPs",
    optional: "eil",
    long: ["--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
    longFlags: [...HELP, "--null", "--interactive", "--no-run-if-empty", "--exit", "--verbose", "--open-tty", "--show-limits", "--eof", "--replace", "--max-lines"],
  },
  script: {
    flags: "aefqhV",
    valued: "cEIOBTmo",
    optional: "t",
    long: ["--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"],
    longFlags: [...HELP, "--append", "--return", "--flush", "--force", "--quiet", "--timing"],
    scripted: ["-c", "--command"],
    noCommand: true,
    shell: true,
  },
  strace: {
    flags: "cCdDfFhiqrtTvVwxyzkn",
    valued: "abeEIoOpPsSuUX",
    long: ["--output", "--env", "--user", "--attach", "--trace", "--trace-path", "--string-limit", "--columns", "--summary-sort-by", "--signal", "--status", "--fault", "--inject", "--read", "--write", "--abbrev", "--verbose", "--raw", "--detach-on"],
    longFlags: [...HELP, "--follow-forks", "--output-separately", "--summary-only", "--summary", "--summary-wall-clock", "--syscall-times", "--relative-timestamps", "--instruction-pointer", "--stack-trace", "--seccomp-bpf", "--daemonize", "--interruptible", "--no-abbrev", "--debug", "--kill-on-exit"],
    piped: ["-o", "--output"],
    setting: ["-E", "--env"],
  },
  ltrace: { flags: "bcCfhiLrStTV", valued: "aAeFlnopsuwxD", long: ["--output", "--library", "--indent", "--align"], longFlags: [...HELP, "--demangle", "--debug"] },
  setarch: { ...SETARCH, lead: 1 },
  linux32: SETARCH,
  linux64: SETARCH,
  taskset: { flags: "acV", valued: "", longFlags: [...HELP, "--all-tasks", "--cpu-list"], inert: ["-p", "--pid"], skip: 1 },
  chrt: { flags: "abdfiormRv", valued: "TPD", long: ["--sched-runtime", "--sched-period", "--sched-deadline"], longFlags: [...HELP, "--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--other", "--rr", "--reset-on-fork", "--max", "--verbose"], inert: ["-p", "--pid", "-m", "--max"], skip: 1 },
  prlimit: {
    flags: "hV",
    valued: "po",
    optional: "cdefilmnqrstuvxy",
    long: ["--pid", "--output"],
    longFlags: [...HELP, "--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock", "--rss", "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu", "--nproc", "--as", "--locks", "--rttime", "--noheadings", "--raw", "--verbose"],
  },
};

/** What a wrapper's options give: the command it runs (its words), the replace string (xargs), what else they reach. */
export interface AfterOptions {
  rest: ShellWord[];
  replace?: string;
  reach: Reach[];
}

/** What an option with a value reaches: a script, a command its output is piped to, a setting. */
function optionReach(wrapper: Wrapper, option: string, value: ShellWord | undefined, reach: Reach[]): void {
  if (wrapper.chdir?.includes(option)) reach.push({ moves: "dir" });
  if (!value) return;
  if (wrapper.scripted?.includes(option)) reach.push({ script: value, by: option });
  if (wrapper.piped?.includes(option) && /^[|!]/.test(value.text)) reach.push({ script: { ...value, text: value.text.slice(1), ...(value.open === undefined ? {} : { open: Math.max(0, value.open - 1) }) }, by: `${option} ${value.text[0]}` });
  const setting = wrapper.setting?.includes(option) ? settingOf(value.text, value.open) : undefined;
  if (setting) reach.push(...assignmentReach(setting));
}

/** The long option `text` (`--x` or `--x=v`) of `wrapper`: its full name and whether it takes the next word, or why not known. */
function readLong(wrapper: Wrapper, text: string): { name: string; takesNext: boolean } | string {
  const [given = text] = text.split("=", 1);
  const valued = wrapper.long ?? [];
  const names = [...valued, ...(wrapper.longFlags ?? []), ...(wrapper.inert ?? []).filter((option) => option.startsWith("--"))];
  const name = longOption(given, names);
  if (name === undefined) return `gg does not know its option ${given}`;
  return { name, takesNext: valued.includes(name) && !text.includes("=") };
}

/** The words after `wrapper`'s options in `args` (the command it runs) and what its options reach, or why they cannot be read. */
export function afterOptions(wrapper: Wrapper, args: ShellWord[]): AfterOptions | string {
  const reach: Reach[] = [];
  let i = wrapper.lead ?? 0;
  let replace: string | undefined;
  for (; i < args.length; i++) {
    const { text, open } = args[i] as ShellWord;
    if (open !== undefined) return `its option ${JSON.stringify(text)} is known only at run time`;
    if (text === "--") {
      i++;
      break;
    }
    if (text.startsWith("--")) {
      const long = readLong(wrapper, text);
      if (typeof long === "string") return long;
      if (wrapper.opaque?.includes(long.name)) return `gg does not follow its option ${long.name}`;
      if (wrapper.inert?.includes(long.name)) return { rest: [], reach };
      if (long.name === "--replace") replace = text.includes("=") ? text.slice(text.indexOf("=") + 1) : "{}";
      const value = long.takesNext ? args[++i] : text.includes("=") ? { text: text.slice(text.indexOf("=") + 1) } : undefined;
      optionReach(wrapper, long.name, value, reach);
      continue;
    }
    if (text === "-" && wrapper.dash) continue;
    if (!text.startsWith("-") || text === "-") break;
    for (let c = 1; c < text.length; c++) {
      const option = `-${text[c]}`;
      if (wrapper.inert?.includes(option)) return { rest: [], reach };
      if (wrapper.opaque?.includes(option)) return `gg does not follow its option ${option}`;
      const letter = text[c] as string;
      if (wrapper.valued.includes(letter) || wrapper.optional?.includes(letter)) {
        const attached = c + 1 < text.length ? { text: text.slice(c + 1) } : undefined;
        const value = attached ?? (wrapper.valued.includes(letter) ? args[++i] : undefined);
        if (letter === "I" || letter === "i") replace = value?.text || "{}";
        optionReach(wrapper, option, value, reach);
        break;
      }
      if (!wrapper.flags.includes(letter)) return `gg does not know its option ${option}`;
      optionReach(wrapper, option, undefined, reach);
    }
  }
  if (wrapper.root) reach.push({ moves: "root" });
  while (wrapper.settings && i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]?.text ?? "")) {
    const setting = settingOf(args[i]?.text ?? "", args[i]?.open);
    if (setting) reach.push(...assignmentReach(setting));
    i++;
  }
  const rest = args.slice(i + (wrapper.skip ?? 0));
  // flock FILE -c SCRIPT: its script comes after the file.
  if (wrapper.scripted?.includes(rest[0]?.text ?? "")) return { rest: [], reach: [...reach, { script: rest[1] ?? { text: "", open: 0 }, by: rest[0]?.text ?? "" }] };
  if (wrapper.noCommand || (rest.length === 0 && wrapper.shell)) {
    if (wrapper.shell && !reach.some((item) => "script" in item)) reach.push({ opaque: "it runs a shell that reads its commands from its standard input" });
    return { rest: [], reach };
  }
  return { rest, ...(replace === undefined ? {} : { replace }), reach };
}
