// Test helper: the project's import graph as TypeScript's preprocessor reads it (static and type imports, re-exports,
// dynamic imports with a literal path), its circles, and imports against the layering.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

/** Folders that are not the project's sources. */
const SKIPPED = new Set(["node_modules", "dist", ".git", "coverage"]);

/** The layers, lowest first: a file may import its own layer or a lower one. */
export const LAYERS = ["host", "bindings", "runtime", "agent", "mcp", "study", "frameworks", "console", "cli"] as const;

/** Each .ts file under `root` (relative, "/"-separated) and the project files it imports. */
export function importGraph(root: string): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(relative(root, path).split("\\").join("/"));
    }
  };
  walk(root);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = join(dirname(file), fileName).split("\\").join("/");
      const found = [target, target.replace(/\.js$/, ".ts"), `${target}.ts`, `${target}/index.ts`].find((candidate) => known.has(candidate));
      if (found !== undefined) targets.add(found);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The circles of `graph` (its strongly connected components of more than one file, or a file importing itself), each sorted. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  // Tarjan's algorithm; the graph is a few hundred files, so recursion is safe.
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) circles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** Imports of a higher layer (see {@link LAYERS}), one line each; files outside the layers (tests, bench) are free. */
export function layerBreaches(graph: Map<string, string[]>): string[] {
  const layer = (file: string): number => (LAYERS as readonly string[]).indexOf(file.split("/")[0] as string);
  const breaches: string[] = [];
  for (const [file, targets] of graph) {
    const own = layer(file);
    if (own < 0) continue;
    for (const target of targets) if (layer(target) > own) breaches.push(`${file} imports ${target}, a higher layer`);
  }
  return breaches.sort();
}
