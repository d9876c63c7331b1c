// A replay takes every answer its recording holds, whoever gave it: a run's standing answer (--approve allow), a
// person at a terminal, an MCP client through elicitation, the approval hook. Each is recorded by the route that
// gives it, then replayed by `gg agent --replay` with no terminal and no --approve, where no one could answer again.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { runAgent } from "../../agent/loop.ts";
import { transcriptWriter } from "../../agent/transcript.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { elicitingApprove } from "../../mcp/elicit.ts";
import { finished } from "../processes.ts";
import { call, fakeModel } from "../provider.ts";
import { type TempWorkspace, tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg");
const TASK = "Write a.txt.";
const ASKS = { approvals: [{ call: "write_file", verdict: "ask", reason: "writes need a person" }] };
const ALLOWS_BY_HOOK = { approvalHook: { command: `cat > /dev/null; echo '{"verdict": "allow"}'` } };
const script = () => [{ tool_calls: [call("a", "write_file", { path: "a.txt", content: "recorded" })] }, { content: "Done." }];
const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/** `gg agent` recording a run to `file` in `ws` against a fresh fake model, with the extra arguments given. */
async function recordByCommand(ws: TempWorkspace, file: string, config: object, extra: string[], atTerminal: boolean): Promise<void> {
  await using server = await fakeModel(script());
  ws.put({ "gg.json": JSON.stringify(config) });
  const args = ["agent", "--model", "m", "--arm", "tools", "--task", TASK, "--base-url", server.baseURL, "--workspace", ws.root, "--config", join(ws.root, "gg.json"), "--transcript", file, ...extra];
  const done = atTerminal ? await finished("script", ["-qec", [bin, ...args].map(quote).join(" "), "/dev/null"], "y\n") : await finished(bin, args);
  expect(done.status, done.stdout + done.stderr).toBe(0);
}

/** A run recorded in-process whose asks go to a real MCP client over elicitation, which allows each. */
async function recordByClient(ws: TempWorkspace, file: string): Promise<void> {
  await using model = await fakeModel(script());
  const server = new Server({ name: "gg", version: "0" }, { capabilities: {} });
  const client = new Client({ name: "asker", version: "0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { decision: "allow" } }));
  const [near, far] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(near), client.connect(far)]);
  const config = parseConfiguration(ASKS);
  const transcript = transcriptWriter(file, { model: "m", arm: "tools", task: TASK, config: ASKS });
  const report = await runAgent({ provider: model.provider, model: "m", arm: "tools", task: TASK, workspace: ws.root, config: ASKS, onRecord: transcript.onRecord, approve: elicitingApprove(server, config) });
  transcript.end(report);
  await client.close();
}

const KINDS = {
  standing: (ws: TempWorkspace, file: string) => recordByCommand(ws, file, ASKS, ["--approve", "allow"], false),
  person: (ws: TempWorkspace, file: string) => recordByCommand(ws, file, ASKS, [], true),
  client: recordByClient,
  hook: (ws: TempWorkspace, file: string) => recordByCommand(ws, file, ALLOWS_BY_HOOK, [], false),
};

describe("gg agent --replay takes the recorded answer", () => {
  for (const [by, record] of Object.entries(KINDS)) {
    test(`of ${by}: the write allowed then runs again, with no one to ask`, async () => {
      using ws = tempWorkspace();
      using again = tempWorkspace();
      const file = ws.outside(`${ws.root.split("/").pop()}-${by}.jsonl`);
      await record(ws, file);
      const recorded = readFileSync(file, "utf8");
      expect(recorded).toContain(`"approval":{"verdict":"allow","by":"${by}"`);
      const replay = await finished(bin, ["agent", "--replay", file, "--workspace", again.root, "--json"]);
      expect(replay.status, replay.stdout + replay.stderr).toBe(0);
      const { matches, report } = JSON.parse(replay.stdout) as { matches: boolean; report: { calls: { ok: boolean; approval?: { verdict: string; by: string } }[] } };
      expect(matches).toBe(true);
      expect(report.calls[0]).toMatchObject({ ok: true, approval: { verdict: "allow", by } });
      expect(readFileSync(join(again.root, "a.txt"), "utf8")).toBe("recorded");
    });
  }
});
