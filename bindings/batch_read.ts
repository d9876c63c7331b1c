// read and view_image (batch, seed 003): many line ranges of many files in one call under one byte budget, and a
// picture as a picture.
import { type Static, Type } from "typebox";
import { type CallErrorCode, fromSystemError, GgError, isGgError } from "../host/errors.ts";
import { detectImage, IMAGE_SNIFF_BYTES } from "../host/image.ts";
import { BINARY_HEAD_BYTES, binaryHead, notRegular } from "../host/files.ts";
import { resolvePath } from "../host/paths.ts";
import type { Configuration } from "./capabilities.ts";
import { type BatchOutput, batchResult, BUDGET, createBudget, MAX_RANGE_LINES, MAX_RANGES, maxBytesParameter, PAGE_BYTES, renderBatch } from "./batch.ts";
import { type Attachment, type CallContext, defineCall, ErrorCode, forHoldings } from "./define.ts";
import { imageRule, readImage, reading } from "./read_file.ts";

/** Lines a range without an end holds: the read-file capability's lineCap under batch. */
const rangeLines = (config: Configuration): number => Number(config.capabilities["read-file"].params.lineCap);

const RangeText = Type.Object(
  {
    path: Type.String({ description: "The file, as the range named it." }),
    start_line: Type.Integer({ description: "1-based first line shown." }),
    end_line: Type.Integer({ description: "1-based last line shown (start_line - 1 when none is: the range starts past the end)." }),
    total_lines: Type.Integer({ description: "Lines in the whole file." }),
    text: Type.String({ description: "The lines, each ending removed, joined by \\n." }),
  },
  { description: "A range read." },
);
const RangeFailure = Type.Object(
  {
    path: Type.String(),
    start_line: Type.Optional(Type.Integer({ description: "For a line too large for the budget: that line." })),
    error: Type.Object({ code: ErrorCode, message: Type.String() }),
  },
  { description: "A range that could not be read; the other ranges are read all the same." },
);
const ReadNext = Type.Object(
  {
    file_index: Type.Integer({ description: "Index in the call's files of the range to continue." }),
    start_line: Type.Integer({ description: "Its first unread line." }),
    end_line: Type.Integer({ description: "Its end, as it was." }),
  },
  { description: "Call read again with this range and the files after it." },
);
export const ReadResult = batchResult(
  "ReadResult",
  "What gg.files.read read: each range's lines, or why it could not be read.",
  Type.Union([RangeText, RangeFailure], { $id: "ReadRange" }),
  ReadNext,
  "Ranges that failed (missing, unreadable, binary, or a line larger than the budget).",
);
export type ReadResult = BatchOutput<Static<typeof RangeText> | Static<typeof RangeFailure>, Static<typeof ReadNext>>;

/** A file as one call reads it: its lines, or why it cannot be read. */
type Loaded = { lines: string[] } | { error: { code: CallErrorCode; message: string } };

/** Reads and splits `absolute` once per call; `held` is the bytes the call holds so far. */
function load(absolute: string, path: string, context: CallContext, held: { bytes: number }): Loaded {
  try {
    return reading(absolute, context, (at) => loadAt(at, path, context, held));
  } catch (error) {
    const typed = isGgError(error) ? error : fromSystemError("read", path, error);
    // Every code a host read throws is a call's code; a run's codes never arise here.
    return { error: { code: typed.code as CallErrorCode, message: forHoldings(typed.message.replaceAll(absolute, path), context.config) } };
  }
}

/** {@link load}'s read of the file at `at`, throwing what fails. */
function loadAt(at: string, path: string, context: CallContext, held: { bytes: number }): { lines: string[] } {
  const stat = context.files.stat(at, "read");
  if (stat.kind === "directory") throw new GgError("invalid-argument", `Cannot read ${path}: it is a directory; list it with list or glob`);
  if (stat.kind !== "file") throw notRegular(path);
  if (held.bytes + stat.size > PAGE_BYTES) {
    const way = held.bytes === 0 ? "search it for what you need" : "read it in a call of its own, or search it";
    throw new GgError("over-cap", `Cannot read ${path}: its ${stat.size} bytes would take this call past the 64 MiB a read holds; ${way}`);
  }
  // A picture or a binary file is known from its head: the rest is never read.
  const head = context.files.readHead(at, Math.max(IMAGE_SNIFF_BYTES, BINARY_HEAD_BYTES));
  if (detectImage(head.subarray(0, IMAGE_SNIFF_BYTES))) throw new GgError("invalid-argument", `Cannot read ${path} as text: it is a picture; look at it with view_image`);
  if (binaryHead(head)) throw new GgError("invalid-argument", `Cannot read ${path} as text: it is binary (it holds a NUL byte); inspect it with a command such as xxd`);
  // A file no longer than its head was read whole already.
  const bytes = head.length === stat.size ? head : context.files.readFile(at);
  held.bytes += bytes.length;
  // Bytes that are not UTF-8 read as U+FFFD, as read_file reads them.
  let text = bytes.toString("utf8");
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (text.endsWith("\n") || text === "") lines.pop();
  return { lines };
}

export const read = defineCall({
  name: "read",
  capability: "read-file",
  batch: true,
  brief: `Read up to ${MAX_RANGES} line ranges of any files in one call, under one byte budget.`,
  code: { module: "files", name: "read", positional: ["files"] },
  result: ReadResult,
  parameters: (config) =>
    Type.Object(
      {
        files: Type.Array(
          Type.Object(
            {
              path: Type.String({ minLength: 1, description: "File to read: relative to the working directory, or absolute." }),
              start_line: Type.Optional(Type.Integer({ minimum: 1, description: "1-based first line. Default 1." })),
              end_line: Type.Optional(Type.Integer({ minimum: 1, description: `1-based last line, inclusive. Default: start_line + ${rangeLines(config) - 1}. A range holds at most ${MAX_RANGE_LINES} lines.` })),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: MAX_RANGES, description: `The ranges, 1 to ${MAX_RANGES}; a file may appear more than once.` },
        ),
        max_bytes: maxBytesParameter(),
      },
      { additionalProperties: false },
    ),
  description: (config) =>
    [
      `Read line ranges of files, up to ${MAX_RANGES} ranges of any files in one call: lines are 1-based and end_line is inclusive; a range without end_line holds ${rangeLines(config)} lines, and at most ${MAX_RANGE_LINES}.`,
      `Every range shares one output budget (max_bytes, ${BUDGET.min} to ${BUDGET.max}, default ${BUDGET.default}); when it runs out the answer is truncated and next names the range to continue with ({file_index, start_line, end_line}): call read again with it and the files after it.`,
      "A line too large for the budget is an error with a continuation past it, never a clipped line: raise max_bytes or search for it.",
      "A missing or unreadable file fails alone, beside the other ranges; a malformed range (start_line below 1, end before start, over the line limit) or an empty path refuses the whole call.",
      "Lines come without their endings (CRLF as LF) and without a byte-order mark. A call holds at most 64 MiB of files. The answer is compact JSON {results, truncated, next, skipped}.",
    ].join(" "),
  run({ files, max_bytes }, context): ReadResult {
    const ranges = files.map((file, index) => {
      const start = file.start_line ?? 1;
      const end = file.end_line ?? start + rangeLines(context.config) - 1;
      const where = `files[${index}] (${file.path}, lines ${start}-${end})`;
      if (end < start) throw new GgError("invalid-argument", `Cannot read ${where}: end_line is before start_line; no range was read`);
      if (end - start + 1 > MAX_RANGE_LINES) throw new GgError("invalid-argument", `Cannot read ${where}: ${end - start + 1} lines is over the ${MAX_RANGE_LINES} a range holds; split it, no range was read`);
      return { path: file.path, start, end };
    });
    const loaded = new Map<string, Loaded>();
    const held = { bytes: 0 };
    const budget = createBudget(max_bytes);
    const limit = max_bytes ?? BUDGET.default;
    const results: ReadResult["results"] = [];
    let skipped = 0;
    const stop = (index: number, start: number, end: number): ReadResult => ({ results, truncated: true, next: { file_index: index, start_line: start, end_line: end }, skipped });
    // An answer with no result would hand back the cursor it was given: the call fails instead.
    const never = (what: string): never => {
      throw new GgError("over-cap", `Cannot read ${what}: it is over the output budget of ${limit} bytes even alone; raise max_bytes (at most ${BUDGET.max})`);
    };
    for (const [index, range] of ranges.entries()) {
      const absolute = resolvePath(context.cwd, range.path);
      let file = loaded.get(absolute);
      if (!file) loaded.set(absolute, (file = load(absolute, range.path, context, held)));
      if ("error" in file) {
        const failure = { path: range.path, error: file.error };
        if (!budget.takeResult(failure)) return results.length > 0 ? stop(index, range.start, range.end) : never(`files[${index}] (${range.path}): its failure`);
        results.push(failure);
        skipped++;
        continue;
      }
      const total = file.lines.length;
      const last = Math.min(range.end, total);
      const empty = { path: range.path, start_line: range.start, end_line: range.start - 1, total_lines: total, text: "" };
      // Charged as it may be answered: its end_line has at most the digits of the last line it can show.
      if (!budget.takeResult({ ...empty, end_line: Math.max(last, range.start - 1) })) return results.length > 0 ? stop(index, range.start, range.end) : never(`files[${index}] (${range.path})`);
      const shown: string[] = [];
      for (let line = range.start; line <= last; line++) {
        const text = file.lines[line - 1] as string;
        // The line's bytes as JSON escapes them, and the \n that joins it to the one before.
        if (budget.take(Buffer.byteLength(JSON.stringify(text)) - 2 + (shown.length > 0 ? 2 : 0))) {
          shown.push(text);
          continue;
        }
        if (shown.length > 0) results.push({ ...empty, end_line: line - 1, text: shown.join("\n") });
        // A line that cannot fit even an empty answer never will: say so, and continue past it.
        const hopeless = shown.length === 0 && results.length === 0;
        if (!hopeless) return stop(index, line, range.end);
        const failure = { path: range.path, start_line: line, error: { code: "over-cap" as const, message: `Line ${line} is ${Buffer.byteLength(text)} bytes, over the output budget of ${limit}; raise max_bytes (at most ${BUDGET.max}), or search it for a bounded snippet` } };
        if (!budget.takeResult(failure)) never(`line ${line} of files[${index}] (${range.path})`);
        results.push(failure);
        skipped++;
        const more = line < range.end && line < total;
        const next = more ? { file_index: index, start_line: line + 1, end_line: range.end } : index + 1 < ranges.length ? { file_index: index + 1, start_line: ranges[index + 1]?.start as number, end_line: ranges[index + 1]?.end as number } : null;
        return { results, truncated: next !== null, next, skipped };
      }
      results.push({ ...empty, end_line: shown.length === 0 ? range.start - 1 : last, text: shown.join("\n") });
    }
    return { results, truncated: false, next: null, skipped };
  },
  render: renderBatch,
});

const ImageShown = Type.Object(
  {
    path: Type.String(),
    format: Type.String({ description: '"PNG", "JPEG", "GIF" or "WebP".' }),
    bytes: Type.Integer(),
    width: Type.Optional(Type.Integer()),
    height: Type.Optional(Type.Integer()),
    attached: Type.Boolean({ description: "Whether the picture travels with the answer." }),
    withheld: Type.Optional(Type.String({ description: "Why it does not, when it does not." })),
  },
  { description: "A picture looked at." },
);
export const ViewImageResult = batchResult("ViewImageResult", "What gg.files.viewImage saw: the picture's descriptor.", ImageShown, Type.Null(), "Always 0.");
export type ViewImageResult = BatchOutput<Static<typeof ImageShown>, null>;

/** view_image's look at the picture at `at` (named `path` in messages). */
function view(at: string, path: string, context: CallContext): Viewed {
  const stat = context.files.stat(at, "view");
  if (stat.kind !== "file") throw new GgError("invalid-argument", `Cannot view ${path}: it is not a file; find pictures with glob`);
  const format = detectImage(context.files.readHead(at, IMAGE_SNIFF_BYTES));
  if (!format) throw new GgError("invalid-argument", `Cannot view ${path}: it is not a PNG, JPEG, GIF or WebP picture (recognised by content); read it with read`);
  const seen = readImage(at, path, format, stat.size, context);
  if (!("image" in seen)) throw new GgError("io-error", `Cannot view ${path}: it was read as text`);
  const { image } = seen;
  const result = {
    path,
    format: image.format,
    bytes: image.bytes,
    ...(image.width === undefined ? {} : { width: image.width, height: image.height }),
    attached: seen.attachment !== undefined,
    ...(seen.withheld ? { withheld: seen.withheld } : {}),
  };
  return { results: [result], truncated: false, next: null, skipped: 0, ...(seen.attachment ? { attachment: seen.attachment } : {}) };
}

/** A picture looked at, with the picture itself while it travels. */
type Viewed = ViewImageResult & { attachment?: Attachment };

export const viewImage = defineCall({
  name: "view_image",
  capability: "read-file",
  batch: true,
  brief: "See a PNG, JPEG, GIF or WebP picture.",
  // A program gets the descriptor; the picture itself only ever travels to the model.
  code: { module: "files", name: "viewImage", positional: ["path"], value: ({ results, truncated, next, skipped }: Viewed): ViewImageResult => ({ results, truncated, next, skipped }) },
  result: ViewImageResult,
  parameters: () => Type.Object({ path: Type.String({ minLength: 1, description: "The picture: relative to the working directory, or absolute." }) }, { additionalProperties: false }),
  description: (config) =>
    `Look at a picture. The format is recognised by content, not by name. ${imageRule(config)} The answer is compact JSON {results: [{path, format, bytes, width, height, attached}], truncated, next, skipped}.`,
  run({ path }, context): Viewed {
    return reading(resolvePath(context.cwd, path), context, (at) => view(at, path, context));
  },
  render: ({ results, truncated, next, skipped }) => renderBatch({ results, truncated, next, skipped }),
  attachments: (data) => (data.attachment ? [data.attachment] : undefined),
});
