// The agent loop: one function over a provider, driving a model through either arm. Tools arm: the agent's calls
// as function tools, each tool call answered by a tool message with its tool_call_id. Code arm: each reply's first
// fenced ts/js block runs in one runtime for the whole run, and its report is the next message; every request also
// carries the open views as their own trailing message, so a view closed or evicted is gone from the next request.
import type { ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { type Configuration, defaultConfiguration, isConfiguration, parseConfiguration } from "../bindings/config.ts";
import { createTools } from "../bindings/index.ts";
import { textTokens } from "../runtime/context.ts";
import { createRuntime, type ViewContent } from "../runtime/index.ts";
import { type Arm, systemPrompt } from "./prompts.ts";
import type { Provider, Retry } from "./provider.ts";
import { reportText } from "./report.ts";

/** What one agent run is given. */
export interface AgentOptions {
  provider: Provider;
  model: string;
  arm: Arm;
  task: string;
  workspace: string;
  /** A configuration, parsed or as a file holds it. */
  config?: Configuration | unknown;
  agent?: string;
  /** Turns (requests that got an answer) before the run ends (default 50). */
  maxTurns?: number;
  /** Wall-clock seconds of the whole run (default 1800). */
  budgetSecs?: number;
  /** The model's context length in tokens, when known: a request estimated over it is not sent. */
  contextLength?: number;
  /** Called after every turn (progress lines, transcripts). */
  onTurn?(turn: TurnRecord): void;
}

/** gg's estimate of a request, per band, in tokens (text at 4 bytes a token). */
export interface Bands {
  system: number;
  messages: number;
  toolResults: number;
  views: number;
}

/** One turn: a request and its answer. */
export interface TurnRecord {
  turn: number;
  estimate: Bands;
  /** The provider's own count, when it gave one. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Tool calls (tools arm) or programs (code arm) the answer asked for. */
  calls: number;
  retries: Retry[];
  elapsedMs: number;
}

/** How a run ended. */
export interface AgentReport {
  ok: boolean;
  /** The model's last reply, when it ended the run by answering. */
  answer?: string;
  /** Why the run ended otherwise. */
  error?: { code: "max-turns" | "timeout" | "context-overflow" | "provider-error"; message: string };
  turns: TurnRecord[];
  /** Every call the run made, in order, with its outcome (a program as "run_program"). */
  calls: { name: string; ok: boolean; code?: string }[];
}

const FENCE = /```(?:ts|typescript|js|javascript)\s*\n([\s\S]*?)```/;

/** The program of a code agent's reply: its first ```ts or ```js block, and the block's language. */
export function programOf(reply: string): { source: string; language: "ts" | "js" } | undefined {
  const found = FENCE.exec(reply);
  if (!found) return undefined;
  const tag = /```(\w+)/.exec(found[0])?.[1] ?? "ts";
  return { source: found[1] ?? "", language: tag.startsWith("j") ? "js" : "ts" };
}

/** Text of a message's content, for the estimate. */
const textOf = (content: ChatCompletionMessageParam["content"]): string =>
  typeof content === "string" ? content : (content ?? []).map((part) => ("text" in part ? part.text : "")).join("");

/** The views band: one user message with every open view's text, and its picture while it travels. */
function viewsMessage(views: ViewContent[]): ChatCompletionMessageParam | undefined {
  if (views.length === 0) return undefined;
  const parts: ChatCompletionContentPart[] = [{ type: "text", text: "# Open views" }];
  for (const view of views) {
    parts.push({ type: "text", text: `## ${view.path}\n\n${view.text}` });
    if (view.dataUrl) parts.push({ type: "image_url", image_url: { url: view.dataUrl } });
  }
  return { role: "user", content: parts };
}

/** Runs one agent to its end; never throws for the model's or the provider's failures: they are in the report. */
export async function runAgent(options: AgentOptions): Promise<AgentReport> {
  const config = options.config === undefined ? defaultConfiguration() : isConfiguration(options.config) ? options.config : parseConfiguration(options.config);
  const agent = options.agent === undefined ? {} : { agent: options.agent };
  const system = systemPrompt({ arm: options.arm, config, ...agent });
  const messages: ChatCompletionMessageParam[] = [{ role: "system", content: system }, { role: "user", content: options.task }];
  const report: AgentReport = { ok: false, turns: [], calls: [] };
  const deadline = Date.now() + (options.budgetSecs ?? 1800) * 1000;
  const maxTurns = options.maxTurns ?? 50;
  const tools = options.arm === "tools" ? createTools({ workspace: options.workspace, config, ...agent }) : undefined;
  const runtime = options.arm === "code" ? createRuntime({ workspace: options.workspace, config, ...agent }) : undefined;
  const functionTools: ChatCompletionTool[] | undefined = tools?.definitions().map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> } }));
  try {
    if (runtime) await runtime.openingTurn();
    for (let turn = 1; ; turn++) {
      if (turn > maxTurns) return { ...report, error: { code: "max-turns", message: `The run ended at its limit of ${maxTurns} turns without an answer` } };
      if (Date.now() > deadline) return { ...report, error: { code: "timeout", message: `The run ended at its wall-clock budget of ${options.budgetSecs ?? 1800} s` } };
      const views = runtime ? viewsMessage(await runtime.views()) : undefined;
      const estimate: Bands = {
        system: textTokens(system),
        messages: messages.slice(1).filter((message) => message.role !== "tool").reduce((sum, message) => sum + textTokens(textOf(message.content)), 0),
        toolResults: messages.filter((message) => message.role === "tool").reduce((sum, message) => sum + textTokens(textOf(message.content)), 0),
        views: views ? textTokens(textOf(views.content)) : 0,
      };
      const total = estimate.system + estimate.messages + estimate.toolResults + estimate.views;
      if (options.contextLength !== undefined && total > options.contextLength) {
        const bands = Object.entries(estimate).map(([band, tokens]) => `${band} ${tokens}`).join(", ");
        return { ...report, error: { code: "context-overflow", message: `The next request would carry about ${total} tokens, over the model's context length of ${options.contextLength} (${bands}); it was not sent` } };
      }
      const started = performance.now();
      let answer;
      try {
        answer = await options.provider.complete({ model: options.model, messages: views ? [...messages, views] : messages, ...(functionTools && functionTools.length > 0 ? { tools: functionTools } : {}) });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ...report, error: { code: "provider-error", message } };
      }
      const reply = answer.completion.choices[0]?.message;
      const record: TurnRecord = {
        turn,
        estimate,
        ...(answer.completion.usage ? { usage: { promptTokens: answer.completion.usage.prompt_tokens, completionTokens: answer.completion.usage.completion_tokens } } : {}),
        calls: 0,
        retries: answer.retries,
        elapsedMs: 0,
      };
      const content = reply?.content ?? "";
      messages.push({ role: "assistant", content, ...(reply?.tool_calls && reply.tool_calls.length > 0 ? { tool_calls: reply.tool_calls } : {}) });
      if (tools) {
        const calls = (reply?.tool_calls ?? []).filter((call) => call.type === "function");
        record.calls = calls.length;
        // Every tool call of the reply is answered, in order, by a tool message carrying its id.
        for (const call of calls) {
          let args: unknown;
          try {
            args = JSON.parse(call.function.arguments || "{}");
          } catch {
            args = undefined;
          }
          const result = args === undefined
            ? { ok: false as const, error: { code: "invalid-argument" as const, message: `Cannot call ${call.function.name}: its arguments are not JSON; pass one JSON object` } }
            : await tools.call(call.function.name, args);
          report.calls.push({ name: call.function.name, ok: result.ok, ...(result.ok ? {} : { code: result.error.code }) });
          const text = result.ok ? result.text : `error[${result.error.code}]: ${result.error.message}`;
          const pictures = result.ok ? (result.attachments ?? []) : [];
          // A picture travels in its tool message, as multi-part content: the openai types allow text parts only there,
          // which is narrower than what the providers accept.
          const toolContent = pictures.length === 0 ? text : ([{ type: "text", text }, ...pictures.map((picture) => ({ type: "image_url", image_url: { url: picture.dataUrl } }))] as unknown as string);
          messages.push({ role: "tool", tool_call_id: call.id, content: toolContent });
        }
        record.elapsedMs = Math.round(performance.now() - started);
        report.turns.push(record);
        options.onTurn?.(record);
        if (calls.length === 0) return { ...report, ok: true, answer: content };
        continue;
      }
      const program = programOf(content);
      record.calls = program ? 1 : 0;
      if (program && runtime) {
        const run = await runtime.run(program.source, { language: program.language, budget: Math.max(0.001, Math.min(120, (deadline - Date.now()) / 1000)), baseline: { system: estimate.system, messages: estimate.messages, toolResults: estimate.toolResults } });
        report.calls.push({ name: "run_program", ok: run.ok, ...(run.error ? { code: run.error.code } : {}) });
        messages.push({ role: "user", content: reportText(run) });
      }
      record.elapsedMs = Math.round(performance.now() - started);
      report.turns.push(record);
      options.onTurn?.(record);
      if (!program) return { ...report, ok: true, answer: content };
    }
  } finally {
    runtime?.close();
  }
}
