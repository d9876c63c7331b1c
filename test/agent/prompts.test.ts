// Every variant of both system prompts is pinned as the model reads it: both arms, both read modes, vision on and
// off, and an agent whose allowlist leaves out shell.
import { describe, expect, test } from "vitest";
import { parseConfiguration } from "../../bindings/config.ts";
import { type Arm, systemPrompt } from "../../agent/prompts.ts";

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
