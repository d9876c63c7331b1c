// Which paths tree and search skip: .gitignore and .ignore at every level, .git/info/exclude, and .git itself,
// whether or not the folder is a git repository yet. Rule matching is the `ignore` package's; precedence is
// ripgrep's: any .ignore beats any .gitignore, which beats .git/info/exclude, and deeper files beat shallower ones.
import { existsSync, realpathSync, statSync } from "node:fs";
import { readSearchedFile } from "./files.ts";
import type { WarmCache } from "./warm.ts";
import { dirname, resolve } from "node:path";
import ignore, { type Ignore } from "ignore";

type Kind = "ignore" | "gitignore" | "exclude";
const KINDS: readonly Kind[] = ["ignore", "gitignore", "exclude"];

/** The rules of one ignore file, as a walk tests paths against them, and the file's text. */
interface Rules {
  test(path: string): { ignored: boolean; unignored: boolean };
  text: string;
}

interface Level {
  /** Rules of each kind found in this directory. */
  rules: Partial<Record<Kind, Rules>>;
  /** Prefix that turns a path relative to the walk root into one relative to this directory. */
  prefix: string;
  /** Characters of the walk-relative path to drop first (levels below the root). */
  cut: number;
  /** What decides its verdicts: its rule files' texts, prefix and cut. */
  key: string;
}

/** The ignore rules in force in one directory of a walk: its own files plus every enclosing directory's. */
export interface IgnoreScope {
  readonly levels: readonly Level[];
  /**
   * What decides its verdicts (its levels' rule texts, prefixes and cuts): two scopes of one key ignore the same
   * entries, so what a walk made of a directory under one holds for the next walk under the other.
   */
  readonly key: string;
  /** The walk's root is itself ignored: nothing beneath it is scanned or shown. */
  readonly hidden?: boolean;
}

/**
 * Tests of one matcher before it starts afresh: the `ignore` package keeps the result of every path it has tested (and
 * of each one's parents), so one matcher for a walk of a million files would hold a million results.
 */
const TESTS_PER_MATCHER = 1 << 16;

function readRules(file: string, warm?: WarmCache): Rules | undefined {
  let text: string;
  try {
    // Read as a search reads a file: bounded, and a FIFO in its place refused rather than waited on.
    text = (warm ? warm.readFile(file) : readSearchedFile(file)).toString("utf8");
  } catch {
    return undefined;
  }
  // Case matters, as it does to git on a case-sensitive filesystem: `build/` does not hide `Build/`.
  const matcher = (): Ignore => ignore({ allowRelativePaths: true, ignorecase: false }).add(text);
  let rules = matcher();
  let tests = 0;
  return {
    text,
    test(path) {
      if (++tests > TESTS_PER_MATCHER) {
        rules = matcher();
        tests = 1;
      }
      return rules.test(path);
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Which rule files a directory holds, as its listing shows them. */
export interface RuleFiles {
  ignore: boolean;
  gitignore: boolean;
  /** A .git directory, whose info/exclude applies. */
  git: boolean;
}

/** The rule files present in `dir`, found by stat: for directories whose listing is not at hand. */
function probeRuleFiles(dir: string): RuleFiles {
  return { ignore: existsSync(`${dir}/.ignore`), gitignore: existsSync(`${dir}/.gitignore`), git: isDirectory(`${dir}/.git`) };
}

function levelAt(dir: string, present: RuleFiles, prefix: string, cut: number, warm?: WarmCache): Level | undefined {
  const rules: Level["rules"] = {};
  const dotIgnore = present.ignore ? readRules(`${dir}/.ignore`, warm) : undefined;
  const gitignore = present.gitignore ? readRules(`${dir}/.gitignore`, warm) : undefined;
  const exclude = present.git ? readRules(`${dir}/.git/info/exclude`, warm) : undefined;
  if (dotIgnore) rules.ignore = dotIgnore;
  if (gitignore) rules.gitignore = gitignore;
  if (exclude) rules.exclude = exclude;
  const key = [prefix, cut, dotIgnore?.text, gitignore?.text, exclude?.text].join("\0");
  return dotIgnore || gitignore || exclude ? { rules, prefix, cut, key } : undefined;
}

/**
 * The scope above the root of a walk (the root's own files join through {@link enterScope}). Rules of enclosing
 * directories apply, up to the enclosing repository's root
 * (the nearest directory holding .git) or, outside any repository, up to `workspace`. A root that those rules
 * ignore was named explicitly, so their rules are dropped rather than hiding everything beneath it.
 */
export function rootScope(given: string, workspaceGiven: string): IgnoreScope {
  // Ancestors are the real ones: `inner/.`, `a/../b` and symlinked folders name the directory they lead to.
  const root = canonical(given);
  const workspace = canonical(workspaceGiven);
  const chain: string[] = [];
  let dir = root;
  let repo = existsSync(`${root}/.git`);
  while (!repo) {
    const parent = dirname(dir);
    if (parent === dir) break;
    chain.push(parent);
    dir = parent;
    repo = existsSync(`${dir}/.git`);
  }
  const within = (path: string): boolean => path === workspace || path.startsWith(workspace === "/" ? "/" : `${workspace}/`);
  if (!repo) {
    const stop = chain.indexOf(workspace);
    chain.length = within(root) && stop !== -1 ? stop + 1 : 0;
  }
  const above: Level[] = [];
  const own: Level[] = [];
  for (const ancestor of chain.reverse()) {
    const prefix = `${root.slice(ancestor === "/" ? 1 : ancestor.length + 1)}/`;
    const level = levelAt(ancestor, probeRuleFiles(ancestor), prefix, 0);
    if (!level) continue;
    above.push(level);
    if (within(ancestor)) own.push(level);
  }
  // .git is never scanned, however it is reached.
  const inGit = within(root) && root.slice(workspace.length).split("/").includes(".git");
  const outer = scopeOf(above);
  if (!inGit && (above.length === 0 || !isIgnored(outer, "", true))) return outer;
  // The root is ignored. Rules from above the workspace that hide it would hide the project itself, so they are
  // dropped; the workspace's own rules hide an ignored folder from tree and search even when it is named as the root
  // (a file under it stays reachable through the other calls).
  const ownScope = scopeOf(own);
  return inGit || (own.length > 0 && isIgnored(ownScope, "", true)) ? { levels: [], hidden: true, key: "hidden" } : ownScope;
}

/** Whether tree and search skip the file at `path` (absolute), the rules of its own directory included. */
export function isIgnoredFile(path: string, workspace: string): boolean {
  const dir = dirname(path);
  const scope = rootScope(dir, workspace);
  if (scope.hidden) return true;
  return isIgnored(enterScope(scope, dir, "", probeRuleFiles(dir)), path.slice(path.lastIndexOf("/") + 1), false);
}

const scopeOf = (levels: Level[]): IgnoreScope => ({ levels, key: levels.map((level) => level.key).join("\u0001") });

function canonical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/** The scope inside `dir` (absolute), whose path relative to the walk root is `relative` ("" for the root). */
export function enterScope(scope: IgnoreScope, dir: string, relative: string, present: RuleFiles, warm?: WarmCache): IgnoreScope {
  if (!present.ignore && !present.gitignore && !present.git) return scope;
  const level = levelAt(dir, present, "", relative === "" ? 0 : relative.length + 1, warm);
  return level ? { levels: [...scope.levels, level], key: `${scope.key}\u0001${level.key}` } : scope;
}

/** Whether the entry at `relative` (to the walk root) is skipped by tree and search. */
export function isIgnored(scope: IgnoreScope, relative: string, isDir: boolean): boolean {
  const slash = relative.lastIndexOf("/");
  if (relative.slice(slash + 1) === ".git") return true;
  const { levels } = scope;
  if (levels.length === 0) return false;
  for (const kind of KINDS) {
    for (let i = levels.length - 1; i >= 0; i--) {
      const level = levels[i] as Level;
      const rules = level.rules[kind];
      if (!rules) continue;
      const local = level.prefix + relative.slice(level.cut);
      if (local === "") continue;
      const result = rules.test(isDir && !local.endsWith("/") ? `${local}/` : local);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
  }
  return false;
}
