// The shell parser: tree-sitter-bash's grammar run by web-tree-sitter, both WebAssembly shipped in their npm packages.
// Loaded once per process, on first need only (a configuration with a shell rule): never at gg's start.
import { createRequire } from "node:module";
import { type ShellScript, scriptOf } from "./shell_syntax.ts";

export type { ShellScript, ShellWord } from "./shell_syntax.ts";

/** Reads a command line as what the shell would run. */
export type ParseShell = (line: string) => ShellScript;

let loading: Promise<ParseShell> | undefined;
let loaded: ParseShell | Error | undefined;

/** Compiles the runtime and the grammar, and makes the one parser of this process. */
async function load(): Promise<ParseShell> {
  const resolve = createRequire(import.meta.url).resolve;
  const { Language, Parser } = await import("web-tree-sitter");
  await Parser.init({ locateFile: () => resolve("web-tree-sitter/tree-sitter.wasm") });
  const parser = new Parser();
  parser.setLanguage(await Language.load(resolve("tree-sitter-bash/tree-sitter-bash.wasm")));
  return (line) => {
    const tree = parser.parse(line);
    if (!tree) return { commands: [], writes: [], unjudged: ["the shell parser gave no tree for it"] };
    try {
      return scriptOf(tree.rootNode);
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
