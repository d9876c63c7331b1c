// Types from JSON Schemas gg did not write (issue 36): what each keyword becomes, the bounds on untrusted schemas, that
// no text in a schema can leave its string or comment, and real servers' schemas type-checked by TypeScript itself.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { namespaceOf } from "../../bindings/identifiers.ts";
import { schemaType, type ToolSchemas, toolDeclaration } from "../../bindings/schema_types.ts";
import { numRuns } from "../deep.ts";
import { diagnostics } from "../typecheck.ts";

interface Tool extends ToolSchemas {
  name: string;
}
/** tools/list of server-memory and server-everything, as the SDK client returns it (see the file's `source`). */
const SERVERS = (JSON.parse(readFileSync(new URL("mcp_tool_schemas.json", import.meta.url), "utf8")) as { servers: Record<string, Tool[]> }).servers;

const compact = (schema: unknown): string => schemaType(schema, { compact: true });
const str = { type: "string" };
const num = { type: "number" };

/** Whether `type` is exactly one TypeScript type: `type T = <type>;` parses without error as one alias spanning it. */
function isOneType(type: string): boolean {
  const source = `type T = ${type};`;
  const file = ts.createSourceFile("t.ts", source, ts.ScriptTarget.ESNext, true);
  const [alias] = file.statements;
  const syntax = ts.transpileModule(source, { reportDiagnostics: true }).diagnostics ?? [];
  return file.statements.length === 1 && alias !== undefined && ts.isTypeAliasDeclaration(alias) && alias.type.getText(file) === type && syntax.length === 0;
}

/** A .d.ts declaring `name` as an object of `tools`' methods, named by the identifier rule. */
function declared(name: string, tools: Tool[], untypedOutput = "{ text: string }"): string {
  const namespace = namespaceOf(tools.map((tool) => tool.name));
  const methods = [...namespace.byIdentifier].map(([identifier, raw]) => toolDeclaration(identifier, tools.find((tool) => tool.name === raw) as Tool, { untypedOutput }));
  return `declare const ${name}: {\n${methods.join("\n").replace(/^/gm, "  ")}\n};\n`;
}

describe("schemaType: what each keyword becomes", () => {
  test.each([
    ["a string is string, its format left out", { type: "string", format: "uri" }, "string"],
    ["an integer is a number", { type: "integer" }, "number"],
    ["true accepts anything: unknown", true, "unknown"],
    ["false accepts nothing: never", false, "never"],
    ["an empty schema is unknown", {}, "unknown"],
    ["a list of types is their union", { type: ["string", "null"] }, "string | null"],
    ["OpenAPI's nullable adds null", { type: "integer", nullable: true }, "number | null"],
    ["an unknown type name is unknown", { type: "decimal" }, "unknown"],
    ["an enum is a union of literals", { type: "string", enum: ["a", "b"] }, '"a" | "b"'],
    ["an enum mixes literals of every JSON kind", { enum: ["a", 1, -2.5, true, null] }, '"a" | 1 | -2.5 | true | null'],
    ["an enum of objects and arrays spells them out", { enum: [{ a: 1 }, [1, "x"]] }, "{a: 1} | [1, \"x\"]"],
    ["an empty enum is never", { enum: [] }, "never"],
    ["a const is its literal", { const: "fixed" }, '"fixed"'],
    ["a const null is null", { const: null }, "null"],
    ["anyOf is a union", { anyOf: [str, num] }, "string | number"],
    ["oneOf is a union", { oneOf: [str, { type: "boolean" }] }, "string | boolean"],
    ["allOf is an intersection", { allOf: [{ type: "object", properties: { a: str } }, { type: "object", properties: { b: num } }] }, "{a?: string} & {b?: number}"],
    ["a union inside an intersection is parenthesised", { allOf: [{ anyOf: [str, num] }, { const: 1 }] }, "(string | number) & 1"],
    ["a union with a member of any value is unknown", { anyOf: [str, true] }, "unknown"],
    ["a member that accepts nothing leaves the union", { anyOf: [str, false] }, "string"],
    ["a repeated member is named once", { anyOf: [str, str, num] }, "string | number"],
    ["a part that says nothing leaves the intersection", { allOf: [str, {}] }, "string"],
    ["a schema's own type meets its anyOf", { type: "object", properties: { a: str }, anyOf: [{ properties: { b: num } }, { properties: { c: str } }] }, "{a?: string} & ({b?: number} | {c?: string})"],
    ["an anyOf of required lists says nothing TypeScript can", { type: "object", properties: { a: str }, anyOf: [{ required: ["a"] }, { required: ["b"] }] }, "{a?: string}"],
    ["an array of strings", { type: "array", items: str }, "string[]"],
    ["an array of a union parenthesises it", { type: "array", items: { anyOf: [str, num] } }, "(string | number)[]"],
    ["an array without items holds unknown", { type: "array" }, "unknown[]"],
    ["an array whose items are false is empty", { type: "array", items: false }, "[]"],
    ["prefixItems is a tuple, elements past minItems optional, open at the end", { type: "array", prefixItems: [str, num], minItems: 1 }, "[string, number?, ...unknown[]]"],
    ["a tuple closed by items: false", { type: "array", prefixItems: [str, num], minItems: 2, items: false }, "[string, number]"],
    ["a tuple's rest typed by items", { type: "array", prefixItems: [str], minItems: 1, items: num }, "[string, ...number[]]"],
    ["draft 7's list of items is a tuple, closed by maxItems", { type: "array", items: [str, num], minItems: 2, maxItems: 2 }, "[string, number]"],
    ["draft 7's additionalItems types the rest", { type: "array", items: [str], additionalItems: { anyOf: [str, num] } }, "[string?, ...(string | number)[]]"],
    ["an object's required properties are required, others optional", { type: "object", properties: { a: str, b: num }, required: ["a"] }, "{a: string; b?: number}"],
    ["an object named by properties alone needs no type", { properties: { a: str } }, "{a?: string}"],
    ["an object of any keys", { type: "object" }, "Record<string, unknown>"],
    ["an object declared with no properties is {}", { type: "object", properties: {} }, "{}"],
    ["an object that allows no properties is {}", { type: "object", additionalProperties: false }, "{}"],
    ["additionalProperties alone types every key", { type: "object", additionalProperties: num }, "Record<string, number>"],
    ["additionalProperties: true alone is any keys", { type: "object", additionalProperties: true }, "Record<string, unknown>"],
    ["additionalProperties beside properties is an unknown index signature", { type: "object", properties: { a: str }, additionalProperties: num }, "{a?: string; [key: string]: unknown}"],
    ["patternProperties is an unknown index signature", { type: "object", properties: { a: str }, patternProperties: { "^x": num } }, "{a?: string; [key: string]: unknown}"],
    ["patternProperties alone is any keys", { type: "object", patternProperties: { "^x": num }, additionalProperties: false }, "Record<string, unknown>"],
    ["not is left out: the type may accept more, never less", { type: "string", not: { const: "" } }, "string"],
    ["not alone is unknown", { not: { type: "string" } }, "unknown"],
    ["if/then/else leave the base type", { type: "object", properties: { a: str }, if: { required: ["a"] }, then: { required: ["b"] }, else: false }, "{a?: string}"],
    ["a property key that is not an identifier is a JSON string", { properties: { "a-b": str, "1x": str, $ok: str } }, '{"a-b"?: string; "1x"?: string; $ok?: string}'],
  ])("%s", (_, schema, type) => {
    expect(compact(schema)).toBe(type);
    expect(isOneType(type)).toBe(true);
  });

  test.each([
    ["a value that is not a schema is unknown", [null, 42, "string", [str], undefined]],
    ["a getter that throws makes the type unknown, never an exception", [Object.defineProperty({}, "type", { get: () => { throw new Error("boom"); } })]],
  ])("%s", (_, schemas) => {
    for (const schema of schemas) expect(schemaType(schema)).toBe("unknown");
  });
});

describe("schemaType: $ref within the document, never fetched", () => {
  const defs = { Id: num, "a/b~c": str, "sp ace": { type: "boolean" } };
  test.each([
    ["#/$defs/X", { properties: { id: { $ref: "#/$defs/Id" } }, $defs: defs }, "{id?: number}"],
    ["#/definitions/X", { properties: { id: { $ref: "#/definitions/Id" } }, definitions: defs }, "{id?: number}"],
    ["~1 and ~0 in a pointer are / and ~", { properties: { k: { $ref: "#/$defs/a~1b~0c" } }, $defs: defs }, "{k?: string}"],
    ["a percent-escaped pointer is decoded", { properties: { k: { $ref: "#/$defs/sp%20ace" } }, $defs: defs }, "{k?: boolean}"],
    ["a pointer into properties", { properties: { a: num, b: { $ref: "#/properties/a" } } }, "{a?: number; b?: number}"],
    ["a ref to the document's own $id", { $id: "https://x.test/s", properties: { id: { $ref: "https://x.test/s#/$defs/Id" } }, $defs: defs }, "{id?: number}"],
    ["a ref to a boolean schema", { properties: { n: { $ref: "#/$defs/No" } }, $defs: { No: false } }, "{n?: never}"],
    ["nullable beside a ref", { properties: { id: { $ref: "#/$defs/Id", nullable: true } }, $defs: defs }, "{id?: number | null}"],
    ["a ref to the whole document within itself is unknown there", { type: "object", properties: { child: { $ref: "#" } } }, "{child?: unknown}"],
    ["a recursive definition stops at its recursion", { $ref: "#/$defs/Node", $defs: { Node: { type: "object", properties: { value: num, next: { $ref: "#/$defs/Node" } }, required: ["value"] } } }, "{value: number; next?: unknown}"],
    ["two definitions that refer to each other stop too", { $ref: "#/$defs/A", $defs: { A: { properties: { b: { $ref: "#/$defs/B" } } }, B: { properties: { a: { $ref: "#/$defs/A" } } } } }, "{b?: {a?: unknown}}"],
    ["a definition used twice is spelled twice", { properties: { a: { $ref: "#/$defs/Id" }, b: { $ref: "#/$defs/Id" } }, $defs: defs }, "{a?: number; b?: number}"],
    ["an http: ref is unknown", { properties: { x: { $ref: "http://127.0.0.1:1/schema.json" } } }, "{x?: unknown}"],
    ["a file: ref is unknown", { properties: { x: { $ref: "file:///etc/passwd" } } }, "{x?: unknown}"],
    ["a ref into another document is unknown", { properties: { x: { $ref: "other.json#/$defs/Id" } }, $defs: defs }, "{x?: unknown}"],
    ["an anchor ref is unknown", { properties: { x: { $ref: "#Id" } }, $defs: defs }, "{x?: unknown}"],
    ["a pointer to nothing is unknown", { properties: { x: { $ref: "#/$defs/Missing" } }, $defs: defs }, "{x?: unknown}"],
    ["a pointer into Object.prototype is unknown", { properties: { x: { $ref: "#/constructor" }, y: { $ref: "#/__proto__" } } }, "{x?: unknown; y?: unknown}"],
    ["a malformed percent escape is unknown", { properties: { x: { $ref: "#/$defs/%E0%A4%A" } }, $defs: defs }, "{x?: unknown}"],
  ])("%s", (_, schema, type) => {
    expect(compact(schema)).toBe(type);
  });

  test("an object that holds itself (no JSON could) stops at the cycle", () => {
    const schema: Record<string, unknown> = { type: "object", properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    expect(compact(schema)).toBe("{self?: unknown}");
  });
});

describe("schemaType: bounds on what a schema can make it do", () => {
  const nested = (levels: number): unknown => (levels === 0 ? str : { type: "array", items: nested(levels - 1) });

  test("nesting past 20 schemas is unknown from there down", () => {
    expect(compact(nested(19))).toBe(`string${"[]".repeat(19)}`);
    expect(compact(nested(30))).toBe(`unknown${"[]".repeat(20)}`);
    expect(schemaType(nested(30), { compact: true, maxDepth: 3 })).toBe("unknown[][][]");
  });

  test("a chain of refs a hundred thousand long stops at the bound, without exhausting the stack", () => {
    const $defs = Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`d${index}`, { $ref: `#/$defs/d${index + 1}` }]));
    expect(compact({ $ref: "#/$defs/d0", $defs })).toBe("unknown");
  });

  test("refs that fan out exponentially make the whole type unknown, without visiting 2^20 schemas", () => {
    const $defs = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`L${index}`, { properties: { a: { $ref: `#/$defs/L${index + 1}` }, b: { $ref: `#/$defs/L${index + 1}` } } }]));
    expect(schemaType({ $ref: "#/$defs/L0", $defs })).toBe("unknown");
  });

  test("a type longer than maxLength is unknown as a whole", () => {
    const wide = { enum: Array.from({ length: 100_000 }, (_, index) => `value${index}`) };
    expect(schemaType(wide)).toBe("unknown");
    expect(schemaType({ enum: ["aaaa", "bbbb"] }, { maxLength: 10 })).toBe("unknown");
    expect(schemaType({ enum: ["aaaa", "bbbb"] }, { maxLength: 20 })).toBe('"aaaa" | "bbbb"');
  });

  test("a description of a megabyte makes the whole type unknown rather than a megabyte of docs", () => {
    expect(schemaType({ properties: { a: { type: "string", description: "x".repeat(1 << 20) } } })).toBe("unknown");
  });
});

describe("schemaType: descriptions become doc comments", () => {
  test("an object is one member a line, each after its description, nested objects indented", () => {
    const schema = {
      type: "object",
      properties: {
        query: { type: "string", description: "What to look for" },
        page: { type: "object", properties: { size: { type: "integer", description: "Results a page\nat most 100" } } },
      },
      required: ["query"],
    };
    expect(schemaType(schema)).toBe(
      ["{", "  /** What to look for */", "  query: string;", "  page?: {", "    /**", "     * Results a page", "     * at most 100", "     */", "    size?: number;", "  };", "}"].join("\n"),
    );
  });

  test.each([
    ["a default is a @default tag", { type: "number", default: 3 }, ["/** @default 3 */", "p?: number;"]],
    ["deprecated is a @deprecated tag", { type: "number", deprecated: true, description: "Old" }, ["/**", " * Old", " * @deprecated", " */", "p?: number;"]],
    ["a ref's target lends its description", { $ref: "#/$defs/Id" }, ["/** An id */", "p?: string;"]],
    ["*/ in a description is escaped", { type: "string", description: "a */ b" }, ["/** a *\\/ b */", "p?: string;"]],
    ["CR, CRLF and U+2028 break lines as \\n does", { type: "string", description: "a\rb\r\nc\u2028d" }, ["/**", " * a", " * b", " * c", " * d", " */", "p?: string;"]],
    ["controls and bidirectional overrides are dropped", { type: "string", description: "a\u0000b\u202ec\u0007" }, ["/** abc */", "p?: string;"]],
  ])("%s", (_, property, lines) => {
    const schema = { properties: { p: property }, $defs: { Id: { type: "string", description: "An id" } } };
    expect(schemaType(schema)).toBe(["{", ...lines.map((line) => `  ${line}`), "}"].join("\n"));
  });

  test("the compact form has no comments and no line breaks", () => {
    expect(compact({ properties: { a: { type: "object", description: "A", properties: { b: { type: "string", description: "B" } } } } })).toBe("{a?: {b?: string}}");
  });
});

/** Text that has broken generated code before: quotes, line breaks, comment ends, template and type punctuation. */
const HOSTILE = ['a"b', "a\nb", "*/", "/*", "`${x}`", "}", "]: string; evil(): void; x", "\\", "\u2028", "\u202e", "\ud800", "'", "<T>", "//", "\"; declare const pwned: 1; \""];

describe("schemaType: no text in a schema leaves its string or its comment", () => {
  test.each(HOSTILE.map((text) => [JSON.stringify(text), text]))("key, enum value, const, description and $defs name %s", (_, text) => {
    const schema = {
      type: "object",
      description: text,
      properties: { [text]: { type: "string", description: `${text} */ declare const pwned: 1; /* ${text}`, default: text }, e: { enum: [text, `${text}\n${text}`] }, c: { const: { [text]: [text] } }, r: { $ref: `#/$defs/${text.replaceAll("~", "~0").replaceAll("/", "~1")}` } },
      required: [text],
      $defs: { [text]: { const: text } },
    };
    for (const type of [schemaType(schema), compact(schema)]) expect(isOneType(type), type).toBe(true);
    expect(compact(schema)).not.toContain("\n");
    expect(compact(schema)).toContain(`r?: ${JSON.stringify(text).replace(/[\u2028\u202e]/g, (char) => `\\u${char.charCodeAt(0).toString(16)}`)}`);
  });

  test("any schema at all, hostile strings in every place, is typed as exactly one type or as unknown", () => {
    const text = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: "binary", maxLength: 6 }));
    const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
      schema: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.boolean(),
        fc.record({ type: fc.constantFrom("string", "number", "integer", "boolean", "null", "array", "object", ["string", "null"], "bogus") }, { requiredKeys: [] }),
        fc.record({ properties: fc.dictionary(text, tie("schema"), { maxKeys: 3 }), required: fc.array(text, { maxLength: 2 }), description: text, additionalProperties: tie("schema") }, { requiredKeys: [] }),
        fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) }),
        fc.record({ const: fc.jsonValue({ maxDepth: 2 }), nullable: fc.boolean() }),
        fc.record({ anyOf: fc.array(tie("schema"), { maxLength: 3 }) }),
        fc.record({ allOf: fc.array(tie("schema"), { maxLength: 3 }) }),
        fc.record({ type: fc.constant("array"), items: tie("schema"), prefixItems: fc.array(tie("schema"), { maxLength: 2 }), minItems: fc.nat(3) }, { requiredKeys: ["type"] }),
        fc.record({ $ref: fc.oneof(text, fc.constantFrom("#", "#/properties", "#/anyOf/0", "#/$defs/a")) }),
      ),
    }));
    fc.assert(
      fc.property(schema, (generated) => {
        for (const type of [schemaType(generated), compact(generated)]) expect(isOneType(type), type).toBe(true);
      }),
      { numRuns: numRuns(2000) },
    );
  });

  test("hostile declarations type-check, and a program reaches a hostile key by its string", () => {
    const tools: Tool[] = [{ name: "hostile", description: HOSTILE.join("\n"), inputSchema: { type: "object", properties: Object.fromEntries(HOSTILE.map((text) => [text, { enum: [text], description: text }])) } }];
    const program = `export {};\nconst key = ${JSON.stringify(HOSTILE[0])};\nawait x.hostile({ [key]: key });\n// @ts-expect-error a value its enum does not hold\nawait x.hostile({ [key]: "other" });\n`;
    expect(diagnostics(new Map([["/x.d.ts", declared("x", tools)], ["/p.ts", program]]))).toEqual([]);
  });
});

describe("real servers' schemas", () => {
  test("server-memory's create_entities, as a declaration", () => {
    const tool = SERVERS.memory?.find((found) => found.name === "create_entities") as Tool;
    const entity = ["    /** The name of the entity */", "    name: string;", "    /** The type of the entity */", "    entityType: string;", "    /** An array of observation contents associated with the entity */", "    observations: string[];"];
    expect(toolDeclaration("create_entities", tool)).toBe(
      ["/** Create multiple new entities in the knowledge graph */", "create_entities(input: {", "  entities: {", ...entity, "  }[];", "}): Promise<{", "  entities: {", ...entity, "  }[];", "}>;"].join("\n"),
    );
    expect(toolDeclaration("create_entities", tool, { compact: true })).toBe(
      "create_entities(input: {entities: {name: string; entityType: string; observations: string[]}[]}): Promise<{entities: {name: string; entityType: string; observations: string[]}[]}>;",
    );
  });

  test("server-everything's tools: enums, defaults, an input that may be left out, a result without a schema", () => {
    const tools = SERVERS.everything as Tool[];
    const declaration = (name: string): string => toolDeclaration(namespaceOf([name]).byIdentifier.keys().next().value as string, tools.find((tool) => tool.name === name) as Tool, { compact: true, untypedOutput: "Result" });
    expect(declaration("get-annotated-message")).toBe('get_annotated_message(input: {messageType: "error" | "success" | "debug"; includeImage?: boolean}): Promise<Result>;');
    expect(declaration("get-env")).toBe("get_env(input?: {}): Promise<Result>;");
    expect(declaration("get-structured-content")).toBe('get_structured_content(input: {location: "New York" | "Chicago" | "Los Angeles"}): Promise<{temperature: number; conditions: string; humidity: number}>;');
  });

  test("every tool of both servers is typed (no unknown) and its declarations type-check", () => {
    for (const tool of Object.values(SERVERS).flat()) {
      expect(schemaType(tool.inputSchema), tool.name).not.toContain("unknown");
      if (tool.outputSchema) expect(schemaType(tool.outputSchema), tool.name).not.toContain("unknown");
    }
    const files = new Map(Object.entries(SERVERS).map(([server, tools]) => [`/${server}.d.ts`, declared(server, tools)]));
    expect(diagnostics(files)).toEqual([]);
  });

  test("a program calling them type-checks, and a wrong argument or a misread result is an error", () => {
    const files = new Map(Object.entries(SERVERS).map(([server, tools]) => [`/${server}.d.ts`, declared(server, tools)]));
    const good = [
      "export {};",
      'const made = await memory.create_entities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });',
      "const names: string[] = made.entities.map((entity) => entity.name);",
      "await everything.get_env();",
      'const weather = await everything.get_structured_content({ location: "Chicago" });',
      "const degrees: number = weather.temperature + names.length;",
    ].join("\n");
    expect(diagnostics(new Map([...files, ["/good.ts", good]]))).toEqual([]);
    const bad = ["export {};", 'await memory.create_entities({ entities: [{ name: 1, entityType: "person", observations: [] }] });', 'await everything.get_structured_content({ location: "Paris" });', "const graph = await memory.read_graph();", "graph.entities[0]?.age;"].join("\n");
    const errors = diagnostics(new Map([...files, ["/bad.ts", bad]]));
    expect(errors).toEqual([
      expect.stringContaining("Type 'number' is not assignable to type 'string'"),
      expect.stringContaining(`Type '"Paris"' is not assignable to type '"New York" | "Chicago" | "Los Angeles"'`),
      expect.stringContaining("Property 'age' does not exist"),
    ]);
  });
});
