// Test fixtures the framework tests share: a picture, the rules they are judged by, and the tool messages a request sent.
import type { Message } from "../provider.ts";

/** A 1x1 PNG. */
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

/** A write under secret/ is denied (rule 1); a command is asked about (rule 2). */
export const APPROVALS = { approvals: [{ call: "write_file", when: { path: "secret/**" }, verdict: "deny" }, { call: "shell", verdict: "ask", reason: "commands need a person" }] };

/** The tool messages of a request, by tool call id. */
export const toolMessages = (messages: Message[] | undefined): Record<string, unknown> =>
  Object.fromEntries((messages ?? []).filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content]));
