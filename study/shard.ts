// The shard a worker runs when a scheduler spreads a study over machines: each worker knows only its 0-based index,
// from its environment (a Kubernetes Indexed Job's pod, a SLURM array task, or anything that sets GG_SHARD_INDEX, such
// as a CI matrix). Index I of N is the same slice as --shard I+1/N.
import type { Shard } from "./trials.ts";

/** The variables read, first found first. */
export const SHARD_VARIABLES = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "GG_SHARD_INDEX"] as const;

const wholeNumber = (text: string): number | undefined => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);

/** The shard of `count` this worker runs, from `env`; or why none can be taken. */
export function shardFromEnvironment(count: number, env: Record<string, string | undefined> = process.env): { shard: Shard } | { refused: string } {
  const name = SHARD_VARIABLES.find((variable) => (env[variable] ?? "") !== "");
  if (name === undefined) {
    return { refused: `--shards ${count} takes this worker's 0-based index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN (a SLURM job array) or GG_SHARD_INDEX, and none is set; set one, or name the shard with --shard I/N` };
  }
  const raw = env[name] as string;
  let index = wholeNumber(raw);
  let from = `${name}=${raw}`;
  if (name === "SLURM_ARRAY_TASK_ID") {
    const min = wholeNumber(env.SLURM_ARRAY_TASK_MIN ?? "");
    if (min === undefined) return { refused: `SLURM_ARRAY_TASK_ID is ${JSON.stringify(raw)} but SLURM_ARRAY_TASK_MIN is ${JSON.stringify(env.SLURM_ARRAY_TASK_MIN ?? "")}; --shards counts from the array's first task, so both must be whole numbers (sbatch --array sets them)` };
    from = `SLURM_ARRAY_TASK_ID=${raw} minus SLURM_ARRAY_TASK_MIN=${min}`;
    index = index === undefined ? undefined : index - min;
  }
  if (index === undefined || index < 0 || index >= count) {
    return { refused: `--shards ${count} needs a 0-based index from 0 to ${count - 1}, but ${from}${index === undefined ? " is not a whole number" : ` gives ${index}`}; run ${count} workers indexed 0 to ${count - 1} (an array of step 1), or set --shards to their number` };
  }
  return { shard: { index: index + 1, count } };
}
