// A study's identity: a hash of what decides its trials' outcomes (each case's task, start commit, specs and check; each
// agent's model, arm and configuration; the limits), so that folders written by shards on other machines, from other
// paths, against another endpoint, are known to be one study. Paths, ports, temp names, the concurrency and the
// number of repeats (more repeats extend a study) are left out. Each results folder records it in DIR/study.json.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Study } from "./file.ts";
import { makeFolder } from "../host/folders.ts";

/** JSON with every object's keys sorted: the same value always hashes the same. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, inner: unknown) => (inner !== null && typeof inner === "object" && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : inner));

/** The identity of `study`: 16 hex digits of a SHA-256 of its cases, agents and limits. */
export function studyIdentity(study: Study): string {
  const cases = study.cases.map((entry) => ({ id: entry.id, task: entry.task, specs: entry.specs, check: entry.check ?? null, commit: entry.git?.commit ?? null, subdir: entry.git?.subdir ?? null }));
  // ownFiles are where the study's files lie on this machine, not what the study is.
  const agents = study.agents.map(({ id, model, arm, agent, config: { ownFiles: _where, ...config } }) => ({ id, model, arm, agent: agent ?? null, config }));
  const limits = { maxTurns: study.maxTurns ?? null, budgetSecs: study.budgetSecs ?? null };
  return createHash("sha256").update(canonical({ cases, agents, limits })).digest("hex").slice(0, 16);
}

/** The identity a results folder records, or undefined when it records none (a folder of an older gg, or no folder). */
export function recordedIdentity(dir: string): string | undefined {
  const file = join(dir, "study.json");
  if (!existsSync(file)) return undefined;
  try {
    const id = (JSON.parse(readFileSync(file, "utf8")) as { id?: unknown }).id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Results folders refused: of different studies, of no recorded study, or one that cannot be written. */
export class FoldersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FoldersError";
  }
}

/** Makes results folder `dir` (a run's or a merge's --out); one that cannot be made is a FoldersError saying so. */
export function makeResultsFolder(dir: string): void {
  try {
    makeFolder(dir);
  } catch (error) {
    throw new FoldersError(`Cannot write into ${dir}: ${(error as Error).message}; give --out a folder you can write to`);
  }
}

/** The one study `dirs` hold (undefined for a lone folder recording none); refuses folders of different studies, or of none recorded, together. */
export function oneStudy(dirs: readonly string[], action: string): string | undefined {
  const ids = dirs.map(recordedIdentity);
  if (dirs.length === 1 || (ids[0] !== undefined && ids.every((id) => id === ids[0]))) return ids[0];
  const byId = new Map<string, string[]>();
  for (const [index, dir] of dirs.entries()) byId.set(ids[index] ?? "", [...(byId.get(ids[index] ?? "") ?? []), dir]);
  const groups = [...byId].map(([id, folders]) => (id === "" ? `no recorded study in ${folders.join(", ")}` : `study ${id} in ${folders.join(", ")}`));
  const recover = byId.has("")
    ? "; a folder written before studies recorded their identity gets it when gg study run runs its study into it again (a finished study runs nothing)"
    : "; name only folders of one study (the id in DIR/study.json)";
  throw new FoldersError(`Cannot ${action}: the folders hold different studies: ${groups.join("; ")}${recover}`);
}
