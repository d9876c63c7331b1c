// gg call's work: the arguments parsed, the call made through the tools of the configuration, its result printed.
import { createTools } from "../bindings/index.ts";
import type { TSchema } from "typebox";
import { checkArguments, errorText } from "../bindings/define.ts";
import { similarNames } from "../host/similar.ts";
import { quote } from "../host/errors.ts";
import { stopCommandsOnSignals } from "../host/shell.ts";
import { approverFor } from "./approve.ts";
import { agentOf, type Common, externalTools, type Io, loadConfiguration, UsageError, workspaceOf } from "./command.ts";

/** What gg call is given, checked by commander. */
export type CallFlags = Common & { budget?: number };

/** gg call TOOL [ARGS_JSON]: exit 0 when the call succeeded, 1 when it failed; refused arguments are a usage error. */
export async function callTool(given: string, argsText: string | undefined, flags: CallFlags, io: Io): Promise<number> {
  const args = parseArgsJson(argsText);
  const config = await loadConfiguration(flags);
  stopCommandsOnSignals();
  // Other MCP servers are started only for one of their tools.
  const workspace = workspaceOf(flags.workspace);
  const { external, close } = given.startsWith("mcp__") ? await externalTools(config, workspace) : { close: async () => {} };
  try {
    // One call, then the process ends: nothing is kept for a next search (the cold path).
    const tools = createTools({ workspace, config, ...agentOf(flags.agent), approve: approverFor(flags.approve, io.err), ...(flags.budget === undefined ? {} : { budgetSecs: flags.budget }), warm: false, ...(external ? { external } : {}) });
    // A long tool's name may be given in full, as its server names it. A tool this configuration lacks (unknown, or its
    // capability disabled) is a refused command line.
    const tool = tools.nameOf(given) ?? given;
    const names = tools.names();
    // A tool of a server that could not be listed is unknown for that reason: say it.
    const failed = external?.catalog.servers.filter((server) => server.error !== undefined && tool.startsWith(`mcp__${server.server}__`)) ?? [];
    if (!names.includes(tool)) throw new UsageError(`${unknownTool(tool, names)}${failed.map((server) => `; MCP server "${server.server}" could not be listed: ${server.error}`).join("")}`);
    const result = await tools.call(tool, args);
    // Arguments the tool's schema refuses never ran: a refused command line, as malformed JSON is.
    if (!result.ok && result.error.code === "invalid-argument" && misfits(tools, tool, args)) throw new UsageError(result.error.message);
    io.out(flags.json ? `${JSON.stringify(tools.json(tool, result))}\n` : `${result.ok ? result.text : errorText(result.error)}\n`);
    return result.ok ? 0 : 1;
  } finally {
    await close();
  }
}

function parseArgsJson(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Cannot parse ARGS_JSON ${quote(text)}: ${(error as Error).message}; pass one JSON object, e.g. '{"path": "README.md"}'`);
  }
}

/** A tool the configuration lacks, with the nearest names it has ("did you mean read_file?") and `gg tools`. */
function unknownTool(tool: string, names: string[]): string {
  const near = similarNames(tool, names);
  const guess = near.length > 0 ? ` (did you mean ${near.join(" or ")}?)` : "";
  return `No tool ${JSON.stringify(tool)} in this configuration${guess}; the tools are ${names.join(", ")} (gg tools describes them)`;
}

/** Whether `args` do not fit tool `name`'s parameter schema. */
function misfits(tools: ReturnType<typeof createTools>, name: string, args: unknown): boolean {
  const definition = tools.definitions().find((tool) => tool.name === name);
  return definition !== undefined && checkArguments(name, definition.parameters as TSchema, args) !== undefined;
}
