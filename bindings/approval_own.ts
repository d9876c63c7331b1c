// The files that govern an agent: the configuration files gg was started with (Configuration.ownFiles) and the
// scripts its approval hooks run. A write of one of them, compared by real path, is asked whatever the rules and the
// hooks say: an agent that could rewrite them could grant itself everything for the next run.
import { homedir } from "node:os";
import { realPath } from "../host/paths.ts";
import type { Configuration } from "./capabilities.ts";

/** An own file, and what it is to gg. */
interface OwnFile {
  absolute: string;
  what: string;
}

/**
 * The words of a command line, split as a shell splits words: quotes and backslashes removed; blanks, `;`, `|`, `&`,
 * `<`, `>` and parentheses separating. Enough to find the files a hook's command names, not to judge a command.
 */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (char === "\\" && i + 1 < command.length && (quote === undefined || '"\\$`'.includes(command[i + 1] as string))) {
      word = (word ?? "") + command[++i];
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (/[\s;|&<>()]/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The commands of the approval hooks `config` names, every agent's: the files they run are gg's own. */
const hookCommands = (config: Configuration): string[] =>
  [config.approvals, ...Object.values(config.agentApprovals ?? {}), config.agentApproval].flatMap((level) => (level?.hook ? [level.hook.command] : []));

/** The MCP servers gg starts, each with the words of its command line: the files they run are gg's own too. */
const serverCommands = (config: Configuration): { server: string; words: string[]; cwd?: string }[] =>
  Object.entries(config.mcpServers ?? {}).flatMap(([server, entry]) => (entry.command === undefined ? [] : [{ server, words: [entry.command, ...(entry.args ?? [])], ...(entry.cwd ? { cwd: entry.cwd } : {}) }]));

/** Whether `config` has files of its own to guard: the configuration files in force, its hooks' or its MCP servers' scripts. */
export const guardsOwnFiles = (config: Configuration): boolean => (config.ownFiles?.length ?? 0) > 0 || hookCommands(config).length > 0 || serverCommands(config).length > 0;

/** What `config`'s own files are, for a workspace (a hook's relative script is the workspace's), found once. */
const found = new WeakMap<Configuration, Map<string, OwnFile[]>>();
function ownFilesOf(config: Configuration, workspace: string): OwnFile[] {
  let byWorkspace = found.get(config);
  if (!byWorkspace) found.set(config, (byWorkspace = new Map()));
  let files = byWorkspace.get(workspace);
  if (files) return files;
  files = (config.ownFiles ?? []).map((absolute) => ({ absolute, what: "the configuration file in force" }));
  const named = (word: string, folder: string, what: string): void => {
    const path = word.startsWith("~/") ? `${homedir()}${word.slice(1)}` : word;
    files?.push({ absolute: path.startsWith("/") ? path : `${folder}/${path}`, what });
  };
  for (const command of new Set(hookCommands(config))) for (const word of commandWords(command).filter(namesFile)) named(word, workspace, `a file the approval hook ${JSON.stringify(command)} runs`);
  // An MCP server runs unconfined, started by gg: its script rewritten is code gg runs for the next program.
  for (const { server, words, cwd } of serverCommands(config)) for (const word of words.filter(namesFile)) named(word, cwd?.startsWith("/") ? cwd : workspace, `a file the MCP server ${JSON.stringify(server)} runs`);
  byWorkspace.set(workspace, files);
  return files;
}

/** The absolute paths of `config`'s own files in `workspace`: the configuration files in force, the hooks' and MCP servers' scripts. */
export const ownFilePaths = (config: Configuration, workspace: string): string[] => ownFilesOf(config, workspace).map((file) => file.absolute);

/**
 * Whether a word of a hook's command names a file it runs or reads: a path (`./check.sh`, `hooks/check.js`,
 * `/opt/gate`) or a name with an extension (`check.py`); not an option (`-e`) or an assignment (`A=1`). Judged by its
 * spelling alone, so a script the agent has yet to create is covered too.
 */
const namesFile = (word: string): boolean => !word.startsWith("-") && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && (word.includes("/") || /[^.]\.[A-Za-z0-9]+$/.test(word));

/**
 * The ask on a write of `paths` (from `place.cwd`) when one of them is one of gg's own files, by real path; undefined
 * when none is.
 */
export function ownFileAsk(config: Configuration, paths: readonly string[], place: { workspace: string; cwd: string }): { verdict: "ask"; by: "config"; reason: string } | undefined {
  const own = ownFilesOf(config, place.workspace);
  if (own.length === 0) return undefined;
  for (const path of paths) {
    const real = realPath(path.startsWith("/") ? path : `${place.cwd}/${path}`);
    const hit = own.find((file) => realPath(file.absolute) === real);
    if (hit) return { verdict: "ask", by: "config", reason: `${path} is gg's own configuration (${hit.what}): a change to it changes what the agent may do, so a person decides` };
  }
  return undefined;
}
