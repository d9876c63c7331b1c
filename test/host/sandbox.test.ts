// bwrap's command line from a policy, read without running anything: what each policy mounts, and in which order.
import { expect, test } from "vitest";
import { bwrapArgs, EMPTY_FD, readsEmptyFd, type SandboxPolicy } from "../../host/sandbox.ts";
import { probeFailure } from "../../host/sandbox_start.ts";

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mode: "workspace-write",
  workspace: "/ws",
  cwd: "/ws",
  logDir: "/tmp/gg-shell",
  writable: [],
  readOnly: [],
  hidden: [],
  network: false,
  ...over,
});

/** The mounts of an argument list, as [option, ...operands] in order. */
function mounts(args: string[]): string[][] {
  const arity: Record<string, number> = { "--ro-bind": 2, "--bind": 2, "--tmpfs": 1, "--remount-ro": 1, "--ro-bind-data": 2, "--dev": 1, "--proc": 1 };
  const found: string[][] = [];
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const option = args[i] as string;
    const count = arity[option];
    if (count === undefined) continue;
    found.push(args.slice(i, i + 1 + count));
    i += count;
  }
  return found;
}

/** Where `mount` comes in `args`'s mounts, or -1. */
const at = (args: string[], mount: string[]): number => mounts(args).findIndex((found) => found.join("\0") === mount.join("\0"));

test("bwrapArgs() drops every privilege: own user namespace, no capability, no nested namespace, own PID namespace, dies with gg", () => {
  const args = bwrapArgs(policy(), "true");
  for (const flag of ["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent"]) expect(args).toContain(flag);
  expect(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2)).toEqual(["--cap-drop", "ALL"]);
});

test("bwrapArgs() runs the command with sh -c in its working directory, after every option", () => {
  const args = bwrapArgs(policy({ cwd: "/ws/src" }), "make test");
  expect(args.slice(-6)).toEqual(["--chdir", "/ws/src", "--", "sh", "-c", "make test"]);
  expect(args.indexOf("--")).toBe(args.length - 4);
});

test("bwrapArgs() mounts the root read-only first, then fresh /dev and /proc with /proc/sys read-only, then private /tmp and /run", () => {
  const args = bwrapArgs(policy(), "true");
  expect(mounts(args).slice(0, 6)).toEqual([["--ro-bind", "/", "/"], ["--dev", "/dev"], ["--proc", "/proc"], ["--ro-bind", "/proc/sys", "/proc/sys"], ["--tmpfs", "/tmp"], ["--tmpfs", "/run"]]);
});

test("bwrapArgs() cuts the network unless the policy allows it", () => {
  expect(bwrapArgs(policy(), "true")).toContain("--unshare-net");
  expect(bwrapArgs(policy({ network: true }), "true")).not.toContain("--unshare-net");
});

test("bwrapArgs() under workspace-write binds the workspace, the log folder and the extra folders writable, after the private /tmp", () => {
  const args = bwrapArgs(policy({ writable: ["/root/.cache"] }), "true");
  for (const folder of ["/ws", "/tmp/gg-shell", "/root/.cache"]) expect(at(args, ["--bind", folder, folder])).toBeGreaterThan(at(args, ["--tmpfs", "/tmp"]));
});

test("bwrapArgs() under read-only binds the workspace and the log folder read-only, and only the extra folders writable", () => {
  const args = bwrapArgs(policy({ mode: "read-only", workspace: "/tmp/ws", cwd: "/tmp/ws", writable: ["/var/cache/x"] }), "true");
  expect(at(args, ["--ro-bind", "/tmp/ws", "/tmp/ws"])).toBeGreaterThan(at(args, ["--tmpfs", "/tmp"]));
  expect(at(args, ["--ro-bind", "/tmp/gg-shell", "/tmp/gg-shell"])).toBeGreaterThan(-1);
  expect(at(args, ["--bind", "/tmp/ws", "/tmp/ws"])).toBe(-1);
  expect(at(args, ["--bind", "/var/cache/x", "/var/cache/x"])).toBeGreaterThan(-1);
});

test("bwrapArgs() treats a working directory outside the workspace as the agent's worktree: writable under workspace-write, readable under read-only", () => {
  const worktree = "/var/tmp/trees/agent-1";
  expect(at(bwrapArgs(policy({ cwd: worktree }), "true"), ["--bind", worktree, worktree])).toBeGreaterThan(-1);
  expect(at(bwrapArgs(policy({ mode: "read-only", cwd: worktree }), "true"), ["--ro-bind", worktree, worktree])).toBeGreaterThan(-1);
  expect(at(bwrapArgs(policy({ cwd: "/ws/src" }), "true"), ["--bind", "/ws/src", "/ws/src"])).toBe(-1);
});

test("bwrapArgs() binds a parent folder before the folders inside it, so its mount does not cover theirs", () => {
  const args = bwrapArgs(policy({ writable: ["/ws/build/out", "/ws/build"] }), "true");
  expect(at(args, ["--bind", "/ws", "/ws"])).toBeLessThan(at(args, ["--bind", "/ws/build", "/ws/build"]));
  expect(at(args, ["--bind", "/ws/build", "/ws/build"])).toBeLessThan(at(args, ["--bind", "/ws/build/out", "/ws/build/out"]));
});

test("bwrapArgs() keeps write-denied paths inside writable folders read-only, mounted after the writable ones", () => {
  const args = bwrapArgs(policy({ readOnly: ["/ws/secrets", "/ws/.git/hooks"] }), "true");
  for (const path of ["/ws/secrets", "/ws/.git/hooks"]) expect(at(args, ["--ro-bind", path, path])).toBeGreaterThan(at(args, ["--bind", "/ws", "/ws"]));
});

test("bwrapArgs() pins the folders that hold a protected path inside a writable folder, so none can be renamed away with it", () => {
  const args = bwrapArgs(policy({ readOnly: ["/ws/config/prod/secrets", "/ws/locked"], hidden: [{ path: "/ws/locked/deep/key", folder: false }, { path: "/ws/app/.env", folder: false }] }), "true");
  for (const folder of ["/ws/config", "/ws/config/prod", "/ws/app"]) {
    expect(at(args, ["--bind", folder, folder])).toBeGreaterThan(at(args, ["--bind", "/ws", "/ws"]));
    expect(at(args, ["--bind", folder, folder])).toBeLessThan(at(args, ["--ro-bind", "/ws/config/prod/secrets", "/ws/config/prod/secrets"]));
  }
  // Inside a read-only folder nothing is pinned writable: it would undo the read-only mount.
  expect(at(args, ["--bind", "/ws/locked/deep", "/ws/locked/deep"])).toBe(-1);
  expect(mounts(args).filter((mount) => mount[0] === "--bind").map((mount) => mount[1]).sort()).toEqual(["/tmp/gg-shell", "/ws", "/ws/app", "/ws/config", "/ws/config/prod"]);
});

test("bwrapArgs() mounts nothing for a read-only path that no writable folder holds: the root's mount holds it already", () => {
  const args = bwrapArgs(policy({ readOnly: ["/etc/gg.json", "/tmp/elsewhere/gg.json"] }), "true");
  expect(at(args, ["--ro-bind", "/etc/gg.json", "/etc/gg.json"])).toBe(-1);
  expect(at(args, ["--ro-bind", "/tmp/elsewhere/gg.json", "/tmp/elsewhere/gg.json"])).toBe(-1);
});

test("bwrapArgs() hides a read-denied folder under an empty read-only folder and a file under an empty file, after every other mount", () => {
  const args = bwrapArgs(policy({ readOnly: ["/ws/secrets"], hidden: [{ path: "/ws/private", folder: true }, { path: "/ws/key.pem", folder: false }] }), "true");
  const last = Math.max(at(args, ["--bind", "/ws", "/ws"]), at(args, ["--ro-bind", "/ws/secrets", "/ws/secrets"]));
  expect(at(args, ["--tmpfs", "/ws/private"])).toBeGreaterThan(last);
  expect(at(args, ["--remount-ro", "/ws/private"])).toBe(at(args, ["--tmpfs", "/ws/private"]) + 1);
  expect(at(args, ["--ro-bind-data", String(EMPTY_FD), "/ws/key.pem"])).toBeGreaterThan(last);
  expect(readsEmptyFd(args)).toBe(true);
  expect(readsEmptyFd(bwrapArgs(policy({ hidden: [{ path: "/ws/private", folder: true }] }), "true"))).toBe(false);
});

test("bwrapArgs() hides what the host shows, and skips what the private /tmp and the fresh /proc and /dev took away already", () => {
  const hidden = ["/etc/shadow", "/tmp/other/secret", "/proc/1/environ", "/dev/sda", "/tmp/gg-shell/old.stdout"].map((path) => ({ path, folder: false }));
  const args = bwrapArgs(policy({ hidden }), "true");
  const mounted = mounts(args).filter((mount) => mount[0] === "--ro-bind-data").map((mount) => mount[2]);
  expect(mounted).toEqual(["/etc/shadow", "/tmp/gg-shell/old.stdout"]);
});

test("bwrapArgs() binds resolv.conf's target into the private /run only for a command with network", () => {
  const files = { networkFiles: ["/run/systemd/resolve/stub-resolv.conf"] };
  const file = "/run/systemd/resolve/stub-resolv.conf";
  expect(at(bwrapArgs(policy({ ...files, network: true }), "true"), ["--ro-bind", file, file])).toBeGreaterThan(at(bwrapArgs(policy({ network: true }), "true"), ["--tmpfs", "/run"]));
  expect(at(bwrapArgs(policy({ ...files, network: false }), "true"), ["--ro-bind", file, file])).toBe(-1);
});

test("probeFailure() names what is missing and how to get it", () => {
  expect(probeFailure("bwrap: Unknown option --disable-userns\n", 1)).toMatch(/older than 0\.8\.0.*install bubblewrap/);
  expect(probeFailure("bwrap: setting up uid map: Permission denied\n", 1)).toMatch(/user namespace.*unprivileged_userns/);
  expect(probeFailure("bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.", 1)).toMatch(/cannot make a user namespace/);
  expect(probeFailure("", 1)).toMatch(/exit 1, nothing said/);
});
