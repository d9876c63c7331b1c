// run_program as a tool: a program run in a runtime whose realm lasts (keepState), answered with its report's text and
// the views it opened, each view sent once. gg mcp's run_program and the agent frameworks' (frameworks/) are this one.
import { type Static, Type } from "typebox";
import type { Attachment } from "../bindings/define.ts";
import type { CallError } from "../host/errors.ts";
import { shownPath } from "../host/paths.ts";
import type { Runtime, RunReport } from "../runtime/index.ts";
import { DEFAULT_LIMITS, type RunOptions, runProblems } from "../runtime/limits.ts";
import type { ViewContent } from "../runtime/window.ts";
import { reportText } from "./report.ts";

/** run_program's arguments. */
export const RunProgram = Type.Object(
  {
    source: Type.String({ description: "The program: the body of an async function, using the gg global; return what you want to read." }),
    language: Type.Optional(Type.Enum(["ts", "js"], { description: 'TypeScript or JavaScript. Default "ts".' })),
    budget: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 86400, description: `Wall-clock budget in seconds. Default ${DEFAULT_LIMITS.budgetSecs}.` })),
    check: Type.Optional(Type.Boolean({ description: "Type-check a TypeScript program first; with type errors it does not run. Default false." })),
    reset: Type.Optional(Type.Boolean({ description: "Start from an empty realm: forget what earlier programs of this session declared. Default false." })),
  },
  { additionalProperties: false },
);

export type RunProgramArgs = Static<typeof RunProgram>;

/** Bytes of views (text and pictures' base64) one answer carries; the MCP SDK's client reads 10 MB a message. */
export const REPLY_VIEW_BYTES = 4 * 1024 * 1024;

/** A part of run_program's answer, in the order a model reads them: texts, and the pictures of views. */
export type ProgramPart = { type: "text"; text: string } | Attachment;

/** What one run_program call came to: refused before anything ran, or the program's report and what a model reads of it. */
export type ProgramAnswer = { refused: CallError } | { report: RunReport; parts: ProgramPart[] };

/** A view's picture, from its data: URL. */
const picture = (dataUrl: string): Attachment => ({ type: "image", mime: dataUrl.slice(5, dataUrl.indexOf(";")), dataUrl });

/**
 * Runs `args`' program in `runtime` (whose realm is reset first if asked): its report's text, then each view it opened
 * that `shown` does not hold yet (added to it), within REPLY_VIEW_BYTES; the views past that are named.
 */
export async function runProgramTool(runtime: Runtime, shown: Set<number>, args: RunProgramArgs, signal?: AbortSignal): Promise<ProgramAnswer> {
  const run: RunOptions = { ...(args.language ? { language: args.language } : {}), ...(args.budget ? { budget: args.budget } : {}), ...(args.check ? { check: true } : {}) };
  const problems = runProblems(run);
  if (problems.length > 0) return { refused: { code: "invalid-argument", message: `Cannot run the program with these arguments: ${problems.join("; ")}` } };
  if (args.reset) await runtime.reset();
  const report = await runtime.run(args.source, run, signal ? { signal } : {});
  const contents: ViewContent[] = report.views.some((view) => !shown.has(view.id)) ? await runtime.views() : [];
  const parts: ProgramPart[] = [{ type: "text", text: reportText(report) }];
  let bytes = 0;
  const held: string[] = [];
  report.views.forEach((view, index) => {
    const opened = contents[index];
    if (shown.has(view.id) || !opened) return;
    shown.add(view.id);
    // One answer stays within what a client reads in one message; the views past that stay open, and are named.
    const size = Buffer.byteLength(opened.text) + (opened.dataUrl?.length ?? 0);
    if (bytes + size > REPLY_VIEW_BYTES) return held.push(shownPath(view.path));
    bytes += size;
    parts.push({ type: "text", text: `[view ${shownPath(view.path)}, ${view.tokens} tokens]\n${opened.text}` });
    if (opened.dataUrl) parts.push(picture(opened.dataUrl));
  });
  if (held.length > 0) parts.push({ type: "text", text: `[${held.length} more views opened, not repeated here: this reply holds at most ${REPLY_VIEW_BYTES / 1024 / 1024} MiB of them: ${held.join(", ")}]` });
  return { report, parts };
}
