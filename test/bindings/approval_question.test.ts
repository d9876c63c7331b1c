// The question a person is asked about a call: what asked, the parts of a command line that asked, and the line
// itself, whole or as its head and tail with what was left out counted; nothing in it can move the cursor or reorder
// what follows.
import { describe, expect, test } from "vitest";
import { questionOf } from "../../bindings/approval_question.ts";
import type { ApprovalRequest } from "../../bindings/approval_match.ts";

const request = (call: string, args: unknown, asking?: ApprovalRequest["asking"]): ApprovalRequest => ({ agent: "dev", call, args, arm: "tools", from: "tool", runId: "r", seq: 0, workspace: "/ws", ...(asking ? { asking } : {}) });

describe("questionOf", () => {
  test("shows a shell call's command line as text, newlines kept, and each part that asked", () => {
    const question = questionOf(request("shell", { command: "cat a\nrm -rf x", timeoutSecs: 5 }, { by: "default", part: "rm -rf x", parts: ["rm -rf x", "sh"] }));
    expect(question).toEqual({ why: 'approvalDefault ("ask" for calls with effects)', parts: ["rm -rf x", "sh"], label: "command line", shown: 'cat a\nrm -rf x\n(and {"timeoutSecs":5})', length: 38 });
  });

  test("escapes controls and bidirectional characters wherever they are: the line, a part, the reason", () => {
    const line = "echo safe # \u202e; rm -rf x\r\u001b[2K\u200b";
    const question = questionOf(request("shell", { command: line }, { by: "rule 1", reason: "asked \u2066x", part: "rm -rf x\u202e" }));
    expect(question.shown).toBe("echo safe # \\u202e; rm -rf x\\u000d\\u001b[2K\\u200b");
    expect(question.parts).toEqual(["rm -rf x\\u202e"]);
    expect(question.why).toBe("rule 1 (asked \\u2066x)");
    expect(JSON.stringify(question)).not.toMatch(/[\u202e\u2066\u200b\r\u001b]/);
  });

  test("a long line keeps its head and its tail, counting what was left out; the part that asked is shown whole", () => {
    const line = `true # ${"x".repeat(20_000)}\ntouch pwned`;
    const question = questionOf(request("shell", { command: line }, { by: "default", part: "touch pwned" }));
    expect(question.shown).toMatch(/^true # x+\n\[… 16,019 characters left out …\]\nx+\ntouch pwned$/);
    expect([question.length, question.parts]).toEqual([line.length, ["touch pwned"]]);
  });

  test("other calls show their arguments as JSON, clipped the same way", () => {
    const question = questionOf(request("write_file", { path: "a\u202e.txt", content: "y".repeat(5000) }), 1000);
    expect(question.label).toBe("arguments");
    expect(question.shown).toMatch(/^\{\n {2}"path": "a\\u202e\.txt",\n {2}"content": "y+\n\[… 4,\d{3} characters left out …\]\ny+"\n\}$/);
  });
});
