import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ApprovalRequest } from "../../bindings/gate.ts";
import { createRuntime } from "../../runtime/index.ts";
import { engineWorkspace } from "./engine.ts";
import { tempWorkspace } from "../workspace.ts";

const FIVE_WRITES = `
const outcomes = [];
for (let i = 1; i <= 5; i++) {
  try {
    await gg.files.writeFile(\`out/\${i}.txt\`, String(i));
    outcomes.push("ok");
  } catch (error) {
    outcomes.push(error.code);
  }
}
return outcomes;`;

describe("approvals of a program's calls", () => {
  test("a program whose 3rd of 5 writes is denied sees denied on that call alone; the other 4 land; the report lists all 5", async () => {
    using ws = engineWorkspace({ config: { approvals: [{ call: "write_file", when: { path: "out/3.txt" }, verdict: "deny", reason: "3 is reserved" }] } });
    const report = await ws.run(FIVE_WRITES);
    expect(report.result).toEqual(["ok", "ok", "denied", "ok", "ok"]);
    for (const i of [1, 2, 4, 5]) expect(readFileSync(join(ws.root, `out/${i}.txt`), "utf8")).toBe(String(i));
    expect(existsSync(join(ws.root, "out/3.txt"))).toBe(false);
    expect(report.calls.map((call) => [call.name, call.ok, call.code, call.approval?.verdict, call.approval?.by])).toEqual([
      ["files.writeFile", true, undefined, "allow", "default"],
      ["files.writeFile", true, undefined, "allow", "default"],
      ["files.writeFile", false, "denied", "deny", "rule 1"],
      ["files.writeFile", true, undefined, "allow", "default"],
      ["files.writeFile", true, undefined, "allow", "default"],
    ]);
  });

  test("a denied call the program does not catch ends the run with denied, naming the rule's reason and who decided", async () => {
    using ws = engineWorkspace({ config: { approvals: [{ call: "shell", when: { command: "git push*" }, verdict: "deny", reason: "pushing is for people" }] } });
    const report = await ws.run("await gg.shell.shell('git push origin feat/x'); return 1");
    expect(report.error?.code).toBe("denied");
    expect(report.error?.message).toContain("denied by rule 1: pushing is for people");
    expect(report.calls[0]?.approval).toEqual({ verdict: "deny", by: "rule 1", reason: "pushing is for people", part: "git push origin feat/x" });
  });

  test("an ask with no one to ask is a deny saying so", async () => {
    using ws = engineWorkspace({ config: { approvalDefault: "ask" } });
    const report = await ws.run("try { await gg.files.writeFile('a.txt', 'x') } catch (e) { return [e.code, e.message] }");
    expect(report.result).toEqual(["denied", expect.stringContaining("no one could be asked")]);
    expect(existsSync(join(ws.root, "a.txt"))).toBe(false);
  });

  test("an ask goes to approve with what the hook receives; its allow runs the call, its deny refuses it", async () => {
    const asked: ApprovalRequest[] = [];
    using ws = engineWorkspace({
      config: { approvals: [{ call: "write_file", verdict: "ask" }] },
      approve: async (request) => {
        asked.push(request);
        return (request.args as { path: string }).path === "yes.txt" ? { verdict: "allow" } : { verdict: "deny", reason: "not that one" };
      },
    });
    const report = await ws.run("const r = []; for (const p of ['yes.txt', 'no.txt']) { try { await gg.files.writeFile(p, 'x'); r.push('ok') } catch (e) { r.push(e.message) } } return r");
    expect(report.result).toEqual(["ok", expect.stringContaining("denied by person: not that one")]);
    expect(existsSync(join(ws.root, "yes.txt"))).toBe(true);
    expect(existsSync(join(ws.root, "no.txt"))).toBe(false);
    expect(asked[0]).toMatchObject({ agent: "enginetest", call: "write_file", args: { path: "yes.txt", content: "x" }, arm: "code", from: "program", seq: 0, workspace: ws.root });
    expect(asked[1]?.seq).toBe(1);
    expect(report.calls.map((call) => call.approval?.by)).toEqual(["person", "person"]);
    expect(typeof report.calls[0]?.approval?.waitedMs).toBe("number");
  });

  test("a read_file rule binds gg.views.openFile too", async () => {
    using ws = engineWorkspace({ config: { approvals: [{ call: "read_file", when: { path: "secret/**" }, verdict: "deny" }] } });
    ws.put({ "secret/key": "k" });
    const report = await ws.run("try { await gg.views.openFile('secret/key'); return 'opened' } catch (e) { return e.code }");
    expect(report.result).toBe("denied");
  });
});

describe("the approval hook", () => {
  test("a script hook sees every call, read-only ones included, as one JSON object on stdin, and its verdict stands", async () => {
    using ws = engineWorkspace({ config: { approvalHook: { command: "sh ./hook.sh" } } });
    ws.put({
      "hook.sh": [
        "read -r request",
        'printf "%s\\n" "$request" >> requests.jsonl',
        'case "$request" in',
        '  *\'"call":"shell"\'*) echo \'{"verdict": "deny", "reason": "no commands today"}\' ;;',
        '  *) echo \'{"verdict": "allow"}\' ;;',
        "esac",
      ].join("\n"),
      "a.txt": "hello",
    });
    const report = await ws.run("const text = await gg.files.readFile('a.txt'); try { await gg.shell.shell('echo hi') } catch (e) { return [text, e.code, e.message] }");
    expect(report.result).toEqual(["hello", "denied", expect.stringContaining("denied by hook: no commands today")]);
    const requests = readFileSync(join(ws.root, "requests.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as ApprovalRequest);
    expect(requests.map((request) => [request.call, request.from, request.arm, request.seq])).toEqual([["read_file", "program", "code", 0], ["shell", "program", "code", 1]]);
    expect(requests[1]).toMatchObject({ agent: "enginetest", args: { command: "echo hi" }, workspace: ws.root });
    expect(typeof requests[0]?.runId).toBe("string");
    expect(report.calls.map((call) => call.approval?.by)).toEqual(["hook", "hook"]);
  });

  test.each([
    ["exits non-zero", "echo '{\"verdict\": \"allow\"}'; exit 3", "exited with status 3"],
    ["prints something else", "echo yes", 'printed "yes\\n", not one JSON verdict'],
    ["prints a verdict gg does not know", "echo '{\"verdict\": \"sure\"}'", 'verdict "sure"'],
    ["prints nothing", "true", "printed nothing"],
    ["does not answer in time", "sleep 5", "did not answer within its 0.5 s timeout"],
  ])("a hook that %s denies the call, saying so", async (_what, script, said) => {
    using ws = engineWorkspace({ config: { approvalHook: { command: "sh ./hook.sh", timeoutSecs: 0.5 } } });
    ws.put({ "hook.sh": script });
    const report = await ws.run("try { await gg.files.writeFile('a.txt', 'x'); return 'written' } catch (e) { return e.message }");
    expect(report.result).toContain(said);
    expect(report.result).toContain("denied by hook");
    expect(existsSync(join(ws.root, "a.txt"))).toBe(false);
  });

  test("a hook's ask is put to approve; the rules' deny stands over a hook's allow", async () => {
    using ws = engineWorkspace({
      config: { approvalHook: { command: "sh ./hook.sh" }, approvals: [{ call: "write_file", when: { path: "locked/**" }, verdict: "deny" }] },
      approve: async () => ({ verdict: "allow", reason: "fine" }),
    });
    ws.put({ "hook.sh": "cat > /dev/null; case \"$(pwd)\" in *) echo '{\"verdict\": \"ask\"}' ;; esac" });
    const report = await ws.run("const r = []; for (const p of ['a.txt', 'locked/b.txt']) { try { await gg.files.writeFile(p, 'x'); r.push('ok') } catch (e) { r.push(e.code) } } return r");
    expect(report.result).toEqual(["ok", "denied"]);
    expect(report.calls.map((call) => call.approval?.by)).toEqual(["person", "rule 1"]);
  });
});

describe("the pause", () => {
  test("a program paused 5 s on an ask, with a 3 s budget, completes once allowed", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({
      workspace: ws.root,
      config: { approvals: [{ call: "write_file", verdict: "ask" }] },
      approve: () => new Promise((resolve) => setTimeout(() => resolve({ verdict: "allow" }), 5000)),
    });
    try {
      const report = await runtime.run("await gg.files.writeFile('late.txt', 'x'); return 'done'", { budget: 3 });
      expect(report.error).toBeUndefined();
      expect(report.result).toBe("done");
      expect(readFileSync(join(ws.root, "late.txt"), "utf8")).toBe("x");
      expect(report.calls[0]?.approval?.by).toBe("person");
    } finally {
      runtime.close();
    }
  });

  test("a wait longer than approvalTimeoutSecs is a deny", async () => {
    using ws = engineWorkspace({ config: { approvalDefault: "ask", approvalTimeoutSecs: 0.2 }, approve: () => new Promise(() => {}) });
    const report = await ws.run("try { await gg.files.writeFile('a.txt', 'x') } catch (e) { return e.message }");
    expect(report.result).toContain("no answer came within 0.2 s");
  });
});


describe("recorded decisions (a replay's)", () => {
  test("a call takes the first untaken recorded approval of the same function and arguments; a call without one is decided as configured", async () => {
    using ws = engineWorkspace({ config: { approvalDefault: "ask" } });
    const recorded = [
      { name: "files.writeFile", args: '["a.txt","1"]', ok: true, ms: 1, approval: { verdict: "allow" as const, by: "person" as const, waitedMs: 40 } },
      { name: "files.writeFile", args: '["c.txt","1"]', ok: false, code: "denied", ms: 1, approval: { verdict: "deny" as const, by: "person" as const, reason: "not c" } },
    ];
    const program = "const out = []; for (const name of ['a.txt', 'a.txt', 'c.txt']) { try { await gg.files.writeFile(name, '1'); out.push('ok') } catch (e) { out.push(e.code) } } return out";
    const report = await ws.run(program, { recorded });
    expect(report.result).toEqual(["ok", "denied", "denied"]);
    expect(report.calls.map((call) => call.approval)).toEqual([
      { verdict: "allow", by: "person", waitedMs: 40 },
      { verdict: "deny", by: "default", reason: expect.stringContaining("no one could be asked") },
      { verdict: "deny", by: "person", reason: "not c" },
    ]);
  });
});
