// The registry of gg calls: the JSON tool surface is derived from the declarations, never written twice.
import type { TSchema } from "typebox";
import { callError, quote } from "../host/errors.ts";
import { nodeFileHost } from "../host/files.ts";
import { createWarmCache, warmFileHost } from "../host/warm.ts";
import { type Configuration, defaultConfiguration, forAgent, isConfiguration, parseConfiguration } from "./config.ts";
import { type CallContext, type CallDefinition, type CallResult, checkArguments, holdsCall, parametersOf } from "./define.ts";
import { newRunId, type RuleVerdict } from "./approval_match.ts";
import { type Approval, type Approve, invokeApproved, requestBeforeAsking, verdictBeforeAsking } from "./gate.ts";
import { type Question, questionOf } from "./approval_question.ts";
import { CALLS } from "./calls.ts";
import { appSurface, type ExternalDeclaration, type ExternalSurface, holdsExternal } from "./external.ts";
import { appFunctionsOf, type Functions } from "./toolset.ts";
import { cutName } from "./external_names.ts";

export { CALLS } from "./calls.ts";

/** A tool definition as a tool-calling model receives it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: TSchema;
}

/** The calls that exist under `config`: not a disabled capability's, nor one the selected agent's allowlist leaves out. */
export const enabledCalls = (config: Configuration): CallDefinition[] =>
  CALLS.filter((call) => holdsCall(config, call));

/** The JSON tool definitions of the enabled calls. */
export const toolDefinitions = (config: Configuration): ToolDefinition[] =>
  enabledCalls(config).map((call) => ({
    name: call.name,
    description: call.description(config),
    parameters: JSON.parse(JSON.stringify(call.parameters(config))) as TSchema,
  }));

/** An external tool as a tool-calling model receives it: its server's description and input schema. */
const externalDefinition = (declaration: ExternalDeclaration): ToolDefinition => ({
  name: declaration.name,
  description: declaration.tool.description,
  parameters: JSON.parse(JSON.stringify(declaration.tool.inputSchema)) as TSchema,
});

/** What an MCP client is told of a call's effects, from its declaration, so it can apply its own policies too. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

/** The MCP annotations of a call with `effects` (and `openWorld`) as declared: read-only unless it has effects. */
export const toolAnnotations = (call: { effects?: true; openWorld?: true }): ToolAnnotations =>
  call.effects ? { readOnlyHint: false, destructiveHint: true, ...(call.openWorld ? { openWorldHint: true } : {}) } : { readOnlyHint: true };

/** Options for {@link createTools}. */
export interface ToolsOptions {
  /** Workspace root; relative paths resolve against it. */
  workspace: string;
  /** Working directory when it differs from the workspace root (an agent's worktree). */
  cwd?: string;
  /** A configuration: parsed, or as a configuration file holds it (an array of capabilities, or the object form). */
  config?: Configuration | unknown;
  /** The agent's id: its allowlist in the configuration, if it has one, decides its calls; it names its offloaded
   *  command output (default: this process's id, and every enabled call). */
  agent?: string;
  /** The run's wall-clock budget in seconds: command timeouts are clamped to what is left of it. */
  budgetSecs?: number;
  /**
   * What searches and walks keep between calls (listings, ignore files, trigram filters and file contents, each checked
   * by stat before use): on by default, within `capBytes` bytes (default: a 160th of the machine's memory, 64 MiB to
   * 1 GiB), past which it keeps the listings and filters first and never evicts what the last searches used (see
   * docs/performance.md); false for a one-shot call, which gains nothing from it.
   */
  warm?: false | { capBytes?: number };
  /**
   * Asked about each call whose verdict is ask (by a rule, approvalDefault or the hook), with what the hook receives;
   * the call waits for its answer, up to approvalTimeoutSecs. Absent, an ask is a deny saying no one could be asked.
   */
  approve?: Approve;
  /** The run's id, as the approval hook and `approve` receive it (default: a fresh one). */
  runId?: string;
  /**
   * Other MCP servers' tools and the application's functions, as tools `mcp__<server>__<tool>` and `app__<name>`:
   * `(await createExternals(config, functions).surface())` for a configuration's servers.
   */
  external?: ExternalSurface;
  /** The application's own functions, or an AI SDK ToolSet's tools, as tools `app__<name>` (when `external` does not already hold them). */
  functions?: Functions;
}

/** The context calls run in, from the options of a run. */
/** The configuration of a run's options, parsed if given as a file holds it, as its agent sees it. */
export const configurationOf = (options: Pick<ToolsOptions, "config" | "agent">): Configuration =>
  forAgent(options.config === undefined ? defaultConfiguration() : isConfiguration(options.config) ? options.config : parseConfiguration(options.config), options.agent);

export function callContext(options: ToolsOptions): CallContext {
  const warm = options.warm === false ? undefined : createWarmCache(options.warm?.capBytes);
  return {
    workspace: options.workspace,
    cwd: options.cwd ?? options.workspace,
    config: configurationOf(options),
    files: warm ? warmFileHost(nodeFileHost, warm) : nodeFileHost,
    agent: options.agent ?? String(process.pid),
    ...(options.budgetSecs === undefined ? {} : { deadline: Date.now() + options.budgetSecs * 1000 }),
    ...(warm ? { warm } : {}),
    approvals: { arm: "tools", runId: options.runId ?? newRunId(), ...(options.approve ? { approve: options.approve } : {}) },
  };
}

/** The tool-calling surface for one run: definitions plus a `call` that never throws. */
export function createTools(options: ToolsOptions) {
  const context = callContext(options);
  const own = enabledCalls(context.config);
  const functions = options.external ? undefined : appFunctionsOf(options.functions);
  const surface = options.external ?? (functions && functions.length > 0 ? appSurface(functions) : undefined);
  const external = [...(surface?.declarations.values() ?? [])].filter((declaration) => holdsExternal(context.config, declaration.name));
  const calls = new Map<string, CallDefinition | ExternalDeclaration>([...own.map((call) => [call.name, call] as const), ...external.map((declaration) => [declaration.name, declaration] as const)]);
  /** The next call's number in this run. */
  let seq = 0;
  const given = (args: unknown): unknown => (args === undefined ? {} : args);
  /** Tool `name`: a long external one may be named in full, as its server names it; it is cut as its tool's name is. */
  const find = (name: string): CallDefinition | ExternalDeclaration | undefined => calls.get(name) ?? calls.get(cutName(name));
  /** Tool `name` if `args` are arguments its schema takes. */
  const checkedCall = (name: string, args: unknown): CallDefinition | ExternalDeclaration | undefined => {
    const call = find(name);
    return call && !checkArguments(call.name, parametersOf(call, context.config), given(args)) ? call : undefined;
  };
  return {
    definitions: (): ToolDefinition[] => [...toolDefinitions(context.config), ...external.map(externalDefinition)],
    /** The MCP annotations of tool `name` (read-only, destructive, open-world), from its declaration. */
    annotations: (name: string): ToolAnnotations | undefined => {
      const call = find(name);
      return call && toolAnnotations(call);
    },
    /** The names of the tools, without building their definitions (a CLI call checks its tool by them). */
    names: (): string[] => [...calls.keys()],
    /** The name of tool `name` as the tools are named (a long external one given in full is cut), if there is one. */
    nameOf: (name: string): string | undefined => find(name)?.name,
    /** What `gg call --json` prints for `result` of call `name`. */
    json(name: string, result: CallResult): Record<string, unknown> {
      if (!result.ok) return result;
      const call = find(name);
      return { ok: true, ...(call && "json" in call && call.json ? call.json(result) : { text: result.text, attachments: result.attachments ?? [] }) };
    },
    /**
     * gg's verdict on tool `name` with `args` before anyone is asked (the rules', then the approval hook's): an ask is
     * a call gg would put to `approve`. Undefined when the call fails before its approval (no such tool, arguments its
     * schema refuses): `call` says why.
     */
    async verdict(name: string, args: unknown): Promise<RuleVerdict | undefined> {
      const call = checkedCall(name, args);
      return call && verdictBeforeAsking(call, given(args), context, { from: "tool", seq });
    },
    /**
     * The question gg would put to a person about tool `name` with `args` (what asked and why, the arguments, every
     * character that could mislead escaped), for an application that asks through its own means; undefined when gg
     * would not ask.
     */
    async question(name: string, args: unknown): Promise<Question | undefined> {
      const call = checkedCall(name, args);
      const request = call && (await requestBeforeAsking(call, given(args), context, { from: "tool", seq }));
      return request && questionOf(request);
    },
    /**
     * Runs tool `name` once its approval is decided (the result carries it); aborting `signal` stops what the call
     * started (a command, with its process group). A `recorded` approval (a replay's) is its decision, taken as given.
     */
    async call(name: string, args: unknown, signal?: AbortSignal, recorded?: Approval): Promise<CallResult> {
      const call = find(name);
      if (!call) {
        const known = [...calls.keys()].join(", ");
        return { ok: false, error: callError("invalid-argument", `Cannot call ${quote(name)}: no such tool in this run; the tools are ${known}`) };
      }
      return invokeApproved(call, args, signal ? { ...context, signal } : context, { from: "tool", seq: seq++, ...(recorded ? { recorded } : {}) });
    },
  };
}
