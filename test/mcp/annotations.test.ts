// The MCP tool list tells clients each tool's effects, from the declarations, so they can apply their own policies.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

async function listTools(workspace: string, ...extra: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--workspace", workspace, ...extra], stderr: "pipe" });
  const client = new Client({ name: "gg-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    return Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool.annotations]));
  } finally {
    await client.close();
  }
}

describe("gg mcp annotations", () => {
  test("read-only calls are readOnlyHint; writes, edits, shell and run_program are destructive, shell and run_program open-world", async () => {
    using ws = tempWorkspace();
    const listed = await listTools(ws.root);
    for (const name of ["read_file", "list_dir", "tree", "search", "search_docs"]) expect(listed[name], name).toEqual({ readOnlyHint: true });
    for (const name of ["write_file", "edit_file"]) expect(listed[name], name).toEqual({ readOnlyHint: false, destructiveHint: true });
    for (const name of ["shell", "run_program"]) expect(listed[name], name).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  test("the batch calls are annotated from the same declarations", async () => {
    using ws = tempWorkspace();
    ws.put({
      "gg.json": JSON.stringify([
        { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
        { id: "edit-file", implementation: "batch" },
        { id: "list-dir", implementation: "batch" },
        { id: "search", implementation: "batch" },
      ]),
    });
    const listed = await listTools(ws.root, "--config", join(ws.root, "gg.json"));
    for (const name of ["read", "view_image", "list", "glob", "search"]) expect(listed[name], name).toEqual({ readOnlyHint: true });
    expect(listed.edit).toEqual({ readOnlyHint: false, destructiveHint: true });
  });
});
