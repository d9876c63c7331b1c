// Folders of one study taken together (shards, or runs on several machines): the record that counts per key, and the
// folder it came from; and `gg study merge`, which writes those records, with their transcripts and patches, into one
// folder that reads like any run's. Within a folder its own latest record counts (a verdict over an error); across
// folders a key with two different verdicts is a conflict, refused unless the newest is preferred.
import { copyFileSync, existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FoldersError, makeResultsFolder, oneStudy } from "./identity.ts";
import { isFinished, latestByKey, readRecords, type TrialRecord } from "./trials.ts";
import { makeFolder } from "../host/folders.ts";

/** A record that counts, and the folder it is in. */
export interface Counted {
  record: TrialRecord;
  dir: string;
}

/** Which of two different verdicts for one key counts: none (a conflict), or the newest. */
export type Prefer = "none" | "newest";

const newest = (candidates: Counted[]): Counted => candidates.reduce((best, next) => (next.record.ended > best.record.ended ? next : best));

/** The record that counts per key across `dirs` (in the order keys first appear); conflicts refused unless `prefer` is "newest". */
export function countedRecords(dirs: readonly string[], prefer: Prefer): Counted[] {
  const byKey = new Map<string, Counted[]>();
  for (const dir of dirs) for (const record of latestByKey(readRecords(dir)).values()) byKey.set(record.key, [...(byKey.get(record.key) ?? []), { record, dir }]);
  const conflicts: string[] = [];
  const counted = [...byKey].map(([key, candidates]) => {
    const verdicts = candidates.filter((candidate) => isFinished(candidate.record));
    const distinct = new Set(verdicts.map((candidate) => JSON.stringify(candidate.record)));
    if (distinct.size > 1 && prefer === "none") conflicts.push(`${key} (in ${verdicts.map((candidate) => candidate.dir).join(" and ")})`);
    return newest(verdicts.length > 0 ? verdicts : candidates);
  });
  if (conflicts.length > 0) {
    throw new FoldersError(`Cannot merge: ${conflicts.length === 1 ? "a trial has verdicts" : `${conflicts.length} trials have verdicts`} in two folders: ${conflicts.join(", ")}; keep one of the folders' records (name fewer folders), or take the newest verdict of each with --prefer newest`);
  }
  return counted;
}

/** What a merge wrote. */
export interface Merged {
  study: string | undefined;
  records: TrialRecord[];
}

/** Copies `from` to `to` when it exists (a trial without a verdict may have no patch). */
function copyIfThere(from: string, to: string): void {
  if (!existsSync(from)) return;
  makeFolder(dirname(to));
  copyFileSync(from, to);
}

/**
 * Merges the study folders `dirs` into `out`: every key's record that counts (one line each in trials.jsonl), its
 * transcript and patch, and the study.json. `out` may already hold a merge of the same study (it is then one of the
 * folders merged), so a merge can be run again as shards come in.
 */
export function mergeFolders(dirs: readonly string[], out: string, prefer: Prefer): Merged {
  const target = resolve(out);
  const sources = [...new Set([...dirs.map((dir) => resolve(dir)), ...(existsSync(join(target, "trials.jsonl")) ? [target] : [])])];
  const study = oneStudy(sources, `merge ${sources.join(", ")}`);
  const counted = countedRecords(sources, prefer).sort((a, b) => (a.record.ended < b.record.ended ? -1 : a.record.ended > b.record.ended ? 1 : 0));
  // Made once the folders are known to merge, so a refused merge leaves nothing behind.
  makeResultsFolder(target);
  for (const { record, dir } of counted) {
    if (dir === target) continue;
    copyIfThere(join(dir, "transcripts", `${record.key}.jsonl`), join(target, "transcripts", `${record.key}.jsonl`));
    copyIfThere(join(dir, "diffs", `${record.key}.patch`), join(target, "diffs", `${record.key}.patch`));
  }
  const first = sources.find((dir) => dir !== target && existsSync(join(dir, "study.json")));
  if (first) copyFileSync(join(first, "study.json"), join(target, "study.json"));
  // Whole or not at all: a merge killed midway leaves the earlier trials.jsonl.
  const records = counted.map(({ record }) => record);
  writeFileSync(join(target, "trials.jsonl.new"), records.map((record) => `${JSON.stringify(record)}\n`).join(""));
  renameSync(join(target, "trials.jsonl.new"), join(target, "trials.jsonl"));
  return { study, records };
}
