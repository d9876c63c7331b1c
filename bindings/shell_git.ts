// git's own ways to run a command: configuration on its command line (`-c`, `--config-env`) whose keys name programs,
// `--exec-path`, options of its commands that take a command (`rebase --exec`, `fetch --upload-pack`,
// `filter-branch --tree-filter`), commands that push under another name (`send-pack`, `git-push`), and a name that is
// no command of git's, which an alias or help.autocorrect in its configuration turns into any command.
import type { ShellWord } from "../host/shell_parser.ts";
import { mayBe, type Reach, type RunWord } from "./shell_reach.ts";

/** git's commands (`git --list-cmds=main` of git 2.39, and later ones), less those that run a program of their own choosing. */
const COMMANDS = new Set(
  ("add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap " +
    "check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config " +
    "count-objects describe diagnose diff diff-files diff-index diff-pairs diff-tree difftool fast-export fast-import fetch fetch-pack " +
    "filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep hash-object " +
    "help hook http-push index-pack init init-db interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo " +
    "mailsplit maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv " +
    "name-rev notes pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase " +
    "reflog refs remote repack replace replay request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack " +
    "shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule switch " +
    "symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info var verify-commit verify-pack " +
    "verify-tag version whatchanged worktree write-tree").split(" "),
);

/** Commands that push: judged as `git push` too. */
const PUSHES = new Set(["send-pack", "http-push"]);

/** Options of git's commands whose value is a command git runs through the shell: long ones, and a short one. */
const RUNS: Record<string, { long: string[]; short?: string; attached?: boolean }> = {
  rebase: { long: ["--exec"], short: "x" },
  fetch: { long: ["--upload-pack"] },
  pull: { long: ["--upload-pack"] },
  "fetch-pack": { long: ["--upload-pack", "--exec"] },
  clone: { long: ["--upload-pack"], short: "u" },
  "ls-remote": { long: ["--upload-pack"], short: "u" },
  archive: { long: ["--exec"] },
  push: { long: ["--receive-pack", "--exec"] },
  "send-pack": { long: ["--receive-pack", "--exec"] },
  "filter-branch": { long: ["--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter", "--setup"] },
  difftool: { long: ["--extcmd"], short: "x" },
  // -O[cmd] and --open-files-in-pager[=cmd]: a value only when attached.
  grep: { long: ["--open-files-in-pager"], short: "O", attached: true },
  "send-email": { long: ["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"] },
};

/** Configuration keys that run nothing: `git -c color.ui=never` is judged as the command after it. */
const INERT_KEY = /^(user|color|advice|i18n|column)\.|^(core\.(quotepath|autocrlf|safecrlf|filemode|ignorecase|abbrev|precomposeunicode)|init\.defaultbranch|(commit|tag)\.gpgsign|pull\.rebase|pull\.ff|merge\.ff|log\.date)$/;
/** Keys whose value is a command git runs through the shell: read as that script. */
const SCRIPT_KEY = /^(core\.(pager|editor|sshcommand)|sequence\.editor|pager\.[^.]+)$/;

/** A configuration key as git compares it: its section and its name in lower case, a subsection as written. */
const keyOf = (key: string): string => {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}.${key.slice(last + 1).toLowerCase()}`;
};

/** What a `-c KEY=VALUE` (or `--config-env KEY=VAR`, where the value comes from the environment) reaches. */
export function configReach(setting: ShellWord, fromEnv: boolean): Reach[] {
  if (setting.open !== undefined) return [{ opaque: `git configuration on the line, ${JSON.stringify(setting.text)}, is known only at run time and can name a command` }];
  const at = setting.text.indexOf("=");
  const key = keyOf(at === -1 ? setting.text : setting.text.slice(0, at));
  if (INERT_KEY.test(key)) return [];
  if (SCRIPT_KEY.test(key) && !fromEnv && at !== -1) return [{ script: { text: setting.text.slice(at + 1) }, by: `git's ${key}` }];
  return [{ opaque: `git configuration ${JSON.stringify(setting.text)} sets ${key}, which can make git run a command (an alias, a hook, a helper, a pager)` }];
}

/** The value of option `index` of `args` (`--x=V`, `--x V`, `-xV`, `-x V`): the word, or undefined when it has none. */
function valueAt(args: readonly ShellWord[], index: number, attached: boolean, letter?: string): ShellWord | undefined {
  const { text, open } = args[index] as ShellWord;
  const at = text.startsWith("--") ? text.indexOf("=") + 1 : letter ? text.indexOf(letter) + 1 : 0;
  if (at > 0 && at < text.length) return { text: text.slice(at), ...(open === undefined ? {} : { open: Math.max(0, open - at) }) };
  return attached ? undefined : args[index + 1];
}

/** What options of command `name` (with `args`) run through the shell. */
function commandReach(name: string, args: readonly ShellWord[]): Reach[] {
  const reach: Reach[] = [];
  const runs = RUNS[name];
  args.forEach((arg, index) => {
    const long = arg.text.startsWith("--") && runs?.long.find((option) => mayBe(arg.text, option));
    const short = runs?.short !== undefined && /^-[A-Za-z]+/.test(arg.text) && !arg.text.startsWith("--") && arg.text.includes(runs.short) ? runs.short : undefined;
    if (!long && !short) return;
    const value = valueAt(args, index, runs?.attached === true, short);
    if (value) reach.push({ script: value, by: `git ${name} ${long || `-${short}`}` });
  });
  if ((name === "clone" || name === "init") && args.some((arg) => mayBe(arg.text, "--template"))) reach.push({ opaque: `git ${name} --template copies hooks that git then runs` });
  if (name === "clone") args.forEach((arg, index) => (arg.text === "-c" || mayBe(arg.text, "--config")) && reach.push(...configReach(valueAt(args, index, false) ?? { text: "" }, false)));
  if (name === "submodule" && args.some((arg) => arg.text === "foreach")) {
    const command = args.slice(args.findIndex((arg) => arg.text === "foreach") + 1).filter((arg) => !/^--(recursive|quiet)$/.test(arg.text));
    reach.push({ script: { text: command.map((arg) => arg.text).join(" "), ...(command.some((arg) => arg.open !== undefined) ? { open: 0 } : {}) }, by: "git submodule foreach" });
  }
  if (name === "bisect" && args[0]?.text === "run") reach.push({ command: args.slice(1) });
  return reach;
}

/** git's options before its command that take the next word as their value. */
const VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source"]);

/**
 * What `git ARGS` reaches: its command without git's own options (`git -C . push` is `git push`), what its
 * configuration on the line and its command's options run, and, for a name git has no command for, something gg
 * cannot name.
 */
export function gitReach(args: readonly ShellWord[]): Reach[] {
  const reach: Reach[] = [];
  let i = 0;
  for (; i < args.length && (args[i] as ShellWord).text.startsWith("-"); i++) {
    const option = args[i] as ShellWord;
    if (option.open !== undefined) return [{ opaque: `git's option ${JSON.stringify(option.text)} is known only at run time` }];
    const [name = option.text] = option.text.split("=", 1);
    const value = VALUED.has(option.text) ? args[++i] : option.text.includes("=") ? { text: option.text.slice(name.length + 1) } : undefined;
    if (name === "-c" || name === "--config-env") reach.push(...configReach(value ?? { text: "" }, name === "--config-env"));
    else if (name === "--exec-path" && option.text.includes("=")) reach.push({ opaque: `${JSON.stringify(option.text)} makes git run its commands from another folder` });
    else if (value?.open !== undefined) reach.push({ opaque: `git's option ${name} ${JSON.stringify(value.text)} is known only at run time` });
  }
  // Its command without git's options is judged, and followed, as a line of its own.
  if (i > 0) return [...reach, ...(i < args.length ? [{ command: [{ text: "git" }, ...args.slice(i)] as RunWord[] }] : [])];
  const command = args[0];
  if (!command || command.open !== undefined) return reach;
  const rest = args.slice(1);
  if (PUSHES.has(command.text)) reach.push({ command: [{ text: "git" }, { text: "push" }, ...rest] });
  if (!COMMANDS.has(command.text)) reach.push({ opaque: `${JSON.stringify(`git ${command.text}`)} is no command of git's: an alias, help.autocorrect or a program on PATH decides what it runs` });
  return [...reach, ...commandReach(command.text, rest)];
}
