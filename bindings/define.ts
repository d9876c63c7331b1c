// One declaration per gg call: schema, brief, model-facing description and implementation side by side. The JSON
// tool surface and the gg.* code surface are derived from these. Arguments are validated here, once, and a
// call never throws: every outcome is a CallResult.
import { type Static, type TSchema, Type } from "typebox";
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";
import { CALL_ERROR_CODES, type CallError, callError, clampMessage, fromSystemError, GgError, isGgError, quote } from "../host/errors.ts";
import { resolvePath, showPathsIn } from "../host/paths.ts";
import type { FileHost, TouchCheck } from "../host/files.ts";
import type { ConfinedMode } from "../host/sandbox.ts";
import type { WarmCache } from "../host/warm.ts";
import type { Approval, ApprovalContext } from "./approval_match.ts";
import { BATCH, type CapabilityId, type Configuration } from "./capabilities.ts";

/** Whether a call is offered under its capability's `implementation`: batch calls under batch, the others otherwise. */
export const offeredBy = (call: { batch?: true }, implementation: string): boolean => (implementation === BATCH) === (call.batch === true);

/**
 * Whether `config` gives `call`: its capability is enabled, with an implementation that offers it, and the agent's
 * allowlist names it.
 */
export const holdsCall = (config: Configuration, call: { capability: CapabilityId; name: string; batch?: true }): boolean => {
  const capability = config.capabilities[call.capability];
  return capability.enabled && offeredBy(call, capability.implementation) && (config.allow === undefined || config.allow.includes(call.name));
};

/** The code of a failed call, as data. */
export const ErrorCode = Type.Enum(CALL_ERROR_CODES, { $id: "ErrorCode", description: "Why a gg call failed." });

/** A picture attached to a result. */
export interface Attachment {
  type: "image";
  mime: string;
  /** base64 `data:` URL of the whole file. */
  dataUrl: string;
}

/** What a successful call returns. */
export interface CallOutput<Data = unknown> {
  /** The text a tool-calling model receives: a rendering of `data`. */
  text: string;
  attachments?: Attachment[];
  /** The outcome as data: what a program receives (through `code.value` where the call has one). */
  data: Data;
}

/** A failure as a model reads it: `error[CODE]: message`. */
export const errorText = (error: { code: string; message: string }): string => `error[${error.code}]: ${error.message}`;

/**
 * The outcome of any call, with the approval it ran (or was denied) under once it passed the gate (gate.ts), and the
 * sandbox a command ran in.
 */
export type CallResult<Data = unknown> = (({ ok: true; sandbox?: ConfinedMode } & CallOutput<Data>) | { ok: false; error: CallError }) & { approval?: Approval };

/** What an implementation may use. */
export interface CallContext {
  /** Working directory relative paths resolve against: the workspace root or the agent's worktree. */
  cwd: string;
  /** The workspace root, where ignore rules stop looking upward outside a repository. */
  workspace: string;
  config: Configuration;
  files: FileHost;
  /** The agent's id: names the files its commands' output is offloaded to. */
  agent: string;
  /** End of the run's wall-clock budget (epoch ms), when the caller set one. */
  deadline?: number;
  /** Aborted when the run ends: work a call started (a command) is stopped with it. */
  signal?: AbortSignal;
  /** A long-lived runtime's listings and contents, which walks and searches reuse while their stats hold. */
  warm?: WarmCache;
  /** True when a program calls: a message names a parameter as the gg global does (see {@link parameterName}). */
  program?: true;
  /** Who is asked about calls whose verdict is ask, and what the approval hook is told of the run. */
  approvals?: ApprovalContext;
  /**
   * Set by the gate for one call under path rules: judges the file the call reaches as it reaches it (its real path
   * through the folder held open, its hard links), so a path changed after the call was judged changes nothing.
   */
  touch?: TouchCheck;
}

/** How a call appears on the `gg` global of a program. */
export interface CodeSurface<Data> {
  /** `gg.<module>`. */
  module: "files" | "shell";
  /** `gg.<module>.<name>`. */
  name: string;
  /** Its brief on the `gg` global, when the tool call's would not be true there. */
  brief?: string;
  /** Parameters taken positionally, in order; the others go in a trailing options object. */
  positional: readonly string[];
  /**
   * Parameters the gg global names otherwise than the tool call, by their JSON name: a word JavaScript reserves
   * (new) cannot name a positional parameter. Its docs, and the messages a program gets, use these names.
   */
  names?: Readonly<Record<string, string>>;
  /**
   * What a program needs beyond the compact signature and the brief, in one short line: units, defaults, limits. The
   * opening turn's docs show it after the brief.
   */
  note?(config: Configuration): string;
  /** The value a program receives, when it is not the data itself (read_file keeps a picture's bytes back). */
  value?(data: Data): unknown;
}

/** The declaration of one call. */
export interface CallDefinition<Schema extends TSchema = TSchema, Data = unknown> {
  /** Tool name, e.g. "read_file". */
  name: string;
  /** The capability that provides it. */
  capability: CapabilityId;
  /** One line saying what the call does. */
  brief: string;
  /** The parameter schema the model sees, under a configuration. */
  parameters(config: Configuration): Schema;
  /** Schema of the value a program receives for a success (named by its `$id` in gg.d.ts). */
  result: TSchema;
  /** The full model-facing description, built from the configured limits. */
  description(config: Configuration): string;
  /** The same call on the `gg` global. */
  code: CodeSurface<Data>;
  /** What `gg call --json` prints for a success, beside `"ok": true`; default `{text, attachments}`. */
  json?(output: CallOutput<Data>): Record<string, unknown>;
  /**
   * True when the call changes the disk or starts a process: a run's report lists it even if its runner dies, an
   * approvalDefault of ask asks for it, and MCP clients are told it is destructive. Without it, a call is read-only.
   */
  effects?: true;
  /** True when what the call reaches is not bounded by its arguments (a command can do anything): MCP's openWorldHint. */
  openWorld?: true;
  /**
   * True when the call walks a directory (search, tree, list_dir, list, glob): it leaves out what the agent may not
   * read (bindings/approval_walk.ts), and the read calls' rules judge its own path too.
   */
  walks?: true;
  /**
   * True when the call reads the file it changes and its answer tells of the content (an edit answers no-match or
   * Edited): the read calls' rules judge it too.
   */
  reads?: true;
  /** True for a batch call (seed 003): offered when its capability's implementation is "batch", and only then. */
  batch?: true;
  /** True when `run` returns a promise (it waits on a process); every other call completes before it returns. */
  async?: true;
  /** The implementation; receives validated arguments, returns the outcome as data, throws GgError on failure. */
  run(args: Static<Schema>, context: CallContext): Data | Promise<Data>;
  /** The text a tool-calling model receives: a rendering of the data (and the arguments) alone. */
  render(data: Data, args: Static<Schema>): string;
  /** Pictures that travel with the text. */
  attachments?(data: Data): Attachment[] | undefined;
  /** The sandbox the call's command ran in, if any: reports and transcripts say so. */
  confined?(data: Data): ConfinedMode | undefined;
}

/** What the gate and a run need of a call: gg's own declarations and external tools (bindings/external.ts) alike. */
export type Runnable<Data = unknown> = Pick<CallDefinition<TSchema, Data>, "name" | "parameters" | "effects" | "openWorld" | "walks" | "reads" | "async" | "run" | "render" | "attachments" | "confined">;

/** A parameter of `call` as its caller names it: a program by the gg global's name (CodeSurface.names), a tool call by its JSON one. */
export const parameterName = (call: { code: { names?: Readonly<Record<string, string>> } }, name: string, context: CallContext): string =>
  (context.program && call.code.names?.[name]) || name;

/** Declares a call (identity at run time; it fixes the argument type to the schema and the data to `run`'s). */
export const defineCall = <Schema extends TSchema, Data>(definition: CallDefinition<Schema, Data>): CallDefinition<Schema, Data> => definition;

/** A successful result: the data, its rendering, and its pictures. */
function succeeded<Data>(definition: Runnable<Data>, data: Data, args: unknown): CallResult<Data> {
  const attachments = definition.attachments?.(data);
  const sandbox = definition.confined?.(data);
  return { ok: true, text: definition.render(data, args as Static<TSchema>), ...(attachments ? { attachments } : {}), data, ...(sandbox ? { sandbox } : {}) };
}

// Schemas are built once per configuration. A schema checked often (a program's calls) is compiled, after which a
// check takes well under 1 µs; one checked a few times (a CLI call) is interpreted, since compiling costs more.
const schemas = new WeakMap<Configuration, Map<object, TSchema>>();
const validators = new WeakMap<TSchema, { Check(value: unknown): boolean }>();
const uses = new WeakMap<TSchema, number>();
const COMPILE_AFTER = 16;

/** The parameter schema of `declaration` under `config`, built once. */
export function parametersOf(declaration: { parameters(config: Configuration): TSchema }, config: Configuration): TSchema {
  let built = schemas.get(config);
  if (!built) schemas.set(config, (built = new Map()));
  let schema = built.get(declaration);
  if (!schema) built.set(declaration, (schema = declaration.parameters(config)));
  return schema;
}

/** Checks `args` against a call's schema: undefined when they fit, else an invalid-argument error naming every problem. */
export function checkArguments(name: string, schema: TSchema, args: unknown): CallError | undefined {
  let validator = validators.get(schema);
  if (!validator) {
    const count = (uses.get(schema) ?? 0) + 1;
    uses.set(schema, count);
    if (count >= COMPILE_AFTER) validators.set(schema, (validator = Compile(schema)));
  }
  if (validator ? validator.Check(args) : Value.Check(schema, args)) return undefined;
  const properties = Object.keys((schema as { properties?: object }).properties ?? {});
  const problems: string[] = [];
  for (const error of Value.Errors(schema, args)) {
    const field = error.instancePath.replace(/^\//, "");
    if (error.keyword === "boolean") continue;
    if (error.keyword === "additionalProperties") {
      const extra = (error.params as { additionalProperties: string[] }).additionalProperties;
      problems.push(`unknown parameter${extra.length > 1 ? "s" : ""} ${extra.map((e) => quote(e)).join(", ")}`);
    } else if (error.keyword === "required") {
      const missing = (error.params as { requiredProperties: string[] }).requiredProperties;
      problems.push(`missing ${missing.map((m) => `"${m}"`).join(", ")}`);
    } else if (field === "") {
      problems.push(`arguments ${error.message}`);
    } else {
      problems.push(`"${field}" ${error.message}`);
    }
  }
  problems.push(`${name} takes ${properties.map((p) => `"${p}"`).join(", ") || "no arguments"}`);
  return callError("invalid-argument", `Cannot call ${name}: ${problems.join("; ")}`);
}

/** Each classic call a message may point to, and the batch call that takes its place under the batch implementation. */
const BATCH_COUNTERPARTS: readonly { capability: CapabilityId; classic: string; batch: string }[] = [
  { capability: "read-file", classic: "read_file", batch: "read" },
  { capability: "edit-file", classic: "edit_file", batch: "edit" },
  { capability: "list-dir", classic: "list_dir", batch: "list" },
  { capability: "list-dir", classic: "tree", batch: "glob" },
];

/**
 * `message` with each call it points to ("with read_file", "or tree") named as `rename` names it, where it does;
 * clamped again, as a longer name can take it past the bound.
 */
export const renamePointers = (message: string, rename: (call: string) => string | undefined): string =>
  clampMessage(
    message.replace(/\b(with|or) ([a-z_]+)\b/g, (whole: string, word: string, call: string) => {
      const renamed = rename(call);
      return renamed === undefined ? whole : `${word} ${renamed}`;
    }),
  );

/** A message as this configuration's model reads it: a classic call it points to is named as the batch call it holds. */
export const forHoldings = (message: string, config: Configuration): string =>
  renamePointers(message, (call) => {
    const counterpart = BATCH_COUNTERPARTS.find((pair) => pair.classic === call);
    return counterpart && config.capabilities[counterpart.capability].implementation === BATCH ? counterpart.batch : undefined;
  });

/** The paths a call's arguments name: its path, and each of its files' (a batch read's). */
const givenPaths = (args: unknown): string[] => {
  const { path, files } = (args ?? {}) as { path?: unknown; files?: unknown };
  const paths = Array.isArray(files) ? files.map((file: { path?: unknown } | undefined) => file?.path) : [];
  return [path, ...paths].filter((given): given is string => typeof given === "string");
};

/**
 * A failure as the caller sees it: its file named as the caller spelled it, not as the host resolved it, and a path
 * holding a line break shown on one line (host/paths.ts shownPath).
 */
const failed = (name: string, error: unknown, args: unknown, context: CallContext): { ok: false; error: CallError } => {
  const typed = isGgError(error) ? error : fromSystemError(`run ${name} on`, "its arguments", error);
  const path = (args as { path?: unknown } | undefined)?.path;
  const relative = typeof path === "string" && path !== "" && !path.startsWith("/") && !path.includes("\0");
  const absolute = relative ? resolvePath(context.cwd, path) : undefined;
  const message = absolute ? typed.message.replaceAll(`${absolute}:`, `${path}:`).replaceAll(`${absolute} `, `${path} `) : typed.message;
  return { ok: false, error: { code: typed.code, message: forHoldings(showPathsIn(message, givenPaths(args)), context.config) } };
};

/** Validates `args` and runs the call; every failure, however it arises, comes back as a typed error. */
export async function invoke(definition: CallDefinition, args: unknown, context: CallContext): Promise<CallResult> {
  const given = args === undefined ? {} : args;
  const refused = checkArguments(definition.name, parametersOf(definition, context.config), given);
  if (refused) return { ok: false, error: refused };
  return runChecked(definition, given, context);
}

/** Runs a call whose arguments were already checked against its schema. */
export async function runChecked<Data>(definition: Runnable<Data>, args: unknown, context: CallContext): Promise<CallResult<Data>> {
  try {
    return succeeded(definition, await definition.run(args as Static<TSchema>, context), args);
  } catch (error) {
    return failed(definition.name, error, args, context);
  }
}

/** {@link runChecked} for a call that is not `async`: it completes before returning, so a sandbox can call it inline. */
export function runCheckedSync<Data>(definition: Runnable<Data>, args: unknown, context: CallContext): CallResult<Data> {
  try {
    const data = definition.run(args as Static<TSchema>, context);
    if (data instanceof Promise) throw new GgError("io-error", `Cannot run ${definition.name} inline: it is asynchronous`);
    return succeeded(definition, data, args);
  } catch (error) {
    return failed(definition.name, error, args, context);
  }
}
