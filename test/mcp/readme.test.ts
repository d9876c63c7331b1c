// The README's MCP client configuration, copied as written: started from another directory, with a PATH that holds no
// Node 24, as a client such as Claude Desktop starts it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const checkout = join(import.meta.dirname, "../..");

/** The README's first JSON block that configures an MCP client, with its placeholders filled in. */
function readmeServer(workspace: string): { command: string; args: string[] } {
  const readme = readFileSync(join(checkout, "README.md"), "utf8");
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] ?? "").find((text) => text.includes("mcpServers"));
  if (block === undefined) throw new Error("README.md has no JSON block configuring mcpServers");
  const filled = block.replaceAll("/path/to/gg", checkout).replaceAll("/path/to/project", workspace);
  return (JSON.parse(filled) as { mcpServers: { gg: { command: string; args: string[] } } }).mcpServers.gg;
}

test("the README's MCP configuration works from any directory: an SDK client lists and calls the tools", async () => {
  using ws = tempWorkspace();
  using elsewhere = tempWorkspace();
  ws.put({ "notes.txt": "hello\n" });
  const server = readmeServer(ws.root);
  const transport = new StdioClientTransport({ ...server, cwd: elsewhere.root, env: { PATH: "/usr/bin:/bin", HOME: elsewhere.root }, stderr: "pipe" });
  const client = new Client({ name: "readme-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("read_file");
    const read = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    expect(read).toMatchObject({ content: [{ type: "text", text: "hello\n" }] });
  } finally {
    await client.close();
  }
});
