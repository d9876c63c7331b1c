// The approval gate: every call an agent makes, as a tool call or from a program, passes here before it runs. Its
// verdict is the strictest of the rules (or the defaults), the approval hook's, and, for an ask, the answer of the
// person asked; a denied call comes back as a `denied` error and nothing of it runs.
import type { Static, TSchema } from "typebox";
import { excerpt, GgError, quote } from "../host/errors.ts";
import type { ConfinedMode } from "../host/sandbox.ts";
import type { TouchCheck } from "../host/files.ts";
import { escapeUnshowable } from "../host/shown.ts";
import { type Approval, type ApprovalAnswer, type ApprovalRequest, type DecidedBy, allowsEverything, type CallTraits, DEFAULT_APPROVAL_TIMEOUT_SECS, DEFAULT_HOOK_TIMEOUT_SECS, type RuleVerdict, stricter, touchCheck } from "./approval_match.ts";
import { callVerdict, judgeCall } from "./approval_shell.ts";
import { guardsOwnFiles } from "./approval_own.ts";
import type { ApprovalHook, Configuration, Verdict } from "./capabilities.ts";
import { type CallContext, type CallResult, type Runnable, checkArguments, parametersOf, runChecked, runCheckedSync } from "./define.ts";
import { execute } from "./shell.ts";

export type { Approval, ApprovalAnswer, ApprovalContext, ApprovalRequest, Approve, DecidedBy } from "./approval_match.ts";

/** Where a call comes from, and the gate's decision on it once made. */
export interface CallOrigin {
  from: "tool" | "program";
  /** The call's number in its run, from 0. */
  seq: number;
  /**
   * A decision given in advance (a replay's, as recorded): the rules judge the call again, and the recorded decision
   * stands where they allow or ask (no hook or person is consulted); see {@link replayed}.
   */
  recorded?: Approval;
  approval?: Approval;
  /** The sandbox the call's command ran in, once it ran in one. */
  sandbox?: ConfinedMode;
}

/** Thrown by {@link runApprovedSync} when the call must wait (a hook to run, a person to ask): run it with {@link runApproved}. */
export class Undecided extends Error {
  constructor() {
    super("The call must wait for its approval");
    this.name = "Undecided";
  }
}

const ALLOWED: Approval = Object.freeze({ verdict: "allow", by: "default" }) as Approval;

/** The traits rules match a definition by, built once per definition. */
const traits = new WeakMap<object, CallTraits>();
function traitsOf(definition: Runnable, config: Configuration): CallTraits {
  let found = traits.get(definition);
  if (!found) {
    const properties = (definition.parameters(config) as { properties?: object }).properties ?? {};
    found = { name: definition.name, effects: definition.effects === true, paths: "path" in properties || "files" in properties, ...(definition.walks ? { walks: true } : {}), ...(definition.reads ? { reads: true } : {}) };
    traits.set(definition, found);
  }
  return found;
}

const argsOf = (args: unknown): Record<string, unknown> => (typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {});

/** The hooks that see this context's calls: the top level's, then the agent's. */
const hooksOf = (context: CallContext): ApprovalHook[] => [context.config.approvals?.hook, context.config.agentApproval?.hook].filter((hook): hook is ApprovalHook => hook !== undefined);

/** Seconds an ask may wait for an answer under `config`: the agent's approvalTimeoutSecs, else the top level's, else 300. */
export const askTimeoutSecs = (config: Configuration): number => config.agentApproval?.timeoutSecs ?? config.approvals?.timeoutSecs ?? DEFAULT_APPROVAL_TIMEOUT_SECS;

/** The decision when it needs no waiting (no hook, and no ask); undefined when the call must wait for it. */
export function decideNow(definition: Runnable, args: unknown, context: CallContext): Approval | undefined {
  const call = traitsOf(definition, context.config);
  // A write may be of gg's own configuration, which is asked however idle the approvals are.
  if (allowsEverything(context.config) && !(call.effects && (call.paths || call.name === "shell") && guardsOwnFiles(context.config))) return ALLOWED;
  if (hooksOf(context).length > 0) return undefined;
  // Undefined too while the shell parser loads: the call then waits for it in decide().
  const ruled = callVerdict(context.config, call, argsOf(args), context);
  return ruled === undefined || ruled.verdict === "ask" ? undefined : decided(ruled);
}

/** Who answers an ask: a recorded allow by anyone else, where the rules ask, was not an answer. */
const ANSWERERS: readonly DecidedBy[] = ["hook", "person", "client", "standing"];

/**
 * A replay's decision on a call recorded with `recorded`: the rules of the recorded configuration judge it again. A
 * recorded answer stands where they allow or ask; a recorded allow where they deny (or, where they ask, an allow by no
 * one who answers asks) is a tampered transcript: the call is refused, marked `tampered`.
 */
function replayed(definition: Runnable, args: unknown, context: CallContext, recorded: Approval): Approval | undefined {
  const ruled = callVerdict(context.config, traitsOf(definition, context.config), argsOf(args), context);
  return ruled && rejudged(ruled, recorded);
}

/** A recorded decision against what the recorded configuration's rules say now (see {@link replayed}). */
function rejudged(ruled: RuleVerdict, recorded: Approval): Approval {
  const forged = recorded.verdict === "allow" && (ruled.verdict === "deny" || (ruled.verdict === "ask" && !ANSWERERS.includes(recorded.by)));
  if (forged) {
    const said = `${ruled.by === "config" ? "gg, for its own configuration," : ruled.by} of the recorded configuration says ${ruled.verdict}${ruled.reason ? ` (${ruled.reason})` : ""}`;
    return { verdict: "deny", by: ruled.by, reason: `the transcript is tampered: it records this call as allowed by ${recorded.by}, but ${said}`, tampered: true };
  }
  return ruled.verdict === "deny" ? decided(ruled) : recorded;
}

/** The decision on a call when it needs no waiting (a replay's judged again, or the rules'), else undefined. */
export const decidedNow = (definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): Approval | undefined =>
  origin.recorded ? replayed(definition, args, context, origin.recorded) : decideNow(definition, args, context);

/** The decision on a call, waiting for what it needs (the shell parser, a hook, a person). */
export async function decision(definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): Promise<Approval> {
  if (!origin.recorded) return decide(definition, args, context, origin);
  return rejudged(await judgeCall(context.config, traitsOf(definition, context.config), argsOf(args), context), origin.recorded);
}

/** A verdict of the rules that needs no one asked, as a decision. */
const decided = (ruled: RuleVerdict): Approval => ({
  verdict: ruled.verdict === "allow" ? "allow" : "deny",
  by: ruled.by,
  ...(ruled.reason === undefined ? {} : { reason: ruled.reason }),
  ...(ruled.part === undefined || ruled.verdict === "allow" ? {} : { part: ruled.part }),
});

/** What the hook and a person asked are told of a call. */
function requestOf(definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): ApprovalRequest {
  return {
    agent: context.agent,
    call: definition.name,
    args,
    arm: context.approvals?.arm ?? "tools",
    from: origin.from,
    runId: context.approvals?.runId ?? "",
    seq: origin.seq,
    workspace: context.workspace,
  };
}

/**
 * The verdict on a call before anyone is asked: the rules', then each hook's (the strictest standing). An ask is what
 * a person would be asked, which an agent framework's own human-in-the-loop can take over.
 */
export async function verdictBeforeAsking(definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): Promise<RuleVerdict> {
  let verdict: RuleVerdict = await judgeCall(context.config, traitsOf(definition, context.config), argsOf(args), context);
  const request = requestOf(definition, args, context, origin);
  for (const hook of hooksOf(context)) {
    const answer = await askHook(hook, request, context);
    // The hook's verdict stands when it is stricter, or as strict as one the defaults gave.
    if (stricter(answer.verdict, verdict.verdict) || (answer.verdict === verdict.verdict && verdict.by === "default")) verdict = { verdict: answer.verdict, by: "hook", ...(answer.reason === undefined ? {} : { reason: answer.reason }) };
  }
  return verdict;
}

/** `request` as a person is asked it: with what asked, why, and the parts of a command line that did. */
const asked = (request: ApprovalRequest, ask: RuleVerdict): ApprovalRequest => ({
  ...request,
  asking: { by: ask.by, ...(ask.reason === undefined ? {} : { reason: ask.reason }), ...(ask.part === undefined ? {} : { part: ask.part }), ...(ask.parts === undefined ? {} : { parts: ask.parts }) },
});

/**
 * What a person would be asked about a call before it runs (the request `approve` would get), or undefined when gg
 * would not ask (its rules and hooks allow or deny it).
 */
export async function requestBeforeAsking(definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): Promise<ApprovalRequest | undefined> {
  const verdict = await verdictBeforeAsking(definition, args, context, origin);
  return verdict.verdict === "ask" ? asked(requestOf(definition, args, context, origin), verdict) : undefined;
}

/** The whole decision: the verdict before asking, then for an ask, the person's. */
async function decide(definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): Promise<Approval> {
  const verdict = await verdictBeforeAsking(definition, args, context, origin);
  return verdict.verdict === "ask" ? askPerson(verdict, requestOf(definition, args, context, origin), context) : decided(verdict);
}

/** Reads a hook's stdout: one JSON verdict, `{"verdict": "allow" | "ask" | "deny", "reason"?: string}`. */
function readVerdict(output: string): ApprovalAnswer | string {
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return `it printed ${output.trim() === "" ? "nothing" : quote(output, 200)}, not one JSON verdict`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `it printed ${excerpt(JSON.stringify(value))}, not a JSON object`;
  const { verdict, reason, ...rest } = value as Record<string, unknown>;
  if (verdict !== "allow" && verdict !== "ask" && verdict !== "deny") return `its verdict ${excerpt(JSON.stringify(verdict) ?? "undefined")} is not "allow", "ask" or "deny"`;
  if (reason !== undefined && typeof reason !== "string") return "its reason is not a string";
  if (Object.keys(rest).length > 0) return `it printed unknown fields ${Object.keys(rest).map((key) => JSON.stringify(key)).join(", ")}`;
  return { verdict, ...(reason === undefined ? {} : { reason }) };
}

/** Runs the hook on `request`: a failure, a timeout or anything but one verdict on stdout is a deny saying so. */
async function askHook(hook: ApprovalHook, request: ApprovalRequest, context: CallContext): Promise<{ verdict: Verdict; reason?: string }> {
  const timeoutSecs = hook.timeoutSecs ?? DEFAULT_HOOK_TIMEOUT_SECS;
  const refused = (why: string): { verdict: Verdict; reason: string } => ({ verdict: "deny", reason: `the approval hook ${JSON.stringify(hook.command)} failed: ${why}` });
  try {
    const result = await execute(hook.command, {
      cwd: context.workspace,
      timeoutSecs,
      policy: "verdict",
      agent: context.agent,
      input: `${JSON.stringify(request)}\n`,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (result.exitCode !== 0) return refused(`it exited with status ${result.exitCode}${result.signal ? ` (${result.signal})` : ""}`);
    const answer = readVerdict(result.output);
    return typeof answer === "string" ? refused(answer) : answer;
  } catch (error) {
    const timedOut = error instanceof GgError && error.code === "timeout";
    return refused(timedOut ? `it did not answer within its ${timeoutSecs} s timeout` : error instanceof Error ? error.message : String(error));
  }
}

/** Puts an ask to the person (or client) who can answer it, the run's clocks stopped while it waits. */
async function askPerson(ask: RuleVerdict, request: ApprovalRequest, context: CallContext): Promise<Approval> {
  const approve = context.approvals?.approve;
  const part = ask.part === undefined ? {} : { part: ask.part };
  if (!approve) return { verdict: "deny", by: ask.by, reason: `its verdict is ask${ask.reason ? ` (${ask.reason})` : ""}, and no one could be asked in this run`, ...part };
  const timeoutSecs = askTimeoutSecs(context.config);
  const started = performance.now();
  const resume = context.approvals?.pause?.();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutSecs * 1000);
  });
  let answer: ApprovalAnswer | "late" | Error;
  try {
    answer = await Promise.race([approve(asked(request, ask)).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))), late]);
  } finally {
    clearTimeout(timer);
    resume?.();
  }
  const waitedMs = Math.round(performance.now() - started);
  if (answer === "late") return { verdict: "deny", by: "person", reason: `no answer came within ${timeoutSecs} s (approvalTimeoutSecs)`, ...part, waitedMs };
  if (answer instanceof Error) return { verdict: "deny", by: "person", reason: `asking failed: ${answer.message}`, ...part, waitedMs };
  const by = answer.by === "client" || answer.by === "standing" ? answer.by : "person";
  const given = answer.verdict === "ask" ? "the answer was ask again, which decides nothing" : answer.reason;
  // A refused write of gg's own configuration says what it was, so the agent does not try it another way.
  const reason = ask.by === "config" && answer.verdict !== "allow" ? `${given ?? "refused"}; it was asked because ${ask.reason}` : given;
  return { verdict: answer.verdict === "allow" ? "allow" : "deny", by, ...(reason === undefined ? {} : { reason }), ...part, waitedMs };
}

/** The failure of a denied call: what was refused, by whom and why, and a way forward. */
export function deniedError(name: string, approval: Approval): GgError {
  const why = `${approval.reason ? `: ${approval.reason}` : ""}${approval.part === undefined ? "" : ` (for ${escapeUnshowable(quote(approval.part))})`}`;
  // No one was asked: the run's standing answer said no.
  if (approval.by === "standing") return new GgError("denied", `Cannot run ${name}: denied${why}; nothing of it ran; do the task another way, or ask the person to run it where they can approve it`);
  const forward =
    approval.by === "person" || approval.by === "client"
      ? "do not repeat it as it is; do the task another way, or ask the person what they want"
      : approval.by === "hook"
        ? "the approval hook decides this; do the task another way, or ask the person to change the hook"
        : "the configuration's approvals forbid it; do the task another way, or ask the person to change the rule";
  return new GgError("denied", `Cannot run ${name}: denied by ${approval.by}${why}; nothing of it ran; ${forward}`);
}

/** A denied call's outcome. */
const refusal = (name: string, approval: Approval): CallResult<never> => {
  const error = deniedError(name, approval);
  return { ok: false, error: { code: error.code, message: error.message }, approval };
};

/** The check of what an allowed call touches as it touches it, under path rules that could restrict it (see CallContext.touch). */
export const touchOf = (definition: Runnable, args: unknown, context: CallContext, approval: Approval): TouchCheck | undefined =>
  touchCheck(context.config, traitsOf(definition, context.config), argsOf(args), context, approval);

/** The context an allowed call runs in: under path rules, with the check of what it touches. */
function runContext(definition: Runnable, args: unknown, context: CallContext, approval: Approval): CallContext {
  const touch = touchOf(definition, args, context, approval);
  return touch ? { ...context, touch } : context;
}

/** Runs a call whose arguments were checked, once its approval is decided: the gate every call passes. */
export async function runApproved<Data>(definition: Runnable<Data>, args: Static<TSchema>, context: CallContext, origin: CallOrigin): Promise<CallResult<Data>> {
  const approval = decidedNow(definition, args, context, origin) ?? (await decision(definition, args, context, origin));
  origin.approval = approval;
  if (approval.verdict === "deny") return refusal(definition.name, approval);
  const result = await runChecked(definition, args, runContext(definition, args, context, approval));
  result.approval = approval;
  if (result.ok && result.sandbox) origin.sandbox = result.sandbox;
  return result;
}

/**
 * {@link runApproved} for a call that is not `async`, inline: throws {@link Undecided} when its approval needs waiting
 * for, before anything ran.
 */
export function runApprovedSync<Data>(definition: Runnable<Data>, args: Static<TSchema>, context: CallContext, origin: CallOrigin): CallResult<Data> {
  const approval = decidedNow(definition, args, context, origin);
  if (!approval) throw new Undecided();
  origin.approval = approval;
  if (approval.verdict === "deny") return refusal(definition.name, approval);
  const result = runCheckedSync(definition, args, runContext(definition, args, context, approval));
  result.approval = approval;
  return result;
}

/** Validates `args` and runs the call through the gate; every outcome, a refusal included, is a result. */
export async function invokeApproved(definition: Runnable, args: unknown, context: CallContext, origin: CallOrigin): Promise<CallResult> {
  const given = args === undefined ? {} : args;
  const refused = checkArguments(definition.name, parametersOf(definition, context.config), given);
  if (refused) return { ok: false, error: refused };
  return runApproved(definition, given as Static<TSchema>, context, origin);
}
