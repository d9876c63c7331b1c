// The shape of a function of the gg global and what it runs with: apart from api.ts, which lists gg's own, so the
// external tools' functions (external_api.ts) can take it without a circle.
import type { TSchema } from "typebox";
import type { GgModule } from "../bindings/capabilities.ts";
import type { Configuration } from "../bindings/config.ts";
import type { CallContext } from "../bindings/define.ts";
import type { ExternalCatalog, ExternalDeclaration } from "../bindings/external.ts";
import type { CallOrigin } from "../bindings/gate.ts";
import type { HeldName } from "./realm.ts";
import type { Views } from "./views.ts";

/** The external tools a runtime holds now: the catalog, and each tool's declaration by its JSON name. */
export interface ExternalEnv {
  catalog: ExternalCatalog;
  declarations: Map<string, ExternalDeclaration>;
  /** The environment once `server`, still starting in this one, is listed (a program reached it without naming it). */
  settle?: (server: string) => Promise<ExternalEnv>;
}

/** What a gg function runs with. */
export interface GgEnv {
  context: CallContext;
  views: Views;
  /** What the session's realm holds, when its programs keep state. */
  held?: () => HeldName[];
  /** The external tools in force (gg.mcp, gg.app), when the runtime has any: read at each use, as their catalog may change. */
  external?: () => ExternalEnv | undefined;
}

/** One function of the gg global. */
export interface GgFunction {
  module: GgModule;
  name: string;
  /** One line saying what it does. */
  brief: string;
  /** What a program needs beyond the compact signature, in one short line (see CodeSurface.note). */
  note?(config: Configuration): string;
  /** Parameters taken positionally, in order; the rest go in a trailing options object. */
  positional: readonly string[];
  /** Parameters named otherwise than in `parameters`, by their name there (see CodeSurface.names). */
  names?: Readonly<Record<string, string>>;
  /** Schema of all parameters, as one object. */
  parameters(config: Configuration): TSchema;
  /** Schema of what it resolves to (named by its `$id` in gg.d.ts). */
  result: TSchema;
  /** Error codes it can fail with, besides invalid-argument. */
  errors: readonly string[];
  /** True when `run` completes before it returns (no process to wait on): the sandbox calls it inline. */
  sync: boolean;
  /**
   * True when it changes the disk or starts a process: recorded before it runs, so a runner's death cannot hide it. A
   * function whose calls differ (an external tool marked read-only does neither) says so of each call's arguments.
   */
  effects?: boolean | ((args: Record<string, unknown>, env: GgEnv) => boolean);
  /**
   * Runs with arguments already checked against `parameters`, through the approval gate for what the agent's calls
   * can do (the gate writes its decision into `origin`); returns a promise only when not `sync` or not `inline`. Run
   * inline, it throws {@link Undecided} when its approval must be waited for: call it again not inline.
   */
  run(args: Record<string, unknown>, env: GgEnv, origin: CallOrigin, inline: boolean): unknown;
}

