// The shell's sandbox as a configuration sets it: the shell capability's params (sandbox, network, writable) and the
// approval rules' path globs become the request host/sandbox_paths.ts resolves. Rules decide whether a command runs;
// the sandbox bounds what it can do once it runs: what a path rule denies or asks about, the kernel refuses, however
// the command gets there (a script, a Makefile, an interpreter, a renamed binary).
import { GgError } from "../host/errors.ts";
import { SHELL_LOG_DIR } from "../host/logs.ts";
import { type ConfinedMode, SANDBOX_MODES, type SandboxMode } from "../host/sandbox.ts";
import type { SandboxRequest } from "../host/sandbox_paths.ts";
import { sandboxStart } from "../host/sandbox_start.ts";
import { READ_CALLS } from "./approval_match.ts";
import { ownFilePaths } from "./approval_own.ts";
import type { Configuration } from "./capabilities.ts";

/** The calls that write the file their path names: their path rules are what a sandboxed command may not write. */
export const WRITE_CALLS: readonly string[] = ["write_file", "edit_file", "edit"];

/** The shell's sandbox settings, defaults filled in. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** Whether a confined command reaches the network (default false). */
  network: boolean;
  /** Further folders a confined command may write, as configured. */
  writable: readonly string[];
}

/** The sandbox settings of `config`'s shell. A mode gg does not know (a configuration built without the parser) is refused, not taken for off. */
export function sandboxSettings(config: Configuration): SandboxSettings {
  const { sandbox, network, writable } = config.capabilities.shell.params;
  if (sandbox !== undefined && !(SANDBOX_MODES as readonly unknown[]).includes(sandbox)) {
    throw new GgError("invalid-argument", `Cannot run the command: the shell's sandbox ${JSON.stringify(sandbox)} is not a mode; the modes are ${SANDBOX_MODES.join(", ")}`);
  }
  return { mode: (sandbox as SandboxMode | undefined) ?? "off", network: network === true, writable: Array.isArray(writable) ? writable.filter((folder): folder is string => typeof folder === "string") : [] };
}

/** The confined mode of `config`'s shell, or undefined when its commands run unconfined (or it has no shell). */
export function confinedMode(config: Configuration): ConfinedMode | undefined {
  const shell = config.capabilities.shell;
  if (!shell.enabled) return undefined;
  const { mode } = sandboxSettings(config);
  return mode === "off" ? undefined : mode;
}

/** Checks the sandbox params of a shell entry (each one's kind is checked already): they mean nothing without a sandbox. */
export function checkSandboxParams(name: string, params: Record<string, unknown>, problems: string[]): void {
  if (params.sandbox !== undefined && params.sandbox !== "off") return;
  const idle = ["network", "writable"].filter((key) => params[key] !== undefined);
  if (idle.length > 0) {
    problems.push(`${name} sets ${idle.join(" and ")}, which only a sandbox applies, but its sandbox is "off"; set "sandbox": "workspace-write" (or "read-only"), or take ${idle.length > 1 ? "them" : "it"} out`);
  }
}

/** The path globs of the rules of both levels that deny a path to `calls` (or to every call), or ask about it. */
function pathGlobs(config: Configuration, calls: readonly string[]): string[] {
  const rules = [config.approvals, config.agentApproval].flatMap((level) => level?.rules ?? []);
  // A rule with a further condition (a content glob) covers only some calls on its path: no folder is closed for it.
  return rules.filter((rule) => rule.verdict !== "allow" && (rule.call === "*" || calls.includes(rule.call)) && rule.when !== undefined && Object.keys(rule.when).length === 1 && typeof rule.when.path === "string").map((rule) => rule.when?.path as string);
}

/** Where a command runs: the workspace (or the agent's worktree) and its working directory. */
export interface SandboxPlace {
  workspace: string;
  cwd: string;
}

/** What a command of `config`'s shell asks of the sandbox at `place`, or undefined when it runs unconfined. */
export function sandboxRequest(config: Configuration, place: SandboxPlace): SandboxRequest | undefined {
  const mode = confinedMode(config);
  if (mode === undefined) return undefined;
  const { network, writable } = sandboxSettings(config);
  return {
    mode,
    network,
    workspace: place.workspace,
    cwd: place.cwd,
    writable,
    readDenied: pathGlobs(config, READ_CALLS),
    writeDenied: pathGlobs(config, WRITE_CALLS),
    protect: ownFilePaths(config, place.workspace),
  };
}

/** What a model is told of the sandbox its commands run in, or "" when they run unconfined. */
export function sandboxRule(config: Configuration): string {
  let mode: ConfinedMode | undefined;
  try {
    mode = confinedMode(config);
  } catch (error) {
    return (error as Error).message;
  }
  if (mode === undefined) return "";
  const { network, writable } = sandboxSettings(config);
  const extra = writable.length > 0 ? `, ${writable.join(", ")}` : "";
  const writes = mode === "workspace-write" ? `write only the workspace, ${SHELL_LOG_DIR}${extra} and a private /tmp` : `write nothing but a private /tmp${extra}`;
  const net = network ? "" : " They have no network (only their own loopback).";
  return `Commands run in a sandbox (${mode}): they read the file system except what approvals deny, and ${writes}, which is emptied after each command.${net}`;
}

/**
 * What a person is told once, before any request, when a configuration of `configs` asks for a sandbox that cannot
 * start here (every one of its commands will be refused); undefined when none asks for one, or it can start.
 */
export async function sandboxWarning(configs: readonly Configuration[]): Promise<string | undefined> {
  const modes = [...new Set(configs.flatMap((config) => confinedMode(config) ?? []))];
  if (modes.length === 0) return undefined;
  const start = await sandboxStart();
  if (start.ok) return undefined;
  return `gg: the shell's sandbox (${modes.join(", ")}) cannot start: ${start.problem}; every shell command will be refused, none runs unconfined\n`;
}
