// What the batch calls of seed 003 share: their numbers, the compact JSON every one of them answers with
// ({results, truncated, next, skipped}), the byte budget those results share, and how a walk's root is named.
import { isAbsolute, relative } from "node:path";
import picomatch from "picomatch";
import { type TSchema, Type } from "typebox";
import { excerpt, GgError, quote } from "../host/errors.ts";
import { resolvePath } from "../host/paths.ts";
import { hiddenBelow } from "./approval_walk.ts";
import type { CallContext } from "./define.ts";

/** Lines one read range holds at most. */
export const MAX_RANGE_LINES = 1000;
/** Ranges one read takes at most. */
export const MAX_RANGES = 16;
/** Replacements one edit takes at most. */
export const MAX_EDITS = 64;
/** The output budget in bytes: its default, and the range max_bytes may set. */
export const BUDGET = { default: 12_000, min: 1024, max: 64_000 } as const;
/** Results of list and glob: default and most per call. */
export const LIST_LIMIT = { default: 100, max: 500 } as const;
/** Hits of search: default and most per call; context lines at most. */
export const SEARCH_LIMIT = { default: 50, max: 200 } as const;
export const MAX_CONTEXT_LINES = 3;
/** File content search reads per page, and a read batch holds at most. */
export const PAGE_BYTES = 64 * 1024 * 1024;

/** The max_bytes parameter every batch call that returns results takes. */
export const maxBytesParameter = () =>
  Type.Optional(
    Type.Integer({
      minimum: BUDGET.min,
      maximum: BUDGET.max,
      description: `Bytes of output shared by all results of the call: ${BUDGET.min} to ${BUDGET.max}, default ${BUDGET.default}. A byte budget, not a token count.`,
    }),
  );

/** The include_ignored parameter of the walking calls. */
export const includeIgnoredParameter = () =>
  Type.Optional(Type.Boolean({ description: "Walk into .git, .hg, .svn, node_modules, target, __pycache__ and .venv too (skipped by default). Default false." }));

/** The answer of a batch call as data: what its JSON output holds. */
export interface BatchOutput<Result, Next> {
  results: Result[];
  /** True when results were left out: by the limit, the byte budget or a page; `next` continues from there. */
  truncated: boolean;
  next: Next | null;
  skipped: number;
}

/** The schema of a batch call's answer, named `id`. */
export const batchResult = (id: string, description: string, result: TSchema, next: TSchema, skipped: string) =>
  Type.Object(
    {
      results: Type.Array(result),
      truncated: Type.Boolean({ description: "True when results were left out (limit, byte budget or page): pass next to continue." }),
      next: Type.Union([next, Type.Null()], { description: "Where to continue from when truncated, else null." }),
      skipped: Type.Integer({ description: skipped }),
    },
    { $id: id, description },
  );

/**
 * The test of glob patterns against paths from the working directory: ** spans directories, dot files match; a
 * pattern that cannot be read (an unclosed bracket) is an invalid-argument error naming what was given.
 */
export function globMatcher(patterns: string | string[], what: string): (path: string) => boolean {
  try {
    return picomatch(patterns, { dot: true, strictBrackets: true });
  } catch (error) {
    throw new GgError("invalid-argument", `Cannot ${what} ${typeof patterns === "string" ? quote(patterns) : excerpt(JSON.stringify(patterns))}: ${(error as Error).message}; fix the pattern (brackets and braces must close)`);
  }
}

/** A batch call's text: its answer as compact JSON. */
export const renderBatch = (data: unknown): string => JSON.stringify(data);

/** Room kept for the answer's own fields and its continuation, beside the results. */
const ENVELOPE_BYTES = 160;

/** The output budget of one call: each result is taken while it fits. */
export function createBudget(maxBytes: number = BUDGET.default) {
  let used = ENVELOPE_BYTES;
  return {
    /** Whether `bytes` more fit; takes them when they do. */
    take(bytes: number): boolean {
      if (used + bytes > maxBytes) return false;
      used += bytes;
      return true;
    },
    /** Takes one result (its JSON and a comma) while it fits. */
    takeResult(result: unknown): boolean {
      return this.take(Buffer.byteLength(JSON.stringify(result)) + 1);
    },
    /** Bytes left. */
    left: (): number => maxBytes - used,
  };
}

/** A path argument resolved, and how results below it are named: relative to the working directory where it can be. */
export function walkRootOf(cwd: string, path: string | undefined): { absolute: string; shown: string } {
  const absolute = resolvePath(cwd, path ?? ".");
  const below = relative(cwd, absolute);
  // Outside the working directory only when the way there climbs out of it ("..cfg" is a name inside it).
  const outside = below === ".." || below.startsWith("../") || isAbsolute(below);
  return { absolute, shown: outside ? absolute : below };
}

/** How batch call `call` (with `args`) walks `path`: with the runtime's warm state, leaving out what the agent may not read. */
export function walkOptions(context: CallContext, call: { name: string }, args: Record<string, unknown>, path: string | undefined) {
  const hidden = hiddenBelow(context.config, call, args, path ?? ".", context);
  return { ...(context.warm ? { warm: context.warm } : {}), ...(hidden ? { hidden } : {}) };
}
