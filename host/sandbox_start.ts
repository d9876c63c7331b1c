// Whether a sandbox can start on this machine: bwrap on the PATH, and a trial run of the sandbox's own flags (user
// namespaces allowed, a bwrap new enough for --disable-userns). Asked once per process; a command that asks for a
// sandbox that cannot start is refused with what is missing and how to get it, never run unconfined.
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { bwrapArgs } from "./sandbox.ts";

/** How to get bubblewrap, for a message. */
export const BWRAP_INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)";

/** Milliseconds the trial run may take. */
const PROBE_MS = 10_000;

/** The bwrap the PATH names, or undefined. */
export function findBwrap(path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Why the trial run failed, from what bwrap said on stderr: the missing piece and how to get it. */
export function probeFailure(stderr: string, status: number | string): string {
  const said = stderr.trim().split("\n")[0] ?? "";
  if (/disable-userns|Unknown option/i.test(said)) return `bwrap is older than 0.8.0, which the sandbox needs (--disable-userns): ${said}; ${BWRAP_INSTALL} from a newer release`;
  if (/namespace|uid map|setting up uid|Operation not permitted|Permission denied|No space left/i.test(said)) {
    return `bwrap cannot make a user namespace here (${said}); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0), or run gg where they are allowed`;
  }
  return `bwrap could not start a sandbox (${said === "" ? `exit ${status}, nothing said` : said}); check that bwrap works: bwrap --ro-bind / / true`;
}

/** The trial: the sandbox's own flags over the whole file system, running `true`. */
const PROBE_ARGS = bwrapArgs({ mode: "read-only", workspace: "/", cwd: "/", logDir: "/", writable: [], readOnly: [], hidden: [], network: false }, "true");

/** Whether a sandbox can start: the bwrap to run, or what is missing and how to get it. */
export type SandboxStart = { ok: true; bwrap: string } | { ok: false; problem: string };

let probed: Promise<SandboxStart> | undefined;

/** Whether a sandbox can start here. The first call runs the trial; later ones share its answer. */
export function sandboxStart(): Promise<SandboxStart> {
  probed ??= new Promise((done) => {
    const bwrap = findBwrap();
    if (bwrap === undefined) return done({ ok: false, problem: `bwrap (bubblewrap) is not installed or not on the PATH; ${BWRAP_INSTALL}` });
    execFile(bwrap, PROBE_ARGS, { timeout: PROBE_MS, encoding: "utf8" }, (error, _stdout, stderr) => {
      if (!error) return done({ ok: true, bwrap });
      done({ ok: false, problem: probeFailure(stderr, (error as { code?: number | string }).code ?? "unknown") });
    });
  });
  return probed;
}
