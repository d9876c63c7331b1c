// The stdio transport of gg mcp: the SDK's Transport over newline-delimited JSON, as its StdioServerTransport, with
// two differences. A line longer than MAX_LINE_BYTES is answered with an error and skipped as it streams by (the SDK's
// read buffer closes the transport on one); and a line the SDK's schemas refuse is answered (messages.ts), where the
// SDK reports it out of band and the client waits for ever.
import type { Readable, Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type ErrorAnswer, errorAnswer, readLine } from "./messages.ts";

/** Bytes one line (one message) may hold, its newline excluded: a bound, so a runaway line cannot take the server's
 * memory, and three times the 10 MiB the SDK reads, so a large file's content still fits. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

const MIB = 1024 * 1024;

/** A transport reading lines from `input` and writing them to `output`; it closes when `input` ends. */
export function lineTransport(input: Readable = process.stdin, output: Writable = process.stdout, maxLineBytes = MAX_LINE_BYTES): Transport {
  /** The start of the line being read, in the chunks it came in (joined once, when its newline comes). */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Whether the line being read is over the limit: its bytes are dropped until its newline. */
  let skipping = false;
  let closed = false;

  const write = (message: JSONRPCMessage | ErrorAnswer): Promise<void> =>
    new Promise((resolve) => {
      if (closed || output.writableEnded) return resolve();
      if (output.write(serializeMessage(message as JSONRPCMessage))) resolve();
      else output.once("drain", resolve);
    });

  const onLine = (bytes: Buffer): void => {
    const reading = readLine(bytes.toString("utf8").replace(/\r$/, ""));
    if ("message" in reading) transport.onmessage?.(reading.message);
    else for (const answer of reading.answers) void write(answer);
  };

  /** Takes `bytes` into the line being read, unless that makes it too long: then it is answered and dropped. */
  const take = (bytes: Buffer): void => {
    if (skipping) return;
    if (pendingBytes + bytes.length <= maxLineBytes) {
      if (bytes.length > 0) pending.push(bytes);
      pendingBytes += bytes.length;
      return;
    }
    skipping = true;
    pending = [];
    pendingBytes = 0;
    const limit = maxLineBytes % MIB === 0 ? `${maxLineBytes / MIB} MiB` : `${maxLineBytes} bytes`;
    void write(errorAnswer(null, ErrorCode.InvalidRequest, `Cannot read a message of more than ${limit}: this line is longer, and is skipped; send smaller messages (a large file's content in parts)`));
  };

  const onData = (chunk: Buffer): void => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1 && !closed; end = chunk.indexOf(10, start)) {
      take(chunk.subarray(start, end));
      if (!skipping) onLine(pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
      skipping = false;
      start = end + 1;
    }
    take(chunk.subarray(start));
  };

  const onEnd = (): void => void transport.close();
  const onError = (error: Error): void => {
    transport.onerror?.(error);
    void transport.close();
  };

  const transport: Transport = {
    async start() {
      input.on("data", onData);
      input.on("end", onEnd);
      input.on("close", onEnd);
      input.on("error", onError);
      // A client gone while an answer is written (EPIPE) ends the session, as its stdin closing does; kept after
      // close, as an answer in flight can still fail then.
      output.on("error", onError);
    },
    send: write,
    async close() {
      if (closed) return;
      closed = true;
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("close", onEnd);
      input.off("error", onError);
      input.pause();
      pending = [];
      transport.onclose?.();
    },
  };
  return transport;
}
