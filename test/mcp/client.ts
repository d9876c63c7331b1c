// Test fixture: a real MCP client connected to `gg mcp` over stdio, closed (and the server with it) when the scope ends.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CALL_TIMEOUT_MS } from "../processes.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/** A client of `gg mcp --workspace workspace ...extra`; `call` makes a tool call, `pid` is the server's process. */
export async function connectGg(workspace: string, ...extra: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--workspace", workspace, ...extra], stderr: "pipe" });
  const client = new Client({ name: "gg-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    call: (name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) => client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) }) as Promise<CallToolResult>,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/** A tool result's content as one text: text blocks as they are, other blocks as `<type>`, joined with newlines. */
export const resultText = (result: CallToolResult): string => result.content.map((block) => (block.type === "text" ? block.text : `<${block.type}>`)).join("\n");
