// A bench-only MCP server listing N generated tools, as a large company's API would list them: five per resource
// (get, list, create, update, delete) over a hundred resources, each with an input schema (ids, filters, enums,
// paging, a nested patch) and an output schema (a record under $defs, a page of them). `node bench/tools_server.ts N`
// serves the first N on stdio; each call answers with a record that fits its tool's output schema.
// `node bench/tools_server.ts echo` serves two tools instead, `echo`, which answers its text and the microsecond the
// call reached the server (a clock shared by every caller, so calls from a program can be timed one by one), and
// `note`, the same not marked read-only.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

const RESOURCES = (
  "account address alert api_key article asset attachment audit_event backup badge batch bill booking branch budget build bundle " +
  "campaign card cart category certificate channel charge check_run cluster comment commit contact contract coupon course " +
  "credential customer dashboard dataset deal deployment device discount dispute document domain draft employee endpoint " +
  "environment event expense experiment feature_flag feedback file folder form fulfillment gateway goal group incident " +
  "integration invoice issue job label lead license listing location meeting member message metric milestone model monitor " +
  "note notification order organization package page partner payment payout pipeline plan policy pool price product project " +
  "promotion pull_request queue quote refund release report repository reservation review role rule schedule secret segment"
).split(" ");
const VERBS = ["get", "list", "create", "update", "delete"] as const;
/** Tools this server can list: every verb of every resource. */
export const MAX_TOOLS = RESOURCES.length * VERBS.length;

const STATUS = ["draft", "active", "paused", "archived"];
/** The fields a resource has beyond the common ones, picked by its position so each resource differs. */
const EXTRA: Record<string, object>[] = [
  { amount: { type: "number", minimum: 0, description: "In the account's currency." }, currency: { type: "string", pattern: "^[A-Z]{3}$" } },
  { url: { type: "string", format: "uri" }, visibility: { type: "string", enum: ["private", "internal", "public"] } },
  { priority: { type: "integer", minimum: 1, maximum: 5 }, due_at: { type: "string", format: "date-time" } },
  { region: { type: "string", enum: ["eu-west", "us-east", "ap-south"] }, size_bytes: { type: "integer", minimum: 0 } },
];

const words = (resource: string): string => resource.replace(/_/g, " ");

/** The output and input schemas of `verb` on `resource`. */
function schemas(resource: string, index: number, verb: (typeof VERBS)[number]): Pick<Tool, "inputSchema" | "outputSchema"> {
  const extra = EXTRA[index % EXTRA.length] as Record<string, object>;
  const record = {
    type: "object",
    properties: {
      id: { type: "string", description: `The ${words(resource)}'s id.` },
      name: { type: "string" },
      status: { type: "string", enum: STATUS },
      created_at: { type: "string", format: "date-time" },
      tags: { type: "array", items: { type: "string" } },
      owner: { type: "object", properties: { id: { type: "string" }, email: { type: "string", format: "email" } }, required: ["id"] },
      metadata: { type: "object", additionalProperties: { type: "string" } },
      ...extra,
    },
    required: ["id", "name", "status", "created_at"],
  };
  const $defs = { [resource]: record };
  const ref = { $ref: `#/$defs/${resource}` };
  const writable = { name: { type: "string" }, tags: { type: "array", items: { type: "string" } }, metadata: { type: "object", additionalProperties: { type: "string" } }, ...extra };
  const id = { id: { type: "string", description: `The ${words(resource)}'s id.` } };
  switch (verb) {
    case "get":
      return { inputSchema: { type: "object", properties: id, required: ["id"] }, outputSchema: { type: "object", properties: { [resource]: ref }, required: [resource], $defs } };
    case "list":
      return {
        inputSchema: {
          type: "object",
          properties: {
            status: { type: "string", enum: STATUS },
            owner_id: { type: "string" },
            tag: { type: "string" },
            created_after: { type: "string", format: "date-time" },
            limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
            cursor: { type: "string", description: "next_cursor of the page before." },
          },
        },
        outputSchema: { type: "object", properties: { items: { type: "array", items: ref }, next_cursor: { type: "string" } }, required: ["items"], $defs },
      };
    case "create":
      return { inputSchema: { type: "object", properties: { ...writable, owner_id: { type: "string" } }, required: ["name"] }, outputSchema: { type: "object", properties: { [resource]: ref }, required: [resource], $defs } };
    case "update":
      return {
        inputSchema: { type: "object", properties: { ...id, patch: { type: "object", properties: { ...writable, status: { type: "string", enum: STATUS } }, additionalProperties: false } }, required: ["id", "patch"] },
        outputSchema: { type: "object", properties: { [resource]: ref }, required: [resource], $defs },
      };
    case "delete":
      return { inputSchema: { type: "object", properties: { ...id, force: { type: "boolean", description: "Delete even when other records refer to it." } }, required: ["id"] }, outputSchema: { type: "object", properties: { deleted: { type: "boolean" }, id: { type: "string" } }, required: ["deleted", "id"] } };
  }
}

const DESCRIBE = {
  get: (what: string) => `Get one ${what} by its id, with its owner, tags and metadata.`,
  list: (what: string) => `List ${what}s, newest first, filtered by status, owner, tag or creation time; paged by cursor.`,
  create: (what: string) => `Create a ${what}. Returns it with its new id; the caller becomes its owner unless owner_id says otherwise.`,
  update: (what: string) => `Change fields of a ${what}: only the fields in patch change.`,
  delete: (what: string) => `Delete a ${what}. Refused while other records refer to it, unless force is true.`,
};

/** The first `count` tools: each verb of the first resource, then of the next. */
export function generatedTools(count: number): Tool[] {
  const tools: Tool[] = [];
  for (const [index, resource] of RESOURCES.entries()) {
    for (const verb of VERBS) {
      if (tools.length === count) return tools;
      tools.push({ name: `${verb}_${resource}`, description: DESCRIBE[verb](words(resource)), ...schemas(resource, index, verb), annotations: { readOnlyHint: verb === "get" || verb === "list" } });
    }
  }
  return tools;
}

/** A record of `resource` that fits its schema. */
const recordOf = (resource: string, id = `${resource}_1`) => ({ id, name: `A ${words(resource)}`, status: "active", created_at: "2026-01-01T00:00:00Z", tags: [] });

/** The echo that says when it heard: its text, a space, and the server's clock in microseconds. */
const ECHO: Tool = { name: "echo", description: "Echo the text back, with the microsecond the call arrived.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, annotations: { readOnlyHint: true } };
/** The same echo not marked read-only, as a tool that changes something is: gg journals its calls. */
const NOTE: Tool = { ...ECHO, name: "note", description: "Echo the text back, with the microsecond the call arrived (not marked read-only).", annotations: {} };

/** A generated tool's answer: a record, a page of one, or a deletion, as its output schema says. */
function generatedAnswer(name: string, args: { id?: string }): CallToolResult {
  const [verb = "", ...rest] = name.split("_");
  const resource = rest.join("_");
  const structured = verb === "list" ? { items: [recordOf(resource)] } : verb === "delete" ? { deleted: true, id: String(args.id) } : { [resource]: recordOf(resource, args.id) };
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

if (import.meta.main) {
  const echo = process.argv[2] === "echo";
  const count = echo ? 0 : Number(process.argv[2] ?? 500);
  if (!Number.isInteger(count) || count < 0 || count > MAX_TOOLS) throw new Error(`tools_server.ts: give a tool count from 0 to ${MAX_TOOLS}, or echo, not ${process.argv[2]}`);
  const tools = echo ? [ECHO, NOTE] : generatedTools(count);
  const server = new Server({ name: "company-api", version: "1.0.0" }, { capabilities: { tools: {} }, instructions: "The company's internal API: accounts, billing, projects and operations." });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    const args = (request.params.arguments ?? {}) as { id?: string; text?: string };
    if (echo) return { content: [{ type: "text", text: `${args.text} ${Math.round((performance.timeOrigin + performance.now()) * 1000)}` }] };
    return generatedAnswer(request.params.name, args);
  });
  await server.connect(new StdioServerTransport());
}
