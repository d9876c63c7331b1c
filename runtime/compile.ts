// A program is the body of an async function: top-level await and return work. TypeScript is stripped by esbuild
// (types only, no checking) with a source map, so every error points at the program's own line and column.
// JavaScript that V8 compiles runs as written; esbuild sees it only to lower syntax V8 lacks, or to say where it is wrong.
import { Script } from "node:vm";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import { transform } from "esbuild";
import { clampMessage } from "../host/errors.ts";
import { keepCall, topLevelNames } from "./realm.ts";

/** The language of a program. */
export type Language = "ts" | "js";

/** A program ready for the isolate. */
export interface CompiledProgram {
  /** JavaScript evaluating to the program's promise. */
  code: string;
  /** Where esbuild's code came from in the program; none for a program run as written (in its wrapper). */
  map?: TraceMap;
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

/**
 * Compiles a program, or returns why it does not compile. A program that `keeps` its top-level bindings hands them to
 * the sandbox's realm from its head line (see realm.ts), so its own lines stay where they are. esbuild's service
 * works in its own process: this thread is free meanwhile (to prepare the isolate the program will run in). A round
 * trip to it is most of a program's start, so JavaScript that V8 takes as it is skips it.
 */
export async function compileProgram(source: string, language: Language, keeps = false): Promise<CompiledProgram | CompileFailure> {
  try {
    const head = keeps ? `${PROGRAM_HEAD.trimEnd()} ${keepCall(topLevelNames(source, language))}\n` : PROGRAM_HEAD;
    const wrapped = `${head}${source}${PROGRAM_TAIL}`;
    if (language === "js" && compiles(wrapped)) return { code: wrapped, lines: source.split("\n").length };
    const out = await transform(wrapped, {
      loader: language,
      sourcemap: "external",
      sourcefile: `program.${language}`,
      target: "es2024",
      logLevel: "silent",
    });
    return { code: out.code, map: new TraceMap(out.map), lines: source.split("\n").length };
  } catch (error) {
    return failure(source, language, error);
  }
}

/**
 * Whether V8 compiles `code` as a script: compiled here, never run (the isolate runs it). This V8 is the isolate's, so
 * what it takes the isolate takes.
 */
function compiles(code: string): boolean {
  try {
    new Script(code, { filename: PROGRAM_FILE });
    return true;
  } catch {
    return false;
  }
}

/** An error esbuild reports: its text and where, a 1-based line and a 0-based column. */
interface EsbuildMessage {
  text: string;
  location?: { line: number; column: number } | null;
}

function errorsOf(error: unknown): EsbuildMessage[] {
  return (error as { errors?: EsbuildMessage[] }).errors ?? [];
}

// What a script may not hold and a function body may (top-level return beside await, yield, new.target): the bare
// parse reports these, but they are no error in a program.
const SCRIPT_ONLY = /^(Top-level |Cannot use "(await|yield|new\.target)"|The keyword "await")/;

/**
 * Why a program does not compile, at its own position. esbuild parsed it inside the wrapper, so an error in the
 * wrapper's tail (an unclosed brace or string, or a stray "}" that closed the wrapper) names a token the author never
 * wrote: the program alone is parsed again, and its error stands when it comes first.
 */
async function failure(source: string, language: Language, error: unknown): Promise<CompileFailure> {
  const wrapped = errorsOf(error)[0];
  if (!wrapped?.location) return { message: clampMessage(wrapped?.text ?? String(error)) };
  const lines = source.split("\n");
  const at = { line: wrapped.location.line - 1, column: wrapped.location.column };
  const inProgram = at.line >= 1 && at.line <= lines.length;
  const bare = await bareError(source, language);
  if (bare?.location && (!inProgram || before(bare.location, at))) {
    // The wrapped parse took this "}" as the end of the function around the program.
    const stray = bare.text === 'Unexpected "}"' ? '; no "{" of the program is open here' : "";
    return described(`${bare.text}${stray}`, bare.location, lines);
  }
  if (inProgram) return described(wrapped.text, at, lines);
  // In the wrapper, and the program alone parses: the error is pinned to the program's end.
  return described(wrapped.text, programEnd(lines), lines);
}

/** The syntax error of the program parsed alone, as a script, leaving out what only the wrapper makes legal. */
async function bareError(source: string, language: Language): Promise<EsbuildMessage | undefined> {
  try {
    await transform(source, { loader: language, target: "es2024", logLevel: "silent" });
    return undefined;
  } catch (error) {
    // esbuild stops at a syntax error, so the last error is the one that ended the parse.
    const last = errorsOf(error).at(-1);
    return last && !SCRIPT_ONLY.test(last.text) ? last : undefined;
  }
}

/** Just after the program's last character that is not white space (1-based line, 0-based column). */
function programEnd(lines: readonly string[]): { line: number; column: number } {
  let line = lines.length;
  while (line > 1 && (lines[line - 1] ?? "").trim() === "") line--;
  return { line, column: (lines[line - 1] ?? "").trimEnd().length };
}

function before(a: { line: number; column: number }, b: { line: number; column: number }): boolean {
  return a.line < b.line || (a.line === b.line && a.column < b.column);
}

/** A failure at a 1-based line and 0-based column of the program, in words about the program. */
function described(text: string, at: { line: number; column: number }, lines: string[]): CompileFailure {
  // The parser's end is after any trailing newline; the author's is after the last thing written.
  if (/\bend of file\b/.test(text)) at = programEnd(lines);
  const message = text.replace(/\bend of file\b/, "end of the program").replace(/^Expected (.*) but found end/, "Expected $1 but found the end");
  // esbuild quotes the token it met, which can be a whole line of the program.
  return { message: clampMessage(`${message}${hint(lines[at.line - 1] ?? "")}`), line: at.line, column: at.column + 1 };
}

/** Why a statement that only a module may hold fails here, for the line a syntax error points at. */
function hint(line: string): string {
  const statement = /^\s*(import|export|namespace|module|declare)\b/.exec(line)?.[1];
  if (!statement) return "";
  return `; a program is the body of an async function, where ${statement} statements do not exist: reach files and commands through gg, and declare types inline (type T = ...)`;
}

/** What the sandbox has instead of a global a program reached for that only Node or a browser has. */
const INSTEAD: Record<string, string> = {
  setTimeout: "there are no timers: await the gg calls, which finish before the program goes on",
  setInterval: "there are no timers: loop over the work and await the gg calls",
  setImmediate: "there are no timers: await the gg calls, which finish before the program goes on",
  require: "there are no modules: reach files and commands through gg (gg.files, gg.shell)",
  process: "there is no process object: run commands with gg.shell.shell, and read files with gg.files",
  fetch: "there is no network; a command run with gg.shell.shell reaches what the machine and the configuration allow",
};

/** The hint for a ReferenceError naming a Node or browser global, appended to its message; "" for any other. */
export function missingGlobalHint(message: string): string {
  const name = /^(\w+) is not defined$/.exec(message)?.[1];
  const instead = name === undefined ? undefined : INSTEAD[name];
  return instead === undefined ? "" : `; a program runs in a sandbox with only the ES library and the gg global: ${instead}`;
}

/**
 * Maps a 1-based line and column of compiled code to the program as written (1-based), when the map knows it and
 * it falls in the program rather than in the wrapper around it.
 */
export function originalPosition(program: CompiledProgram, line: number, column: number): { line: number; column: number } | undefined {
  // A program run as written keeps its columns, and its lines one below the wrapper's head.
  const found = program.map ? originalPositionFor(program.map, { line, column: column - 1 }) : { line, column: column - 1 };
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
