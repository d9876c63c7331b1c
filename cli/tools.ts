// gg tools: the JSON tool definitions of the calls a configuration and agent hold.
import { type Common, defineCommand, externalTools, type Io, loadConfiguration, options } from "./command.ts";

export function toolsCommand(io: Io) {
  return defineCommand(io, "tools", "print the JSON tool definitions of the enabled calls", ["gg tools", "gg tools --config examples/text-only-model.json"], async (flags: Common) => {
    const config = await loadConfiguration(flags);
    const { createTools } = await import("../bindings/index.ts");
    const { external, close } = await externalTools(config);
    try {
      io.out(`${JSON.stringify(createTools({ workspace: process.cwd(), config, ...(external ? { external } : {}) }).definitions(), null, 2)}\n`);
    } finally {
      await close();
    }
    return 0;
  })
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent());
}
