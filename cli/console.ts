// gg console: a local web page to edit the configuration, read the catalog's models and look at runs and studies,
// served on 127.0.0.1 until the command is stopped. The server is loaded only when the command runs.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidArgumentError, Option } from "commander";
import { defineCommand, type Io, options, UsageError } from "./command.ts";

interface ConsoleFlags {
  port?: number;
  config?: string;
  catalog?: string;
  runs?: string[];
  study?: string[];
}

/** The port gg console takes when --port names none. */
const DEFAULT_PORT = 7777;

/** --port: a whole number from 0 (a free port) to 65535. */
function portOption(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new InvalidArgumentError("it must be a whole number from 0 (any free port) to 65535");
  return port;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The page's files: beside the bundle that holds this command (the build folder's console-page/). */
function assetsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const found = [join(here, "console-page"), join(here, "..", "console-page")].find((dir) => existsSync(join(dir, "index.html")));
  if (found === undefined) throw new UsageError(`Cannot serve the console: its page is not built (no console-page/index.html beside ${here}); run npm run build`);
  return found;
}

export function consoleCommand(io: Io) {
  return defineCommand(
    io,
    "console",
    `serve a local web page (127.0.0.1, port ${DEFAULT_PORT}) to edit the configuration, read the models' specs and look at runs and studies; it prints its URL with a token, and runs until stopped`,
    ["gg console --config gg.json --runs transcripts", "gg console --port 0 --study results --runs runs"],
    async (flags: ConsoleFlags) => {
      const [runs, studies] = [flags.runs ?? [], flags.study ?? []];
      for (const dir of [...runs, ...studies]) if (!existsSync(dir)) throw new UsageError(`Cannot read ${dir}: it does not exist; name a folder of transcripts (--runs) or one gg study run wrote (--study)`);
      const { startConsole } = await import("../console/server.ts");
      // Paths as given (relative to this directory, which the server keeps): the page names files as the person did.
      const sources = { ...(flags.config === undefined ? {} : { config: flags.config }), ...(flags.catalog === undefined ? {} : { catalog: flags.catalog }), runs, studies };
      let running;
      try {
        running = await startConsole({ port: flags.port ?? DEFAULT_PORT, assets: assetsDir(), sources });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EADDRINUSE") throw new UsageError(`Cannot listen on 127.0.0.1:${flags.port ?? DEFAULT_PORT}: the port is in use; pass --port N, or --port 0 for any free one`);
        throw error;
      }
      io.out(`${running.url}\n`);
      io.err(`gg console: serving on 127.0.0.1:${running.port} (the token in the URL is required); Ctrl-C stops it\n`);
      await new Promise<void>((done) => {
        for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => done());
      });
      await running.close();
      return 0;
    },
  )
    .addOption(new Option("--port <n>", `the port (default ${DEFAULT_PORT}; 0 picks a free one)`).argParser(portOption))
    .addOption(new Option("--config <file>", "the configuration file the page edits and Save writes (created when missing); without it, nothing can be saved"))
    .addOption(options.catalog())
    .addOption(new Option("--runs <dir>", "a folder of transcripts (*.jsonl, searched recursively); repeat it for more").argParser(collect))
    .addOption(new Option("--study <dir>", "a folder gg study run wrote (its --out); repeat it for more").argParser(collect));
}
