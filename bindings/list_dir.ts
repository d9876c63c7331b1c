// list_dir: one directory's entries, as the directory holds them (ignore rules are tree's and search's, not this).
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import type { EntryKind as HostKind } from "../host/files.ts";
import { resolvePath, shownPath } from "../host/paths.ts";
import { hiddenBelow } from "./approval_walk.ts";
import { defineCall } from "./define.ts";

/** What a directory entry is; a symbolic link is a "symlink" whatever it points to. */
export const EntryKind = Type.Enum(["file", "dir", "symlink", "other"], { $id: "EntryKind", description: 'What an entry is; a symbolic link is a "symlink" whatever it points to.' });
/** What a symbolic link points to: "other" for a device or socket, and for a link that points nowhere. */
export const LinkTarget = Type.Enum(["file", "dir", "other"], { description: 'For a symlink: what it points to ("other" for a device, a socket, or nothing).' });

/** The kind of an entry as programs see it, from the host's kind of what it names. */
export const entryKind = (kind: HostKind, symlink: boolean): { kind: Static<typeof EntryKind>; linksTo?: Static<typeof LinkTarget> } => {
  const named = kind === "directory" ? "dir" : kind;
  return symlink ? { kind: "symlink", linksTo: named } : { kind: named };
};

/** One entry of a directory, as data. */
export const DirEntry = Type.Object(
  {
    name: Type.String({ description: "The entry's name within its directory." }),
    kind: EntryKind,
    linksTo: Type.Optional(LinkTarget),
  },
  { $id: "DirEntry", description: "One entry of a directory." },
);
export type DirEntry = Static<typeof DirEntry>;

/** A directory listing, as data. */
export const ListDirResult = Type.Object({ entries: Type.Array(DirEntry, { description: "Every entry, in path order." }) }, { $id: "ListDirResult", description: "What gg.files.listDir lists: one directory's entries." });
export type ListDirResult = Static<typeof ListDirResult>;

/** True when an entry reads as a directory: one, or a link to one (shown with a trailing /). */
export const isDirLike = (entry: { kind: string; linksTo?: string }): boolean => entry.kind === "dir" || entry.linksTo === "dir";

/** Checks that `absolute` (shown as `path`) is a directory, with the errors tree and list_dir share. */
export function requireDirectory(kind: string, path: string, action: string): void {
  if (kind !== "directory") throw new GgError("invalid-argument", `Cannot ${action} ${path}: it is not a directory; read it with read_file`);
}

export const listDir = defineCall({
  name: "list_dir",
  capability: "list-dir",
  walks: true,
  brief: "List one directory's entries, directories suffixed with /.",
  code: {
    module: "files",
    name: "listDir",
    positional: ["path"],
    brief: "List one directory's entries, ignored ones included.",
  },
  result: ListDirResult,
  parameters: () =>
    Type.Object(
      { path: Type.Optional(Type.String({ description: "Directory to list. Default: the working directory." })) },
      { additionalProperties: false },
    ),
  description: () =>
    "List the entries of one directory in path order, directories suffixed with /. Every entry is listed, ignored " +
    "and hidden ones included. For the shape of a whole subtree, use tree.",
  run({ path = "." }, context): ListDirResult {
    const absolute = resolvePath(context.cwd, path);
    requireDirectory(context.files.stat(absolute, "list").kind, path, "list");
    const hidden = hiddenBelow(context.config, listDir, { path }, path, context);
    const entries = context.files.readDir(absolute).filter((entry) => !hidden?.(entry.name));
    return { entries: entries.map((entry) => ({ name: entry.name, ...entryKind(entry.kind, entry.symlink) })) };
  },
  render: ({ entries }) => (entries.length === 0 ? "(empty directory)" : entries.map((entry) => `${shownPath(entry.name)}${isDirLike(entry) ? "/" : ""}`).join("\n")),
});
