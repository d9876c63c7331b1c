// The search benches' corpus, built once and cached: the sources of the larger npm packages this checkout installed
// (node_modules, no download) and a generated tree of Rust-like code, together over 150 MB. The generated code makes
// `fn`, `update` and `todo` common words while `fn update...(` stays rare, so the regex with common literals scans
// every file; the packages come first in path order.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CACHE = process.env.GG_BENCH_CORPUS ?? join(tmpdir(), "gg-bench-corpus-v2");
/** The searched folder. */
export const CORPUS = join(CACHE, "src");
const MODULES = join(import.meta.dirname, "..", "node_modules");
/** Packages copied from node_modules: text sources, no native binaries. */
const PACKAGES = ["openai", "typescript", "playwright-core", "zod", "typebox", "chart.js", "@modelcontextprotocol", "hono", "vitest", "ajv", "vite"];
/** Generated files: folders of files of about FILE_BYTES each. */
const FOLDERS = 32;
const FILES_PER_FOLDER = 48;
const FILE_BYTES = 48 * 1024;
/** Lines in the whole generated tree that `fn\s+update\w*\(` matches: fewer than a search's default limit. */
const RARE_MATCHES = 24;

/** A deterministic generator (mulberry32), so every machine builds the same corpus. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha", "buffer", "cursor", "delta", "entry", "frame", "graph", "handle", "index", "journal", "kernel", "layout", "matrix", "node", "offset", "parser", "queue", "record", "state", "token", "value", "window"];

/** One generated file: Rust-like functions whose bodies update fields, with a todo comment here and there. */
function generatedFile(next: () => number, rare: boolean): string {
  const word = (): string => WORDS[Math.floor(next() * WORDS.length)] as string;
  const number = (): number => Math.floor(next() * (next() < 0.1 ? 100000 : 100));
  const lines: string[] = [`// generated ${word()} module`, `use crate::${word()}::${word()};`, ""];
  let bytes = 0;
  while (bytes < FILE_BYTES) {
    const name = `${word()}_${word()}`;
    const body = [
      `    pub fn ${name}(&mut self, ${word()}: u32) -> u32 {`,
      `        let ${word()} = self.${word()} + ${number()};`,
      `        self.update_${word()}(${word()}, ${number()});`,
      next() < 0.2 ? `        // TODO: ${word()} the ${word()} before the update` : `        // the ${word()} updates its ${word()}`,
      `        if ${word()} > ${number()} { return self.${word()}_count; }`,
      `        ${word()}.updated = ${word()}.len() as u32;`,
      "    }",
      "",
    ];
    lines.push(...body);
    bytes += body.reduce((sum, line) => sum + line.length + 1, 0);
  }
  if (rare) lines.splice(Math.floor(next() * lines.length), 0, `    fn update_${word()}(&self) -> bool { true }`);
  return `${lines.join("\n")}\n`;
}

/** Builds the corpus unless a complete one is cached; returns its folder. */
export function buildCorpus(): string {
  const marker = join(CACHE, ".complete");
  if (existsSync(marker)) return CORPUS;
  rmSync(CACHE, { recursive: true, force: true });
  for (const name of PACKAGES) {
    if (!existsSync(join(MODULES, name))) throw new Error(`bench: node_modules/${name} is missing; run npm ci`);
    cpSync(join(MODULES, name), join(CORPUS, "npm", name.replace("/", "+")), { recursive: true, dereference: false });
  }
  const next = random(42);
  const total = FOLDERS * FILES_PER_FOLDER;
  const rare = new Set(Array.from({ length: RARE_MATCHES }, (_, i) => Math.floor(((i + 0.5) * total) / RARE_MATCHES)));
  for (let folder = 0; folder < FOLDERS; folder++) {
    const dir = join(CORPUS, "tree", `crate${String(folder).padStart(2, "0")}`, "src");
    mkdirSync(dir, { recursive: true });
    for (let file = 0; file < FILES_PER_FOLDER; file++) {
      writeFileSync(join(dir, `module${String(file).padStart(2, "0")}.rs`), generatedFile(next, rare.has(folder * FILES_PER_FOLDER + file)));
    }
  }
  writeFileSync(marker, `${PACKAGES.join("\n")}\n`);
  return CORPUS;
}

/** The corpus's size, as the benches print it. */
export function corpusSize(): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(CORPUS, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { bytes, files };
}
