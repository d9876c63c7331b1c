// A study trial as its run's page shows it: the verdict, the check's exit and output, the diff the trial left (when
// the study recorded one), and the study it belongs to.
import { existsSync, openSync, readSync, closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { latestByKey, readRecords, type TrialRecord, verdictOf } from "../study/trials.ts";

/** What a run's page says of the study trial it recorded. */
export interface TrialView {
  /** The study folder, as given to gg console (--study DIR). */
  study: string;
  key: string;
  /** "pass", "fail" or "error[code]". */
  verdict: string;
  error: TrialRecord["error"];
  check: TrialRecord["check"];
  /** The trial's diff (diffs/KEY.patch), its first MAX_DIFF bytes; absent when the study kept none. */
  diff?: string;
  /** Whether the diff was longer than what is shown. */
  diffCut?: boolean;
  cost: number | null;
}

/** Bytes of a diff a run's page shows: enough to read, never a page that cannot load. */
const MAX_DIFF = 256 * 1024;

/** The first MAX_DIFF bytes of `file`, and whether there was more. */
function head(file: string): { text: string; cut: boolean } {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, MAX_DIFF));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, read).toString("utf8"), cut: size > MAX_DIFF };
  } finally {
    closeSync(fd);
  }
}

/** The trial `key` of the study in `dir` (its latest record), or undefined when the study has no record of it. */
export function trialView(dir: string, key: string): TrialView | undefined {
  const record = latestByKey(readRecords(dir)).get(key);
  if (!record) return undefined;
  const patch = join(dir, "diffs", `${key}.patch`);
  const diff = existsSync(patch) ? head(patch) : undefined;
  return { study: dir, key, verdict: verdictOf(record), error: record.error, check: record.check, ...(diff ? { diff: diff.text, diffCut: diff.cut } : {}), cost: record.cost };
}
