// Paths resolve as any process in the container resolves them: relative to the working directory, absolute as
// themselves, `..` left to the kernel (no lexical normalisation, so symlinks behave as they do for a shell).
import { realpathSync } from "node:fs";
import { GgError, quote } from "./errors.ts";

/** Resolves a tool path against the working directory `cwd`; refuses the empty path and NUL bytes. */
export function resolvePath(cwd: string, path: string, field = "path"): string {
  if (path === "") {
    throw new GgError("invalid-argument", `Cannot use an empty ${field}: it would name the working directory itself; pass "." for that`);
  }
  if (path.includes("\0")) {
    throw new GgError("invalid-argument", `Cannot use ${field} ${quote(path)}: it contains a NUL byte`);
  }
  if (path.startsWith("/")) return path;
  return cwd.endsWith("/") ? cwd + path : `${cwd}/${path}`;
}

/**
 * One spelling of the file `path` names from `cwd`: its real path (`..`, `.` and symbolic links resolved by the
 * kernel) when it exists, else the absolute path without `.` segments or repeated and trailing slashes.
 */
export function pathKey(cwd: string, path: string): string {
  const absolute = resolvePath(cwd, path);
  try {
    return realpathSync.native(absolute);
  } catch {
    return withoutDots(absolute);
  }
}

/** An absolute path without `.` segments and without repeated or trailing slashes: the same file, whatever links lie on the way. */
export const withoutDots = (absolute: string): string => `/${absolute.split("/").filter((segment) => segment !== "" && segment !== ".").join("/")}`;

/** Joins a displayed root and a relative entry path, without doubling the separator. */
export function joinDisplay(root: string | undefined, relative: string): string {
  if (root === undefined || root === "." || root === "./") return relative;
  return root.endsWith("/") ? root + relative : `${root}/${relative}`;
}
