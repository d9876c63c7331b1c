// Text shown to a person who must judge it (a question about a call, a path, a decision in the console): characters
// that move the cursor, reorder what follows (U+202E) or show as nothing are written as escapes, and a long text keeps
// its head and its tail with what was left out counted. Pure: no I/O, so the console's page uses it too.

/**
 * What breaks a line or hides text: controls (C0, DEL, C1), format characters (the bidirectional controls, zero-width
 * characters, tag characters), and the line and paragraph separators.
 */
export const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const UNSHOWABLE_ALL = new RegExp(UNSHOWABLE.source, "gu");

/** `char` as `\uXXXX` escapes, one per UTF-16 unit: JSON and JavaScript read them back as the character. */
const escaped = (char: string): string => [...Array(char.length).keys()].map((at) => `\\u${char.charCodeAt(at).toString(16).padStart(4, "0")}`).join("");

/** `text` with every unshowable character but those in `keep` (a newline, a tab) written as its `\uXXXX` escape. */
export const escapeUnshowable = (text: string, keep = ""): string => text.replace(UNSHOWABLE_ALL, (char) => (keep.includes(char) ? char : escaped(char)));

/** Whether `text` holds a character {@link escapeUnshowable} would escape. */
export const hasUnshowable = (text: string): boolean => UNSHOWABLE.test(text);

/**
 * `text` whole when it has at most `chars` characters, else its head and tail, saying how many were left out between
 * them (the note set apart by `separator`).
 */
export function headAndTail(text: string, chars: number, separator = "\n"): string {
  if (text.length <= chars) return text;
  const half = Math.floor(chars / 2);
  // Not inside a surrogate pair.
  const head = /[\uD800-\uDBFF]/.test(text[half - 1] ?? "") ? half - 1 : half;
  const tail = /[\uDC00-\uDFFF]/.test(text[text.length - half] ?? "") ? half - 1 : half;
  const left = text.length - head - tail;
  return `${text.slice(0, head)}${separator}[… ${left.toLocaleString("en-US")} characters left out …]${separator}${text.slice(text.length - tail)}`;
}
