// gg-runtime/openai-agents end to end: the Agents SDK's own run loop, with its chat-completions model on an OpenAI
// client pointed at the fake provider on 127.0.0.1; files, approvals, a program's state and closing, in both arms.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, OpenAIChatCompletionsModel, Runner } from "@openai/agents";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import type { ApprovalRequest } from "../../bindings/approval_match.ts";
import { defaultConfiguration } from "../../bindings/config.ts";
import { toolDefinitions } from "../../bindings/index.ts";
import { ggTools } from "../../openai-agents.ts";
import { survivors, uniqueSleep, within } from "../processes.ts";
import { call, fakeModel } from "../provider.ts";
import { APPROVALS, PNG, toolMessages } from "./fixtures.ts";
import { tempWorkspace } from "../workspace.ts";

/** An agent on the fake provider's chat completions, holding `tools`. */
const agentAt = (baseURL: string, tools: Agent["tools"]) =>
  new Agent({ name: "coder", instructions: "Do the task.", model: new OpenAIChatCompletionsModel(new OpenAI({ baseURL, apiKey: "none" }), "m"), tools });

/** The SDK's runner, without traces (they would be sent to OpenAI). */
const runner = new Runner({ tracingDisabled: true });

describe("gg-runtime/openai-agents", () => {
  test("tools arm: function tools with gg tools' names, descriptions and schemas; the model's calls change files, a picture stays in the tool's output", async () => {
    using ws = tempWorkspace();
    ws.put({ "dot.png": PNG });
    await using server = await fakeModel([
      { tool_calls: [call("a", "write_file", { path: "src/a.txt", content: "hello\n" }), call("b", "read_file", { path: "dot.png" }), call("c", "read_file", { path: "nope.txt" })] },
      { content: "Done." },
    ]);
    await using tools = ggTools({ workspace: ws.root, arm: "tools" });
    const result = await runner.run(agentAt(server.baseURL, tools), "Write a.txt.");
    expect(result.finalOutput).toBe("Done.");
    expect(readFileSync(join(ws.root, "src/a.txt"), "utf8")).toBe("hello\n");
    const sent = (server.requests[0]?.tools ?? []) as { function: { name: string; description: string; parameters: object } }[];
    expect(sent.map((tool) => ({ name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters }))).toEqual(toolDefinitions(defaultConfiguration()));
    const answers = toolMessages(server.requests[1]?.messages);
    expect(answers.a).toMatch(/src\/a\.txt/);
    expect(answers.c).toMatch(/^error\[not-found\]: /);
    // Chat completions carry a tool's text only; the picture is in the tool's output, as the Responses API takes it.
    const picture = result.newItems.find((item) => item.type === "tool_call_output_item" && item.rawItem.type === "function_call_result" && item.rawItem.callId === "b");
    expect(JSON.stringify(picture?.rawItem)).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
  });

  test("tools arm: a denied call is gg's refusal; a call gg would ask about interrupts the run, and runs when approved, not when rejected", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      { tool_calls: [call("a", "write_file", { path: "secret/key", content: "x" }), call("b", "shell", { command: "echo yes > yes.txt" }), call("c", "shell", { command: "echo no > no.txt" })] },
      { content: "Done." },
    ]);
    await using tools = ggTools({ workspace: ws.root, arm: "tools", config: APPROVALS });
    const agent = agentAt(server.baseURL, tools);
    const first = await runner.run(agent, "Go.");
    expect(first.interruptions.map((item) => (item.rawItem as { callId: string }).callId)).toEqual(["b", "c"]);
    expect(existsSync(join(ws.root, "yes.txt"))).toBe(false);
    const [yes, no] = first.interruptions;
    if (!yes || !no) throw new Error("two interruptions expected");
    expect(await tools.question(yes.name ?? "", JSON.parse(yes.arguments ?? "{}"))).toMatchObject({ why: "rule 2 (commands need a person)", label: "command line", shown: "echo yes > yes.txt" });
    first.state.approve(yes);
    first.state.reject(no);
    const second = await runner.run(agent, first.state);
    expect(second.finalOutput).toBe("Done.");
    expect(readFileSync(join(ws.root, "yes.txt"), "utf8")).toBe("yes\n");
    expect(existsSync(join(ws.root, "no.txt"))).toBe(false);
    expect(existsSync(join(ws.root, "secret"))).toBe(false);
    const answers = toolMessages(server.requests.at(-1)?.messages);
    expect(answers.a).toMatch(/^error\[denied\]: Cannot run write_file: denied by rule 1/);
    expect(answers.b).toBe("(no output)\n[exit code: 0]");
    expect(answers.c).toBe("Tool execution was not approved.");
  });

  test("code arm: a program's state persists across two run_program calls; its calls gg asks about go to approve", async () => {
    using ws = tempWorkspace();
    await using server = await fakeModel([
      { tool_calls: [call("a", "run_program", { source: 'const seen = await gg.shell.shell("echo hi");\nlet refused = "";\ntry { await gg.files.writeFile("secret/k", "x"); } catch (error) { refused = error.code; }\nreturn { out: seen.output.trim(), refused };' })] },
      { tool_calls: [call("b", "run_program", { source: "return seen.exitCode + 1;" })] },
      { content: "Done." },
    ]);
    const asked: ApprovalRequest[] = [];
    const approve = async (request: ApprovalRequest) => (asked.push(request), { verdict: "allow" as const });
    await using tools = ggTools({ workspace: ws.root, arm: "code", config: APPROVALS, approve });
    expect(tools.map((tool) => tool.name)).toEqual(["run_program"]);
    const result = await runner.run(agentAt(server.baseURL, tools), "Go.");
    expect(result.finalOutput).toBe("Done.");
    expect(asked).toMatchObject([{ call: "shell", from: "program", arm: "code" }]);
    expect(toolMessages(server.requests[1]?.messages).a).toBe('Returned:\n{"out":"hi","refused":"denied"}');
    expect(toolMessages(server.requests[2]?.messages).b).toBe("Returned:\n1");
  });

  test("close() ends a shell call's command under way, and the tools run nothing after", async () => {
    using ws = tempWorkspace();
    const sleep = uniqueSleep();
    await using server = await fakeModel([{ tool_calls: [call("a", "shell", { command: `sleep ${sleep}` })] }, { content: "Stopped." }]);
    const tools = ggTools({ workspace: ws.root, arm: "tools" });
    const running = runner.run(agentAt(server.baseURL, tools), "Sleep.");
    expect(await within(60, () => survivors(sleep).length > 0)).toBe(true);
    await tools.close();
    expect(survivors(sleep)).toEqual([]);
    expect((await running).finalOutput).toBe("Stopped.");
    const shell = tools.find((tool) => tool.name === "shell");
    expect(await shell?.invoke(undefined as never, JSON.stringify({ command: "echo hi > late.txt" }))).toMatch(/^error\[unavailable\]: Cannot run shell: these gg tools were closed/);
    expect(existsSync(join(ws.root, "late.txt"))).toBe(false);
  });
});
