// gg's own package folder: where its package.json and shipped data (the model catalog) are, from the sources, from a
// build under dist/ (dist/build-<id>/: tsc's output two levels deeper, the CLI's bundle one) alike.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: { dir: string; version: string } | undefined;

/** The folder holding gg's package.json, and its version; undefined when gg runs from somewhere without one. */
export function ggPackage(): { dir: string; version: string } | undefined {
  if (root) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)), up = 0; up < 4; up++, dir = dirname(dir)) {
    try {
      const found = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (found.name === "gg-runtime") return (root = { dir, version: found.version ?? "unknown" });
    } catch {
      // Not here: one level up.
    }
  }
  return undefined;
}
