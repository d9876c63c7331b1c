// Test helpers for studies: the fake provider answering either arm from the task itself (so concurrent trials need
// no shared script), and small real git repositories.
import { execFileSync } from "node:child_process";
import { type ChatBody, call, fakeModel, type Reply } from "../provider.ts";

/**
 * A task the fake model carries out: "write PATH CONTENT". Model `wrong` (when set) writes "wrong" instead, with the
 * tools arm only, so pairs differ in their verdicts.
 */
export const writeTask = (path: string, content: string): string => `write ${path} ${content}`;

interface FakeOptions {
  /** Models that refuse a request carrying a picture (HTTP 400), as a text-only model does. */
  textOnly?: string[];
  /** Model whose tools arm writes "wrong". */
  wrong?: string;
  /** Milliseconds each answer waits: keeps trials in flight together. */
  delayMs?: number;
  /** Decides, per request, to hold it unanswered (until the server closes). */
  hold?(): boolean;
}

const textOf = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content ?? ""));

/** The reply of the fake model to `body`: one action, then "Done.". */
function replyTo(body: ChatBody, wrong: string | undefined): Reply {
  const task = body.messages.find((message) => message.role === "user" && typeof message.content === "string" && message.content.startsWith("write "))?.content as string;
  const [, path = "out.txt", content = ""] = /^write (\S+) (\S+)/.exec(task ?? "") ?? [];
  const acted = body.messages.some((message) => message.role === "assistant" && (message.tool_calls !== undefined || textOf(message.content).includes("```ts")) && !JSON.stringify(message.tool_calls ?? []).includes("gg_spec_"));
  if (acted) return { content: "Done." };
  if (body.tools) return { tool_calls: [call("w1", "write_file", { path, content: `${body.model === wrong ? "wrong" : content}\n` })] };
  return { content: `\`\`\`ts\nawait gg.files.writeFile(${JSON.stringify(path)}, ${JSON.stringify(`${content}\n`)});\n\`\`\`` };
}

/** Starts the shared fake provider answering as the task says (see `writeTask`); dispose it to stop it. */
export const fakeProvider = (options: FakeOptions = {}) =>
  fakeModel((request) => (options.hold?.() ? "hold" : replyTo(request.body, options.wrong)), {
    refusePictures: options.textOnly ?? false,
    delayMs: options.delayMs,
    usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, prompt_tokens_details: { cached_tokens: 400 } },
  });

/** Makes `dir` a git repository holding `files`, committed on branch main; returns the commit. */
export function gitRepo(dir: string, files: Record<string, string>, put: (files: Record<string, string>) => void): string {
  put(files);
  const run = (...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
  run("init", "--quiet", "--initial-branch=main");
  run("add", "-A");
  run("-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false", "commit", "--quiet", "-m", "start");
  return run("rev-parse", "HEAD");
}

/** The lines git prints for `args` in `dir`. */
export const gitLines = (dir: string, ...args: string[]): string[] => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).split("\n").filter(Boolean);
