// gg's public library surface. Its types name Node's (Buffer, node:fs): the reference below makes a TypeScript user's
// program include @types/node, a dependency of the package, whatever that program's own "types" option says.
/// <reference types="node" preserve="true" />
export { type Attachment, type CallOutput, type CallResult } from "./bindings/define.ts";
export { CALLS, createTools, enabledCalls, type ToolDefinition, toolDefinitions, type ToolsOptions } from "./bindings/index.ts";
export {
  CAPABILITIES,
  type CapabilityEntry,
  type CapabilityId,
  ConfigError,
  type Configuration,
  defaultConfiguration,
  forAgent,
  parseConfiguration,
} from "./bindings/config.ts";
export { type AppFunction, createExternals, type ExternalCatalog, type Externals, type ExternalSurface, type ExternalTool, type ServerSummary } from "./bindings/external.ts";
export type { McpServerEntry } from "./host/mcp_client.ts";
export type { Functions, SdkTool, ToolSetLike } from "./bindings/toolset.ts";
export { type CallError, ERROR_CODES, type ErrorCode, GgError, isGgError } from "./host/errors.ts";
export { type CommandHook, type Hook, type HookContext, hookPolicy, parseHooks, runHook, type ScriptHook } from "./bindings/hooks.ts";
export { execute, type ExecuteOptions, ShellResult, shellPolicy } from "./bindings/shell.ts";
// The data a program receives from each call: a TypeBox schema and its type under one name.
export { SearchMatch, SearchResult } from "./bindings/search.ts";
export { DirEntry, ListDirResult } from "./bindings/list_dir.ts";
export { TreeEntry, TreeResult } from "./bindings/tree.ts";
export { WriteResult } from "./bindings/write_file.ts";
export { EditResult } from "./bindings/edit_file.ts";
export { ImageDescriptor } from "./bindings/read_file.ts";
export { SHELL_LOG_DIR } from "./host/logs.ts";
export { OUTPUT_BYTE_CAP, type OutputPolicy } from "./host/output.ts";
export { type Baseline, createRuntime, DEFAULT_LIMITS, type Limits, type RunOptions, type RunReport, type Runtime, type RuntimeOptions } from "./runtime/index.ts";
export { type ViewContent, type ViewMessages, type ViewPart, viewMessages } from "./runtime/window.ts";
export type { TypeProblem } from "./runtime/check.ts";
export { compactDts, type DocMatch, moduleDoc, renderApiDoc, renderDts, searchDocs } from "./runtime/docs.ts";
export { type Arm, type PromptOptions, systemPrompt, viewsText } from "./agent/prompts.ts";
export { createMcpServer, type McpOptions, serveStdio } from "./mcp/server.ts";
export { type AgentOptions, type AgentReport, type Bands, programOf, runAgent, type TurnRecord } from "./agent/loop.ts";
export type { Usage } from "./agent/usage.ts";
export { type Pricing, type PricingTier, runCost } from "./agent/pricing.ts";
export { type Answer, type ChatRequest, isPictureRefusal, openAIProvider, type Provider, ProviderError, type Retry } from "./agent/provider.ts";
