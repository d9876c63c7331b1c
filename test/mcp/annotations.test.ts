// The MCP tool list tells clients each tool's effects, from the declarations, so they can apply their own policies.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";
import { connectGg } from "./client.ts";

async function listTools(workspace: string, ...extra: string[]) {
  await using mcp = await connectGg(workspace, ...extra);
  return Object.fromEntries((await mcp.client.listTools()).tools.map((tool) => [tool.name, tool.annotations]));
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
