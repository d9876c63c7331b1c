// What a command reaches besides its own program, as its words tell: the commands and scripts it runs, what it runs
// that gg cannot name, and whether it runs them elsewhere. Shared by the readers of particular commands (git, the
// wrappers, sed and tar) and the walk that follows them (shell_commands.ts).
import type { ShellWord } from "../host/shell_parser.ts";

/**
 * A word of a command a line runs. `why` says what a word standing for something only run time gives stands for, and
 * `of` names the command of the line that runs it (`sed 'e rm x'`), for the question a person is asked.
 */
export interface RunWord extends ShellWord {
  why?: string;
  of?: string;
}

/** Something a command runs besides its own program. */
export type Reach =
  /** A command, as words: judged as any command of the line is, and followed through its own wrappers. */
  | { command: RunWord[] }
  /** A shell script (`sh -c` runs it): parsed again when it is a literal, else it cannot be judged. */
  | { script: ShellWord; by: string }
  /** Something it runs that gg cannot name, and why. */
  | { opaque: string }
  /** It runs what it runs in another directory (`env -C`, `find -execdir`), or with another root (`chroot`). */
  | { moves: "dir" | "root" };

/** A word standing for what only run time gives (a script read from stdin, xargs' input), with what it is. */
export const runTime = (why: string, of?: string): RunWord => ({ text: "…", open: 0, why, ...(of === undefined ? {} : { of }) });

/** `words` as a command line shows them, for a message. */
export const spoken = (words: readonly ShellWord[]): string => words.map((word) => word.text).join(" ");

/**
 * The long option `--given` names among `names` (each with its leading `--`) as GNU getopt reads it: exactly, or as
 * the only one it is a prefix of (`--ch` is `--chdir`); undefined when it names none, or several (getopt refuses).
 */
export function longOption(given: string, names: readonly string[]): string | undefined {
  if (names.includes(given)) return given;
  const matches = names.filter((name) => name.startsWith(given));
  return matches.length === 1 ? matches[0] : undefined;
}

/** Whether `given` (`--x` or `--x=v`) could be long option `name` under any abbreviation getopt accepts. */
export const mayBe = (given: string, name: string): boolean => {
  const [option = given] = given.split("=", 1);
  return option.length > 3 && name.startsWith(option);
};
