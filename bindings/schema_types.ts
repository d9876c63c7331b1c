// TypeScript type text from JSON Schemas gg did not write (an MCP server's tool inputs and outputs), for the
// declarations programs are checked against and for the docs. The schemas are untrusted, so: nothing is fetched (a
// `$ref` outside the document is `unknown`); recursion and nesting past a bound are `unknown`; a type past a size
// bound is `unknown` as a whole; keys and literals are JSON strings and descriptions doc comments that no text can
// leave; and a schema that cannot be typed is `unknown`, never an exception. What TypeScript cannot say (`not`,
// `if`/`then`/`else`, formats, bounds) is left out, so a type may accept more than its schema, never less.
import { shownPath } from "../host/paths.ts";
import { docComment } from "./types.ts";

/** How {@link schemaType} spells a type. */
export interface SchemaTypeOptions {
  /** Schemas within schemas (`$ref`s followed included) past which a part is `unknown`; 20 unless given. */
  maxDepth?: number;
  /** Characters past which the whole type is `unknown`; 20,000 unless given. */
  maxLength?: number;
  /** On one line without doc comments (prompts, search results), rather than a member a line after its docs. */
  compact?: boolean;
}

/** A type's text and how loosely it binds: a union or an intersection is parenthesised inside a tighter type. */
interface Rendered {
  text: string;
  binds: "union" | "intersection" | "atom";
}

type Schema = Record<string, unknown>;

/** What one rendering carries along. */
interface Walk {
  root: unknown;
  maxDepth: number;
  maxLength: number;
  compact: boolean;
  /** The schemas being rendered, from the root down: one met again is a recursion. */
  open: Set<object>;
  /** Schemas and literals left to visit: a schema whose `$ref`s fan out exponentially stops here. */
  budget: number;
}

const UNKNOWN: Rendered = { text: "unknown", binds: "atom" };
const NEVER: Rendered = { text: "never", binds: "atom" };
/** An object of any keys: dropped from an intersection with other parts, which say more. */
const ANY_OBJECT: Rendered = { text: "Record<string, unknown>", binds: "atom" };
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const COMPOSED = ["$ref", "anyOf", "oneOf", "allOf"];
/** Line breaks other than "\n"; what hides or reorders text (controls, bidirectional marks), dropped from comments. */
const BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The TypeScript type of the values `schema` accepts; `unknown` for what it cannot type. Never throws. */
export function schemaType(schema: unknown, options: SchemaTypeOptions = {}): string {
  const maxLength = options.maxLength ?? 20_000;
  const walk: Walk = { root: schema, maxDepth: options.maxDepth ?? 20, maxLength, compact: options.compact ?? false, open: new Set(), budget: maxLength };
  try {
    return render(schema, walk, 0).text;
  } catch {
    // Past a bound (or a schema no JSON could hold: a getter that throws, a BigInt default).
    return "unknown";
  }
}

/** What a tool declaration is made of: an MCP tool's description and schemas as its server lists them. */
export interface ToolSchemas {
  description?: string | undefined;
  inputSchema?: unknown;
  /** Absent or null: the tool's result has no schema. */
  outputSchema?: unknown;
}

/** How {@link toolDeclaration} spells a declaration. */
export interface DeclarationOptions extends SchemaTypeOptions {
  /** The result's type for a tool without an output schema; `unknown` unless given. */
  untypedOutput?: string;
}

/**
 * A tool's method declaration, `name(input: {...}): Promise<{...}>;`, after a doc comment holding its description
 * (unless compact). The input may be left out when its schema requires nothing.
 */
export function toolDeclaration(identifier: string, tool: ToolSchemas, options: DeclarationOptions = {}): string {
  const input = schemaType(tool.inputSchema, options);
  const untyped = tool.outputSchema === undefined || tool.outputSchema === null;
  const output = untyped ? (options.untypedOutput ?? "unknown") : schemaType(tool.outputSchema, options);
  const doc = options.compact ? "" : docComment(commentText(tool.description), "");
  return `${doc}${key(identifier)}(input${optionalInput(tool.inputSchema, input) ? "?" : ""}: ${input}): Promise<${output}>;`;
}

/** Whether a call may leave its input out: its schema is an object that requires nothing, or cannot be typed. */
function optionalInput(schema: unknown, type: string): boolean {
  if (type === "unknown") return true;
  if (!isSchema(schema) || schema.type !== "object" || COMPOSED.some((keyword) => Object.hasOwn(schema, keyword))) return false;
  return !Array.isArray(schema.required) || schema.required.length === 0;
}

function render(schema: unknown, walk: Walk, depth: number): Rendered {
  if (schema === true) return UNKNOWN;
  if (schema === false) return NEVER;
  if (!isSchema(schema) || depth >= walk.maxDepth || walk.open.has(schema)) return UNKNOWN;
  spend(walk);
  walk.open.add(schema);
  try {
    const type = shape(schema, walk, depth + 1);
    const typed = schema.nullable === true ? union([type, atom("null")]) : type;
    if (typed.text.length > walk.maxLength) throw new RangeError("type too long");
    return typed;
  } finally {
    walk.open.delete(schema);
  }
}

/** The type of one schema object, below its `nullable`. */
function shape(schema: Schema, walk: Walk, depth: number): Rendered {
  if (Object.hasOwn(schema, "const")) return literal(schema.const, walk, depth);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((value) => literal(value, walk, depth)));
  const of = (member: unknown): Rendered => render(member, walk, depth);
  const parts = [typed(schema, walk, depth)];
  if (typeof schema.$ref === "string") parts.push(of(resolve(walk.root, schema.$ref)));
  for (const members of [schema.anyOf, schema.oneOf]) if (Array.isArray(members)) parts.push(union(members.map(of)));
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map(of));
  return intersection(parts);
}

/** The type `type` names (a union for a list of names), or implies through `properties` or `items`. */
function typed(schema: Schema, walk: Walk, depth: number): Rendered {
  const names = Array.isArray(schema.type) ? schema.type : schema.type !== undefined ? [schema.type] : implied(schema);
  if (names.length === 0) return UNKNOWN;
  return union(
    names.map((name) => {
      switch (name) {
        case "string":
        case "boolean":
        case "null":
          return atom(name);
        case "number":
        case "integer":
          return atom("number");
        case "array":
          return arrayType(schema, walk, depth);
        case "object":
          return objectType(schema, walk, depth);
        default:
          return UNKNOWN;
      }
    }),
  );
}

function implied(schema: Schema): string[] {
  if (["properties", "additionalProperties", "patternProperties"].some((keyword) => Object.hasOwn(schema, keyword))) return ["object"];
  if (["items", "prefixItems"].some((keyword) => Object.hasOwn(schema, keyword))) return ["array"];
  return [];
}

/** An array, or a tuple for `prefixItems` (or draft 7's list of `items`): elements past `minItems` are optional. */
function arrayType(schema: Schema, walk: Walk, depth: number): Rendered {
  const of = (member: unknown): Rendered => render(member ?? true, walk, depth);
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (prefix === undefined) return atom(schema.items === false ? "[]" : `${tight(of(schema.items))}[]`);
  const rest = prefix === schema.items ? schema.additionalItems : schema.items;
  const most = Number.isInteger(schema.maxItems) ? (schema.maxItems as number) : Infinity;
  const least = Number.isInteger(schema.minItems) ? (schema.minItems as number) : 0;
  const elements = prefix.slice(0, Math.max(0, most)).map((item, index) => (index < least ? of(item).text : `${tight(of(item))}?`));
  if (rest !== false && most > prefix.length) elements.push(`...${tight(of(rest))}[]`);
  return atom(`[${elements.join(", ")}]`);
}

/** An object: its `properties`, then an index signature for the keys they do not name, if others may be there. */
function objectType(schema: Schema, walk: Walk, depth: number): Rendered {
  const named = isSchema(schema.properties) ? Object.entries(schema.properties) : [];
  const rest = restOf(schema, named.length > 0, walk, depth);
  if (named.length === 0) return rest === undefined ? atom("{}") : rest.text === UNKNOWN.text ? ANY_OBJECT : atom(`Record<string, ${rest.text}>`);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const members = named.map(([name, property]) => ({
    doc: walk.compact ? "" : docComment(commentText(memberDoc(property, walk)), ""),
    text: `${key(name)}${required.has(name) ? "" : "?"}: ${render(property, walk, depth).text}`,
  }));
  if (rest !== undefined) members.push({ doc: "", text: `[key: string]: ${rest.text}` });
  if (walk.compact) return atom(`{${members.map((member) => member.text).join("; ")}}`);
  const lines = members.map((member) => `${member.doc}${member.text};`.replaceAll("\n", "\n  "));
  return atom(`{\n  ${lines.join("\n  ")}\n}`);
}

/**
 * The type of the keys `properties` does not name; undefined when none may be there. Keys a schema leaves open but does
 * not type are not offered beside named properties (a misspelt key stays an error), and a type for them beside named
 * properties is `unknown`, as TypeScript requires every named property to fit an index signature.
 */
function restOf(schema: Schema, named: boolean, walk: Walk, depth: number): Rendered | undefined {
  const extra = schema.additionalProperties;
  if (schema.patternProperties !== undefined) return UNKNOWN;
  if (extra === false) return undefined;
  if (extra === undefined || extra === true) return named || Object.hasOwn(schema, "properties") ? undefined : UNKNOWN;
  return named ? UNKNOWN : render(extra, walk, depth);
}

/** A member's doc: its description (or that of the schema its `$ref` names), whether it is deprecated, its default. */
function memberDoc(schema: unknown, walk: Walk): string | undefined {
  if (!isSchema(schema)) return undefined;
  const target = typeof schema.$ref === "string" ? resolve(walk.root, schema.$ref) : undefined;
  const description = [schema.description, isSchema(target) ? target.description : undefined].find((text) => typeof text === "string" && text.trim() !== "");
  const fallback = schema.default === undefined ? undefined : JSON.stringify(schema.default);
  const lines = [description, schema.deprecated === true ? "@deprecated" : undefined, fallback && fallback.length <= 200 ? `@default ${fallback}` : undefined];
  return lines.filter((line) => typeof line === "string").join("\n");
}

/** A JSON value as a literal type: strings quoted and escaped, arrays as tuples, objects as object types. */
function literal(value: unknown, walk: Walk, depth: number): Rendered {
  spend(walk);
  if (typeof value === "string") return atom(quoted(value));
  if (typeof value === "number") return Number.isFinite(value) ? atom(String(value)) : UNKNOWN;
  if (typeof value === "boolean" || value === null) return atom(String(value));
  if (typeof value !== "object" || depth >= walk.maxDepth) return UNKNOWN;
  if (Array.isArray(value)) return atom(`[${value.map((item) => literal(item, walk, depth + 1).text).join(", ")}]`);
  return atom(`{${Object.entries(value).map(([name, item]) => `${key(name)}: ${literal(item, walk, depth + 1).text}`).join("; ")}}`);
}

/** `unknown` if any member is; `never` members left out, repeated members once. */
function union(members: Rendered[]): Rendered {
  if (members.some((member) => member.text === UNKNOWN.text)) return UNKNOWN;
  const kept = distinct(members.filter((member) => member.text !== NEVER.text));
  if (kept.length <= 1) return kept[0] ?? NEVER;
  return { text: kept.map((member) => member.text).join(" | "), binds: "union" };
}

/** `never` if any part is; `unknown` parts left out (and any-keys objects beside other parts), repeated parts once. */
function intersection(parts: Rendered[]): Rendered {
  if (parts.some((part) => part.text === NEVER.text)) return NEVER;
  const known = distinct(parts.filter((part) => part.text !== UNKNOWN.text));
  const kept = known.length > 1 ? known.filter((part) => part.text !== ANY_OBJECT.text) : known;
  if (kept.length <= 1) return kept[0] ?? UNKNOWN;
  return { text: kept.map((part) => (part.binds === "union" ? `(${part.text})` : part.text)).join(" & "), binds: "intersection" };
}

function distinct(types: Rendered[]): Rendered[] {
  return [...new Map(types.map((type) => [type.text, type])).values()];
}

/** The target of a `$ref` within the document (`#`, `#/$defs/X`, a JSON pointer); undefined for any other. */
function resolve(root: unknown, ref: string): unknown {
  const id = isSchema(root) && typeof root.$id === "string" ? root.$id : undefined;
  const local = id !== undefined && ref.startsWith(`${id}#`) ? ref.slice(id.length) : ref;
  if (local === "#") return root;
  if (!local.startsWith("#/")) return undefined;
  let found = root;
  for (const part of local.slice(2).split("/")) {
    const name = pointerKey(part);
    if (name === undefined || typeof found !== "object" || found === null || !Object.hasOwn(found, name)) return undefined;
    found = (found as Schema)[name];
  }
  return found;
}

/** A JSON pointer's segment in a URI fragment, decoded: percent escapes, then `~1` to `/` and `~0` to `~`. */
function pointerKey(part: string): string | undefined {
  try {
    return decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch {
    return undefined;
  }
}

/** A property key as written in a type: bare when it is an identifier, else a JSON string. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : quoted(name);
}

/** `text` as a string literal: a JSON string, with the characters that break or reorder a line escaped too. */
function quoted(text: string): string {
  const shown = shownPath(text);
  return shown === text ? JSON.stringify(text) : shown;
}

/**
 * Untrusted text (a tool's or a server's description) for {@link docComment}: line breaks as "\n", what hides or
 * reorders text dropped.
 */
export function commentText(text: unknown): string | undefined {
  return typeof text === "string" ? text.replace(BREAKS, "\n").replace(HIDDEN, "") : undefined;
}

function tight(type: Rendered): string {
  return type.binds === "atom" ? type.text : `(${type.text})`;
}

function atom(text: string): Rendered {
  return { text, binds: "atom" };
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function spend(walk: Walk): void {
  walk.budget -= 1;
  if (walk.budget < 0) throw new RangeError("schema too big");
}
