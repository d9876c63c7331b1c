// The agent loop and stale views: a change from outside gg between two turns is named in one line of the history,
// before the next request's views, and the stale view itself travels unchanged, under a heading with its lines.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runAgent } from "../../agent/loop.ts";
import { fakeModel } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const text = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content));

test("a file changed from outside gg is named before the next request's views, once, and its view is not rewritten", async () => {
  using ws = tempWorkspace();
  ws.put({ "src/a.ts": "export const a = 1;\nexport const b = 2;\n" });
  await using server = await fakeModel([
    { content: "```ts\nawait gg.views.openFile('src/a.ts', { offset: 2, limit: 1 });\nreturn 1;\n```" },
    { content: "```ts\nreturn 2;\n```" },
    { content: "Done." },
  ]);
  const onTurn = (turn: { turn: number }): void => {
    if (turn.turn === 1) writeFileSync(join(ws.root, "src/a.ts"), "export const a = 3;\nexport const b = 4;\n");
  };
  const report = await runAgent({ provider: server.provider, model: "m", arm: "code", task: "Look at src/a.ts.", workspace: ws.root, onTurn });
  expect(report.ok).toBe(true);
  const [, second, third] = server.requests.map((request) => request.messages);
  const line = "src/a.ts changed on disk since your view of turn 1; open it again to see it now";
  expect(second?.at(-2)).toEqual({ role: "user", content: line });
  // The heading says what the view holds; the view still shows the text as it was read.
  expect(text(second?.at(-1)?.content)).toContain("## src/a.ts lines 2-2 of 2\\n\\nexport const b = 2;");
  // Named once: the third request carries the line where it was, in the history, and no second one.
  expect(third?.filter((message) => message.content === line)).toHaveLength(1);
  expect(third?.at(-4)).toEqual({ role: "user", content: line });
});
