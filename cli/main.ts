// The gg command line: a contract other tools script against. Exit 0: the call succeeded; 1: the call failed;
// 2: the command line or the configuration was refused (under --json, as {"ok": false, "error"} on stdout).
import { Command, CommanderError } from "commander";
import { ggPackage } from "../host/package.ts";
import { agentCommand } from "./agent.ts";
import { callCommand } from "./call.ts";
import { type Io, UsageError } from "./command.ts";
import { consoleCommand } from "./console.ts";
import { docsCommand } from "./docs.ts";
import { logsCommand } from "./logs.ts";
import { mcpCommand } from "./mcp.ts";
import { modelsCommand } from "./models.ts";
import { promptCommand } from "./prompt.ts";
import { runCommand } from "./run.ts";
import { studyCommand } from "./study.ts";
import { toolsCommand } from "./tools.ts";

const COMMANDS = [callCommand, runCommand, toolsCommand, docsCommand, promptCommand, mcpCommand, agentCommand, modelsCommand, logsCommand, studyCommand, consoleCommand];

/** A reader that stopped reading (`gg docs | head`) wants no more: gg ends quietly, as the commands it is piped to do. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (stream.listenerCount("error") > 0) return stream;
  return stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
}

/** Runs the CLI on `argv` (without node and script), writing to `out` and `err`; returns the exit status. */
export async function main(argv: readonly string[], out: (text: string) => void = (t) => quietOnClosedPipe(process.stdout).write(t), err: (text: string) => void = (t) => process.stderr.write(t)): Promise<number> {
  const io: Io = { out, err, status: 0 };
  const failedIn = new WeakMap<CommanderError, Command>();
  const program = programOf(io, failedIn);
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return 2;
    }
    await program.parseAsync(helpAsOption(argv, program), { from: "user" });
    return io.status;
  } catch (error) {
    const refusal = refusalOf(error, failedIn) ?? (await configRefusal(error));
    if (refusal === undefined) return unexpected(error, err);
    if (refusal.exit !== 2 || refusal.message === "") return refusal.exit;
    // Under --json a refusal is an answer like any other, on stdout.
    if (argv.includes("--json")) out(`${JSON.stringify({ ok: false, error: { code: "invalid-argument", message: refusal.message } })}\n`);
    else err(`gg: ${refusal.message}\n`);
    return 2;
  }
}

/**
 * A failure gg did not foresee (a bug): one line saying so, exit 1; its stack only when GG_DEBUG is set, since a
 * person who mistyped something must never meet one.
 */
function unexpected(error: unknown, err: (text: string) => void): number {
  const message = error instanceof Error ? error.message : String(error);
  err(`gg: an unexpected failure: ${message}; this is a bug in gg: please report it with the command line (GG_DEBUG=1 adds the stack)\n`);
  if (process.env.GG_DEBUG && error instanceof Error && error.stack) err(`${error.stack}\n`);
  return 1;
}

/** gg help COMMAND [SUB] as gg COMMAND [SUB] --help; a COMMAND that does not exist is parsed as given, and refused as anywhere else. */
function helpAsOption(argv: readonly string[], program: Command): string[] {
  const [first, ...names] = argv;
  if (first !== "help" || names[0] === "help") return [...argv];
  if (names[0] === undefined) return ["--help"];
  return program.commands.some((command) => command.name() === names[0]) ? [...names, "--help"] : [names[0]];
}

/** The gg program: its commands, each with its own options and help; a command's refusal is traced to it in `failedIn`. */
function programOf(io: Io, failedIn: WeakMap<CommanderError, Command>): Command {
  const program = new Command("gg")
    .description("gg runs a coding agent's tool calls and programs against a workspace.")
    .version(ggPackage()?.version ?? "unknown", "-v, --version", "print gg's version")
    .helpOption("-h, --help", "print this help")
    .helpCommand("help [command]", "print a command's usage, options and examples")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: () => {} })
    .addHelpText("after", "\nRun gg help COMMAND (or gg COMMAND --help) for a command's options and examples.\n");
  for (const declare of COMMANDS) program.addCommand(prepared(declare(io), program, failedIn));
  return program;
}

/** `command` and its subcommands with gg's help option, its output and its refusals traced to them in `failedIn`. */
function prepared(command: Command, program: Command, failedIn: WeakMap<CommanderError, Command>): Command {
  command
    .helpOption("-h, --help", "print this help")
    .configureOutput(program.configureOutput())
    .exitOverride((error) => {
      failedIn.set(error, command);
      throw error;
    });
  // gg help COMMAND SUB is the way to a subcommand's help: no second help command of commander's own.
  if (command.commands.length > 0) command.helpCommand(false);
  for (const sub of command.commands) prepared(sub, program, failedIn);
  return command;
}

/** A command as it is typed: "gg study run". */
const spelled = (command: Command): string => (command.parent ? `${spelled(command.parent)} ${command.name()}` : command.name());

/** A refusal's exit status and sentence; undefined for an error that is not one (a bug, which surfaces). */
function refusalOf(error: unknown, failedIn: WeakMap<CommanderError, Command>): { exit: number; message: string } | undefined {
  if (error instanceof UsageError) return { exit: 2, message: error.message };
  if (!(error instanceof CommanderError)) return undefined;
  // Help and version were printed: a success.
  if (error.exitCode === 0) return { exit: 0, message: "" };
  // A command that needs a subcommand, given none: commander printed its help on stderr, which says it all.
  if (error.code === "commander.help") return { exit: 2, message: "" };
  const command = failedIn.get(error);
  if (error.code === "commander.unknownOption" && command) return { exit: 2, message: unknownOption(error, command) };
  return { exit: 2, message: `${plain(error.message)}; ${command ? `${spelled(command)} --help lists its usage` : "gg --help lists the commands"}` };
}

/** A configuration the parser refused, as a refusal (its parser loaded only when something failed). */
async function configRefusal(error: unknown): Promise<{ exit: number; message: string } | undefined> {
  try {
    const { ConfigError } = await import("../bindings/config.ts");
    return error instanceof ConfigError ? { exit: 2, message: error.message } : undefined;
  } catch {
    // The failure was gg's own modules not loading: said as the unexpected failure it is.
    return undefined;
  }
}

/** commander's message as one of ours: no "error:" prefix, the suggestion on the same line. */
const plain = (message: string): string =>
  message
    .replace(/^error: /, "")
    .replace(/\n\(Did you mean (.*)\?\)$/, " (did you mean $1?)")
    .replace(/ is invalid\. (Allowed choices are)?/, (_, choices: string | undefined) => ` is invalid: ${choices ? "the choices are" : ""}`)
    .replace(/\.$/, "");

/** An option `command` does not take, named, with the commands that do take it and commander's nearest guess. */
function unknownOption(error: CommanderError, command: Command): string {
  const option = /'([^']*)'/.exec(error.message)?.[1] ?? "";
  const suggestion = /\(Did you mean (.*)\?\)/.exec(error.message)?.[1];
  const siblings = command.parent?.commands ?? [];
  const others = siblings.filter((other) => other !== command && other.options.some((known) => known.long === option)).map(spelled);
  const elsewhere = others.length === 0 ? "" : others.length > 2 ? " (other commands take it)" : ` (${others.join(" and ")} ${others.length > 1 ? "take" : "takes"} it)`;
  const name = spelled(command);
  return `${name} does not take ${option}${elsewhere}${suggestion ? `; did you mean ${suggestion}?` : "."} ${name} --help lists its options.`;
}
