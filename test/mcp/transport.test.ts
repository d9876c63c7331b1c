// The line transport of gg mcp over in-process streams: how it frames lines whatever the chunks they come in, and its
// bound on a line, tested at the bound itself with a small one.
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { lineTransport } from "../../mcp/transport.ts";

/** A transport on fresh streams: what it hands on, what it answers, whether it closed. */
async function connected(maxLineBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = lineTransport(input, output, maxLineBytes);
  const messages: JSONRPCMessage[] = [];
  let closed = false;
  transport.onmessage = (message) => void messages.push(message);
  transport.onclose = () => void (closed = true);
  await transport.start();
  let written = "";
  output.on("data", (chunk: Buffer) => void (written += chunk.toString("utf8")));
  /** Writes each chunk, then lets the streams deliver them. */
  const feed = async (...chunks: (string | Buffer)[]): Promise<void> => {
    for (const chunk of chunks) input.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const answers = () => written.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { id: unknown; error?: { code: number; message: string } });
  return { input, transport, messages, answers, feed, closed: () => closed };
}

const ping = (id: number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

describe("lineTransport", () => {
  test("frames a line split across chunks, byte by byte or mid-character, several in one chunk, and CRLF", async () => {
    const t = await connected();
    const split = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id: "é€😀", method: "ping" })}\n`);
    await t.feed(...Array.from(split, (byte) => Buffer.from([byte])));
    await t.feed(`${ping(2)}\n${ping(3)}\r\n${ping(4)}`, `\n`);
    expect(t.messages.map((message) => ("id" in message ? message.id : undefined))).toEqual(["é€😀", 2, 3, 4]);
    expect(t.answers()).toEqual([]);
  });

  test("a line of exactly the limit is read; one byte more is answered once, as it streams in, and skipped to its end", async () => {
    const line = ping(1);
    const t = await connected(line.length);
    await t.feed(`${line}\n`);
    expect(t.messages).toHaveLength(1);
    await t.feed(line.slice(0, 10), line.slice(10), " ");
    expect(t.answers()).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/^Cannot read a message of more than 40 bytes: this line is longer, and is skipped; /) } }]);
    await t.feed(`${" ".repeat(10_000)}`, `\n${ping(2)}\n`);
    expect(t.messages.map((message) => ("id" in message ? message.id : undefined))).toEqual([1, 2]);
    expect(t.answers()).toHaveLength(1);
  });

  test("closes when its input ends, and writes nothing after", async () => {
    const t = await connected();
    t.input.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.closed()).toBe(true);
    await t.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(t.answers()).toEqual([]);
  });
});
