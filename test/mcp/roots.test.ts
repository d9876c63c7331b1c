// The folder gg mcp serves: the --workspace given, else the client's first root, else the folder it started in; named
// in the server's instructions and on stderr. Real `gg mcp` processes, spawned as clients spawn them, from elsewhere.
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/** A client of `gg mcp ARGS` started in `cwd`, offering `roots` when given; its stderr kept; closed when the scope ends. */
async function connect(cwd: string, args: string[], roots?: string[]) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", ...args], cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "gg-test", version: "0.0.0" }, { capabilities: roots === undefined ? {} : { roots: {} } });
  if (roots !== undefined) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri, index) => ({ uri, name: `root ${index}` })) }));
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    /** The folder shell commands run in, as pwd prints it. */
    pwd: async () => ((await client.callTool({ name: "shell", arguments: { command: "pwd" } })) as CallToolResult).content.map((block) => (block.type === "text" ? block.text : "")).join(""),
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

describe("the folder gg mcp serves", () => {
  test("without --workspace, the client's first root that is a folder, said on stderr; the instructions give the rule and the fallback", async () => {
    using started = tempWorkspace();
    using root = tempWorkspace();
    const cwd = realpathSync(started.root);
    await using mcp = await connect(cwd, [], [pathToFileURL(join(root.root, "missing")).href, pathToFileURL(root.root).href]);
    expect(mcp.client.getInstructions()).toContain(`gg serves the client's first root (the first folder it lists in roots/list), or ${cwd} when it lists none:`);
    expect(await mcp.pwd()).toContain(`${root.root}\n`);
    expect(mcp.stderr()).toBe(`gg mcp: serving ${root.root} (the client's first root that is a folder (not ${pathToFileURL(join(root.root, "missing")).href}))\n`);
  });

  test("a client that offers no roots gets the folder gg mcp started in, and is told so on stderr", async () => {
    using started = tempWorkspace();
    const cwd = realpathSync(started.root);
    await using mcp = await connect(cwd, []);
    expect(await mcp.pwd()).toContain(`${cwd}\n`);
    expect(mcp.stderr()).toBe(`gg mcp: serving ${cwd} (the folder gg mcp started in: the client offers no roots)\n`);
  });

  test("a client whose roots are empty gets the folder gg mcp started in", async () => {
    using started = tempWorkspace();
    const cwd = realpathSync(started.root);
    await using mcp = await connect(cwd, [], []);
    expect(await mcp.pwd()).toContain(`${cwd}\n`);
    expect(mcp.stderr()).toBe(`gg mcp: serving ${cwd} (the folder gg mcp started in: the client lists no roots)\n`);
  });

  test("--workspace is served whatever roots the client offers, and the instructions name it", async () => {
    using started = tempWorkspace();
    using given = tempWorkspace();
    using root = tempWorkspace();
    await using mcp = await connect(started.root, ["--workspace", given.root], [pathToFileURL(root.root).href]);
    expect(mcp.client.getInstructions()).toMatch(new RegExp(`^gg serves ${given.root}: relative paths resolve against it and shell commands run in it\\.`));
    expect(await mcp.pwd()).toContain(`${given.root}\n`);
    expect(mcp.stderr()).toBe(`gg mcp: serving ${given.root} (the workspace given)\n`);
  });

  test("a --workspace that is not a folder is refused at start, in one line, with nothing on the protocol's stdout", () => {
    using started = tempWorkspace();
    const run = spawnSync(process.execPath, [bin, "mcp", "--workspace", "missing"], { cwd: started.root, encoding: "utf8", input: "" });
    expect(run).toMatchObject({ status: 2, stdout: "", stderr: `gg: Cannot use workspace ${join(started.root, "missing")}: it is not an existing directory\n` });
  });

  test("gg mcp --help names the folder it would serve without --workspace", () => {
    using started = tempWorkspace();
    const help = spawnSync(process.execPath, [bin, "mcp", "--help"], { cwd: started.root, encoding: "utf8" });
    expect(help.stdout.replace(/\s+/g, " ")).toContain(`(default: the client's first root when the client lists roots, else the current directory, ${started.root})`);
  });
});
