// Making folders for paths people give (a transcript's, a study's results, gg's own copies). Node's recursive mkdir
// loops forever where the kernel answers ENOENT for a parent that exists (/proc/nope/x), so the levels are made here.
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Creates `dir` and every missing ancestor, as makeMissing does; a file where the folder should be is refused (EEXIST). */
export function makeFolder(dir: string): void {
  const target = resolve(dir);
  makeMissing(target);
  // A file where the folder should be (there before, or made meanwhile), refused as mkdir refuses it.
  if (!statSync(target).isDirectory()) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${target}'`), { code: "EEXIST", syscall: "mkdir", path: target });
}

/**
 * Creates what is missing of `dir` and its ancestors, one level at a time; what exists is left as it is, folder or
 * not. Throws the system error of the step that failed: a `mkdir` failing with ENOENT means its parent's file system
 * makes no new entries (/proc, /sys).
 */
export function makeMissing(dir: string): void {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    try {
      statSync(at);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || dirname(at) === at) throw error;
      missing.push(at);
    }
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Another process made it meanwhile; a file in its place fails the next level, or the caller's use of it.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
