// gg-runtime/ai-sdk: gg as a Vercel AI SDK ToolSet. Under the tools arm, one tool per gg call (the names, descriptions
// and input schemas `gg tools` prints); under the code arm, one tool run_program. A tool's output is what gg's own loop
// gives a model, mapped to the SDK's tool output (text, error text, or text and pictures as file parts).
import type { ModelMessage, Tool, ToolSet } from "ai";
import { type GgToolsOptions, ggSession, type SessionTool, type ToolAnswer, withControls, type SessionControls } from "./session.ts";
import { peer } from "./peer.ts";

export type { GgToolsOptions, SessionControls, ToolAnswer } from "./session.ts";
export type { Question } from "../bindings/approval_question.ts";

const ai = await peer("ai", "gg-runtime/ai-sdk", () => import("ai"));

/** What a tool's toModelOutput returns (the SDK exports no name for it). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** gg's tools as an AI SDK ToolSet, with {@link SessionControls}: close() and what gg would ask a person about a call. */
export type GgToolSet = ToolSet & SessionControls;

/**
 * The tools of `options.arm` as an AI SDK ToolSet, for generateText, streamText or an Agent. A call gg would ask about
 * goes to `options.approve`, or, without one, to the SDK's tool approval (a tool-approval-request; once approved, the
 * call runs as approved by the application).
 */
export function ggTools(options: GgToolsOptions): GgToolSet {
  const session = ggSession(options);
  const set: Record<string, Tool<unknown, ToolAnswer>> = {};
  for (const tool of session.tools) set[tool.name] = sdkTool(tool, options.approve === undefined);
  return withControls(set, session);
}

/** One gg tool as the SDK's. */
function sdkTool(tool: SessionTool, asksThroughSdk: boolean): Tool<unknown, ToolAnswer> {
  const definition = ai.tool<unknown, ToolAnswer, Record<string, unknown>>({
    description: tool.description(),
    // No validation on the SDK's side: gg checks the arguments and answers a bad call in its own words.
    inputSchema: ai.jsonSchema<unknown>(tool.parameters as Parameters<typeof ai.jsonSchema>[0]),
    ...(asksThroughSdk ? { needsApproval: (input: unknown, { toolCallId }: { toolCallId: string }) => tool.needsApproval(input, toolCallId) } : {}),
    execute: (input, { toolCallId, messages, abortSignal }) => tool.run(input, { signal: abortSignal, callId: toolCallId, approved: asksThroughSdk && approvedIn(messages, toolCallId) }),
    toModelOutput: ({ output }) => modelOutput(output),
  });
  // run_program's description names the MCP servers once they are listed.
  Object.defineProperty(definition, "description", { get: tool.description, enumerable: true });
  return definition;
}

/** Whether the SDK's tool approval approved call `toolCallId`: a tool-approval-response in `messages` says so. */
function approvedIn(messages: readonly ModelMessage[], toolCallId: string): boolean {
  const requests = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) requests.add(part.approvalId);
  }
  return messages.some((message) => message.role === "tool" && message.content.some((part) => part.type === "tool-approval-response" && part.approved && requests.has(part.approvalId)));
}

/** A gg answer as the SDK's tool output: its text (an error's as error text), or its text and pictures as content. */
function modelOutput(answer: ToolAnswer): ToolResultOutput {
  if (answer.content.every((part) => part.type === "text")) {
    const value = answer.content.map((part) => (part.type === "text" ? part.text : "")).join("\n\n");
    return answer.ok ? { type: "text", value } : { type: "error-text", value };
  }
  return {
    type: "content",
    value: answer.content.map((part) =>
      part.type === "text" ? { type: "text", text: part.text } : { type: "file", mediaType: part.mime, data: { type: "data", data: part.dataUrl.slice(part.dataUrl.indexOf(",") + 1) } },
    ),
  };
}
