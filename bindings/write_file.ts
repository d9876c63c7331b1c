// write_file: create or replace a whole file, atomically unless that would break its hard links.
import { Type } from "typebox";
import { countLines, plural } from "../host/lines.ts";
import { resolvePath } from "../host/paths.ts";
import { defineCall, textValue } from "./define.ts";

export const writeFile = defineCall({
  name: "write_file",
  capability: "write-file",
  effects: true,
  brief: "Create or overwrite a whole file, creating its parent directories.",
  code: { module: "files", name: "writeFile", positional: ["path", "content"], returns: "string", value: textValue },
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
  run({ path, content }, context) {
    const bytes = Buffer.from(content, "utf8");
    const { created } = context.files.writeAtomic(resolvePath(context.cwd, path), bytes);
    return { text: `${created ? "Created" : "Overwrote"} ${path} (${plural(bytes.length, "byte")}, ${plural(countLines(bytes), "line")})` };
  },
});
