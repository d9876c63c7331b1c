// Test fixture: a real temporary workspace on disk, removed when the test's `using` scope ends.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createTools } from "../bindings/index.ts";
import { type Configuration, parseConfiguration } from "../bindings/config.ts";

/** A temp directory with helpers to lay out files and call tools against it. */
export interface TempWorkspace extends Disposable {
  root: string;
  /** Writes files (string or bytes) at paths relative to the root, creating parents. A path ending in / makes a directory. */
  put(files: Record<string, string | Uint8Array>): void;
  /** Calls a tool in this workspace with an optional configuration (capability entries, as a config file holds them). */
  call(name: string, args?: unknown, config?: unknown): ReturnType<ReturnType<typeof createTools>["call"]>;
  /** Calls a tool and returns its text, failing the test if the call failed. */
  text(name: string, args?: unknown, config?: unknown): Promise<string>;
  /** A path named `name` outside the workspace (a transcript, a configuration), removed with it. */
  outside(name: string): string;
}

/** Creates a temp workspace; declare it with `using` so it is deleted after the test. */
export function tempWorkspace(): TempWorkspace {
  const root = mkdtempSync(join(tmpdir(), "gg-test-"));
  const beside = `${root}-outside`;
  const tools = (config?: unknown) =>
    createTools({ workspace: root, config: config === undefined ? undefined : (parseConfiguration(config) as Configuration) });
  const workspace: TempWorkspace = {
    root,
    put(files) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(root, path);
        if (path.endsWith("/")) {
          mkdirSync(full, { recursive: true });
          continue;
        }
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    },
    call: (name, args, config) => tools(config).call(name, args === undefined ? {} : args),
    async text(name, args, config) {
      const result = await tools(config).call(name, args === undefined ? {} : args);
      if (!result.ok) throw new Error(`${name} failed: error[${result.error.code}]: ${result.error.message}`);
      return result.text;
    },
    outside(name) {
      mkdirSync(beside, { recursive: true });
      return join(beside, name);
    },
    [Symbol.dispose]() {
      rmSync(root, { recursive: true, force: true });
      rmSync(beside, { recursive: true, force: true });
    },
  };
  return workspace;
}

/** `megabytes` MB of what an executable holds: NULs and bytes that are not UTF-8 from its first bytes, a line of text near its end. */
export function binaryBlob(megabytes: number): Buffer {
  const blob = Buffer.alloc(megabytes << 20);
  for (let i = 0; i < blob.length; i += 7) blob[i] = (i * 31) & 0xff;
  blob.write("\x7fELF", 0, "latin1");
  blob.write("needle in a binary\n", blob.length - 100);
  return blob;
}
