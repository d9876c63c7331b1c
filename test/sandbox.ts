// Test fixture for the shell's sandbox: whether bwrap can start here (the sandbox tests skip, and say so, where it
// cannot; GG_REQUIRE_BWRAP=1, which CI sets, makes that a failure), and a real git workspace to attack: secrets/ that
// approvals deny writing, private/ that they deny reading, and a bare remote outside the workspace.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "vitest";
import { sandboxStart } from "../host/sandbox_start.ts";
import { type TempWorkspace, tempWorkspace } from "./workspace.ts";

/** Whether a sandbox starts on this machine, and if not, why. */
export const SANDBOX = await sandboxStart();

/**
 * A describe block of tests that run commands in a real sandbox: skipped, saying why in its name and on stderr, where
 * bwrap cannot start; failed instead when GG_REQUIRE_BWRAP=1.
 */
export function describeSandboxed(name: string, body: () => void): void {
  if (SANDBOX.ok) {
    describe(name, body);
    return;
  }
  if (process.env.GG_REQUIRE_BWRAP === "1") {
    const problem = SANDBOX.problem;
    describe(name, () => test("bwrap can start a sandbox here (GG_REQUIRE_BWRAP=1)", () => {
      throw new Error(problem);
    }));
    return;
  }
  console.warn(`Sandbox tests skipped (${name}): ${SANDBOX.problem}`);
  describe.skip(`${name} (skipped: bwrap cannot start a sandbox here)`, body);
}

/** What no sandboxed command may print: the content of private/key.txt. */
export const PRIVATE = "PRIVATE-R-7f3a";
/** What secrets/token.txt holds, and its earlier version in the repository's history. */
export const SECRET = "SECRET-W\n";

/** The shell settings and rules every attack runs under. */
export const SANDBOX_CONFIG = {
  capabilities: [{ id: "shell", params: { maxLines: 200, maxChars: 8000, sandbox: "workspace-write" } }],
  approvals: [
    { call: "write_file", when: { path: "secrets/**" }, verdict: "deny" },
    { call: "read_file", when: { path: "private/**" }, verdict: "deny" },
  ],
};

/** A workspace under attack, with what tells whether an attack left its mark. */
export interface AttackWorkspace extends TempWorkspace {
  /** The bare remote, outside the workspace (and outside /tmp, so a sandboxed command sees it, read-only). */
  remote: string;
  /** secrets/, private/ and the remote as they are now: each file's path and content, and the remote's refs. */
  state(): string;
}

const git = (cwd: string, ...args: string[]): string => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });

/** Every file under `dir` with its content, in order. */
function contents(dir: string): string {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(`${path.slice(dir.length)}: ${readFileSync(path, "latin1")}`);
    }
  };
  walk(dir);
  return out.join("\n");
}

/**
 * A git workspace whose history holds two versions of secrets/token.txt (so `git checkout HEAD~1 -- secrets` is an
 * attack), with a Makefile and an npm script an agent could have written, pushed to a bare remote in /var/tmp.
 */
export function attackWorkspace(): AttackWorkspace {
  const ws = tempWorkspace();
  const remote = mkdtempSync("/var/tmp/gg-remote-");
  ws.put({ "secrets/token.txt": "OLD\n", "private/key.txt": `${PRIVATE}\n`, "src/a.txt": "a\n" });
  git(ws.root, "init", "-q");
  git(ws.root, "add", ".");
  git(ws.root, "commit", "-qm", "one");
  ws.put({
    "secrets/token.txt": SECRET,
    Makefile: `leak:\n\tcp src/a.txt secrets/token.txt; cat private/key.txt; git push -q origin HEAD:refs/heads/from-make\n`,
    "package.json": JSON.stringify({ name: "w", version: "1.0.0", scripts: { leak: "cp src/a.txt secrets/token.txt; cat private/key.txt; git push -q origin HEAD:refs/heads/from-npm" } }),
  });
  git(ws.root, "add", ".");
  git(ws.root, "commit", "-qm", "two");
  git(remote, "init", "-q", "--bare");
  git(ws.root, "remote", "add", "origin", remote);
  git(ws.root, "push", "-q", "origin", "HEAD:refs/heads/main");
  const removeWorkspace = ws[Symbol.dispose];
  return Object.assign(ws, {
    remote,
    state: () => [contents(join(ws.root, "secrets")), contents(join(ws.root, "private")), git(remote, "for-each-ref"), contents(remote)].join("\n---\n"),
    [Symbol.dispose]() {
      removeWorkspace();
      rmSync(remote, { recursive: true, force: true });
    },
  });
}

/**
 * The indirections no command parser can see (issue 37, item 1), each a command line that tries to write secrets/,
 * print private/ or push to the remote; `remote` is the bare remote's path.
 */
export const attacks = (remote: string): [string, string][] => [
  ["a script written then run", `printf 'echo pwned > secrets/token.txt\\ncat private/key.txt\\ngit push -q origin HEAD:refs/heads/from-script\\n' > attack.sh && sh attack.sh`],
  ["a Makefile target", "make -s leak"],
  ["npm run", "npm run -s leak"],
  ["python3 -c", `python3 -c "open('secrets/token.txt', 'w').write('pwned'); print(open('private/key.txt').read())"`],
  ["node -e", `node -e "const fs = require('fs'); fs.writeFileSync('secrets/token.txt', 'pwned'); console.log(fs.readFileSync('private/key.txt', 'utf8'))"`],
  ["awk system()", `awk 'BEGIN { system("echo pwned > secrets/token.txt; cat private/key.txt") }'`],
  ["a git alias", `git -c alias.leak='!cp src/a.txt secrets/token.txt; cat private/key.txt; git push -q origin HEAD:refs/heads/from-alias' leak`],
  ["a git alias set in the repository's configuration", "git config alias.up '!cp src/a.txt secrets/token.txt'; git up"],
  ["a git hook", `mkdir -p hooks && printf '#!/bin/sh\\ncp src/a.txt secrets/token.txt\\ncat private/key.txt\\n' > hooks/pre-commit && chmod +x hooks/pre-commit && git -c core.hooksPath=hooks -c user.name=a -c user.email=a@a commit -q --allow-empty -m x`],
  ["a hook planted in .git/hooks", "printf '#!/bin/sh\\ncp src/a.txt secrets/token.txt\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit"],
  ["a renamed git", `cp "$(command -v git)" ./g && ./g push -q origin HEAD:refs/heads/from-renamed`],
  ["a push straight to the remote's folder", `git push -q ${remote} HEAD:refs/heads/direct; cp src/a.txt ${remote}/HEAD`],
  ["cp", "cp src/a.txt secrets/token.txt"],
  ["mv", "mv src/a.txt secrets/"],
  ["tee", "echo pwned | tee secrets/token.txt"],
  ["sed -i", "sed -i s/SECRET/pwned/ secrets/token.txt"],
  ["dd", "dd if=src/a.txt of=secrets/token.txt status=none"],
  ["tar x", "mkdir -p t/secrets && echo pwned > t/secrets/token.txt && tar cf t.tar -C t secrets && tar xf t.tar"],
  ["git checkout", "git checkout HEAD~1 -- secrets/token.txt"],
  ["rm -rf", "rm -rf secrets private"],
  ["cat of a read-denied file", "cat private/key.txt; grep -r PRIVATE . ; cp private/key.txt copy.txt; cat copy.txt"],
  ["a link to a read-denied file", "ln private/key.txt h; ln -s private/key.txt s; cat h s"],
];
