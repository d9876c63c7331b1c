// gg as an MCP client: servers started on first use in their own process group, with only the variables their entry
// names; tools listed whole; a timeout cancels; a crash says why and the next call starts the server again; closing
// stops the whole group; Streamable HTTP with the entry's headers.
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
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
});
