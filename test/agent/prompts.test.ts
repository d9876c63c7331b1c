// Every variant of both system prompts is pinned as the model reads it: both arms, both read modes, vision on and
// off, and an agent whose allowlist leaves out shell.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseConfiguration } from "../../bindings/config.ts";
import { type Arm, systemPrompt } from "../../agent/prompts.ts";
import type { ExternalCatalog } from "../../bindings/external.ts";
import { ggFunctions } from "../../runtime/api.ts";
import { textTokens } from "../../runtime/context.ts";
import { renderDts } from "../../runtime/docs.ts";
import { diagnostics } from "../typecheck.ts";

const configuration = (mode: "default-cap" | "unlimited", vision: boolean) =>
  parseConfiguration({
    capabilities: [{ id: "read-file", implementation: mode, params: { lineCap: 250 } }],
    model: { vision },
    agents: [{ id: "reviewer", allow: ["read_file", "search", "tree", "list_dir"] }],
  });

const VARIANTS = (["tools", "code"] as Arm[]).flatMap((arm) =>
  (["default-cap", "unlimited"] as const).flatMap((mode) => [true, false].map((vision) => ({ arm, mode, vision }))),
);

describe("system prompts", () => {
  test.each(VARIANTS)("$arm arm, read-file $mode, vision $vision", async ({ arm, mode, vision }) => {
    const prompt = systemPrompt({ arm, config: configuration(mode, vision) });
    await expect(prompt).toMatchFileSnapshot(`__snapshots__/${arm}-${mode}-${vision ? "vision" : "text-only"}.md`);
    // The cap is stated by the tool-calling prompt alone, and only under default-cap, with this run's own lineCap.
    expect(prompt.includes("at most 250 lines")).toBe(arm === "tools" && mode === "default-cap");
    expect(prompt.includes("Reading images is unsupported for this model")).toBe(!vision);
  });

  test.each(["tools", "code"] as Arm[])("%s arm for an agent without shell: nothing of shell is in it", async (arm) => {
    const prompt = systemPrompt({ arm, config: configuration("default-cap", true), agent: "reviewer" });
    await expect(prompt).toMatchFileSnapshot(`__snapshots__/${arm}-reviewer.md`);
    expect(prompt).not.toMatch(/shell|write_file|writeFile|edit_file|editFile|Running Commands/);
  });

  test.each([
    ["shell-inline", [{ id: "shell", implementation: "inline", params: { maxLines: 200, maxChars: 8000 } }]],
    ["no-read-file", [{ id: "read-file", enabled: false }]],
    [
      "batch",
      [
        { id: "read-file", implementation: "batch", params: { lineCap: 200 } },
        { id: "edit-file", implementation: "batch" },
        { id: "list-dir", implementation: "batch" },
        { id: "search", implementation: "batch" },
      ],
    ],
    ["batch-read-classic-edit", [{ id: "read-file", implementation: "batch", params: { lineCap: 200 } }]],
    ["nothing", ["read-file", "write-file", "edit-file", "list-dir", "search", "shell"].map((id) => ({ id, enabled: false }))],
  ])("both arms with %s", async (name, capabilities) => {
    for (const arm of ["tools", "code"] as Arm[]) {
      const prompt = systemPrompt({ arm, config: parseConfiguration(capabilities) });
      await expect(prompt).toMatchFileSnapshot(`__snapshots__/${arm}-${name}.md`);
      if (name === "no-read-file") expect(prompt).not.toMatch(/Reading Files|# Views|read_file|readFile|openFile/);
      // Under batch the classic calls are gone from both arms, and seed 003's way of working is stated.
      if (name.startsWith("batch")) expect(prompt).not.toMatch(/read_file|readFile|Reading Files/);
      if (name === "batch" && arm === "tools") expect(prompt).toContain("# Batch File Tools");
    }
  });

  test("an agent holding shell alone is told to read offloaded logs with commands, not with calls it lacks", () => {
    const prompt = systemPrompt({ arm: "tools", config: parseConfiguration({ agents: [{ id: "runner", allow: ["shell"] }] }), agent: "runner" });
    expect(prompt).toContain("When output is truncated, read those files with a command (tail, grep, sed -n) instead of running the command again.");
    expect(prompt).not.toMatch(/read_file|search/);
  });

  test("the tool-calling prompt states the shell's offload rule; a text-only code prompt says so by itself under Views", () => {
    const tools = systemPrompt({ arm: "tools" });
    expect(tools).toContain("# Running Commands\n\n- Output longer than 200 lines or 8000 characters");
    expect(tools).toContain("# Reading Files\n\n- Without a limit a read returns at most 2000 lines");
    const code = systemPrompt({ arm: "code", config: parseConfiguration({ model: { vision: false } }) });
    expect(code).toMatch(/# Views\n\n(- .*\n)+\nReading images is unsupported for this model\.\n\n# The gg global/);
  });
});

describe("the code prompt's declarations", () => {
  const declarationsOf = (prompt: string): string => /```ts\n([\s\S]*?)```/.exec(prompt)?.[1] ?? "";
  test.each([
    ["default", {}],
    ["batch", { capabilities: ["read-file", "edit-file", "list-dir", "search"].map((id) => ({ id, implementation: "batch", ...(id === "read-file" ? { params: { lineCap: 200 } } : {}) })) }],
    ["nothing", { capabilities: ["read-file", "write-file", "edit-file", "list-dir", "search", "shell"].map((id) => ({ id, enabled: false })) }],
  ])("name every function the agent holds, in the types or the Views section (%s)", (_name, file) => {
    const config = parseConfiguration(file);
    const prompt = systemPrompt({ arm: "code", config });
    for (const fn of ggFunctions(config)) expect(prompt).toMatch(new RegExp(`\\b${fn.name}\\(`));
    expect(diagnostics(new Map([["/gg.d.ts", declarationsOf(prompt)]]))).toEqual([]);
  });

  test("a program written against them type-checks against docs/gg.d.ts as well", () => {
    const program = [
      "const found = await gg.files.search('todo', { limit: 5 });",
      "const lines = found.matches.map((match) => `${match.path}:${match.line}:${match.text}`);",
      "const shape = await gg.files.tree('.', { depth: 1 });",
      "const kinds = shape.entries.map((entry) => entry.kind);",
      "const text = await gg.files.readFile('a.txt', { offset: 1, limit: 10 });",
      "const ran = await gg.shell.shell('ls', { timeoutSecs: 5 });",
      "const edited = await gg.files.editFile('a.txt', 'x', 'y');",
      "const written = await gg.files.writeFile('b.txt', 'z');",
      "export const all = { lines, kinds, text, exit: ran.exitCode, at: edited.line, created: written.created, entries: (await gg.files.listDir()).entries.map((e) => e.name) };",
    ].join("\n");
    const compact = declarationsOf(systemPrompt({ arm: "code" }));
    expect(diagnostics(new Map([["/gg.d.ts", compact], ["/p.ts", program]]))).toEqual([]);
    expect(diagnostics(new Map([["/gg.d.ts", readFileSync(new URL("../../docs/gg.d.ts", import.meta.url), "utf8")], ["/p.ts", program]]))).toEqual([]);
  });
});

describe("the code prompt's other tools", () => {
  /** A catalog of `servers`, each [name, tool count, description?], its tools with schemas a prompt must never carry. */
  const catalog = (servers: [string, number, string?][]): ExternalCatalog => ({
    version: 1,
    servers: servers.map(([server, count, description]) => ({ server, call: `gg.mcp.${server}`, ...(description ? { description } : {}), tools: Array.from({ length: count }, (_, i) => `tool_${i}`), leftOut: [] })),
    tools: servers.flatMap(([server, count]) => Array.from({ length: count }, (_, i) => ({ source: "mcp" as const, server, tool: `tool_${i}`, name: `mcp__${server}__tool_${i}`, call: `gg.mcp.${server}.tool_${i}`, description: `Tool ${i}.`, inputSchema: { type: "object", properties: { secretField: { type: "string" } } }, readOnly: false }))),
  });
  const tokens = (servers: [string, number, string?][]): number => textTokens(systemPrompt({ arm: "code", external: servers.length > 0 ? catalog(servers) : undefined }));

  test("gg.mcp's functions as the shapes of their calls, with result types named gg.d.ts declares, and each server once", () => {
    const prompt = systemPrompt({ arm: "code", external: catalog([["memory", 9], ["everything", 13, "# Everything Server"]]) });
    expect(prompt).toContain("\n# Other tools\n\nCall gg.mcp.<server>.<tool>(input). gg.mcp: call(server, tool, input?), list(): McpServer[], search(query): McpMatch[], describe(tool): McpTool.\n- gg.mcp.memory (9 tools)\n- gg.mcp.everything (13 tools): Everything Server\n");
    expect(prompt).not.toContain("secretField");
    const starting = catalog([["slow", 0]]);
    expect(systemPrompt({ arm: "code", external: { ...starting, servers: starting.servers.map((server) => ({ ...server, error: "still starting", starting: true })) } })).toContain("- gg.mcp.slow: still starting; a program that calls it waits for it\n");
    const dts = readFileSync(new URL("../../docs/gg.d.ts", import.meta.url), "utf8");
    const full = renderDts(parseConfiguration({}), catalog([["memory", 1]]));
    for (const name of ["McpServer", "McpMatch", "McpTool"]) expect(full).toContain(`interface ${name} {`);
    expect(dts).not.toContain("McpTool");
  });

  test("a first server without a description costs at most 60 tokens, a further one its line, a tool nothing", () => {
    const none = tokens([]);
    expect(tokens([["filesystem", 14]]) - none).toBeLessThanOrEqual(60);
    // A description costs its line's length, cut at 80 characters, on top of gg.mcp's own line.
    const long = "A server whose first line of instructions runs on well past the eighty characters the prompt keeps of it.";
    expect(tokens([["everything", 13, long]]) - none).toBeLessThanOrEqual(tokens([["everything", 13]]) - none + 20);
    expect(tokens([["filesystem", 14], ["memory", 9]]) - tokens([["filesystem", 14]])).toBeLessThanOrEqual(10);
    expect(tokens([["api", 500]])).toBe(tokens([["api", 100]]));
  });
});
