// Making folders for paths people give (a transcript's, a study's results, gg's own copies). Node's recursive mkdir
// loops forever where the kernel answers ENOENT for a parent that exists (/proc/nope/x), so the levels are made here.
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Creates `dir` and every missing ancestor, one level at a time. Throws the system error of the step that failed: a
 * `mkdir` failing with ENOENT means its parent's file system makes no new entries (/proc, /sys).
 */
export function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
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
      // Another process made it meanwhile; a file in its place fails the next level or the write with ENOTDIR.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
