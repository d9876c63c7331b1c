import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { currentBuilds, ENTRIES, swapTo } from "../../scripts/build.ts";
import { deep } from "../deep.ts";
import { tempWorkspace } from "../workspace.ts";

const root = join(import.meta.dirname, "../..");
const dist = join(root, "dist");
const script = join(root, "scripts/build.ts");

/** Runs a command to its end without blocking the test's event loop. */
function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A fake build folder under `dir`: an entry file of each name, saying which build it is. */
function fakeBuild(dir: string, name: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  for (const entry of ENTRIES) writeFileSync(join(dir, name, entry), `export const build = "${name}";\n`);
}

describe("scripts/build.ts", () => {
  // A whole build (tsc and esbuild) with gg started over and over beside it: minutes on a loaded machine, so in the
  // deep run only (npm test builds before it runs the tests, through the same script).
  test.runIf(deep)("gg started while the build runs, swap included, answers every time; then dist/ is the new build and keeps the previous one", async () => {
    const [before] = currentBuilds(dist);
    const building = run(process.execPath, [script]);
    let done = false;
    void building.then(() => (done = true));
    const calls: { args: string[]; status: number | null; stderr: string }[] = [];
    // A call that may search loads dist/second.mjs before dist/main.mjs; the others load main.mjs alone.
    const commands = [
      ["call", "tree", '{"depth":1}'],
      ["call", "search", '{"query":"swapTo","path":"scripts"}'],
    ];
    while (!done) {
      const args = commands[calls.length % 2] as string[];
      calls.push({ args, ...(await run(join(root, "bin/gg"), args)) });
      // A pause between starts: enough of them to meet every stage of the build, without a core spent on them.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const built = await building;
    expect(built).toMatchObject({ status: 0, stderr: "" });
    expect(calls.filter((call) => call.status !== 0 || call.stderr !== "")).toEqual([]);
    expect(calls.length).toBeGreaterThan(2);

    const after = currentBuilds(dist);
    expect(after.size).toBe(1);
    const [current] = after as Set<string>;
    expect(current).not.toBe(before);
    // A gg started from the previous build may still import one of its chunks.
    if (before !== undefined && before !== "flat") expect(existsSync(join(dist, before, "main.mjs"))).toBe(true);
    expect(await run(join(root, "bin/gg"), ["call", "tree", '{"depth":1}'])).toMatchObject({ status: 0, stdout: expect.stringContaining("scripts/") });

    // Unchanged inputs: prepare's build does nothing.
    expect(spawnSync(process.execPath, [script, "--if-changed"], { cwd: root }).status).toBe(0);
    expect(currentBuilds(dist)).toEqual(after);

    // The package ships the entry files and the current build alone.
    const packed = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
    const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path) ?? [];
    const shipped = new Set(files.filter((file) => file.startsWith("dist/")).map((file) => file.split("/").slice(0, 2).join("/")));
    expect([...shipped].sort()).toEqual([`dist/${current}`, ...ENTRIES.map((entry) => `dist/${entry}`)].sort());
    expect(files).toContain(`dist/${current}/main.mjs`);
  }, 900_000);

  test("concurrent swaps leave every entry file pointing at one and the same build", async () => {
    using ws = tempWorkspace();
    const names = ["build-a", "build-b", "build-c", "build-d"];
    for (const name of names) fakeBuild(ws.root, name);
    const swapping = `import { swapTo } from ${JSON.stringify(script)}; for (let i = 0; i < 30; i++) swapTo(process.argv[1], process.argv[2]);`;
    const swaps = await Promise.all(names.map((name) => run(process.execPath, ["--input-type=module", "-e", swapping, ws.root, name])));
    expect(swaps.map((swap) => swap.status)).toEqual([0, 0, 0, 0]);
    const builds = currentBuilds(ws.root);
    expect(builds.size).toBe(1);
    const [winner] = builds as Set<string>;
    expect(names).toContain(winner);
    for (const entry of ENTRIES) expect(existsSync(join(ws.root, winner as string, entry))).toBe(true);
    // No lock and no half-written file is left behind.
    expect(readdirSync(ws.root).sort()).toEqual([".npmignore", ...ENTRIES, ...names].sort());
  });

  test("swapTo keeps the previous build and recent ones, removes older ones, and a flat dist/'s files once superseded twice", () => {
    using ws = tempWorkspace();
    ws.put({ "main.mjs": "export const main = 1;\n", "chunk-X.mjs": "", "host/files.js": "" });
    for (const name of ["build-a", "build-b", "build-old"]) fakeBuild(ws.root, name);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(ws.root, "build-old"), hourAgo, hourAgo);

    // The flat dist/ is the previous build: its files stay; a build long superseded goes.
    expect(swapTo(ws.root, "build-a")).toEqual(["build-old"]);
    expect(readFileSync(join(ws.root, "main.mjs"), "utf8")).toBe('export * from "./build-a/main.mjs";\n');
    expect(readFileSync(join(ws.root, "index.d.ts"), "utf8")).toBe('export * from "./build-a/index.js";\n');
    expect(existsSync(join(ws.root, "chunk-X.mjs"))).toBe(true);

    expect(swapTo(ws.root, "build-b").sort()).toEqual(["chunk-X.mjs", "host"]);
    utimesSync(join(ws.root, "build-a"), hourAgo, hourAgo);
    fakeBuild(ws.root, "build-c");
    // build-b, the previous one, stays however old.
    utimesSync(join(ws.root, "build-b"), hourAgo, hourAgo);
    expect(swapTo(ws.root, "build-c")).toEqual(["build-a"]);
    expect(readdirSync(ws.root).filter((name) => name.startsWith("build-")).sort()).toEqual(["build-b", "build-c"]);
  });
});
