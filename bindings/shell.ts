// shell: run a command line through sh -c and hand back its exit code and output, under the output policy.
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { SHELL_LOG_DIR } from "../host/logs.ts";
import { createOutputSink, createVerdictSink, OUTPUT_BYTE_CAP, OUTPUT_MODES, type OutputPolicy } from "../host/output.ts";
import { SANDBOX_MODES } from "../host/sandbox.ts";
import { resolveSandbox, type SandboxRequest } from "../host/sandbox_paths.ts";
import { sandboxStart } from "../host/sandbox_start.ts";
import { runCommand } from "../host/shell.ts";
import type { Configuration } from "./capabilities.ts";
import { defineCall, holdsCall } from "./define.ts";
import { sandboxRequest, sandboxRule } from "./sandbox.ts";

/** Seconds a command may run when the call names no timeout. */
export const SHELL_DEFAULT_TIMEOUT_SECS = 3600;
/** Longest timeout served, in seconds; longer requests are clamped to it. */
export const SHELL_MAX_TIMEOUT_SECS = 24 * 3600;

/** Output handling for commands run without a shell policy: the whole output, under the byte cap alone. */
export const WHOLE_OUTPUT: OutputPolicy = { mode: "inline", maxLines: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY };

/** The output policy of an enabled shell capability, or undefined when the agent holds no shell. */
export function shellPolicy(config: Configuration): OutputPolicy | undefined {
  const capability = config.capabilities.shell;
  if (!capability.enabled) return undefined;
  return {
    mode: capability.implementation as OutputPolicy["mode"],
    maxLines: Number(capability.params.maxLines),
    maxChars: Number(capability.params.maxChars),
  };
}

/** A finished command, as programs and `--json` receive it. */
export const ShellResult = Type.Object(
  {
    exitCode: Type.Integer(),
    output: Type.String({ description: "The inline output, the truncation note included when it was cut." }),
    truncated: Type.Boolean(),
    files: Type.Optional(Type.Object({ stdout: Type.String(), stderr: Type.String() }, { description: "Where the full streams are (offload only)." })),
    signal: Type.Optional(Type.String({ description: "The signal that ended sh, if one did." })),
    sandbox: Type.Optional(Type.Enum(SANDBOX_MODES.filter((mode) => mode !== "off"), { description: "The sandbox the command ran in; absent when it ran unconfined." })),
  },
  { $id: "ShellResult", description: "A finished command, as programs and `--json` receive it." },
);
export type ShellResult = Static<typeof ShellResult>;

/** Where and how long to run a command. */
export interface ExecuteOptions {
  cwd: string;
  /** Requested timeout in seconds (default 3600); clamped to 24 hours, then to the budget left. */
  timeoutSecs?: number;
  /** Output policy; undefined for the whole output under the byte cap alone; "verdict" for stdout whole. */
  policy: OutputPolicy | "verdict" | undefined;
  agent: string;
  /** End of the run's wall-clock budget, epoch ms. */
  deadline?: number;
  /** Stops the command when aborted (the run that started it ended). */
  signal?: AbortSignal;
  /** Written to the command's stdin (an approval hook's request); absent, stdin is closed. */
  input?: string;
  /** The sandbox to run it in (the shell capability's); absent, it runs unconfined (an approval hook, a study's check). */
  sandbox?: SandboxRequest;
}

/** Milliseconds a command may run: the request (default 3600 s) clamped to 24 hours, then to the budget left. */
export function effectiveTimeoutMs(timeoutSecs: number | undefined, deadline: number | undefined, now = Date.now()): number {
  const requested = Math.min(timeoutSecs ?? SHELL_DEFAULT_TIMEOUT_SECS, SHELL_MAX_TIMEOUT_SECS) * 1000;
  return deadline === undefined ? requested : Math.min(requested, deadline - now);
}

/** Seconds for a message: milliseconds kept, and never rounded down to 0. */
const seconds = (ms: number): string => String(ms >= 1 ? Number((ms / 1000).toFixed(3)) : Number((ms / 1000).toPrecision(2)));

/** Refuses what no caller of {@link execute} may ask for, with invalid-argument, before anything starts. */
function checkRequest(options: ExecuteOptions): void {
  const { timeoutSecs, policy } = options;
  if (timeoutSecs !== undefined && !(typeof timeoutSecs === "number" && timeoutSecs > 0 && Number.isFinite(timeoutSecs))) {
    throw new GgError("invalid-argument", `Cannot run the command: timeoutSecs ${String(timeoutSecs)} is not a positive number of seconds; leave it out for ${SHELL_DEFAULT_TIMEOUT_SECS}`);
  }
  if (policy === undefined || policy === "verdict") return;
  const count = (value: number): boolean => Number.isInteger(value) && value >= 1;
  if (!OUTPUT_MODES.includes(policy.mode) || !count(policy.maxLines) || !count(policy.maxChars)) {
    throw new GgError(
      "invalid-argument",
      `Cannot run the command: output mode ${JSON.stringify(policy.mode)} with maxLines ${policy.maxLines} and maxChars ${policy.maxChars} is not a policy; the modes are ${OUTPUT_MODES.join(", ")} and both ceilings are whole numbers, 1 or more`,
    );
  }
}

/** The sandbox `request` asks for, ready to start: refused (launch-failed) where none can start, never run without. */
async function confinement(request: SandboxRequest | undefined): Promise<Parameters<typeof runCommand>[0]["sandbox"]> {
  if (request === undefined) return undefined;
  const start = await sandboxStart();
  if (!start.ok) throw new GgError("launch-failed", `Cannot run the command: the shell's sandbox (${request.mode}) cannot start: ${start.problem}; nothing was run`);
  return { bwrap: start.bwrap, policy: resolveSandbox(request) };
}

/** Runs one command under one policy: every command gg runs (tool call, program, hook) comes through here. */
export async function execute(command: string, options: ExecuteOptions): Promise<ShellResult> {
  checkRequest(options);
  const requestedMs = effectiveTimeoutMs(options.timeoutSecs, undefined);
  const sandbox = await confinement(options.sandbox);
  const timeoutMs = effectiveTimeoutMs(options.timeoutSecs, options.deadline);
  if (timeoutMs <= 0) throw new GgError("timeout", "Cannot run the command: the run's wall-clock budget is spent; nothing was started");
  const sink = options.policy === "verdict" ? createVerdictSink() : createOutputSink(options.policy ?? WHOLE_OUTPUT, options.agent);
  let outcome: Awaited<ReturnType<typeof runCommand>>;
  try {
    outcome = await runCommand({ command, cwd: options.cwd, timeoutMs, sink, ...(options.signal ? { signal: options.signal } : {}), ...(options.input === undefined ? {} : { input: options.input }), ...(sandbox ? { sandbox } : {}) });
  } catch (error) {
    sink.close();
    throw error;
  }
  const { output, truncated, files } = sink.finish();
  if (outcome.timedOut) {
    const where = files ? `\nFull output: ${files.stdout} and ${files.stderr}` : "";
    const clamped = timeoutMs < requestedMs;
    throw new GgError(
      "timeout",
      `Command stopped after its ${seconds(timeoutMs)} s timeout${clamped ? " (what was left of the run's wall-clock budget)" : ""}, with every process in its group; ${clamped ? "run less per command, or ask for a larger budget" : "raise timeoutSecs or run less at once"}. Output so far:\n${output === "" ? "(no output)" : output}${where}`,
    );
  }
  return { exitCode: outcome.exitCode, output, truncated, ...(files ? { files } : {}), ...(outcome.signal ? { signal: outcome.signal } : {}), ...(sandbox ? { sandbox: sandbox.policy.mode } : {}) };
}

/** `text` after a space, or nothing for no text. */
const spaced = (text: string): string => (text === "" ? "" : ` ${text}`);

const withSandbox = (sandbox: SandboxRequest | undefined): { sandbox?: SandboxRequest } => (sandbox ? { sandbox } : {});

/** The text a tool-calling model receives for a finished command. */
export function formatShellResult(result: ShellResult): string {
  const status = result.signal ? `[exit code: ${result.exitCode} (${result.signal})]` : `[exit code: ${result.exitCode}]`;
  if (result.output === "") return `(no output)\n${status}`;
  return `${result.output}${result.output.endsWith("\n") ? "" : "\n"}${status}`;
}

/** How to read an offloaded log with the calls the agent holds. */
function readLogs(config: Configuration): string {
  const ways = [
    ...(holdsCall(config, { capability: "read-file", name: "read_file" }) ? ["read_file with offset and limit"] : []),
    ...(holdsCall(config, { capability: "read-file", name: "read", batch: true }) ? ["read with start_line and end_line"] : []),
    ...(holdsCall(config, { capability: "search", name: "search" }) || holdsCall(config, { capability: "search", name: "search", batch: true }) ? ["search with path"] : []),
  ];
  return ways.length > 0 ? `read or search those files (${ways.join(", or ")})` : "read those files with a command (tail, grep, sed -n)";
}

/** What happens to long output under the configured policy, and what to do about it. */
export function outputRule(config: Configuration): string {
  const policy = shellPolicy(config);
  return policy?.mode === "offload"
      ? `Output longer than ${policy.maxLines} lines or ${policy.maxChars} characters (or ${OUTPUT_BYTE_CAP / 1024} KiB) comes back as its tail, followed by a note ` +
        `naming two files under ${SHELL_LOG_DIR} that hold the full stdout and stderr of every command, with their line counts ` +
        `and longest lines. When output is truncated, ${readLogs(config)} instead of running the command again.`
      : `Output over ${OUTPUT_BYTE_CAP / 1024} KiB is cut to its last ${OUTPUT_BYTE_CAP / 1024} KiB and nothing is kept on disk, ` +
        "so pipe long output through tail, grep or head.";
}

/** The output rule as a program's author is told it: the numbers, and where the rest is. */
function outputNote(config: Configuration): string {
  const policy = shellPolicy(config);
  return policy?.mode === "offload"
    ? `Output over ${policy.maxLines} lines or ${policy.maxChars} characters comes back as its tail, with a note naming the files holding it all.`
    : `Output over ${OUTPUT_BYTE_CAP / 1024} KiB is cut to its last ${OUTPUT_BYTE_CAP / 1024} KiB.`;
}

function describe(config: Configuration): string {
  return (
    "Run a command line with sh -c in the working directory, stdin closed. Returns stdout and stderr merged in " +
    "arrival order, then [exit code: N]. A non-zero exit code is a result, not a failure: read it to tell whether a " +
    `build or test passed. timeoutSecs defaults to ${SHELL_DEFAULT_TIMEOUT_SECS}; on timeout every process the command ` +
    `started is killed and the call fails with the output so far. Background processes are stopped when the command ends. ${outputRule(config)}${spaced(sandboxRule(config))}`
  );
}

export const shell = defineCall({
  name: "shell",
  capability: "shell",
  effects: true,
  openWorld: true,
  async: true,
  brief: "Run a shell command and get its exit code and output.",
  code: {
    module: "shell",
    name: "shell",
    positional: ["command"],
    note: (config) => `sh -c in the workspace; timeoutSecs: default ${SHELL_DEFAULT_TIMEOUT_SECS}; a non-zero exitCode is a result. ${outputNote(config)}${spaced(sandboxRule(config))}`,
  },
  result: ShellResult,
  json: (output) => ({ ...output.data }),
  parameters: () =>
    Type.Object(
      {
        command: Type.String({ minLength: 1, description: "Command line, run by sh -c in the working directory." }),
        timeoutSecs: Type.Optional(
          Type.Number({ exclusiveMinimum: 0, description: `Seconds before the command is stopped. Default ${SHELL_DEFAULT_TIMEOUT_SECS}, at most ${SHELL_MAX_TIMEOUT_SECS}.` }),
        ),
      },
      { additionalProperties: false },
    ),
  description: describe,
  async run({ command, timeoutSecs }, context): Promise<ShellResult> {
    if (command.includes("\0")) throw new GgError("invalid-argument", "Cannot run the command: it contains a NUL byte, which no command line can hold");
    return execute(command, {
      cwd: context.cwd,
      ...(timeoutSecs === undefined ? {} : { timeoutSecs }),
      policy: shellPolicy(context.config),
      agent: context.agent,
      ...(context.deadline === undefined ? {} : { deadline: context.deadline }),
      ...(context.signal ? { signal: context.signal } : {}),
      ...withSandbox(sandboxRequest(context.config, context)),
    });
  },
  render: formatShellResult,
  confined: (data) => data.sandbox,
});
