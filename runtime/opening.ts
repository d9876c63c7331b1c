// The opening turn: what a code agent meets before its first turn, opened as views so that it is charged, listed and
// closed like any other. Every request carries it, so it is held to a budget: the workspace's tree at the deepest
// depth whose text fits, or, when not even the top level fits, a few lines saying what is there and how to look.
import { OPENING_TREE_TOKENS } from "../bindings/config.ts";
import { type CallContext, errorText, holdsCall, runCheckedSync } from "../bindings/define.ts";
import type { GgError } from "../host/errors.ts";
import { listDir } from "../bindings/list_dir.ts";
import { hiddenBelow } from "../bindings/approval_walk.ts";
import { tree } from "../bindings/tree.ts";
import { grouped } from "../host/lines.ts";
import { enter, listDir as listWalk, walkRoot, type WalkEntry } from "../host/walk.ts";
import { ggFunctions } from "./api.ts";
import { textTokens } from "./context.ts";
import { moduleDoc } from "./docs.ts";
import type { OpenedView, Views } from "./views.ts";
import { GG_LABEL } from "./window.ts";

/** The label of the opening turn's tree. */
const TREE_LABEL = `${GG_LABEL}workspace/tree`;

/**
 * Opens the opening turn's views as the configuration sets it, then a view of each of `specs` (read whole, as
 * read_file reads; one that cannot be opened is a view saying why), and returns them.
 */
export function openingTurn(context: CallContext, views: Views, specs: readonly { path: string; limit: number }[] = []): OpenedView[] {
  const { config } = context;
  const opened: OpenedView[] = [];
  const { treeDepth, modules } = config.openingTurn;
  // A configuration parsed before the budget existed (a transcript's) has none: it gets the default.
  const treeTokens = config.openingTurn.treeTokens ?? OPENING_TREE_TOKENS;
  if (treeTokens > 0 && holdsCall(config, tree)) {
    const shape = openingTree(context, treeDepth, treeTokens);
    if (shape !== undefined) opened.push(views.openText(TREE_LABEL, shape));
  }
  const held = new Set(ggFunctions(config).map((fn) => fn.module));
  for (const module of modules) {
    if (held.has(module)) opened.push(views.openText(`${GG_LABEL}docs/${module}`, moduleDoc(module, config)));
  }
  for (const spec of specs) {
    try {
      opened.push(views.open(spec.path, undefined, spec.limit));
    } catch (error) {
      opened.push(views.openText(`${GG_LABEL}specs/${spec.path}`, errorText(error as GgError)));
    }
  }
  return opened;
}

/**
 * The workspace's tree at the deepest depth up to `depth` that is whole and within `tokens`; when not even its top
 * level is, a summary of the top level. Undefined when the workspace cannot be listed.
 */
function openingTree(context: CallContext, depth: number, tokens: number): string | undefined {
  for (let level = depth; level >= 1; level--) {
    const shape = runCheckedSync(tree, { path: ".", depth: level }, context);
    if (!shape.ok) return undefined;
    // An empty or ignored root says so in one line, whatever the budget: there is nothing to sum up.
    if ((!shape.data.cut && textTokens(shape.text) <= tokens) || shape.data.entries.length === 0) return shape.text;
  }
  return topLevelSummary(context, tokens);
}

/** The kinds of top-level entries the summary counts, each with its plural. */
const KINDS = { file: "files", directory: "directories", "symbolic link": "symbolic links", "other entry": "other entries" } as const;

/** What a top-level entry is, for the summary's counts. */
function kindOf(entry: WalkEntry): keyof typeof KINDS {
  if (entry.symlink) return "symbolic link";
  if (entry.directory) return "directory";
  return entry.file ? "file" : "other entry";
}

/** How the summary groups files: by extension (`.js`), a dot file or a name without one as "no extension". */
const extensionOf = (name: string): string => {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot) : "no extension";
};

/** How many of each, most first, ties by name. */
function tally(keys: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/**
 * `label: a, b, c` with as many of the `count` items as fit `room` bytes (a newline included) and the rest counted,
 * or "" when not one fits. Items are made as they are needed, so a long list costs what is shown.
 */
function fitted(label: string, count: number, item: (i: number) => string, room: number): string {
  const more = (rest: number): string => (rest > 0 ? `, and ${grouped(rest)} more` : "");
  let line = `${label}:`;
  let shown = 0;
  while (shown < count) {
    const next = `${line}${shown === 0 ? " " : ", "}${item(shown)}`;
    if (Buffer.byteLength(next + more(count - shown - 1)) + 1 > room) break;
    line = next;
    shown++;
  }
  return shown === 0 ? "" : line + more(count - shown);
}

/**
 * The top level of a workspace too big to list within `tokens`, in a few lines: how many entries of which kinds, its
 * directories with their sizes and its files by extension as far as the budget goes (the rest counted), and the calls
 * that show the rest. The first and last of these are always there, so a budget too small for them is overrun.
 */
function topLevelSummary(context: CallContext, tokens: number): string {
  const root = walkRoot(context.cwd, context.workspace, context.warm, hiddenBelow(context.config, tree, {}, ".", context));
  const { entries, scope } = listWalk(root);
  const kinds = tally(entries.map(kindOf)).map(([kind, count]) => `${grouped(count)} ${count === 1 ? kind : KINDS[kind as keyof typeof KINDS]}`);
  const header = `(${grouped(entries.length)} entries at the top level, too many to list in the opening turn: ${kinds.join(", ")})`;
  const directories = entries.filter((entry) => entry.directory && !entry.symlink);
  const ways = [
    ...(holdsCall(context.config, listDir) ? ["gg.files.listDir() lists them all"] : []),
    ...(directories[0] ? [`gg.files.tree(${JSON.stringify(directories[0].name)}) shows a directory`] : []),
  ];
  const hint = `${ways.length > 0 ? ways.join("; ") : "gg.files.tree() lists as many as it can"}.`;
  const room = tokens * 4 - Buffer.byteLength(`${header}\n${hint}`);
  const sizes: string[] = [];
  const size = (i: number): string => {
    const entry = directories[i] as WalkEntry;
    try {
      sizes[i] ??= `${entry.name}/ (${grouped(listWalk(enter(scope, entry, root)).entries.length)})`;
    } catch {
      sizes[i] = `${entry.name}/ (unreadable)`;
    }
    return sizes[i];
  };
  const extensions = tally(entries.filter((entry) => entry.file && !entry.symlink).map((entry) => extensionOf(entry.name)));
  const filesIn = (space: number): string => fitted("files", extensions.length, (i) => `${extensions[i]?.[0]} ${grouped(extensions[i]?.[1] ?? 0)}`, space);
  const foldersIn = (space: number): string => fitted("directories (entries)", directories.length, size, space);
  const bytes = (line: string): number => (line ? Buffer.byteLength(line) + 1 : 0);
  let files = filesIn(room);
  let folders = foldersIn(room);
  // Neither list may crowd the other out: when both do not fit, each gets half, and what one leaves goes to the other.
  if (bytes(files) + bytes(folders) > room) {
    const half = Math.floor(room / 2);
    if (bytes(files) <= half) folders = foldersIn(room - bytes(files));
    else if (bytes(folders) <= half) files = filesIn(room - bytes(folders));
    else {
      files = filesIn(half);
      folders = foldersIn(room - bytes(files));
    }
  }
  return [header, folders, files, hint].filter(Boolean).join("\n");
}
