// Test helpers for studies: a fake OpenAI-compatible provider on 127.0.0.1 that answers either arm from the task
// itself (so concurrent trials need no shared script), and small real git repositories.
import { execFileSync } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A task the fake model carries out: "write PATH CONTENT". Model `wrong` (when set) writes "wrong" instead, with the
 * tools arm only, so pairs differ in their verdicts.
 */
export const writeTask = (path: string, content: string): string => `write ${path} ${content}`;

/** What the fake provider saw. */
export interface Seen {
  requests: number;
  /** Requests carrying a picture, by model, and how many of them were refused. */
  pictures: Record<string, { sent: number; refused: number }>;
  /** Most requests in flight at once, overall and per model. */
  maxInFlight: number;
  maxInFlightByModel: Record<string, number>;
}

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

type Message = { role: string; content: unknown; tool_calls?: unknown[] };

const textOf = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content ?? ""));

/** The reply of the fake model to `messages`: one action, then "Done.". */
function replyTo(body: { model: string; messages: Message[]; tools?: unknown[] }, wrong: string | undefined): Record<string, unknown> {
  const task = body.messages.find((message) => message.role === "user" && typeof message.content === "string" && message.content.startsWith("write "))?.content as string;
  const [, path = "out.txt", content = ""] = /^write (\S+) (\S+)/.exec(task ?? "") ?? [];
  const acted = body.messages.some((message) => message.role === "assistant" && (message.tool_calls !== undefined || textOf(message.content).includes("```ts")) && !JSON.stringify(message.tool_calls ?? []).includes("gg_spec_"));
  if (acted) return { content: "Done." };
  if (body.tools) {
    const written = body.model === wrong ? "wrong" : content;
    return { content: null, tool_calls: [{ id: "w1", type: "function", function: { name: "write_file", arguments: JSON.stringify({ path, content: `${written}\n` }) } }] };
  }
  return { content: `\`\`\`ts\nawait gg.files.writeFile(${JSON.stringify(path)}, ${JSON.stringify(`${content}\n`)});\n\`\`\`` };
}

/** Starts the fake provider; dispose it to stop it. */
export async function fakeProvider(options: FakeOptions = {}) {
  const seen: Seen = { requests: 0, pictures: {}, maxInFlight: 0, maxInFlightByModel: {} };
  const inFlight = { all: 0, byModel: {} as Record<string, number> };
  const held: ServerResponse[] = [];
  const http = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      const body = JSON.parse(text) as { model: string; messages: Message[]; tools?: unknown[] };
      seen.requests++;
      if (options.hold?.()) {
        held.push(response);
        return;
      }
      const model = body.model;
      inFlight.all++;
      inFlight.byModel[model] = (inFlight.byModel[model] ?? 0) + 1;
      seen.maxInFlight = Math.max(seen.maxInFlight, inFlight.all);
      seen.maxInFlightByModel[model] = Math.max(seen.maxInFlightByModel[model] ?? 0, inFlight.byModel[model] ?? 0);
      const answer = (): void => {
        inFlight.all--;
        inFlight.byModel[model] = (inFlight.byModel[model] ?? 1) - 1;
        if (text.includes('"image_url"')) {
          const tally = (seen.pictures[model] ??= { sent: 0, refused: 0 });
          tally.sent++;
          if (options.textOnly?.includes(model)) {
            tally.refused++;
            response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "image_url is only supported by certain models" } }));
            return;
          }
        }
        const message = { role: "assistant", ...replyTo(body, options.wrong) };
        const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, prompt_tokens_details: { cached_tokens: 400 } };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: "c", object: "chat.completion", created: 0, model, choices: [{ index: 0, finish_reason: "stop", message }], usage }));
      };
      setTimeout(answer, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    seen,
    held,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

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
