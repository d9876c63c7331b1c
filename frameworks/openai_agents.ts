// gg-runtime/openai-agents: gg as OpenAI Agents SDK function tools for an Agent's `tools`. Under the tools arm, one
// tool per gg call (the names, descriptions and input schemas `gg tools` prints); under the code arm, one tool
// run_program. needsApproval is gg's approvals: a call gg would ask about interrupts the run, and once approved runs as
// approved by the application.
import type { FunctionTool, RunContext } from "@openai/agents";
import { type GgToolsOptions, ggSession, type SessionTool, type ToolAnswer, withControls, type SessionControls } from "./session.ts";
import { peer } from "./peer.ts";

export type { GgToolsOptions, SessionControls, ToolAnswer } from "./session.ts";
export type { Question } from "../bindings/approval_question.ts";

const agents = await peer("@openai/agents", "gg-runtime/openai-agents", () => import("@openai/agents"));

/** What a gg tool returns to the SDK: its text, or its text and pictures as the SDK's output items. */
export type GgToolOutput = string | ({ type: "text"; text: string } | { type: "image"; image: string })[];

/** The details the SDK gives a tool's execute: the call, and the run's signal. */
type ToolCallDetails = Parameters<FunctionTool["invoke"]>[2];

/** A JSON Schema as the SDK types a non-strict tool's parameters (gg's have any properties). */
type NonStrictSchema = { type: "object"; properties: Record<string, never>; required: never[]; additionalProperties: true };

/** gg's tools for an Agent, with {@link SessionControls}: close() and what gg would ask a person about a call. */
export type GgAgentTools = ReturnType<typeof functionTool>[] & SessionControls;

/**
 * The tools of `options.arm` as Agents SDK function tools. A call gg would ask about goes to `options.approve`, or,
 * without one, interrupts the run (needsApproval) for the application to approve or reject.
 */
export function ggTools(options: GgToolsOptions): GgAgentTools {
  const session = ggSession(options);
  return withControls(
    session.tools.map((tool) => functionTool(tool, options.approve === undefined)),
    session,
  );
}

/** One gg tool as the SDK's. */
function functionTool(tool: SessionTool, asksThroughSdk: boolean) {
  const definition = agents.tool({
    name: tool.name,
    description: tool.description(),
    parameters: tool.parameters as unknown as NonStrictSchema,
    // gg's schemas have optional parameters, which strict mode does not allow.
    strict: false,
    needsApproval: asksThroughSdk ? (_context: RunContext, input: unknown, callId?: string) => tool.needsApproval(input, callId) : false,
    execute: async (input: unknown, context?: RunContext, details?: ToolCallDetails): Promise<GgToolOutput> => {
      const callId = details?.toolCall?.callId;
      const approved = asksThroughSdk && callId !== undefined && context?.isToolApproved({ toolName: tool.name, callId }) === true;
      return output(await tool.run(input, { signal: details?.signal, callId, approved }));
    },
  });
  // run_program's description names the MCP servers once they are listed.
  Object.defineProperty(definition, "description", { get: tool.description, enumerable: true });
  return definition;
}

/** A gg answer as the SDK's tool output: the text alone, or items with the pictures (which chat completions leave out). */
function output(answer: ToolAnswer): GgToolOutput {
  if (answer.content.every((part) => part.type === "text")) return answer.content.map((part) => (part.type === "text" ? part.text : "")).join("\n\n");
  return answer.content.map((part) => (part.type === "text" ? { type: "text" as const, text: part.text } : { type: "image" as const, image: part.dataUrl }));
}
