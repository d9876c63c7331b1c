// tree: the shape of a directory, depth-bounded, ignore rules applied, and cut to a fixed size so one call cannot
// flood a turn. The walk stops when the output is full, so its cost follows its output, not the workspace.
import { Type } from "typebox";
import { fromSystemError, GgError } from "../host/errors.ts";
import { resolvePath } from "../host/paths.ts";
import { enter, listDir, type WalkDir, walkRoot } from "../host/walk.ts";
import { defineCall, textValue } from "./define.ts";
import { requireDirectory } from "./list_dir.ts";

/** Depth of a call that names none. */
export const TREE_DEFAULT_DEPTH = 2;
/** Deepest depth served; deeper requests are answered at this depth. */
export const TREE_MAX_DEPTH = 10;
/** Lines a tree holds at most, its final note included. */
export const TREE_MAX_LINES = 1000;
/** Bytes a tree holds at most, its final note included. */
export const TREE_MAX_BYTES = 16 * 1024;

const CUT_NOTE = {
  lines: "[tree cut at 1000 lines; pass a smaller depth or a path deeper in]",
  bytes: "[tree cut at 16 KiB; pass a smaller depth or a path deeper in]",
} as const;

function render(root: WalkDir, depth: number): string {
  // An ignored root is absent from trees like any ignored directory; saying so beats calling it empty.
  if (root.inherited.hidden) return "(ignored: .gitignore, .ignore or .git/info/exclude excludes this directory, or it is in .git; list_dir still lists it)";
  const lines: string[] = [];
  let bytes = -1;
  let cut: keyof typeof CUT_NOTE | undefined;
  const emit = (line: string): boolean => {
    const size = Buffer.byteLength(line) + 1;
    if (lines.length + 1 > TREE_MAX_LINES) cut = "lines";
    else if (bytes + size > TREE_MAX_BYTES) cut = "bytes";
    if (cut) return false;
    lines.push(line);
    bytes += size;
    return true;
  };
  const countEntries = (dir: WalkDir): string => {
    try {
      const count = listDir(dir).entries.length;
      // The seed's form, to the character, whatever the count: "(N entries not shown)".
      return count > 0 ? ` (${count} entries not shown)` : "";
    } catch {
      return " (unreadable)";
    }
  };
  const walk = (dir: WalkDir, level: number, indent: string): boolean => {
    let listing;
    try {
      listing = listDir(dir);
    } catch (error) {
      return emit(`${indent}(unreadable: ${fromSystemError("list", dir.relative, error).code})`);
    }
    for (const entry of listing.entries) {
      if (!entry.directory) {
        if (!emit(`${indent}${entry.name}`)) return false;
      } else if (entry.symlink) {
        // Never entered (no cycles, no walking out of the tree), and said so: it is not an empty directory.
        if (!emit(`${indent}${entry.name}/ (symbolic link, not followed)`)) return false;
      } else if (level === depth) {
        if (!emit(`${indent}${entry.name}/${countEntries(enter(listing.scope, entry))}`)) return false;
      } else if (!emit(`${indent}${entry.name}/`) || !walk(enter(listing.scope, entry), level + 1, `${indent}  `)) {
        return false;
      }
    }
    return true;
  };
  walk(root, 1, "");
  if (cut) {
    const note = CUT_NOTE[cut];
    while (lines.length + 1 > TREE_MAX_LINES || bytes + Buffer.byteLength(note) + 1 > TREE_MAX_BYTES) {
      bytes -= Buffer.byteLength(lines.pop() ?? "") + 1;
    }
    lines.push(note);
  }
  return lines.length === 0 ? "(empty directory)" : lines.join("\n");
}

export const tree = defineCall({
  name: "tree",
  capability: "list-dir",
  brief: "Render the depth-bounded tree beneath a directory, skipping ignored files.",
  code: { module: "files", name: "tree", positional: ["path"], returns: "string", value: textValue },
  parameters: () =>
    Type.Object(
      {
        path: Type.Optional(Type.String({ description: "Directory at the root of the tree. Default: the working directory." })),
        depth: Type.Optional(Type.Integer({ description: `Levels below the root: 1 is its own entries. Default ${TREE_DEFAULT_DEPTH}, at most ${TREE_MAX_DEPTH}.` })),
      },
      { additionalProperties: false },
    ),
  description: () =>
    "Show the tree beneath a directory: two-space indentation per level, directories suffixed with /, path order. " +
    "Files that .gitignore or .ignore exclude, and .git, are left out. A directory at the depth bound shows how many " +
    "entries it holds, e.g. render/ (4 entries not shown): ask for a deeper depth or a path rooted there. At most " +
    `${TREE_MAX_LINES} lines and 16 KiB; a tree cut by either ends with a line saying so.`,
  run({ path = ".", depth = TREE_DEFAULT_DEPTH }, context) {
    if (depth < 1) throw new GgError("invalid-argument", `Cannot render a tree of depth ${depth}: depth counts levels below the root and must be 1 or more (1 lists the root's own entries)`);
    const absolute = resolvePath(context.cwd, path);
    requireDirectory(context.files.stat(absolute, "render a tree of").kind, path, "render a tree of");
    return { text: render(walkRoot(absolute, context.workspace), Math.min(depth, TREE_MAX_DEPTH)) };
  },
});
