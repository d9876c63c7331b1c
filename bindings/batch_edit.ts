// edit (batch, seed 003): every replacement of one file in one call, applied in order to the evolving text, checked
// whole in memory, then written once, atomically, unless the file changed meanwhile. The edit works on bytes, as
// edit_file does, so line endings, a BOM and bytes that are not UTF-8 outside the replaced spans are kept.
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { notRegular } from "../host/files.ts";
import { grouped, lineSpan } from "../host/lines.ts";
import { resolvePath } from "../host/paths.ts";
import { requireEncodable } from "../host/utf8.ts";
import { type BatchOutput, batchResult, MAX_EDITS, PAGE_BYTES, renderBatch } from "./batch.ts";
import { defineCall } from "./define.ts";
import { isCrlf, linesOf, occurrences, readJudged, toCrlf } from "./edit_file.ts";

const Edited = Type.Object(
  {
    path: Type.String({ description: "The file, as the call named it." }),
    edits: Type.Integer({ description: "Replacements made." }),
    lines: Type.Array(Type.Integer(), { description: "1-based line where each replacement landed, in the text it was made in." }),
  },
  { description: "The replacements made in one file." },
);
export const EditBatchResult = batchResult("EditBatchResult", "What gg.files.edit changed.", Edited, Type.Null(), "Always 0.");
export type EditBatchResult = BatchOutput<Static<typeof Edited>, null>;

export const edit = defineCall({
  name: "edit",
  capability: "edit-file",
  batch: true,
  effects: true,
  reads: true,
  brief: `Make up to ${MAX_EDITS} exact replacements in one file, all or none, in one atomic write.`,
  code: { module: "files", name: "edit", positional: ["path", "edits"] },
  result: EditBatchResult,
  parameters: () =>
    Type.Object(
      {
        path: Type.String({ minLength: 1, description: "File to edit: relative to the working directory, or absolute." }),
        edits: Type.Array(
          Type.Object(
            {
              old: Type.String({ minLength: 1, description: "Exact text to replace, whitespace and line breaks included." }),
              new: Type.String({ description: "Text to put in its place." }),
              line_number: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line of the current text holding the one occurrence meant, when old occurs more than once; old must then be a single line." })),
            },
            { additionalProperties: false },
          ),
          { minItems: 1, maxItems: MAX_EDITS, description: `The replacements, 1 to ${MAX_EDITS}, applied in order: each sees the text the ones before it left.` },
        ),
      },
      { additionalProperties: false },
    ),
  description: () =>
    [
      `Put every change to one file in one call: up to ${MAX_EDITS} replacements, applied in order to the text as the earlier ones left it.`,
      "Each old must occur exactly once, or pass line_number to pick the one occurrence on that line (old a single line then).",
      "All of them are checked in memory before anything is written: if any fails (no-match: absent; ambiguous: several, with their lines) the file is left unchanged and the error names the replacement.",
      "The file is read again just before the write; if it changed meanwhile the call fails with conflict and writes nothing: read it again and redo the edit.",
      "Line endings (LF text edits a CRLF file) and a byte-order mark are kept; the write is atomic. One file per call; use several calls for several files.",
      "The answer is compact JSON {results: [{path, edits, lines}], truncated, next, skipped}.",
    ].join(" "),
  run({ path, edits }, context): EditBatchResult {
    edits.forEach((replacement, index) => {
      const which = `replacement ${index + 1} of ${edits.length}`;
      requireEncodable(replacement.old, `edit ${path}`, `${which} has an old that`);
      requireEncodable(replacement.new, `edit ${path}`, `${which} has a new that`);
    });
    const absolute = resolvePath(context.cwd, path);
    if (context.files.stat(absolute, "edit").kind !== "file") throw notRegular(path, "edit");
    const original = readJudged(absolute, context);
    // A file whose every line break is CRLF keeps CRLF: LF text in old and new is read and written as CRLF.
    const crlf = isCrlf(original);
    let text = original;
    const lines: number[] = [];
    edits.forEach((replacement, index) => {
      const which = `replacement ${index + 1} of ${edits.length}`;
      const refuse = (code: "no-match" | "ambiguous" | "invalid-argument", why: string): never => {
        throw new GgError(code, `Cannot edit ${path}: ${which} ${why}; the file is unchanged`);
      };
      if (replacement.line_number !== undefined && replacement.old.includes("\n")) refuse("invalid-argument", "spans several lines, so line_number cannot pick it; drop line_number, or give one line as old");
      let needle = Buffer.from(crlf ? toCrlf(replacement.old) : replacement.old, "utf8");
      let found = occurrences(text, needle);
      // A file with mixed endings: LF text (as read shows it) spanning lines that end in CRLF there.
      const viaCrlf = found.count === 0 && !crlf && replacement.old.includes("\n") && text.includes("\r\n");
      if (viaCrlf) found = occurrences(text, (needle = Buffer.from(toCrlf(replacement.old), "utf8")));
      if (found.count === 0) refuse("no-match", "has an old that is not in the file as the replacements before it left it; read the file again and copy the text exactly");
      let at = found.first;
      if (replacement.line_number !== undefined) {
        // old is one line here, so its occurrences on that line are those within the line's bytes.
        const span = lineSpan(text, replacement.line_number);
        const on = span ? occurrences(text.subarray(span.start, span.end), needle) : undefined;
        if (!span || !on || on.count === 0) refuse("no-match", `has an old that is not on line ${replacement.line_number}; it occurs at ${linesOf(found)}`);
        else if (on.count > 1) refuse("ambiguous", `has an old that occurs ${grouped(on.count)} times on line ${replacement.line_number}; give more of the line as old`);
        else at = span.start + on.first;
      } else if (found.count > 1) {
        refuse("ambiguous", `has an old that occurs ${grouped(found.count)} times, at ${linesOf(found)}; add surrounding text to old, or pass line_number`);
      }
      lines.push(replacement.line_number ?? (found.shown[0] as number));
      const insert = Buffer.from(crlf || viaCrlf ? toCrlf(replacement.new) : replacement.new, "utf8");
      text = Buffer.concat([text.subarray(0, at), insert, text.subarray(at + needle.length)]);
      if (text.length > PAGE_BYTES) refuse("invalid-argument", `would make the file ${text.length} bytes, over the 64 MiB an edit writes; write it with write_file`);
    });
    // The check is not a compare-and-swap: it narrows the window in which another writer's change could be lost.
    if (!readJudged(absolute, context).equals(original)) {
      throw new GgError("conflict", `Cannot edit ${path}: the file changed since this edit read it; nothing was written: read it again and redo the edit`);
    }
    context.files.writeAtomic(absolute, text, context.touch);
    return { results: [{ path, edits: edits.length, lines }], truncated: false, next: null, skipped: 0 };
  },
  render: renderBatch,
});
