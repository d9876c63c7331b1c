// edit_file: replace one exact, unique occurrence of a string. The edit works on bytes, so line endings, a BOM and
// bytes that are not UTF-8 outside the replaced span are written back unchanged.
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { notRegular } from "../host/files.ts";
import { countLines, countNewlines, grouped, lineCounter, plural } from "../host/lines.ts";
import { resolvePath, shownPath } from "../host/paths.ts";
import { encodeText, requireEncodable } from "../host/utf8.ts";
import { reading } from "./read_file.ts";
import { type CallContext, defineCall, parameterName } from "./define.ts";

/** An edit, as data. */
export const EditResult = Type.Object(
  {
    path: Type.String({ description: "The file, as the call named it." }),
    line: Type.Integer({ description: "1-based line where the replacement starts." }),
    oldLines: Type.Integer({ description: "Lines the replaced text spanned." }),
    newLines: Type.Integer({ description: "Lines the replacement spans." }),
  },
  { $id: "EditResult", description: "Where gg.files.editFile made its one replacement." },
);
export type EditResult = Static<typeof EditResult>;

/** A whole file as an edit reads it: under path rules, the file judged as it is opened (see {@link CallContext.touch}). */
export const readJudged = (absolute: string, context: CallContext): Buffer => reading(absolute, context, (at) => context.files.readFile(at));

/** Lines an ambiguous edit's message lists before it gives only their count. */
export const LINES_SHOWN = 10;

/** Where an edit's old text occurs, in one pass however often it does. */
interface Occurrences {
  /** Occurrences, overlapping ones included (they make the edit just as ambiguous). */
  count: number;
  /** Byte offset of the first, or -1. */
  first: number;
  /** Lines holding one or more. */
  lines: number;
  /** The first {@link LINES_SHOWN} of those lines, 1-based. */
  shown: number[];
}

/** Bytes after an occurrence compared in JS before calling indexOf: a native call costs ~0.3 µs, too much per dense match. */
const NEAR = 64;

/** The first start of `needle` in `haystack` at or after `from`, or -1. */
function nextOccurrence(haystack: Buffer, needle: Buffer, from: number): number {
  const last = haystack.length - needle.length;
  const near = Math.min(from + NEAR, last + 1);
  for (let i = from; i < near; i++) {
    let k = 0;
    while (k < needle.length && haystack[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return near > last ? -1 : haystack.indexOf(needle, near);
}

/** Finds `needle` in `haystack`: how often, the first offset, and the lines a message names (linear in `haystack`). */
export function occurrences(haystack: Buffer, needle: Buffer): Occurrences {
  const lineOf = lineCounter(haystack);
  const found: Occurrences = { count: 0, first: haystack.indexOf(needle), lines: 0, shown: [] };
  let last = 0;
  for (let i = found.first; i !== -1; i = nextOccurrence(haystack, needle, i + 1)) {
    found.count++;
    const line = lineOf(i);
    if (line === last) continue;
    last = line;
    found.lines++;
    if (found.shown.length < LINES_SHOWN) found.shown.push(line);
  }
  return found;
}

/** The lines of several occurrences, for a message: "line 3", "lines 3, 9", or the first ones and how many. */
export function linesOf(found: Occurrences): string {
  if (found.lines === 1) return `line ${found.shown[0]}`;
  if (found.lines <= LINES_SHOWN) return `lines ${found.shown.join(", ")}`;
  return `${grouped(found.lines)} lines, starting with lines ${found.shown.join(", ")}`;
}

/** Whether every line break of `bytes` is CRLF (and it has one): such a file keeps CRLF when LF text edits it. */
export function isCrlf(bytes: Buffer): boolean {
  let pairs = 0;
  for (let i = bytes.indexOf("\r\n"); i !== -1; i = bytes.indexOf("\r\n", i + 2)) pairs++;
  return pairs > 0 && pairs === countNewlines(bytes);
}

/** `text` with bare \n turned into \r\n, for a CRLF file edited with LF text. */
export const toCrlf = (text: string): string => text.replace(/\r?\n/g, "\r\n");

export const editFile = defineCall({
  name: "edit_file",
  capability: "edit-file",
  effects: true,
  reads: true,
  brief: "Replace one exact, unique occurrence of a string in a file.",
  code: { module: "files", name: "editFile", positional: ["path", "old", "new"], names: { new: "replacement" } },
  result: EditResult,
  parameters: () =>
    Type.Object(
      {
        path: Type.String({ description: "File to edit: relative to the working directory, or absolute." }),
        old: Type.String({ minLength: 1, description: "Exact text to replace; it must occur exactly once in the file." }),
        new: Type.String({ description: "Text to put in its place." }),
      },
      { additionalProperties: false },
    ),
  description: () =>
    "Replace exactly one occurrence of old with new. old must match the file exactly, whitespace and line breaks " +
    "included, and occur once: if it is not found the call fails with no-match (re-read the file), and if it occurs " +
    "more than once it fails with ambiguous, listing the lines (add surrounding lines to old to make it unique). " +
    "Line endings in the file are kept: LF text edits a CRLF file.",
  run({ path, old, new: replacement }, context): EditResult {
    const named = parameterName(editFile, "new", context);
    if (old === replacement) throw new GgError("invalid-argument", `Cannot edit ${path}: old and ${named} are identical, so there is nothing to change`);
    let needle = encodeText(old, `edit ${path}`, "old");
    requireEncodable(replacement, `edit ${path}`, named);
    const absolute = resolvePath(context.cwd, path);
    if (context.files.stat(absolute, "edit").kind !== "file") throw notRegular(path, "edit");
    const bytes = readJudged(absolute, context);
    // A file whose every line break is CRLF keeps CRLF: LF text in old and new is read and written as CRLF.
    const crlf = isCrlf(bytes);
    let found = occurrences(bytes, needle);
    const viaCrlf = found.count === 0 && old.includes("\n") && bytes.includes("\r\n");
    if (viaCrlf) {
      needle = Buffer.from(toCrlf(old), "utf8");
      found = occurrences(bytes, needle);
    }
    const insert = Buffer.from(crlf || viaCrlf ? toCrlf(replacement) : replacement, "utf8");
    if (found.count === 0) {
      throw new GgError("no-match", `Cannot edit ${path}: old was not found in the file; read the file again and copy the text exactly, whitespace and line breaks included`);
    }
    if (found.count > 1) {
      throw new GgError("ambiguous", `Cannot edit ${path}: old occurs ${grouped(found.count)} times, at ${linesOf(found)}; add surrounding lines to old so it matches exactly one place`);
    }
    const at = found.first;
    const edited = Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at + needle.length)]);
    context.files.writeAtomic(absolute, edited, context.touch);
    return { path, line: found.shown[0] as number, oldLines: countLines(needle), newLines: countLines(insert) };
  },
  render: (edit) => `Edited ${shownPath(edit.path)}: replaced ${plural(edit.oldLines, "line")} at line ${edit.line} with ${plural(edit.newLines, "line")}`,
});

