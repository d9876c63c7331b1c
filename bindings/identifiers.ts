// Names from elsewhere (an MCP server's tools, a configured server's name) as the identifiers a program calls them by,
// `gg.mcp.<server>.<tool>`, by one rule: `-`, `.` and whitespace become `_`, characters a JavaScript identifier cannot
// hold are dropped, a leading character an identifier cannot start with gets a `_` before it, a reserved word a `_`
// after it. Names that come out the same are all left out, never one put in the other's place: a call must reach the
// tool its approval named.

/** JavaScript's reserved words, strict mode's and modules' included: names a program could not always write bare. */
const RESERVED = new Set(
  [
    "await break case catch class const continue debugger default delete do else enum export extends false finally for",
    "function if implements import in instanceof interface let new null package private protected public return static",
    "super switch this throw true try typeof var void while with yield",
  ].flatMap((line) => line.split(" ")),
);

/** Why a name has no identifier in its namespace. */
export type LeftOutReason =
  /** Nothing of the name is left once the characters an identifier cannot hold are dropped. */
  | "no-identifier"
  /** Another name comes out the same. */
  | "collision"
  /** The identifier is `then`, which would make the namespace look like a promise to `await`. */
  | "then";

/** A name left out of its namespace (it stays callable by its own name, e.g. through `gg.mcp.call`). */
export interface LeftOut {
  /** The name as its source gave it. */
  name: string;
  /** The identifier it came out as; absent for "no-identifier". */
  identifier?: string;
  reason: LeftOutReason;
}

/** Names that all came out as one identifier: every one of them is left out. */
export interface Collision {
  identifier: string;
  /** The names as their source gave them, in the order given. */
  names: string[];
}

/** A namespace's identifiers for a list of names. */
export interface Namespace {
  /** Each identifier kept and the name it stands for, in the order the names were given. */
  byIdentifier: Map<string, string>;
  /** Identifiers two or more names came out as, in the order first met. */
  collisions: Collision[];
  /** Every name without an identifier, in the order given. */
  leftOut: LeftOut[];
}

/** The identifier `name` comes out as by the rule above; undefined when nothing of it is left. */
export function toIdentifier(name: string): string | undefined {
  const kept = name.replace(/[-.\s]/gu, "_").replace(/[^\p{ID_Continue}$\u200c\u200d]/gu, "");
  if (kept === "") return undefined;
  const started = /^[\p{ID_Start}$_]/u.test(kept) ? kept : `_${kept}`;
  return RESERVED.has(started) ? `${started}_` : started;
}

/**
 * The identifiers of `names` in one namespace (a server's tools, or the configured servers): names that come out the
 * same are all left out and reported together, as are names that come out empty or as `then`.
 */
export function namespaceOf(names: readonly string[]): Namespace {
  const given = names.map((name) => ({ name, identifier: toIdentifier(name) }));
  const named = new Map<string, string[]>();
  for (const { name, identifier } of given) if (identifier !== undefined) named.set(identifier, [...(named.get(identifier) ?? []), name]);
  const collisions = [...named].filter(([, found]) => found.length > 1).map(([identifier, found]) => ({ identifier, names: found }));
  const byIdentifier = new Map<string, string>();
  const leftOut: LeftOut[] = [];
  for (const { name, identifier } of given) {
    if (identifier === undefined) leftOut.push({ name, reason: "no-identifier" });
    else if ((named.get(identifier)?.length ?? 0) > 1) leftOut.push({ name, identifier, reason: "collision" });
    else if (identifier === "then") leftOut.push({ name, identifier, reason: "then" });
    else byIdentifier.set(identifier, name);
  }
  return { byIdentifier, collisions, leftOut };
}
