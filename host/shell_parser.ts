// The shell parser: tree-sitter-bash's grammar run by web-tree-sitter, both WebAssembly shipped in their npm packages.
// Loaded once per process, on first need only (a configuration with a shell rule): never at gg's start.
import { createRequire } from "node:module";
import type { Tree } from "web-tree-sitter";
import { type ShellScript, type Syntax, scriptOf } from "./shell_syntax.ts";

export type { ShellAssignment, ShellScript, ShellWord } from "./shell_syntax.ts";

/** Reads a command line as what the shell would run. */
export type ParseShell = (line: string) => ShellScript;

let loading: Promise<ParseShell> | undefined;
let loaded: ParseShell | Error | undefined;

/** Nodes whose children the reading never looks at: not copied out. */
const LEAVES = new Set(["word", "number", "raw_string", "ansi_c_string", "string_content", "comment", "variable_name", "heredoc_start", "heredoc_end", "test_operator", "file_descriptor"]);

/**
 * `tree` as plain nodes, copied out in one walk of a cursor (each node object of the parser costs calls into it).
 * Punctuation and operators are kept by their type alone: only a redirection's operator and a keyword are read.
 */
function plainTree(tree: Tree, line: string, named: boolean[]): Syntax {
  const cursor = tree.walk();
  const { types } = tree.language;
  const node = (): Syntax => {
    const id = cursor.nodeTypeId;
    const type = types[id] || "ERROR";
    if (!(named[id] ?? true)) return { type, named: false, text: "", start: -1, end: -1, children: [] };
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    return { type, named: true, text: line.slice(start, end), start, end, children: [] };
  };
  try {
    const root = node();
    const parents = [root];
    if (!cursor.gotoFirstChild()) return root;
    for (;;) {
      const child = node();
      (parents.at(-1) as Syntax).children.push(child);
      if (!LEAVES.has(child.type) && cursor.gotoFirstChild()) {
        parents.push(child);
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (parents.length === 1) return root;
        cursor.gotoParent();
        parents.pop();
      }
    }
  } finally {
    cursor.delete();
  }
}

/** Compiles the runtime and the grammar, and makes the one parser of this process. */
async function load(): Promise<ParseShell> {
  const resolve = createRequire(import.meta.url).resolve;
  const { Language, Parser } = await import("web-tree-sitter");
  await Parser.init({ locateFile: () => resolve("web-tree-sitter/tree-sitter.wasm") });
  const parser = new Parser();
  const bash = await Language.load(resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  parser.setLanguage(bash);
  // Whether each node type is named, asked of the grammar once rather than of every node.
  const named = bash.types.map((_, id) => bash.nodeTypeIsNamed(id));
  return (line) => {
    const tree = parser.parse(line);
    if (!tree) return { commands: [], writes: [], reads: [], assignments: [], scripts: [], unjudged: ["the shell parser gave no tree for it"] };
    try {
      return scriptOf(plainTree(tree, line, named), tree.rootNode.hasError);
    } finally {
      tree.delete();
    }
  };
}

/** The parser, loading it on the first call; the same promise for every caller. */
export function loadShellParser(): Promise<ParseShell> {
  loading ??= load().then(
    (parse) => (loaded = parse),
    (error: unknown) => {
      loaded = new Error(`the shell parser (tree-sitter-bash) did not load: ${error instanceof Error ? error.message : String(error)}`);
      throw loaded;
    },
  );
  return loading;
}

/** The parser if it is loaded (or why it cannot be), else undefined, with its loading started. */
export function shellParserNow(): ParseShell | Error | undefined {
  if (loaded === undefined) loadShellParser().catch(() => undefined);
  return loaded;
}
