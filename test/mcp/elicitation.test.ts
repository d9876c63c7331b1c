// Asks over MCP: the SDK's own Client, with and without the elicitation capability, against `gg mcp` whose
// configuration says ask. A call the client allows runs; one it declines is denied; a client that cannot be asked gets
// denies at once, never a hang.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import type { RunReport } from "../../runtime/index.ts";
import { CALL_TIMEOUT_MS } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/**
 * A client of `gg mcp` on a workspace holding `config` as gg.json; with `answer`, it declares elicitation and answers
 * each elicitation with it (the requests are kept in `asked`).
 */
async function connect(ws: ReturnType<typeof tempWorkspace>, config: object, answer?: (request: ElicitRequest["params"]) => ElicitResult) {
  ws.put({ "gg.json": JSON.stringify(config) });
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--workspace", ws.root, "--config", join(ws.root, "gg.json")], stderr: "pipe" });
  const client = new Client({ name: "gg-test", version: "0.0.0" }, answer ? { capabilities: { elicitation: {} } } : {});
  const asked: ElicitRequest["params"][] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return answer(request.params);
    });
  }
  await client.connect(transport);
  return {
    asked,
    call: (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS }) as Promise<CallToolResult>,
    [Symbol.asyncDispose]: () => client.close(),
  };
}

const text = (result: CallToolResult): string => result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
/** Allows what names a.txt or c.txt, declines the rest. */
const allowAOrC = (request: ElicitRequest["params"]): ElicitResult => (/"[ac]\.txt"/.test(request.message) ? { action: "accept", content: { decision: "allow" } } : { action: "decline" });
const ASK_WRITES = { approvals: [{ call: "write_file", verdict: "ask", reason: "writes need a person" }] };

describe("gg mcp asks its client", () => {
  test("a tool call the client allows runs, one it declines is denied by client; the elicitation names the call, its arguments and the rule", async () => {
    using ws = tempWorkspace();
    await using mcp = await connect(ws, ASK_WRITES, allowAOrC);
    expect(await mcp.call("write_file", { path: "a.txt", content: "yes\n" })).not.toHaveProperty("isError");
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("yes\n");
    const declined = await mcp.call("write_file", { path: "b.txt", content: "no\n" });
    expect(declined).toMatchObject({ isError: true, structuredContent: { code: "denied" } });
    expect(text(declined)).toMatch(/^error\[denied\]: Cannot run write_file: denied by client: the client's user declined it; nothing of it ran/);
    expect(existsSync(join(ws.root, "b.txt"))).toBe(false);
    // Reads are not asked about.
    expect(await mcp.call("read_file", { path: "a.txt" })).not.toHaveProperty("isError");
    expect(mcp.asked).toHaveLength(2);
    const [first] = mcp.asked;
    expect(first?.message).toContain("gg asks to run write_file (a tool call)");
    expect(first?.message).toContain('"path": "a.txt"');
    expect(first?.message).toContain("Why you are asked: rule 1 (writes need a person).");
    expect(first).toMatchObject({ mode: "form", requestedSchema: { type: "object", properties: { decision: { enum: ["allow", "deny"] } }, required: ["decision"] } });
  });

  test("a program's calls are asked about too: an accepted deny carries its reason, and the report records by client", async () => {
    using ws = tempWorkspace();
    await using mcp = await connect(ws, { approvalDefault: "ask" }, (request) =>
      /"d\.txt"/.test(request.message) ? { action: "accept", content: { decision: "deny", reason: "not d" } } : allowAOrC(request),
    );
    const program = "const out = []; for (const name of ['c.txt', 'd.txt']) { try { await gg.files.writeFile(name, name); out.push('ok') } catch (e) { out.push(e.code) } } return out";
    const result = await mcp.call("run_program", { source: program });
    const report = result.structuredContent as unknown as RunReport;
    expect(report.result).toEqual(["ok", "denied"]);
    expect(report.calls.map((call) => call.approval)).toEqual([
      { verdict: "allow", by: "client", waitedMs: expect.any(Number) },
      { verdict: "deny", by: "client", reason: "the client's user denied it: not d", waitedMs: expect.any(Number) },
    ]);
    expect(readFileSync(join(ws.root, "c.txt"), "utf8")).toBe("c.txt");
    expect(existsSync(join(ws.root, "d.txt"))).toBe(false);
    expect(mcp.asked[0]?.message).toContain("gg asks to run write_file (a program's call #1)");
    expect(mcp.asked[0]?.message).toContain('Why you are asked: approvalDefault ("ask" for calls with effects).');
  });

  test("a shell line hiding a command behind a long comment and U+202E: the message names the part, keeps head and tail, escapes", async () => {
    using ws = tempWorkspace();
    await using mcp = await connect(ws, { approvalDefault: "ask", approvals: [{ call: "shell", when: { command: "true*" }, verdict: "allow" }] }, () => ({ action: "decline" }));
    const command = `true # \u202e${"x".repeat(10_000)}\ntouch pwned`;
    expect(await mcp.call("shell", { command })).toMatchObject({ isError: true, structuredContent: { code: "denied" } });
    const message = mcp.asked[0]?.message ?? "";
    expect(message).toContain("its command line (10,020 characters):\ntrue # \\u202exxx");
    expect(message).toMatch(/\n\[… 6,020 characters left out …\]\nx+\ntouch pwned\nIt asks about: touch pwned\nWhy you are asked: approvalDefault/);
    expect(message).not.toContain("\u202e");
    expect(existsSync(join(ws.root, "pwned"))).toBe(false);
  });

  test("a client without the elicitation capability gets denies saying it cannot be asked, for tool calls and programs alike", async () => {
    using ws = tempWorkspace();
    await using mcp = await connect(ws, ASK_WRITES);
    const denied = await mcp.call("write_file", { path: "a.txt", content: "x" });
    expect(text(denied)).toContain("denied by client: this MCP client cannot be asked (it did not declare the elicitation capability), and rule 1 (writes need a person) asks; use a client that supports elicitation, or change the approvals; nothing of it ran");
    const result = await mcp.call("run_program", { source: "await gg.files.writeFile('b.txt', 'x')" });
    expect(result).toMatchObject({ isError: true, structuredContent: { error: { code: "denied", message: expect.stringContaining("cannot be asked") } } });
    expect(existsSync(join(ws.root, "a.txt")) || existsSync(join(ws.root, "b.txt"))).toBe(false);
  });
});
