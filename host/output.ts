// The one function that decides what of a command's output comes back inline: the shell call, a program's
// gg.shell.shell and command hooks all go through createOutputSink. Memory stays flat whatever the command prints:
// streams go to disk as they arrive, and only the tail, per-line counts and five longest lines stay in memory.
import { closeSync, openSync, writeSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { fromSystemError } from "./errors.ts";
import { plural } from "./lines.ts";
import { holdLogs, makeLogDir, releaseLogs, retainOnStart, SHELL_LOG_DIR } from "./logs.ts";

/** Bytes of inline output at most, under every mode. */
export const OUTPUT_BYTE_CAP = 16 * 1024;

/**
 * What comes back inline. `offload`: the tail (last maxLines lines and at most maxChars characters, the tighter
 * deciding) with both streams on disk; `inline`: the whole output, nothing on disk. Both: at most 16 KiB.
 */
export interface OutputPolicy {
  mode: "offload" | "inline";
  maxLines: number;
  maxChars: number;
}

/** The output mode names, in the order the configuration lists them. */
export const OUTPUT_MODES = ["offload", "inline"] as const;

/** What a finished command's output comes to. */
export interface OutputResult {
  /** The inline text: output (or its tail), then the truncation note when it was cut. */
  output: string;
  truncated: boolean;
  /** The streams on disk (offload only). */
  files?: { stdout: string; stderr: string };
}

/** Receives a command's streams as they arrive. */
export interface OutputSink {
  write(stream: "stdout" | "stderr", chunk: Buffer): void;
  /** Ends the streams and applies the policy. */
  finish(): OutputResult;
  /** Releases the files of a command that never started. */
  close(): void;
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/g;

/** Characters (code points) in `text`. */
const codePoints = (text: string): number => text.length - (text.match(HIGH_SURROGATE)?.length ?? 0);

/** The last `count` characters (code points) of `text`. */
function lastChars(text: string, count: number): string {
  let units = 0;
  for (let chars = 0; chars < count && units < text.length; chars++) {
    const code = text.charCodeAt(text.length - 1 - units);
    units += code >= 0xdc00 && code <= 0xdfff && units + 1 < text.length ? 2 : 1;
  }
  return text.slice(text.length - units);
}

/** The longest suffix of `text` whose UTF-8 encoding fits in `bytes`. */
function lastBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text);
  if (encoded.length <= bytes) return text;
  let start = encoded.length - bytes;
  while (start < encoded.length && ((encoded[start] as number) & 0xc0) === 0x80) start++;
  return encoded.toString("utf8", start);
}

/**
 * Calls `segment` for each piece of `text` between line breaks with its length in characters and whether a line
 * break ends it. Lengths come from UTF-16 offsets unless the text holds characters outside the BMP.
 */
function splitLines(text: string, segment: (chars: number, ended: boolean) => void): void {
  const astral = HIGH_SURROGATE.test(text);
  HIGH_SURROGATE.lastIndex = 0;
  const length = (from: number, to: number): number => (astral ? codePoints(text.slice(from, to)) : to - from);
  let from = 0;
  for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", from)) {
    segment(length(from, newline), true);
    from = newline + 1;
  }
  if (from < text.length) segment(length(from, text.length), false);
}

/** Line lengths below this are counted in an array; longer ones, which are rare, in a map. */
const SHORT_LINE = 4096;

/** Line statistics of one stream, kept without keeping its lines: a count per line length. */
function streamShape() {
  const short = new Float64Array(SHORT_LINE);
  const long = new Map<number, number>();
  const longest: { length: number; line: number }[] = [];
  let lines = 0;
  let current = 0;
  let open = false;
  const endLine = (): void => {
    lines++;
    if (current < SHORT_LINE) short[current] = (short[current] as number) + 1;
    else long.set(current, (long.get(current) ?? 0) + 1);
    // Five longest, longest first; a tie keeps the earlier line, so a later one must be strictly longer.
    if (longest.length < 5 || current > (longest[4] as { length: number }).length) {
      let at = longest.findIndex((entry) => current > entry.length);
      if (at === -1) at = longest.length;
      longest.splice(at, 0, { length: current, line: lines });
      if (longest.length > 5) longest.pop();
    }
    current = 0;
    open = false;
  };
  // Nearest rank: the smallest length that at least p% of the lines do not exceed.
  const percentile = (p: number): number => {
    const rank = Math.ceil((p / 100) * lines);
    let seen = 0;
    for (let length = 0; length < SHORT_LINE; length++) {
      seen += short[length] as number;
      if (seen >= rank) return length;
    }
    for (const length of [...long.keys()].sort((a, b) => a - b)) {
      seen += long.get(length) as number;
      if (seen >= rank) return length;
    }
    return 0;
  };
  return {
    segment(chars: number, ended: boolean): void {
      current += chars;
      if (ended) endLine();
      else open = true;
    },
    /** The note's description of this stream; `trouble` says why its file is incomplete, if it is. */
    describe(path: string, name: string, trouble: string | undefined): string {
      if (open) endLine();
      const head = [`${name}: ${path}`, ...(trouble ? [`  ${trouble}`] : [])];
      if (lines === 0) return [...head, "  0 lines"].join("\n");
      const [first, ...rest] = longest as [{ length: number; line: number }, ...{ length: number; line: number }[]];
      return [
        ...head,
        // The seed's form, to the character, whatever the count: "N lines; line length ...".
        `  ${lines} lines; line length p50 ${percentile(50)}, p95 ${percentile(95)}, p99 ${percentile(99)}`,
        `  longest lines: ${[`${first.length} chars @ ${first.line}`, ...rest.map((entry) => `${entry.length} @ ${entry.line}`)].join(", ")}`,
      ].join("\n");
    },
  };
}

/** The next command number of each agent in this process; a name taken on disk moves it on. */
const sequences = new Map<string, number>();

/** An agent id as it may stand in a file name. */
const fileSafe = (agent: string): string => agent.replace(/[^A-Za-z0-9._-]/g, "_") || "_";

/** Opens the stream files of one command under /tmp/gg-shell, never reusing a name. */
function openLogFiles(agent: string): { paths: { stdout: string; stderr: string }; fds: { stdout: number; stderr: number } } {
  makeLogDir();
  // Before this command's files exist: the week and the 1 GiB the logs are kept within (host/logs.ts).
  retainOnStart();
  const name = fileSafe(agent);
  for (;;) {
    const sequence = (sequences.get(name) ?? 0) + 1;
    sequences.set(name, sequence);
    const base = `${SHELL_LOG_DIR}/cmd-${name}-${String(sequence).padStart(4, "0")}`;
    const paths = { stdout: `${base}.stdout`, stderr: `${base}.stderr` };
    try {
      const stdout = openSync(paths.stdout, "wx", 0o600);
      try {
        const fds = { stdout, stderr: openSync(paths.stderr, "wx", 0o600) };
        holdLogs([paths.stdout, paths.stderr]);
        return { paths, fds };
      } catch (error) {
        closeSync(stdout);
        throw error;
      }
    } catch (error) {
      // A file left by an earlier process with the same agent id: take the next number.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw fromSystemError("create the output files of", base, error);
    }
  }
}

/** Applies `policy` to the output of one command; `agent` names its files under offload. */
export function createOutputSink(policy: OutputPolicy, agent: string): OutputSink {
  const offload = policy.mode === "offload";
  const logs = offload ? openLogFiles(agent) : undefined;
  // Why a stream's file stopped short (a full disk, a file size limit): the command runs on, and a note says so.
  const trouble: { stdout?: string; stderr?: string } = {};
  const written = { stdout: 0, stderr: 0 };
  const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  const shapes = { stdout: streamShape(), stderr: streamShape() };
  // The merged text: its tail (enough for 16 KiB), its totals, and under offload the lengths of its last whole
  // lines: at most maxLines of them, and no more than it takes to exceed maxChars (past that characters decide).
  const keep = OUTPUT_BYTE_CAP + 4;
  let tail = "";
  let chars = 0;
  let bytes = 0;
  let newlines = 0;
  let lineChars = 0;
  let recent: number[] = [];
  let first = 0;
  let recentChars = 0;
  const pushLine = (length: number): void => {
    recent.push(length);
    recentChars += length + 1;
    while (recent.length - first > policy.maxLines || recentChars - ((recent[first] as number) + 1) > policy.maxChars) {
      recentChars -= (recent[first] as number) + 1;
      first++;
    }
    if (first > 1024 && first * 2 > recent.length) {
      recent = recent.slice(first);
      first = 0;
    }
  };
  const merged = (length: number, ended: boolean): void => {
    chars += length + (ended ? 1 : 0);
    if (!ended) return void (lineChars += length);
    newlines++;
    if (offload) pushLine(lineChars + length);
    lineChars = 0;
  };

  const append = (stream: "stdout" | "stderr", text: string): void => {
    if (text === "") return;
    const shape = shapes[stream];
    splitLines(text, (length, ended) => {
      if (offload) shape.segment(length, ended);
      merged(length, ended);
    });
    bytes += Buffer.byteLength(text);
    tail += text;
    if (tail.length > 2 * keep) tail = lastChars(tail, keep);
  };

  const note = (text: string, truncation: string): string => {
    const shape = logs
      ? `\n${shapes.stdout.describe(logs.paths.stdout, "stdout", trouble.stdout)}\n${shapes.stderr.describe(logs.paths.stderr, "stderr", trouble.stderr)}`
      : "";
    return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}[Output truncated: ${truncation}]${shape}`;
  };
  let closed = false;
  const close = (): void => {
    if (closed || !logs) return;
    closed = true;
    closeSync(logs.fds.stdout);
    closeSync(logs.fds.stderr);
    releaseLogs([logs.paths.stdout, logs.paths.stderr]);
  };

  return {
    write(stream, chunk) {
      if (logs && trouble[stream] === undefined) {
        try {
          // A write can take part of the chunk (at a size limit, say): the rest goes in the next, which then fails.
          for (let at = 0; at < chunk.length; ) {
            const n = writeSync(logs.fds[stream], chunk, at);
            at += n;
            written[stream] += n;
          }
        } catch (error) {
          trouble[stream] = `(incomplete: writing it failed after ${plural(written[stream], "byte")}: ${(error as Error).message})`;
        }
      }
      append(stream, decoders[stream].write(chunk));
    },
    close,
    finish() {
      append("stdout", decoders.stdout.end());
      append("stderr", decoders.stderr.end());
      close();
      const files = logs ? { files: logs.paths } : {};
      const endsOpen = lineChars > 0;
      const lines = newlines + (endsOpen ? 1 : 0);
      if (!offload) {
        if (bytes <= OUTPUT_BYTE_CAP) return { output: tail, truncated: false };
        return { output: note(lastBytes(tail, OUTPUT_BYTE_CAP), `capped at ${OUTPUT_BYTE_CAP} bytes`), truncated: true };
      }
      if (lines <= policy.maxLines && chars <= policy.maxChars && bytes <= OUTPUT_BYTE_CAP) return { output: tail, truncated: false, ...files };
      // Characters in the last maxLines lines, newlines included; the tighter ceiling is the one keeping fewer.
      const count = endsOpen ? policy.maxLines - 1 : policy.maxLines;
      const whole = count === 0 ? [] : recent.slice(first).slice(-count);
      const lineTail = whole.reduce((sum, length) => sum + length + 1, endsOpen ? lineChars : 0);
      const linesCut = lines > policy.maxLines && lineTail <= policy.maxChars;
      const charsCut = lineTail > policy.maxChars;
      const kept = lastChars(tail, Math.min(lineTail, policy.maxChars));
      const capped = lastBytes(kept, OUTPUT_BYTE_CAP);
      const reasons = [
        ...(linesCut ? [`last ${policy.maxLines} lines`] : charsCut ? [`last ${policy.maxChars} chars`] : []),
        ...(capped.length < kept.length ? [`capped at ${OUTPUT_BYTE_CAP} bytes`] : []),
      ];
      return { output: note(capped, reasons.join(", ")), truncated: true, ...files };
    },
  };
}

/** A sink that keeps stdout whole and drops stderr: a script hook's stdout is its verdict, never cut. */
export function createVerdictSink(): OutputSink {
  const chunks: Buffer[] = [];
  return {
    write(stream, chunk) {
      if (stream === "stdout") chunks.push(chunk);
    },
    finish: () => ({ output: Buffer.concat(chunks).toString("utf8"), truncated: false }),
    close() {},
  };
}
