// What `npm pack` ships, checked without publishing: every module it holds imports only what it holds or what the
// package depends on, no source map, the build's third-party notices, links that resolve, types a TypeScript user
// compiles as they are, and a server.json the MCP registry accepts (its schema kept in test/fixtures/mcp-registry/).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, normalize } from "node:path";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { currentBuilds, NOTICES } from "../../scripts/build.ts";
import { deep } from "../deep.ts";
import { tempWorkspace } from "../workspace.ts";

const root = join(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  mcpName: string;
  repository: { url: string };
  dependencies: Record<string, string>;
  /** The optional SDKs the subpaths gg-runtime/ai-sdk and gg-runtime/openai-agents load (test/frameworks/peers.test.ts). */
  peerDependencies: Record<string, string>;
};
/** The repository every link that leaves the package points at. */
const REPOSITORY = "https://github.com/gg-runtime/gg";

/** The files `npm pack` ships (its scripts skipped: npm test has built dist/ already). */
function packed(): string[] {
  const run = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`npm pack --dry-run failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { files: { path: string }[] }[])[0]?.files.map((file) => file.path) ?? [];
}

/** The package a bare import names ("@scope/name/sub.js" names "@scope/name"). */
const packageOf = (specifier: string): string => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");

/** The shipped file a relative import from `file` names, trying what TypeScript and Node would: as written, and a .d.ts for a .ts or .js in a declaration. */
function target(file: string, specifier: string, shipped: Set<string>): string | undefined {
  const path = normalize(join(dirname(file), specifier));
  const candidates = file.endsWith(".d.ts") ? [path, path.replace(/\.[mc]?[jt]s$/, ".d.ts")] : [path];
  return candidates.find((candidate) => shipped.has(candidate));
}

/** The links of a Markdown text: [text](href) and ![alt](src), without titles. */
const links = (markdown: string): string[] => [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((found) => found[1] as string);

describe("the packed package", () => {
  const files = packed();
  const shipped = new Set(files);

  test("ships no source map, and every module it holds imports only shipped files, dependencies, declared peers and Node's own modules", () => {
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
    const modules = files.filter((file) => /\.(m?js|d\.ts|ts)$/.test(file) && !file.startsWith("docs/"));
    expect(modules).toContain("bin/gg.js");
    const missing: string[] = [];
    for (const file of modules) {
      const { importedFiles, referencedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
      for (const { fileName } of [...importedFiles, ...referencedFiles]) {
        if (fileName.startsWith(".")) {
          if (target(file, fileName, shipped) === undefined) missing.push(`${file} imports ${fileName}, which is not shipped`);
        } else if (!fileName.startsWith("node:") && !builtinModules.includes(fileName) && !Object.hasOwn(pkg.dependencies, packageOf(fileName)) && !Object.hasOwn(pkg.peerDependencies, packageOf(fileName))) {
          missing.push(`${file} imports ${fileName}, of a package that is neither a dependency nor a peer`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  test("ships the notices of what its bundles hold, as the current build wrote them (run npm run docs when this fails)", () => {
    expect(files).toContain(NOTICES);
    const [build] = currentBuilds(join(root, "dist"));
    const notices = readFileSync(join(root, NOTICES), "utf8");
    expect(notices).toBe(readFileSync(join(root, "dist", build as string, NOTICES), "utf8"));
    // The console's page bundles Preact and Chart.js: their licences are kept.
    for (const name of ["preact", "chart.js", "@kurkle/color", "@modelcontextprotocol/sdk"]) expect(notices).toMatch(new RegExp(`^## ${name.replace(".", "\\.")} [\\d.]+ \\(MIT\\)\\n\\n(MIT License|The MIT License)`, "m"));
  });

  test("every link of the README and the shipped docs resolves inside the package or points at the repository", () => {
    const pages = files.filter((file) => file.endsWith(".md") && file !== NOTICES);
    expect(pages).toContain("README.md");
    const broken: string[] = [];
    for (const page of pages) {
      for (const href of links(readFileSync(join(root, page), "utf8"))) {
        if (href.startsWith("#") || /^https?:\/\//.test(href)) {
          if (href.startsWith("https://github.com/") && !href.startsWith(`${REPOSITORY}/`) && href.includes("/gg/")) broken.push(`${page}: ${href} names another repository than ${REPOSITORY}`);
          continue;
        }
        const path = normalize(join(dirname(page), href.split("#")[0] as string));
        if (!shipped.has(path) && !files.some((file) => file.startsWith(`${path}/`))) broken.push(`${page}: ${href} (${path} is not shipped)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

// TypeScript checks the whole public surface's declarations (about 900 files: openai's, the MCP SDK's, typescript's):
// 20-60 s, so in the deep run only.
test.runIf(deep)("the library's types compile for a TypeScript user without skipLibCheck and without their own @types/node: the README's example", () => {
  using ws = tempWorkspace();
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const example = /## Use it as a library[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (example === undefined) throw new Error("README.md has no TypeScript example under Use it as a library");
  mkdirSync(join(ws.root, "node_modules"));
  symlinkSync(root, join(ws.root, "node_modules", pkg.name));
  ws.put({
    "package.json": JSON.stringify({ name: "user", type: "module", private: true }),
    "user.ts": example,
    // A strict program whose "types" names nothing: Node's types come from the package, or the compile fails.
    "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", target: "es2022", noEmit: true, types: [], skipLibCheck: false }, files: ["user.ts"] }),
  });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const compiled = spawnSync(process.execPath, [tsc, "-p", ws.root], { encoding: "utf8" });
  expect(compiled.stdout + compiled.stderr).toBe("");
  expect(compiled.status).toBe(0);
}, 300_000);

test("server.json is valid for the MCP registry and describes this package: its name, version, repository and stdio command", () => {
  const schema = JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/mcp-registry/server.schema.json"), "utf8")) as { $id: string };
  const server = JSON.parse(readFileSync(join(root, "server.json"), "utf8")) as Record<string, unknown> & { packages: Record<string, unknown>[] };
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  expect(validate(server) ? [] : validate.errors).toEqual([]);
  expect(server).toMatchObject({ $schema: schema.$id, name: pkg.mcpName, version: pkg.version, repository: { url: REPOSITORY, source: "github" } });
  expect(pkg.repository.url).toBe(`git+${REPOSITORY}.git`);
  expect(server.packages).toEqual([expect.objectContaining({ registryType: "npm", identifier: pkg.name, version: pkg.version, transport: { type: "stdio" } })]);
  expect(server.packages[0]?.packageArguments).toEqual(expect.arrayContaining([{ type: "positional", value: "mcp" }, expect.objectContaining({ type: "named", name: "--workspace", format: "filepath" })]));
});
