// The SDKs are optional peers: gg-runtime alone loads neither, each subpath loads its own, and a subpath whose SDK is
// not installed fails in one line naming the package. Run on the built package (dist/), in processes of their own.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { tempWorkspace } from "../workspace.ts";

const root = join(import.meta.dirname, "..", "..");

/** Prints each package specifier that gg's own built files import (not what the packages import in turn). */
const LOGGING = `data:text/javascript,${encodeURIComponent(
  `import { registerHooks } from "node:module"; registerHooks({ resolve(specifier, context, next) { if (context.parentURL?.startsWith(${JSON.stringify(pathToFileURL(join(root, "dist")).href)}) && !/^[./]|^node:|^file:/.test(specifier)) process.stderr.write("imports " + specifier + "\\n"); return next(specifier, context); } });`,
)}`;

/** Runs `source` as a module in a Node of its own, from `cwd`. */
const runModule = (source: string, cwd: string, flags: string[] = []) => spawnSync(process.execPath, [...flags, "--input-type=module", "-e", source], { cwd, encoding: "utf8" });

describe("optional peers", () => {
  test("gg-runtime imports neither SDK; gg-runtime/ai-sdk imports ai and gg-runtime/openai-agents @openai/agents, and not the other", () => {
    const sdks = (entry: string): string[] => {
      const run = runModule(`await import(${JSON.stringify(join(root, "dist", entry))});`, root, ["--import", LOGGING]);
      expect(run.status, run.stderr).toBe(0);
      return [...new Set(run.stderr.split("\n").flatMap((line) => (/^imports (ai|@ai-sdk\/|@openai\/agents)/.test(line) ? [line.slice("imports ".length)] : [])))];
    };
    expect(sdks("index.js")).toEqual([]);
    expect(sdks("ai-sdk.js")).toEqual(["ai"]);
    expect(sdks("openai-agents.js")).toEqual(["@openai/agents"]);
  });

  test("without its SDK installed, a subpath fails in one line naming the package to install, and gg-runtime alone still loads", () => {
    using ws = tempWorkspace();
    // An application's node_modules with gg-runtime and its dependencies, but neither SDK.
    const modules = join(ws.root, "node_modules");
    mkdirSync(join(modules, "gg-runtime"), { recursive: true });
    for (const file of ["package.json", "dist"]) symlinkSync(join(root, file), join(modules, "gg-runtime", file));
    for (const name of readdirSync(join(root, "node_modules"))) if (!["ai", "@ai-sdk", "@openai"].includes(name)) symlinkSync(join(root, "node_modules", name), join(modules, name));
    // Links kept as they are, so a module's dependencies are looked up in this folder, not in gg's checkout.
    const flags = ["--preserve-symlinks"];
    const alone = runModule('const gg = await import("gg-runtime"); process.stdout.write(typeof gg.createRuntime);', ws.root, flags);
    expect(alone.stdout).toBe("function");
    for (const [subpath, sdk] of [["gg-runtime/ai-sdk", "ai"], ["gg-runtime/openai-agents", "@openai/agents"]] as const) {
      const run = runModule(`try { await import("${subpath}"); } catch (error) { process.stdout.write(error.message); process.exitCode = 3; }`, ws.root, flags);
      expect(run.status).toBe(3);
      expect(run.stdout).toBe(`Cannot load ${subpath}: it needs the package ${sdk}, which is not installed; install it with npm install ${sdk}`);
    }
  });
});
