// The runs folders' walk: every *.jsonl under each folder given, found without blocking the server. Directory links
// are followed, but each real directory (device and inode) is read once, so a link cycle (`loop -> .`) ends the
// branch instead of looping; and the walk stops after MAX_ENTRIES entries, saying so.
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** A transcript the console may read: its id (how the page names it) and its file. */
export interface RunFile {
  /** The folder's index among those given and the path under it, e.g. "0/study/a/1.jsonl". */
  id: string;
  file: string;
  /** The folder given that holds it (as given: --runs DIR, or a study's DIR/transcripts). */
  folder: string;
}

/** What a walk found, and why it stopped early when it did. */
export interface Walk {
  files: RunFile[];
  /** Set when the walk stopped at MAX_ENTRIES: what was left unread, and the way out. */
  stopped?: string;
}

/** Entries (files, folders, links) a walk of all the folders reads at most. */
export const MAX_ENTRIES = 100_000;

/** The entries of `dir` in name order; none when it cannot be read (gone, or not a folder). */
async function entries(dir: string): Promise<Dirent[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** What `path` is once its links are followed: a folder (with its identity), a file, or neither (a dangling link). */
async function resolved(path: string): Promise<{ kind: "dir"; key: string } | { kind: "file" } | undefined> {
  try {
    const stats = await stat(path);
    if (stats.isDirectory()) return { kind: "dir", key: `${stats.dev}:${stats.ino}` };
    return stats.isFile() ? { kind: "file" } : undefined;
  } catch {
    return undefined;
  }
}

/** Every *.jsonl file under `dirs`, in id order, reading at most `bound` entries; a folder that cannot be read adds nothing. */
export async function runFiles(dirs: readonly string[], bound = MAX_ENTRIES): Promise<Walk> {
  const files: RunFile[] = [];
  const seen = new Set<string>();
  let read = 0;
  for (const [index, root] of dirs.entries()) {
    // Depth first, in name order, so which of two paths to one folder is listed does not vary between walks.
    const stack: string[] = [""];
    while (stack.length > 0) {
      const under = stack.pop() as string;
      const self = await resolved(join(root, under));
      if (self?.kind !== "dir" || seen.has(self.key)) continue;
      seen.add(self.key);
      const children: string[] = [];
      for (const entry of await entries(join(root, under))) {
        if (++read > bound) {
          files.sort((a, b) => (a.id < b.id ? -1 : 1));
          return { files, stopped: `Stopped listing the runs folders after ${bound.toLocaleString("en-US")} entries (in ${join(root, under)}): later transcripts are not listed; give gg console a narrower --runs folder` };
        }
        const path = under === "" ? entry.name : `${under}/${entry.name}`;
        const kind = entry.isSymbolicLink() ? (await resolved(join(root, path)))?.kind : entry.isDirectory() ? "dir" : entry.isFile() ? "file" : undefined;
        if (kind === "dir") children.push(path);
        else if (kind === "file" && entry.name.endsWith(".jsonl")) files.push({ id: `${index}/${path}`, file: join(root, path), folder: root });
      }
      stack.push(...children.reverse());
    }
  }
  files.sort((a, b) => (a.id < b.id ? -1 : 1));
  return { files };
}
