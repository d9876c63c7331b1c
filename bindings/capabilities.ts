// What a configuration is: the capabilities this build knows and the shape of a parsed configuration. Apart from
// the parser (config.ts), which checks allowlists against the call registry, so the calls can take these types
// without importing the registry back.
import { OUTPUT_MODES } from "../host/output.ts";

/** The modules of the gg global: the calls' (files, shell) and the view manager's (views, context). */
export const GG_MODULES = ["files", "shell", "views", "context"] as const;
/** One of {@link GG_MODULES}. */
export type GgModule = (typeof GG_MODULES)[number];

/** The implementation that offers a capability's batch calls (seed 003) instead of its classic ones. */
export const BATCH = "batch";

/**
 * Every capability this build knows: its implementations (the first is the default) and its params, each a count
 * (a whole number, 1 or more) that an enabled capability must write whichever implementation it selects.
 */
export const CAPABILITIES = {
  "read-file": { implementations: ["default-cap", "unlimited", BATCH], params: ["lineCap"] },
  "write-file": { implementations: ["default"], params: [] },
  "edit-file": { implementations: ["default", BATCH], params: [] },
  "list-dir": { implementations: ["default", BATCH], params: [] },
  search: { implementations: ["default", BATCH], params: [] },
  shell: { implementations: OUTPUT_MODES, params: ["maxLines", "maxChars"] },
} as const;

/** A capability id, e.g. "read-file". */
export type CapabilityId = keyof typeof CAPABILITIES;

/** One capability as a configuration file writes it. */
export interface CapabilityEntry {
  id: string;
  enabled?: boolean;
  implementation?: string;
  params?: Record<string, unknown>;
}

/** A capability as a run uses it. */
export interface Capability {
  enabled: boolean;
  implementation: string;
  params: Record<string, unknown>;
}

/** A validated configuration. */
export interface Configuration {
  capabilities: Record<CapabilityId, Capability>;
  /** Whether the model can see images: without it, read_file describes a picture instead of attaching it. */
  vision: boolean;
  /** Each agent's allowlist, by agent id: the calls (tool names) it is given of those the capabilities enable. */
  agents: Record<string, readonly string[]>;
  /** The calls of the agent this configuration was selected for ({@link forAgent}); undefined gives every enabled call. */
  allow?: readonly string[];
  /**
   * What a code agent is shown before its first turn: the workspace's tree, at the deepest depth up to `treeDepth`
   * whose text fits `treeTokens` (0: no tree), and these modules' docs.
   */
  openingTurn: { treeDepth: number; treeTokens: number; modules: readonly GgModule[] };
}
