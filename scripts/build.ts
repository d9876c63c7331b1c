// The build: tsc's output (the library the package exports) and esbuild's bundles (the CLI, the runner, the search
// thread) into a fresh folder dist/build-<id>/, beside the build in use; then dist/'s entry files, each a one-line
// re-export of a build's, are pointed at it, one rename each. So dist/ never lacks a complete build, and a gg already
// running keeps importing its lazy chunks from the folder it started from, which the next build keeps.
// Run: node scripts/build.ts [--if-changed]   (--if-changed: nothing to do when dist/ was built from the same inputs)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { build, type Metafile } from "esbuild";

const ROOT = join(import.meta.dirname, "..");

/** dist/'s entry files: the package's "exports" and what bin/gg.js imports, each re-exporting one build's file. */
export const ENTRIES = ["second.mjs", "main.mjs", "index.d.ts", "index.js", "ai-sdk.d.ts", "ai-sdk.js", "openai-agents.d.ts", "openai-agents.js"] as const;

/** What tsc compiles (tsconfig.build.json's include) and what else decides the output: the build is redone when one changes. */
const INPUTS = ["index.ts", "ai-sdk.ts", "openai-agents.ts", "host", "bindings", "runtime", "agent", "mcp", "study", "frameworks", "console", "cli", "tsconfig.json", "tsconfig.build.json", "package-lock.json", "scripts/build.ts"];

/** The licences of what the bundles hold of other packages, written beside them (and copied to the package's root by npm run docs). */
export const NOTICES = "THIRD_PARTY_NOTICES.md";

/** A build superseded twice is removed only once this old (ms since its folder last changed): it may be one a concurrent build has made but not yet swapped in. */
const KEEP_RECENT_MS = 10 * 60_000;

/** A swap lock older than this (ms) was left by a build killed while swapping; a swap takes milliseconds. */
const STALE_LOCK_MS = 10_000;

/** The build folder's name an entry file re-exports from, or undefined when it is not one of ours (the old flat dist/). */
function entryTarget(dist: string, entry: string): string | undefined {
  try {
    return /^export \* from "\.\/(build-[\w-]+)\//.exec(readFileSync(join(dist, entry), "utf8"))?.[1];
  } catch {
    return undefined;
  }
}

/** The builds dist/'s entry files point at now; "flat" stands for files of a dist/ built before builds had folders. */
export function currentBuilds(dist: string): Set<string> {
  const builds = new Set<string>();
  for (const entry of ENTRIES) builds.add(entryTarget(dist, entry) ?? "flat");
  return builds;
}

/** Runs `work` holding dist/'s swap lock (a directory: mkdir is atomic), so concurrent builds swap one after the other. */
function withSwapLock<T>(dist: string, work: () => T): T {
  const lock = join(dist, ".swap-lock");
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // Released meanwhile.
      }
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(nap, 0, 0, 5);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Writes `text` to `path` by a rename over it, so a reader sees the old file or the new one, never part of one. */
function replaceFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/**
 * Points dist/'s entry files at dist/<build>/ and removes what no one needs any more: builds other than this one, the
 * one the entries pointed at before (a gg started from it may still import a chunk), and recent ones; also the files
 * of a flat dist/ once a build with a folder has been current. Returns the builds removed.
 */
export function swapTo(dist: string, build: string): string[] {
  return withSwapLock(dist, () => {
    const previous = currentBuilds(dist);
    // TypeScript finds index.d.ts for index.js, and refuses a .d.ts named in an export.
    for (const entry of ENTRIES) replaceFile(join(dist, entry), `export * from "./${build}/${entry.replace(/\.d\.ts$/, ".js")}";\n`);
    // npm pack ships the entries and the current build only.
    replaceFile(join(dist, ".npmignore"), ["/*", ...ENTRIES.map((entry) => `!/${entry}`), `!/${build}/`, ""].join("\n"));
    const keep = new Set([build, ...previous, ".npmignore", ".swap-lock", ...ENTRIES]);
    const removed: string[] = [];
    for (const name of readdirSync(dist)) {
      if (keep.has(name)) continue;
      if (name.startsWith("build-") ? Date.now() - statSync(join(dist, name)).mtimeMs < KEEP_RECENT_MS : previous.has("flat")) continue;
      rmSync(join(dist, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  });
}

/** A digest of the build's inputs: the sources tsc and esbuild read, their configuration and the locked dependencies. */
function inputsDigest(root: string): string {
  const hash = createHash("sha256");
  const add = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
      return;
    }
    hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0");
  };
  for (const input of INPUTS) add(join(root, input));
  return hash.digest("hex");
}

/** The inputs digest dist/'s current build was made from; undefined without one build current. */
function builtFrom(dist: string): string | undefined {
  const builds = [...currentBuilds(dist)];
  if (builds.length !== 1 || builds[0] === "flat") return undefined;
  try {
    return readFileSync(join(dist, builds[0] as string, "inputs.sha256"), "utf8");
  } catch {
    return undefined;
  }
}

/** Compiles into `out`: tsc's output (the library, with declarations) and the esbuild bundles bin/gg.js and the runtime load. */
async function compile(out: string): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const typed = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", out], { cwd: ROOT, stdio: "inherit" });
  if (typed.status !== 0) throw new Error(`tsc failed (${typed.error?.message ?? `exit ${typed.status}`})`);
  const cli = await build({
    entryPoints: ["cli/main.ts", "runtime/runner.ts", "host/second.ts"].map((entry) => join(ROOT, entry)),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    external: ["rregex", "commander", "image-size", "isolated-vm", "esbuild", "typescript", "web-tree-sitter"],
    absWorkingDir: ROOT,
    splitting: true,
    chunkNames: "[name]-[hash]",
    entryNames: "[name]",
    outExtension: { ".js": ".mjs" },
    outdir: out,
    metafile: true,
    logLevel: "warning",
  });
  const page = await bundleConsole(join(out, "console-page"));
  writeFileSync(join(out, NOTICES), thirdPartyNotices([cli.metafile, page]));
}

/** The console's page into `out`: index.html, app.css and app.js (Preact and Chart.js bundled in: nothing is fetched at run time). */
async function bundleConsole(out: string): Promise<Metafile> {
  const web = join(ROOT, "console", "web");
  mkdirSync(out, { recursive: true });
  for (const file of ["index.html", "app.css"]) copyFileSync(join(web, file), join(out, file));
  const { metafile } = await build({
    entryPoints: [join(web, "main.tsx")],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    legalComments: "none",
    outfile: join(out, "app.js"),
    metafile: true,
    logLevel: "warning",
  });
  return metafile;
}

/**
 * The notices of the packages the bundles hold code of (from esbuild's metafiles): each one's name, version, licence
 * and licence text, in name order. A bundled package without a licence file fails the build: its notice cannot be kept.
 */
export function thirdPartyNotices(metafiles: Metafile[]): string {
  const folders = new Set<string>();
  for (const metafile of metafiles) {
    for (const input of Object.keys(metafile.inputs)) {
      const at = input.lastIndexOf("node_modules/");
      if (at === -1) continue;
      const [scope = "", name = ""] = input.slice(at + "node_modules/".length).split("/");
      folders.add(join(ROOT, input.slice(0, at), "node_modules", scope.startsWith("@") ? `${scope}/${name}` : scope));
    }
  }
  const sections = [...folders].map((folder) => {
    const { name, version, license } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { name: string; version: string; license?: string };
    const texts = readdirSync(folder).filter((file) => /^(licen[cs]e|notice)\b/i.test(file)).sort();
    if (texts.length === 0) throw new Error(`${name} ${version} is bundled but ships no licence file, so its notice cannot be kept: bundle it no more (make it external), or add its licence by hand`);
    return { name, text: [`## ${name} ${version}${license === undefined ? "" : ` (${license})`}`, ...texts.map((file) => readFileSync(join(folder, file), "utf8").trim())].join("\n\n") };
  });
  const intro = [
    "# Third-party notices",
    "",
    "gg's build bundles code of these packages into `dist/` (the command line's modules and the console's page). The packages",
    "gg depends on at run time are installed beside it with their own licences; `catalog/models.json` carries the notice of",
    "models.dev, whose data it holds, in its `notice` field. Generated by `scripts/build.ts` from the bundles' inputs.",
  ].join("\n");
  return `${[intro, ...sections.sort((a, b) => (a.name < b.name ? -1 : 1)).map((section) => section.text)].join("\n\n")}\n`;
}

/**
 * Runs the new build's CLI once, as the README's first command would, before it is swapped in: a build that cannot
 * answer is never current, and V8's compile cache (which bin/gg.js enables) holds its modules for the first real call.
 */
function tryOut(out: string): void {
  const script = `import module from "node:module"; module.enableCompileCache(); const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2));`;
  const args = ["call", "tree", '{"depth":1}', "--workspace", ROOT];
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script, join(out, "main.mjs"), ...args], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  if (run.status !== 0) throw new Error(`the new build's gg ${args.slice(0, 3).join(" ")} failed (exit ${run.status}): ${run.stderr.trim()}`);
}

/** Builds into a new folder beside dist/'s current build, tries it, and swaps it in. */
async function main(args: string[]): Promise<number> {
  const dist = join(ROOT, "dist");
  const digest = inputsDigest(ROOT);
  if (args.includes("--if-changed") && builtFrom(dist) === digest) return 0;
  // Sortable by start, unique among concurrent builds.
  const build = `build-${Date.now().toString(36)}-${process.pid}`;
  const out = join(dist, build);
  mkdirSync(out, { recursive: true });
  try {
    await compile(out);
    tryOut(out);
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    process.stderr.write(`build: Cannot build gg: ${(error as Error).message}; dist/ keeps its previous build, so fix what is reported above and build again\n`);
    return 1;
  }
  writeFileSync(join(out, "inputs.sha256"), digest);
  swapTo(dist, build);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
