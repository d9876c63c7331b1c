// Stale views: a view whose file changes is never rewritten; the report of the program that changed it, or the next
// check of the views, names it, and gg.views.list() says stale: true. Each way a file changes: a program's edit, a
// shell command, a tool call, a write from outside gg.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createTools } from "../../bindings/index.ts";
import { engineWorkspace } from "./engine.ts";

const LINE = "a.txt changed on disk since your view of turn 1; open it again to see it now";

describe("stale views", () => {
  test("a program's edit: its report names the view it made stale, which keeps its text and lists as stale", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.txt": "old\n" });
    await ws.run("await gg.views.openFile('a.txt')");
    const report = await ws.run("await gg.files.editFile('a.txt', 'old', 'new'); return (await gg.views.list()).map((view) => view.stale)");
    expect(report.stale).toEqual([LINE]);
    expect(report.views.map((view) => view.stale)).toEqual([true]);
    expect(ws.engine.views.contents().map((view) => view.text)).toEqual(["old\n"]);
    // Named once: the next check finds nothing new.
    expect(ws.engine.views.check()).toEqual([]);
  });

  test("a shell command's edit is named in the program's report; a view opened after the change is current", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.txt": "old\n" });
    await ws.run("await gg.views.openFile('a.txt')");
    const report = await ws.run("await gg.shell.shell('echo more >> a.txt'); return 1");
    expect(report.stale).toEqual([LINE]);
    const reopened = await ws.run("await gg.views.openFile('a.txt'); return (await gg.views.list()).map((view) => view.stale)");
    expect(reopened).toMatchObject({ ok: true, result: [true, false] });
    expect(reopened.stale).toBeUndefined();
  });

  test("a tool call's edit and a write from outside gg are named by the next check, once, on the view they made stale", async () => {
    using ws = engineWorkspace();
    ws.put({ "a.txt": "old\n", "b.txt": "b\n" });
    await ws.run("await gg.views.openFile('a.txt'); await gg.views.openFile('b.txt')");
    const tools = createTools({ workspace: ws.root });
    expect(await tools.call("edit_file", { path: "a.txt", old: "old", new: "new" })).toMatchObject({ ok: true });
    expect(ws.engine.views.shown().map((view) => view.changed)).toEqual([LINE, undefined]);
    writeFileSync(join(ws.root, "b.txt"), "changed\n");
    expect(ws.engine.views.shown().map((view) => view.changed)).toEqual([undefined, "b.txt changed on disk since your view of turn 1; open it again to see it now"]);
    expect(ws.engine.views.shown().map((view) => view.changed)).toEqual([undefined, undefined]);
    expect(ws.engine.views.list().map((view) => view.stale)).toEqual([true, true]);
  });
});
