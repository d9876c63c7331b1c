// The agent loop: one function over a provider, driving a model through either arm. Tools arm: the agent's calls
// as function tools, each tool call answered by a tool message with its tool_call_id. Code arm: each reply's first
// fenced ts/js block runs in one runtime for the whole run, and its report is the next message; every request also
// carries the open views as their own trailing message, so a view closed or evicted is gone from the next request.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type {
  ChatCompletion,
  ChatCompletionContentPart,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { type Configuration, defaultConfiguration, isConfiguration, parseConfiguration } from "../bindings/config.ts";
import { errorText } from "../bindings/define.ts";
import { newRunId } from "../bindings/approval_match.ts";
import type { Approval, Approve } from "../bindings/gate.ts";
import { createTools, type ToolsOptions } from "../bindings/index.ts";
import { type AppFunction, createExternals } from "../bindings/external.ts";
import { countLines, plural } from "../host/lines.ts";
import { resolvePath } from "../host/paths.ts";
import type { ConfinedMode } from "../host/sandbox.ts";
import { walkFiles, walkRoot } from "../host/walk.ts";
import { imageTokens, textTokens } from "../runtime/context.ts";
import { type Baseline, type CallRecord, createRuntime, DEFAULT_LIMITS, type Runtime } from "../runtime/index.ts";
import { recordedApproval } from "../runtime/pending.ts";
import { pictureRemoved } from "../runtime/views.ts";
import { type ViewMessages, type ViewPart, viewMessages } from "../runtime/window.ts";
import { type Bands, bandsTotal } from "./bands.ts";
import { type Arm, systemPrompt } from "./prompts.ts";
import { type Answer, type ChatRequest, isPictureRefusal, type Provider, ProviderError, type Retry } from "./provider.ts";
import { type Pricing, runCost } from "./pricing.ts";
import { marksCache, withBreakpoints } from "./cache.ts";
import { reportText } from "./report.ts";
import { type Usage, usageOf } from "./usage.ts";
import { type PictureOutcome, PROCESS_VISION, type VisionLedger } from "./vision.ts";

export { type Bands, bandsTotal };

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
  /** What searches keep between calls (see createTools' `warm`). */
  warm?: ToolsOptions["warm"];
  /** The model's context length in tokens, when known: a request estimated over it is not sent. */
  contextLength?: number;
  /**
   * Whether the model takes image input, as the catalog declares it: false never sends it a picture; undefined
   * (unknown) sends them until the provider refuses one (the learned stage).
   */
  vision?: boolean;
  /** The model's prices, as the catalog has them: the report's cost is reckoned at them. */
  pricing?: Pricing;
  /**
   * Whether requests mark prompt-cache breakpoints (`cache_control`), for a provider that caches only where asked;
   * default: the configuration's `model.cacheMarks`, else by the model's id (see marksCache: Anthropic's and Gemini's).
   */
  cacheMarks?: boolean;
  /** What runs sharing it learn of models' vision (a study's trials); default: every run in this process. */
  visionLedger?: VisionLedger;
  /**
   * Files read whole through read_file into the opening context, before the first turn (a test case's specs): as
   * read_file calls gg made and their results (tools arm), or as views (code arm). Relative to the workspace.
   */
  specs?: readonly string[];
  /** Called once, before the first turn, with what tells the files the run has changed so far (a run cut short says them). */
  onFiles?(changedSoFar: () => AgentReport["filesChanged"]): void;
  /** Called after every turn (progress lines, transcripts). */
  onTurn?(turn: TurnRecord): void;
  /** Called as a turn's answer arrives, before its calls run, with its record so far, its time until then included (a run cut short counts its tokens). */
  onAnswer?(turn: TurnRecord): void;
  /** Called with every request as sent, every answer, and every call's outcome (transcripts). */
  onRecord?(entry: LoopRecord): void;
  /** The application's own functions, offered as tools app__<name> (tools arm) and gg.app.<name> (code arm). */
  functions?: readonly AppFunction[];
  /** Asked about each call whose verdict is ask (see ToolsOptions.approve); absent, an ask is a deny. */
  approve?: Approve;
  /**
   * A replay's recorded outcomes, in order: the nth call, when it is the recorded nth call (same name, same
   * arguments), takes the approvals recorded for it (a tool call's; a program's calls', see RunOptions.recorded), and
   * no rule, hook or person decides them. A call the recording holds no decision for is decided as configured.
   */
  recorded?: readonly CallOutcome[];
}

/** One call's outcome as a transcript and a replay compare it: what the model was told, by its hash. */
export interface CallOutcome {
  name: string;
  /**
   * Its arguments as the model sent them: a tool call's parsed JSON (its text when not JSON), or a program as
   * {language, source}.
   */
  args: unknown;
  ok: boolean;
  code?: string;
  /** sha256 of the text the model received for it (a tool result, or a program's report). */
  hash: string;
  /** A program's gg calls, in order, as its run report lists them (the first 1000). */
  calls?: CallRecord[];
  /** A program's gg calls past the listed ones, counted. */
  callsDropped?: number;
  /** A tool call's approval: its verdict, who decided, and how long it waited for a person. */
  approval?: Approval;
  /** The sandbox a tool call's command ran in; absent, it ran unconfined (a program's calls say it each). */
  sandbox?: ConfinedMode;
}

/** What the loop reports as it goes. */
export type LoopRecord =
  | { type: "request"; turn: number; request: ChatRequest }
  | { type: "response"; turn: number; completion: ChatCompletion; retries: Retry[] }
  | { type: "call"; turn: number; outcome: CallOutcome };

/** A provider refusing a request that carried pictures: the model is text-only from then on. */
export interface VisionEvent {
  turn: number;
  model: string;
  status: number;
  message: string;
}

/** One turn: a request and its answer. */
export interface TurnRecord {
  turn: number;
  estimate: Bands;
  /** The provider's own count, when it gave one. */
  usage?: Usage;
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
  error?: { code: "max-turns" | "timeout" | "context-overflow" | "provider-error" | "cancelled"; message: string };
  turns: TurnRecord[];
  /** Every call the run made, in order, with its arguments and outcome (a program as "run_program", its gg calls in it). */
  calls: CallOutcome[];
  /** Refusals of pictures, each costing one request that was sent again without them. */
  visionEvents: VisionEvent[];
  /** Requests whose answer was thrown away: the refusals of pictures. */
  wastedRequests: number;
  /**
   * The turns added up: gg's estimate per band, the provider's usage where it gave one, the retries taken, and the
   * cost in USD at the catalog's prices (null when the model has none or no usage was reported).
   */
  totals: { estimate: Bands; usage: Usage; turnsWithoutUsage: number; retries: number; cost: number | null };
  /** Files of the workspace (those the ignore rules leave in) the run created, modified or deleted, by any means. */
  filesChanged: { created: string[]; modified: string[]; deleted: string[] };
}

/** Each file of the workspace the ignore rules leave in, with what tells a change: size, times and inode. */
function snapshot(workspace: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of walkFiles(walkRoot(workspace, workspace))) {
    try {
      const stats = statSync(file.absolute);
      files.set(file.relative, `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`);
    } catch {
      // Gone between the listing and the look: not there.
    }
  }
  return files;
}

/** What changed between two snapshots, each list in path order. */
function changes(before: Map<string, string>, after: Map<string, string>): AgentReport["filesChanged"] {
  const created = [...after.keys()].filter((path) => !before.has(path));
  const modified = [...after.keys()].filter((path) => before.has(path) && before.get(path) !== after.get(path));
  const deleted = [...before.keys()].filter((path) => !after.has(path));
  return { created, modified, deleted };
}

/** The sha256 of a text, hex: how transcripts compare what the model was told. */
export const hashOf = (text: string): string => createHash("sha256").update(text).digest("hex");

const FENCE = /```(?:ts|typescript|js|javascript)\s*\n([\s\S]*?)```/;

/** The program of a code agent's reply: its first ```ts or ```js block, and the block's language. */
export function programOf(reply: string): { source: string; language: "ts" | "js" } | undefined {
  const found = FENCE.exec(reply);
  if (!found) return undefined;
  const tag = /```(\w+)/.exec(found[0])?.[1] ?? "ts";
  return { source: found[1] ?? "", language: tag.startsWith("j") ? "js" : "ts" };
}

/** A picture sent to the model: the file it came from, and what it costs the window. */
interface Picture {
  path: string;
  tokens: number;
}

/**
 * gg's estimate of a message: its text, each picture it carries that the loop knows the cost of, and the tool calls
 * of an assistant's reply (their names and arguments travel back with every later request).
 */
function tokensOf(message: ChatCompletionMessageParam, pictures: Map<ChatCompletionContentPart, Picture>): number {
  const { content } = message;
  const calls = message.role === "assistant" && message.tool_calls ? textTokens(JSON.stringify(message.tool_calls)) : 0;
  if (typeof content === "string") return calls + textTokens(content);
  return (content ?? []).reduce((sum, part) => sum + ("text" in part ? textTokens(part.text) : (pictures.get(part as ChatCompletionContentPart)?.tokens ?? 0)), calls);
}

/** A views message as the runtime lays it out (see viewMessages), its pictures known to the loop by their parts. */
function viewsMessage(parts: ViewPart[], pictures: Map<ChatCompletionContentPart, Picture>): ChatCompletionMessageParam | undefined {
  if (parts.length === 0) return undefined;
  const content = parts.map((part): ChatCompletionContentPart => {
    if ("text" in part) return { type: "text", text: part.text };
    const image: ChatCompletionContentPart = { type: "image_url", image_url: { url: part.picture.dataUrl } };
    pictures.set(image, { path: part.picture.path, tokens: part.picture.tokens });
    return image;
  });
  return { role: "user", content };
}

/** Whether a request carries a picture anywhere. */
const carriesPictures = (messages: ChatCompletionMessageParam[]): boolean =>
  messages.some((message) => Array.isArray(message.content) && message.content.some((part) => part.type === "image_url"));

/** Replaces each picture of `message` with a note saying where it was and why it went. */
function stripPictures(message: ChatCompletionMessageParam, pictures: Map<ChatCompletionContentPart, Picture>): void {
  if (!Array.isArray(message.content)) return;
  const content = message.content as ChatCompletionContentPart[];
  message.content = content.map((part) => (part.type === "image_url" ? { type: "text" as const, text: pictureRemoved(pictures.get(part)?.path ?? "a file") } : part)) as typeof message.content;
}

/** The provider's usage as a turn records it: { usage } when it gave one. */
const usageField = (reported: unknown): { usage?: Usage } => {
  const usage = usageOf(reported);
  return usage ? { usage } : {};
};

/** The turns of a run added up: the estimate per band, the provider's usage, the retries, and what they cost at `pricing` (each request at its own usage). */
export function totalsOf(turns: TurnRecord[], pricing: Pricing | undefined): AgentReport["totals"] {
  const estimate: Bands = { system: 0, tools: 0, messages: 0, toolResults: 0, views: 0 };
  const usage: Usage = { promptTokens: 0, completionTokens: 0 };
  let retries = 0;
  for (const turn of turns) {
    for (const band of Object.keys(estimate) as (keyof Bands)[]) estimate[band] += turn.estimate[band];
    usage.promptTokens += turn.usage?.promptTokens ?? 0;
    usage.completionTokens += turn.usage?.completionTokens ?? 0;
    if (turn.usage?.cachedTokens !== undefined) usage.cachedTokens = (usage.cachedTokens ?? 0) + turn.usage.cachedTokens;
    if (turn.usage?.cacheWriteTokens !== undefined) usage.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + turn.usage.cacheWriteTokens;
    retries += turn.retries.length;
  }
  return { estimate, usage, turnsWithoutUsage: turns.filter((turn) => !turn.usage).length, retries, cost: runCost(pricing, turns.map((turn) => turn.usage)) };
}

/** A run's conversation: what every request is made of. */
interface Conversation {
  system: string;
  /** The function tools' definitions (tools arm). */
  functionTools: ChatCompletionTool[] | undefined;
  /** The system prompt, the task, the replies and what answered them. */
  messages: ChatCompletionMessageParam[];
  /** A code agent's program reports: the results of its actions, counted with tool results. */
  reports: WeakSet<ChatCompletionMessageParam>;
  /** Each picture sent, by its part: its cost for the estimate, and its path for the note that replaces it if refused. */
  pictures: Map<ChatCompletionContentPart, Picture>;
  /** Messages of the opening turn (the system prompt, the task, specs read in the model's place): the stable prefix. */
  stable: number;
  /** Whether requests carry prompt-cache breakpoints (see marksCache). */
  cacheMarks: boolean;
}

/**
 * The next request's messages and gg's estimate of them per band: the opening turn's views right after the system
 * prompt, where they stay byte-identical from request to request, and the other views last.
 */
function nextRequest(conversation: Conversation, laid: ViewMessages): { sent: ChatCompletionMessageParam[]; estimate: Bands; breakpoints: number[] } {
  const { messages, pictures, reports, functionTools } = conversation;
  const isResult = (message: ChatCompletionMessageParam): boolean => message.role === "tool" || reports.has(message);
  const sum = (list: ChatCompletionMessageParam[]): number => list.reduce((total, message) => total + tokensOf(message, pictures), 0);
  const [opening, later] = [viewsMessage(laid.opening, pictures), viewsMessage(laid.later, pictures)];
  const estimate: Bands = {
    system: textTokens(conversation.system),
    tools: functionTools && functionTools.length > 0 ? textTokens(JSON.stringify(functionTools)) : 0,
    messages: sum(messages.slice(1).filter((message) => !isResult(message))),
    toolResults: sum(messages.filter(isResult)),
    views: sum([opening, later].filter((message) => message !== undefined)),
  };
  const sent = [...messages.slice(0, 1), ...(opening ? [opening] : []), ...messages.slice(1), ...(later ? [later] : [])];
  // Where a cache may end: the system prompt (after the tool definitions), the opening turn, the conversation so far.
  const shift = opening ? 1 : 0;
  return { sent, estimate, breakpoints: [0, conversation.stable - 1 + shift, messages.length - 1 + shift] };
}

/** `recorded` when it is the outcome of the call named `name` with `args` (a replay that has not strayed), else undefined. */
const sameCall = (recorded: CallOutcome | undefined, name: string, args: unknown): CallOutcome | undefined =>
  recorded?.name === name && JSON.stringify(recorded.args) === JSON.stringify(args) ? recorded : undefined;

/**
 * Answers one tool call: the tool message carrying its id (and its picture), and its outcome as transcripts keep it.
 * `recorded`, in a replay, is the outcome recorded at this call's place, whose approval it takes if it is the same call.
 */
async function answerCall(
  tools: ReturnType<typeof createTools>,
  call: ChatCompletionMessageFunctionToolCall,
  pictures: Map<ChatCompletionContentPart, Picture>,
  recorded?: CallOutcome,
): Promise<{ outcome: CallOutcome; message: ChatCompletionMessageParam }> {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || "{}");
  } catch {
    args = undefined;
  }
  const result = args === undefined
    ? { ok: false as const, error: { code: "invalid-argument" as const, message: `Cannot call ${call.function.name}: its arguments are not JSON; pass one JSON object` } }
    : await tools.call(call.function.name, args, undefined, recordedApproval(sameCall(recorded, call.function.name, args)?.approval));
  const text = result.ok ? result.text : errorText(result.error);
  const sent = args === undefined ? call.function.arguments : args;
  const outcome: CallOutcome = { name: call.function.name, args: sent, ok: result.ok, ...(result.ok ? {} : { code: result.error.code }), hash: hashOf(text), ...(result.approval ? { approval: result.approval } : {}), ...(result.ok && result.sandbox ? { sandbox: result.sandbox } : {}) };
  // A picture travels in its tool message, as multi-part content: the openai types allow text parts only there, which
  // is narrower than what the providers accept.
  const image = result.ok && typeof result.data === "object" && result.data !== null && "image" in result.data ? (result.data.image as { width?: number; height?: number; bytes: number }) : undefined;
  const parts = (result.ok ? (result.attachments ?? []) : []).map((picture): ChatCompletionContentPart => {
    const part: ChatCompletionContentPart = { type: "image_url", image_url: { url: picture.dataUrl } };
    const path = typeof (args as { path?: unknown }).path === "string" ? (args as { path: string }).path : "the file";
    pictures.set(part, { path, tokens: image ? imageTokens(image).tokens : 0 });
    return part;
  });
  const content = parts.length === 0 ? text : ([{ type: "text", text }, ...parts] as unknown as string);
  return { outcome, message: { role: "tool", tool_call_id: call.id, content } };
}

/** Runs a code agent's program within what is left of the run's budget: its report, as the message that answers. */
async function runProgram(
  runtime: Runtime,
  program: NonNullable<ReturnType<typeof programOf>>,
  baseline: Baseline,
  deadline: number,
  recorded?: CallOutcome,
): Promise<{ outcome: CallOutcome; message: ChatCompletionMessageParam }> {
  const budget = Math.max(0.001, Math.min(DEFAULT_LIMITS.budgetSecs, (deadline - Date.now()) / 1000));
  // In a replay, the program's calls take the approvals recorded for the same program's calls.
  const calls = sameCall(recorded, "run_program", program)?.calls;
  const run = await runtime.run(program.source, { language: program.language, budget, baseline, ...(Array.isArray(calls) ? { recorded: calls } : {}) });
  const told = reportText(run);
  const outcome: CallOutcome = {
    name: "run_program",
    args: program,
    ok: run.ok,
    ...(run.error ? { code: run.error.code } : {}),
    hash: hashOf(told),
    calls: run.calls,
    ...(run.callsDropped > 0 ? { callsDropped: run.callsDropped } : {}),
  };
  return { outcome, message: { role: "user", content: told } };
}

/** Lines in a file, at least 1: the limit that reads it whole. A file that cannot be read gets 1 (read_file says why). */
function linesIn(workspace: string, path: string): number {
  try {
    // Resolved as read_file resolves it, so both name the same file.
    return Math.max(1, countLines(readFileSync(resolvePath(workspace, path))));
  } catch {
    return 1;
  }
}

/**
 * A case's specs, read whole through read_file into a tools agent's opening context: calls gg made in the model's
 * place (an assistant message asking, the tool messages answering), pictures attached as any read attaches them.
 */
async function readSpecs(tools: ReturnType<typeof createTools>, specs: { path: string; limit: number }[], conversation: Conversation): Promise<void> {
  const calls: ChatCompletionMessageFunctionToolCall[] = specs.map((spec, index) => ({ id: `gg_spec_${index + 1}`, type: "function", function: { name: "read_file", arguments: JSON.stringify(spec) } }));
  conversation.messages.push({ role: "assistant", content: null, tool_calls: calls });
  for (const call of calls) conversation.messages.push((await answerCall(tools, call, conversation.pictures)).message);
}

/** Runs one agent to its end; never throws for the model's or the provider's failures: they are in the report. */
export async function runAgent(options: AgentOptions): Promise<AgentReport> {
  const before = snapshot(options.workspace);
  options.onFiles?.(() => changes(before, snapshot(options.workspace)));
  const ended = await drive(options);
  return { ...ended, totals: totalsOf(ended.turns, options.pricing), filesChanged: changes(before, snapshot(options.workspace)) };
}

/**
 * Sends a turn's request. A refusal of its pictures is recorded (the model is text-only for every run sharing the
 * ledger) and answered `refused`, for the turn to be sent again without them; any other failure ends the run.
 */
async function send(
  { sent, breakpoints }: { sent: ChatCompletionMessageParam[]; breakpoints: number[] },
  turn: number,
  settle: ((outcome: PictureOutcome) => void) | undefined,
  { options, conversation, report, ledger }: { options: AgentOptions; conversation: Conversation; report: Omit<AgentReport, "filesChanged" | "totals">; ledger: VisionLedger },
): Promise<Answer | { refused: true } | { error: { code: "provider-error"; message: string } }> {
  try {
    const { functionTools } = conversation;
    const messages = conversation.cacheMarks ? withBreakpoints(sent, breakpoints) : sent;
    const request: ChatRequest = { model: options.model, messages, ...(functionTools && functionTools.length > 0 ? { tools: functionTools } : {}) };
    options.onRecord?.({ type: "request", turn, request });
    const answer = await options.provider.complete(request);
    settle?.("answered");
    options.onRecord?.({ type: "response", turn, completion: answer.completion, retries: answer.retries });
    return answer;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const status = error instanceof ProviderError ? error.status : undefined;
    const refused = isPictureRefusal(status, carriesPictures(sent));
    settle?.(refused ? "refused" : "failed");
    if (!refused) return { error: { code: "provider-error", message } };
    ledger.refused(options.model);
    report.visionEvents.push({ turn, model: options.model, status: status as number, message });
    report.wastedRequests++;
    return { refused: true };
  }
}

/** What a turn's reply is carried out with: the run's options and state, and the arm's tools or runtime. */
interface Acting {
  options: AgentOptions;
  conversation: Conversation;
  report: Omit<AgentReport, "filesChanged" | "totals">;
  tools: ReturnType<typeof createTools> | undefined;
  runtime: Runtime | undefined;
}

/**
 * Carries out a reply: every tool call answered in order by a tool message carrying its id (tools arm), or its program
 * run (code arm); records the calls and the turn.
 */
async function carryOut(answer: Answer, at: { turn: number; estimate: Bands; started: number; deadline: number }, { options, conversation, report, tools, runtime }: Acting): Promise<{ record: TurnRecord; content: string }> {
  const { turn, estimate, started } = at;
  const { messages, pictures } = conversation;
  const reply = answer.completion.choices[0]?.message;
  const content = reply?.content ?? "";
  const calls = tools ? (reply?.tool_calls ?? []).filter((call) => call.type === "function") : [];
  const program = tools ? undefined : programOf(content);
  const record: TurnRecord = { turn, estimate, ...usageField(answer.completion.usage), calls: program ? 1 : calls.length, retries: answer.retries, elapsedMs: 0 };
  options.onAnswer?.({ ...record, elapsedMs: Math.round(performance.now() - started) });
  const replied: ChatCompletionMessageParam = { role: "assistant", content, ...(reply?.tool_calls && reply.tool_calls.length > 0 ? { tool_calls: reply.tool_calls } : {}) };
  messages.push(replied);
  if (tools) {
    for (const call of calls) {
      const { outcome, message } = await answerCall(tools, call, pictures, options.recorded?.[report.calls.length]);
      report.calls.push(outcome);
      options.onRecord?.({ type: "call", turn, outcome });
      messages.push(message);
    }
  }
  if (program && runtime) {
    // What the next request carries besides the views and this program's report: breakdown() adds the views.
    const baseline = { system: estimate.system, messages: estimate.messages + tokensOf(replied, pictures), toolResults: estimate.toolResults, viewMessages: true };
    const { outcome, message } = await runProgram(runtime, program, baseline, at.deadline, options.recorded?.[report.calls.length]);
    report.calls.push(outcome);
    options.onRecord?.({ type: "call", turn, outcome });
    conversation.reports.add(message);
    messages.push(message);
  }
  record.elapsedMs = Math.round(performance.now() - started);
  report.turns.push(record);
  options.onTurn?.(record);
  return { record, content };
}

/**
 * `approve` with the time a person takes added to `clock.deadline`: waiting for an answer is not charged to the run's
 * budget, as it is not to a program's. Overlapping asks count once.
 */
function unchargedWaits(approve: Approve, clock: { deadline: number }): Approve {
  let waiting = 0;
  let since = 0;
  return async (request) => {
    if (waiting++ === 0) since = Date.now();
    try {
      return await approve(request);
    } finally {
      if (--waiting === 0) clock.deadline += Date.now() - since;
    }
  };
}

/**
 * Seconds the code arm's prompt waits for the MCP servers to list their tools: a local server answers within them, and
 * one still starting then (npx fetching it, say) is named so in the prompt and waited for by the programs that call it.
 */
const PROMPT_WAIT_SECS = 5;

async function drive(options: AgentOptions): Promise<Omit<AgentReport, "filesChanged" | "totals">> {
  const ledger = options.visionLedger ?? PROCESS_VISION;
  const given = options.config === undefined ? defaultConfiguration() : isConfiguration(options.config) ? options.config : parseConfiguration(options.config);
  // Declared text-only, or learned so by a run sharing the ledger: read_file describes pictures, views show descriptions.
  const config = options.vision === false || ledger.textOnly(options.model) ? { ...given, vision: false } : given;
  const agent = options.agent === undefined ? {} : { agent: options.agent };
  const clock = { deadline: Date.now() + (options.budgetSecs ?? 1800) * 1000 };
  // The calls of one run share its id and its approver, whether tools or programs make them.
  const approve = options.approve && unchargedWaits(options.approve, clock);
  const calls = { ...agent, ...(approve ? { approve } : {}), ...(options.warm === undefined ? {} : { warm: options.warm }), runId: newRunId() };
  const report: Omit<AgentReport, "filesChanged" | "totals"> = { ok: false, turns: [], calls: [], visionEvents: [], wastedRequests: 0 };
  const maxTurns = options.maxTurns ?? 50;
  const specs = (options.specs ?? []).map((path) => ({ path, limit: linesIn(options.workspace, path) }));
  const functions = options.functions ? { functions: options.functions } : {};
  // Other tools: the tools arm's are this run's own; the code arm's belong to its runtime, which calls them for programs.
  const externals = options.arm === "tools" ? createExternals(config, options.functions, options.workspace) : undefined;
  const external = await externals?.surface();
  const withExternal = external ? { external } : {};
  let tools = options.arm === "tools" ? createTools({ workspace: options.workspace, config, ...calls, ...withExternal }) : undefined;
  const runtime = options.arm === "code" ? createRuntime({ workspace: options.workspace, config, ...calls, ...functions, ...(specs.length > 0 ? { specs } : {}), keepState: true }) : undefined;
  // The prompt is made once, so its prefix stays the same in every request: a server slow to start is named still
  // starting rather than holding the first request for the 60 s its start may take.
  const catalog = await runtime?.catalog({ waitSecs: PROMPT_WAIT_SECS });
  const prompted = { arm: options.arm, ...agent, ...(catalog ? { external: catalog } : {}) };
  const system = systemPrompt({ ...prompted, config });
  const functionsOf = (held: typeof tools): ChatCompletionTool[] | undefined =>
    held?.definitions().map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> } }));
  const conversation: Conversation = {
    system,
    functionTools: functionsOf(tools),
    messages: [{ role: "system", content: system }, { role: "user", content: options.task }],
    reports: new WeakSet(),
    pictures: new Map(),
    stable: 2,
    cacheMarks: marksCache(options.model, options.cacheMarks ?? config.cacheMarks),
  };
  const { messages, pictures } = conversation;
  let sees = config.vision;
  /** The model is text-only from now on: the pictures leave the window (each with a note where it was, every tool_call_id kept), and reads describe them. */
  const becomeTextOnly = async (): Promise<void> => {
    sees = false;
    for (const message of messages) stripPictures(message, pictures);
    // The system prompt and read_file's description say so; the open views give up their pictures and stop being charged for them.
    const textOnly = { ...config, vision: false };
    messages[0] = { role: "system", content: (conversation.system = systemPrompt({ ...prompted, config: textOnly })) };
    if (tools) conversation.functionTools = functionsOf((tools = createTools({ workspace: options.workspace, config: textOnly, ...calls, ...withExternal })));
    await runtime?.textOnly();
  };
  try {
    if (runtime) await runtime.openingTurn();
    if (tools && specs.length > 0) await readSpecs(tools, specs, conversation);
    conversation.stable = messages.length;
    for (let turn = 1; ; turn++) {
      if (turn > maxTurns) return { ...report, error: { code: "max-turns", message: `The run ended at its limit of ${plural(maxTurns, "turn")} without an answer` } };
      if (Date.now() > clock.deadline) return { ...report, error: { code: "timeout", message: `The run ended at its wall-clock budget of ${options.budgetSecs ?? 1800} s` } };
      // Learned by another run sharing the ledger.
      if (sees && ledger.textOnly(options.model)) await becomeTextOnly();
      const shown = runtime ? await runtime.views() : [];
      // A view whose file changed from outside gg is named before the request's views, in the history: never rewritten.
      const changed = shown.flatMap((view) => (view.changed ? [view.changed] : []));
      if (changed.length > 0) messages.push({ role: "user", content: changed.join("\n") });
      const { sent, estimate, breakpoints } = nextRequest(conversation, viewMessages(shown, sees));
      const total = bandsTotal(estimate);
      if (options.contextLength !== undefined && total > options.contextLength) {
        const bands = Object.entries(estimate).map(([band, tokens]) => `${band} ${tokens}`).join(", ");
        return { ...report, error: { code: "context-overflow", message: `The next request would carry about ${total} tokens, over the model's context length of ${options.contextLength} (${bands}); it was not sent` } };
      }
      // A model of unknown vision: a request with pictures waits while another run's waits on its answer.
      const settle = sees && options.vision === undefined && carriesPictures(sent) ? await ledger.admit(options.model) : undefined;
      if (settle && ledger.textOnly(options.model)) {
        settle("failed");
        await becomeTextOnly();
        turn--;
        continue;
      }
      const started = performance.now();
      const answer = await send({ sent, breakpoints }, turn, settle, { options, conversation, report, ledger });
      if ("error" in answer) return { ...report, error: answer.error };
      if ("refused" in answer) {
        // The learned stage: the same turn is sent again without pictures.
        await becomeTextOnly();
        turn--;
        continue;
      }
      const { record, content } = await carryOut(answer, { turn, estimate, started, deadline: clock.deadline }, { options, conversation, report, tools, runtime });
      // A reply that asks for nothing is the answer.
      if (record.calls === 0) return { ...report, ok: true, answer: content };
    }
  } finally {
    runtime?.close();
    await externals?.close();
  }
}
