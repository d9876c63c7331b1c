import { describe, expect, test } from "vitest";
import { IMAGE_MODELS, imageTokens, textTokens } from "../../runtime/context.ts";
import { viewMessages } from "../../runtime/window.ts";
import { engineWorkspace } from "./engine.ts";

// A 1x1 GIF, and a PNG whose header says 1024x768 (its pixels are never decoded).
const GIF = Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from("IHDR"), ihdr, Buffer.alloc(4)]);
}

describe("views", () => {
  test("openFile performs read_file's read and opens a view the breakdown counts", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.txt": "alpha\nbeta\n" });
    const report = await ws.run("const before = await gg.context.breakdown(); const view = await gg.views.openFile('a.txt'); return [before, view, await gg.context.breakdown()];");
    const [before, view, after] = report.result as [{ total: number }, { tokens: number; window: object; text: string }, { fileViews: number; total: number }];
    expect(before.total).toBe(0);
    const { text, ...summary } = view;
    expect(summary).toEqual({ id: 1, path: "a.txt", window: { first: 1, last: 2, total: 2 }, tokens: textTokens("alpha\nbeta\n"), stale: false });
    expect(text).toBe("alpha\nbeta\n");
    expect(after).toMatchObject({ fileViews: textTokens("alpha\nbeta\n"), total: textTokens("alpha\nbeta\n") });
    expect(report.views).toEqual([summary]);
  });

  test("a gg:// label is never a file's view: openFile refuses it and names the path that reaches such a file", async () => {
    using ws = engineWorkspace();
    ws.put({ "gg:/x": "x\n" });
    const report = await ws.run("try { await gg.views.openFile('gg://x'); } catch (e) { return [e.code, e.message, (await gg.views.openFile('./gg://x')).text]; }");
    expect(report.result).toEqual(["invalid-argument", 'Cannot open a view of "gg://x": gg:// labels name the views gg opens itself (the opening turn\'s); a file of that name is ./gg://x', "x\n"]);
  });

  test("an empty file opens as read_file reads it: no text, no lines shown", async () => {
    using ws = engineWorkspace();
    ws.put({ "empty.txt": "" });
    const report = await ws.run("return [await gg.views.openFile('empty.txt'), await gg.files.readFile('empty.txt', { offset: 1 })]");
    expect(report.result).toEqual([{ id: 1, path: "empty.txt", window: { first: 0, last: 0, total: 0 }, tokens: 0, stale: false, text: "" }, ""]);
  });

  test("a windowed view carries read_file's paging footer, under the same line cap", async () => {
    using ws = engineWorkspace({ configEntries: [{ id: "read-file", implementation: "default-cap", params: { lineCap: 3 } }] });
    ws.put({ "n.txt": "1\n2\n3\n4\n5\n" });
    await ws.run("await gg.views.openFile('n.txt')");
    expect(ws.engine.views.contents()).toEqual([{ path: "n.txt", text: "1\n2\n3\n[showing lines 1-3 of 5; continue with offset: 4]", window: { first: 1, last: 3, total: 5 } }]);
  });

  test("opening a path again appends a view; closing and evicting take them out and give the tokens back", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.txt": "a\n".repeat(100), "b.txt": "b\n" });
    const report = await ws.run(`
      await gg.views.openFile("a.txt", { limit: 10 });
      await gg.views.openFile("a.txt", { offset: 50, limit: 10 });
      await gg.views.openFile("b.txt");
      const open = (await gg.views.list()).map((view) => view.path);
      const total = (await gg.context.breakdown()).total;
      const evicted = await gg.context.evictFileView("a.txt");
      const closed = await gg.views.close("b.txt");
      return { open, total, evicted, closed, after: (await gg.context.breakdown()).total };
    `);
    const result = report.result as { open: string[]; total: number; evicted: { closed: number; tokens: number }; closed: { closed: number; tokens: number }; after: number };
    expect(result.open).toEqual(["a.txt", "a.txt", "b.txt"]);
    expect(result.evicted.closed).toBe(2);
    expect(result.closed.closed).toBe(1);
    expect(result.evicted.tokens + result.closed.tokens).toBe(result.total);
    expect(result.after).toBe(0);
  });

  test("any spelling of a file's path retires and evicts the same views, each shown as given", async () => {
    using ws = engineWorkspace();
    ws.put({ "red.png": pngHeader(64, 64), "sub/": "" });
    const report = await ws.run(`
      await gg.views.openFile("red.png");
      await gg.views.openFile("./red.png");
      await gg.views.openFile(${JSON.stringify(`${ws.root}//sub/../red.png`)});
      const open = await gg.views.list();
      return { open, evicted: await gg.context.evictFileView("red.png") };
    `);
    const { open, evicted } = report.result as { open: { path: string; image: { retired: boolean } }[]; evicted: { closed: number } };
    expect(open.map((view) => [view.path, view.image.retired])).toEqual([
      ["red.png", true],
      ["./red.png", true],
      [`${ws.root}//sub/../red.png`, false],
    ]);
    expect(evicted.closed).toBe(3);
    expect(report.views).toEqual([]);
  });

  test("an over-cap window is refused with over-cap, naming the cap and a request within it", async () => {
    using ws = engineWorkspace({ viewCaps: { lines: 10, bytes: 100 } });
    ws.put({ "long.txt": "x\n".repeat(50), "wide.txt": `${"w".repeat(60)}\n`.repeat(5) });
    const report = await ws.run(`
      const errors = [];
      for (const [path, options] of [["long.txt", {}], ["wide.txt", {}]]) {
        try { await gg.views.openFile(path, options); } catch (e) { errors.push([e.code, e.message]); }
      }
      await gg.views.openFile("long.txt", { limit: 10 });
      return errors;
    `);
    const [lines, bytes] = report.result as [string, string][];
    expect(lines?.[0]).toBe("over-cap");
    expect(lines?.[1]).toContain("view cap of 10");
    expect(lines?.[1]).toContain("limit: 10");
    expect(bytes?.[0]).toBe("over-cap");
    expect(bytes?.[1]).toContain("100 bytes");
    expect(report.views).toHaveLength(1);
  });

  test("a window over the byte cap is named as asked for, and the request the refusal suggests opens", async () => {
    using ws = engineWorkspace();
    ws.put({ "rows.txt": `${"r".repeat(199)}\n`.repeat(3000) });
    const report = await ws.run(`
      const refusal = await gg.views.openFile("rows.txt", { limit: 1500 }).catch((e) => e.message);
      const suggested = JSON.parse(refusal.match(/limit: (\\d+)/)[1]);
      return { refusal, opened: (await gg.views.openFile("rows.txt", { limit: suggested })).window };
    `);
    const { refusal, opened } = report.result as { refusal: string; opened: object };
    expect(refusal).toContain("Cannot open a view of lines 1-1500 of rows.txt");
    expect(refusal).toContain("limit: 1310 })");
    expect(opened).toEqual({ first: 1, last: 1310, total: 3000 });
  });

  test("a line alone over the byte cap is refused pointing to readFile and search, which work", async () => {
    using ws = engineWorkspace();
    ws.put({ "one.json": `${"j".repeat(400_000)}\n` });
    const report = await ws.run(`
      const refusal = await gg.views.openFile("one.json", { offset: 1, limit: 1 }).catch((e) => [e.code, e.message]);
      const text = await gg.files.readFile("one.json", { offset: 1, limit: 1 });
      return { refusal, read: text.length, found: await gg.files.search("jjj", { path: "one.json", limit: 1 }) };
    `);
    const { refusal, read, found } = report.result as { refusal: [string, string]; read: number; found: { matches: { path: string; line: number }[] } };
    expect(refusal[0]).toBe("over-cap");
    expect(refusal[1]).toBe(
      'Cannot open a view of line 1 of one.json: line 1 alone is over the view cap of 262144 bytes, so no view can show it; gg.files.readFile("one.json", { offset: 1, limit: 1 }) hands its text to your program, and gg.files.search(query, { path: "one.json" }) finds text in it',
    );
    expect(read).toBeGreaterThan(256 * 1024);
    expect(found.matches).toMatchObject([{ path: "one.json", line: 1 }]);
  });

  test("a picture is charged by its tiles; re-opening retires the older copy, evicting reclaims it", async () => {
    using ws = engineWorkspace();
    ws.put({ "shot.png": pngHeader(1024, 768), "dot.gif": GIF });
    const report = await ws.run(`
      const first = await gg.views.openFile("shot.png");
      const withOne = await gg.context.breakdown();
      await gg.views.openFile("shot.png");
      const withTwo = await gg.context.breakdown();
      await gg.context.evictFileView("shot.png");
      return { first, withOne, withTwo, after: await gg.context.breakdown() };
    `);
    const result = report.result as { first: { image: object }; withOne: { images: number }; withTwo: { images: number }; after: { images: number; total: number } };
    const tiles = imageTokens({ width: 1024, height: 768, bytes: 0 }).tokens;
    expect(tiles).toBe(85 + 170 * 4);
    expect(result.first.image).toMatchObject({ format: "PNG", width: 1024, height: 768, attached: true, retired: false, estimated: false });
    expect(result.withOne.images).toBe(tiles);
    expect(result.withTwo.images).toBe(tiles);
    expect(result.after).toMatchObject({ images: 0, total: 0 });
  });

  test("a retired picture's bytes are dropped, its descriptor kept", async () => {
    using ws = engineWorkspace();
    ws.put({ "shot.png": pngHeader(1024, 768) });
    await ws.run('for (let i = 0; i < 3; i++) await gg.views.openFile("shot.png")');
    const held = ws.engine.views.contents().map((view) => view.dataUrl !== undefined);
    expect(held).toEqual([false, false, true]);
    expect(ws.engine.views.list().map((view) => view.image)).toEqual(Array(3).fill(expect.objectContaining({ format: "PNG", width: 1024, height: 768, attached: true })));
  });

  test("an image whose header cannot be read is charged by its size, and its view says the figure is an estimate", async () => {
    expect(imageTokens({ bytes: 75_000 })).toEqual({ tokens: 100, estimated: true });
    using ws = engineWorkspace();
    ws.put({ "broken.png": Buffer.concat([pngHeader(1, 1).subarray(0, 8), Buffer.alloc(75_000 - 8)]) });
    const report = await ws.run('await gg.views.openFile("broken.png"); return await gg.views.list()');
    const image = { format: "PNG", bytes: 75_000, attached: true, retired: false, estimated: true };
    expect(report.result).toEqual([expect.objectContaining({ image, tokens: 100 + textTokens(ws.engine.views.contents()[0]?.text ?? "") })]);
    expect(report.views).toEqual(report.result);
  });

  test("a picture's tiles are counted with its model's constants", () => {
    expect(imageTokens({ width: 1024, height: 768, bytes: 0 })).toEqual(imageTokens({ width: 1024, height: 768, bytes: 0 }, IMAGE_MODELS["openai-high"]));
    expect(imageTokens({ width: 1024, height: 768, bytes: 0 }, { fit: 2048, shortest: 768, tile: 512, base: 100, perTile: 10 }).tokens).toBe(140);
  });

  test("the embedder's bands are part of the breakdown", async () => {
    using ws = engineWorkspace({ baseline: { system: 1200, messages: 3000, toolResults: 50 } });
    const report = await ws.run("return await gg.context.breakdown()");
    expect(report.result).toEqual({ system: 1200, messages: 3000, toolResults: 50, fileViews: 0, images: 0, total: 4250 });
  });
});

test("a view of a file whose name holds a line break is headed by the name on one line, and an over-cap refusal names it so", async () => {
  using ws = engineWorkspace();
  ws.put({ "a\nb.txt": "x\n".repeat(5000) });
  const { later } = viewMessages([{ path: "a\nb.txt", text: "x\n" }]);
  expect(later.map((part) => ("text" in part ? part.text : ""))).toEqual(["# Open views", '## "a\\nb.txt"\n\nx\n']);
  const refused = await ws.run("await gg.views.openFile('a\\nb.txt', { limit: 5000 })");
  expect(refused.error?.message).toMatch(/^Cannot open a view of lines 1-5000 of "a\\nb\.txt": /);
});
