// Who a command-line run asks about a call whose verdict is ask: the person at the terminal, one question at a time;
// without a terminal, or with --approve, the standing answer --approve gives (deny unless it says allow).
import { closeSync, createReadStream, openSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { askerOf, questionOf, whyAsked } from "../bindings/approval_question.ts";
import type { ApprovalAnswer, ApprovalRequest, Approve } from "../bindings/gate.ts";

/** --approve's values. */
export type StandingAnswer = "allow" | "deny";

/** The approver of a command run with `--approve answer` (or without), writing its questions to `err`. */
export function approverFor(answer: StandingAnswer | undefined, err: (text: string) => void): Approve {
  if (answer === undefined && hasTerminal()) return terminalApprover(err);
  const verdict = answer ?? "deny";
  const standing = answer === undefined ? "no one to ask: there is no terminal to ask a person on, and --approve allow was not given" : `--approve ${answer} on the command line`;
  // What asked, and why, stays in the reason: the agent learns what a person would have been asked.
  return async (request) => ({ verdict, reason: `${standing}; ${whyAsked(request.asking)} asked`, by: "standing" });
}

/** Whether a person can be asked: stderr is a terminal, and this process has one to read the answer from. */
function hasTerminal(): boolean {
  if (!process.stderr.isTTY) return false;
  try {
    closeSync(openSync("/dev/tty", "r"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Asks at the terminal (read from /dev/tty, so a program piped on stdin does not answer for the person): allow once,
 * deny, or allow what asked (a rule, the default, the hook) for the rest of the run. Questions wait for each other.
 */
function terminalApprover(err: (text: string) => void): Approve {
  const allowedForRun = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(() => askAtTerminal(request, allowedForRun, err));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

async function askAtTerminal(request: ApprovalRequest, allowedForRun: Set<string>, err: (text: string) => void): Promise<ApprovalAnswer> {
  const asker = askerOf(request.asking?.by);
  if (allowedForRun.has(asker)) return { verdict: "allow", reason: `${asker} allowed at the terminal for the rest of the run` };
  err(questionText(request));
  const reply = (await readAnswer(`  y allow once, n deny, a allow ${asker} for the rest of the run [n]: `)).trim().toLowerCase();
  if (reply === "a") {
    allowedForRun.add(asker);
    return { verdict: "allow", reason: `${asker} allowed at the terminal for the rest of the run` };
  }
  return reply === "y" ? { verdict: "allow", reason: "allowed at the terminal" } : { verdict: "deny", reason: "denied at the terminal" };
}

/**
 * The question as the terminal shows it: what asked and why, each part of a command line that asked, then the command
 * line (or the arguments) indented, so no line of it can pass for one of gg's.
 */
function questionText(request: ApprovalRequest): string {
  const question = questionOf(request);
  const lines = [`gg: ${request.call} asks for approval: ${question.why}`, ...question.parts.map((part) => `  it asks about: ${part}`)];
  lines.push(`  ${question.label} (${question.length.toLocaleString("en-US")} characters):`, ...question.shown.split("\n").map((line) => `    ${line}`));
  return `${lines.join("\n")}\n`;
}

/** One line from the terminal after `prompt` on stderr; an empty answer when the terminal closes. */
async function readAnswer(prompt: string): Promise<string> {
  const input = createReadStream("/dev/tty");
  const terminal = createInterface({ input, output: process.stderr, terminal: false });
  try {
    const closed = new Promise<string>((resolve) => terminal.once("close", () => resolve("")));
    return await Promise.race([terminal.question(prompt), closed]);
  } finally {
    terminal.close();
    input.destroy();
  }
}
