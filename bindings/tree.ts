// tree: the shape of a directory, depth-bounded, ignore rules applied, and cut to a fixed size so one call cannot
// flood a turn. The walk stops when the output is full, so its cost follows its output, not the workspace.
import { type Static, Type } from "typebox";
import { type CallErrorCode, fromSystemError, GgError } from "../host/errors.ts";
import { joinDisplay, resolvePath, shownPath } from "../host/paths.ts";
import { enter, listDir, type WalkDir, type WalkEntry, walkRoot } from "../host/walk.ts";
import { hiddenBelow } from "./approval_walk.ts";
import { defineCall, ErrorCode } from "./define.ts";
import { EntryKind, entryKind, LinkTarget, requireDirectory } from "./list_dir.ts";

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

/** One entry a tree shows, as data. */
export const TreeEntry = Type.Object(
  {
    path: Type.String({ description: "The entry's path: the call's path joined with its path below it." }),
    kind: EntryKind,
    linksTo: Type.Optional(LinkTarget),
    depth: Type.Integer({ description: "Level below the root: 1 for the root's own entries." }),
    notShown: Type.Optional(Type.Integer({ description: "For a directory at the depth bound: how many entries it holds, none of them shown." })),
    // Wrapped, so the property keeps its own description and still refers to the named ErrorCode.
    unreadable: Type.Optional(Type.Intersect([ErrorCode], { description: "For a directory whose entries could not be listed: why." })),
  },
  { $id: "TreeEntry", description: "One entry a tree shows." },
);
export type TreeEntry = Static<typeof TreeEntry>;

/** A tree, as data. */
export const TreeResult = Type.Object(
  {
    text: Type.String({ description: "The tree as the tree tool renders it." }),
    entries: Type.Array(TreeEntry, { description: "The entries the text shows, in its order." }),
    cut: Type.Boolean({ description: "True when the tree was cut at 1000 lines or 16 KiB: entries past the cut are missing." }),
    ignored: Type.Optional(Type.Integer({ description: "When the ignore rules (.gitignore, .ignore, .git/info/exclude, .git) left entries out of the directories whose entries the tree shows: how many." })),
  },
  { $id: "TreeResult", description: "What gg.files.tree renders: its text, and the entries it shows as data." },
);
export type TreeResult = Static<typeof TreeResult>;

/** A line of the tree, and the entry it shows (a line saying a directory is unreadable shows none). */
interface Line {
  text: string;
  entry?: TreeEntry;
}

function render(root: WalkDir, display: string, depth: number): TreeResult {
  // An ignored root is absent from trees like any ignored directory; saying so beats calling it empty.
  if (root.inherited.hidden) {
    return { text: "(ignored: .gitignore, .ignore or .git/info/exclude excludes this directory, or it is in .git; list_dir still lists it)", entries: [], cut: false };
  }
  const lines: Line[] = [];
  let ignored = 0;
  let bytes = -1;
  let cut: keyof typeof CUT_NOTE | undefined;
  const emit = (line: Line): boolean => {
    const size = Buffer.byteLength(line.text) + 1;
    if (lines.length + 1 > TREE_MAX_LINES) cut = "lines";
    else if (bytes + size > TREE_MAX_BYTES) cut = "bytes";
    if (cut) return false;
    lines.push(line);
    bytes += size;
    return true;
  };
  const shown = (entry: WalkEntry, level: number): TreeEntry => ({
    path: joinDisplay(display, entry.relative),
    ...entryKind(entry.directory ? "directory" : entry.file ? "file" : "other", entry.symlink),
    depth: level,
  });
  const walk = (dir: WalkDir, level: number, indent: string, parent: TreeEntry | undefined): boolean => {
    let listing;
    try {
      listing = listDir(dir);
    } catch (error) {
      const code = fromSystemError("list", dir.relative, error).code as CallErrorCode;
      if (parent) parent.unreadable = code;
      return emit({ text: `${indent}(unreadable: ${code})` });
    }
    ignored += listing.ignored;
    for (const found of listing.entries) {
      const entry = shown(found, level);
      const name = shownPath(found.name);
      if (!found.directory) {
        if (!emit({ text: `${indent}${name}`, entry })) return false;
      } else if (found.symlink) {
        // Never entered (no cycles, no walking out of the tree), and said so: it is not an empty directory.
        if (!emit({ text: `${indent}${name}/ (symbolic link, not followed)`, entry })) return false;
      } else if (level === depth) {
        let note = "";
        try {
          const count = listDir(enter(listing.scope, found, dir)).entries.length;
          entry.notShown = count;
          // The seed's form, to the character: "(N entries not shown)"; one is "(1 entry not shown)".
          if (count > 0) note = ` (${count === 1 ? "1 entry" : `${count} entries`} not shown)`;
        } catch (error) {
          entry.unreadable = fromSystemError("list", found.relative, error).code as CallErrorCode;
          note = " (unreadable)";
        }
        if (!emit({ text: `${indent}${name}/${note}`, entry })) return false;
      } else if (!emit({ text: `${indent}${name}/`, entry }) || !walk(enter(listing.scope, found, dir), level + 1, `${indent}  `, entry)) {
        return false;
      }
    }
    return true;
  };
  walk(root, 1, "", undefined);
  if (cut) {
    const note = CUT_NOTE[cut];
    while (lines.length + 1 > TREE_MAX_LINES || bytes + Buffer.byteLength(note) + 1 > TREE_MAX_BYTES) {
      bytes -= Buffer.byteLength(lines.pop()?.text ?? "") + 1;
    }
    lines.push({ text: note });
  }
  const entries = lines.flatMap((line) => (line.entry ? [line.entry] : []));
  return { text: lines.length === 0 ? "(empty directory)" : lines.map((line) => line.text).join("\n"), entries, cut: cut !== undefined, ...(ignored > 0 ? { ignored } : {}) };
}

export const tree = defineCall({
  name: "tree",
  capability: "list-dir",
  walks: true,
  brief: "Render the depth-bounded tree beneath a directory, skipping ignored files.",
  code: {
    module: "files",
    name: "tree",
    positional: ["path"],
    brief: "Render the tree beneath a directory, ignored files left out.",
    note: () => `depth: default ${TREE_DEFAULT_DEPTH}, at most ${TREE_MAX_DEPTH}.`,
  },
  result: TreeResult,
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
  run({ path = ".", depth = TREE_DEFAULT_DEPTH }, context): TreeResult {
    if (depth < 1) throw new GgError("invalid-argument", `Cannot render a tree of depth ${depth}: depth counts levels below the root and must be 1 or more (1 lists the root's own entries)`);
    const absolute = resolvePath(context.cwd, path);
    requireDirectory(context.files.stat(absolute, "render a tree of").kind, path, "render a tree of");
    const hidden = hiddenBelow(context.config, tree, { path, depth }, path, context);
    return render(walkRoot(absolute, context.workspace, context.warm, hidden), path, Math.min(depth, TREE_MAX_DEPTH));
  },
  render: (tree) => tree.text,
});
