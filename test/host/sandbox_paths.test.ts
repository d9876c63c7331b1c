// From rule globs and configured folders to the real paths a sandbox mounts, on real temp folders (nothing is run).
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { globPaths, resolveSandbox, type SandboxRequest } from "../../host/sandbox_paths.ts";
import { realPath } from "../../host/paths.ts";
import { tempWorkspace } from "../workspace.ts";

const request = (root: string, over: Partial<SandboxRequest> = {}): SandboxRequest => ({
  mode: "workspace-write",
  network: false,
  workspace: root,
  cwd: root,
  writable: [],
  readDenied: [],
  writeDenied: [],
  protect: [],
  ...over,
});

test("globPaths() gives a folder a glob covers whole once, and a literal path as itself", () => {
  using ws = tempWorkspace();
  ws.put({ "secrets/a.txt": "", "secrets/deep/b.txt": "", "notes.txt": "" });
  const root = realPath(ws.root);
  expect(globPaths("secrets/**", root)).toEqual([join(root, "secrets")]);
  expect(globPaths("notes.txt", root)).toEqual([join(root, "notes.txt")]);
  expect(globPaths("missing/**", root)).toEqual([]);
});

test("globPaths() walks for a glob with no fixed folder, at any depth, dot files included", () => {
  using ws = tempWorkspace();
  ws.put({ ".env": "", "app/.env": "", "app/sub/.env": "", "app/.envrc": "", "keys/a.pem": "", "keys/b.txt": "" });
  const root = realPath(ws.root);
  expect(globPaths("**/.env", root).sort()).toEqual([".env", "app/.env", "app/sub/.env"].map((path) => join(root, path)));
  expect(globPaths("keys/*.pem", root)).toEqual([join(root, "keys/a.pem")]);
  expect(globPaths("*/sub/**", root)).toEqual([join(root, "app/sub")]);
});

test("globPaths() takes absolute globs as they are, for paths outside the workspace", () => {
  using ws = tempWorkspace();
  ws.put({ "outside/x.key": "" });
  const root = realPath(ws.root);
  expect(globPaths(`${root}/outside/*.key`, join(root, "elsewhere"))).toEqual([join(root, "outside/x.key")]);
});

test("globPaths() follows a matched symbolic link to what it reaches, where a mount lands", () => {
  using ws = tempWorkspace();
  ws.put({ "real/secret.txt": "" });
  const root = realPath(ws.root);
  symlinkSync(join(root, "real/secret.txt"), join(root, "link.env"));
  expect(globPaths("*.env", root)).toEqual([join(root, "real/secret.txt")]);
});

test("globPaths() refuses a glob whose walk passes its bound on entries (over-cap), naming the glob; a folder it covers whole costs no walk", () => {
  using ws = tempWorkspace();
  const root = realPath(ws.root);
  for (let i = 0; i < 30; i++) mkdirSync(join(root, `d${i}`, "e"), { recursive: true });
  expect(() => globPaths("**/.env", root, 50)).toThrow(expect.objectContaining({ code: "over-cap", message: expect.stringContaining('the path glob "**/.env" of an approval rule must be matched against more than 50 entries') }));
  expect(globPaths("**/.env", root, 60)).toEqual([]);
  expect(globPaths("d1/**", root, 1)).toEqual([join(root, "d1")]);
});

test("resolveSandbox() keeps write-denied paths, gg's own files and the repository's hooks and configuration read-only, and hides read-denied ones", () => {
  using ws = tempWorkspace();
  ws.put({ "secrets/a.txt": "", "private/b.txt": "", "key.pem": "", "gg.json": "{}", ".git/hooks/": "", ".git/config": "" });
  const root = realPath(ws.root);
  const policy = resolveSandbox(request(ws.root, { writeDenied: ["secrets/**"], readDenied: ["private/**", "*.pem"], protect: [join(root, "gg.json"), join(root, "not-yet.sh")] }));
  expect([...policy.readOnly].sort()).toEqual([".git/config", ".git/hooks", "gg.json", "secrets"].map((path) => join(root, path)));
  expect(policy.hidden).toEqual([{ path: join(root, "private"), folder: true }, { path: join(root, "key.pem"), folder: false }]);
  expect(resolveSandbox(request(ws.root, { mode: "read-only" })).readOnly).toEqual([]);
});

test("resolveSandbox() resolves writable folders from home, the workspace or as written, and refuses one that does not exist", () => {
  using ws = tempWorkspace();
  ws.put({ "build/": "" });
  const root = realPath(ws.root);
  expect(resolveSandbox(request(ws.root, { writable: ["build", root, "~"] })).writable).toEqual([join(root, "build"), root, realPath(process.env.HOME ?? "/")]);
  expect(() => resolveSandbox(request(ws.root, { writable: ["cache"] }))).toThrow(expect.objectContaining({ code: "not-found", message: expect.stringMatching(/the folder "cache" the shell capability makes writable \(params\.writable\) does not exist/) }));
});
