// The scale bench's workspaces, built once and cached under $TMPDIR: ten copies of the search corpus (bench/corpus.ts),
// and generated monorepos of small files: packages nested in groups, each with its own .gitignore hiding its build
// output, and a root node_modules that the root .gitignore hides (and the batch tools' skip list leaves out). Each
// workspace's marker file records what it holds, so a cached one is not walked again to count it.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCorpus, corpusSize, random } from "./corpus.ts";

const CACHE = process.env.GG_BENCH_SCALE ?? join(tmpdir(), "gg-bench-scale-v1");

/** A workspace of the scale bench. */
export interface ScaleWorkspace {
  /** Short label: 1x, 10x, 100k, 1M. */
  name: string;
  root: string;
  /** Regular files in the workspace, ignored ones included. */
  files: number;
  /** Their bytes. */
  bytes: number;
  /** Files below an ignored directory (node_modules, a package's dist). */
  ignored: number;
}

/** The marker of a complete workspace at `root`, or undefined while it is not built. */
function cached(root: string): Omit<ScaleWorkspace, "name" | "root"> | undefined {
  const marker = join(root, "..", `${root.split("/").pop()}.json`);
  return existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as Omit<ScaleWorkspace, "name" | "root">) : undefined;
}
function markDone(root: string, facts: Omit<ScaleWorkspace, "name" | "root">): void {
  writeFileSync(join(root, "..", `${root.split("/").pop()}.json`), JSON.stringify(facts));
}

/** The search corpus itself. */
export function onefold(): ScaleWorkspace {
  const root = buildCorpus();
  const facts = cached(root) ?? { ...corpusSize(), ignored: 0 };
  if (!cached(root)) markDone(root, facts);
  return { name: "1x", root, ...facts };
}

/** Ten copies of the search corpus side by side: copy0 .. copy9. */
export function tenfold(): ScaleWorkspace {
  const root = join(CACHE, "tenfold");
  let facts = cached(root);
  if (!facts) {
    const one = onefold();
    rmSync(root, { recursive: true, force: true });
    for (let i = 0; i < 10; i++) cpSync(one.root, join(root, `copy${i}`), { recursive: true });
    facts = { files: one.files * 10, bytes: one.bytes * 10, ignored: 0 };
    markDone(root, facts);
  }
  return { name: "10x", root, ...facts };
}

const WORDS = ["alpha", "buffer", "cursor", "delta", "entry", "frame", "graph", "handle", "index", "journal", "kernel", "layout", "matrix", "node", "offset", "parser", "queue", "record", "state", "token", "value", "window"];
const GROUPS = ["apps", "libs", "services", "tools"];
const SOURCE_DIRS = ["components", "core", "hooks", "models", "routes", "utils"];
/** Files of one package, and of one package in node_modules. */
const PACKAGE_FILES = 160;
const MODULE_FILES = 40;
/** Bodies files are cut from: enough that the trigram filters differ, few enough to generate at once. */
const BODIES = 512;
/** Files (in a thousand) that hold the rare regex match `fn update...(`: fewer than a search's default limit overall. */
const RARE_PER_MILLE = 0.03;

/** Source-like bodies of 200 B to 4 KiB: `fn` and `update` share lines without matching `fn\s+update\w*\(`, and TODOs. */
function bodies(next: () => number): string[] {
  const word = (): string => WORDS[Math.floor(next() * WORDS.length)] as string;
  const cap = (text: string): string => text[0]?.toUpperCase() + text.slice(1);
  return Array.from({ length: BODIES }, () => {
    const lines: string[] = [`import { ${word()}, ${cap(word())} } from "../${word()}";`, ""];
    const target = 200 + Math.floor(next() ** 2 * 3900);
    for (let bytes = 0; bytes < target; ) {
      const name = `${word()}${cap(word())}`;
      const block = [
        `export function ${name}(${word()}: number): number {`,
        `  const fn = handlers.update${cap(word())}(${word()}, ${Math.floor(next() * 1000)});`,
        next() < 0.15 ? `  // TODO: ${word()} the ${word()} first` : `  // the ${word()} updates its ${word()}`,
        `  return fn(${word()}) + ${word()}.length;`,
        "}",
        "",
      ];
      lines.push(...block);
      bytes += block.reduce((sum, line) => sum + line.length + 1, 0);
    }
    return `${lines.join("\n")}\n`;
  });
}

/** Writes the files of one generated package below `dir`; returns the files and bytes written. */
function writePackage(dir: string, files: number, pool: string[], next: () => number, rare: () => boolean, build: boolean): { files: number; bytes: number; ignored: number } {
  const total = { files: 0, bytes: 0, ignored: 0 };
  const put = (path: string, text: string, ignored = false): void => {
    writeFileSync(join(dir, path), text);
    total.files++;
    total.bytes += Buffer.byteLength(text);
    if (ignored) total.ignored++;
  };
  mkdirSync(dir, { recursive: true });
  put("package.json", `{ "name": "${dir.split("/").slice(-2).join("-")}", "version": "1.0.0", "main": "dist/index.js" }\n`);
  put("README.md", `# ${dir.split("/").pop()}\n\nPart of the monorepo.\n`);
  if (build) put(".gitignore", "dist/\n.cache/\n*.tsbuildinfo\n");
  const body = (): string => `${rare() ? "// fn updateAll(x) was here\n" : ""}${pool[Math.floor(next() * pool.length)]}`;
  // Build output (a fifth of the files, ignored by the package's own .gitignore), tests, and nested sources.
  const built = build ? Math.floor(files / 5) : 0;
  if (built > 0) mkdirSync(join(dir, "dist"));
  for (let i = 0; i < built; i++) put(`dist/chunk${i}.js`, body(), true);
  let left = files - total.files;
  for (let d = 0; left > 0; d++) {
    const sub = `src/${SOURCE_DIRS[d % SOURCE_DIRS.length]}${d >= SOURCE_DIRS.length ? `/${WORDS[d % WORDS.length]}${Math.floor(d / SOURCE_DIRS.length)}` : ""}`;
    mkdirSync(join(dir, sub), { recursive: true });
    for (let i = 0; i < 12 && left > 0; i++, left--) put(`${sub}/${WORDS[(d + i) % WORDS.length]}${i}.${i % 4 === 3 ? "tsx" : "ts"}`, body());
  }
  return total;
}

/** A generated monorepo of about `files` files, a quarter of them in node_modules. */
export function monorepo(files: number, name: string): ScaleWorkspace {
  const root = join(CACHE, `monorepo-${files}`);
  let facts = cached(root);
  if (!facts) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const next = random(files);
    const pool = bodies(next);
    const rare = (): boolean => next() * 1000 < RARE_PER_MILLE;
    const top = [".gitignore", "node_modules/\n*.log\ncoverage/\n", "package.json", '{ "name": "monorepo", "private": true, "workspaces": ["apps/*", "libs/*", "services/*", "tools/*"] }\n'];
    for (let i = 0; i < top.length; i += 2) writeFileSync(join(root, top[i] as string), top[i + 1] as string);
    const sum = { files: 2, bytes: (top[1] as string).length + (top[3] as string).length, ignored: 0 };
    const add = (part: { files: number; bytes: number; ignored: number }, ignored: boolean): void => {
      sum.files += part.files;
      sum.bytes += part.bytes;
      sum.ignored += ignored ? part.files : part.ignored;
    };
    const modules = Math.round((files * 0.25) / MODULE_FILES);
    for (let i = 0; i < modules; i++) add(writePackage(join(root, "node_modules", `${i % 7 === 0 ? "@scope/" : ""}${WORDS[i % WORDS.length]}-${i}`), MODULE_FILES, pool, next, () => false, false), true);
    const packages = Math.max(1, Math.round((files - sum.files) / PACKAGE_FILES));
    for (let i = 0; i < packages; i++) add(writePackage(join(root, GROUPS[i % GROUPS.length] as string, `${WORDS[i % WORDS.length]}-${i}`), PACKAGE_FILES, pool, next, rare, true), false);
    facts = sum;
    markDone(root, facts);
  }
  return { name, root, ...facts };
}
