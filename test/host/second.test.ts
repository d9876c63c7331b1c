// The second thread's screens: a file it rules out is one the search's own screen rejects, read the same way, so a
// cold search that skips it answers what it would alone; what the thread cannot read, the search reads itself.
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { binaryHead, nodeFileHost } from "../../host/files.ts";
import { compileSearch, lineHolding, screening } from "../../host/regex.ts";
import { createScanner, scanFile } from "../../host/search.ts";
import { AHEAD_MIN_FILES, secondThread } from "../../host/second.ts";
import { tempWorkspace } from "../workspace.ts";

describe("the second thread's screens", () => {
  test("rule out exactly the files the search's own screen rejects or that are binary, and never a file it cannot read", async () => {
    using ws = tempWorkspace();
    // File 0 never matches (the test waits on it); the rest hide matches in several cases and encodings.
    const hidden = ["needle", "NeEdLe", "TODO later", "neeedle7", "\u212Aelvin", "caf\xe9 needle", "x\0needle", "fn a\nupdate(b)", "fn  update_x("];
    const files: Record<string, string | Buffer> = {};
    const count = AHEAD_MIN_FILES + 88;
    for (let i = 0; i < count; i++) files[`d${i % 9}/f${String(i).padStart(4, "0")}.txt`] = i > 0 && i % 23 === 0 ? `a ${hidden[i % hidden.length]} b\n` : `filler ${i}\n`;
    files["d0/latin1.txt"] = Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xe9, 0x0a]);
    ws.put(files);
    const paths = Object.keys(files)
      .sort()
      .map((path) => join(ws.root, path));
    const gone = paths[paths.length - 1] as string;
    rmSync(gone);
    for (const query of ["needle", "(?i)NEEDLE", "(?i)todo", "ne+dle\\d", "(?i)kelvin", "caf\u00e9 needle", "fn\\s+update\\w*\\("]) {
      const matcher = compileSearch(query);
      expect(matcher.screen).toBeDefined();
      const job = secondThread.screenAhead(paths, matcher.screen ?? {});
      expect(job).toBeDefined();
      // The thread starts with the first job and works from the last file: file 0 is its last.
      for (let wait = 0; wait < 100 && !job?.ruledOut(paths[0] as string); wait++) await new Promise((resolve) => setTimeout(resolve, 50));
      const passes = screening(matcher.screen ?? {});
      // A file where no line holds every literal a matching line holds is ruled out too.
      const holding = matcher.screen?.lines && lineHolding(matcher.screen.lines);
      const scanner = createScanner(query, nodeFileHost, 200);
      for (const path of paths) {
        const ruledOut = job?.ruledOut(path);
        if (path === gone) {
          expect(ruledOut).toBe(false);
          continue;
        }
        // A binary file (a NUL in its head) is ruled out from its first read: the search takes nothing from it.
        const bytes = readFileSync(path);
        expect([query, path, ruledOut]).toEqual([query, path, binaryHead(bytes) || !passes(bytes) || (holding !== undefined && holding(bytes)(0) === -1)]);
        if (scanFile(scanner, path, 10).length > 0) expect(ruledOut).toBe(false);
      }
      job?.finish();
    }
  });
});

describe("the second thread's filters", () => {
  test("a file asked for as it is now is filtered with the stat it was read under, unless it changed too recently to trust", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "needle here\n", "b.txt": "nothing\n" });
    const paths = ["a.txt", "b.txt", "gone.txt"].map((name) => join(ws.root, name));
    const { gramBits } = await import("../../host/grams.ts");
    await secondThread.prestart();
    const ask = async (racyMs: number, room = { bytes: 1 << 30, perNew: 0 }) => {
      let got: Parameters<Parameters<typeof secondThread.filter>[4]>[0] = [];
      let done = false;
      expect(secondThread.filter(paths, [undefined, undefined, undefined], racyMs, room, (filters, last) => {
        got = [...got, ...filters];
        done = last;
      })).toBe(true);
      for (let wait = 0; wait < 100 && !done; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        secondThread.collect();
      }
      expect(done).toBe(true);
      return got;
    };
    // Changed just now: a second change within the same tick could hide, so nothing is filtered.
    expect(await ask(60_000)).toEqual([]);
    const filters = await ask(0);
    expect(filters.map((found) => found.index)).toEqual([0, 1]);
    for (const { index, filter, stamp } of filters) {
      const path = paths[index] as string;
      expect(Array.from(filter)).toEqual(Array.from(gramBits(readFileSync(path))));
      const now = statSync(path);
      expect(stamp).toEqual({ size: now.size, mtimeMs: now.mtimeMs, ctimeMs: now.ctimeMs, ino: now.ino, dev: now.dev });
    }
    // No more than there is room for: the first filter spends the room, and the thread builds no other.
    expect((await ask(0, { bytes: 1, perNew: 0 })).map((found) => found.index)).toEqual([0]);
  });
});
