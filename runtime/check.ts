// Type-checking a TypeScript program before it runs, against the gg global its agent holds (the generated gg.d.ts)
// and the ES library alone (as V8 runs it): no DOM, no Node, as in the sandbox. The compiler is loaded on the first check and kept
// warm: the library's and gg.d.ts's parsed files are reused, so a later check costs the program's own file.
import { dirname } from "node:path";
import type ts from "typescript";
import { PROGRAM_HEAD, PROGRAM_TAIL } from "./compile.ts";
import { topLevelDeclarations } from "./realm.ts";

/** One type error, at the program's own 1-based line and column. */
export interface TypeProblem {
  line: number;
  column: number;
  message: string;
}

/** Type errors a check reports at most; the rest are counted. */
export const TYPE_PROBLEMS_SHOWN = 20;

/** What a check found: the first problems, and how many there were in all. */
export interface CheckOutcome {
  problems: TypeProblem[];
  total: number;
}

// TypeScript's hints for a missing global (install @types/node, add 'dom' to lib) are wrong for a program, which
// cannot change its environment; these codes get gg's own message instead.
const ENVIRONMENT_HINTS = new Set([2580, 2581, 2582, 2584, 2591, 2592, 2593, 2867, 2868]);
const NEWER_LIBRARY_HINT = 2583;
// "Cannot find module": a program imports nothing, whatever TypeScript suggests about module resolution.
const MODULE_HINTS = new Set([2307, 2792]);

/** The message a program's author can act on. */
function messageOf(typescript: typeof ts, diagnostic: ts.Diagnostic): string {
  const text = typescript.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  const name = /^Cannot find name '([^']+)'/.exec(text)?.[1];
  if (name && ENVIRONMENT_HINTS.has(diagnostic.code)) {
    return `Cannot find name '${name}': a program runs in a bare V8 realm with the ES library, the gg global and console only; reach files and commands through gg`;
  }
  if (name && diagnostic.code === NEWER_LIBRARY_HINT) return `Cannot find name '${name}': it is not in the ES library programs run with`;
  const module = /^Cannot find module '([^']+)'/.exec(text)?.[1];
  if (module && MODULE_HINTS.has(diagnostic.code)) return `Cannot import '${module}': a program imports nothing; reach files and commands through gg`;
  return text;
}

/**
 * The 1-based line and column of `offset` in the program, lines ending at \n only (as the run's own positions
 * count them); an offset in the wrapper around it is clamped to the program's first or last character.
 */
function positionIn(source: string, offset: number): { line: number; column: number } {
  const at = Math.min(Math.max(offset, 0), source.length);
  const lineStart = source.lastIndexOf("\n", at - 1) + 1;
  let line = 1;
  for (let i = source.indexOf("\n"); i !== -1 && i < lineStart; i = source.indexOf("\n", i + 1)) line++;
  return { line, column: at - lineStart + 1 };
}

const PROGRAM = "/gg/program.ts";
const TYPES = "/gg/gg.d.ts";
/** The declarations earlier programs of a session left in its realm, as one script: their names are global to it. */
const EARLIER = "/gg/earlier.ts";

/**
 * A checker for programs of an agent whose gg global `declarations` (gg.d.ts) describe; in a session that keeps
 * state, told of each program that ran, so a later program is checked knowing what the earlier ones declared.
 */
export function createChecker(initial: string) {
  let declarations = initial;
  let compiler: Promise<(source: string, earlier: string) => CheckOutcome> | undefined;
  /** The latest top-level declaration of each name, in the order they were made. */
  const earlier = new Map<string, string>();
  return {
    /** Type-checks `source` (the body of an async function). */
    async check(source: string): Promise<CheckOutcome> {
      compiler ??= load(() => declarations);
      // A statement declaring several names is kept once; declaring a name again replaces its statement.
      return (await compiler)(source, [...new Set(earlier.values())].join("\n"));
    },
    /** A program ran in the session's realm: its top-level declarations are there for the next. */
    ran(source: string): void {
      for (const { names, text } of topLevelDeclarations(source)) {
        for (const name of names) {
          earlier.delete(name);
          earlier.set(name, text);
        }
      }
    },
    /** The realm ended: the next program starts empty. */
    forget(): void {
      earlier.clear();
    },
    /** The gg global changed (its external tools did): later checks are against `next`. */
    declare(next: string): void {
      declarations = next;
    },
  };
}

async function load(declarations: () => string): Promise<(source: string, earlier: string) => CheckOutcome> {
  const { default: typescript } = await import("typescript");
  const options: ts.CompilerOptions = {
    strict: true,
    target: typescript.ScriptTarget.ES2024,
    // A dynamic import is then reported as what it is for a program (nothing to import), not as a module setting.
    module: typescript.ModuleKind.ESNext,
    // What V8 in Node 24 runs (Set methods, iterator helpers, Promise.try, Array.fromAsync, using), so a program
    // that runs is not refused.
    lib: ["lib.esnext.d.ts"],
    types: [],
    noEmit: true,
    skipLibCheck: true,
    noResolve: true,
  };
  const libDir = dirname(typescript.getDefaultLibFilePath(options));
  // Parsed once: the library never changes under a checker, and the gg global only when its external tools do.
  const kept = new Map<string, ts.SourceFile>();
  const typesFile = (): void => {
    const text = declarations();
    if (kept.get(TYPES)?.text !== text) kept.set(TYPES, typescript.createSourceFile(TYPES, text, typescript.ScriptTarget.ES2024, false));
  };
  let program: ts.SourceFile | undefined;
  let earlierFile: ts.SourceFile | undefined;
  const host: ts.CompilerHost = {
    getSourceFile(name, target) {
      if (name === PROGRAM) return program;
      if (name === EARLIER) return earlierFile;
      let file = kept.get(name);
      if (!file) {
        const text = typescript.sys.readFile(name);
        if (text === undefined) return undefined;
        file = typescript.createSourceFile(name, text, target, false);
        kept.set(name, file);
      }
      return file;
    },
    getDefaultLibFileName: (given) => typescript.getDefaultLibFilePath(given),
    getDefaultLibLocation: () => libDir,
    writeFile: () => {},
    getCurrentDirectory: () => "/gg",
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (name) => name === PROGRAM || name === EARLIER || kept.has(name) || typescript.sys.fileExists(name),
    readFile: (name) => (name === PROGRAM ? program?.text : name === EARLIER ? earlierFile?.text : kept.get(name)?.text ?? typescript.sys.readFile(name)),
  };
  let previous: ts.Program | undefined;
  return (source, earlier) => {
    typesFile();
    // The program is checked as it runs: the body of an async function, so return and await are legal at its top.
    program = typescript.createSourceFile(PROGRAM, `${PROGRAM_HEAD}${source}${PROGRAM_TAIL}`, typescript.ScriptTarget.ES2024, false);
    // Earlier declarations are checked as the script they make (their own errors are not this program's): the
    // program's own declarations shadow them, so declaring a name again is no error.
    if (earlierFile?.text !== earlier) earlierFile = earlier === "" ? undefined : typescript.createSourceFile(EARLIER, earlier, typescript.ScriptTarget.ES2024, false);
    const rootNames = earlierFile ? [TYPES, EARLIER, PROGRAM] : [TYPES, PROGRAM];
    const checked = typescript.createProgram({ rootNames, options, host, ...(previous ? { oldProgram: previous } : {}) });
    previous = checked;
    const diagnostics = [...checked.getSyntacticDiagnostics(program), ...checked.getSemanticDiagnostics(program)];
    const problems = diagnostics.slice(0, TYPE_PROBLEMS_SHOWN).map((diagnostic): TypeProblem => ({ ...positionIn(source, (diagnostic.start ?? 0) - PROGRAM_HEAD.length), message: messageOf(typescript, diagnostic) }));
    return { problems, total: diagnostics.length };
  };
}
