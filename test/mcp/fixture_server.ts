// Test fixture: an MCP server of gg's own with the shapes real servers come in: hostile tool names and schemas, a
// failing tool, one that breaks its own outputSchema, a slow one that notes its cancellation, one that crashes, one
// that leaves a child running, a picture, paginated tools/list, and a tool list that changes. `node fixture_server.ts`
// serves it on stdio; `fixtureServer()` builds it for another transport (Streamable HTTP in the tests).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const object = (properties: Record<string, object> = {}, required: string[] = []) => ({ type: "object" as const, properties, required });
/** Tools a page of tools/list holds: the list comes in several pages. */
const PAGE = 4;

const TOOLS: Tool[] = [
  { name: "echo", description: "Echo the text back.", inputSchema: object({ text: { type: "string" } }, ["text"]), annotations: { readOnlyHint: true } },
  { name: "count", description: "Count to n.", inputSchema: object({ n: { type: "integer" } }, ["n"]), outputSchema: object({ numbers: { type: "array", items: { type: "integer" } } }, ["numbers"]), annotations: { readOnlyHint: true } },
  { name: "fail", description: "Always fails.", inputSchema: object() },
  { name: "bad-output", description: "Breaks its own outputSchema.", inputSchema: object(), outputSchema: object({ n: { type: "number" } }, ["n"]) },
  { name: "slow", description: "Waits ms milliseconds.", inputSchema: object({ ms: { type: "integer" } }, ["ms"]) },
  { name: "crash", description: "Exits the server.", inputSchema: object() },
  { name: "env", description: "The server's environment variables' names.", inputSchema: object() },
  { name: "cwd", description: "The folder the server runs in.", inputSchema: object(), annotations: { readOnlyHint: true } },
  { name: "spawn-child", description: "Starts a long sleep in the server's group; returns its pid.", inputSchema: object() },
  { name: "picture", description: "A 1x1 PNG.", inputSchema: object() },
  { name: "big", description: "A text of n characters.", inputSchema: object({ n: { type: "integer" } }, ["n"]) },
  { name: "add-tool", description: "Adds the tool late and says the list changed.", inputSchema: object() },
  // Hostile names: two that come out the same, a then, a leading digit, a reserved word, characters no identifier holds.
  { name: "a-b", description: "One of two.", inputSchema: object() },
  { name: "a.b", description: "Two of two.", inputSchema: object() },
  { name: "then", description: "Named then.", inputSchema: object() },
  { name: "9lives", description: "Leading digit.", inputSchema: object() },
  { name: "class", description: "A reserved word.", inputSchema: object() },
  { name: "weird name!", description: "Spaces and a bang.", inputSchema: object() },
  // A schema that refers to itself, and one naming a schema elsewhere, which is never fetched.
  { name: "tree", description: "A recursive input.", inputSchema: { type: "object", properties: { node: { $ref: "#/$defs/node" } }, $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } } } } },
  { name: "remote", description: "An external $ref.", inputSchema: { type: "object", properties: { x: { $ref: "http://127.0.0.1:9/never.json" } } }, outputSchema: { $ref: "http://127.0.0.1:9/never.json" } as unknown as Tool["outputSchema"] },
];

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** The fixture server; `log` (a file) hears of each cancellation. */
export function fixtureServer(log = process.env.FIXTURE_LOG): Server {
  const server = new Server({ name: "fixture", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } }, instructions: "A fixture for gg's tests.\nSecond line." });
  const tools = [...TOOLS];
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case "echo":
        return text(String(args.text));
      case "count":
        return { content: [{ type: "text", text: "counted" }], structuredContent: { numbers: Array.from({ length: Number(args.n) }, (_, i) => i + 1) } };
      case "fail":
        return { isError: true, content: [{ type: "text", text: "it broke" }] };
      case "bad-output":
        return { content: [{ type: "text", text: "n is x" }], structuredContent: { n: "x" } };
      case "slow":
        return await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(text("slept")), Number(args.ms));
          extra.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            if (log) appendFileSync(log, "cancelled\n");
          });
        });
      case "crash":
        process.stderr.write("fixture: dying on purpose\n");
        process.exit(3);
        break;
      case "env":
        return text(Object.keys(process.env).sort().join(","));
      case "cwd":
        return text(process.cwd());
      case "spawn-child":
        return text(String(spawn("sleep", ["1000"], { stdio: "ignore" }).pid));
      case "picture":
        return { content: [{ type: "text", text: "a dot" }, { type: "image", data: PNG, mimeType: "image/png" }] };
      case "big":
        return text("x".repeat(Number(args.n)));
      case "add-tool":
        if (!tools.some((tool) => tool.name === "late")) tools.push({ name: "late", description: "Added late.", inputSchema: object() });
        await server.sendToolListChanged();
        return text("added");
      default:
        return text(`called ${request.params.name}`);
    }
  });
  return server;
}

if (import.meta.main) await fixtureServer().connect(new StdioServerTransport());
