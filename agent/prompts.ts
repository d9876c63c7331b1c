// The system prompts of the two arms, generated from the declarations and the configuration: the tools a tool-calling
// agent holds with their briefs and the rules their descriptions state, or for a code agent what a program is, the
// limits it runs under, the Views rules and the types of the gg global it holds. Nothing here restates a description
// by hand: each rule is the sentence the declaration itself gives the model.
import { type Configuration, defaultConfiguration, forAgent } from "../bindings/config.ts";
import { enabledCalls } from "../bindings/index.ts";
import { BUDGET } from "../bindings/batch.ts";
import { shownPath } from "../host/paths.ts";
import { plural } from "../host/lines.ts";
import type { ExternalCatalog } from "../bindings/external.ts";
import { capRule, FOOTER_RULE, imageRule, readFile } from "../bindings/read_file.ts";
import { outputRule, shell } from "../bindings/shell.ts";
import { ggFunctions } from "../runtime/api.ts";
import { callShape, compactDts, MODULES } from "../runtime/docs.ts";
import { DEFAULT_LIMITS, type Limits } from "../runtime/limits.ts";
import { DEFAULT_VIEW_CAPS, type ViewCaps } from "../runtime/views.ts";

/** The two ways a model acts: JSON tool calls, or programs against the gg global. */
export type Arm = "tools" | "code";

/** What a system prompt is generated for. */
export interface PromptOptions {
  arm: Arm;
  /** The configuration (default: a fresh one). */
  config?: Configuration;
  /** The agent whose allowlist applies, if the configuration gives it one. */
  agent?: string;
  /** How a code agent hands in a program: in its reply (a fenced block), or as the run_program tool's source. */
  delivery?: "reply" | "tool";
  /** The limits programs run under (default: a fresh runtime's). */
  limits?: Limits;
  /** The view caps (default: a fresh runtime's). */
  viewCaps?: ViewCaps;
  /** The other tools programs can call (gg.mcp, gg.app): each server is named once, never a tool's schema. */
  external?: ExternalCatalog;
}

const KIB = 1024;

/** The system prompt of `arm` for the agent and configuration given. */
export function systemPrompt(options: PromptOptions): string {
  const config = forAgent(options.config ?? defaultConfiguration(), options.agent);
  return options.arm === "tools" ? toolsPrompt(config) : codePrompt(config, options);
}

function toolsPrompt(config: Configuration): string {
  const calls = enabledCalls(config);
  const holds = (name: string): boolean => calls.some((call) => call.name === name);
  const out = [
    "You are a coding agent working in a workspace on disk. You act through the tools below, one JSON tool call at a time or several in one reply; each result comes back as a tool message. Relative paths resolve against the workspace root; absolute paths are used as they are. When the task is done, reply with your answer and no tool call.",
    "",
    "# Tools",
    "",
    ...(calls.length > 0 ? calls.map((call) => `- ${call.name}: ${call.brief}`) : ["(none: this agent is given no tools, so it answers from the task alone)"]),
    "",
    "A failed call returns error[CODE]: message, saying what failed and how to go on; read it before trying again.",
  ];
  if (holds(readFile.name)) {
    const cap = capRule(config);
    out.push("", "# Reading Files", "", ...(cap ? [`- ${cap}`] : []), `- ${FOOTER_RULE}`, `- ${imageRule(config)}`);
  }
  const batch = calls.filter((call) => call.batch);
  if (batch.length > 0) {
    const held = (name: string): boolean => batch.some((call) => call.name === name);
    const finders = ["glob", "search"].filter(held);
    out.push(
      "",
      "# Batch File Tools",
      "",
      ...(finders.length > 0 ? [`- Find what you need with ${finders.join(" or ")} before reading: it keeps unrelated text out of your context.`] : []),
      ...(held("read") ? ["- Read every range you need, of any files, in one read call; do not read a file again unless it changed."] : []),
      ...(held("edit") ? ["- Put every change to one file in one edit call."] : []),
      "- Make independent calls in the same reply, and do not repeat file contents in your answer.",
      `- Each answers with compact JSON {results, truncated, next, skipped} within a byte budget (max_bytes, default ${BUDGET.default}); truncated means more follow: call again with next.`,
      ...(held("view_image") ? [`- ${imageRule(config)}`] : []),
    );
  }
  if (holds(shell.name)) out.push("", "# Running Commands", "", `- ${outputRule(config)}`);
  return `${out.join("\n")}\n`;
}

/** What a program is, how it is handed in, what comes back and its limits: the code prompt's opening rules. */
export function programRules(options: Pick<PromptOptions, "delivery" | "limits"> = {}): string[] {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const handIn =
    options.delivery === "tool"
      ? "Run a program with the run_program tool, its source the program."
      : "Reply with a ```ts block to run it, or with your answer and no block when done.";
  const output = limits.resultChars === limits.logBytes ? `${limits.resultChars / KIB} KiB result and logs` : `${limits.resultChars / KIB} KiB result, ${limits.logBytes / KIB} KiB logs`;
  return [
    handIn,
    "A program is an async function body (top-level await and return, no import) using the gg global; its logs and returned JSON come back, or its error.",
    `Limits: ${limits.budgetSecs} s${limits.cpuSecs < limits.budgetSecs ? ` (${limits.cpuSecs} s of CPU)` : ""}, ${limits.memoryMb} MB heap, ${output}; no timers, network or Node APIs.`,
    "Compute in the program; return only what you need to see. Top-level declarations persist (gg.context.state()).",
    "gg calls reject with an Error whose code says why. Relative paths start at the workspace root.",
  ];
}

function codePrompt(config: Configuration, options: PromptOptions): string {
  return `${["You are a coding agent in a workspace on disk, acting by writing programs.", "", ...codeSections(config, options)].join("\n")}\n`;
}

/**
 * The description of a run_program tool that an agent framework offers (its system prompt is the application's): what
 * the code arm's prompt says of programs, views and the gg global, after a line saying what the tool does.
 */
export function programToolDescription(options: Omit<PromptOptions, "arm" | "delivery"> = {}): string {
  const config = forAgent(options.config ?? defaultConfiguration(), options.agent);
  const opening = "Run a program in the workspace against the gg global. Programs run one at a time in one runtime kept for this tool set's life: top-level declarations and open views stay for the next program.";
  return `${[opening, "", ...codeSections(config, { ...options, arm: "code", delivery: "tool" })].join("\n")}\n`;
}

/** The code prompt's sections: the program rules, the Views rules, the other tools, the gg global's types. */
function codeSections(config: Configuration, options: PromptOptions): string[] {
  const caps = options.viewCaps ?? DEFAULT_VIEW_CAPS;
  const functions = ggFunctions(config);
  const opens = functions.some((fn) => fn.module === "views" && fn.name === "openFile");
  // What gets a file's text into a program: readFile, or read under the batch implementation.
  const reader = functions.find((fn) => fn.module === "files" && (fn.name === "readFile" || fn.name === "read"));
  const out = programRules(options).map((rule) => `- ${rule}`);
  if (opens) {
    out.push(
      "",
      "# Views",
      "",
      `- ${reader ? `gg.files.${reader.name} gets text for your program; ` : ""}gg.views.openFile(path, {offset, limit}) shows a file to you: only views enter your context window.`,
      `- Views are append-only: re-open a file you changed. One over the caps (${caps.lines} lines, ${caps.bytes / KIB} KiB) is refused with over-cap, never cut.`,
      "- gg.views.close(path) and gg.context.evictFileView(path) take a file's views out; gg.views.list() and gg.context.breakdown() count tokens.",
    );
    if (!config.vision) out.push("", "Reading images is unsupported for this model.");
  }
  out.push(...externalSection(options.external, ggFunctions(config, options.external).filter((fn) => fn.module === "mcp").map((fn) => callShape(fn, config))));
  // The Views section says what the views and context modules do, the Other tools section gg.mcp's; the types declare the others.
  const declared = MODULES.filter((module) => module !== "mcp" && !(opens && (module === "views" || module === "context")));
  out.push("", "# The gg global", "", "```ts", compactDts(config, declared, options.external).trimEnd(), "```");
  return out;
}

/** Characters of a server's description the prompt shows. */
const SERVER_LINE_CHARS = 80;

/**
 * The other tools in a few lines: gg.mcp's own functions as the shapes of their calls (`shapes`), each server once (how
 * a program names it, its description, its tool count), never a tool's schema, so the prompt is the same size for 5
 * tools as for 500; describe gives a tool's types, search finds the rest.
 */
function externalSection(external: ExternalCatalog | undefined, shapes: readonly string[]): string[] {
  if (!external || (external.servers.length === 0 && !external.tools.some((tool) => tool.source === "app"))) return [];
  const out = ["", "# Other tools", ""];
  if (external.servers.length > 0) {
    out.push(`Call gg.mcp.<server>.<tool>(input). gg.mcp: ${shapes.join(", ")}.`);
    for (const server of external.servers) {
      const call = server.call ?? `gg.mcp.call("${server.server}", ...)`;
      if (server.starting) {
        out.push(`- ${call}: still starting; a program that calls it waits for it`);
        continue;
      }
      const about = server.error ? "not available now" : (server.description ?? "").replace(/^#+\s*/, "");
      const line = about.length > SERVER_LINE_CHARS ? `${about.slice(0, SERVER_LINE_CHARS - 3)}...` : about;
      out.push(`- ${call} (${plural(server.tools.length, "tool")})${line ? `: ${line}` : ""}`);
    }
  }
  const app = external.tools.filter((tool) => tool.source === "app");
  if (app.length > 0) out.push("The application's own functions are gg.app's, declared below.");
  return out;
}

/** Views as the text of a message: each one under its label and cost (what `gg prompt --arm code` shows of the opening turn). */
export function viewsText(views: readonly { path: string; text: string; tokens: number }[]): string {
  return views.map((view) => `## ${shownPath(view.path)} (${view.tokens} tokens)\n\n${view.text.endsWith("\n") ? view.text : `${view.text}\n`}`).join("\n");
}
