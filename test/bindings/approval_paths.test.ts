// Path rules judge the file a call reaches, not only the path as written: symbolic links, /proc/self/root and `..`
// through a link lead nowhere a rule forbids; walks leave out what the agent may not read; and a write of gg's own
// configuration (the file in force, the hook's script) is asked whatever the rules and the hook say.
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ruleVerdict } from "../../bindings/approval_match.ts";
import { commandWords } from "../../bindings/approval_own.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { createTools } from "../../bindings/index.ts";
import type { ApprovalRequest } from "../../bindings/gate.ts";
import { createRuntime } from "../../runtime/index.ts";
import { tempWorkspace } from "../workspace.ts";

const DENY_SECRETS = { approvals: [{ call: "*", when: { path: "secrets/**" }, verdict: "deny", reason: "secrets stay put" }] };
const BATCH = ["read-file", "edit-file", "list-dir", "search"].map((id) => ({ id, implementation: "batch", ...(id === "read-file" ? { params: { lineCap: 200 } } : {}) }));

/** A workspace holding secrets/key.txt ("hunter2"), src/a.ts, and links into secrets from outside it. */
function layout() {
  const ws = tempWorkspace();
  ws.put({ "secrets/key.txt": "hunter2\n", "src/a.ts": "export const a = 1; // hunter2 is not here\n", "notes.md": "hunter2? no\n" });
  symlinkSync("secrets", join(ws.root, "link"));
  symlinkSync("../secrets", join(ws.root, "src/lnk"));
  symlinkSync("secrets/new.txt", join(ws.root, "dangling"));
  return ws;
}

const code = (result: { ok: boolean; error?: { code: string; message: string } }): string => (result.ok ? "ok" : `${result.error?.code}: ${result.error?.message}`);

describe("a path rule judges the real path too", () => {
  test("a write through a link, /proc/self/root, a link's `..` or a dangling link into secrets/ is denied, nothing written", async () => {
    using ws = layout();
    const tools = createTools({ workspace: ws.root, config: DENY_SECRETS });
    const ways = ["link/x.txt", "src/lnk/x.txt", `/proc/self/root${ws.root}/secrets/x.txt`, "src/lnk/../secrets/x.txt", "link/../secrets/x.txt", "dangling", "link/sub/deeper/x.txt"];
    for (const path of ways) {
      const result = await tools.call("write_file", { path, content: "pwned" });
      expect(code(result), path).toMatch(/^denied: .*denied by rule 1: secrets stay put/);
    }
    expect(existsSync(join(ws.root, "secrets/x.txt"))).toBe(false);
    expect(existsSync(join(ws.root, "secrets/new.txt"))).toBe(false);
    expect(existsSync(join(ws.root, "secrets/sub"))).toBe(false);
    expect((await tools.call("write_file", { path: "src/b.ts", content: "ok" })).ok).toBe(true);
    // src/lnk/.. is secrets/.. as the kernel walks it: the workspace root, where x.txt is not secret.
    expect((await tools.call("write_file", { path: "src/lnk/../x.txt", content: "ok" })).ok).toBe(true);
    expect(readFileSync(join(ws.root, "x.txt"), "utf8")).toBe("ok");
  });

  test("reads and edits through a link are judged by where they land: read_file, edit_file, batch read and edit", async () => {
    using ws = layout();
    const classic = createTools({ workspace: ws.root, config: DENY_SECRETS });
    expect(code(await classic.call("read_file", { path: "link/key.txt" }))).toMatch(/^denied/);
    expect(code(await classic.call("edit_file", { path: "src/lnk/key.txt", old: "hunter2", new: "x" }))).toMatch(/^denied/);
    const batch = createTools({ workspace: ws.root, config: { capabilities: BATCH, ...DENY_SECRETS } });
    expect(code(await batch.call("read", { files: [{ path: "src/a.ts" }, { path: "link/key.txt" }] }))).toMatch(/^denied/);
    expect(code(await batch.call("edit", { path: "link/key.txt", edits: [{ old: "hunter2", new: "x" }] }))).toMatch(/^denied/);
    expect(readFileSync(join(ws.root, "secrets/key.txt"), "utf8")).toBe("hunter2\n");
  });

  test("an allow of src/** does not reach past a link out of src/: with approvalDefault ask and no one to ask, denied", async () => {
    using ws = layout();
    const config = { approvalDefault: "ask", approvals: [{ call: "write_file", when: { path: "src/**" }, verdict: "allow" }] };
    const tools = createTools({ workspace: ws.root, config });
    expect((await tools.call("write_file", { path: "src/ok.ts", content: "ok" })).approval).toEqual({ verdict: "allow", by: "rule 1" });
    const through = await tools.call("write_file", { path: "src/lnk/x.txt", content: "pwned" });
    expect(code(through)).toMatch(/^denied: .*no one could be asked/);
    expect(existsSync(join(ws.root, "secrets/x.txt"))).toBe(false);
  });

  test("the strictest of the written and the real path stands, and a rule about the written path still holds", () => {
    using ws = layout();
    const place = { workspace: ws.root, cwd: ws.root };
    const write = { name: "write_file", effects: true, paths: true };
    const denyLink = parseConfiguration({ approvals: [{ call: "write_file", when: { path: "link/**" }, verdict: "deny" }] });
    expect(ruleVerdict(denyLink, write, { path: "link/x" }, place).verdict).toBe("deny");
    expect(ruleVerdict(denyLink, write, { path: "secrets/x" }, place).verdict).toBe("allow");
    // A shell's /proc/self/cwd is its own working directory, the call's: judged as both gg's and the call's.
    const secrets = parseConfiguration(DENY_SECRETS);
    expect(ruleVerdict(secrets, write, { path: "/proc/self/cwd/link/x" }, place)).toMatchObject({ verdict: "deny", by: "rule 1" });
    expect(ruleVerdict(secrets, write, { path: "/proc/self/cwd/notes.md" }, place)).toMatchObject({ verdict: "allow" });
  });
});

describe("walks leave out what the agent may not read", () => {
  test('under a "*" deny of secrets/**: search with no path, tree, list_dir show nothing of secrets/; a walk of it (or of a link to it) is denied', async () => {
    using ws = layout();
    const tools = createTools({ workspace: ws.root, config: DENY_SECRETS });
    const found = await tools.call("search", { query: "hunter2" });
    expect(found.ok && found.text).toBe("notes.md:1:hunter2? no\nsrc/a.ts:1:export const a = 1; // hunter2 is not here");
    const tree = await tools.call("tree", { depth: 3 });
    expect(tree.ok && tree.text).not.toMatch(/secrets|key\.txt/);
    expect(tree.ok && tree.text).toMatch(/^link\/ \(symbolic link, not followed\)$/m);
    const listed = await tools.call("list_dir", {});
    expect(listed.ok && listed.text.split("\n")).toEqual(["dangling", "link/", "notes.md", "src/"]);
    for (const [name, args] of [["search", { query: "x", path: "secrets" }], ["search", { query: "x", path: "link" }], ["tree", { path: "src/lnk" }], ["list_dir", { path: "link" }]] as const) {
      expect(code(await tools.call(name, args)), `${name} ${JSON.stringify(args)}`).toMatch(/^denied/);
    }
  });

  test("a deny of read_file alone hides the files from search and tree too; an allow hides nothing", async () => {
    using ws = layout();
    const readDeny = { approvals: [{ call: "read_file", when: { path: "**/*.txt" }, verdict: "deny" }] };
    const hidden = createTools({ workspace: ws.root, config: readDeny });
    const tree = await hidden.call("tree", { depth: 3 });
    expect(tree.ok && tree.text).toMatch(/^secrets\/$/m);
    expect(tree.ok && tree.text).not.toMatch(/key\.txt/);
    const found = await hidden.call("search", { query: "hunter2", path: "secrets" });
    expect(found.ok && found.data).toMatchObject({ matches: [], filesSearched: 0 });
    const open = createTools({ workspace: ws.root, config: { approvals: [{ call: "read_file", when: { path: "**" }, verdict: "allow" }] } });
    const all = await open.call("search", { query: "hunter2" });
    expect(all.ok && all.text).toMatch(/^secrets\/key\.txt:1:hunter2$/m);
  });

  test("batch list, glob and search leave secrets/ out, and a list of it is denied", async () => {
    using ws = layout();
    const tools = createTools({ workspace: ws.root, config: { capabilities: BATCH, ...DENY_SECRETS } });
    const globbed = await tools.call("glob", { patterns: ["**"] });
    expect(globbed.ok && JSON.parse(globbed.text).results).toEqual(["notes.md", "src/a.ts"]);
    const listed = await tools.call("list", {});
    expect(listed.ok && JSON.parse(listed.text).results.map((entry: { path: string }) => entry.path)).toEqual(["dangling", "link", "notes.md", "src"]);
    const found = await tools.call("search", { pattern: "hunter2", mode: "files" });
    expect(found.ok && found.text).not.toMatch(/secrets/);
    expect(found.ok && found.text).toMatch(/notes\.md/);
    expect(code(await tools.call("list", { path: "link" }))).toMatch(/^denied/);
    expect(code(await tools.call("glob", { patterns: ["**"], path: "secrets" }))).toMatch(/^denied/);
  });

  test("a program's searches, warm ones too, and its opening tree leave secrets/ out", async () => {
    using ws = layout();
    const runtime = createRuntime({ workspace: ws.root, config: DENY_SECRETS });
    try {
      for (let i = 0; i < 2; i++) {
        const report = await runtime.run(`const found = await gg.files.search("hunter2"); return found.matches.map((m) => m.path);`);
        expect(report.ok && report.result).toEqual(["notes.md", "src/a.ts"]);
      }
      const tree = await runtime.run(`return (await gg.files.tree(".", { depth: 3 })).text;`);
      expect(tree.ok && tree.result).not.toMatch(/secrets/);
    } finally {
      await runtime.close();
    }
  });
});

describe("gg's own configuration", () => {
  test("the hook's scripts are found in its command line by their spelling", () => {
    expect(commandWords(`sh ./check.sh --strict; node 'hooks/a b.js' && A=1 python3 gate.py -m x|tee "/tmp/log"`)).toEqual(["sh", "./check.sh", "--strict", "node", "hooks/a b.js", "A=1", "python3", "gate.py", "-m", "x", "tee", "/tmp/log"]);
  });

  test("a write or an edit of the configuration file in force, or the hook's script, is asked whatever the rules and the hook allow", async () => {
    using ws = layout();
    ws.put({ "gg.json": "{}\n", "hook.sh": `cat > /dev/null; echo '{"verdict": "allow"}'\n` });
    symlinkSync("gg.json", join(ws.root, "cfg"));
    const parsed = parseConfiguration({ approvals: [{ call: "*", when: { path: "**" }, verdict: "allow" }], approvalHook: { command: "sh ./hook.sh" } });
    const config = { ...parsed, ownFiles: [join(ws.root, "gg.json")] };
    const asked: ApprovalRequest[] = [];
    const tools = createTools({ workspace: ws.root, config, approve: async (request) => (asked.push(request), { verdict: "deny", reason: "not my config" }) });
    for (const [name, args] of [
      ["write_file", { path: "gg.json", content: '{"approvals": []}' }],
      ["write_file", { path: "cfg", content: "{}" }],
      ["write_file", { path: `/proc/self/root${ws.root}/hook.sh`, content: "echo allow" }],
      ["edit_file", { path: "hook.sh", old: "allow", new: "deny" }],
    ] as const) {
      expect(code(await tools.call(name, args)), name).toMatch(/^denied: .*denied by person: not my config/);
    }
    expect(asked.map((request) => request.asking)).toEqual(Array(4).fill({ by: "config", reason: expect.stringMatching(/is gg's own configuration \((the configuration file in force|a file the approval hook "sh \.\/hook\.sh" runs)\)/) }));
    expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe("{}\n");
    expect(readFileSync(join(ws.root, "hook.sh"), "utf8")).toMatch(/"verdict": "allow"/);
    // Anything else is as the rules and the hook say.
    expect((await tools.call("write_file", { path: "notes.md", content: "ok" })).approval).toEqual({ verdict: "allow", by: "rule 1" });
  });

  test("a person asked may allow it; a deny rule stays a deny; a batch edit is asked too", async () => {
    using ws = layout();
    ws.put({ "gg.json": "{}\n" });
    const own = (input: object) => ({ ...parseConfiguration({ capabilities: BATCH, ...input }), ownFiles: [join(ws.root, "gg.json")] });
    const allowing = createTools({ workspace: ws.root, config: own({}), approve: async () => ({ verdict: "allow" }) });
    expect((await allowing.call("edit", { path: "gg.json", edits: [{ old: "{}", new: "[]" }] })).approval).toMatchObject({ verdict: "allow", by: "person" });
    expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe("[]\n");
    const denying = createTools({ workspace: ws.root, config: own({ approvals: [{ call: "edit", when: { path: "*.json" }, verdict: "deny" }] }), approve: async () => ({ verdict: "allow" }) });
    expect((await denying.call("edit", { path: "gg.json", edits: [{ old: "[]", new: "{}" }] })).approval).toMatchObject({ verdict: "deny", by: "rule 1" });
    expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe("[]\n");
  });
});
