// gg-runtime/ai-sdk end to end: the AI SDK's own generateText loop, through @ai-sdk/openai-compatible, against the
// fake chat-completions provider on 127.0.0.1; files, approvals, a program's state and closing, in both arms.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, isStepCount, type ModelMessage, tool } from "ai";
import { z } from "zod";
import { describe, expect, test } from "vitest";
import { ggTools } from "../../ai-sdk.ts";
import type { ApprovalRequest } from "../../bindings/approval_match.ts";
import { defaultConfiguration } from "../../bindings/config.ts";
import { toolDefinitions } from "../../bindings/index.ts";
import { memory } from "../mcp/servers.ts";
import { survivors, uniqueSleep, within } from "../processes.ts";
import { call, fakeModel } from "../provider.ts";
import { APPROVALS, PNG, toolMessages } from "./fixtures.ts";
import { tempWorkspace } from "../workspace.ts";

/** The fake provider as an AI SDK model; tool results may carry pictures, as gg's own loop sends them. */
const modelAt = (baseURL: string) => createOpenAICompatible({ name: "fake", baseURL, supportsMultiPartToolContent: true }).chatModel("m");

describe("gg-runtime/ai-sdk", () => {
  test("tools arm: one tool per gg call as gg tools prints them; the model's calls change files, a failure is gg's error text, a picture travels as image content", async () => {
    using ws = tempWorkspace();
    ws.put({ "notes.txt": "draft\n", "dot.png": PNG });
    await using server = await fakeModel([
      { tool_calls: [call("a", "edit_file", { path: "notes.txt", old: "draft", new: "final" }), call("b", "read_file", { path: "dot.png" })] },
      { tool_calls: [call("c", "read_file", { path: "missing.txt" })] },
      { content: "Done." },
    ]);
    await using tools = ggTools({ workspace: ws.root, arm: "tools" });
    const result = await generateText({ model: modelAt(server.baseURL), tools, stopWhen: isStepCount(5), prompt: "Finalise the notes." });
    expect(result.text).toBe("Done.");
    expect(readFileSync(join(ws.root, "notes.txt"), "utf8")).toBe("final\n");
    const sent = (server.requests[0]?.tools ?? []) as { function: { name: string; description: string; parameters: object } }[];
    expect(sent.map((tool) => ({ name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters }))).toEqual(toolDefinitions(defaultConfiguration()));
    const second = toolMessages(server.requests[1]?.messages);
    expect(second.a).toMatch(/notes\.txt/);
    expect(second.b).toEqual(expect.arrayContaining([expect.objectContaining({ type: "image_url", image_url: expect.objectContaining({ url: `data:image/png;base64,${PNG.toString("base64")}` }) })]));
    expect(toolMessages(server.requests[2]?.messages).c).toMatch(/^error\[not-found\]: /);
    expect(result.steps.flatMap((step) => step.toolResults.map((part) => (part.output as { ok: boolean }).ok))).toEqual([true, true, false]);
  });

  test("tools arm: a denied call reaches the model as gg's refusal; an ask goes to approve, or without it to the SDK's tool approval, and runs once approved", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      { tool_calls: [call("a", "write_file", { path: "secret/key", content: "x" }), call("b", "shell", { command: "echo one > one.txt" })] },
      { content: "Asked." },
      { tool_calls: [call("c", "shell", { command: "echo two > two.txt" })] },
      { content: "Ran it." },
    ]);
    const asked: ApprovalRequest[] = [];
    const approve = async (request: ApprovalRequest) => (asked.push(request), { verdict: "allow" as const });
    await using withApprove = ggTools({ workspace: ws.root, arm: "tools", config: APPROVALS, approve });
    await generateText({ model: modelAt(server.baseURL), tools: withApprove, stopWhen: isStepCount(3), prompt: "Go." });
    const answers = toolMessages(server.requests[1]?.messages);
    expect(answers.a).toMatch(/^error\[denied\]: Cannot run write_file: denied by rule 1/);
    expect(existsSync(join(ws.root, "secret"))).toBe(false);
    expect(asked).toMatchObject([{ call: "shell", from: "tool", args: { command: "echo one > one.txt" }, asking: { by: "rule 2", reason: "commands need a person" } }]);
    expect(readFileSync(join(ws.root, "one.txt"), "utf8")).toBe("one\n");

    // Without approve, the SDK asks: its tool-approval-request, then the application's answer in the messages.
    await using tools = ggTools({ workspace: ws.root, arm: "tools", config: APPROVALS });
    const messages: ModelMessage[] = [{ role: "user", content: "Go on." }];
    const first = await generateText({ model: modelAt(server.baseURL), tools, stopWhen: isStepCount(3), messages });
    const request = first.content.find((part) => part.type === "tool-approval-request");
    expect(request).toMatchObject({ toolCall: { toolName: "shell", input: { command: "echo two > two.txt" } } });
    // What the application shows the person: gg's question, as a terminal shows it; none for a call gg would not ask about.
    const { toolName, input } = (request as { toolCall: { toolName: string; input: unknown } }).toolCall;
    expect(await tools.question(toolName, input)).toEqual({ why: "rule 2 (commands need a person)", parts: ["echo two"], label: "command line", shown: "echo two > two.txt", length: 18 });
    expect(await tools.question("shell", { command: "echo \u202etxt.exe > x" })).toMatchObject({ shown: "echo \\u202etxt.exe > x" });
    expect(await tools.question("read_file", { path: "a.txt" })).toBeUndefined();
    expect(await tools.question("write_file", { path: "secret/key", content: "x" })).toBeUndefined();
    expect(await tools.question("no_such_tool", {})).toBeUndefined();
    expect(existsSync(join(ws.root, "two.txt"))).toBe(false);
    messages.push(...first.responseMessages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: (request as { approvalId: string }).approvalId, approved: true }] });
    const second = await generateText({ model: modelAt(server.baseURL), tools, stopWhen: isStepCount(3), messages });
    expect(second.text).toBe("Ran it.");
    expect(readFileSync(join(ws.root, "two.txt"), "utf8")).toBe("two\n");
    expect(server.requests).toHaveLength(4);
  });

  test("code arm: one run_program tool carrying the code prompt; a program's declarations and views persist to the next call", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      { tool_calls: [call("a", "run_program", { source: 'const count = 41;\nawait gg.files.writeFile("a.txt", "made\\n");\nawait gg.views.openFile("a.txt");\nreturn count;' })] },
      { tool_calls: [call("b", "run_program", { source: "return count + 1;" })] },
      { content: "Done." },
    ]);
    await using tools = ggTools({ workspace: ws.root, arm: "code" });
    expect(Object.keys(tools)).toEqual(["run_program"]);
    const result = await generateText({ model: modelAt(server.baseURL), tools, stopWhen: isStepCount(5), prompt: "Count." });
    expect(result.text).toBe("Done.");
    const description = (server.requests[0]?.tools as { function: { description: string } }[])[0]?.function.description ?? "";
    expect(description).toMatch(/^Run a program in the workspace against the gg global\./);
    expect(description).toContain("declare const gg: {");
    expect(description).toContain("Top-level declarations persist");
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("made\n");
    expect(toolMessages(server.requests[1]?.messages).a).toMatch(/^Returned:\n41\n\n\[view a\.txt, \d+ tokens\]\n/);
    expect(toolMessages(server.requests[2]?.messages).b).toBe("Returned:\n42");
  });

  test("code arm: an AI SDK ToolSet as functions and the configured MCP servers are programs' gg.app and gg.mcp, and run_program's description names them", async () => {
    using ws = tempWorkspace();
    const add = tool({ description: "Add two numbers.", inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b });
    await using server = await fakeModel([
      { tool_calls: [call("a", "run_program", { source: "return [await gg.app.add({ a: 1, b: 2 }), (await gg.mcp.memory.read_graph()).entities.length];" })] },
      { content: "Done." },
    ]);
    const config = { mcpServers: { memory: memory(join(ws.root, "memory.json")) } };
    await using tools = ggTools({ workspace: ws.root, arm: "code", config, functions: { add } });
    await generateText({ model: modelAt(server.baseURL), tools, stopWhen: isStepCount(3), prompt: "Add." });
    expect(toolMessages(server.requests[1]?.messages).a).toBe("Returned:\n[3,0]");
    const description = (server.requests[1]?.tools as { function: { description: string } }[])[0]?.function.description ?? "";
    expect(description).toContain("add(input: {a: number; b: number}");
    expect(description).toContain("- gg.mcp.memory (9 tools)");
  });

  test("aborting the signal given ends a program's command under way, and the tools run nothing after", async () => {
    using ws = tempWorkspace();
    const sleep = uniqueSleep();
    await using server = await fakeModel([{ tool_calls: [call("a", "run_program", { source: `await gg.shell.shell("sleep ${sleep}");` })] }, { content: "Stopped." }]);
    const control = new AbortController();
    const tools = ggTools({ workspace: ws.root, arm: "code", signal: control.signal });
    const running = generateText({ model: modelAt(server.baseURL), tools, stopWhen: isStepCount(3), prompt: "Sleep." });
    expect(await within(60, () => survivors(sleep).length > 0)).toBe(true);
    control.abort();
    await tools.close();
    expect(survivors(sleep)).toEqual([]);
    expect((await running).text).toBe("Stopped.");
    expect(toolMessages(server.requests[1]?.messages).a).toMatch(/^error\[cancelled\]/);
    const after = await tools.run_program?.execute?.({ source: "return 1" }, { toolCallId: "z", messages: [], context: {} });
    expect(after).toMatchObject({ ok: false, error: { code: "unavailable" } });
  });
});
