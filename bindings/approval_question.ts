// What a person asked about a call sees, the same on a terminal and in an MCP client: what asked and why, the parts
// of a command line that asked (so nothing a long line holds in its middle is missed), and the call's arguments (a
// shell call's command line as text). Every character that moves the cursor, reorders text (U+202E) or shows as
// nothing is escaped; a long text keeps its head and its tail, what was left out counted.
import { escapeUnshowable, headAndTail } from "../host/shown.ts";
import type { ApprovalRequest, DecidedBy } from "./approval_match.ts";

/** Characters of a call's arguments (a shell call's command line) shown whole; past this, its head and its tail. */
export const QUESTION_CHARS = 4000;
/** Characters of each part of a command line shown whole. */
const PART_CHARS = 500;
/** Parts of a command line listed at most; the rest are counted. */
const PARTS_SHOWN = 8;

/** What asked about a call, in words: "rule 2", "the approval hook", "approvalDefault". */
export const askerOf = (by: DecidedBy | undefined): string =>
  by === "hook" ? "the approval hook" : by === "config" ? "gg, for its own configuration" : by === undefined || by === "default" ? "approvalDefault" : by;

/** What asked, with its reason, as a person asked reads it: "rule 1 (writes need a person)". */
export function whyAsked(asking: ApprovalRequest["asking"]): string {
  const reason = asking?.reason ?? (asking === undefined || asking.by === "default" ? '"ask" for calls with effects' : undefined);
  return `${askerOf(asking?.by)}${reason ? ` (${reason})` : ""}`;
}

/** A question about a call, as shown. */
export interface Question {
  /** What asked and why, escaped. */
  why: string;
  /** The parts of a shell call's command line that asked or denied, escaped, each clipped; the last may count the rest. */
  parts: string[];
  /** "command line" for a shell call's, else "arguments". */
  label: string;
  /** The command line as text, or the arguments as JSON: escaped, newlines kept, head and tail when long. */
  shown: string;
  /** Characters of the command line or the JSON, before any was left out. */
  length: number;
}

/** The question about `request`, its arguments shown whole up to `chars` characters. */
export function questionOf(request: ApprovalRequest, chars = QUESTION_CHARS): Question {
  const args = typeof request.args === "object" && request.args !== null ? (request.args as Record<string, unknown>) : {};
  const { command, ...rest } = args;
  const line = request.call === "shell" && typeof command === "string";
  const text = line ? `${command}${Object.keys(rest).length > 0 ? `\n(and ${JSON.stringify(rest)})` : ""}` : (JSON.stringify(request.args, null, 2) ?? "{}");
  const given = request.asking?.parts ?? (request.asking?.part === undefined ? [] : [request.asking.part]);
  const parts = given.slice(0, PARTS_SHOWN).map((part) => headAndTail(escapeUnshowable(part), PART_CHARS, " "));
  if (given.length > PARTS_SHOWN) parts.push(`and ${given.length - PARTS_SHOWN} more`);
  return { why: escapeUnshowable(whyAsked(request.asking)), parts, label: line ? "command line" : "arguments", shown: escapeUnshowable(headAndTail(text, chars), "\n"), length: text.length };
}
