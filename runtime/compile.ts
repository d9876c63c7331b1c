// A program is the body of an async function: top-level await and return work. TypeScript is stripped by esbuild
// (types only, no checking) with a source map, so every error points at the program's own line and column.
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import { transformSync } from "esbuild";
import { clampMessage } from "../host/errors.ts";

/** The language of a program. */
export type Language = "ts" | "js";

/** A program ready for the isolate. */
export interface CompiledProgram {
  /** JavaScript evaluating to the program's promise. */
  code: string;
  map: TraceMap;
  /** Lines of the program as written. */
  lines: number;
}

/** A program that does not compile: the message and its position in the program as written. */
export interface CompileFailure {
  message: string;
  line?: number;
  column?: number;
}

/** File name compiled code runs under, so stack frames can be told apart from gg's own. */
export const PROGRAM_FILE = "program.js";
// The body goes on its own lines inside the wrapper, so program line N is wrapped line N + 1.
/** What goes before a program's body: it runs (and is type-checked) as the body of an async function. */
export const PROGRAM_HEAD = "(async () => {\n";
/** What goes after a program's body. */
export const PROGRAM_TAIL = "\n})()";

/** Compiles a program, or returns why it does not compile. */
export function compileProgram(source: string, language: Language): CompiledProgram | CompileFailure {
  try {
    const out = transformSync(`${PROGRAM_HEAD}${source}${PROGRAM_TAIL}`, {
      loader: language,
      sourcemap: "external",
      sourcefile: `program.${language}`,
      target: "es2024",
      logLevel: "silent",
    });
    return { code: out.code, map: new TraceMap(out.map), lines: source.split("\n").length };
  } catch (error) {
    const first = (error as { errors?: { text: string; location?: { line: number; column: number } }[] }).errors?.[0];
    if (!first) return { message: clampMessage(String(error)) };
    const position = first.location ? { line: first.location.line - 1, column: first.location.column + 1 } : {};
    const text = first.location ? (source.split("\n")[first.location.line - 2] ?? "") : "";
    // esbuild quotes the token it met, which can be a whole line of the program.
    return { message: clampMessage(`${first.text}${hint(text)}`), ...position };
  }
}

/** Why a statement that only a module may hold fails here, for the line a syntax error points at. */
function hint(line: string): string {
  const statement = /^\s*(import|export|namespace|module|declare)\b/.exec(line)?.[1];
  if (!statement) return "";
  return `; a program is the body of an async function, where ${statement} statements do not exist: reach files and commands through gg, and declare types inline (type T = ...)`;
}

/**
 * Maps a 1-based line and column of compiled code to the program as written (1-based), when the map knows it and
 * it falls in the program rather than in the wrapper around it.
 */
export function originalPosition(program: CompiledProgram, line: number, column: number): { line: number; column: number } | undefined {
  const found = originalPositionFor(program.map, { line, column: column - 1 });
  if (found.line === null || found.column === null) return undefined;
  const original = found.line - 1;
  return original >= 1 && original <= program.lines ? { line: original, column: found.column + 1 } : undefined;
}

// The program's frames, as V8 writes them: the bare file name, never the tail of a longer path a program printed.
const FRAME = new RegExp(`(?<![\\w/.-])${PROGRAM_FILE.replace(".", "\\.")}:(\\d+):(\\d+)`, "g");

/** The program's own position of the first stack frame in compiled program code. */
export function position(program: CompiledProgram, stack: string): { line?: number; column?: number } {
  FRAME.lastIndex = 0;
  const frame = FRAME.exec(stack);
  if (!frame) return {};
  return originalPosition(program, Number(frame[1]), Number(frame[2])) ?? {};
}

/**
 * A stack as the program wrote it: compiled positions mapped to its own lines; frames of gg's shim and of the
 * wrapper around the program left out.
 */
export function mapStack(program: CompiledProgram, text: string): string {
  if (!text.includes(PROGRAM_FILE) && !text.includes("<isolated-vm>")) return text;
  return text.replace(/\n\s*at [^\n]*/g, (frame) => {
    if (frame.includes("<isolated-vm>")) return "";
    let inWrapper = false;
    const mapped = frame.replace(FRAME, (found, line: string, column: string) => {
      const original = originalPosition(program, Number(line), Number(column));
      if (!original) inWrapper = true;
      return original ? `${PROGRAM_FILE}:${original.line}:${original.column}` : found;
    });
    return inWrapper ? "" : mapped;
  });
}
