// The sandbox a shell command runs in, as bubblewrap's command line: built by one pure function from a policy whose
// paths are already resolved (sandbox_paths.ts does the resolving, sandbox_start.ts finds bwrap), so what a policy
// allows can be read and tested without running anything. The kernel then enforces it: a command reads the file
// system but what is hidden, writes only its writable folders, has no network but its own loopback unless allowed,
// and holds no privilege, root or not.

/** The shell capability's sandbox settings: off (commands run unconfined), or the two confined modes. */
export const SANDBOX_MODES = ["off", "read-only", "workspace-write"] as const;
/** One of {@link SANDBOX_MODES}. */
export type SandboxMode = (typeof SANDBOX_MODES)[number];
/** A mode that confines: read-only (no folder of the workspace writable) or workspace-write. */
export type ConfinedMode = Exclude<SandboxMode, "off">;

/** Folders the sandbox replaces with its own empty ones: no other process's sockets or files are reachable there. */
export const PRIVATE_FOLDERS: readonly string[] = ["/tmp", "/run"];
/** Folders the sandbox mounts afresh (its own devices and processes): nothing of the host's is there to hide. */
const FRESH_FOLDERS: readonly string[] = ["/dev", "/proc"];
/** The descriptor bwrap reads a hidden file's (empty) content from: the caller opens /dev/null there. */
export const EMPTY_FD = 3;

/** What a confined command may do. Every path is absolute and real (no symbolic link on the way). */
export interface SandboxPolicy {
  mode: ConfinedMode;
  /** The workspace (or the agent's worktree): writable under workspace-write, readable under read-only. */
  workspace: string;
  /** Where the command starts: inside the workspace, or the agent's own worktree elsewhere (writable as the workspace is). */
  cwd: string;
  /** gg's log folder (offloaded output), which lies in the private /tmp: writable under workspace-write, else readable. */
  logDir: string;
  /** Further folders the command may write (the capability's `writable`). */
  writable: readonly string[];
  /** Files and folders inside the writable folders that stay read-only: write-denied paths, gg's own files. */
  readOnly: readonly string[];
  /** Read-denied paths, each hidden: a folder by an empty read-only folder, a file by an empty file. */
  hidden: readonly { path: string; folder: boolean }[];
  /** True: the host's network; false: only the command's own loopback. */
  network: boolean;
  /** Files the private /run would hide that the network needs (resolv.conf's target under systemd-resolved). */
  networkFiles?: readonly string[];
}

/** Whether `path` is `folder` or lies inside it. */
export const within = (path: string, folder: string): boolean => path === folder || folder === "/" || path.startsWith(`${folder}/`);

/** Parents before their children, so a later mount of a child is not covered by its parent's. */
const shallowFirst = (paths: readonly string[]): string[] => [...new Set(paths)].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : a > b ? 1 : 0));

/**
 * The folders between each writable folder and a protected path inside it, outside every read-only path. Bound onto
 * themselves they become mount points, which no command can rename or remove: a protected path cannot be carried out
 * from under its rule (`mv config cfg` taking config/secrets along, to be written as cfg/secrets by the next command).
 */
function anchors(guarded: readonly string[], writable: readonly string[], readOnly: readonly string[]): string[] {
  const found = new Set<string>();
  for (const path of guarded) {
    for (const folder of writable.filter((outer) => outer !== path && within(path, outer))) {
      for (let at = path.slice(0, path.lastIndexOf("/")); at.length > folder.length; at = at.slice(0, at.lastIndexOf("/"))) {
        if (!readOnly.some((kept) => within(at, kept))) found.add(at);
      }
    }
  }
  return [...found];
}

/**
 * The arguments of bwrap (its name excluded) that run `command` with sh -c under `policy`. Pure: it reads nothing.
 * The order is the point: the root read-only, then fresh /dev and /proc (with /proc/sys read-only, which uid 0 could
 * otherwise write), private /tmp and /run, the folders the command sees there and may write (and the folders that
 * hold what it may not touch, pinned), then what stays read-only inside them, then what is hidden, so a stricter
 * mount always lands over a looser one.
 */
export function bwrapArgs(policy: SandboxPolicy, command: string): string[] {
  const writes = policy.mode === "workspace-write";
  const own = within(policy.cwd, policy.workspace) ? [policy.workspace, policy.logDir] : [policy.workspace, policy.cwd, policy.logDir];
  const writable = shallowFirst([...(writes ? own : []), ...policy.writable]);
  const readable = shallowFirst([...(writes ? [] : own), ...(policy.network ? (policy.networkFiles ?? []) : [])]);
  const bound = [...writable, ...readable];
  // What the private folders took away is not there to protect, and a mount on it would fail to start.
  const visible = (path: string): boolean => !FRESH_FOLDERS.some((folder) => within(path, folder)) && (!PRIVATE_FOLDERS.some((folder) => within(path, folder)) || bound.some((folder) => within(path, folder)));
  const args = [
    // No privilege: its own user namespace with every capability dropped, and no namespace of its own to make.
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(policy.network ? [] : ["--unshare-net"]),
    "--new-session",
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    ...PRIVATE_FOLDERS.flatMap((folder) => ["--tmpfs", folder]),
  ];
  // Read-only only where something could be written; elsewhere the root's read-only mount holds already.
  const readOnly = shallowFirst(policy.readOnly).filter((path) => visible(path) && writable.some((folder) => within(path, folder)));
  const hidden = new Map(policy.hidden.map((entry) => [entry.path, entry.folder]));
  const hide = shallowFirst([...hidden.keys()]).filter(visible);
  for (const folder of readable.filter((path) => !writable.some((outer) => within(path, outer)))) args.push("--ro-bind", folder, folder);
  for (const folder of shallowFirst([...writable, ...anchors([...readOnly, ...hide], writable, readOnly)])) args.push("--bind", folder, folder);
  for (const path of readOnly) args.push("--ro-bind", path, path);
  for (const path of hide) {
    if (hidden.get(path)) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind-data", String(EMPTY_FD), path);
  }
  args.push("--chdir", policy.cwd, "--", "sh", "-c", command);
  return args;
}

/** Whether an argument list from {@link bwrapArgs} reads the empty descriptor (it hides a file). */
export const readsEmptyFd = (args: readonly string[]): boolean => args.includes("--ro-bind-data");
