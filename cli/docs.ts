// gg docs: the gg API reference, or the functions a query finds.
import { Option } from "commander";
import { type Common, defineCommand, externalTools, type Io, loadConfiguration, options, UsageError } from "./command.ts";

export function docsCommand(io: Io) {
  return defineCommand(io, "docs", "print the gg API reference (docs/api.md); --search ranks the functions whose name, module or brief match", ["gg docs", 'gg docs --search "read lines"'], async (flags: Common & { search?: string }) => {
    if (flags.json && flags.search === undefined) throw new UsageError("gg docs --json needs --search QUERY (the matches come as JSON); the whole reference is markdown, which gg docs prints");
    const config = await loadConfiguration(flags);
    const { renderApiDoc, searchDocs } = await import("../runtime/docs.ts");
    // The configured MCP servers are started to list their tools, then stopped.
    const { external, close } = await externalTools(config);
    await close();
    const catalog = external?.catalog;
    if (flags.search === undefined) io.out(renderApiDoc(config, catalog));
    else {
      const matches = searchDocs(flags.search, config, catalog);
      if (flags.json) io.out(`${JSON.stringify(matches)}\n`);
      else if (matches.length === 0) io.out(`No function of the gg global matches ${JSON.stringify(flags.search)}.\n`);
      else io.out(matches.map((match) => `${match.function}: ${match.brief}\n  ${match.signature}\n`).join(""));
    }
    return 0;
  })
    .addOption(new Option("--search <query>", "the functions matching these words, best first"))
    .addOption(options.config())
    .addOption(options.mcpConfig())
    .addOption(options.agent())
    .addOption(options.json("with --search: the matches as a JSON array"));
}
