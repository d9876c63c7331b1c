// Variables that carry code: set on a line (`NODE_OPTIONS=--require=x cat a`, `export PATH=...`, `env LD_PRELOAD=...`),
// they make the commands after them run something no word of the line names, so a rule allowing those commands
// cannot judge them. A variable whose value is a command a program runs (`GIT_EDITOR=true`) is read as that script.
import type { ShellAssignment } from "../host/shell_parser.ts";
import type { Reach } from "./shell_reach.ts";

/** Variables whose value is a shell command a program runs (git's editor and pager, ssh for git, bash's prompt hook). */
const SCRIPTS = new Set(["GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "SUDO_EDITOR", "PROMPT_COMMAND"]);

/**
 * Variables that load code, name the program run, or change where programs read their configuration (which can name
 * programs in turn): the dynamic loader's, the interpreters' start-up options and paths, the shell's start-up file and
 * options, PATH and HOME, git's configuration and helpers, npm's, tar's and make's options.
 */
const CODE = new Set([
  "PATH", "HOME", "XDG_CONFIG_HOME", "SHELL", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
  "NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
  "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GCONV_PATH", "LOCPATH",
  "GIT_EXEC_PATH", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_COMMON_DIR",
  "LESSOPEN", "LESSCLOSE", "BROWSER", "TAR_OPTIONS", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS",
]);
/** Families of such variables: the loader's (`LD_PRELOAD`), git's configuration (`GIT_CONFIG_COUNT`, `GIT_CONFIG_PARAMETERS`), npm's, bash's exported functions. */
const CODE_FAMILIES = /^(LD_|DYLD_|GIT_CONFIG|NPM_CONFIG_|BASH_FUNC_)/i;
/** Prompts: their value is expanded (command substitutions run) when shown, `PS4` on each traced command. */
const PROMPTS = new Set(["PS0", "PS1", "PS2", "PS3", "PS4"]);

/** What setting `assignment` on a line reaches: its value run as a script, or code gg cannot name; nothing for most. */
export function assignmentReach(assignment: ShellAssignment): Reach[] {
  const { name, value, written } = assignment;
  if (SCRIPTS.has(name)) return [{ script: value, by: name }];
  if (CODE.has(name) || CODE_FAMILIES.test(name)) return [{ opaque: `${JSON.stringify(written)} sets ${name}, which can make the commands after it run code no word of the line names` }];
  if (PROMPTS.has(name) && /[$`]/.test(value.text)) return [{ opaque: `${JSON.stringify(written)} sets the prompt ${name}, whose substitutions run when it is shown` }];
  if (assignment.storesCode) return [{ opaque: `${JSON.stringify(written)} stores a command substitution as text, which a later expansion (eval, arithmetic, \${x@P}) can run` }];
  return [];
}

/** `NAME=VALUE` given to a command as a setting (`env A=1 cmd`, `sudo A=1 cmd`, `strace -E A=1`), as an assignment. */
export function settingOf(text: string, open?: number): ShellAssignment | undefined {
  const at = text.indexOf("=");
  if (at <= 0) return undefined;
  const tail = text.slice(at + 1);
  const value = open === undefined ? { text: tail } : { text: tail, open: Math.max(0, open - at - 1) };
  return { name: text.slice(0, at), value, storesCode: /\$\(|`/.test(tail.slice(0, value.open)), written: text };
}
