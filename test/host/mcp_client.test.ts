// gg as an MCP client: servers started on first use in their own process group, with only the variables their entry
// names; tools listed whole; a timeout cancels; a crash says why and the next call starts the server again; closing
// stops the whole group; Streamable HTTP with the entry's headers.
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { describe, expect, test } from "vitest";
import { createMcpHub } from "../../host/mcp_client.ts";
import { fixtureServer } from "../mcp/fixture_server.ts";
import { fixture } from "../mcp/servers.ts";
import { alive } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

const codeOf = (promise: Promise<unknown>) => promise.then(() => "resolved", (error: { code?: string; message: string }) => `${error.code}: ${error.message}`);

describe("the MCP client hub", () => {
  test("lists every page of tools; a tool whose outputSchema breaks the spec's shape is kept, untyped, not its server lost", async () => {
    const hub = createMcpHub({ fx: fixture() });
    try {
      const [listing] = await hub.listing();
      expect(listing?.error).toBeUndefined();
      expect(listing?.description).toBe("A fixture for gg's tests.");
      expect(listing?.tools.map((tool) => tool.name)).toEqual(["echo", "count", "fail", "bad-output", "slow", "crash", "env", "cwd", "spawn-child", "picture", "big", "add-tool", "a-b", "a.b", "then", "9lives", "class", "weird name!", "tree", "remote"]);
      expect(listing?.tools.find((tool) => tool.name === "remote")?.outputSchema).toBeUndefined();
      expect(await hub.call("fx", "remote", {})).toMatchObject({ content: [{ type: "text", text: "called remote" }] });
    } finally {
      await hub.close();
    }
  });

  test("a server gets the variables its entry names and the SDK's defaults, never the rest of gg's environment", async () => {
    process.env.GG_TEST_PROVIDER_KEY = "sk-secret";
    const hub = createMcpHub({ fx: fixture(undefined, { env: { GIVEN: "1" } }) });
    try {
      const names = ((await hub.call("fx", "env", {})).content[0] as { text: string }).text.split(",");
      expect(names).toContain("GIVEN");
      expect(names).toContain("PATH");
      expect(names).not.toContain("GG_TEST_PROVIDER_KEY");
      expect(names.every((name) => ["GIVEN", "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"].includes(name))).toBe(true);
    } finally {
      delete process.env.GG_TEST_PROVIDER_KEY;
      await hub.close();
    }
  });

  test("${VAR} and ${VAR:-default} in an entry are read from gg's environment as the server starts, their values withheld from messages", async () => {
    Object.assign(process.env, { GG_TEST_MCP_NODE: process.execPath, GG_TEST_MCP_SECRET: "sk-not-for-messages" });
    const entry = fixture();
    const hub = createMcpHub({ fx: { command: "${GG_TEST_MCP_NODE}", args: [entry.args?.[0] ?? ""], env: { GIVEN: "${GG_TEST_MCP_UNSET:-fallback}", TOKEN: "${GG_TEST_MCP_SECRET}" } }, gone: { command: "/nonexistent/${GG_TEST_MCP_SECRET}" }, unset: { command: "${GG_TEST_MCP_UNSET}" } });
    try {
      expect(((await hub.call("fx", "env", {})).content[0] as { text: string }).text.split(",")).toEqual(expect.arrayContaining(["GIVEN", "TOKEN"]));
      const failed = await codeOf(hub.call("gone", "x", {}));
      expect(failed).toMatch(/^unavailable: .*\/nonexistent\/\[withheld\]/);
      expect(failed).not.toContain("sk-not-for-messages");
      expect(await codeOf(hub.call("unset", "x", {}))).toMatch(/^unavailable: .*refers to \$\{GG_TEST_MCP_UNSET\}, not set in gg's environment \(set it before gg starts/);
    } finally {
      delete process.env.GG_TEST_MCP_NODE;
      delete process.env.GG_TEST_MCP_SECRET;
      await hub.close();
    }
  });

  test("a call past timeoutSecs fails with timeout and the server is sent notifications/cancelled", async () => {
    using ws = tempWorkspace();
    const log = join(ws.root, "cancelled.log");
    // Long enough that the echo after it answers in time on a loaded machine.
    const hub = createMcpHub({ fx: fixture(log, { timeoutSecs: 3 }) });
    try {
      expect(await codeOf(hub.call("fx", "slow", { ms: 30_000 }))).toMatch(/^timeout: Cannot finish fx\.slow: no answer within 3 s/);
      await expect.poll(() => existsSync(log) && readFileSync(log, "utf8"), { timeout: 10_000 }).toBe("cancelled\n");
      expect(await hub.call("fx", "echo", { text: "still here" })).toMatchObject({ content: [{ text: "still here" }] });
    } finally {
      await hub.close();
    }
  });

  test("a server that dies fails its call with unavailable and its last stderr; the next call starts it again", async () => {
    const hub = createMcpHub({ fx: fixture() });
    try {
      expect(await codeOf(hub.call("fx", "crash", {}))).toMatch(/^unavailable: Cannot reach MCP server "fx": .*dying on purpose/s);
      expect(await hub.call("fx", "echo", { text: "again" })).toMatchObject({ content: [{ text: "again" }] });
    } finally {
      await hub.close();
    }
  });

  test("a line on stdout that is not JSON-RPC is skipped, as the SDK's transport skips it, and named if the server then fails", async () => {
    using ws = tempWorkspace();
    const entry = fixture();
    ws.put({ "noisy.sh": `#!/bin/sh\necho 'hello from the server'\necho '{"jsonrpc": broken'\nexec '${entry.command}' '${entry.args?.[0]}'\n` });
    chmodSync(join(ws.root, "noisy.sh"), 0o755);
    const hub = createMcpHub({ fx: { command: join(ws.root, "noisy.sh") } });
    try {
      expect(await hub.call("fx", "echo", { text: "heard" })).toMatchObject({ content: [{ text: "heard" }] });
      expect(await codeOf(hub.call("fx", "crash", {}))).toMatch(/^unavailable: .*a line on stdout that is not JSON-RPC was skipped: .*dying on purpose/s);
    } finally {
      await hub.close();
    }
  });

  test("a server that cannot start is listed with why, and its calls fail with unavailable", async () => {
    const hub = createMcpHub({ gone: { command: "/nonexistent/server" }, off: { command: "x", enabled: false } });
    try {
      expect(hub.servers).toEqual(["gone"]);
      const [listing] = await hub.listing();
      expect(listing).toMatchObject({ server: "gone", tools: [], error: expect.stringMatching(/did not start \(spawn \/nonexistent\/server ENOENT\)/) });
      expect(await codeOf(hub.call("gone", "x", {}))).toMatch(/^unavailable: /);
      expect(await codeOf(hub.call("nope", "x", {}))).toMatch(/^not-found: .*the servers are "gone"/);
    } finally {
      await hub.close();
    }
  });

  test("closing stops the server's whole process group: a child it left running is gone too", async () => {
    const hub = createMcpHub({ fx: fixture() });
    const child = Number(((await hub.call("fx", "spawn-child", {})).content[0] as { text: string }).text);
    expect(alive(child)).toBe(true);
    await hub.close();
    await expect.poll(() => alive(child), { timeout: 10_000 }).toBe(false);
  });

  test("a server that says its tools changed is listed again", async () => {
    const hub = createMcpHub({ fx: fixture() });
    try {
      const before = hub.version;
      await hub.call("fx", "add-tool", {});
      await expect.poll(() => hub.version).toBe(before + 1);
      expect((await hub.listing())[0]?.tools.map((tool) => tool.name)).toContain("late");
    } finally {
      await hub.close();
    }
  });

  test("a Streamable HTTP server on 127.0.0.1 is reached with the entry's headers", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const http = createServer(async (request, response) => {
      seen.push(request.headers);
      // Stateless: a server and a transport per request, as the SDK's example does.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await fixtureServer().connect(transport);
      await transport.handleRequest(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const hub = createMcpHub({ remote: { url, headers: { authorization: "Bearer T" } } });
    try {
      expect((await hub.listing())[0]?.tools).toHaveLength(20);
      expect(await hub.call("remote", "echo", { text: "over http" })).toMatchObject({ content: [{ text: "over http" }] });
      expect(seen.every((headers) => headers.authorization === "Bearer T")).toBe(true);
    } finally {
      await hub.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  test("an SSE server whose event stream ends during a call fails it with unavailable at once (not at its timeout); the next call starts again", async () => {
    const sessions = new Map<string, { transport: SSEServerTransport; stream: ServerResponse }>();
    const http = createServer(async (request, response) => {
      const at = new URL(request.url ?? "/", "http://127.0.0.1");
      if (request.method === "GET") {
        const transport = new SSEServerTransport("/messages", response);
        sessions.set(transport.sessionId, { transport, stream: response });
        await fixtureServer().connect(transport);
        return;
      }
      const session = sessions.get(at.searchParams.get("sessionId") ?? "");
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      // The server goes away while the call runs: its stream ends, its answer never comes.
      if (body.params?.name === "slow") response.writeHead(202).end("Accepted", () => session?.stream.destroy());
      else await session?.transport.handlePostMessage(request, response, body);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const hub = createMcpHub({ old: { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`, type: "sse" } });
    try {
      expect(await codeOf(hub.call("old", "slow", { ms: 10 }))).toMatch(/^unavailable: Cannot reach MCP server "old": its event stream ended/);
      expect(await hub.call("old", "echo", { text: "again" })).toMatchObject({ content: [{ text: "again" }] });
    } finally {
      await hub.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  }, 30_000);

  test("a server that echoes a ${VAR} header back in a refusal has the value withheld from the call's message", async () => {
    const http = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      if (body.includes('"tools/call"')) {
        response.writeHead(403).end(`token ${request.headers.authorization} is not allowed`);
        return;
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await fixtureServer().connect(transport);
      await transport.handleRequest(request, response, body ? JSON.parse(body) : undefined);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    process.env.GG_TEST_MCP_TOKEN = "sk-echoed-secret";
    const hub = createMcpHub({ remote: { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, headers: { authorization: "Bearer ${GG_TEST_MCP_TOKEN}" } } });
    try {
      const failed = await codeOf(hub.call("remote", "echo", { text: "x" }));
      expect(failed).toMatch(/^tool-error: .*token Bearer \[withheld\] is not allowed/);
      expect(failed).not.toContain("sk-echoed-secret");
    } finally {
      delete process.env.GG_TEST_MCP_TOKEN;
      await hub.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  test('a server on the older HTTP+SSE transport ("type": "sse") is reached with the entry\'s headers, its answers read by event', async () => {
    const seen: (string | undefined)[] = [];
    const sessions = new Map<string, SSEServerTransport>();
    const http = createServer(async (request, response) => {
      seen.push(request.headers.authorization);
      const at = new URL(request.url ?? "/", "http://127.0.0.1");
      if (request.method === "GET" && at.pathname === "/sse") {
        const transport = new SSEServerTransport("/messages", response);
        sessions.set(transport.sessionId, transport);
        await fixtureServer().connect(transport);
      } else await sessions.get(at.searchParams.get("sessionId") ?? "")?.handlePostMessage(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    process.env.GG_TEST_MCP_PORT = String((http.address() as AddressInfo).port);
    const hub = createMcpHub({ old: { url: "http://127.0.0.1:${GG_TEST_MCP_PORT}/sse", type: "sse", headers: { authorization: "Bearer S" } } });
    try {
      expect((await hub.listing())[0]?.tools).toHaveLength(20);
      expect(await hub.call("old", "echo", { text: "over sse" })).toMatchObject({ content: [{ text: "over sse" }] });
      // The stream stays open past any one answer: many answers, more than one message's bound in all, come through it.
      const big = await Promise.all(Array.from({ length: 6 }, () => hub.call("old", "big", { n: 2_000_000 })));
      expect(big.map((result) => (result.content[0] as { text: string }).text.length)).toEqual(Array(6).fill(2_000_000));
      expect(seen.length).toBeGreaterThan(2);
      // One answer over the bound a message has ends the connection, and says why; the next call connects again.
      expect(await codeOf(hub.call("old", "big", { n: 11_000_000 }))).toMatch(/^unavailable: Cannot reach MCP server "old": its answer was over 10 MiB/);
      expect(await hub.call("old", "echo", { text: "again" })).toMatchObject({ content: [{ text: "again" }] });
      expect(seen.every((authorization) => authorization === "Bearer S")).toBe(true);
    } finally {
      delete process.env.GG_TEST_MCP_PORT;
      await hub.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
