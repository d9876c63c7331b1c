// gg mcp: the agent's tools, run_program, search_docs, the docs and the prompts over MCP on stdio.
import { agentOf, type Common, defineCommand, type Io, loadConfiguration, options, workspaceOf } from "./command.ts";

export function mcpCommand(io: Io) {
  return defineCommand(
    io,
    "mcp",
    "serve the agent's tools, run_program, search_docs, the docs and the prompts over MCP on stdio",
    ["gg mcp", "gg mcp --workspace . --config examples/text-only-model.json"],
    async (flags: Common) => {
      const config = await loadConfiguration(flags);
      const workspace = workspaceOf(flags.workspace);
      // Loaded here: the MCP SDK is a third of the bundle, and no other command needs it.
      const [{ stopCommandsOnSignals }, { serveStdio }, { sandboxWarning }] = await Promise.all([import("../host/shell.ts"), import("../mcp/server.ts"), import("../bindings/sandbox.ts")]);
      stopCommandsOnSignals();
      const unconfinable = await sandboxWarning([config]);
      if (unconfinable) io.err(unconfinable);
      return await serveStdio({ workspace, config, ...agentOf(flags.agent) });
    },
  )
    .addOption(options.workspace())
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent());
}
