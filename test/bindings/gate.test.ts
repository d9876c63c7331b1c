import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ApprovalRequest } from "../../bindings/gate.ts";
import { createTools } from "../../bindings/index.ts";
import { tempWorkspace } from "../workspace.ts";

describe("approvals of tool calls", () => {
  test("every result carries its approval, allowed-by-default included", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "a" });
    const tools = createTools({ workspace: ws.root });
    expect((await tools.call("read_file", { path: "a.txt" })).approval).toEqual({ verdict: "allow", by: "default" });
  });

  test("a denied tool call is error[denied] naming the rule's reason, and nothing of it runs", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: ws.root, config: { approvals: [{ call: "*", when: { path: "src/**" }, verdict: "deny", reason: "src is frozen" }] } });
    const result = await tools.call("write_file", { path: `${ws.root}/src/a.ts`, content: "x" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("denied");
    expect(result.error.message).toMatch(/^Cannot run write_file: denied by rule 1: src is frozen; nothing of it ran; .*change the rule$/);
    expect(result.approval).toEqual({ verdict: "deny", by: "rule 1", reason: "src is frozen" });
    expect(existsSync(join(ws.root, "src/a.ts"))).toBe(false);
    const shell = await tools.call("shell", { command: "touch src.txt" });
    expect(shell.ok).toBe(true);
  });

  test("an ask goes to approve, from a tool, with the tools arm", async () => {
    using ws = tempWorkspace();
    const asked: ApprovalRequest[] = [];
    const tools = createTools({
      workspace: ws.root,
      agent: "dev",
      runId: "run-1",
      config: { approvals: [{ call: "shell", when: { command: "rm *" }, verdict: "ask" }] },
      approve: async (request) => {
        asked.push(request);
        return { verdict: "deny", reason: "keep it" };
      },
    });
    ws.put({ "keep.txt": "k" });
    await tools.call("shell", { command: "echo fine" });
    const result = await tools.call("shell", { command: "rm keep.txt" });
    expect(result.ok ? "" : result.error.message).toContain("denied by person: keep it");
    expect(readFileSync(join(ws.root, "keep.txt"), "utf8")).toBe("k");
    expect(asked).toEqual([{ agent: "dev", call: "shell", args: { command: "rm keep.txt" }, arm: "tools", from: "tool", runId: "run-1", seq: 1, workspace: ws.root, asking: { by: "rule 1", part: "rm keep.txt" } }]);
  });

  test("a hook with a real sh script sees tool calls on stdin; its deny stands", async () => {
    using ws = tempWorkspace();
    ws.put({ "hook.sh": 'read -r request; case "$request" in *\'"call":"write_file"\'*) echo \'{"verdict":"deny","reason":"read-only today"}\';; *) echo \'{"verdict":"allow"}\';; esac' });
    const tools = createTools({ workspace: ws.root, config: { approvalHook: { command: "sh hook.sh", timeoutSecs: 10 } } });
    const listed = await tools.call("list_dir", { path: "." });
    expect(listed.approval).toEqual({ verdict: "allow", by: "hook" });
    const written = await tools.call("write_file", { path: "b.txt", content: "b" });
    expect(written.ok ? "" : `${written.error.code}: ${written.error.message}`).toContain("denied: Cannot run write_file: denied by hook: read-only today");
    expect(existsSync(join(ws.root, "b.txt"))).toBe(false);
  });
});
