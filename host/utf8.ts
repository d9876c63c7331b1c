// Text to UTF-8 without loss: a lone surrogate (half of a pair, which a JSON string or a JS string can hold) has no
// UTF-8 form, and Buffer.from would write U+FFFD in its place. Such text is refused, never silently altered.
import { GgError } from "./errors.ts";

// Without the u flag a regular expression sees UTF-16 units, so a half with no partner can be matched.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where `text` holds a lone surrogate: its index (UTF-16 units), 1-based line and column, or undefined. */
function loneSurrogate(text: string): { index: number; line: number; column: number; unit: number } | undefined {
  if (text.isWellFormed()) return undefined;
  const index = LONE_SURROGATE.exec(text)?.index ?? 0;
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { index, line, column: index - lineStart + 1, unit: text.charCodeAt(index) };
}

/** `text` as UTF-8, or the refusal {@link requireEncodable} names. */
export function encodeText(text: string, action: string, what: string): Buffer {
  requireEncodable(text, action, what);
  return Buffer.from(text, "utf8");
}

/**
 * Throws an invalid-argument error naming where `text` holds a lone surrogate, if it does. `action` and `what` word
 * the message: "Cannot write a.txt: content holds …".
 */
export function requireEncodable(text: string, action: string, what: string): void {
  const lone = loneSurrogate(text);
  if (!lone) return;
  const code = lone.unit.toString(16).toUpperCase();
  throw new GgError(
    "invalid-argument",
    `Cannot ${action}: ${what} holds a lone surrogate U+${code} at line ${lone.line}, column ${lone.column} (character ${lone.index + 1}), which UTF-8 cannot encode, so nothing was written; remove it, or pair it (a character above U+FFFF is a high surrogate then a low one)`,
  );
}
