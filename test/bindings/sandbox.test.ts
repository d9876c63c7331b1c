// The shell's sandbox on real git workspaces with the real bwrap: every indirection a command parser cannot see leaves
// secrets/ and the remote as they were and prints nothing of private/, through the tools arm, a program and gg mcp;
// no network, no privilege, nothing left running. Skipped, saying why, where bwrap cannot start (see test/sandbox.ts).
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "vitest";
import { type LoopRecord, runAgent } from "../../agent/loop.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { createTools } from "../../bindings/index.ts";
import { sandboxRequest, WRITE_CALLS } from "../../bindings/sandbox.ts";
import { CALLS } from "../../bindings/calls.ts";
import { createEngine } from "../../runtime/engine.ts";
import type { RunReport } from "../../runtime/report.ts";
import { CALL_TIMEOUT_MS, survivors, uniqueSleep, within } from "../processes.ts";
import { call, fakeModel } from "../provider.ts";
import { attacks, attackWorkspace, describeSandboxed, PRIVATE, SANDBOX_CONFIG } from "../sandbox.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");
const config = parseConfiguration(SANDBOX_CONFIG);
/** The sandbox without approval rules: what a command may do is the sandbox's alone to bound. */
const bare = parseConfiguration({ capabilities: SANDBOX_CONFIG.capabilities });
/** Every ask (a command gg cannot judge before it runs) allowed: the sandbox alone stands between an attack and its aim. */
const allowAsks = async () => ({ verdict: "allow" as const });

test("sandboxRequest() closes to commands what path rules deny or ask of reads and of writes, and nothing for shell configured off", () => {
  const rules = parseConfiguration({
    ...SANDBOX_CONFIG,
    approvals: [
      ...SANDBOX_CONFIG.approvals,
      { call: "*", when: { path: "vault/**" }, verdict: "ask" },
      { call: "edit_file", when: { path: "locked/**" }, verdict: "deny" },
      { call: "write_file", when: { path: "open/**" }, verdict: "allow" },
      { call: "write_file", when: { path: "**", content: "*password*" }, verdict: "deny" },
      { call: "search", when: { path: "big/**" }, verdict: "deny" },
    ],
  });
  const request = sandboxRequest(rules, { workspace: "/ws", cwd: "/ws" });
  expect(request).toMatchObject({ mode: "workspace-write", network: false, readDenied: ["private/**", "vault/**"], writeDenied: ["secrets/**", "vault/**", "locked/**"] });
  expect(sandboxRequest(parseConfiguration({ approvals: SANDBOX_CONFIG.approvals }), { workspace: "/ws", cwd: "/ws" })).toBeUndefined();
});

test("the README's sandbox example, copied as written, confines commands to the workspace with no network", () => {
  const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
  const block = /We recommend running commands in the shell's sandbox[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error("README.md's sandbox recommendation lacks its JSON block");
  expect(sandboxRequest(parseConfiguration(JSON.parse(block)), { workspace: "/ws", cwd: "/ws" })).toMatchObject({ mode: "workspace-write", network: false, writable: [] });
});

test("WRITE_CALLS are the calls with effects that name a path", () => {
  const writers = CALLS.filter((call) => call.effects && "path" in ((call.parameters(config) as { properties?: object }).properties ?? {})).map((call) => call.name);
  expect([...new Set(writers)].sort()).toEqual([...WRITE_CALLS].sort());
});

/** A command's result as the attacks check it: ran (in which sandbox), and what it printed. */
interface Ran {
  ran: boolean;
  sandbox?: string;
  output: string;
}

/** Checks that every attack ran, confined, printed nothing of private/, and left the workspace's guarded state as it was. */
function expectHeld(before: string, after: string, results: Ran[], confined = true): void {
  expect(after).toBe(before);
  for (const [index, result] of results.entries()) {
    expect(result.output, attacks("")[index]?.[0]).not.toContain(PRIVATE);
    expect(result.ran, attacks("")[index]?.[0]).toBe(true);
    if (confined) expect(result.sandbox, attacks("")[index]?.[0]).toBe("workspace-write");
  }
  // The kernel, not a parser, refused them: their writes met a read-only file system.
  expect(results.filter((result) => result.output.includes("Read-only file system")).length).toBeGreaterThan(5);
}

describeSandboxed("the shell's sandbox (workspace-write, secrets/ write-denied, private/ read-denied)", () => {
  test("every indirection of a tool call leaves secrets/ and the remote untouched and prints nothing of private/", async () => {
    using ws = attackWorkspace();
    const before = ws.state();
    const tools = createTools({ workspace: ws.root, config, approve: allowAsks, warm: false });
    const results: Ran[] = [];
    for (const [, command] of attacks(ws.remote)) {
      const result = await tools.call("shell", { command, timeoutSecs: 120 });
      results.push(result.ok ? { ran: true, ...(result.sandbox ? { sandbox: result.sandbox } : {}), output: result.text } : { ran: false, output: result.error.message });
    }
    expectHeld(before, ws.state(), results);
  });

  test("every indirection of a program's gg.shell.shell is held the same, and the run's report says each call ran sandboxed", async () => {
    using ws = attackWorkspace();
    const before = ws.state();
    const engine = createEngine({ workspace: ws.root, config, approve: allowAsks, agent: "sandboxtest" });
    const commands = JSON.stringify(attacks(ws.remote).map(([, command]) => command));
    const program = `const out = []; for (const command of ${commands}) { try { const r = await gg.shell.shell(command, { timeoutSecs: 120 }); out.push({ ran: true, sandbox: r.sandbox, output: r.output }) } catch (e) { out.push({ ran: false, output: e.message }) } } return out;`;
    try {
      const report = await engine.run(program, { budget: 600 });
      expect(report.error).toBeUndefined();
      expectHeld(before, ws.state(), report.result as Ran[]);
      expect(report.calls.map((call) => call.sandbox)).toEqual(attacks("").map(() => "workspace-write"));
    } finally {
      await engine.close();
    }
  });

  test("every indirection through gg mcp is held the same, its shell calls and a run_program's alike", async () => {
    using ws = attackWorkspace();
    ws.put({ "gg.json": JSON.stringify(SANDBOX_CONFIG) });
    const before = ws.state();
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--workspace", ws.root, "--config", join(ws.root, "gg.json")], stderr: "pipe" });
    const client = new Client({ name: "gg-test", version: "0.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { decision: "allow" } }));
    await client.connect(transport);
    try {
      const results: Ran[] = [];
      for (const [, command] of attacks(ws.remote)) {
        const result = (await client.callTool({ name: "shell", arguments: { command, timeoutSecs: 120 } }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
        results.push({ ran: result.isError !== true, output: result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n") });
      }
      expectHeld(before, ws.state(), results, false);
      // gg's own configuration, which a client's allow let through to the command, stays as it was.
      const own = await client.callTool({ name: "shell", arguments: { command: "printf '#!/bin/sh\\ncp src/a.txt gg.json\\n' > own.sh; sh own.sh" } }, undefined, { timeout: CALL_TIMEOUT_MS });
      expect(JSON.stringify(own.content)).toContain("Read-only file system");
      expect(JSON.parse(readFileSync(join(ws.root, "gg.json"), "utf8"))).toEqual(SANDBOX_CONFIG);
      const program = await client.callTool({ name: "run_program", arguments: { source: "return (await gg.shell.shell('cat private/key.txt; cp src/a.txt secrets/token.txt')).sandbox" } }, undefined, { timeout: CALL_TIMEOUT_MS });
      const report = program.structuredContent as unknown as RunReport;
      expect(report.result).toBe("workspace-write");
      expect(report.calls[0]?.sandbox).toBe("workspace-write");
      expect(ws.state()).toBe(before);
    } finally {
      await client.close();
    }
  });

  test("a protected folder cannot be carried away by renaming or removing the folders that hold it", async () => {
    using ws = tempWorkspace();
    ws.put({ "config/prod/secrets/token": "kept\n", "data/private/key": `${PRIVATE}\n`, "data/open.txt": "x\n" });
    const nested = parseConfiguration({
      capabilities: SANDBOX_CONFIG.capabilities,
      approvals: [{ call: "write_file", when: { path: "config/prod/secrets/**" }, verdict: "deny" }, { call: "read_file", when: { path: "data/private/**" }, verdict: "deny" }],
    });
    const tools = createTools({ workspace: ws.root, config: nested, approve: allowAsks, warm: false });
    const moved = await tools.call("shell", { command: "mv config cfg; mv config/prod p; mv data d; rm -rf config data; ls -A . data" });
    expect(moved).toMatchObject({ ok: true, text: expect.stringContaining("Device or resource busy") });
    const reached = await tools.call("shell", { command: "cat d/private/key data/private/key; echo pwned > cfg/prod/secrets/token; echo pwned > p/secrets/token; echo pwned > config/prod/secrets/token" });
    expect(reached.ok && reached.text).not.toContain(PRIVATE);
    expect(readFileSync(join(ws.root, "config/prod/secrets/token"), "utf8")).toBe("kept\n");
    expect(readFileSync(join(ws.root, "data/private/key"), "utf8")).toBe(`${PRIVATE}\n`);
    // `mv config/prod p` crosses mounts, so mv copies (the copy is the agent's own) and cannot remove the original.
    expect(["cfg", "d"].filter((name) => existsSync(join(ws.root, name)))).toEqual([]);
  });

  test("an agent's report and transcript records say which commands ran in the sandbox, a tool call's and a program's", async () => {
    using ws = tempWorkspace();
    const records: LoopRecord[] = [];
    for (const arm of ["tools", "code"] as const) {
      const step = arm === "tools" ? { tool_calls: [call("a", "shell", { command: "true" })] } : { content: "```ts\nawait gg.shell.shell('true');\nreturn 1;\n```" };
      await using server = await fakeModel([step, { content: "done" }]);
      const report = await runAgent({ provider: server.provider, model: "m", arm, task: "t", workspace: ws.root, config: bare, onRecord: (record) => records.push(record) });
      const made = arm === "tools" ? report.calls[0] : report.calls[0]?.calls?.[0];
      expect(made?.sandbox).toBe("workspace-write");
    }
    const outcomes = records.flatMap((record) => (record.type === "call" ? [record.outcome] : []));
    expect([outcomes[0]?.sandbox, outcomes[1]?.calls?.[0]?.sandbox]).toEqual(["workspace-write", "workspace-write"]);
  });

  test("a connection to a server on the host's 127.0.0.1 fails from the sandbox, and succeeds with network: true", async () => {
    using ws = tempWorkspace();
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    const port = (server.address() as { port: number }).port;
    const connect = `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('connected')).on('error', (e) => console.log('refused', e.code))"`;
    try {
      const closed = await createTools({ workspace: ws.root, config: bare, warm: false }).call("shell", { command: connect });
      expect(closed).toMatchObject({ ok: true, sandbox: "workspace-write", text: expect.stringContaining("refused ECONNREFUSED") });
      expect(connections).toBe(0);
      const open = parseConfiguration({ capabilities: [{ id: "shell", params: { maxLines: 200, maxChars: 8000, sandbox: "workspace-write", network: true } }] });
      const reached = await createTools({ workspace: ws.root, config: open, warm: false }).call("shell", { command: connect });
      expect(reached).toMatchObject({ ok: true, text: expect.stringContaining("connected") });
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  test("root in the sandbox cannot open a /proc/sys file for writing nor remount /, once a probe shows it confined", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: ws.root, config: bare, warm: false });
    const run = async (command: string): Promise<string> => {
      const result = await tools.call("shell", { command });
      if (!result.ok) throw new Error(result.error.message);
      return result.text;
    };
    // The probe: its own user namespace (one id mapped, not the host's whole range) and no capability at all. Only
    // a command confined so goes on to try what would change the machine outside a sandbox.
    const probe = await run("cat /proc/self/uid_map; grep CapEff /proc/self/status");
    expect(probe).toMatch(/^\s*\d+\s+\d+\s+1\s*$/m);
    expect(probe).toMatch(/CapEff:\s+0000000000000000/);
    // Opened for appending and closed at once: nothing is written whatever happens.
    const opened = await run("for f in /proc/sys/kernel/hostname /proc/sys/vm/swappiness; do (exec 3>>$f) 2>/dev/null && echo opened $f || echo refused $f; done");
    expect(opened).toContain("refused /proc/sys/kernel/hostname");
    expect(opened).toContain("refused /proc/sys/vm/swappiness");
    expect(opened).not.toContain("opened");
    const remount = await run("mount -o remount,rw / 2>&1; echo status $?; id -u");
    expect(remount).not.toMatch(/status 0\b/);
  });

  test("a command whose children outlive it, one in a session of its own, is stopped whole: when it ends and when its timeout stops it", async () => {
    using ws = tempWorkspace();
    const tools = createTools({ workspace: ws.root, config: bare, warm: false });
    const [left, stubborn] = [uniqueSleep(), uniqueSleep()];
    const ended = await tools.call("shell", { command: `(trap '' TERM; sleep ${left} &) ; setsid sleep ${left} & echo started` });
    expect(ended).toMatchObject({ ok: true, sandbox: "workspace-write" });
    expect(await within(10, () => survivors(left).length === 0)).toBe(true);
    const stopped = await tools.call("shell", { command: `trap '' TERM; setsid sleep ${stubborn} & sleep ${stubborn}`, timeoutSecs: 1 });
    expect(stopped).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(await within(10, () => survivors(stubborn).length === 0)).toBe(true);
  });

  test("the approval hook runs unconfined (the person's own), the command it approves confined", async () => {
    using ws = tempWorkspace();
    using outside = tempWorkspace();
    const log = join(outside.root, "hook.log");
    const tried = join(outside.root, "command.log");
    const hooked = parseConfiguration({ ...SANDBOX_CONFIG, approvalHook: { command: `cat > /dev/null; echo seen >> ${log}; echo '{"verdict": "allow"}'` } });
    const result = await createTools({ workspace: ws.root, config: hooked, warm: false }).call("shell", { command: `echo tried >> ${tried}` });
    expect(result).toMatchObject({ ok: true, sandbox: "workspace-write", text: expect.stringMatching(/Read-only file system|Directory nonexistent/) });
    expect(readFileSync(log, "utf8")).toBe("seen\n");
    expect(existsSync(tried)).toBe(false);
  });

  test("the model is told its commands run in the sandbox, and what they may write", () => {
    const shell = createTools({ workspace: "/ws", config, warm: false }).definitions().find((tool) => tool.name === "shell");
    expect(shell?.description).toContain("Commands run in a sandbox (workspace-write): they read the file system except what approvals deny, and write only the workspace, /tmp/gg-shell and a private /tmp, which is emptied after each command. They have no network (only their own loopback).");
  });

  test("the sandbox hides a read-denied file as an empty file and a folder as an empty one, and the log folder stays readable", async () => {
    using ws = tempWorkspace();
    ws.put({ "private/a.txt": "hidden\n", "key.pem": "hidden\n", "open.txt": "shown\n" });
    const hiding = parseConfiguration({ ...SANDBOX_CONFIG, approvals: [{ call: "read_file", when: { path: "private/**" }, verdict: "deny" }, { call: "read_file", when: { path: "*.pem" }, verdict: "deny" }] });
    const tools = createTools({ workspace: ws.root, config: hiding, warm: false });
    expect(await tools.call("shell", { command: "ls -A private; wc -c < key.pem; cat open.txt" })).toMatchObject({ ok: true, text: "0\nshown\n[exit code: 0]" });
    const long = await tools.call("shell", { command: "seq 1 500" });
    const logs = long.ok ? (long.data as { files?: { stdout: string } }).files : undefined;
    expect(logs).toBeDefined();
    expect(await tools.call("shell", { command: `head -n 1 ${logs?.stdout}` })).toMatchObject({ ok: true, text: "1\n[exit code: 0]" });
  });
});
