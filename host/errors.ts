// The one closed set of failures a gg call can report. Every message says what failed, the state, and the way out,
// within MESSAGE_CHARS however long the input it names.
import { grouped } from "./lines.ts";

/** Every error code a gg call can fail with. */
export const CALL_ERROR_CODES = [
  "invalid-argument",
  "not-found",
  "no-match",
  "ambiguous",
  "permission-denied",
  "io-error",
  "launch-failed",
  "timeout",
  "over-cap",
  "conflict",
  "denied",
  "tool-error",
  "unavailable",
] as const;

/** One of {@link CALL_ERROR_CODES}. */
export type CallErrorCode = (typeof CALL_ERROR_CODES)[number];

/** The codes only a run of a program reports: gg's own verdicts on it, which a program cannot throw. */
export const RUN_ERROR_CODES = ["memory-limit", "syntax-error", "type-error", "program-error", "invalid-result", "result-too-large", "cancelled"] as const;

/** The one closed set of error codes. */
export const ERROR_CODES = [...CALL_ERROR_CODES, ...RUN_ERROR_CODES] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A failure as it crosses any boundary: plain data, no stack. */
export interface CallError {
  code: ErrorCode;
  message: string;
}

/** Characters a failure's message may hold: room for the state and the way out, never a whole input echoed back. */
export const MESSAGE_CHARS = 1_500;

/** Characters of an input a message quotes (a pattern, a name), before it is cut short. */
const QUOTED_CHARS = 120;

/** `text`'s first `chars` UTF-16 units, not splitting a surrogate pair. */
const head = (text: string, chars: number): string => text.slice(0, /[\ud800-\udbff]/.test(text[chars - 1] ?? "") ? chars - 1 : chars);

/** `text`'s last `chars` UTF-16 units, not splitting a surrogate pair. */
const tail = (text: string, chars: number): string => text.slice(/[\udc00-\udfff]/.test(text[text.length - chars] ?? "") ? text.length - chars + 1 : text.length - chars);

/**
 * `message` within {@link MESSAGE_CHARS}: a longer one keeps its head (what failed) and its tail (the way out), and
 * says how much was left out between them.
 */
export function clampMessage(message: string): string {
  if (message.length <= MESSAGE_CHARS) return message;
  // The gap's own length depends on the count it gives: size it for the longest count, the whole message's.
  const room = MESSAGE_CHARS - ` […${grouped(message.length)} of ${grouped(message.length)} characters left out…] `.length;
  const gap = ` […${grouped(message.length - room)} of ${grouped(message.length)} characters left out…] `;
  const kept = Math.floor(room * 0.7);
  return `${head(message, kept)}${gap}${tail(message, room - kept)}`;
}

/** `text` whole when short, else its first `chars` and its length: `abc… (1,000 characters)`. */
export function excerpt(text: string, chars = QUOTED_CHARS): string {
  return text.length <= chars ? text : `${head(text, chars)}… (${grouped(text.length)} characters)`;
}

/** Input quoted in a message, as JSON: whole when short, else its first {@link QUOTED_CHARS} and its length. */
export function quote(text: string, chars = QUOTED_CHARS): string {
  if (text.length <= chars) return JSON.stringify(text);
  return `${JSON.stringify(`${head(text, chars)}…`)} (${grouped(text.length)} characters)`;
}

/** A failure as data, its message clamped as every {@link GgError}'s is. */
export const callError = (code: ErrorCode, message: string): CallError => ({ code, message: clampMessage(message) });

/** The typed error host code throws; bindings turn it into a {@link CallError}. Its message is clamped. */
export class GgError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(clampMessage(message));
    this.name = "GgError";
    this.code = code;
  }
}

/** True when `value` is a {@link GgError}. */
export const isGgError = (value: unknown): value is GgError => value instanceof GgError;

/** Maps a Node system error on `subject` to a typed error, so no errno leaks out raw. */
export function fromSystemError(action: string, subject: string, error: unknown): GgError {
  if (isGgError(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new GgError("not-found", `Cannot ${action} ${subject}: no such file or directory; check the path with list_dir or tree`);
    case "ENOTDIR":
      return new GgError("not-found", `Cannot ${action} ${subject}: a parent in the path is a file, not a directory; check the path with list_dir`);
    case "EACCES":
    case "EPERM":
      return new GgError("permission-denied", `Cannot ${action} ${subject}: permission denied; pick a path this process may access`);
    case "EISDIR":
      return new GgError("invalid-argument", `Cannot ${action} ${subject}: it is a directory; list it with list_dir or tree`);
    case "EROFS":
      return new GgError("permission-denied", `Cannot ${action} ${subject}: the file system is read-only`);
    case "ENAMETOOLONG":
      return new GgError("invalid-argument", `Cannot ${action} ${subject}: the path is too long`);
    case "ELOOP":
      return new GgError("invalid-argument", `Cannot ${action} ${subject}: too many levels of symbolic links`);
    default: {
      const detail = error instanceof Error ? error.message : String(error);
      return new GgError("io-error", `Cannot ${action} ${subject}: ${detail}; retry, or check the disk and the path`);
    }
  }
}
