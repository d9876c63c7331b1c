// Programs call other MCP servers' tools and the application's functions: gg.mcp.<server>.<tool>, gg.mcp.call,
// list, search, describe, gg.app.<name>; typed for --check, judged by approvals like gg's own calls, failing with
// closed codes.
import { chmodSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseConfiguration } from "../../bindings/config.ts";
import { type AppFunction, appPart, createExternals, type ExternalCatalog, serversNamed, unknownExternal } from "../../bindings/external.ts";
import { createTools } from "../../bindings/index.ts";
import { createRuntime, type Runtime } from "../../runtime/index.ts";
import { filesystem, fixture, memory } from "../mcp/servers.ts";
import { alive, within } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

describe("gg.mcp in programs", () => {
  const ws = tempWorkspace();
  let runtime: Runtime;
  beforeAll(() => {
    runtime = createRuntime({ workspace: ws.root, config: { mcpServers: { fx: fixture(), memory: memory(join(ws.root, "memory.json")) } }, keepState: true });
  });
  afterAll(() => {
    runtime.close();
    ws[Symbol.dispose]();
  });
  const run = async (source: string, check = false) => {
    const report = await runtime.run(source, check ? { check: true } : {});
    return report.ok ? report.result : report.error;
  };

  test("a tool with an outputSchema returns its structuredContent; one without, its text and content", async () => {
    expect(await run("return await gg.mcp.fx.count({ n: 3 })")).toEqual({ numbers: [1, 2, 3] });
    expect(await run("return await gg.mcp.fx.echo({ text: 'hi' })")).toEqual({ text: "hi", content: [{ type: "text", text: "hi" }] });
    expect(await run("const r = await gg.mcp.fx.picture(); return r.content.map((block) => block.type)")).toEqual(["text", "image"]);
    expect(await run("await gg.mcp.memory.create_entities({ entities: [{ name: 'gg', entityType: 'tool', observations: ['typed'] }] }); return (await gg.mcp.memory.read_graph()).entities.map((e) => e.name)")).toEqual(["gg"]);
  });

  test("names become identifiers by one rule; two that come out the same are both left out, then too, and all stay callable by gg.mcp.call", async () => {
    const names = await run("return Object.keys(gg.mcp.fx)");
    expect(names).toEqual(expect.arrayContaining(["_9lives", "class_", "weird_name", "bad_output", "spawn_child"]));
    expect(names).not.toEqual(expect.arrayContaining(["a_b"]));
    expect(names).not.toContain("then");
    expect(await run("return [typeof gg.mcp.fx.a_b, typeof gg.mcp.fx.then, (await gg.mcp.call('fx', 'a.b')).text, (await gg.mcp.call('fx', 'then', {})).text]")).toEqual(["undefined", "undefined", "called a.b", "called then"]);
    // Not thenable: awaiting a namespace gives the namespace.
    expect(await run("return (await gg.mcp.fx) === gg.mcp.fx && (await gg.mcp) === gg.mcp")).toBe(true);
  });

  test("failures come with closed codes: tool-error for isError and a broken outputSchema, not-found with the nearest names", async () => {
    const code = (call: string) => run(`try { await ${call}; return "ran" } catch (e) { return e.code + ": " + e.message }`);
    expect(await code("gg.mcp.fx.fail()")).toBe("tool-error: fx.fail failed: it broke");
    expect(await code("gg.mcp.fx.bad_output()")).toMatch(/^tool-error: fx\.bad-output answered against its own outputSchema/);
    expect(await code("gg.mcp.call('fx', 'ecko', {})")).toMatch(/^not-found: MCP server "fx" has no tool "ecko" \(did you mean echo\?\)/);
    expect(await code("gg.mcp.call('fxx', 'echo', {})")).toMatch(/^not-found: No MCP server "fxx" \(did you mean fx\?\)/);
    // Through the namespaces alike: a name they lack is a not-found, never a TypeError.
    expect(await code("gg.mcp.fx.ecko({})")).toMatch(/^not-found: MCP server "fx" has no tool "ecko" \(did you mean echo\?\)/);
    expect(await code("gg.mcp.fxx.echo({})")).toMatch(/^not-found: No MCP server "fxx" \(did you mean fx\?\)/);
  });

  test("list, search and describe find the tools without any schema in the prompt", async () => {
    const listed = (await run("return await gg.mcp.list()")) as { server: string; tools: string[]; description?: string }[];
    expect(listed.map((server) => [server.server, server.tools.length])).toEqual([["fx", 20], ["memory", 9]]);
    expect(await run("return (await gg.mcp.search('create entities', { limit: 1 }))[0]")).toEqual({ server: "memory", tool: "create_entities", call: "gg.mcp.memory.create_entities", brief: "Create multiple new entities in the knowledge graph" });
    const described = (await run("return await gg.mcp.describe('fx.count')")) as { declaration: string; call: string };
    expect(described.call).toBe("gg.mcp.fx.count");
    expect(described.declaration).toContain("count(input: {");
    expect(described.declaration).toContain("numbers: number[];");
    // By its name alone when one server has it; otherwise the refusal says how to name it.
    expect(await run("return (await gg.mcp.describe('count')).call")).toBe("gg.mcp.fx.count");
    expect(await run("try { await gg.mcp.describe('nothing_like_it') } catch (e) { return e.code + ': ' + e.message }")).toBe('not-found: Cannot describe "nothing_like_it": no server has a tool "nothing_like_it"; give it as "server.tool" (gg.mcp.search finds tools)');
  });

  test("--check knows each tool's input and result types; a schema gg cannot type is unknown, never a failed run", async () => {
    expect(await run("const r = await gg.mcp.fx.count({ n: 2 }); const total: number = r.numbers.reduce((a, b) => a + b, 0); return total", true)).toBe(3);
    expect(await run("const r: string = (await gg.mcp.fx.count({ n: 2 })).numbers; return r", true)).toMatchObject({ code: "type-error" });
    expect(await run("return (await gg.mcp.fx.tree({ node: { kids: [{ kids: [] }] } })).text", true)).toBe("called tree");
  });

  test("a stdio server runs in the workspace, whatever gg's own folder", async () => {
    expect(await run("return (await gg.mcp.fx.cwd()).text")).toBe(realpathSync(ws.root));
  });

  test("a server's new tools reach the next program", async () => {
    await run("await gg.mcp.fx.add_tool()");
    expect(await run("return (await gg.mcp.fx.late()).text")).toBe("called late");
  });
});

describe("servers held by the runner process", () => {
  test("a runner that dies takes its servers' whole groups with it; the next program starts them again, without their state", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, config: { mcpServers: { fx: fixture() } } });
    try {
      const started = await runtime.run("await gg.mcp.fx.add_tool(); return (await gg.mcp.fx.spawn_child()).text");
      const child = Number(started.result);
      expect(alive(child)).toBe(true);
      const killed = await runtime.run("await gg.shell.shell('kill -9 $PPID; sleep 5')");
      expect(killed.error?.message).toMatch(/MCP servers it held were stopped/);
      expect(await within(10, () => !alive(child))).toBe(true);
      // A fresh server: the tool the old one added is gone with its state.
      expect((await runtime.run("return [(await gg.mcp.fx.echo({ text: 'again' })).text, (await gg.mcp.list())[0].tools.includes('late')]")).result).toEqual(["again", false]);
    } finally {
      await runtime.close();
    }
  });

  test("closing the runtime shuts its servers down: nothing they started outlives close()", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, config: { mcpServers: { fx: fixture() } } });
    const child = Number((await runtime.run("return (await gg.mcp.fx.spawn_child()).text")).result);
    expect(alive(child)).toBe(true);
    await runtime.close();
    expect(await within(10, () => !alive(child))).toBe(true);
  });

  test("a call of a server's tool under way when the runner is killed is listed unfinished", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, config: { mcpServers: { fx: fixture() } } });
    try {
      const report = await runtime.run("await gg.mcp.fx.echo({ text: 'read' }); const slow = gg.mcp.fx.slow({ ms: 60000 }); await gg.shell.shell('sleep 0.3; kill -9 $PPID'); await slow;");
      expect(report.ok).toBe(false);
      expect(report.calls.find((call) => call.name === "mcp.call" && call.args.includes("slow"))).toMatchObject({ ok: false, unfinished: true });
    } finally {
      await runtime.close();
    }
  });
});

describe("a server that could not start", () => {
  test("is tried again at a program 10 s or more later, and its tools then reach programs", async () => {
    using ws = tempWorkspace();
    const script = join(ws.root, "later.sh");
    const runtime = createRuntime({ workspace: ws.root, config: { mcpServers: { later: { command: script } } } });
    try {
      expect((await runtime.run("return (await gg.mcp.list())[0].error")).result).toMatch(/did not start/);
      const entry = fixture();
      ws.put({ "later.sh": `#!/bin/sh\nexec '${entry.command}' '${entry.args?.[0]}'\n` });
      chmodSync(script, 0o755);
      await new Promise((resolve) => setTimeout(resolve, 10_500));
      expect((await runtime.run("return (await gg.mcp.later.echo({ text: 'up' })).text")).result).toBe("up");
    } finally {
      await runtime.close();
    }
  });
});

describe("a server slow to start", () => {
  test("delays only the programs that name it: the others run at once, a call to it waits for it (named or not, judged by approvals); close stops one that never answers", async () => {
    using ws = tempWorkspace();
    const entry = fixture();
    // One server answers after 3 s, one never does (a program waiting for it would take the 60 s a start gets).
    ws.put({ "slow.sh": `#!/bin/sh\nsleep 3\nexec '${entry.command}' '${entry.args?.[0]}'\n` });
    chmodSync(join(ws.root, "slow.sh"), 0o755);
    const hung = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    const approvals = [{ call: "mcp__slow__picture", verdict: "deny" as const }];
    const runtime = createRuntime({ workspace: ws.root, config: { mcpServers: { fx: fixture(), slow: { command: join(ws.root, "slow.sh") }, hung }, approvals } });
    try {
      expect((await runtime.run("return (await gg.mcp.fx.echo({ text: 'now' })).text")).result).toBe("now");
      expect((await runtime.run("return 1 + 1")).result).toBe(2);
      // A program the scan cannot see naming it (gg["m" + "cp"]) still reaches it, once it is listed, through approvals.
      const hidden = "const m = gg['m' + 'cp']; let denied; try { await m.slow.picture() } catch (e) { denied = e.code } return [(await m.slow.echo({ text: 'up' })).text, denied]";
      expect((await runtime.run(hidden)).result).toEqual(["up", "denied"]);
      expect((await runtime.run("return (await gg.mcp.slow.echo({ text: 'up' })).text")).result).toBe("up");
    } finally {
      await runtime.close();
    }
  }, 40_000);

  test("a listing for a program that names no server waits for none: a server not listed yet is still starting", async () => {
    const hung = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    const externals = createExternals(parseConfiguration({ mcpServers: { hung } }));
    try {
      expect((await externals?.catalog("return 1"))?.servers).toEqual([{ server: "hung", call: "gg.mcp.hung", tools: [], error: "still starting", starting: true, leftOut: [] }]);
    } finally {
      await externals?.close();
    }
  });

  test("a tool of a server still starting is not-found, saying how a program names the server to wait for it", async () => {
    const hung = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    // a-b and a_b come out as the same identifier, so neither is gg.mcp.a_b: only gg.mcp.call names them.
    const externals = createExternals(parseConfiguration({ mcpServers: { hung, "a-b": hung, a_b: hung } }));
    try {
      const catalog = (await externals?.catalog("return 1")) as ExternalCatalog;
      expect(unknownExternal(catalog, "hung", "x").message).toContain("it is still starting: a program that names it (gg.mcp.hung) waits for it");
      expect(unknownExternal(catalog, "a-b", "x").message).toContain('it is still starting: a program that names it (gg.mcp.call("a-b", ...)) waits for it');
    } finally {
      await externals?.close();
    }
  });

  test("a program could name the servers it reaches as gg.mcp.<server>, or every one when it says mcp otherwise", () => {
    const servers = ["memory", "my-files", "fx"];
    const named = (source: string) => servers.filter(serversNamed(source, servers));
    expect(named("return 1")).toEqual([]);
    expect(named("const a = await gg.mcp.memory.read_graph(); await gg.mcp . my_files.x()")).toEqual(["memory", "my-files"]);
    expect(named("await gg.mcp.list()")).toEqual(servers);
    expect(named("await gg.mcp.call('fx', 'echo', {})")).toEqual(servers);
    expect(named("const m = gg.mcp; await m.fx.echo()")).toEqual(servers);
    expect(named("gg.mcp['fx']")).toEqual(servers);
    expect(named("await gg.shell.shell('cat mcp__x.json')")).toEqual([]);
  });
});

describe("approvals of external tools", () => {
  test("rules name them, globs too; approvalDefault ask asks for every tool not marked read-only", async () => {
    using ws = tempWorkspace();
    const config = { mcpServers: { fx: fixture() }, approvalDefault: "ask", approvals: [{ call: "mcp__fx__fail*", verdict: "deny", reason: "no failing" }] };
    const asked: string[] = [];
    const runtime = createRuntime({ workspace: ws.root, config, approve: async (request) => (asked.push(request.call), { verdict: "deny", reason: "not now" }) });
    try {
      const report = await runtime.run("const out = []; for (const call of [() => gg.mcp.fx.echo({ text: 'x' }), () => gg.mcp.fx.fail(), () => gg.mcp.fx.crash()]) { try { await call(); out.push('ran') } catch (e) { out.push(e.code + ' ' + e.message) } } return out");
      expect(report.result).toEqual(["ran", expect.stringMatching(/^denied Cannot run mcp__fx__fail: denied by rule 1: no failing/), expect.stringMatching(/^denied Cannot run mcp__fx__crash: denied by person: not now/)]);
      expect(asked).toEqual(["mcp__fx__crash"]);
      expect(report.calls.map((call) => call.approval?.by)).toEqual(["default", "rule 1", "person"]);
    } finally {
      runtime.close();
    }
  });
});

describe("path rules on MCP tools", () => {
  test("judge a tool's path argument as they judge read_file's, in programs and tool calls alike", async () => {
    using ws = tempWorkspace();
    ws.put({ "secrets/a.txt": "TOPSECRET", "open/b.txt": "fine" });
    const config = { mcpServers: { fs: filesystem(ws.root) }, approvals: [{ call: "*", when: { path: "secrets/**" }, verdict: "deny", reason: "secret" }] };
    const runtime = createRuntime({ workspace: ws.root, config });
    try {
      const read = "const out = []; for (const path of ['open/b.txt', 'secrets/a.txt']) { try { out.push(JSON.stringify(await gg.mcp.fs.read_text_file({ path }))) } catch (e) { out.push(e.code) } } return out";
      expect((await runtime.run(read)).result).toEqual([expect.stringContaining("fine"), "denied"]);
    } finally {
      runtime.close();
    }
    const externals = createExternals(parseConfiguration(config));
    try {
      const external = await externals?.surface();
      const tools = createTools({ workspace: ws.root, config, ...(external ? { external } : {}) });
      expect(await tools.call("mcp__fs__read_text_file", { path: "secrets/a.txt" })).toMatchObject({ ok: false, error: { code: "denied" } });
    } finally {
      await externals?.close();
    }
  });
});

describe("the application's own functions", () => {
  const Item = Type.Object({ item: Type.String() }, { additionalProperties: false });
  const lookup: AppFunction<typeof Item> = {
    name: "lookup",
    description: "The price of an item.",
    input: Item,
    output: Type.Object({ price: Type.Number() }),
    readOnly: true,
    run: (input) => {
      if (input.item === "boom") throw new Error("no such item");
      return { price: input.item.length };
    },
  };

  test("are gg.app.<name>, checked on the way in, typed, and failing with tool-error", async () => {
    using ws = tempWorkspace();
    const runtime = createRuntime({ workspace: ws.root, functions: [lookup] });
    try {
      const report = await runtime.run("const a = await gg.app.lookup({ item: 'tea' }); const price: number = a.price; const out: unknown[] = [price]; for (const input of [{ item: 3 } as unknown as { item: string }, { item: 'boom' }]) { try { await gg.app.lookup(input) } catch (e) { const error = e as GgError; out.push(error.code + ' ' + error.message) } } return out", { check: true });
      expect(report.result).toEqual([3, expect.stringMatching(/^invalid-argument Cannot call gg\.app\.lookup/), "tool-error app.lookup failed: no such item"]);
      expect((await runtime.run("const r: string = (await gg.app.lookup({ item: 'x' })).price; return r", { check: true })).error?.code).toBe("type-error");
    } finally {
      runtime.close();
    }
  });

  test("a call of a function the registry does not have is not-found, naming the functions it has", async () => {
    const externals = createExternals(parseConfiguration({}), [lookup]);
    await expect(externals?.run("app__price", {})).rejects.toMatchObject({ code: "not-found", message: expect.stringMatching(/^Cannot call "app__price": .*; call one of the tools listed now$/) });
    await expect(appPart([lookup]).run("app__price", {})).rejects.toMatchObject({ code: "not-found", message: 'Cannot call "app__price": the application has no function of that name; its functions are app__lookup' });
  });

  test("a JSON name over 64 characters is cut alike every time, ending with a hash that keeps two apart; approvals judge it by that name in both arms", async () => {
    using ws = tempWorkspace();
    const named = (region: string): AppFunction => ({ name: `summarize_the_quarterly_revenue_figures_of_every_office_in_the_${region}`, description: "A summary.", input: Type.Object({}), run: () => region });
    const functions = [named("north"), named("south")];
    const names = createTools({ workspace: ws.root, functions }).definitions().flatMap((tool) => (tool.name.startsWith("app__") ? [tool.name] : []));
    expect(names).toEqual([expect.stringMatching(/^app__summarize_the_quarterly_revenue_figures_of_every_o_[0-9a-f]{8}$/), expect.stringMatching(/_[0-9a-f]{8}$/)]);
    expect(names.map((name) => name.length)).toEqual([64, 64]);
    expect(names[0]).not.toBe(names[1]);
    const config = { approvals: [{ call: names[0] as string, verdict: "deny", reason: "not the north" }] };
    const tools = createTools({ workspace: ws.root, functions, config });
    expect(tools.definitions().flatMap((tool) => (tool.name.startsWith("app__") ? [tool.name] : []))).toEqual(names);
    expect(await tools.call(names[0] as string, {})).toMatchObject({ ok: false, error: { code: "denied" } });
    expect(await tools.call(names[1] as string, {})).toMatchObject({ ok: true });
    // A rule may name it in full, as its author would write it: it is cut as the tool's name is.
    const written = createTools({ workspace: ws.root, functions, config: { approvals: [{ call: "app__summarize_the_quarterly_revenue_figures_of_every_office_in_the_south", verdict: "deny" }] } });
    expect(await written.call(names[1] as string, {})).toMatchObject({ ok: false, error: { code: "denied" } });
    expect(await written.call(names[0] as string, {})).toMatchObject({ ok: true });
    // A call may name it in full too (gg call passes its name through the same lookup): it is the same tool, judged so.
    expect(await written.call("app__summarize_the_quarterly_revenue_figures_of_every_office_in_the_south", {})).toMatchObject({ ok: false, error: { code: "denied" } });
    expect(await written.call("app__summarize_the_quarterly_revenue_figures_of_every_office_in_the_north", {})).toMatchObject({ ok: true, text: "north" });
    expect(written.nameOf("app__summarize_the_quarterly_revenue_figures_of_every_office_in_the_north")).toBe(names[0]);
    const runtime = createRuntime({ workspace: ws.root, functions, config });
    try {
      const report = await runtime.run(`const out = []; for (const region of ["north", "south"]) { try { out.push(await gg.app["summarize_the_quarterly_revenue_figures_of_every_office_in_the_" + region]()) } catch (e) { out.push(e.code) } } return out`);
      expect(report.result).toEqual(["denied", "south"]);
    } finally {
      await runtime.close();
    }
  });

  test("a function gg cannot offer is refused when the runtime is made", () => {
    using ws = tempWorkspace();
    expect(() => createRuntime({ workspace: ws.root, functions: [{ ...lookup, name: "call" }, { ...lookup, name: "lookup" }, { ...lookup, name: "lookup" }] })).toThrow(/functions\[0\] has name "call".*functions\[2\] is named "lookup" like an earlier function/);
  });
});
