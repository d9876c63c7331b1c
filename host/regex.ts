// Search patterns are Rust regular expressions, matched by Rust's own `regex` crate (the rregex WebAssembly build):
// the exact syntax and Unicode semantics, and matching linear in the input, so no pattern can hang a search.
//
// A file is searched whole, not line by line: W = (?m)PATTERN runs over the file, 64 KiB of whole lines at a time, so
// the engine's memory never holds the file (each \r\n seen as \n\n, so `$` holds before a CRLF ending), and only
// lines where W matches are checked with PATTERN on their own. A line that matches on its own is a W match too, so
// from a line start the first line that can match is found by narrowing:
// take the line where a W match ends, and look again before it until W finds nothing there. That line is checked
// and the scan restarts on the next one, so no line is missed and a match running across lines hides nothing.
import { isUtf8 } from "node:buffer";
import { createRequire } from "node:module";
import type { RRegex } from "rregex";
import { GgError, quote } from "./errors.ts";
import { type GramQuery, gramQuery } from "./grams.ts";

const REPLACEMENT = Buffer.from("\uFFFD");

/** A compiled search pattern. */
export interface LineMatcher {
  /**
   * Calls `onLine` with the 1-based number and the byte span (ending excluded) of each matching line of a file's
   * `bytes`, in order, until it returns false. Bytes that are not UTF-8 are matched and shown as U+FFFD, so the
   * spans index `text`, the file as decoded.
   */
  scan(bytes: Buffer, onLine: (line: number, text: Buffer, start: number, end: number) => boolean): void;
  /** Trigrams every matching file holds in its raw bytes, when the pattern requires any: a kept file's filter checks them. */
  grams?: GramQuery;
  /** What every matching file holds in its raw bytes, when the pattern requires anything: `scan` checks it first. */
  screen?: Screen;
}

interface HirNode {
  kind: { "@variant": string; "@values"?: unknown[] };
}

// rregex's raw exports take ownership of the text they are given (Rust frees it), so each call gets its own copy;
// passing bytes this way skips the UTF-16 round trip of the string API.
interface RawExports {
  memory: { buffer: ArrayBuffer };
  __wbindgen_malloc(size: number, align: number): number;
  rregex_isMatch(regex: number, pointer: number, length: number): number;
  rregex_shortestMatch(regex: number, pointer: number, length: number): number;
}

/** What rregex_shortestMatch returns for "no match". */
const NO_MATCH = 0x100000001;
/** Lines holding a pattern's literals that did not match, past which W looks at the rest of the file in one call. */
const DENSE_MISSES = 2;
/** Bytes of a file W looks at per call, rounded up to whole lines: bounds the copy made for each candidate line. */
const WINDOW_BYTES = 64 * 1024;

interface RRegexModule {
  RRegex: typeof RRegex;
  __wasm: RawExports;
}

/**
 * Engine memory past which the next pattern is compiled in a fresh instance: the engine never returns the memory a
 * compile takes (megabytes for a Unicode pattern), so a long session would otherwise grow without bound. A fresh
 * instance costs a few milliseconds; the text the engine is handed comes in windows, so matching alone stays far below.
 */
const ENGINE_MAX_BYTES = 64 << 20;

let loaded: RRegexModule | undefined;
/** The engine new patterns are compiled in; loaded on the first search only, since compiling the module is slow. */
function engine(): RRegexModule {
  if (loaded && loaded.__wasm.memory.buffer.byteLength <= ENGINE_MAX_BYTES) return loaded;
  const require = createRequire(import.meta.url);
  // The old instance is collected once the patterns compiled in it are.
  if (loaded) delete require.cache[require.resolve("rregex")];
  loaded = require("rregex") as RRegexModule;
  return loaded;
}

/** Bytes of memory the engine instance new patterns go to holds now (0 before the first search loads it). */
export const engineBytes = (): number => loaded?.__wasm.memory.buffer.byteLength ?? 0;

/** A compiled pattern and the engine instance it lives in, which alone can run it. */
interface Compiled {
  regex: RRegex;
  raw: RawExports;
}

const handle = (regex: RRegex): number => (regex as unknown as { __wbg_ptr: number }).__wbg_ptr;

/** Copies text[from, to) into the engine's memory, turning each CRLF's \r into \n. */
function copyIn(raw: RawExports, text: Buffer, from: number, to: number): number {
  const length = to - from;
  const pointer = raw.__wbindgen_malloc(length, 1) >>> 0;
  const memory = new Uint8Array(raw.memory.buffer, pointer, length);
  const span = text.subarray(from, to);
  memory.set(span);
  for (let cr = span.indexOf(13); cr !== -1; cr = span.indexOf(13, cr + 1)) {
    if (text[from + cr + 1] === 10) memory[cr] = 10;
  }
  return pointer;
}

/** Whether `regex` matches in text[from, to). */
function isMatchBytes({ regex, raw }: Compiled, text: Buffer, from: number, to: number): boolean {
  return raw.rregex_isMatch(handle(regex), copyIn(raw, text, from, to), to - from) !== 0;
}

/** End offset of a match of `regex` in text[from, to) (the engine's shortest, not always the earliest), or -1. */
function earliestEnd({ regex, raw }: Compiled, text: Buffer, from: number, to: number): number {
  const end = raw.rregex_shortestMatch(handle(regex), copyIn(raw, text, from, to), to - from);
  return end === NO_MATCH ? -1 : from + end;
}

/** `pattern` compiled by the engine, for its own string API (batch search's match positions). */
export function compileEngine(pattern: string): RRegex {
  try {
    return new (engine().RRegex)(pattern);
  } catch (error) {
    const detail = String(error instanceof Error ? error.message : error).trim();
    throw new GgError("invalid-argument", `Cannot search for ${quote(pattern)}: it is not a valid Rust regular expression (${detail}); fix the pattern, escaping special characters with \\ to match them literally`);
  }
}

/** `pattern` compiled for the byte-level matching of a search. */
function compile(pattern: string): Compiled {
  const regex = compileEngine(pattern);
  // The instance the pattern went to: the newest, which compileEngine just used.
  return { regex, raw: (loaded as RRegexModule).__wasm };
}

function children(node: HirNode): HirNode[] {
  const values = node.kind["@values"] ?? [];
  switch (node.kind["@variant"]) {
    case "Concat":
    case "Alternation":
      return values[0] as HirNode[];
    case "Repetition":
    case "Capture":
      return [(values[0] as { sub: HirNode }).sub];
    default:
      return [];
  }
}

/** True when the pattern anchors to the whole text (\A, \z, or ^ and $ with multi-line mode turned off). */
function anchorsToText(node: HirNode): boolean {
  if (node.kind["@variant"] === "Look") {
    const look = (node.kind["@values"]?.[0] as { "@variant": string })["@variant"];
    return look === "Start" || look === "End";
  }
  return children(node).some(anchorsToText);
}

/** The longest literal every match must contain, to skip files without it at memchr speed. */
function requiredLiteral(node: HirNode): Buffer | undefined {
  const values = node.kind["@values"] ?? [];
  switch (node.kind["@variant"]) {
    case "Literal":
      return Buffer.from(Object.values((values[0] as { "@values": [Record<string, number>] })["@values"][0]));
    case "Capture":
      return requiredLiteral((values[0] as { sub: HirNode }).sub);
    case "Repetition": {
      const repetition = values[0] as { min: number; sub: HirNode };
      return repetition.min > 0 ? requiredLiteral(repetition.sub) : undefined;
    }
    case "Concat": {
      let best: Buffer | undefined;
      for (const child of values[0] as HirNode[]) {
        const literal = requiredLiteral(child);
        if (literal && (!best || literal.length > best.length)) best = literal;
      }
      return best;
    }
    default:
      return undefined;
  }
}

/** The byte strings one position of a match may hold (a literal byte, or a small class such as [kK\u212A]). */
type Atom = Buffer[];
/** Members a class may have and still screen files (beyond that it screens too little to pay for itself). */
const ATOM_MEMBERS = 4;

/**
 * The positions a literal or a small class holds, or undefined for any other node. U+FFFD may match where decoding
 * replaced bad bytes, which the raw bytes do not hold, so a node holding it holds no known positions either.
 */
function atoms(node: HirNode): Atom[] | undefined {
  const values = node.kind["@values"] ?? [];
  if (node.kind["@variant"] === "Literal") {
    const literal = Buffer.from(Object.values((values[0] as { "@values": [Record<string, number>] })["@values"][0]));
    return literal.includes(REPLACEMENT) ? undefined : [...literal].map((byte) => [Buffer.from([byte])]);
  }
  if (node.kind["@variant"] !== "Class") return undefined;
  const ranges = ((values[0] as { "@values": [{ ranges: { start: string | number; end: string | number }[] }] })["@values"][0]).ranges;
  const members: Buffer[] = [];
  for (const { start, end } of ranges) {
    const [from, to] = [start, end].map((bound) => (typeof bound === "number" ? bound : (bound.codePointAt(0) ?? 0)));
    for (let point = from as number; point <= (to as number); point++) {
      if (members.length >= ATOM_MEMBERS) return undefined;
      members.push(typeof start === "number" ? Buffer.from([point]) : Buffer.from(String.fromCodePoint(point)));
    }
  }
  return members.length > 0 && !members.some((member) => member.includes(REPLACEMENT)) ? [members] : undefined;
}

/**
 * Runs of positions every match holds in a row: a concatenation's literals and small classes side by side, and what
 * its other required parts (a group, a repetition of at least one) require in turn.
 */
function requiredRuns(node: HirNode): Atom[][] {
  const values = node.kind["@values"] ?? [];
  switch (node.kind["@variant"]) {
    case "Capture":
      return requiredRuns((values[0] as { sub: HirNode }).sub);
    case "Repetition": {
      const repetition = values[0] as { min: number; sub: HirNode };
      return repetition.min > 0 ? requiredRuns(repetition.sub) : [];
    }
    case "Concat": {
      const runs: Atom[][] = [];
      let run: Atom[] = [];
      for (const child of values[0] as HirNode[]) {
        const found = atoms(child);
        if (found) {
          run.push(...found);
          continue;
        }
        runs.push(run, ...requiredRuns(child));
        run = [];
      }
      return [...runs, run];
    }
    default: {
      const found = atoms(node);
      return found ? [found] : [];
    }
  }
}

/** The trigrams of `runs` a kept file's filter is asked for: only positions of single bytes other than line ends. */
function gramsOf(runs: Atom[][]): GramQuery {
  const bytes: number[][][] = [];
  for (const run of runs) {
    let current: number[][] = [];
    for (const atom of run) {
      if (atom.every((member) => member.length === 1 && member[0] !== 10 && member[0] !== 13)) current.push(atom.map((member) => member[0] as number));
      else {
        bytes.push(current);
        current = [];
      }
    }
    bytes.push(current);
  }
  return gramQuery(bytes);
}

/**
 * What a file's raw bytes must hold for a pattern to match in it, as plain data, so that it crosses to the second
 * thread: a file without it is skipped unread by the matcher.
 */
export interface Screen {
  /** Literals every match holds, each of them. */
  literals?: number[][];
  /** A run of positions every match holds in a row (the bytes each member is), and the rarest position. */
  run?: { atoms: number[][][]; pivot: number };
  /** The same run as a regular expression over the file read as latin1, when every position is common. */
  latin1?: string;
  /** Literals every matching line holds, each of them, the one to look for first at the head: see {@link lineHolding}. */
  lines?: number[][];
}

/**
 * The test of a {@link Screen}; self-contained, since the second thread runs its source. A run is searched at memchr
 * speed: each member of its rarest position by indexOf, the positions around it checked byte by byte. A code
 * point's UTF-8 bytes are never a prefix or a suffix of another's, so at most one member of a position can match
 * there: the check never branches.
 */
export function screening(screen: Screen): (bytes: Buffer) => boolean {
  const literals = (screen.literals ?? []).map((literal) => Buffer.from(literal));
  const latin1 = screen.latin1 === undefined ? undefined : new RegExp(screen.latin1);
  const atoms = screen.run?.atoms.map((atom) => atom.map((member) => Buffer.from(member))) ?? [];
  const pivot = screen.run?.pivot ?? 0;
  const at = (bytes: Buffer, position: number, member: Buffer): boolean => {
    if (position < 0 || position + member.length > bytes.length) return false;
    for (let i = 0; i < member.length; i++) if (bytes[position + i] !== member[i]) return false;
    return true;
  };
  const around = (bytes: Buffer, start: number, end: number): boolean => {
    for (let i = pivot + 1, position = end; i < atoms.length; i++) {
      const member = (atoms[i] as Buffer[]).find((candidate) => at(bytes, position, candidate));
      if (!member) return false;
      position += member.length;
    }
    for (let i = pivot - 1, position = start; i >= 0; i--) {
      const member = (atoms[i] as Buffer[]).find((candidate) => at(bytes, position - candidate.length, candidate));
      if (!member) return false;
      position -= member.length;
    }
    return true;
  };
  return (bytes) => {
    for (const literal of literals) if (bytes.indexOf(literal) === -1) return false;
    if (latin1 && !latin1.test(bytes.toString("latin1"))) return false;
    if (atoms.length === 0) return true;
    for (const member of atoms[pivot] as Buffer[]) {
      for (let found = bytes.indexOf(member); found !== -1; found = bytes.indexOf(member, found + 1)) {
        if (around(bytes, found, found + member.length)) return true;
      }
    }
    return false;
  };
}

/**
 * The lines of a file holding every one of `literals` (none holds a line break), found by leapfrogging: each literal
 * is looked for at memchr speed from the line the last one found lies in, until all lie in one line; so the rarest of
 * them sets the pace. Self-contained, since the second thread runs its source. For a file's bytes, a function from a
 * line start to the start of the first line at or after it holding them all, or -1.
 */
export function lineHolding(literals: number[][]): (bytes: Buffer) => (from: number) => number {
  const needles = literals.map((literal) => Buffer.from(literal));
  return (bytes) => {
    // Where each literal was last found: past a line start looked from, it is where to look from next.
    const found = needles.map(() => -1);
    return (from) => {
      for (let start = from; ; ) {
        let last = -1;
        for (let i = 0; i < needles.length; i++) {
          if ((found[i] as number) < start) found[i] = bytes.indexOf(needles[i] as Buffer, start);
          // None further on: no later line holds them all.
          if (found[i] === -1) return -1;
          last = Math.max(last, found[i] as number);
        }
        // The line of the literal found last: it holds them all when none was found before it.
        const line = bytes.lastIndexOf(10, last) + 1;
        let all = true;
        for (const at of found) all &&= at >= line;
        if (all) return line;
        start = line;
      }
    };
  };
}

/** Bytes a literal looked for first must have: a shorter one is found on too many lines to beat the engine's scan. */
const LINE_LITERAL_MIN = 3;

/**
 * The literals every matching line holds, from the runs every match holds: the stretches of positions that are one
 * byte string each; only valid UTF-8 without line breaks, which the decoded text holds exactly where the raw bytes
 * do. The longest first (then the rarest), or none when the longest is too short to look for first.
 */
function lineLiterals(runs: Atom[][]): number[][] | undefined {
  const stretches: Buffer[] = [];
  for (const run of runs) {
    let stretch: Buffer[] = [];
    for (const atom of [...run, []]) {
      if (atom.length === 1) stretch.push(atom[0] as Buffer);
      else if (stretch.length > 0) {
        stretches.push(Buffer.concat(stretch));
        stretch = [];
      }
    }
  }
  // A single byte is on nearly every line: looking for it costs more than the lines it rules out.
  const usable = stretches.filter((literal) => literal.length > 1 && isUtf8(literal) && !literal.includes(10) && !literal.includes(13));
  const distinct = [...new Set(usable.map((literal) => literal.toString("latin1")))].map((text) => Buffer.from(text, "latin1"));
  const rarity = (literal: Buffer): number => [...literal].reduce((sum, byte) => sum + commonness([Buffer.from([byte])]), 0);
  distinct.sort((a, b) => b.length - a.length || rarity(a) - rarity(b));
  const [first] = distinct;
  return first && first.length >= LINE_LITERAL_MIN ? distinct.map((literal) => [...literal]) : undefined;
}

/**
 * The screen of a pattern with no required literal, such as (?i)todo: the longest run of literal bytes and small
 * classes every match holds in a row. Every match of the pattern contains a match of it.
 */
function classRun(runs: Atom[][]): Screen {
  const best = runs.reduce((longest, run) => (run.length > longest.length ? run : longest), []);
  if (best.length < 3) return {};
  let pivot = 0;
  for (let i = 1; i < best.length; i++) if (commonness(best[i] as Atom) < commonness(best[pivot] as Atom)) pivot = i;
  if (commonness(best[pivot] as Atom) > 0) {
    // Every position is common in code ((?i)todo): indexOf would stop at nearly every byte, where a regular
    // expression over a latin1 copy of the file runs at its own speed. It has no repetition, so it cannot backtrack.
    const hex = (member: Buffer): string => [...member].map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("");
    return { latin1: best.map((atom) => (atom.length === 1 ? hex(atom[0] as Buffer) : `(?:${atom.map(hex).join("|")})`)).join("") };
  }
  return { run: { atoms: best.map((atom) => atom.map((member) => [...member])), pivot } };
}

/** ASCII bytes from the most common in code to the less common; bytes not listed (the rarer ones) count as 0. */
const FREQUENT = Buffer.from(" etaoinsrlcdhupmfgybETAOINSRLCDHUPMFGYB\n\t.,;:()=_-\"'/{}[]0123456789wvkWVK");

/** How many places a position is likely to match in code: how common its members are, added up. */
const commonness = (atom: Atom): number =>
  atom.reduce((sum, member) => {
    const rank = member.length === 1 ? FREQUENT.indexOf(member[0] as number) : -1;
    return sum + (rank === -1 ? 0 : FREQUENT.length - rank);
  }, 0);

const withGrams = (grams: GramQuery): Pick<LineMatcher, "grams"> => (grams.length > 0 ? { grams } : {});

/** A query with no regex syntax and no line breaks: it matches exactly the lines that contain it. */
const PLAIN = /^[^\\.+*?()|[\]{}^$\r\n]+$/;

/** The file decoded for matching: as is when it is UTF-8, else with U+FFFD for each invalid sequence. */
const decode = (bytes: Buffer): Buffer => (isUtf8(bytes) ? bytes : Buffer.from(bytes.toString("utf8")));

/**
 * A plain query is found with memchr-speed indexOf and no regex engine at all. Decoding only ever adds U+FFFD and
 * the literal holds none, so the raw bytes contain it exactly when the decoded text does.
 */
function literalMatcher(literal: Buffer): LineMatcher {
  return {
    ...withGrams(gramsOf([[...literal].map((byte) => [Buffer.from([byte])])])),
    screen: { literals: [[...literal]] },
    scan(bytes, onLine) {
      if (bytes.indexOf(literal) === -1) return;
      const text = decode(bytes);
      const cursor = lineCursor(text);
      for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, cursor.next)) {
        const number = cursor.lineAt(at);
        if (!onLine(number, text, cursor.start, cursor.end)) return;
      }
    },
  };
}

/** Compiles a search query; a blank or invalid pattern is an `invalid-argument` error naming the problem. */
export function compileSearch(query: string): LineMatcher {
  if (query.trim() === "") throw new GgError("invalid-argument", "Cannot search for a blank query: pass a regular expression such as `fn\\s+update` or `(?i)todo`");
  if (PLAIN.test(query) && !query.includes("\uFFFD")) return literalMatcher(Buffer.from(query));
  return foldedLiteral(query) ?? regexMatcher(query);
}

/**
 * Simple case folding of the ASCII characters, as Rust's (?i) applies it: a letter and its other case, and the two
 * letters whose fold set leaves ASCII (k with the Kelvin sign, s with the long s).
 */
export const foldsOf = (char: string): string[] => {
  const lower = char.toLowerCase();
  if (lower === char.toUpperCase()) return [char];
  return [lower, lower.toUpperCase(), ...(lower === "k" ? ["\u212A"] : lower === "s" ? ["\u017F"] : [])];
};

/**
 * `(?i)` and a plain ASCII literal: screened without the engine, which is loaded and compiled only when a file passes
 * the screen (a rare word searched in a large tree never starts it).
 */
function foldedLiteral(query: string): LineMatcher | undefined {
  const literal = query.slice(4);
  if (!query.startsWith("(?i)") || !PLAIN.test(literal) || !/^[\x20-\x7e]+$/.test(literal)) return undefined;
  const run: Atom[] = [...literal].map((char) => foldsOf(char).map((fold) => Buffer.from(fold)));
  const screen = classRun([run]);
  if (Object.keys(screen).length === 0) return undefined;
  const passes = screening(screen);
  let matcher: LineMatcher | undefined;
  return {
    ...withGrams(gramsOf([run])),
    screen,
    scan(bytes, onLine) {
      if (passes(bytes)) (matcher ??= regexMatcher(query)).scan(bytes, onLine);
    },
  };
}

/** A pattern matched by the engine, screened by what its parsed form says every match holds. */
function regexMatcher(query: string): LineMatcher {
  const line = compile(query);
  const whole = compile(`(?m)${query}`);
  const hir = whole.regex.syntax() as unknown as HirNode;
  const required = requiredLiteral(hir);
  // A literal holding U+FFFD could match where decoding replaced bad bytes, so it cannot screen raw bytes.
  const literal = required && required.length > 0 && !required.includes(REPLACEMENT) ? required : undefined;
  const runs = requiredRuns(hir);
  // Every literal a match must hold (zqxj\d+_never: _never and zqxj), the longest first; a file lacking one is done.
  const runLiterals = runs.filter((run) => run.length >= 3 && run.every((atom) => atom.length === 1)).map((run) => Buffer.concat(run.map((atom) => atom[0] as Buffer)));
  const distinct = new Set([...(literal ? [literal] : []), ...runLiterals].map((bytes) => bytes.toString("latin1")));
  const literals = [...distinct].map((text) => [...Buffer.from(text, "latin1")]).sort((a, b) => b.length - a.length);
  const lines = lineLiterals(runs);
  const screen: Screen = { ...(literals.length > 0 ? { literals } : {}), ...(literal && literal.length >= 3 ? {} : classRun(runs)), ...(lines ? { lines } : {}) };
  const passes = screening(screen);
  const holding = lines && lineHolding(lines);
  const lineByLine = anchorsToText(hir);
  const matchesLine = (text: Buffer, start: number, end: number): boolean => isMatchBytes(line, text, start, end);

  return {
    ...withGrams(gramsOf(runs)),
    ...(Object.keys(screen).length > 0 ? { screen } : {}),
    scan(bytes, onLine) {
      if (!passes(bytes)) return;
      const text = decode(bytes);
      const cursor = lineCursor(text);
      if (holding) {
        // Literal first: the engine looks only at the lines holding every literal a matching line holds. Where they
        // are many and match nothing (generated code), W over the rest of the file, one call, can end it at once.
        const next = holding(text);
        let misses = 0;
        for (let start = next(0); start !== -1; start = next(cursor.next)) {
          const number = cursor.lineAt(start);
          if (matchesLine(text, cursor.start, cursor.end)) {
            if (!onLine(number, text, cursor.start, cursor.end)) return;
          } else if (++misses === DENSE_MISSES && !mayMatchFrom(whole, text, cursor.next)) return;
        }
        return;
      }
      if (lineByLine) {
        for (let number = 1; cursor.seek(number); number++) {
          if (matchesLine(text, cursor.start, cursor.end) && !onLine(number, text, cursor.start, cursor.end)) return;
        }
        return;
      }
      // Window by window, never the whole file at once: the engine keeps the memory of the largest copy it was given.
      let from = 0;
      while (from < text.length) {
        // Whole lines only: W must never see a line cut short.
        const newline = text.indexOf(10, Math.min(from + WINDOW_BYTES, text.length) - 1);
        const to = newline === -1 ? text.length : newline + 1;
        // The first line that may match: the line holding the last byte of a W match in the lines [from, hi), with hi
        // moved back to that line's start until no match is left before it. The engine's end is the end of a match,
        // not always of the earliest (with a Unicode \b it can run past a line that matches), so one is not enough.
        let candidate = -1;
        for (let hi = to, end = earliestEnd(whole, text, from, within(text, from, hi)); end !== -1; end = hi > from ? earliestEnd(whole, text, from, within(text, from, hi)) : -1) {
          const last = Math.max(from, end - 1);
          candidate = last === 0 ? 0 : text.lastIndexOf(10, last - 1) + 1;
          hi = candidate;
        }
        if (candidate === -1) {
          from = to;
          continue;
        }
        const number = cursor.lineAt(candidate);
        if (matchesLine(text, cursor.start, cursor.end) && !onLine(number, text, cursor.start, cursor.end)) return;
        from = cursor.next;
      }
    },
  };
}

/**
 * Whether W may match in the lines from `from` to the end of `text`: looked at in one call when they fit a window (a
 * line that matches on its own is a W match), else taken as yes.
 */
function mayMatchFrom(whole: Compiled, text: Buffer, from: number): boolean {
  if (from >= text.length) return false;
  return text.length - from > WINDOW_BYTES || isMatchBytes(whole, text, from, within(text, from, text.length));
}

/**
 * Where W looks at the lines text[from, hi): up to the end of the last one's content, without its line ending, so W
 * sees no line start or text end there that the lines themselves do not have.
 */
function within(text: Buffer, from: number, hi: number): number {
  if (hi === from || text[hi - 1] !== 10) return hi;
  return hi - 2 >= from && text[hi - 2] === 13 ? hi - 2 : hi - 1;
}

/** Walks line boundaries of a buffer forward; positions asked for must not decrease. */
function lineCursor(text: Buffer) {
  const state = {
    /** Line number of the current line. */
    number: 0,
    /** Byte offset where the current line starts. */
    start: 0,
    /** Byte offset where its content ends (before \r\n or \n). */
    end: 0,
    /** Byte offset where the next line starts. */
    next: 0,
    advance(): boolean {
      if (state.next >= text.length && state.number > 0) return false;
      state.start = state.next;
      const newline = text.indexOf(10, state.start);
      const stop = newline === -1 ? text.length : newline;
      state.end = stop > state.start && text[stop - 1] === 13 && newline !== -1 ? stop - 1 : stop;
      state.next = newline === -1 ? text.length : newline + 1;
      state.number++;
      return state.start < text.length;
    },
    /** Moves to line `number`; false past the last line. */
    seek(number: number): boolean {
      while (state.number < number) if (!state.advance()) return false;
      return true;
    },
    /** Moves to the line holding byte `position` and returns its number. */
    lineAt(position: number): number {
      if (state.number === 0) state.advance();
      while (position >= state.next && state.next < text.length) state.advance();
      return state.number;
    },
  };
  return state;
}
