// The README's MCP client configurations, copied as written: each client's is the same npx line, and what follows
// the package's name runs as gg's command, started from another directory with a PATH that holds no Node 24, as a
// client such as Claude Desktop starts it. (npx itself, on the packed package, is .ci/run's release rehearsal.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const checkout = join(import.meta.dirname, "../..");

/** Each MCP configuration of the README's Install section as a command line: Claude Code's line, then each JSON block's server. */
function readmeServers(): { client: string; command: string; args: string[] }[] {
  const readme = readFileSync(join(checkout, "README.md"), "utf8");
  const install = readme.split("\n## Install\n")[1]?.split("\n## ")[0] ?? "";
  const servers = [...install.matchAll(/^claude mcp add gg -- (\S+) (.*)$/gm)].map((found) => ({ client: "Claude Code", command: found[1] as string, args: (found[2] as string).split(" ") }));
  for (const [, block] of install.matchAll(/```json\n([\s\S]*?)```/g)) {
    const config = JSON.parse(block as string) as { mcpServers?: Record<string, { command: string; args: string[] }>; servers?: Record<string, { command: string; args: string[] }> };
    const server = config.mcpServers?.gg ?? config.servers?.gg;
    if (server) servers.push({ client: config.mcpServers ? "mcpServers" : "VS Code", command: server.command, args: server.args });
  }
  return servers;
}

test("every client's configuration in the README is the same npx line, naming the workspace", () => {
  const servers = readmeServers();
  expect(servers.map((server) => server.client)).toEqual(["Claude Code", "mcpServers", "VS Code"]);
  for (const server of servers) {
    expect(server.command).toBe("npx");
    expect(server.args.slice(0, 5)).toEqual(["-y", "gg-runtime", "mcp", "--workspace", expect.stringMatching(/^(\/path\/to\/project|\$\{workspaceFolder\})$/)]);
  }
});

test("the README's MCP configuration works from any directory: an SDK client lists and calls the tools", async () => {
  using ws = tempWorkspace();
  using elsewhere = tempWorkspace();
  ws.put({ "notes.txt": "hello\n" });
  const [server] = readmeServers();
  // What npx runs: the package's gg, with the arguments after its name, placeholders filled.
  const args = (server?.args.slice(2) ?? []).map((arg) => arg.replace("/path/to/project", ws.root));
  const transport = new StdioClientTransport({ command: join(checkout, "bin", "gg"), args, cwd: elsewhere.root, env: { PATH: "/usr/bin:/bin", HOME: elsewhere.root }, stderr: "pipe" });
  const client = new Client({ name: "readme-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    expect(client.getInstructions()).toContain(`gg serves ${ws.root}:`);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("read_file");
    const read = await client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    expect(read).toMatchObject({ content: [{ type: "text", text: "hello\n" }] });
  } finally {
    await client.close();
  }
});
