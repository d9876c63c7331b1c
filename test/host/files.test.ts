// A search's reads of hostile files: a binary file known from its first read, a file that stats as empty but never
// ends (procfs) bounded, anything but a regular file refused without blocking.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { binaryHead, nodeFileHost } from "../../host/files.ts";
import { createWarmCache } from "../../host/warm.ts";
import { binaryBlob, tempWorkspace } from "../workspace.ts";

describe("readFileInto, the read of a searched file", () => {
  test("a binary file (a NUL in its first 8 KiB) comes back as its first read alone, the rest unread", () => {
    using ws = tempWorkspace();
    ws.put({ "a.out": binaryBlob(4) });
    const scratch = Buffer.allocUnsafe(1 << 20);
    const bytes = nodeFileHost.readFileInto(join(ws.root, "a.out"), scratch);
    expect(binaryHead(bytes)).toBe(true);
    expect(bytes.length).toBe(64 << 10);
    expect(bytes.buffer).toBe(scratch.buffer);
  });

  test("a text file larger than the scratch buffer, and than the bound on a file that stats as empty, is read whole", () => {
    using ws = tempWorkspace();
    const text = "line of text\n".repeat(1_400_000);
    ws.put({ "big.txt": text });
    expect(nodeFileHost.readFileInto(join(ws.root, "big.txt"), Buffer.allocUnsafe(1 << 16)).toString()).toBe(text);
  });

  test("a file that stats as empty is read to its end (/proc/self/status), and one that never ends is bounded (/proc/self/pagemap)", () => {
    expect(statSync("/proc/self/status").size).toBe(0);
    expect(nodeFileHost.readFileInto("/proc/self/status", Buffer.allocUnsafe(1 << 16)).toString()).toMatch(/^Name:/);
    // pagemap has an entry for every page of the address space (terabytes): the read stops at its binary head.
    const pagemap = nodeFileHost.readFileInto("/proc/self/pagemap", Buffer.allocUnsafe(1 << 16));
    expect(pagemap.length).toBeLessThanOrEqual(1 << 16);
    expect(binaryHead(pagemap)).toBe(true);
  });

  test("a FIFO put in a file's place is refused as invalid-argument, without waiting for a writer", () => {
    using ws = tempWorkspace();
    execFileSync("mkfifo", [join(ws.root, "pipe")]);
    expect(() => nodeFileHost.readFileInto(join(ws.root, "pipe"), Buffer.allocUnsafe(1024))).toThrow(
      expect.objectContaining({ code: "invalid-argument", message: expect.stringMatching(/^Cannot read .*pipe: it is not a regular file/) }),
    );
  });

  test("a warm cache keeps only the head of a binary file, and hands it back while the file is unchanged", () => {
    using ws = tempWorkspace();
    ws.put({ "a.out": binaryBlob(4) });
    const path = join(ws.root, "a.out");
    const warm = createWarmCache();
    const first = warm.readFile(path, { ...statSync(path), ctimeMs: 0 });
    expect(binaryHead(first)).toBe(true);
    expect(first.length).toBeLessThan(1 << 20);
    expect(warm.heldBytes()).toBeLessThan(1 << 20);
    expect(warm.readFile(path, { ...statSync(path), ctimeMs: 0 })).toBe(first);
    expect(readFileSync(path).length).toBe(4 << 20);
  });
});
