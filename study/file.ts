// The study file: test cases × agents × repeats, validated once and refused whole, every problem named at once (as a
// configuration is). Paths in it are relative to its folder. A git case's ref is resolved to a commit here, so every
// trial of the case starts from the same commit even if the branch moves while the study runs.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { type Static, type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import { ConfigError, type Configuration, defaultConfiguration, forAgent, parseConfiguration } from "../bindings/config.ts";

/** An id usable in a trial's key, a branch name and a file name. */
const Id = Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$", maxLength: 64, description: "an id of letters, digits, '.', '_' and '-' (starting with a letter or digit)" });

const CaseSchema = Type.Object(
  {
    id: Id,
    workspace: Type.String({ minLength: 1, description: "a folder or a git repository, relative to the study file" }),
    ref: Type.Optional(Type.String({ minLength: 1, description: "a commit, branch or tag of the workspace's repository" })),
    task: Type.Optional(Type.String({ minLength: 1, description: "the task, as text" })),
    taskFile: Type.Optional(Type.String({ minLength: 1, description: "a file holding the task, relative to the study file" })),
    specs: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: "an array of globs of files in the workspace, e.g. [\"specs/*.png\"]" })),
    check: Type.Optional(Type.String({ minLength: 1, description: "a shell command run in the trial's directory; exit 0 is a pass" })),
  },
  { additionalProperties: false, description: 'an object {"id", "workspace", "ref"?, "task" | "taskFile", "specs"?, "check"?}' },
);

const AgentSchema = Type.Object(
  {
    id: Id,
    model: Type.String({ minLength: 1, description: "a model id, as the provider names it" }),
    arm: Type.Union([Type.Literal("tools"), Type.Literal("code")], { description: '"tools" or "code"' }),
    config: Type.Optional(Type.Unknown({ description: "a configuration file (relative to the study file) or a configuration" })),
    agent: Type.Optional(Type.String({ minLength: 1, description: "an agent id of the configuration" })),
  },
  { additionalProperties: false, description: 'an object {"id", "model", "arm", "config"?, "agent"?}' },
);

/** The study file as written. */
const StudyFile = Type.Object(
  {
    cases: Type.Array(CaseSchema, { minItems: 1, description: "an array of one or more cases" }),
    agents: Type.Array(AgentSchema, { minItems: 1, description: "an array of one or more agents" }),
    repeats: Type.Optional(Type.Integer({ minimum: 1, description: "a whole number of trials per case and agent, 1 or more" })),
    maxTurns: Type.Optional(Type.Integer({ minimum: 1, description: "a whole number of turns, 1 or more" })),
    budgetSecs: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "a positive number of seconds" })),
    models: Type.Optional(
      Type.Record(Type.String(), Type.Object({ concurrency: Type.Optional(Type.Integer({ minimum: 1, description: "a whole number of trials, 1 or more" })) }, { additionalProperties: false, description: 'an object {"concurrency"}' }), {
        description: 'an object of models by id, e.g. {"openai/gpt-4o-mini": {"concurrency": 2}}',
      }),
    ),
  },
  { additionalProperties: false, description: 'an object {"cases", "agents", "repeats"?, "maxTurns"?, "budgetSecs"?, "models"?}' },
);
type StudyFile = Static<typeof StudyFile>;

/** A case ready to run: its paths absolute, its task read, its start a commit when its workspace is a repository. */
export interface StudyCase {
  id: string;
  /** The workspace folder, absolute. */
  workspace: string;
  /** When the workspace is in a git repository: the repository's root, the commit trials start from, and the workspace's folder inside it ("" at the root). */
  git?: { root: string; commit: string; ref: string; subdir: string };
  task: string;
  specs: string[];
  check?: string;
}

/** An agent ready to run: its configuration parsed, as its agent id sees it. */
export interface StudyAgent {
  id: string;
  model: string;
  arm: "tools" | "code";
  config: Configuration;
  agent?: string;
}

/** A study ready to run. */
export interface Study {
  /** The study file, absolute. */
  file: string;
  cases: StudyCase[];
  agents: StudyAgent[];
  repeats: number;
  maxTurns?: number;
  budgetSecs?: number;
  /** Trials of a model in flight at once, by model id, where the file bounds it. */
  concurrency: Record<string, number>;
}

/** A study file refused, with every problem. */
export class StudyError extends Error {
  readonly problems: readonly string[];
  constructor(file: string, problems: readonly string[]) {
    super(`Cannot use the study ${file}:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "StudyError";
    this.problems = problems;
  }
}

/** A JSON pointer as a person reads it: /cases/0/id → cases[0].id. */
const fieldOf = (pointer: string): string =>
  pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === "" ? part : `${path}.${part}`), "");

const show = (value: unknown): string => (value === undefined ? "missing" : typeof value === "number" ? String(value) : JSON.stringify(value));

type Node = TSchema & { type?: string; description?: string; properties?: Record<string, TSchema>; required?: string[]; items?: TSchema; minItems?: number; patternProperties?: Record<string, TSchema> };

/**
 * The problems of `value` against `schema`, one per field, in our words ("cases[0].arm is "cli"; it must be "tools"
 * or "code""). Objects, arrays and records are walked here, so that every field is looked at (typebox's error list
 * stops at a failing union), and each leaf is checked by typebox against its own schema.
 */
function shapeProblems(schema: TSchema, value: unknown, pointer = ""): string[] {
  const node = schema as Node;
  const field = fieldOf(pointer) || "the study";
  const wrong = (): string[] => [`${field} is ${show(value)}; it must be ${node.description ?? "as documented"}`];
  if (node.type === "object" && node.properties) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return wrong();
    const properties = node.properties;
    const known = Object.keys(properties);
    const unknown = Object.keys(value).filter((key) => !known.includes(key)).map((key) => `${field} has an unknown field "${key}"; its fields are ${known.map((name) => `"${name}"`).join(", ")}`);
    const missing = (node.required ?? []).filter((key) => !Object.hasOwn(value, key)).map((key) => `${fieldOf(`${pointer}/${key}`)} is missing; it must be ${(properties[key] as Node).description ?? "given"}`);
    const inner = known.filter((key) => Object.hasOwn(value, key)).flatMap((key) => shapeProblems(properties[key] as TSchema, (value as Record<string, unknown>)[key], `${pointer}/${key}`));
    return [...unknown, ...missing, ...inner];
  }
  if (node.type === "array" && node.items) {
    if (!Array.isArray(value) || value.length < (node.minItems ?? 0)) return wrong();
    return value.flatMap((item, index) => shapeProblems(node.items as TSchema, item, `${pointer}/${index}`));
  }
  if (node.type === "object" && node.patternProperties) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return wrong();
    const inner = Object.values(node.patternProperties)[0] as TSchema;
    return Object.entries(value).flatMap(([key, item]) => shapeProblems(inner, item, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`));
  }
  return Value.Check(schema, value) ? [] : wrong();
}

/** Runs git in `cwd`; its trimmed stdout, or undefined when it fails. */
function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** Checks one case's folder, ref and task against the disk; its problems land in `problems`. */
function resolveCase(entry: StudyFile["cases"][number], base: string, problems: string[]): StudyCase {
  const name = `case "${entry.id}"`;
  const workspace = resolve(base, entry.workspace);
  let isDir = false;
  try {
    isDir = statSync(workspace).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) problems.push(`${name}: workspace ${workspace} is not an existing folder`);
  let task = entry.task ?? "";
  if ((entry.task === undefined) === (entry.taskFile === undefined)) problems.push(`${name} needs one of "task" (text) or "taskFile" (a file), not ${entry.task === undefined ? "neither" : "both"}`);
  else if (entry.taskFile !== undefined) {
    try {
      task = readFileSync(resolve(base, entry.taskFile), "utf8");
    } catch (error) {
      problems.push(`${name}: cannot read its taskFile ${resolve(base, entry.taskFile)}: ${(error as Error).message}`);
    }
  }
  const found: StudyCase = { id: entry.id, workspace, task, specs: entry.specs ?? [], ...(entry.check === undefined ? {} : { check: entry.check }) };
  const root = isDir ? git(workspace, ["rev-parse", "--show-toplevel"]) : undefined;
  if (root === undefined) {
    if (isDir && entry.ref !== undefined) problems.push(`${name} has ref ${show(entry.ref)}, but its workspace is not in a git repository; drop "ref" (the folder is copied as it is)`);
    return found;
  }
  if (entry.ref === undefined) {
    problems.push(`${name}: its workspace is in the git repository ${root}; name the commit, branch or tag its trials start from with "ref" (trials never start from whatever is checked out)`);
    return found;
  }
  const commit = git(workspace, ["rev-parse", "--verify", "--quiet", `${entry.ref}^{commit}`]);
  if (commit === undefined) problems.push(`${name} has ref ${show(entry.ref)}, which names no commit in ${root}; use a branch, a tag or a commit id (git log shows them)`);
  return { ...found, git: { root, commit: commit ?? "", ref: entry.ref, subdir: relative(root, workspace) } };
}

/**
 * Reads one agent's configuration (a file, or given inline) as its agent id sees it, the study file and its
 * configuration file its own files (their writes are asked); problems land in `problems`.
 */
function resolveAgent(entry: StudyFile["agents"][number], study: string, problems: string[]): StudyAgent {
  const name = `agent "${entry.id}"`;
  const ownFiles = [resolve(study)];
  let raw: unknown = entry.config;
  if (typeof entry.config === "string") {
    const file = resolve(dirname(study), entry.config);
    ownFiles.push(file);
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      problems.push(`${name}: cannot read its config ${file}: ${(error as Error).message}`);
      raw = undefined;
    }
  }
  let config = defaultConfiguration();
  if (raw !== undefined) {
    try {
      config = parseConfiguration(raw);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.push(`${name}'s config: ${problem}`);
    }
  }
  if (entry.agent !== undefined && !Object.hasOwn(config.agents, entry.agent)) {
    const known = Object.keys(config.agents);
    problems.push(`${name} acts as agent ${show(entry.agent)}, which its config does not list; ${known.length > 0 ? `it lists ${known.map((id) => show(id)).join(", ")}` : 'add "agents": [{"id": ..., "allow": [...]}] to it'}`);
  }
  return { id: entry.id, model: entry.model, arm: entry.arm, config: { ...forAgent(config, entry.agent), ownFiles }, ...(entry.agent === undefined ? {} : { agent: entry.agent }) };
}

/** Ids listed twice, as problems. */
function duplicates(kind: string, ids: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set(ids.filter((id) => seen.has(id) || !seen.add(id)));
  return [...twice].map((id) => `${kind} "${id}" is listed more than once; ids name trials, so each must be unique`);
}

/** Validates a study file's content against the disk; `file` names it and is where its relative paths start. */
export function parseStudy(value: unknown, file: string): Study {
  const problems = shapeProblems(StudyFile, value);
  const written = value as StudyFile;
  // Without its two lists there is nothing more to look at; with them, every entry of the right shape is checked
  // against the disk too, so one refusal names every problem.
  if (!Array.isArray(written?.cases) || !Array.isArray(written.agents)) throw new StudyError(file, problems);
  const base = dirname(file);
  const wellFormed = <T>(list: T[], key: "cases" | "agents"): T[] => list.filter((entry) => shapeProblems(((StudyFile as Node).properties?.[key] as Node).items as TSchema, entry).length === 0);
  const cases = wellFormed(written.cases, "cases").map((entry) => resolveCase(entry, base, problems));
  const agents = wellFormed(written.agents, "agents").map((entry) => resolveAgent(entry, file, problems));
  problems.push(...duplicates("case", cases.map((entry) => entry.id)), ...duplicates("agent", agents.map((entry) => entry.id)));
  const models = new Set(agents.map((agent) => agent.model));
  for (const model of Object.keys(typeof written.models === "object" ? (written.models ?? {}) : {})) if (!models.has(model)) problems.push(`models has ${show(model)}, which no agent uses; the agents' models are ${[...models].map(show).join(", ")}`);
  if (problems.length > 0) throw new StudyError(file, problems);
  const concurrency = Object.fromEntries(Object.entries(written.models ?? {}).flatMap(([model, settings]) => (settings.concurrency === undefined ? [] : [[model, settings.concurrency]])));
  return {
    file,
    cases,
    agents,
    repeats: written.repeats ?? 1,
    ...(written.maxTurns === undefined ? {} : { maxTurns: written.maxTurns }),
    ...(written.budgetSecs === undefined ? {} : { budgetSecs: written.budgetSecs }),
    concurrency,
  };
}

/** Reads and validates the study file `file`. */
export function loadStudy(file: string): Study {
  const absolute = resolve(file);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (error) {
    throw new StudyError(absolute, [`it cannot be read: ${(error as Error).message}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StudyError(absolute, [`it is not JSON: ${(error as Error).message}`]);
  }
  return parseStudy(value, absolute);
}
