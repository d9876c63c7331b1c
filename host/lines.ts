// Line arithmetic shared by the calls: a line ends at \n, and a trailing newline ends the last line rather than
// starting an empty one.

/** Newline bytes in `bytes`. */
export function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) count++;
  return count;
}

/** Lines in `bytes`: "a\nb" and "a\nb\n" both have 2, "" has 0. */
export const countLines = (bytes: Buffer): number => countNewlines(bytes) + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0);

/**
 * The 1-based line of each byte offset asked for in increasing order: a call scans only from where the last one
 * stopped, so the lines of any number of offsets cost one pass over `bytes`.
 */
export function lineCounter(bytes: Buffer): (offset: number) => number {
  let line = 1;
  let next = bytes.indexOf(10);
  return (offset) => {
    while (next !== -1 && next < offset) {
      line++;
      next = bytes.indexOf(10, next + 1);
    }
    return line;
  };
}

/** The byte span [start, end) of 1-based line `line`, its ending left out; undefined past the last line. */
export function lineSpan(bytes: Buffer, line: number): { start: number; end: number } | undefined {
  let start = 0;
  for (let at = 1; at < line; at++) {
    const newline = bytes.indexOf(10, start);
    if (newline === -1) return undefined;
    start = newline + 1;
  }
  if (start === bytes.length && line > 1) return undefined;
  const newline = bytes.indexOf(10, start);
  return { start, end: newline === -1 ? bytes.length : newline };
}

/** A whole number with its thousands grouped by commas, "10,000" (toLocaleString would load the locale data: ms at start-up). */
export const grouped = (count: number): string => String(count).replace(/\B(?=(\d{3})+$)/g, ",");

/** Milliseconds as seconds to a tenth, "1.2 s". */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** US dollars as a person reads them: "$0", "$0.00042", "$3.10"; null (no price known) is "unknown", never $0. */
export const dollars = (usd: number | null): string => (usd === null ? "unknown" : usd === 0 ? "$0" : usd >= 1 ? `$${usd.toFixed(2)}` : `$${Number(usd.toPrecision(2))}`);

/** "1 line" / "3 lines"; irregular nouns pass their plural. */
export const plural = (count: number, noun: string, nouns = `${noun}s`): string => `${count} ${count === 1 ? noun : nouns}`;

/** A line shortened for display: at most `chars` characters (code points), and how many were left out. */
export interface ClippedLine {
  text: string;
  /** Characters beyond the first `chars`. */
  more: number;
}

/** Decodes at most `chars` characters of the UTF-8 line text[start, end), counting the rest without decoding it. */
export function clipLine(text: Buffer, start: number, end: number, chars: number): ClippedLine {
  // A code point starts at every byte that is not a continuation byte (10xxxxxx).
  let seen = 0;
  let cut = start;
  while (cut < end && seen <= chars) {
    if (((text[cut] as number) & 0xc0) !== 0x80) seen++;
    if (seen > chars) break;
    cut++;
  }
  if (cut >= end) return { text: text.toString("utf8", start, end), more: 0 };
  let more = 0;
  for (let i = cut; i < end; i++) if (((text[i] as number) & 0xc0) !== 0x80) more++;
  return { text: text.toString("utf8", start, cut), more };
}
