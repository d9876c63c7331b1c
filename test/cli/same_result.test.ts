// A tool result is the same text on every route: `gg call` prints what the agent's tools arm sends the model and what
// gg mcp returns, byte for byte (gg call adds one newline for the terminal), in the seed's format.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runAgent } from "../../agent/loop.ts";
import { connectGg, resultText } from "../mcp/client.ts";
import { call, fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

const CALLS: [string, Record<string, unknown>][] = [
  ["read_file", { path: "big.txt", offset: 10, limit: 3 }],
  ["read_file", { path: "big.txt", offset: 2995 }],
  ["read_file", { path: "small.txt" }],
  ["read_file", { path: "missing.txt" }],
  ["list_dir", { path: "." }],
  ["tree", { depth: 2 }],
  ["search", { query: "line 12\\b" }],
  ["shell", { command: "printf 'out\\n'; echo err >&2; exit 3" }],
];

test("gg call, the agent's tools arm and gg mcp return byte-identical text for the same call", async () => {
  using ws = tempWorkspace();
  ws.put({ "big.txt": Array.from({ length: 3000 }, (_, i) => `line ${i + 1}\n`).join(""), "small.txt": "one\ntwo\n", "src/a.ts": "export {};\n" });
  const byCall = CALLS.map(([name, args]) => spawnSync(process.execPath, [bin, "call", name, JSON.stringify(args), "--workspace", ws.root], { encoding: "utf8" }).stdout);
  expect(byCall[0]).toBe("line 10\nline 11\nline 12\n[showing lines 10-12 of 3000; continue with offset: 13]\n");

  await using server = await fakeModel([{ tool_calls: CALLS.map(([name, args], i) => call(`c${i}`, name, args)) }, { content: "Done." }]);
  await runAgent({ provider: server.provider, model: "m", arm: "tools", task: "Look.", workspace: ws.root });
  const byAgent = server.requests[1]?.messages.filter((message) => message.role === "tool").map((message) => message.content);

  await using mcp = await connectGg(ws.root);
  const byMcp: string[] = [];
  for (const [name, args] of CALLS) byMcp.push(resultText(await mcp.call(name, args)));

  expect(byAgent).toEqual(byMcp);
  expect(byCall).toEqual(byMcp.map((text) => `${text}\n`));
});
