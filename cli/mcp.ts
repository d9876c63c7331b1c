// gg mcp: the agent's tools, run_program, search_docs, the docs and the prompts over MCP on stdio.
import { Option } from "commander";
import { agentOf, type Common, defineCommand, type Io, loadConfiguration, options, warmOf, workspaceOf } from "./command.ts";

export function mcpCommand(io: Io) {
  return defineCommand(
    io,
    "mcp",
    "serve the agent's tools, run_program, search_docs, the docs and the prompts over MCP on stdio",
    ["gg mcp", "gg mcp --workspace . --config examples/text-only-model.json"],
    async (flags: Common & { warmCap?: number }) => {
      const config = await loadConfiguration(flags);
      // A folder named is the one served, and refused now when it is not one; without one, the client's roots decide.
      const workspace = workspaceOf(flags.workspace);
      // Loaded here: the MCP SDK is a third of the bundle, and no other command needs it.
      const [{ stopCommandsOnSignals }, { serveStdio }, { sandboxWarning }] = await Promise.all([import("../host/shell.ts"), import("../mcp/server.ts"), import("../bindings/sandbox.ts")]);
      stopCommandsOnSignals();
      const unconfinable = await sandboxWarning([config]);
      if (unconfinable) io.err(unconfinable);
      const onServing = (served: string, why: string): void => io.err(`gg mcp: serving ${served} (${why})\n`);
      return await serveStdio({ workspace, roots: flags.workspace === undefined, config, ...agentOf(flags.agent), ...warmOf(flags.warmCap), onServing });
    },
  )
    .addOption(new Option("--workspace <dir>", `the folder served, named in gg's MCP instructions and on stderr: relative paths resolve against it and commands run in it (default: the client's first root when the client lists roots, else the current directory, ${process.cwd()})`))
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent())
    .addOption(options.warmCap());
}
