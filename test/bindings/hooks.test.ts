import { existsSync, rmSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { type Configuration, ConfigError, defaultConfiguration, parseConfiguration } from "../../bindings/config.ts";
import { type CommandHook, hookPolicy, parseHooks, runHook } from "../../bindings/hooks.ts";
import type { ShellResult } from "../../bindings/shell.ts";
import { tempWorkspace } from "../workspace.ts";

const created: string[] = [];
afterEach(() => {
  for (const file of created.splice(0)) rmSync(file, { force: true });
});

async function hook(config: Configuration, declaration: unknown, cwd: string): Promise<ShellResult> {
  const [parsed] = parseHooks([declaration]);
  const result = await runHook(parsed as CommandHook, { cwd, config, agent: "hooktest" });
  if (result.files) created.push(result.files.stdout, result.files.stderr);
  return result;
}

const lines = (count: number) => `seq 1 ${count}`;

describe("hooks", () => {
  test("a command hook's output is offloaded under the agent's shell policy", async () => {
    using ws = tempWorkspace();
    const config = parseConfiguration([{ id: "shell", implementation: "offload", params: { maxLines: 5, maxChars: 8000 } }]);
    const result = await hook(config, { type: "command", command: lines(10) }, ws.root);
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith("6\n7\n8\n9\n10\n[Output truncated: last 5 lines]\n")).toBe(true);
    expect(existsSync(result.files?.stdout ?? "")).toBe(true);
  });

  test("a command hook that names its own mode uses it instead", async () => {
    using ws = tempWorkspace();
    const config = parseConfiguration([{ id: "shell", implementation: "offload", params: { maxLines: 5, maxChars: 8000 } }]);
    const declaration = { type: "command", command: lines(10), output: { implementation: "inline", params: { maxLines: 1, maxChars: 1 } } };
    expect(hookPolicy(parseHooks([declaration])[0] as CommandHook, config)).toEqual({ mode: "inline", maxLines: 1, maxChars: 1 });
    const result = await hook(config, declaration, ws.root);
    expect(result).toEqual({ exitCode: 0, output: `${Array.from({ length: 10 }, (_, i) => i + 1).join("\n")}\n`, truncated: false });
  });

  test("a hook's own mode is refused on the configuration's terms, every problem at once", () => {
    let refusal: ConfigError | undefined;
    try {
      parseHooks([
        { type: "command", command: "x", output: { implementation: "tee", params: { maxLines: 0 } } },
        { type: "script", command: "y", output: { implementation: "inline", params: { maxLines: 1, maxChars: 1 } } },
        { type: "daemon", command: "z" },
      ]);
    } catch (error) {
      if (error instanceof ConfigError) refusal = error;
    }
    const text = refusal?.problems.join("\n") ?? "";
    expect(refusal?.problems).toHaveLength(5);
    expect(text).toContain('"offload", "inline"');
    expect(text).toContain("maxLines 0");
    expect(text).toContain("params.maxChars");
    expect(text).toContain("script hook");
    expect(text).toContain("hook #3");
  });

  test("unknown fields in a hook or its output mode are refused, as in a configuration", () => {
    expect(() => parseHooks([{ type: "command", command: "x", extra: 1 }])).toThrow(/hook #1 has an unknown field "extra"/);
    expect(() => parseHooks([{ type: "command", command: "x", output: { implementation: "inline", params: { maxLines: 1, maxChars: 1 }, extra: 1 } }])).toThrow(/output has an unknown field "extra"/);
  });

  test("runHook refuses a hook parseHooks would refuse, with invalid-argument, and starts nothing", async () => {
    using ws = tempWorkspace();
    const run = (declaration: object) => runHook(declaration as CommandHook, { cwd: ws.root, config: defaultConfiguration(), agent: "hooktest" });
    await expect(run({ type: "command", command: "touch ran", output: { implementation: "bogus", params: { maxLines: 1, maxChars: 1 } } })).rejects.toMatchObject({ code: "invalid-argument", message: expect.stringContaining('"offload", "inline"') });
    await expect(run({ type: "command", command: "touch ran", output: { implementation: "offload", params: {} } })).rejects.toMatchObject({ code: "invalid-argument" });
    for (const timeoutSecs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, "10"]) {
      await expect(run({ type: "command", command: "touch ran", timeoutSecs })).rejects.toMatchObject({ code: "invalid-argument" });
    }
    expect(existsSync(`${ws.root}/ran`)).toBe(false);
  });

  test("a script hook's stdout is its verdict, returned whole however long", async () => {
    using ws = tempWorkspace();
    const verdict = await hook(defaultConfiguration(), { type: "script", command: "echo noise >&2; head -c 40000 /dev/zero | tr '\\0' v; echo" }, ws.root);
    expect(verdict).toEqual({ exitCode: 0, output: `${"v".repeat(40000)}\n`, truncated: false });
  });

  test("an agent without a shell has no policy: command hook output comes back whole under the byte cap alone", async () => {
    using ws = tempWorkspace();
    const config = parseConfiguration([{ id: "shell", enabled: false }]);
    const whole = await hook(config, { type: "command", command: lines(1000) }, ws.root);
    expect(whole).toEqual({ exitCode: 0, output: `${Array.from({ length: 1000 }, (_, i) => i + 1).join("\n")}\n`, truncated: false });
    const capped = await hook(config, { type: "command", command: "head -c 20000 /dev/zero | tr '\\0' c" }, ws.root);
    expect(capped).toEqual({ exitCode: 0, output: `${"c".repeat(16384)}\n[Output truncated: capped at 16384 bytes]`, truncated: true });
  });
});
