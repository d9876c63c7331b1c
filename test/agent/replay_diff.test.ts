// How a replay shows a call whose result differs from the recording: the lines that changed, as a bounded unified
// diff of the texts the model was told, and the hashes only when a text is not in the transcript.
import { createHash } from "node:crypto";
import { expect, test } from "vitest";
import type { CallOutcome } from "../../agent/loop.ts";
import { differences } from "../../agent/transcript.ts";

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");
const outcome = (text: string): CallOutcome => ({ name: "write_file", args: { path: "out.txt" }, ok: true, hash: sha(text) });
const told = (...texts: string[]): Map<string, string> => new Map(texts.map((text) => [sha(text), text]));

test("results without a final newline differ by their lines alone, with no 'No newline at end of file' markers", () => {
  const [then, now] = ["Created out.txt (6 bytes, 1 line)", "Overwrote out.txt (6 bytes, 1 line)"];
  expect(differences([outcome(then)], [outcome(now)], { then: told(then), now: told(now) })).toEqual([
    ["call 1 (write_file): a different result:", "  --- then", "  +++ now", "  @@ -1,1 +1,1 @@", `  -${then}`, `  +${now}`].join("\n"),
  ]);
});

test("a newline present in one result and not the other is still said", () => {
  const [then, now] = ["a\nb\n", "a\nb"];
  expect(differences([outcome(then)], [outcome(now)], { then: told(then), now: told(now) })[0]).toContain("\\ No newline at end of file");
});

test("a text the transcript does not hold is shown by its hashes", () => {
  expect(differences([outcome("x")], [outcome("y")])).toEqual([`call 1 (write_file): a different result (sha256 ${sha("x").slice(0, 12)} then, ${sha("y").slice(0, 12)} now)`]);
});
