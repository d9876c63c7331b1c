// The gg global, declared once: gg.files.* and gg.shell.* are the tool-call declarations of bindings/ seen through
// their code surface, and gg.views.* and gg.context.* are the view manager's. Docs, gg.d.ts and the sandbox's
// dispatcher all read this list.
import { type TSchema, Type } from "typebox";
import type { Configuration } from "../bindings/config.ts";
import type { GgModule } from "../bindings/capabilities.ts";
import { type CallContext, type CallDefinition, type CallResult, checkArguments, parametersOf, renamePointers } from "../bindings/define.ts";
import { type CallOrigin, decidedNow, decision, deniedError, runApproved, runApprovedSync, touchOf, Undecided } from "../bindings/gate.ts";
import { CALLS, enabledCalls } from "../bindings/index.ts";
import { readFile } from "../bindings/read_file.ts";
import { GgError } from "../host/errors.ts";
import { Breakdown } from "./context.ts";
import { HeldName } from "./realm.ts";
import { Closed, OpenedView, ViewSummary, type Views } from "./views.ts";

import type { GgEnv, GgFunction } from "./functions.ts";
import type { ExternalCatalog } from "../bindings/external.ts";
import { externalFunctions } from "./external_api.ts";

export type { GgEnv, GgFunction } from "./functions.ts";

const FILE_ERRORS = ["not-found", "permission-denied", "io-error"];
const ERRORS: Record<string, readonly string[]> = {
  read_file: FILE_ERRORS,
  write_file: FILE_ERRORS,
  edit_file: [...FILE_ERRORS, "no-match", "ambiguous"],
  list_dir: FILE_ERRORS,
  tree: FILE_ERRORS,
  search: FILE_ERRORS,
  shell: ["launch-failed", "timeout", "io-error"],
  // The batch calls: a walk past its bound and a read past what a call holds are over-cap; a raced edit, conflict.
  read: [...FILE_ERRORS, "over-cap"],
  view_image: FILE_ERRORS,
  edit: [...FILE_ERRORS, "no-match", "ambiguous", "conflict"],
  list: [...FILE_ERRORS, "over-cap"],
  glob: [...FILE_ERRORS, "over-cap"],
  "search (batch)": [...FILE_ERRORS, "over-cap"],
};

/** The gg function of each tool call, by the call's name. */
const FUNCTION_OF = new Map(CALLS.map((call) => [call.name, `gg.${call.code.module}.${call.code.name}`]));

/** A message written for tool calls, as a program reads it: the calls it points to become the gg functions. */
export const forPrograms = (message: string): string => renamePointers(message, (call) => FUNCTION_OF.get(call));

function fromCall(call: CallDefinition): GgFunction {
  return {
    module: call.code.module,
    name: call.code.name,
    brief: call.code.brief ?? call.brief,
    ...(call.code.note ? { note: call.code.note } : {}),
    positional: call.code.positional,
    ...(call.code.names ? { names: call.code.names } : {}),
    parameters: call.parameters,
    result: call.result,
    // Any call the agent makes can be denied by its approvals.
    errors: [...(ERRORS[call.batch && call.name === "search" ? "search (batch)" : call.name] ?? []), "denied"],
    sync: !call.async,
    effects: call.effects === true,
    run(args, env, origin, inline) {
      const unwrap = (result: CallResult): unknown => {
        if (!result.ok) throw new GgError(result.error.code, result.error.message);
        return call.code.value ? call.code.value(result.data) : result.data;
      };
      return call.async || !inline ? runApproved(call, args, env.context, origin).then(unwrap) : unwrap(runApprovedSync(call, args, env.context, origin));
    },
  };
}

const pathOnly = () => Type.Object({ path: Type.String({ description: "The file whose views to close, spelled any way that names it (relative, absolute, ./...)." }) }, { additionalProperties: false });
const nothing = () => Type.Object({}, { additionalProperties: false });

const openFile: GgFunction = {
  module: "views",
  name: "openFile",
  brief: "Show a file to yourself: read it, or a window of its lines, into a view in your context window (a picture is shown as a picture).",
  positional: ["path"],
  parameters: (config) => readFile.parameters(config),
  result: OpenedView,
  errors: [...FILE_ERRORS, "over-cap", "denied"],
  sync: true,
  // A view is read_file's read, so read_file's approvals decide it.
  run: (args, env, origin, inline) => {
    const open = (approval: NonNullable<CallOrigin["approval"]>): unknown => {
      origin.approval = approval;
      if (approval.verdict === "deny") throw deniedError("gg.views.openFile", approval);
      return env.views.open(String(args.path), args.offset as number | undefined, args.limit as number | undefined, touchOf(readFile, args, env.context, approval));
    };
    const now = decidedNow(readFile, args, env.context, origin);
    if (now) return open(now);
    if (inline) throw new Undecided();
    return decision(readFile, args, env.context, origin).then(open);
  },
};

/** gg.views.close and gg.context.evictFileView: one operation, offered where each reader looks for it. */
const closer = (module: GgFunction["module"], name: string, brief: string): GgFunction => ({
  module,
  name,
  brief,
  positional: ["path"],
  parameters: pathOnly,
  result: Closed,
  errors: [],
  sync: true,
  run: (args, env) => env.views.close(String(args.path)),
});

const close = closer("views", "close", "Close every view of a path, taking it out of your context window.");

const list: GgFunction = {
  module: "views",
  name: "list",
  brief: "List the open views, oldest first, with what each costs the context window.",
  positional: [],
  parameters: nothing,
  result: Type.Array(ViewSummary),
  errors: [],
  sync: true,
  run: (_args, env) => env.views.list(),
};

const evictFileView = closer("context", "evictFileView", "Evict a file's views, and their pictures, from the context window; returns the tokens reclaimed.");

const breakdown: GgFunction = {
  module: "context",
  name: "breakdown",
  brief: "Tokens in the context window per band: system, messages, tool results, file views, images.",
  note: () => "Under gg agent, what your next request carries but this program's own report, which does not exist yet.",
  positional: [],
  parameters: nothing,
  result: Breakdown,
  errors: [],
  sync: true,
  run: (_args, env) => env.views.breakdown(),
};

const state: GgFunction = {
  module: "context",
  name: "state",
  brief: "What earlier programs left: top-level names and globalThis properties, kinds, sizes.",
  note: () => "Under gg agent and gg mcp, a program's top-level declarations stay for the next program; under gg run, each program starts empty.",
  positional: [],
  parameters: nothing,
  result: Type.Array(HeldName),
  errors: [],
  sync: true,
  run: (_args, env) => env.held?.() ?? [],
};

/**
 * The functions of the gg global under `config`: a disabled capability's functions do not exist; gg.mcp's and gg.app's
 * exist when `external` (the runtime's catalog of other tools) has servers or functions.
 */
export function ggFunctions(config: Configuration, external?: ExternalCatalog): GgFunction[] {
  const enabled = enabledCalls(config);
  const calls = enabled.map(fromCall);
  // Opening a view is read_file's read: it exists for an agent that holds read-file's calls, classic or batch.
  const views = enabled.some((call) => call.capability === readFile.capability) ? [openFile] : [];
  return [...calls, ...views, close, list, evictFileView, breakdown, state, ...externalFunctions(external)];
}

/** Turns positional arguments and a trailing options object into one arguments object, or says why it cannot. */
export function argumentsObject(fn: GgFunction, given: unknown[], config: Configuration): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  const { positional } = fn;
  const label = `gg.${fn.module}.${fn.name}`;
  if (given.length > positional.length + 1) return { ok: false, message: `Cannot call ${label}: it takes at most ${positional.length + 1} arguments, got ${given.length}` };
  const args: Record<string, unknown> = {};
  const options = given[positional.length];
  if (options !== undefined && options !== null) {
    if (typeof options !== "object" || Array.isArray(options)) return { ok: false, message: `Cannot call ${label}: its last argument must be an options object` };
    // Own properties only, defined rather than assigned, so a "__proto__" key stays a key (and is refused).
    for (const [key, value] of Object.entries(options)) Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
  }
  positional.forEach((name, i) => {
    if (given[i] !== undefined) args[fn.names?.[name] ?? name] = given[i];
  });
  const schema = parametersOf(fn, config);
  const refused = checkArguments(label, fn.names ? renamed(schema, fn.names) : schema, args);
  if (refused) return { ok: false, message: refused.message };
  if (!fn.names) return { ok: true, args };
  const back = new Map(Object.entries(fn.names).map(([name, asNamed]) => [asNamed, name]));
  return { ok: true, args: Object.fromEntries(Object.entries(args).map(([key, value]) => [back.get(key) ?? key, value])) };
}

const renamedSchemas = new WeakMap<TSchema, TSchema>();

/** An object schema with its properties renamed as `names` says (by their name in it), built once per schema. */
function renamed(schema: TSchema, names: Readonly<Record<string, string>>): TSchema {
  let built = renamedSchemas.get(schema);
  if (built) return built;
  const { properties = {}, required = [] } = schema as { properties?: Record<string, TSchema>; required?: string[] };
  const name = (key: string): string => names[key] ?? key;
  built = { ...schema, properties: Object.fromEntries(Object.entries(properties).map(([key, value]) => [name(key), value])), required: required.map(name) } as TSchema;
  renamedSchemas.set(schema, built);
  return built;
}
