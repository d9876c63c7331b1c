// write_file: create or replace a whole file, atomically unless that would break its hard links.
import { type Static, Type } from "typebox";
import { countLines, plural } from "../host/lines.ts";
import { resolvePath, shownPath } from "../host/paths.ts";
import { encodeText } from "../host/utf8.ts";
import { defineCall } from "./define.ts";

/** A write, as data. */
export const WriteResult = Type.Object(
  {
    path: Type.String({ description: "The file, as the call named it." }),
    bytes: Type.Integer({ description: "Bytes written (the content as UTF-8)." }),
    lines: Type.Integer({ description: "Lines written." }),
    created: Type.Boolean({ description: "True when the file did not exist before." }),
  },
  { $id: "WriteResult", description: "What gg.files.writeFile wrote." },
);
export type WriteResult = Static<typeof WriteResult>;

export const writeFile = defineCall({
  name: "write_file",
  capability: "write-file",
  effects: true,
  brief: "Create or overwrite a whole file, creating its parent directories.",
  code: { module: "files", name: "writeFile", positional: ["path", "content"] },
  result: WriteResult,
  parameters: () =>
    Type.Object(
      {
        path: Type.String({ description: "File to write: relative to the working directory, or absolute." }),
        content: Type.String({ description: "The complete new content, written as UTF-8." }),
      },
      { additionalProperties: false },
    ),
  description: () =>
    "Create a file or replace its whole content, creating missing parent directories; a replaced file keeps its mode " +
    "and owner. The write is atomic: the file holds either its old content or the new, never a mix (except a file " +
    "with several hard links, which is rewritten in place so every link sees the new content). To change part of a " +
    "file, use edit_file.",
  run({ path, content }, context): WriteResult {
    const bytes = encodeText(content, `write ${path}`, "content");
    const { created } = context.files.writeAtomic(resolvePath(context.cwd, path), bytes, context.touch);
    return { path, bytes: bytes.length, lines: countLines(bytes), created };
  },
  render: (written) => `${written.created ? "Created" : "Overwrote"} ${shownPath(written.path)} (${plural(written.bytes, "byte")}, ${plural(written.lines, "line")})`,
});
