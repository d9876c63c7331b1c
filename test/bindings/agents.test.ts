// Per-agent allowlists: an agent holds the calls its entry names, of those its capabilities enable, and nothing it
// does not hold is seen anywhere.
import { describe, expect, test } from "vitest";
import { problems } from "./refusals.ts";
import { forAgent, parseConfiguration } from "../../bindings/config.ts";
import { toolDefinitions } from "../../bindings/index.ts";
import { ggFunctions } from "../../runtime/api.ts";
import { renderApiDoc, renderDts } from "../../runtime/docs.ts";
import { engineWorkspace } from "../runtime/engine.ts";

const REVIEWER = { capabilities: [], agents: [{ id: "reviewer", allow: ["read_file", "search", "tree"] }] };

describe("agent allowlists", () => {
  test("an agent with an entry holds the calls it names; one without, or no agent, holds every enabled call", () => {
    const config = parseConfiguration(REVIEWER);
    expect(toolDefinitions(forAgent(config, "reviewer")).map((tool) => tool.name)).toEqual(["read_file", "tree", "search"]);
    expect(toolDefinitions(forAgent(config, "builder")).map((tool) => tool.name)).toHaveLength(7);
    expect(toolDefinitions(forAgent(config, undefined)).map((tool) => tool.name)).toHaveLength(7);
  });

  test("an agent id may be any string, Object.prototype's names included", () => {
    const config = parseConfiguration({ agents: [{ id: "__proto__", allow: ["search"] }] });
    expect(toolDefinitions(forAgent(config, "__proto__")).map((tool) => tool.name)).toEqual(["search"]);
    for (const id of ["constructor", "toString", "hasOwnProperty"]) expect(toolDefinitions(forAgent(config, id))).toHaveLength(7);
  });

  test("every bad value is named in one pass: unknown and disabled calls, duplicate ids, unknown fields, bad shapes", () => {
    expect(
      problems({
        capabilities: [{ id: "shell", enabled: false }],
        agents: [
          { id: "a", allow: ["read_file", "grep", "shell"] },
          { id: "a", allow: [] },
          { id: "", allow: [], role: "x" },
          { id: "b", allow: "search" },
          "c",
        ],
      }),
    ).toEqual([
      'agent "a" allows unknown call "grep"; the calls are "read_file", "read", "view_image", "write_file", "edit_file", "edit", "list_dir", "tree", "list", "glob", "search", "shell"',
      'agent "a" allows shell, whose capability "shell" is disabled; enable it or drop shell',
      'agent "a" is listed more than once; keep one entry',
      'agent #3 has an unknown field "role"; the fields are "id", "allow", "approvals", "approvalDefault", "approvalHook", "approvalTimeoutSecs"',
      'agent #3 has id ""; an agent id is a non-empty string',
      'agent "b" has allow "search"; it must be an array of call names, e.g. ["read_file", "search"]',
      'agent #5 must be an object like {"id": "reviewer", "allow": ["read_file", "search"]}',
    ]);
    expect(problems({ agents: { reviewer: ["read_file"] } })).toEqual(['"agents" must be an array of entries like {"id": "reviewer", "allow": ["read_file", "search"]}']);
  });

  test("what an agent does not hold is absent from the gg global, the docs and the types", () => {
    const reviewer = forAgent(parseConfiguration({ agents: [{ id: "reviewer", allow: ["search", "tree"] }] }), "reviewer");
    expect(ggFunctions(reviewer).map((fn) => `${fn.module}.${fn.name}`)).toEqual(["files.tree", "files.search", "views.close", "views.list", "context.evictFileView", "context.breakdown", "context.state"]);
    for (const text of [renderApiDoc(reviewer), renderDts(reviewer)]) {
      for (const absent of ["readFile", "openFile", "writeFile", "editFile", "listDir", "shell(", "ShellResult", "WriteResult"]) expect(text).not.toContain(absent);
      expect(text).toContain("search(query: string");
    }
  });

  test("a program of an agent without shell finds gg.shell undefined, and its check says so", async () => {
    using ws = engineWorkspace({ configEntries: REVIEWER, agent: "reviewer" });
    ws.put({ "a.txt": "TODO\n" });
    expect(await ws.run("return [typeof gg.shell, typeof gg.files.writeFile, typeof gg.views.openFile, (await gg.files.search('TODO')).matches.length]")).toMatchObject({ ok: true, result: ["undefined", "undefined", "function", 1] });
    const checked = await ws.run("await gg.shell.shell('ls');", { check: true });
    expect(checked.error).toMatchObject({ code: "type-error", message: expect.stringContaining("Property 'shell' does not exist") });
  });
});
