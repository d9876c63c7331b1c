// A study's agents carry the files they were configured from, the study file and the agent's configuration file, as
// gg's own configuration: a trial's write of either is asked (bindings/approval_own.ts).
import { join } from "node:path";
import { expect, test } from "vitest";
import { ruleVerdict } from "../../bindings/approval_match.ts";
import { loadStudy } from "../../study/file.ts";
import { tempWorkspace } from "../workspace.ts";

test("a study agent's configuration names the study file and its configuration file as its own; a write of either is asked", () => {
  using ws = tempWorkspace();
  ws.put({
    "repo/a.txt": "a\n",
    "gg.json": JSON.stringify({ approvals: [{ call: "*", when: { path: "**" }, verdict: "allow" }] }),
    "study.json": JSON.stringify({ cases: [{ id: "c", workspace: "repo", task: "t" }], agents: [{ id: "x", model: "m", arm: "tools", config: "gg.json" }, { id: "y", model: "m", arm: "code" }] }),
  });
  const study = loadStudy(join(ws.root, "study.json"));
  const [configured, inline] = study.agents.map((agent) => agent.config);
  expect(configured?.ownFiles).toEqual([join(ws.root, "study.json"), join(ws.root, "gg.json")]);
  expect(inline?.ownFiles).toEqual([join(ws.root, "study.json")]);
  const place = { workspace: join(ws.root, "repo"), cwd: join(ws.root, "repo") };
  const write = { name: "write_file", effects: true, paths: true };
  expect(ruleVerdict(configured!, write, { path: "../gg.json" }, place)).toMatchObject({ verdict: "ask", by: "config" });
  expect(ruleVerdict(configured!, write, { path: "../study.json" }, place)).toMatchObject({ verdict: "ask", by: "config" });
  expect(ruleVerdict(configured!, write, { path: "a.txt" }, place)).toMatchObject({ verdict: "allow", by: "rule 1" });
});
