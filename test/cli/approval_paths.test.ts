// Path rules and gg's own configuration in real gg processes: `gg call` and `gg run` judge a path by the file it
// reaches (/proc/self/cwd included, which only a process of its own can show), a write of the --config file is asked
// (and denied with no one to ask), over MCP too; a replayed transcript edited to allow what its rules deny is refused.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import type { Arm } from "../../agent/prompts.ts";
import { runAgent } from "../../agent/loop.ts";
import { transcriptWriter } from "../../agent/transcript.ts";
import { call, fakeModel, type Reply } from "../provider.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const gg = (cwd: string, args: string[], input?: string) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", ...(input === undefined ? {} : { input }) });
const DENY_SECRETS = { approvals: [{ call: "*", when: { path: "secrets/**" }, verdict: "deny", reason: "secrets stay put" }] };

/** A workspace with secrets/key.txt, a link to secrets/, and gg.json holding `config`. */
function layout(config: object) {
  const ws = tempWorkspace();
  ws.put({ "secrets/key.txt": "hunter2\n", "notes.md": "hunter2? no\n", "gg.json": `${JSON.stringify(config)}\n` });
  symlinkSync("secrets", join(ws.root, "link"));
  return ws;
}

describe("gg call and gg run", () => {
  test("gg call: a write through /proc/self/cwd or a link into secrets/ is denied, exit 1, nothing written", () => {
    using ws = layout(DENY_SECRETS);
    for (const path of ["/proc/self/cwd/secrets/x.txt", "link/x.txt", "/proc/self/cwd/link/x.txt"]) {
      const run = gg(ws.root, ["call", "write_file", JSON.stringify({ path, content: "pwned" }), "--config", "gg.json"]);
      expect(run.status, path).toBe(1);
      expect(run.stdout, path).toMatch(/^error\[denied\]: Cannot run write_file: denied by rule 1: secrets stay put/);
    }
    expect(existsSync(join(ws.root, "secrets/x.txt"))).toBe(false);
  });

  test("gg call: a write of the --config file is asked, so denied without a terminal, whatever the rules allow; --approve allow lets it", () => {
    using ws = layout({ approvals: [{ call: "*", when: { path: "**" }, verdict: "allow" }] });
    symlinkSync("gg.json", join(ws.root, "cfg"));
    const before = readFileSync(join(ws.root, "gg.json"), "utf8");
    for (const path of ["gg.json", "cfg", "./secrets/../gg.json"]) {
      const run = gg(ws.root, ["call", "write_file", JSON.stringify({ path, content: "{}" }), "--config", "gg.json"]);
      expect(run.status, path).toBe(1);
      expect(run.stdout, path).toMatch(/^error\[denied\]: .*gg's own configuration \(the configuration file in force\)/);
    }
    expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe(before);
    expect(gg(ws.root, ["call", "write_file", JSON.stringify({ path: "gg.json", content: "{}" }), "--config", "gg.json", "--approve", "allow"]).status).toBe(0);
    expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe("{}");
  });

  test("gg run: a program's write of its configuration or through a link is denied, and its search shows nothing of secrets/", () => {
    using ws = layout(DENY_SECRETS);
    const program = `const out = [];
for (const path of ["gg.json", "link/x.txt"]) { try { await gg.files.writeFile(path, "x"); out.push("wrote"); } catch (e) { out.push(e.code); } }
out.push((await gg.files.search("hunter2")).matches.map((m) => m.path).join(","));
return out;`;
    const run = gg(ws.root, ["run", "-", "--config", "gg.json", "--json"], program);
    expect(JSON.parse(run.stdout).result).toEqual(["denied", "denied", "notes.md"]);
    expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe(`${JSON.stringify(DENY_SECRETS)}\n`);
    expect(existsSync(join(ws.root, "secrets/x.txt"))).toBe(false);
  });
});

test("gg mcp: a client without elicitation gets a deny on a write of the server's configuration, a search leaves secrets/ out", async () => {
  using ws = layout(DENY_SECRETS);
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--workspace", ws.root, "--config", join(ws.root, "gg.json")], stderr: "pipe" });
  const client = new Client({ name: "gg-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    const text = (result: CallToolResult): string => result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
    const written = (await client.callTool({ name: "write_file", arguments: { path: "gg.json", content: "[]" } })) as CallToolResult;
    expect(written).toMatchObject({ isError: true, structuredContent: { code: "denied" } });
    expect(text(written)).toMatch(/gg's own configuration/);
    const found = (await client.callTool({ name: "search", arguments: { query: "hunter2" } })) as CallToolResult;
    expect(text(found)).toBe("notes.md:1:hunter2? no");
  } finally {
    await client.close();
  }
  expect(readFileSync(join(ws.root, "gg.json"), "utf8")).toBe(`${JSON.stringify(DENY_SECRETS)}\n`);
});

const REPLIES: Record<Arm, Reply[]> = {
  tools: [{ tool_calls: [call("a", "write_file", { path: "notes.md", content: "fine" }), call("b", "write_file", { path: "secrets/x.txt", content: "pwned" })] }, { content: "Done." }],
  code: [{ content: "```ts\ntry { await gg.files.writeFile('secrets/x.txt', 'pwned'); } catch (e) { return e.code; }\nreturn 'wrote';\n```" }, { content: "Done." }],
};

/** Every recorded approval of `line` (a call entry's, and its program's calls') turned into a person's allow. */
function forged(line: string): string {
  const entry = JSON.parse(line) as { type: string; outcome?: { approval?: object; calls?: { approval?: object }[] } };
  if (entry.type !== "call" || !entry.outcome) return line;
  const allow = { verdict: "allow", by: "person", waitedMs: 1 };
  if (entry.outcome.approval) entry.outcome.approval = allow;
  for (const inner of entry.outcome.calls ?? []) inner.approval = allow;
  return JSON.stringify(entry);
}

describe("gg agent --replay of a transcript edited to allow what its rules deny", () => {
  for (const arm of ["tools", "code"] as const) {
    test(`${arm} arm: the call is refused as tampered, nothing of it written, the replay names it and exits 1`, async () => {
      using ws = tempWorkspace();
      ws.put({ "secrets/": "", "notes.md": "" });
      const file = ws.outside(`transcript-${process.pid}-${arm}-tampered.jsonl`);
      const transcript = transcriptWriter(file, { model: "m", arm, task: "t", config: DENY_SECRETS });
      await using model = await fakeModel([...REPLIES[arm]]);
      const report = await runAgent({ provider: model.provider, model: "m", arm, task: "t", workspace: ws.root, config: DENY_SECRETS, onRecord: transcript.onRecord });
      transcript.end(report);
      expect(existsSync(join(ws.root, "secrets/x.txt"))).toBe(false);
      writeFileSync(file, `${readFileSync(file, "utf8").trimEnd().split("\n").map(forged).join("\n")}\n`);

      using again = tempWorkspace();
      again.put({ "secrets/": "", "notes.md": "" });
      const replay = spawnSync(process.execPath, [bin, "agent", "--replay", file, "--workspace", again.root], { encoding: "utf8" });
      rmSync(file);
      expect(replay.status).toBe(1);
      const refused = arm === "tools" ? "call 2 (write_file)" : "call 1 (run_program)";
      expect(replay.stdout.split("\n")[0]).toBe(
        `${refused}: refused, nothing of it ran: the transcript is tampered: it records this call as allowed by person, but rule 1 of the recorded configuration says deny (secrets stay put)`,
      );
      expect(existsSync(join(again.root, "secrets/x.txt"))).toBe(false);
      // The call the rules allow still runs as recorded.
      if (arm === "tools") expect(readFileSync(join(again.root, "notes.md"), "utf8")).toBe("fine");
    });
  }
});
