// Trials and their records. A study's trials are its cases × agents × repeats, in that order, each with a stable key
// (case/agent/repeat) that names its branch, worktree, transcript and patch. A record is one line of DIR/trials.jsonl,
// appended the moment its trial ends; the latest record of a key is the one that counts.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bands } from "../agent/loop.ts";
import type { Study, StudyAgent, StudyCase } from "./file.ts";

/** One trial: a case, an agent, a repeat (1-based). */
export interface Trial {
  key: string;
  case: StudyCase;
  agent: StudyAgent;
  repeat: number;
}

/** The study's trials in their fixed order: every case, every agent, every repeat. */
export function trialsOf(study: Study): Trial[] {
  return study.cases.flatMap((entry) =>
    study.agents.flatMap((agent) => Array.from({ length: study.repeats }, (_, index) => ({ key: `${entry.id}/${agent.id}/${index + 1}`, case: entry, agent, repeat: index + 1 }))),
  );
}

/** A shard: the I-th (1-based) of N. */
export interface Shard {
  index: number;
  count: number;
}

/** Shard `shard`'s trials: every N-th of the fixed order, starting at the I-th, so the N shards are disjoint and whole. */
export const shardOf = (trials: Trial[], shard: Shard): Trial[] => trials.filter((_, position) => position % shard.count === shard.index - 1);

/** Why a trial has no verdict: a provider failure, or the study could not set its directory up or judge it. */
type TrialErrorCode = "provider-error" | "isolation-failed" | "check-failed";

/** One finished trial, as a line of trials.jsonl. */
export interface TrialRecord {
  key: string;
  case: string;
  agent: string;
  model: string;
  arm: "tools" | "code";
  repeat: number;
  /** The commit the trial started from. */
  commit: string | null;
  /** The verdict: the check's exit 0 (or, for a case without a check, the agent ending with an answer); null without one. */
  pass: boolean | null;
  /** Why the agent stopped without an answer, or why there is no verdict (an error code a re-run retries). */
  error: { code: string; message: string } | null;
  /** The check's exit code and wall time (ms), and the tail of its output. */
  check: { exitCode: number; ms: number; output: string } | null;
  turns: number;
  /** gg's estimate of every request sent, added up per band; `entered` is their sum (tokens). */
  estimate: Bands & { entered: number };
  /**
   * The provider's count (tokens); `cached` of prompt's were read from its cache, `cacheWritten` written to it (null
   * when it did not say). Null when it reported none.
   */
  usage: { prompt: number; completion: number; cached: number | null; cacheWritten: number | null; turnsWithoutUsage: number } | null;
  /** USD at the catalog's prices, request by request (the agent report's cost); null when the catalog has none for the model (unknown, never 0). */
  cost: number | null;
  /** Wall time of the agent's run, ms. */
  agentMs: number;
  /** Wall time of the trial besides the agent: directory, specs, transcript, diff, check (ms). */
  overheadMs: number;
  /** Wall time of the whole trial, start to record, its directory's release included (ms). */
  wallMs: number;
  retries: number;
  /** Requests thrown away because the model refused a picture. */
  wastedRequests: number;
  filesChanged: { created: string[]; modified: string[]; deleted: string[] };
  /** The worktree (or copy) and branch kept with --keep. */
  kept?: { path: string; branch?: string };
  /** ISO time the trial ended. */
  ended: string;
}

/** Error codes a re-run tries again: the trial has no verdict. */
const RETRIED: ReadonlySet<string> = new Set<TrialErrorCode>(["provider-error", "isolation-failed", "check-failed"]);

/** Whether a record is a verdict a re-run keeps. */
export const isFinished = (record: TrialRecord): boolean => !(record.error && RETRIED.has(record.error.code));

/** The records of DIR/trials.jsonl, oldest first; a line cut short by a killed run is skipped. */
export function readRecords(out: string): TrialRecord[] {
  const file = join(out, "trials.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (line.trim() === "") return [];
      try {
        const record = JSON.parse(line) as TrialRecord;
        return typeof record.key === "string" ? [record] : [];
      } catch {
        return [];
      }
    });
}

/** The record that counts per key: a verdict over an error, else the later. */
export function latestByKey(records: TrialRecord[]): Map<string, TrialRecord> {
  const latest = new Map<string, TrialRecord>();
  for (const record of records) {
    const earlier = latest.get(record.key);
    if (earlier && isFinished(earlier) && !isFinished(record)) continue;
    latest.set(record.key, record);
  }
  return latest;
}

/** Appends one record as one line, in one write. */
export function appendRecord(out: string, record: TrialRecord): void {
  appendFileSync(join(out, "trials.jsonl"), `${JSON.stringify(record)}\n`);
}

/** A trial's verdict in a word. */
export const verdictOf = (record: TrialRecord): string => (record.pass === null ? `error[${record.error?.code}]` : record.pass ? "pass" : "fail");
/** Tokens billed by the provider: prompt and completion. */
export const billedOf = (record: TrialRecord): number | null => (record.usage ? record.usage.prompt + record.usage.completion : null);
