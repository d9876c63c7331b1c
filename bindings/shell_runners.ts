// Commands that run a command through options of their own, which an allowlist of them would not expect: sed's `e`,
// tar's --checkpoint-action=exec and --to-command, make's --eval, npm exec -c; and programs that run the command their
// arguments name with options gg does not read (unshare, valgrind, parallel...).
import type { ShellWord } from "../host/shell_parser.ts";
import { mayBe, type Reach } from "./shell_reach.ts";

/** Programs that run a command their arguments name, whose options gg does not read: what they run cannot be judged. */
const OPAQUE = new Set(["nsenter", "unshare", "firejail", "systemd-run", "numactl", "faketime", "torsocks", "unbuffer", "catchsegv", "valgrind", "gdb", "perf", "sg", "runcon", "cgexec", "proot", "bwrap", "cpulimit", "parallel", "fakeroot", "eatmydata"]);

/** A cursor over a sed script: readers of its pieces, each moving past what it reads. */
function sedCursor(script: string) {
  let i = 0;
  const cursor = {
    peek: (): string => script[i] ?? "",
    next: (): string => script[i++] ?? "",
    done: (): boolean => i >= script.length,
    skip(chars: RegExp): void {
      while (i < script.length && chars.test(cursor.peek())) i++;
    },
    /** Up to a character of `ends`, or the end. */
    upTo(ends: RegExp): void {
      while (i < script.length && !ends.test(cursor.peek())) i++;
    },
    /** Up to the end of the line (a backslash before a newline continues it). */
    line(): string {
      const start = i;
      while (i < script.length && cursor.peek() !== "\n") i += cursor.peek() === "\\" ? 2 : 1;
      return script.slice(start, i);
    },
    /** Past the next unescaped `delimiter`; false when there is none. */
    past(delimiter: string): boolean {
      for (; i < script.length; i++) {
        if (cursor.peek() === "\\") i++;
        else if (cursor.peek() === delimiter) return cursor.next() === delimiter;
      }
      return false;
    },
    /** Past an address (`3`, `0~4`, `$`, `/re/I`, `\\cREc`), if one is here; false when its regex does not end. */
    address(): boolean {
      if (/[0-9]/.test(cursor.peek())) cursor.skip(/[0-9~]/);
      else if (cursor.peek() === "$") i++;
      else if (cursor.peek() === "/" || cursor.peek() === "\\") {
        const delimiter = cursor.next() === "\\" ? cursor.next() : "/";
        if (!cursor.past(delimiter)) return false;
        cursor.skip(/[IM]/);
      }
      return true;
    },
    /** Past a command's addresses (`ADDR`, `ADDR,ADDR`, `ADDR,+N`, `ADDR,~N`); false when one does not end. */
    range(): boolean {
      if (!cursor.address()) return false;
      cursor.skip(/[ \t]/);
      if (cursor.peek() !== ",") return true;
      cursor.next();
      cursor.skip(/[ \t]/);
      if (!/[+~]/.test(cursor.peek())) return cursor.address();
      cursor.skip(/[+~0-9]/);
      return true;
    },
  };
  return cursor;
}

/** A sed script read command by command: the commands its `e` runs, or why it runs what gg cannot name. */
function sedScript(script: string): { commands: string[]; opaque?: string } {
  const commands: string[] = [];
  const read = sedCursor(script);
  for (;;) {
    read.skip(/[\s;]/);
    if (read.done()) return { commands };
    if (!read.range()) return { commands, opaque: "its script does not end an address" };
    read.skip(/[ \t!]/);
    const command = read.next();
    if ("{}=dDgGhHnNpPxzF".includes(command)) continue;
    if ("#aicrRwW".includes(command)) read.line();
    else if (":btTv".includes(command)) read.upTo(/[;\n]/);
    else if ("lLqQ".includes(command)) read.skip(/[ \t0-9]/);
    else if (command === "e") {
      const run = read.line().trim();
      if (run === "") return { commands, opaque: "its e command runs the pattern space, text only run time gives, as a command" };
      commands.push(run);
    } else if (command === "s" || command === "y") {
      const delimiter = read.next();
      if (delimiter === "" || delimiter === "\n" || delimiter === "\\" || !read.past(delimiter) || !read.past(delimiter)) return { commands, opaque: `its ${command} command does not end` };
      if (command === "y") continue;
      for (; /[gpiImMe0-9]/.test(read.peek()); read.next()) {
        if (read.peek() === "e") return { commands, opaque: "its s command's e flag runs the text it makes, known only at run time, as a command" };
      }
      if (read.peek() === "w") read.line();
    } else return { commands, opaque: `gg does not read its command ${JSON.stringify(command)}` };
  }
}

/** sed's options with a value, and the long ones. */
const SED_VALUED = "efl";
const SED_LONG = ["--expression", "--file", "--line-length", "--in-place", "--posix", "--debug", "--sandbox", "--null-data", "--zero-terminated", "--separate", "--unbuffered", "--regexp-extended", "--quiet", "--silent", "--follow-symlinks", "--binary", "--help", "--version"];

/** What `sed ARGS` runs: the commands its script's `e` names, or something gg cannot name. */
function sedReach(args: readonly ShellWord[]): Reach[] {
  const scripts: ShellWord[] = [];
  const operands: ShellWord[] = [];
  let files = false;
  let sandbox = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as ShellWord;
    if (arg.text === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.text.startsWith("--")) {
      const name = SED_LONG.find((option) => mayBe(arg.text, option) || arg.text === option);
      if (name === undefined) return [{ opaque: `gg does not know sed's option ${arg.text}` }];
      const value = arg.text.includes("=") ? { text: arg.text.slice(arg.text.indexOf("=") + 1) } : name === "--expression" || name === "--file" || name === "--line-length" ? args[++i] : undefined;
      if (name === "--expression" && value) scripts.push(value);
      files ||= name === "--file";
      sandbox ||= name === "--sandbox";
    } else if (arg.text.startsWith("-") && arg.text !== "-") {
      for (let c = 1; c < arg.text.length; c++) {
        const letter = arg.text[c] as string;
        if (letter === "i") break;
        if (!SED_VALUED.includes(letter)) continue;
        const value = c + 1 < arg.text.length ? { text: arg.text.slice(c + 1) } : args[++i];
        if (letter === "e" && value) scripts.push(value);
        files ||= letter === "f";
        break;
      }
    } else operands.push(arg);
  }
  if (sandbox) return [];
  if (files) return [{ opaque: "its script is read from a file (-f), which gg does not read" }];
  const given = scripts.length > 0 ? scripts : operands.slice(0, 1);
  if (given.some((word) => word.open !== undefined)) return [{ opaque: "its script is known only at run time" }];
  const read = sedScript(given.map((word) => word.text).join("\n"));
  return [...read.commands.map((text): Reach => ({ script: { text }, by: "sed's e command" })), ...(read.opaque ? [{ opaque: read.opaque }] : [])];
}

/** tar's options that run a command through the shell, and the short ones (`-I PROG`, `-F SCRIPT`). */
const TAR_RUNS = ["--checkpoint-action", "--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command"];
/** tar's short options that take a value, in the order a bundle (`tar cIf PROG a.tar`) takes the words after it. */
const TAR_VALUED = "bCfFgHIKLNTVX";

/** What `tar ARGS` runs: the scripts its options name (`--checkpoint-action=exec=CMD`, `--to-command=CMD`, `-I PROG`). */
function tarReach(args: readonly ShellWord[]): Reach[] {
  const reach: Reach[] = [];
  const run = (value: ShellWord | undefined, by: string): void => {
    if (!value) return;
    // --checkpoint-action takes other actions too (dot, echo, sleep=N): only exec= runs a command.
    if (by !== "--checkpoint-action") reach.push({ script: value, by: `tar ${by}` });
    else if (value.text.startsWith("exec=")) reach.push({ script: { text: value.text.slice(5), ...(value.open === undefined ? {} : { open: Math.max(0, value.open - 5) }) }, by: `tar ${by}=exec` });
    else if (value.open !== undefined) reach.push({ opaque: `tar's ${by} is known only at run time` });
  };
  for (let i = 0; i < args.length; i++) {
    const { text } = args[i] as ShellWord;
    if (text.startsWith("--")) {
      const name = TAR_RUNS.find((option) => mayBe(text, option));
      if (name) run(text.includes("=") ? { text: text.slice(text.indexOf("=") + 1) } : args[i + 1], name);
      continue;
    }
    // Old style (`tar cIf PROG FILE`, the first word): each letter that takes a value takes the next word in turn.
    const old = i === 0 && !text.startsWith("-");
    if (!old && !text.startsWith("-")) continue;
    const letters = old ? text : text.slice(1);
    let taken = i;
    for (let c = 0; c < letters.length; c++) {
      const letter = letters[c] as string;
      if (!TAR_VALUED.includes(letter)) continue;
      const attached = old ? "" : letters.slice(c + 1);
      const value = attached === "" ? args[++taken] : { text: attached };
      if (letter === "I" || letter === "F") run(value, `-${letter}`);
      if (!old) break;
    }
    i = taken;
  }
  return reach;
}

/** What `make ARGS` runs that gg cannot name: `--eval` text, a makefile read from stdin, a SHELL of its own. */
function makeReach(args: readonly ShellWord[]): Reach[] {
  for (const [index, { text }] of args.entries()) {
    if (mayBe(text, "--eval") || /^-[A-Za-z]*E/.test(text)) return [{ opaque: "make --eval adds makefile text whose recipes run commands gg does not read" }];
    const short = /^-[A-Za-z]*f(.*)$/.exec(text);
    const long = /^--(file|makefile)(=.*)?$/.exec(text);
    const file = short ? short[1] || args[index + 1]?.text : long ? long[2]?.slice(1) ?? args[index + 1]?.text : undefined;
    if (file === "-" || file === "/dev/stdin") return [{ opaque: "make reads its makefile from its standard input" }];
    if (/^(SHELL|MAKESHELL|\.SHELLFLAGS)[:+?]?=/.test(text) || (/^[^-=]+[:+?]?=/.test(text) && /\$[({]shell[\s)}]|`/.test(text))) return [{ opaque: `make's ${JSON.stringify(text)} makes its recipes run a command gg does not read` }];
  }
  return [];
}

/** npm's options of exec (and npx) that take no value. */
const NPM_FLAGS = /^--(yes|no|no-install|quiet|silent|prefer-offline|prefer-online|offline)$/;

/** What `npm ARGS` (or `npx ARGS`) runs: `exec -c SCRIPT` (`--call`), the package command of `exec`, or a shell of its own. */
function npmReach(args: readonly ShellWord[], npx: boolean): Reach[] {
  const reach: Reach[] = args.filter(({ text }) => mayBe(text, "--script-shell") || mayBe(text, "--node-options")).map(({ text }) => ({ opaque: `npm's ${text.split("=")[0]} names a program or code npm runs` }));
  const first = npx ? -1 : args.findIndex((arg) => !arg.text.startsWith("-"));
  if (!npx && !["exec", "x"].includes(args[first]?.text ?? "")) return reach;
  for (let i = first + 1; i < args.length; i++) {
    const { text } = args[i] as ShellWord;
    if (text === "-c" || mayBe(text, "--call")) {
      const value = text.includes("=") ? { text: text.slice(text.indexOf("=") + 1) } : args[++i];
      return value ? [...reach, { script: value, by: "npm exec -c" }] : reach;
    }
    if (text === "-p" || mayBe(text, "--package")) {
      if (!text.includes("=")) i++;
    } else if (text === "--" || !text.startsWith("-")) {
      return [...reach, { command: args.slice(text === "--" ? i + 1 : i) }];
    } else if (text.startsWith("--") && !text.includes("=") && !NPM_FLAGS.test(text)) {
      return [...reach, { opaque: `gg does not know npm's option ${text}, which may take the next word` }];
    }
  }
  return reach;
}

/** What command `base` with `args` runs through options of its own, or, for a program that runs its arguments, that gg cannot name it. */
export function runnerReach(base: string, args: readonly ShellWord[]): Reach[] {
  if (OPAQUE.has(base)) return [{ opaque: `${base} runs a command its arguments name, and gg does not read its options` }];
  if (base === "sed" || base === "gsed") return sedReach(args);
  if (base === "tar" || base === "gtar") return tarReach(args);
  if (base === "make" || base === "gmake") return makeReach(args);
  if (base === "npm" || base === "npx") return npmReach(args, base === "npx");
  return [];
}
