// gg prompt: the system prompt of an arm for a configuration and agent; a code agent's is followed by its opening
// turn, opened on the workspace as a runtime would open it.
import type { Configuration } from "../bindings/config.ts";
import type { Arm } from "../agent/prompts.ts";
import { agentOf, type Common, defineCommand, type Io, loadConfiguration, options, workspaceOf } from "./command.ts";

export function promptCommand(io: Io) {
  return defineCommand(
    io,
    "prompt",
    "print the system prompt of an arm; a code agent's is followed by its opening turn on the workspace",
    ["gg prompt --arm code", "gg prompt --arm tools --config examples/text-only-model.json"],
    async (flags: Common & { arm: Arm }) => {
      const config = await loadConfiguration(flags);
      return await printPrompt(flags.arm, { config, ...agentOf(flags.agent), workspace: workspaceOf(flags.workspace) }, io.out);
    },
  )
    .addOption(options.arm().makeOptionMandatory())
    .addOption(options.workspace())
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent());
}

async function printPrompt(arm: Arm, options: { config: Configuration; agent?: string; workspace: string }, out: (text: string) => void): Promise<number> {
  const [{ systemPrompt, viewsText }, { createRuntime }, { VIEW_HEADINGS }] = await Promise.all([import("../agent/prompts.ts"), import("../runtime/index.ts"), import("../runtime/window.ts")]);
  if (arm === "tools") {
    out(systemPrompt({ arm, config: options.config, ...agentOf(options.agent) }));
    return 0;
  }
  const runtime = createRuntime({ workspace: options.workspace, config: options.config, ...agentOf(options.agent) });
  try {
    const external = await runtime.catalog();
    const prompt = systemPrompt({ arm, config: options.config, ...agentOf(options.agent), ...(external ? { external } : {}) });
    const opened = await runtime.openingTurn();
    out(`${prompt}\n${VIEW_HEADINGS.opening}\n\n${opened.length > 0 ? viewsText(opened) : "(nothing: the configuration's openingTurn opens no views for this agent)\n"}`);
    return 0;
  } finally {
    runtime.close();
  }
}
