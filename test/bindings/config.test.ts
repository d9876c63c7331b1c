import { describe, expect, test } from "vitest";
import { problems } from "./refusals.ts";
import { defaultConfiguration, parseConfiguration } from "../../bindings/config.ts";
import { parseHooks } from "../../bindings/hooks.ts";
import { toolDefinitions } from "../../bindings/index.ts";

describe("configuration", () => {
  test("a fresh configuration enables every capability, read-file on default-cap with lineCap 2000", () => {
    const config = defaultConfiguration();
    expect(Object.values(config.capabilities).every((c) => c.enabled)).toBe(true);
    expect(config.capabilities["read-file"]).toEqual({ enabled: true, implementation: "default-cap", params: { lineCap: 2000 } });
    expect(config.capabilities.shell).toEqual({ enabled: true, implementation: "offload", params: { maxLines: 200, maxChars: 8000 } });
    expect(toolDefinitions(config).map((t) => t.name)).toEqual(["read_file", "write_file", "edit_file", "list_dir", "tree", "search", "shell"]);
  });

  test("an entry in the seed's form is honoured; unlisted capabilities keep their defaults", () => {
    const config = parseConfiguration([{ id: "read-file", enabled: true, implementation: "unlimited", params: { lineCap: 250 } }]);
    expect(config.capabilities["read-file"]).toEqual({ enabled: true, implementation: "unlimited", params: { lineCap: 250 } });
    expect(config.capabilities.search.enabled).toBe(true);
  });

  test("a disabled capability's calls do not exist", () => {
    const config = parseConfiguration([{ id: "list-dir", enabled: false }, { id: "search", enabled: false }, { id: "shell", enabled: false }]);
    expect(toolDefinitions(config).map((t) => t.name)).toEqual(["read_file", "write_file", "edit_file"]);
  });

  test("every bad value is named at once", () => {
    const found = problems([
      { id: "read-file", enabled: true, implementation: "capped", params: { lineCap: 0 } },
      { id: "teleport", enabled: true },
      { id: "search", enabled: "yes", params: { depth: 3 } },
    ]);
    expect(found).toHaveLength(5);
    expect(found.join("\n")).toContain('"default-cap", "unlimited"');
    expect(found.join("\n")).toContain("lineCap 0");
    expect(found.join("\n")).toContain('"teleport"');
    expect(found.join("\n")).toContain('enabled "yes"');
    expect(found.join("\n")).toContain('"depth"');
  });

  test.each([[{}], [undefined], ["250"], [-5], [2.5], [null]])("lineCap %j refuses the configuration", (params) => {
    const entry = { id: "read-file", enabled: true, implementation: "default-cap", params: params === undefined ? {} : { lineCap: params } };
    expect(problems([entry]).join("\n")).toMatch(/lineCap/);
  });

  test("the shell's sandbox params are read with the ceilings: a mode, network true or false, folders to write", () => {
    const shell = { id: "shell", params: { maxLines: 200, maxChars: 8000, sandbox: "workspace-write", network: true, writable: ["/root/.cache", "build"] } };
    expect(parseConfiguration([shell]).capabilities.shell.params).toEqual(shell.params);
    expect(parseConfiguration([{ id: "shell", params: { maxLines: 1, maxChars: 1, sandbox: "read-only" } }]).capabilities.shell.params.sandbox).toBe("read-only");
  });

  test("every bad sandbox param is named at once, with the modes", () => {
    const found = problems([{ id: "shell", params: { maxLines: 200, maxChars: 8000, sandbox: "strict", network: "no", writable: "/root/.cache" } }]);
    expect(found).toHaveLength(3);
    expect(found.join("\n")).toContain('sandbox "strict"; it is one of "off", "read-only", "workspace-write"');
    expect(found.join("\n")).toContain('network "no"; use true or false');
    expect(found.join("\n")).toContain('writable "/root/.cache"; it must be an array of folders');
    expect(problems([{ id: "shell", params: { maxLines: 1, maxChars: 1, sandbox: "read-only", writable: ["", 3] } }])).toHaveLength(2);
  });

  test("network and writable without a sandbox are refused: nothing would apply them", () => {
    expect(problems([{ id: "shell", params: { maxLines: 1, maxChars: 1, network: false } }]).join()).toMatch(/sets network, which only a sandbox applies, but its sandbox is "off"/);
    expect(problems([{ id: "shell", params: { maxLines: 1, maxChars: 1, sandbox: "off", network: true, writable: [] } }]).join()).toMatch(/sets network and writable/);
  });

  test("a command hook's own output mode takes the ceilings only, not the sandbox's params", () => {
    expect(() => parseHooks([{ type: "command", command: "x", output: { implementation: "inline", params: { maxLines: 1, maxChars: 1, sandbox: "read-only" } } }])).toThrow(/unknown param "sandbox"; its params are "maxLines", "maxChars"/);
  });

  test("a capability listed twice, a non-array and an unknown field are refused", () => {
    expect(problems([{ id: "search" }, { id: "search" }]).join()).toMatch(/more than once/);
    expect(problems("read-file").join()).toMatch(/JSON array/);
    expect(problems([{ id: "search", enabeld: false }]).join()).toMatch(/"enabeld"/);
  });

  test("the shell capability needs both ceilings whichever mode it selects, and names the modes", () => {
    expect(parseConfiguration([{ id: "shell", implementation: "inline", params: { maxLines: 10, maxChars: 100 } }]).capabilities.shell.implementation).toBe("inline");
    const found = problems([{ id: "shell", enabled: true, implementation: "tee", params: { maxLines: "200" } }]);
    expect(found).toHaveLength(3);
    expect(found.join("\n")).toContain('"offload", "inline"');
    expect(found.join("\n")).toContain('maxLines "200"');
    expect(found.join("\n")).toContain("params.maxChars");
    expect(problems([{ id: "shell", implementation: "inline", params: { maxLines: 5 } }]).join()).toContain("maxChars");
  });

  test("a null implementation is not a mode, ceilings past 1,000,000 are refused, and numbers are shown as parsed", () => {
    expect(problems([{ id: "shell", implementation: null, params: { maxLines: 10, maxChars: 100 } }]).join()).toContain("unknown implementation null");
    expect(problems([{ id: "shell", params: { maxLines: 1e9, maxChars: 100 } }]).join()).toContain("maxLines 1000000000; the most gg serves is 1000000");
    expect(problems(JSON.parse('[{"id": "shell", "params": {"maxLines": 10, "maxChars": 1e400}}]')).join()).toContain("maxChars Infinity");
  });

  test("the object form sets the model's vision", () => {
    expect(parseConfiguration({ capabilities: [], model: { vision: false } }).vision).toBe(false);
    expect(problems({ model: { vision: "no" } }).join()).toMatch(/vision/);
  });

  test("read_file's schema and description state what leaving limit out means under each mode", () => {
    const capped = toolDefinitions(parseConfiguration([{ id: "read-file", implementation: "default-cap", params: { lineCap: 250 } }]))[0];
    const unlimited = toolDefinitions(parseConfiguration([{ id: "read-file", implementation: "unlimited", params: { lineCap: 250 } }]))[0];
    expect(JSON.stringify(capped?.parameters)).toContain("Default: 250 lines");
    expect(capped?.description).toContain("at most 250 lines");
    expect(JSON.stringify(unlimited?.parameters)).toContain("Default: the rest of the file");
    expect(unlimited?.description).not.toContain("250");
  });
});
