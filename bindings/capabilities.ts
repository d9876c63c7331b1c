// What a configuration is: the capabilities this build knows and the shape of a parsed configuration. Apart from
// the parser (config.ts), which checks allowlists against the call registry, so the calls can take these types
// without importing the registry back.
import type { McpServerEntry } from "../host/mcp_client.ts";
import { OUTPUT_MODES } from "../host/output.ts";
import { SANDBOX_MODES } from "../host/sandbox.ts";

/** The modules of the gg global: the calls' (files, shell), the view manager's (views, context), and the external tools' (mcp, app). */
export const GG_MODULES = ["files", "shell", "views", "context", "mcp", "app"] as const;
/** One of {@link GG_MODULES}. */
export type GgModule = (typeof GG_MODULES)[number];
/** The modules whose docs an opening turn can show: gg's own (the external tools' are listed in the prompt). */
export const OPENING_MODULES = ["files", "shell", "views", "context"] as const satisfies readonly GgModule[];

/** The implementation that offers a capability's batch calls (seed 003) instead of its classic ones. */
export const BATCH = "batch";

/** The shell's output params: the two ceilings of seed 001, which command hooks' own output modes write too. */
export const SHELL_OUTPUT_PARAMS = ["maxLines", "maxChars"] as const;
/** The shell's sandbox params: the mode, whether commands reach the network, and further folders they may write. */
export const SANDBOX_PARAMS = ["sandbox", "network", "writable"] as const;

/**
 * Every capability this build knows: its implementations (the first is the default) and its params, each of a kind
 * ({@link PARAM_KINDS}).
 */
export const CAPABILITIES = {
  "read-file": { implementations: ["default-cap", "unlimited", BATCH], params: ["lineCap"] },
  "write-file": { implementations: ["default"], params: [] },
  "edit-file": { implementations: ["default", BATCH], params: [] },
  "list-dir": { implementations: ["default", BATCH], params: [] },
  search: { implementations: ["default", BATCH], params: [] },
  shell: { implementations: OUTPUT_MODES, params: [...SHELL_OUTPUT_PARAMS, ...SANDBOX_PARAMS] },
} as const;

/**
 * What a param holds: "count", a whole number, 1 or more, that an enabled capability must write whichever
 * implementation it selects; "boolean"; "folders", a list of folder paths; or one of a list of words. Only counts are
 * required.
 */
export type ParamKind = "count" | "boolean" | "folders" | readonly string[];

/** Each param's kind, by name. */
export const PARAM_KINDS: Readonly<Record<string, ParamKind>> = {
  lineCap: "count",
  maxLines: "count",
  maxChars: "count",
  sandbox: SANDBOX_MODES,
  network: "boolean",
  writable: "folders",
};

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
  /**
   * Whether requests mark prompt-cache breakpoints (cache_control), which Anthropic's models and Gemini's explicit
   * cache need; undefined leaves it to the model's id (agent/cache.ts).
   */
  cacheMarks?: boolean;
  /** Each agent's allowlist, by agent id: the calls (tool names) it is given of those the capabilities enable. */
  agents: Record<string, readonly string[]>;
  /** The calls of the agent this configuration was selected for ({@link forAgent}); undefined gives every enabled call. */
  allow?: readonly string[];
  /**
   * What a code agent is shown before its first turn: the workspace's tree, at the deepest depth up to `treeDepth`
   * whose text fits `treeTokens` (0: no tree), and these modules' docs.
   */
  openingTurn: { treeDepth: number; treeTokens: number; modules: readonly GgModule[] };
  /** The approval settings for every agent (absent in a configuration parsed before approvals existed: none). */
  approvals?: ApprovalSettings;
  /** Each agent's own approval settings, by agent id: they can only add restrictions to the top level's. */
  agentApprovals?: Record<string, ApprovalSettings>;
  /** The approval settings of the agent this configuration was selected for ({@link forAgent}). */
  agentApproval?: ApprovalSettings;
  /**
   * The files this configuration was read from (absolute): gg's own configuration, whose writes are always asked
   * (bindings/approval_own.ts). Set by whoever read the file (gg's commands, MCP, a study), not by the parser.
   */
  ownFiles?: readonly string[];
  /** Other MCP servers whose tools programs and the tools arm can call, by server name (bindings/mcp_config.ts). */
  mcpServers?: Readonly<Record<string, McpServerEntry>>;
}

/** What approvals decide for a call: run it, put it to a person, or refuse it. */
export const VERDICTS = ["allow", "ask", "deny"] as const;
/** One of {@link VERDICTS}. */
export type Verdict = (typeof VERDICTS)[number];

/** One approval rule: calls named `call` (a tool name, or "*") whose arguments match every glob of `when`. */
export interface ApprovalRule {
  call: string;
  /** Argument name to glob: a command line's glob for text, a path glob for "path". */
  when?: Record<string, string>;
  verdict: Verdict;
  reason?: string;
}

/** A script hook that sees every call and answers with a verdict. */
export interface ApprovalHook {
  command: string;
  /** Seconds it may run before its silence counts as a deny. */
  timeoutSecs?: number;
}

/** Approval settings, at the top level or in an agent's entry. */
export interface ApprovalSettings {
  rules: readonly ApprovalRule[];
  /** What a call with effects that no rule matches gets; absent: allow. */
  default?: "allow" | "ask";
  hook?: ApprovalHook;
  /** Seconds a call may wait for a person before the wait is a deny. */
  timeoutSecs?: number;
}
