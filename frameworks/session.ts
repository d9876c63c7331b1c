// The gg side of the agent-framework adapters (ai_sdk.ts, openai_agents.ts): the tools of one arm, each with its JSON
// Schema, gg's verdict before anyone is asked, and a run whose answer is what gg's own loop gives a model; and a close
// that ends every command they started. Nothing here names an SDK: each adapter only maps these to its SDK's shapes.
import type { TSchema } from "typebox";
import { programToolDescription, type Arm } from "../agent/prompts.ts";
import { type ProgramPart, RunProgram, runProgramTool } from "../agent/program_tool.ts";
import type { Approval, Approve } from "../bindings/approval_match.ts";
import type { Question } from "../bindings/approval_question.ts";
import type { Configuration } from "../bindings/config.ts";
import { checkArguments, errorText } from "../bindings/define.ts";
import { appSurface, heldCatalog } from "../bindings/external.ts";
import { configurationOf, createTools } from "../bindings/index.ts";
import { appFunctionsOf, type Functions } from "../bindings/toolset.ts";
import { type CallError, GgError } from "../host/errors.ts";
import { createRuntime } from "../runtime/index.ts";

/** Options of `ggTools`, in either SDK. */
export interface GgToolsOptions {
  /** Workspace root; relative paths resolve against it and commands run in it. */
  workspace: string;
  /** A configuration: parsed, or as a configuration file holds it (default: every capability on). */
  config?: Configuration | unknown;
  /** JSON tool calls (one tool per gg call), or programs (one tool, run_program). */
  arm: Arm;
  /** The agent to act as: its allowlist in the configuration decides its calls. */
  agent?: string;
  /**
   * Asked about each call gg's approvals say ask about, as gg's own `approve`. Without it, a tool call gg would ask
   * about is put to the SDK's human-in-the-loop instead, and a program's call is denied (a program cannot wait on it).
   */
  approve?: Approve;
  /** Aborting it closes the tools, as `close()` does. */
  signal?: AbortSignal;
  /** The application's functions (AppFunctions, or an AI SDK ToolSet's tools): app__<name> tools, or gg.app.<name> in programs. */
  functions?: Functions;
}

/** A tool's answer as a model reads it, in order: texts and pictures; `error` when it failed. */
export interface ToolAnswer {
  ok: boolean;
  content: ProgramPart[];
  error?: CallError;
}

/** How one run of a tool is made. */
export interface RunControl {
  /** The SDK's signal for this call (its run aborted). */
  signal?: AbortSignal | undefined;
  /** The SDK's id of the call, by which its verdict before asking was kept. */
  callId?: string | undefined;
  /** The SDK's human-in-the-loop approved this call (gg asked through it). */
  approved?: boolean;
}

/** One tool of the set, whatever the SDK. */
export interface SessionTool {
  name: string;
  /** What the model reads; run_program's grows once the configured MCP servers are listed. */
  description(): string;
  /** JSON Schema of the arguments object. */
  parameters: TSchema;
  /** Whether gg would ask someone before running this call (its rules and hook say ask); none when `approve` is given. */
  needsApproval(args: unknown, callId?: string): Promise<boolean>;
  /** The question gg would put to a person about this call (see createTools' `question`); none for run_program. */
  question(args: unknown): Promise<Question | undefined>;
  run(args: unknown, control?: RunControl): Promise<ToolAnswer>;
}

/** An answer of one text, failed when `error` is given. */
const textAnswer = (text: string, error?: CallError): ToolAnswer => ({ ok: error === undefined, content: [{ type: "text", text }], ...(error ? { error } : {}) });

const failed = (error: CallError): ToolAnswer => textAnswer(errorText(error), error);

/** An approval given through the SDK's human-in-the-loop: the application answered on a person's behalf. */
const THROUGH_SDK: Approval = { verdict: "allow", by: "client" };

/** The tools of `options.arm` for one SDK's agent, and the close that ends what they started. */
export function ggSession(options: GgToolsOptions) {
  if (options.arm !== "tools" && options.arm !== "code") throw new GgError("invalid-argument", `Cannot make gg's tools: arm is ${JSON.stringify(options.arm)}; pass arm "tools" (one tool per gg call) or "code" (run_program)`);
  const config = configurationOf(options);
  const agent = options.agent === undefined ? {} : { agent: options.agent };
  const approve = options.approve ? { approve: options.approve } : {};
  const functions = appFunctionsOf(options.functions);
  const closing = new AbortController();
  /** Runs under way: close waits for them to end. */
  const running = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    void work.finally(() => running.delete(work)).catch(() => {});
    return work;
  };
  const signalOf = (given: AbortSignal | undefined): AbortSignal => (given ? AbortSignal.any([closing.signal, given]) : closing.signal);
  /** What close ends once the runs under way have stopped, each resolving when it has. */
  const ending: (() => Promise<void>)[] = [];
  const closedAnswer = (name: string): ToolAnswer => failed({ code: "unavailable", message: `Cannot run ${name}: these gg tools were closed; nothing ran` });

  const tools: SessionTool[] = options.arm === "tools" ? callTools() : [programTool()];

  function callTools(): SessionTool[] {
    const calls = createTools({ workspace: options.workspace, config, ...agent, ...approve, ...(functions ? { functions } : {}) });
    /** Verdicts reached before the SDK ran a call (allow or deny), by its id: the call takes them, so a hook runs once. */
    const decided = new Map<string, Approval>();
    return calls.definitions().map((definition) => ({
      name: definition.name,
      description: () => definition.description,
      parameters: definition.parameters,
      async needsApproval(args, callId) {
        if (options.approve) return false;
        const verdict = await calls.verdict(definition.name, args);
        if (verdict === undefined || verdict.verdict === "ask") return verdict !== undefined;
        if (callId !== undefined) decided.set(callId, { verdict: verdict.verdict, by: verdict.by, ...(verdict.reason === undefined ? {} : { reason: verdict.reason }) });
        return false;
      },
      question: (args) => calls.question(definition.name, args),
      async run(args, control = {}) {
        const before = control.callId === undefined ? undefined : decided.get(control.callId);
        if (control.callId !== undefined) decided.delete(control.callId);
        if (closing.signal.aborted) return closedAnswer(definition.name);
        const recorded = control.approved ? THROUGH_SDK : before;
        const result = await track(calls.call(definition.name, args, signalOf(control.signal), recorded));
        if (!result.ok) return failed(result.error);
        return { ok: true, content: [{ type: "text", text: result.text }, ...(result.attachments ?? [])] };
      },
    }));
  }

  function programTool(): SessionTool {
    // The session's programs share one realm, as gg mcp's do.
    const runtime = createRuntime({ workspace: options.workspace, config, ...agent, ...approve, ...(functions ? { functions } : {}), keepState: true });
    ending.push(() => runtime.close());
    const shown = new Set<number>();
    // What this agent holds of them, as the runtime's catalog gives it once the servers are listed.
    const external = functions && functions.length > 0 ? heldCatalog(appSurface(functions).catalog, config) : undefined;
    let description = programToolDescription({ config, ...(external ? { external } : {}) });
    // The configured MCP servers are named once listed (their tools' types with them): they start now.
    if (Object.values(config.mcpServers ?? {}).some((entry) => entry.enabled !== false)) {
      void runtime.catalog().then((catalog) => {
        if (catalog) description = programToolDescription({ config, external: catalog });
      }, () => {});
    }
    let queue: Promise<unknown> = Promise.resolve();
    return {
      name: "run_program",
      description: () => description,
      parameters: RunProgram,
      // A program's calls are judged as it makes them, and asked of `approve`: the SDK cannot pause a program.
      needsApproval: async () => false,
      question: async () => undefined,
      async run(args, control = {}) {
        const refused = checkArguments("run_program", RunProgram, args);
        if (refused) return failed(refused);
        if (closing.signal.aborted) return closedAnswer("run_program");
        // One program at a time, each with the views it opened, so a report and its views line up.
        const answer = queue.then(() => runProgramTool(runtime, shown, args as Parameters<typeof runProgramTool>[2], signalOf(control.signal)));
        queue = answer.catch(() => {});
        const given = await track(answer);
        if ("refused" in given) return failed(given.refused);
        return { ok: given.report.ok, content: given.parts, ...(given.report.error ? { error: { code: given.report.error.code, message: given.report.error.message } } : {}) };
      },
    };
  }

  let closed: Promise<void> | undefined;
  /**
   * Ends the runtime and every command the tools started: the calls and programs under way are cancelled (their
   * commands stopped with them) and waited for, then the runtime is closed and its runner waited for.
   */
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      closing.abort();
      await Promise.allSettled([...running]);
      await Promise.allSettled(ending.map((end) => end()));
    })());
  if (options.signal?.aborted) void close();
  else options.signal?.addEventListener("abort", () => void close(), { once: true });
  return { tools, close };
}

/** What both SDKs' tool sets carry beside their tools. */
export interface SessionControls {
  /** Ends the runtime and every command the tools started. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * The question gg would put to a person about a call of tool `toolName` with `input` (what asked and why, and the
   * arguments, every character that could mislead escaped): what an application shows when the SDK asks for approval.
   * Undefined when gg would not ask (run_program's calls are asked of `approve` as the program makes them).
   */
  question(toolName: string, input: unknown): Promise<Question | undefined>;
}

/** Gives `target` the {@link SessionControls} of `session`, not enumerable: an SDK that walks the set sees its tools only. */
export function withControls<T extends object>(target: T, session: ReturnType<typeof ggSession>): T & SessionControls {
  const question = async (toolName: string, input: unknown) => session.tools.find((tool) => tool.name === toolName)?.question(input);
  for (const [key, value] of [["close", session.close], [Symbol.asyncDispose, session.close], ["question", question]] as const) Object.defineProperty(target, key, { value, enumerable: false });
  return target as T & SessionControls;
}
