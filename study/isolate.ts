// Each trial works in its own directory: a git worktree of the case's repository at the case's commit, on a branch of
// its own, or a copy of a plain folder (with a git directory beside it, outside the agent's sight, to diff against).
// Branches live under gg-study/<folder id>/KEY, where the folder id is derived from DIR's absolute path: a re-run into
// the same DIR finds whatever a killed run left, and removes it, and shards writing to other folders (other processes
// on one repository) never touch each other's. A worktree whose trial is recorded is not removed but reset for the next
// trial on its repository (a checkout of a large tree costs far more than undoing the few files a trial touched), in
// DIR/worktrees/.pool/N; with --keep each trial keeps its own, DIR/worktrees/KEY. The study removes its pool at its end.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { StudyCase } from "./file.ts";
import { makeFolder } from "../host/folders.ts";

/** The folder id of output folder `out`: names its branches. */
export const branchIdOf = (out: string): string => createHash("sha256").update(resolve(out)).digest("hex").slice(0, 8);

/** The branches of folder id `id`, under refs/heads/. */
const branchPrefix = (id: string): string => `gg-study/${id}/`;

/** Where trial `key`'s worktree or copy lives. */
const trialRoot = (out: string, key: string): string => join(out, "worktrees", key);

/** A trial's directory, and how to diff and remove it. */
export interface Isolation {
  /** The trial's workspace: the worktree (or copy), at the case's folder within it. */
  dir: string;
  /** The worktree or the copy. */
  root: string;
  /** The branch of a worktree. */
  branch?: string;
  /** The commit the trial started from. */
  commit: string;
  /** git's arguments that address the trial's tree (a worktree's own, or a copy's git directory beside it). */
  gitArgs: string[];
  /** The repository a worktree belongs to. */
  repo?: string;
  /** The pool a worktree returns to when its trial is recorded. */
  pooled?: string;
}

const IDENTITY = ["-c", "user.name=gg study", "-c", "user.email=gg-study@localhost", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"];

/** Runs git once; its stdout, or a rejection carrying what it said on stderr. */
function gitOnce(args: string[], cwd?: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile("git", args, { cwd, encoding: "utf8", maxBuffer: 1024 ** 3 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`git ${args.filter((arg) => !arg.startsWith("--git-dir=") && !arg.startsWith("--work-tree=")).join(" ")} failed: ${stderr.trim() || error.message}`));
      else done(stdout);
    });
  });
}

/**
 * Attempts of a git command that found a lock taken (another process's shard on the same repository holds it briefly),
 * waiting 0.1, 0.2, 0.4, 0.8, then 1 s between them: about 6.5 s in all, for a loaded machine running many shards.
 */
const LOCK_ATTEMPTS = 10;
/**
 * What git says when another process holds a lock (`Unable to create '….lock': File exists`, `cannot lock ref`, `could
 * not lock config file`) or is midway through making a worktree: git writes a new worktree's files after truncating
 * them, and a git command listing the worktrees meanwhile dies on the empty one (`failed to read
 * .git/worktrees/02/commondir: Success`).
 */
const LOCKED = /\.lock'?: File exists|(cannot|could not|unable to) lock|failed to read \S*worktrees\//i;

/** Runs git; its stdout, or a rejection carrying what it said on stderr. Another process's lock or half-made worktree is waited out. */
export async function git(args: string[], cwd?: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await gitOnce(args, cwd);
    } catch (error) {
      if (attempt === LOCK_ATTEMPTS || !LOCKED.test((error as Error).message)) throw error;
      await sleep(Math.min(50 * 2 ** attempt, 1000));
    }
  }
}

/** The last operation queued on each repository: git takes locks on refs and worktrees that concurrent trials would collide on. */
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` on repository `repo` after the operations queued on it so far. */
function serially<T>(repo: string, work: () => Promise<T>): Promise<T> {
  const result = (queues.get(repo) ?? Promise.resolve()).then(work);
  queues.set(repo, result.catch(() => {}));
  return result;
}

/** Makes trial `key`'s directory for `study case`: a worktree at its commit on the trial's branch, or a copy. */
export async function isolate(entry: StudyCase, key: string, out: string, folderId: string, pooled = true): Promise<Isolation> {
  const start = entry.git;
  if (start) {
    const branch = `${branchPrefix(folderId)}${key}`;
    const repo = start.root;
    const idle = pooled ? pools.get(poolKey(out, repo))?.pop() : undefined;
    if (idle) return await reset(idle, branch, start.commit, start.subdir);
    const root = pooled ? join(out, "worktrees", ".pool", String(slots++)) : trialRoot(out, key);
    makeFolder(dirname(root));
    await serially(repo, () => git(["worktree", "add", "--quiet", "-B", branch, root, start.commit], repo));
    return { dir: join(root, start.subdir), root, branch, commit: start.commit, gitArgs: ["-C", root], repo, ...(pooled ? { pooled: poolKey(out, repo) } : {}) };
  }
  const root = trialRoot(out, key);
  makeFolder(dirname(root));
  copyExcept(entry.workspace, root, resolve(out));
  const gitArgs = [`--git-dir=${root}.git`, `--work-tree=${root}`];
  await git([...gitArgs, "init", "--quiet"]);
  await git([...gitArgs, "add", "-A"]);
  await git([...IDENTITY, ...gitArgs, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "start"]);
  const commit = (await git([...gitArgs, "rev-parse", "HEAD"])).trim();
  return { dir: root, root, commit, gitArgs };
}

/** Copies folder `from` to `to` but `skip` (the output folder, which may lie inside a workspace and holds the copy). */
function copyExcept(from: string, to: string, skip: string): void {
  if (!skip.startsWith(`${from}${sep}`)) return cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  makeFolder(to);
  for (const name of readdirSync(from)) if (join(from, name) !== skip) copyExcept(join(from, name), join(to, name), skip);
}

/** The trial's changes against its start, committed or not, untracked files included, as a binary-safe patch. */
export async function diffOf(isolation: Isolation): Promise<string> {
  await git([...isolation.gitArgs, "add", "-A"]);
  return git([...isolation.gitArgs, "diff", "--cached", "--binary", isolation.commit]);
}

/** Idle worktrees by output folder and repository, and the number of the next one made. */
const pools = new Map<string, Isolation[]>();
let slots = 0;
const poolKey = (out: string, repo: string): string => `${resolve(out)}\0${repo}`;

/** An idle worktree made as a fresh checkout of `commit` would be, on the trial's branch; its last trial's branch goes. */
async function reset(idle: Isolation, branch: string, commit: string, subdir: string): Promise<Isolation> {
  const repo = idle.repo as string;
  await serially(repo, async () => {
    await git(["-C", idle.root, "checkout", "--quiet", "--force", "-B", branch, commit]);
    if (idle.branch && idle.branch !== branch) await git(["branch", "-D", "--quiet", idle.branch], repo);
  });
  // Untracked and ignored files too: a fresh checkout holds neither.
  await git(["-C", idle.root, "clean", "--quiet", "-ffdx"]);
  return { ...idle, dir: join(idle.root, subdir), branch, commit };
}

/** Ends a trial's use of its directory: a pooled worktree waits for the next trial, anything else is removed. */
export async function releaseIsolation(isolation: Isolation): Promise<void> {
  if (isolation.pooled === undefined) return removeIsolation(isolation);
  const idle = pools.get(isolation.pooled) ?? [];
  idle.push(isolation);
  pools.set(isolation.pooled, idle);
}

/** Removes the idle worktrees of the study writing to `out`, with their branches. */
export async function drainPool(out: string): Promise<void> {
  for (const [key, idle] of pools) {
    if (!key.startsWith(`${resolve(out)}\0`)) continue;
    pools.delete(key);
    for (const isolation of idle) await removeIsolation(isolation).catch(() => {});
  }
}

/** Removes a trial's worktree and branch, or its copy. */
async function removeIsolation(isolation: Isolation): Promise<void> {
  const { repo, branch } = isolation;
  if (repo) {
    await serially(repo, async () => {
      await git(["worktree", "remove", "--force", isolation.root], repo);
      if (branch) await git(["branch", "-D", "--quiet", branch], repo);
    });
    return;
  }
  rmSync(isolation.root, { recursive: true, force: true });
  rmSync(`${isolation.root}.git`, { recursive: true, force: true });
}

/** What a sweep removed: worktrees (and copies), and branches. */
export interface Swept {
  worktrees: string[];
  branches: string[];
}

/**
 * Removes what runs into `out` (branches under `folderId`) left behind (a killed run's worktrees, copies and branches), except
 * those of trials in `kept` (recorded as kept with --keep); then `git worktree prune` in each repository.
 */
export async function sweep(out: string, folderId: string, repos: string[], kept: ReadonlySet<string>): Promise<Swept> {
  const swept: Swept = { worktrees: [], branches: [] };
  const prefix = branchPrefix(folderId);
  // Each repository's sweep waits for the git operations queued on it (a trial's worktree being made is swept too).
  for (const repo of new Set(repos)) await serially(repo, () => sweepRepository(repo, prefix, kept, swept));
  // Copies, and folders a worktree's removal missed: trial roots are three levels down (case/agent/repeat).
  const base = join(out, "worktrees");
  const walk = (dir: string, depth: number, key: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const inner = key === "" ? name : `${key}/${name}`;
      // The pool's worktrees went with their branches above; a folder left of one goes whole.
      if (depth === 1 && name === ".pool") rmSync(join(dir, name), { recursive: true, force: true });
      else if (depth < 3) walk(join(dir, name), depth + 1, inner);
      else if (!kept.has(inner.replace(/\.git$/, ""))) {
        rmSync(join(dir, name), { recursive: true, force: true });
        if (!name.endsWith(".git") && !swept.worktrees.includes(join(dir, name))) swept.worktrees.push(join(dir, name));
      }
    }
  };
  walk(base, 1, "");
  return swept;
}

/** Removes the worktrees and branches under `prefix` in `repo`, but those of trials in `kept`; adds what went to `swept`. */
async function sweepRepository(repo: string, prefix: string, kept: ReadonlySet<string>, swept: Swept): Promise<void> {
  const keyOf = (branch: string): string => branch.slice(prefix.length);
  const listing = await git(["worktree", "list", "--porcelain"], repo);
  for (const block of listing.split("\n\n")) {
    const path = /^worktree (.*)$/m.exec(block)?.[1];
    const branch = /^branch refs\/heads\/(.*)$/m.exec(block)?.[1];
    if (!path || !branch?.startsWith(prefix) || kept.has(keyOf(branch))) continue;
    // Twice forced: a worktree whose checkout a kill interrupted is still locked ("initializing").
    await git(["worktree", "remove", "--force", "--force", path], repo).catch(() => rmSync(path, { recursive: true, force: true }));
    swept.worktrees.push(path);
  }
  await git(["worktree", "prune"], repo);
  const branches = (await git(["for-each-ref", "--format=%(refname:short)", `refs/heads/${prefix}`], repo)).split("\n").filter(Boolean);
  for (const branch of branches) {
    if (kept.has(keyOf(branch))) continue;
    await git(["branch", "-D", "--quiet", branch], repo);
    swept.branches.push(branch);
  }
}
