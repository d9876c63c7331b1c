// Paths resolve as any process in the container resolves them: relative to the working directory, absolute as
// themselves, `..` left to the kernel (no lexical normalisation, so symlinks behave as they do for a shell).
import { GgError } from "./errors.ts";

/** Resolves a tool path against the working directory `cwd`; refuses the empty path and NUL bytes. */
export function resolvePath(cwd: string, path: string, field = "path"): string {
  if (path === "") {
    throw new GgError("invalid-argument", `Cannot use an empty ${field}: it would name the working directory itself; pass "." for that`);
  }
  if (path.includes("\0")) {
    throw new GgError("invalid-argument", `Cannot use ${field} ${JSON.stringify(path)}: it contains a NUL byte`);
  }
  if (path.startsWith("/")) return path;
  return cwd.endsWith("/") ? cwd + path : `${cwd}/${path}`;
}

/** The absolute path `path` names from `cwd`, spelled one way: without `.` segments or repeated and trailing slashes.
 *  `..` is kept: the kernel resolves it through symlinks, so dropping it lexically could give two files one key. */
export function pathKey(cwd: string, path: string): string {
  const segments = resolvePath(cwd, path).split("/").filter((segment) => segment !== "" && segment !== ".");
  return `/${segments.join("/")}`;
}

/** Joins a displayed root and a relative entry path, without doubling the separator. */
export function joinDisplay(root: string | undefined, relative: string): string {
  if (root === undefined || root === "." || root === "./") return relative;
  return root.endsWith("/") ? root + relative : `${root}/${relative}`;
}
