// The Chromium that browser tests and benchmarks drive through playwright-core: the system's `chromium` when there is
// one (Debian's package, which .ci/run installs), otherwise the one the devDependency @sparticuz/chromium ships,
// unpacked once into the temp folder; so `npm ci` alone is enough to run every test.
import { execFileSync, spawn } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { createBrotliDecompress } from "node:zlib";
import { type Browser, chromium } from "playwright-core";

/** A Chromium to launch: its executable, and the environment it needs beyond the process's own. */
export interface ChromiumBinary {
  /** Absolute path of the executable. */
  path: string;
  /** Where it comes from, for a test's or a benchmark's report. */
  source: "system" | "@sparticuz/chromium";
  /** Variables added to the browser's environment (the bundled one's fonts). */
  env: Record<string, string>;
}

/** The system's chromium on PATH, or undefined. */
function systemChromium(): string | undefined {
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Decompresses the brotli file `from` into the file `to`, or, with `untar`, into the folder `to` through tar. */
async function unbrotli(from: string, to: string, untar = false): Promise<void> {
  const source = createReadStream(from).pipe(createBrotliDecompress());
  if (!untar) return pipeline(source, createWriteStream(to, { mode: 0o755 }));
  const tar = spawn("tar", ["-x", "--no-same-owner", "-C", to], { stdio: ["pipe", "ignore", "inherit"] });
  const exited = new Promise<number | null>((resolve, reject) => tar.on("error", reject).on("close", resolve));
  await pipeline(source, tar.stdin);
  const status = await exited;
  if (status !== 0) throw new Error(`Cannot unpack ${from}: tar exited ${status}`);
}

/**
 * The Chromium @sparticuz/chromium ships (x64 Linux), unpacked into <tmp>/gg-chromium-<version>/ with Open Sans beside
 * the system's fonts. The folder is made under a name of its own and renamed into place, so a run interrupted or
 * racing another never leaves a half-written browser where the next one looks.
 */
async function bundledChromium(): Promise<ChromiumBinary> {
  // Its exports name only build/index.js: the package's folder is the one above.
  const bin = join(dirname(fileURLToPath(import.meta.resolve("@sparticuz/chromium"))), "..", "bin");
  const { version } = JSON.parse(readFileSync(join(bin, "..", "package.json"), "utf8")) as { version: string };
  const folder = join(tmpdir(), `gg-chromium-${version}`);
  const found = (): ChromiumBinary => ({ path: join(folder, "chromium"), source: "@sparticuz/chromium", env: { FONTCONFIG_PATH: folder } });
  if (existsSync(join(folder, "chromium"))) return found();
  const staging = `${folder}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await Promise.all([unbrotli(join(bin, "chromium.br"), join(staging, "chromium")), unbrotli(join(bin, "fonts.tar.br"), staging, true)]);
    // The package's fonts.conf names Lambda's folders: this one names the unpacked fonts and keeps the system's.
    const fonts = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${folder}/fonts</dir>\n  <cachedir>${folder}/fonts-cache</cachedir>\n</fontconfig>\n`;
    writeFileSync(join(staging, "fonts.conf"), fonts);
    renameSync(staging, folder);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process unpacked it meanwhile (the rename found the folder there): use theirs.
    if (!existsSync(join(folder, "chromium"))) throw error;
  }
  return found();
}

/** The Chromium to drive: the system's when there is one, else the bundled one. */
export async function findChromium(): Promise<ChromiumBinary> {
  const system = systemChromium();
  return system === undefined ? bundledChromium() : { path: system, source: "system", env: {} };
}

/** Launches headless Chromium (findChromium's) through playwright-core. */
export async function launchChromium(): Promise<Browser> {
  const found = await findChromium();
  return chromium.launch({ executablePath: found.path, headless: true, env: { ...process.env, ...found.env } });
}
