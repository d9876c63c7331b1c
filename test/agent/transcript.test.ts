// Replay gives every call the decision its recording holds: a run recorded with approve allowing one asked call and
// denying another replays through `gg agent --replay` with no one to ask, no rule and no hook consulted, to the same
// outcomes.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Arm } from "../../agent/prompts.ts";
import { type AgentReport, runAgent } from "../../agent/loop.ts";
import { transcriptWriter } from "../../agent/transcript.ts";
import type { ApprovalRequest } from "../../bindings/gate.ts";
import { call, fakeModel, type Step } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

const WRITES = "const out = [];\nfor (const name of ['a.txt', 'b.txt']) {\n  try { await gg.files.writeFile(name, name); out.push('ok') } catch (e) { out.push(e.code) }\n}\nreturn out;";
const REPLIES: Record<Arm, Step[]> = {
  tools: [{ tool_calls: [call("a", "write_file", { path: "a.txt", content: "a" }), call("b", "write_file", { path: "b.txt", content: "b" }), call("c", "read_file", { path: "a.txt" })] }, { content: "Done." }],
  code: [{ content: `\`\`\`ts\n${WRITES}\n\`\`\`` }, { content: "Done." }],
};

/**
 * Records a run of `arm` on a fresh workspace: writes ask (rule 1), a hook that logs each call it sees to `hookLog`
 * and allows; approve allows a.txt and denies b.txt. Returns the transcript's path and the report.
 */
async function record(arm: Arm, hookLog: string): Promise<{ file: string; report: AgentReport; asked: ApprovalRequest[] }> {
  using ws = tempWorkspace();
  await using server = await fakeModel(REPLIES[arm]);
  const config = { approvals: [{ call: "write_file", verdict: "ask", reason: "writes need a person" }], approvalHook: { command: `cat >> '${hookLog}'; echo; echo '{"verdict": "allow"}'` } };
  const file = join(ws.root, "..", `transcript-${process.pid}-${arm}-${Date.now()}.jsonl`);
  const task = "Write a.txt and b.txt.";
  const transcript = transcriptWriter(file, { model: "m", arm, task, config });
  const asked: ApprovalRequest[] = [];
  const report = await runAgent({
    provider: server.provider,
    model: "m",
    arm,
    task,
    workspace: ws.root,
    config,
    onRecord: transcript.onRecord,
    approve: async (request) => {
      asked.push(request);
      return (request.args as { path: string }).path === "a.txt" ? { verdict: "allow" } : { verdict: "deny", reason: "not b" };
    },
  });
  transcript.end(report);
  return { file, report, asked };
}

/** What each call's approval was, nested calls of a program included. */
const approvals = (report: AgentReport) => report.calls.map((outcome) => outcome.approval ?? outcome.calls?.map((nested) => nested.approval));
const hookCalls = (log: string): number => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((line) => line.startsWith("{")).length : 0);

describe("gg agent --replay", () => {
  for (const arm of ["tools", "code"] as const) {
    test(`${arm} arm: the recorded decisions are replayed without asking, a rule or the hook: the allow runs, the deny is denied again with its reason`, async () => {
      using logs = tempWorkspace();
      const hookLog = join(logs.root, "hook.jsonl");
      const recorded = await record(arm, hookLog);
      expect(recorded.asked.map((request) => (request.args as { path: string }).path)).toEqual(["a.txt", "b.txt"]);
      const denied = { verdict: "deny", by: "person", reason: "not b", waitedMs: expect.any(Number) };
      const allowed = { verdict: "allow", by: "person", waitedMs: expect.any(Number) };
      expect(approvals(recorded.report)).toEqual(arm === "tools" ? [allowed, denied, { verdict: "allow", by: "hook" }] : [[allowed, denied]]);
      const seen = hookCalls(hookLog);
      expect(seen).toBe(arm === "tools" ? 3 : 2);

      using again = tempWorkspace();
      const replay = spawnSync(process.execPath, [bin, "agent", "--replay", recorded.file, "--workspace", again.root, "--json"], { encoding: "utf8" });
      rmSync(recorded.file);
      expect(replay).toMatchObject({ status: 0, stderr: "" });
      const { matches, report } = JSON.parse(replay.stdout) as { matches: boolean; report: AgentReport };
      expect(matches).toBe(true);
      // The same decisions, as recorded (who decided, the reason, the wait), and the hook was not run again.
      expect(approvals(report)).toEqual(approvals(recorded.report));
      expect(hookCalls(hookLog)).toBe(seen);
      expect(readFileSync(join(again.root, "a.txt"), "utf8")).toBe(arm === "tools" ? "a" : "a.txt");
      expect(existsSync(join(again.root, "b.txt"))).toBe(false);
      if (arm === "tools") expect(report.calls[1]).toMatchObject({ ok: false, code: "denied" });
      else expect(report.calls[0]?.calls?.[1]).toMatchObject({ ok: false, code: "denied" });
    });
  }
});
