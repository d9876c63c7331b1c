// list_dir: one directory's entries, as the directory holds them (ignore rules are tree's and search's, not this).
import { Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { resolvePath } from "../host/paths.ts";
import { defineCall, textValue } from "./define.ts";

/** Checks that `absolute` (shown as `path`) is a directory, with the errors tree and list_dir share. */
export function requireDirectory(kind: string, path: string, action: string): void {
  if (kind !== "directory") throw new GgError("invalid-argument", `Cannot ${action} ${path}: it is not a directory; read it with read_file`);
}

export const listDir = defineCall({
  name: "list_dir",
  capability: "list-dir",
  brief: "List one directory's entries, directories suffixed with /.",
  code: { module: "files", name: "listDir", positional: ["path"], returns: "string", value: textValue },
  parameters: () =>
    Type.Object(
      { path: Type.Optional(Type.String({ description: "Directory to list. Default: the working directory." })) },
      { additionalProperties: false },
    ),
  description: () =>
    "List the entries of one directory in path order, directories suffixed with /. Every entry is listed, ignored " +
    "and hidden ones included. For the shape of a whole subtree, use tree.",
  run({ path = "." }, context) {
    const absolute = resolvePath(context.cwd, path);
    requireDirectory(context.files.stat(absolute, "list").kind, path, "list");
    const entries = context.files.readDir(absolute);
    if (entries.length === 0) return { text: "(empty directory)" };
    return { text: entries.map((entry) => (entry.kind === "directory" ? `${entry.name}/` : entry.name)).join("\n") };
  },
});
