// What one line from the client is: a JSON-RPC 2.0 message the SDK's Server can take as it is, or the errors that
// answer it. JSON-RPC wants every request answered, but the SDK drops a line its schemas refuse, and answers bad params
// as an internal error with a dump of the schema's issues. So a line reaches the Server only once the SDK's schemas
// accept it; else it is answered here, in a sentence, with the code JSON-RPC gives (parse error, invalid request,
// invalid params) and the request's id, or null when it has none.
import { excerpt, quote as quoteText } from "../host/errors.ts";
import {
  ClientNotificationSchema,
  ClientRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC id this server answers to; null when the line holds none it can use. */
type AnswerId = string | number | null;

/** An error answer as JSON-RPC 2.0 writes it: `id` null for a line whose id cannot be told. */
export interface ErrorAnswer {
  jsonrpc: "2.0";
  id: AnswerId;
  error: { code: number; message: string };
}

/** A line read: the message to hand to the Server, or the answers that refuse it (one, or one per request of a batch). */
export type Reading = { message: JSONRPCMessage } | { answers: ErrorAnswer[] };

/** The SDK's own schema for each method a client sends, so params are checked as the handler would check them. */
const REQUESTS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));
const NOTIFICATIONS = new Map(ClientNotificationSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/** The members a request or notification may hold (the SDK refuses any other). */
const MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);

/** How many problems one answer lists. */
const LISTED = 3;

/** An error answer. */
export const errorAnswer = (id: AnswerId, code: number, message: string): ErrorAnswer => ({ jsonrpc: "2.0", id, error: { code, message } });

/** Reads one line (its newline removed). */
export function readLine(line: string): Reading {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const reason = (error as Error).message;
    return refused(errorAnswer(null, ErrorCode.ParseError, `Cannot parse the line as JSON: ${printable(excerpt(reason, 200))}; send one JSON-RPC 2.0 message per line`));
  }
  if (Array.isArray(value)) return readBatch(value);
  if (!isObject(value)) return refused(invalidRequest(null, `it is ${kind(value)}, not a JSON-RPC 2.0 object`));
  if (!("method" in value)) return readResponse(value);
  const id = idOf(value);
  const problem = envelopeProblem(value);
  if (problem) return refused(invalidRequest(id, problem));
  const method = value.method as string;
  const schemas = "id" in value ? [JSONRPCRequestSchema, REQUESTS.get(method)] : [JSONRPCNotificationSchema, NOTIFICATIONS.get(method)];
  for (const schema of schemas) {
    const checked = schema?.safeParse(value);
    if (checked && !checked.success) return refused(errorAnswer(id, ErrorCode.InvalidParams, `Cannot handle ${quote(method)}: ${issuesText(checked.error.issues, value)}; send the params MCP defines for it`));
  }
  return { message: value as JSONRPCMessage };
}

/** A batch, which MCP no longer takes: refused, once for each request in it so no client waits, else once. */
function readBatch(batch: unknown[]): Reading {
  const state = batch.length === 0 ? "it is an empty batch" : `it is a batch of ${batch.length}`;
  const message = `Cannot read the message: ${state}, and MCP takes one message per line; send each message on a line of its own`;
  const ids = batch.flatMap((item) => (isObject(item) && "method" in item && idOf(item) !== null ? [idOf(item)] : []));
  return { answers: (ids.length === 0 ? [null] : ids).map((id) => errorAnswer(id, ErrorCode.InvalidRequest, message)) };
}

/** A response from the client (to a request of the server's): handed on when the SDK takes it, else refused. */
function readResponse(value: Record<string, unknown>): Reading {
  // Neither a result nor an error: a request without its method, answered to its id.
  if (!("result" in value) && !("error" in value)) return refused(invalidRequest(idOf(value), "it has no method (as a request or a notification has) and no result or error (as a response has)"));
  const checked = JSONRPCMessageSchema.safeParse(value);
  if (!checked.success) return refused(invalidRequest(null, `it is not a JSON-RPC 2.0 response: ${"result" in value ? "a result is an object" : "an error is an object with an integer code and a string message"}, its id a string or an integer, and it has no other member`));
  return { message: value as JSONRPCMessage };
}

const refused = (answer: ErrorAnswer): Reading => ({ answers: [answer] });

/** The id to answer a message to: its own when JSON-RPC allows it, else null. */
const idOf = (value: Record<string, unknown>): AnswerId => ("id" in value && isId(value.id) ? value.id : null);

/** What makes a request or a notification one JSON-RPC 2.0 cannot take, if anything. */
function envelopeProblem(value: Record<string, unknown>): string | undefined {
  if (value.jsonrpc !== "2.0") return `its jsonrpc is ${quote(value.jsonrpc)}, not "2.0"`;
  if ("id" in value && !isId(value.id)) return `its id is ${quote(value.id)}, not a string or an integer`;
  if (typeof value.method !== "string") return `its method is ${quote(value.method)}, not a string`;
  // An array is JSON-RPC's params by position: a request MCP refuses (invalid params), not one JSON-RPC does.
  if ("params" in value && !isObject(value.params) && !Array.isArray(value.params)) return `its params are ${quote(value.params)}, not an object`;
  const foreign = Object.keys(value).find((key) => !MEMBERS.has(key));
  if (foreign !== undefined) return `it has the member ${quote(foreign)}, and a request holds only jsonrpc, id, method and params`;
  return undefined;
}

const invalidRequest = (id: AnswerId, problem: string): ErrorAnswer =>
  errorAnswer(id, ErrorCode.InvalidRequest, `Cannot handle the message: ${problem}; send {"jsonrpc": "2.0", "id": 1, "method": "...", "params": {...}}, without the id for a notification`);

/** A schema issue, as zod reports one (the fields this reads). */
interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  keys?: string[];
  errors?: Issue[][];
}

/** The first few issues as clauses of a sentence. */
function issuesText(issues: readonly Issue[], value: unknown): string {
  const listed = issues.slice(0, LISTED).map((issue) => issueText(issue, value));
  if (issues.length > LISTED) listed.push(`${issues.length - LISTED} more`);
  return listed.length === 1 ? (listed[0] as string) : `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`;
}

/** One issue: where, what it is, what it should be. */
function issueText(issue: Issue, value: unknown): string {
  const where = pathText(issue.path);
  const found = at(value, issue.path);
  const expected = issue.code === "invalid_type" ? typeName(issue.expected) : issue.code === "invalid_union" ? unionExpected(issue) : undefined;
  if (expected && found === undefined) return `${where} is missing (expected ${expected})`;
  if (expected) return `${where} is ${kind(found)} (expected ${expected})`;
  if (issue.code === "unrecognized_keys") return `${where} has the unknown member ${quote(issue.keys?.[0])}`;
  return `${where} is not valid (${excerpt(issue.message, 100)})`;
}

/** A type zod expects, as the JSON it stands for, with its article. */
const typeName = (expected = "value"): string => article(({ record: "object", int: "integer" } as Record<string, string>)[expected] ?? expected);

/** What a union of plain types expects ("a string or a number"), when that is what it is. */
function unionExpected(issue: Issue): string | undefined {
  const types = (issue.errors ?? []).map((branch) => (branch.length === 1 && branch[0]?.code === "invalid_type" && branch[0].path.length === 0 ? branch[0].expected : undefined));
  if (types.length === 0 || types.some((type) => type === undefined)) return undefined;
  return types.map((type) => typeName(type)).join(" or ");
}

/** The value at `path` inside `value`, or undefined. */
function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let here = value;
  for (const key of path) here = isObject(here) || Array.isArray(here) ? (here as Record<PropertyKey, unknown>)[key] : undefined;
  return here;
}

/** A path as JavaScript writes it: params.arguments[0], params._meta["io.modelcontextprotocol/related-task"]. */
const pathText = (path: readonly PropertyKey[]): string =>
  path.length === 0
    ? "the message"
    : path.map((key, index) => (typeof key === "number" ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(String(key)) ? `${index === 0 ? "" : "."}${excerpt(String(key))}` : `[${quote(String(key))}]`)).join("");

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is string | number => typeof value === "string" || Number.isSafeInteger(value);

/** A JSON value's kind, with its article: "an object", "null", "a number". */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return article(typeof value);
}

const article = (noun: string): string => `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;

/** A value from the client: a string as every gg message quotes one (its head and length), anything else as JSON cut short. */
export const quote = (value: unknown): string => (value === undefined ? "missing" : typeof value === "string" ? quoteText(value) : excerpt(JSON.stringify(value) ?? String(value)));

/** `text` with its control characters and line separators escaped: the parser's message quotes the line. */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);

