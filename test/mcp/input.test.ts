// gg mcp under bad input, as a fuzzer meets it: the real `gg mcp` spawned, raw lines written to its stdin, its stdout
// read line by line. Every request gets an answer with its id, every malformed line an error with id null, and the
// server goes on answering.
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MAX_LINE_BYTES } from "../../mcp/transport.ts";
import { numRuns } from "../deep.ts";
import { tempWorkspace } from "../workspace.ts";

const bin = join(import.meta.dirname, "../../bin/gg.js");

/** A JSON-RPC message as the server wrote it. */
type Message = { jsonrpc: string; id?: string | number | null; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** Every message of ours reads "Cannot <action> <subject>: <state>; <how to recover>". */
const SENTENCE = /^Cannot (?:[^:"]|"[^"]*")+: .+; .+$/;

/** `gg mcp` on `workspace`, spoken to in raw lines; killed when the scope ends. */
function rawServer(workspace: string) {
  const child = spawn(process.execPath, [bin, "mcp", "--workspace", workspace], { stdio: ["pipe", "pipe", "pipe"] });
  // A server that died is reported by `take`, not as the EPIPE of the next write.
  child.stdin.on("error", () => {});
  const received: Message[] = [];
  /** Lines of stdout that are not JSON: the protocol is all stdout may carry. */
  const stray: string[] = [];
  let wake = (): void => {};
  createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      received.push(JSON.parse(line) as Message);
    } catch {
      stray.push(line);
    }
    wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let alive = true;
  void exited.then(() => {
    alive = false;
    wake();
  });
  /** The first message received that `matches`, taken out of those received (the test's timeout bounds the wait). */
  const take = async (matches: (message: Message) => boolean): Promise<Message> => {
    for (;;) {
      const index = received.findIndex(matches);
      if (index !== -1) return received.splice(index, 1)[0] as Message;
      if (!alive) throw new Error(`gg mcp exited while an answer was awaited; received ${JSON.stringify(received)}`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const send = (line: string): void => void child.stdin.write(`${line}\n`);
  let ids = 0;
  return {
    received,
    stray,
    send,
    take,
    /** The answer to the line of request `id`. */
    answer: (id: string | number) => take((message) => message.id === id),
    /** The next answer with id null: a malformed line's. */
    refusal: () => take((message) => message.id === null),
    /** Sends a request and waits for its answer. */
    async request(method: string, params?: unknown): Promise<Message> {
      const id = `req-${++ids}`;
      send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }));
      return this.answer(id);
    },
    alive: () => alive,
    exited,
    [Symbol.dispose]() {
      child.kill("SIGKILL");
    },
  };
}

/** A server past initialize, as a client leaves it. */
async function initialized(workspace: string) {
  const server = rawServer(workspace);
  const init = await server.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } });
  expect(init.result).toMatchObject({ serverInfo: { name: "gg" } });
  server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return server;
}

/** The server still answers a valid request, and wrote nothing but the protocol. */
async function stillServes(server: ReturnType<typeof rawServer>): Promise<void> {
  const listed = await server.request("tools/list");
  expect((listed.result?.tools as { name: string }[]).map((tool) => tool.name)).toContain("read_file");
  expect(server.stray).toEqual([]);
}

const call = (id: string | number, method: string, params?: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }), ...extra });

describe("gg mcp under bad input", () => {
  test("a line that is not JSON gets a parse error, one that is not JSON-RPC an invalid request, both with id null", async () => {
    using ws = tempWorkspace();
    using server = await initialized(ws.root);
    const cases: [string, number, RegExp][] = [
      ["not json", -32700, /^Cannot parse the line as JSON: .*"not json" is not valid JSON; /],
      ["{", -32700, /^Cannot parse the line as JSON/],
      ['"jsonrpc": "1.0"', -32700, /^Cannot parse the line as JSON/],
      ["", -32700, /^Cannot parse the line as JSON: Unexpected end of JSON input/],
      ["[]", -32600, /it is an empty batch, and MCP takes one message per line/],
      ["[1]", -32600, /it is a batch of 1/],
      ["{}", -32600, /it has no method .* and no result or error/],
      ["3", -32600, /it is a number, not a JSON-RPC 2\.0 object/],
      ["null", -32600, /it is null, not a JSON-RPC 2\.0 object/],
      ['{"jsonrpc":"1.0","method":"ping"}', -32600, /its jsonrpc is "1\.0", not "2\.0"/],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, /its id is null, not a string or an integer/],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, /its id is 1\.5/],
      ['{"jsonrpc":"2.0","id":1,"result":3}', -32600, /it is not a JSON-RPC 2\.0 response/],
      ['{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}', -32602, /^Cannot handle "notifications\/cancelled": params\.requestId is an object \(expected a string or a number\); /],
    ];
    for (const [line, code, message] of cases) {
      server.send(line);
      const refused = await server.refusal();
      expect(refused, line.slice(0, 200)).toMatchObject({ jsonrpc: "2.0", error: { code, message: expect.stringMatching(message) } });
      expect(refused.error?.message).toMatch(SENTENCE);
    }
    await stillServes(server);
    expect(server.received).toEqual([]);
  });

  test("a request with an id is answered with that id: params null or an array, a bad _meta, an unknown method, tool, resource or prompt", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    using server = await initialized(ws.root);
    const cases: [string, string | number, number, RegExp][] = [
      [call(1, "tools/call", null), 1, -32600, /^Cannot handle the message: its params are null, not an object; /],
      [call(2, "tools/call", []), 2, -32602, /^Cannot handle "tools\/call": params is an array \(expected an object\); /],
      [call("three", "tools/call", { name: "read_file", arguments: { path: "a.txt" }, _meta: { progressToken: {} } }), "three", -32602, /params\._meta\.progressToken is an object \(expected a string or a number\)/],
      [call(4, "resources/read", null), 4, -32600, /its params are null/],
      [call(5, "tools/list", { _meta: 3 }), 5, -32602, /params\._meta is a number \(expected an object\)/],
      ['{"jsonrpc":"2.0","id":13}', 13, -32600, /^Cannot handle the message: it has no method .* and no result or error/],
      [call(6, "ping", undefined, { extra: 1 }), 6, -32600, /it has the member "extra", and a request holds only jsonrpc, id, method and params/],
      ['{"jsonrpc":"1.0","id":7,"method":"ping"}', 7, -32600, /its jsonrpc is "1\.0"/],
      [call(9, "tools/call", { name: "nope" }), 9, -32602, /^Cannot call the tool "nope": the session holds no tool of that name; the tools are read_file, /],
      [call(10, "resources/read", { uri: "gg://nope" }), 10, -32602, /^Cannot read the resource "gg:\/\/nope": gg serves no resource of that URI; the resources are gg:\/\/docs\/api\.md, gg:\/\/types\/gg\.d\.ts, gg:\/\/views$/],
      [call(11, "prompts/get", { name: "x".repeat(100_000) }), 11, -32602, /^Cannot get the prompt "x{120}…" \(100,000 characters\): gg serves no prompt of that name; the prompts are tools-agent, code-agent$/],
      [call(8, "nope/nope"), 8, -32601, /^Cannot handle "nope\/nope": gg does not serve that method; the methods served are initialize, ping, tools\/list, tools\/call, resources\/list, resources\/templates\/list, resources\/read, prompts\/list, prompts\/get$/],
    ];
    for (const [line, id, code, message] of cases) {
      server.send(line);
      const answered = await server.answer(id);
      expect(answered, line.slice(0, 200)).toMatchObject({ jsonrpc: "2.0", error: { code, message: expect.stringMatching(message) } });
    }
    // A batch: each request in it is refused to its id.
    server.send(`[${call(14, "ping")},${call(15, "tools/list")},3]`);
    for (const id of [14, 15]) expect((await server.answer(id)).error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Cannot read the message: it is a batch of 3, and MCP takes one message per line; /) });
    // A line ended by CRLF is the same message.
    server.send(`${call(12, "ping")}\r`);
    expect(await server.answer(12)).toEqual({ jsonrpc: "2.0", id: 12, result: {} });
    // The progressToken fixed, the same call runs.
    const read = await server.request("tools/call", { name: "read_file", arguments: { path: "a.txt" }, _meta: { progressToken: "p" } });
    expect(read.result).toMatchObject({ content: [{ type: "text", text: expect.stringContaining("alpha") }] });
    await stillServes(server);
    expect(server.received).toEqual([]);
  });

  test("invalid params are -32602 with a sentence naming each wrong field, for every method", async () => {
    using ws = tempWorkspace();
    using server = await initialized(ws.root);
    const cases: [string, unknown, RegExp][] = [
      ["tools/call", {}, /^Cannot handle "tools\/call": params\.name is missing \(expected a string\); send the params MCP defines for it$/],
      ["tools/call", { name: 3, arguments: [] }, /^Cannot handle "tools\/call": params\.name is a number \(expected a string\) and params\.arguments is an array \(expected an object\); /],
      ["resources/read", {}, /^Cannot handle "resources\/read": params\.uri is missing \(expected a string\); /],
      ["prompts/get", { name: 3 }, /^Cannot handle "prompts\/get": params\.name is a number \(expected a string\); /],
      ["tools/list", { cursor: 3 }, /^Cannot handle "tools\/list": params\.cursor is a number \(expected a string\); /],
      ["initialize", {}, /^Cannot handle "initialize": params\.protocolVersion is missing \(expected a string\), params\.capabilities is missing \(expected an object\) and params\.clientInfo is missing \(expected an object\); /],
    ];
    for (const [method, params, message] of cases) {
      const answered = await server.request(method, params);
      expect(answered.error, `${method} ${JSON.stringify(params)}`).toEqual({ code: -32602, message: expect.stringMatching(message) });
    }
    await stillServes(server);
  });

  test("a 16 MiB message is handled, a 16 MiB line of garbage refused, and a line over the limit answered and skipped", async () => {
    using ws = tempWorkspace();
    using server = await initialized(ws.root);
    const content = "z".repeat(16 * 1024 * 1024);
    const written = await server.request("tools/call", { name: "write_file", arguments: { path: "big.txt", content } });
    expect(written.result).toMatchObject({ content: [{ type: "text", text: expect.stringMatching(/^Created big\.txt/) }] });
    expect(statSync(join(ws.root, "big.txt")).size).toBe(content.length);
    server.send(content);
    expect((await server.refusal()).error).toMatchObject({ code: -32700, message: expect.stringMatching(/^Cannot parse the line as JSON: .{0,200}; send one JSON-RPC 2\.0 message per line$/) });
    // Over the limit: refused while it streams in, without the rest of it being held, and its tail is not read as a line.
    server.send(`${call(9, "ping")}${" ".repeat(MAX_LINE_BYTES)}`);
    expect(await server.refusal()).toMatchObject({ error: { code: -32600, message: "Cannot read a message of more than 32 MiB: this line is longer, and is skipped; send smaller messages (a large file's content in parts)" } });
    await stillServes(server);
    expect(server.received).toEqual([]);
    expect(server.alive()).toBe(true);
  });

  test("random lines and random params for each method: every request answered with its id, every malformed line refused", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "alpha\n" });
    using server = await initialized(ws.root);
    // Methods the server holds and others; tools that only read, so random arguments change nothing.
    const method = fc.constantFrom("tools/call", "tools/list", "resources/read", "resources/list", "prompts/get", "prompts/list", "ping", "initialize", "completion/complete", "logging/setLevel", "nope");
    const meta = fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), fc.jsonValue()) }, { requiredKeys: [] });
    const params = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue(),
      fc.record({ name: fc.oneof(fc.constantFrom("read_file", "list_dir", "search_docs", "tools-agent", "nope"), fc.jsonValue()), arguments: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()), uri: fc.oneof(fc.constantFrom("gg://docs/api.md", "gg://nope"), fc.jsonValue()), _meta: fc.oneof(meta, fc.jsonValue()) }, { requiredKeys: [] }),
    );
    const request = fc.record({ method, params, extra: fc.dictionary(fc.constantFrom("jsonrpc", "extra"), fc.jsonValue(), { maxKeys: 1 }) });
    // Lines with no usable id: text, JSON values, and JSON-RPC-looking objects broken in their envelope.
    const garbage = fc.oneof(
      fc.string({ unit: "binary" }).filter((text) => !text.includes("\n")),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc.record({ jsonrpc: fc.jsonValue(), method: fc.jsonValue(), params: fc.jsonValue(), id: fc.constantFrom(null, 1.5, {}, []) }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(request.map((value) => ({ request: value })), garbage.map((line) => ({ garbage: line }))), async (input) => {
        const id = `fuzz-${++n}`;
        const barrier = `barrier-${n}`;
        if ("request" in input) {
          const { method, params, extra } = input.request;
          server.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }), ...extra }));
          const answered = await server.answer(id);
          expect("result" in answered !== "error" in answered).toBe(true);
          if (answered.error) {
            expect([-32600, -32601, -32602]).toContain(answered.error.code);
            expect(answered.error.message).toMatch(SENTENCE);
          }
        } else if (!isWellFormed(input.garbage)) {
          server.send(input.garbage);
          const refused = await server.refusal();
          expect([-32700, -32600, -32602]).toContain(refused.error?.code);
          expect(refused.error?.message).toMatch(SENTENCE);
          expect(refused.error?.message.length).toBeLessThan(2000);
        }
        // Nothing else was answered: the ping sent after the line is the next answer.
        server.send(call(barrier, "ping"));
        expect(await server.take(() => true)).toEqual({ jsonrpc: "2.0", id: barrier, result: {} });
        expect(server.alive()).toBe(true);
      }),
      { numRuns: numRuns(300), seed: 17 },
    );
    await stillServes(server);
  });
});

/** Whether a random line is, by chance, a message JSON-RPC takes without an answer (a notification or a response). */
function isWellFormed(line: string): boolean {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    return typeof value === "object" && value !== null && value.jsonrpc === "2.0" && !("id" in value);
  } catch {
    return false;
  }
}
