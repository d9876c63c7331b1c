// TypeScript text from TypeBox schemas: the types of gg.d.ts, the docs and the checker are rendered from the same
// schemas that validate arguments and describe results, so no type is written twice. A schema with an `$id` is a
// named type: rendered once as a declaration, referred to by name everywhere else.
import type { TSchema } from "typebox";

/** The parts of JSON Schema the declarations use. */
interface Schema {
  $id?: string;
  description?: string;
  type?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
}

/** Named types met while rendering, by name, in the order first met. */
export type NamedTypes = Map<string, TSchema>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A `/** ... *\/` comment for `text`, indented; empty when there is no text. */
export function docComment(text: string | undefined, indent: string): string {
  if (!text) return "";
  const lines = text.replaceAll("*/", "*\\/").split("\n");
  return lines.length === 1 ? `${indent}/** ${lines[0]} */\n` : `${indent}/**\n${lines.map((line) => `${indent} * ${line}`).join("\n")}\n${indent} */\n`;
}

/** The members of an object type, one per line with their doc comments. */
function members(schema: Schema, named: NamedTypes, indent: string): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([key, property]) => {
      const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
      // A named type carries its own description, on its declaration.
      const doc = (property as Schema).$id ? "" : docComment(property.description, indent);
      return `${doc}${indent}${name}${required.has(key) ? "" : "?"}: ${typeOf(property, named, indent)};`;
    })
    .join("\n");
}

/**
 * The TypeScript type of `schema`; named types it holds are added to `named` and referred to by name (the schema
 * itself too, unless `expand` asks for its structure).
 */
export function typeOf(input: TSchema, named: NamedTypes = new Map(), indent = "", expand = false): string {
  const schema = input as Schema;
  if (schema.$id && !expand) {
    if (!named.has(schema.$id)) named.set(schema.$id, input);
    return schema.$id;
  }
  const of = (member: Schema): string => typeOf(member as TSchema, named, indent);
  return structure(schema, {
    of,
    union: (members) => members.join(" | "),
    intersection: (parts) => parts.map(of).join(" & "),
    object: (object) => {
      const body = members(object, named, `${indent}  `);
      return body === "" ? "{}" : `{\n${body}\n${indent}}`;
    },
  });
}

/** How a renderer spells what differs between renderings: a member type, unions, intersections and object bodies. */
interface Spelling {
  of(member: Schema): string;
  union(members: string[]): string;
  intersection(parts: Schema[]): string;
  object(schema: Schema): string;
}

/** The type `schema` describes (below its name, if it has one), its parts spelled by `spell`. */
function structure(schema: Schema, spell: Spelling): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.anyOf) return spell.union(schema.anyOf.map(spell.of));
  if (schema.allOf) return spell.intersection(schema.allOf);
  switch (schema.type) {
    case "string":
    case "boolean":
    case "null":
      return schema.type;
    case "integer":
    case "number":
      return "number";
    case "array": {
      const item = schema.items ? spell.of(schema.items) : "unknown";
      return composite(item) ? `(${item})[]` : `${item}[]`;
    }
    case "object": {
      const record = Object.values(schema.patternProperties ?? {})[0];
      return record && !schema.properties ? `Record<string, ${spell.of(record)}>` : spell.object(schema);
    }
    default:
      return "unknown";
  }
}

/** The declaration of one named type: an interface for an object (or an object extending named types), else a type alias. */
function declaration(name: string, input: TSchema, named: NamedTypes): string {
  const schema = input as Schema;
  const doc = docComment(schema.description, "");
  const parts = schema.allOf ?? [];
  const bases = parts.filter((part) => part.$id);
  const own = parts.filter((part) => !part.$id);
  if (schema.type === "object" && !schema.patternProperties) return `${doc}interface ${name} {\n${members(schema, named, "  ")}\n}`;
  if (parts.length > 0 && own.length === 1 && own[0]?.type === "object") {
    const extended = bases.map((base) => typeOf(base as TSchema, named)).join(", ");
    return `${doc}interface ${name} extends ${extended} {\n${members(own[0], named, "  ")}\n}`;
  }
  return `${doc}type ${name} = ${typeOf(input, named, "", true)};`;
}

/**
 * Declarations of every named type in `named` and of those they refer to, each once: in the order first met, each
 * followed by the types it is the first to refer to.
 */
export function declarations(named: NamedTypes): string[] {
  const done = new Set<string>();
  const out: string[] = [];
  const declare = (name: string): void => {
    if (done.has(name)) return;
    done.add(name);
    const known = new Set(named.keys());
    out.push(declaration(name, named.get(name) as TSchema, named));
    for (const found of [...named.keys()].filter((key) => !known.has(key))) declare(found);
  };
  for (const name of [...named.keys()]) declare(name);
  return out;
}

/**
 * The named types met when `schemas` are spelled out, in the order first met, with how often each is referred to: a
 * named type's own body is counted once, as it would be declared once. What the compact declarations name rather than
 * spell out: the types met more than once.
 */
export function namedUses(schemas: readonly TSchema[]): Map<string, { schema: TSchema; uses: number }> {
  const found = new Map<string, { schema: TSchema; uses: number }>();
  const visit = (input: Schema | undefined): void => {
    if (!input) return;
    if (input.$id) {
      const known = found.get(input.$id);
      if (known) {
        known.uses++;
        return;
      }
      found.set(input.$id, { schema: input as TSchema, uses: 1 });
    }
    for (const member of [...(input.anyOf ?? []), ...(input.allOf ?? []), ...Object.values(input.properties ?? {}), ...Object.values(input.patternProperties ?? {})]) visit(member);
    visit(input.items);
  };
  for (const schema of schemas) visit(schema as Schema);
  return found;
}

/** The properties of an intersection of plain objects, merged; undefined when a part is anything else. */
function merged(parts: Schema[], declared: ReadonlySet<string>): Schema | undefined {
  const plain = parts.every((part) => part.type === "object" && !part.patternProperties && !(part.$id && declared.has(part.$id)));
  if (!plain) return undefined;
  return { type: "object", properties: Object.assign({}, ...parts.map((part) => part.properties)), required: parts.flatMap((part) => part.required ?? []) };
}

/** Whether `type` holds a union or an intersection outside any braces, so `[]` after it needs parentheses. */
function composite(type: string): boolean {
  let depth = 0;
  for (const char of type) {
    if (char === "{" || char === "(" || char === "<") depth++;
    else if (char === "}" || char === ")" || char === ">") depth--;
    else if (depth === 0 && (char === "|" || char === "&")) return true;
  }
  return false;
}

/** How {@link compactTypeOf} spells a type. */
export interface CompactStyle {
  /** Named types referred to by name; every other type is spelled out where it is used. */
  declared: ReadonlySet<string>;
  /** Leave out optional properties: a result's type then shows what every result holds. */
  requiredOnly?: boolean;
}

/**
 * `schema` as TypeScript on one line, without comments, an intersection of plain objects as one object: the compact
 * declarations a code agent's prompt shows.
 */
export function compactTypeOf(input: TSchema, style: CompactStyle, expand = false): string {
  const schema = input as Schema;
  if (schema.$id && style.declared.has(schema.$id) && !expand) return schema.$id;
  const of = (member: Schema): string => compactTypeOf(member as TSchema, style);
  return structure(schema, {
    of,
    union: (members) => [...new Set(members)].join(" | "),
    intersection: (parts) => {
      const one = merged(parts, style.declared);
      return one ? of(one) : parts.map(of).join(" & ");
    },
    object: (object) => {
      const required = new Set(object.required ?? []);
      const fields = Object.entries(object.properties ?? {})
        .filter(([key]) => required.has(key) || !style.requiredOnly)
        .map(([key, property]) => `${IDENTIFIER.test(key) ? key : JSON.stringify(key)}${required.has(key) ? "" : "?"}: ${of(property)}`);
      return `{${fields.join("; ")}}`;
    },
  });
}

/** The one-line declaration of a named type: an interface for an object, else a type alias. */
export function compactDeclaration(name: string, input: TSchema, style: CompactStyle): string {
  const body = compactTypeOf(input, style, true);
  return body.startsWith("{") ? `interface ${name} ${body}` : `type ${name} = ${body};`;
}
