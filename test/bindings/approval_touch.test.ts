// gg's file tools judged by what they touch: a folder swapped for a link to a denied folder between the check and the
// write (or the read) cannot land the write there or read from there; a file with several names (hard links) under a
// path rule is asked; an edit is judged by the read rules too, so no-match and Edited reveal nothing of a file the
// agent may not read.
import { spawn } from "node:child_process";
import { existsSync, linkSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createTools } from "../../bindings/index.ts";
import { createRuntime } from "../../runtime/index.ts";
import { within } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

const DENY = { approvals: [{ call: "*", when: { path: "secrets/**" }, verdict: "deny", reason: "secrets stay put" }] };

/** Swaps `dir` between a folder and a link to secrets/ in a loop, in a process of its own, until killed. */
const SWAPPER = `const fs = require("node:fs");
const [dir, held, secrets] = process.argv.slice(1);
for (;;) {
  try { fs.renameSync(dir, held); fs.symlinkSync(secrets, dir); fs.unlinkSync(dir); fs.renameSync(held, dir); } catch {}
}`;

describe("a folder swapped for a link to a denied folder", () => {
  test("between the check and the touch (the hook swaps it): writes, edits and reads are refused, secrets/ untouched", async () => {
    using ws = tempWorkspace();
    const swap = `cat > /dev/null; if [ ! -L dir ]; then mv dir held && ln -s secrets dir; fi; echo '{"verdict": "allow"}'\n`;
    ws.put({ "dir/x": "safe\n", "secrets/x": "hunter2\n", "swap.sh": swap });
    const BATCH = [{ id: "read-file", implementation: "batch", params: { lineCap: 200 } }, { id: "edit-file", implementation: "batch" }];
    const classic = createTools({ workspace: ws.root, config: { ...DENY, approvalHook: { command: "sh swap.sh" } } });
    const batch = createTools({ workspace: ws.root, config: { capabilities: BATCH, ...DENY, approvalHook: { command: "sh swap.sh" } } });
    const calls: [ReturnType<typeof createTools>, string, object][] = [
      [classic, "write_file", { path: "dir/x", content: "pwned" }],
      [classic, "write_file", { path: "dir/new/y", content: "pwned" }],
      [classic, "edit_file", { path: "dir/x", old: "hunter2", new: "pwned" }],
      [classic, "read_file", { path: "dir/x" }],
      [batch, "edit", { path: "dir/x", edits: [{ old: "hunter2", new: "pwned" }] }],
      [batch, "read", { files: [{ path: "dir/x" }] }],
    ];
    for (const [tools, name, args] of calls) {
      // The rules judge dir/x while dir/ is a folder; the hook then puts the link in its place.
      if (existsSync(join(ws.root, "held"))) {
        rmSync(join(ws.root, "dir"));
        renameSync(join(ws.root, "held"), join(ws.root, "dir"));
      }
      const result = await tools.call(name, args);
      const said = result.ok ? result.text : result.error.message;
      expect([name, said]).toEqual([name, expect.stringMatching(new RegExp(`the file it reaches now is ${ws.root}/secrets/(x|new/y), and rule 1 denies it \\(secrets stay put\\)`))]);
    }
    expect(readdirSync(join(ws.root, "secrets"))).toEqual(["x"]);
    expect(readFileSync(join(ws.root, "secrets/x"), "utf8")).toBe("hunter2\n");
  });

  test("in a loop against writes, edits and reads: none lands in secrets/, none reads from it", async () => {
    using ws = tempWorkspace();
    ws.put({ "dir/x": "safe\n", "secrets/x": "hunter2\n" });
    const tools = createTools({ workspace: ws.root, config: DENY });
    const swapper = spawn(process.execPath, ["-e", SWAPPER, join(ws.root, "dir"), join(ws.root, "held"), join(ws.root, "secrets")], { stdio: "ignore" });
    try {
      expect(await within(60, () => existsSync(join(ws.root, "held")))).toBe(true);
      for (let i = 0; i < 300; i++) {
        await tools.call("write_file", { path: "dir/x", content: `safe ${i}\n` });
        await tools.call("edit_file", { path: "dir/x", old: "safe", new: "safe " });
        const read = await tools.call("read_file", { path: "dir/x" });
        expect(read.ok ? read.text : "").not.toContain("hunter2");
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    expect(readdirSync(join(ws.root, "secrets"))).toEqual(["x"]);
    expect(readFileSync(join(ws.root, "secrets/x"), "utf8")).toBe("hunter2\n");
  }, 300_000);
});

describe("a file with several names (hard links)", () => {
  test("under a path rule, reading, writing or editing a hard link to a denied file is asked, so denied with no one to ask", async () => {
    using ws = tempWorkspace();
    ws.put({ "secrets/key.txt": "hunter2\n", "notes.md": "mine\n" });
    linkSync(join(ws.root, "secrets/key.txt"), join(ws.root, "h"));
    const tools = createTools({ workspace: ws.root, config: DENY });
    const BATCH = [{ id: "read-file", implementation: "batch", params: { lineCap: 200 } }, { id: "edit-file", implementation: "batch" }];
    const batch = createTools({ workspace: ws.root, config: { capabilities: BATCH, ...DENY } });
    const outcomes = [
      await tools.call("read_file", { path: "h" }),
      await tools.call("write_file", { path: "h", content: "pwned" }),
      await tools.call("edit_file", { path: "h", old: "hunter2", new: "x" }),
      await batch.call("edit", { path: "h", edits: [{ old: "hunter2", new: "x" }] }),
    ];
    for (const outcome of outcomes) expect(outcome.ok ? "ran" : outcome.error.message).toMatch(/^Cannot run \w+: denied by rule 1: its verdict is ask \(h has 2 names \(hard links\), and gg cannot see where the others lie: rule 1 \(secrets stay put\) could apply to one of them\), and no one could be asked/);
    const read = await batch.call("read", { files: [{ path: "h" }] });
    expect(read.ok ? read.text : read.error.message).toMatch(/^Cannot run read: denied by rule 1: its verdict is ask \(h has 2 names/);
    expect(readFileSync(join(ws.root, "secrets/key.txt"), "utf8")).toBe("hunter2\n");
    expect((await tools.call("read_file", { path: "notes.md" })).ok).toBe(true);
  });

  test("a person asked may allow it; a link made after the call was judged is refused when the call reaches it", async () => {
    using ws = tempWorkspace();
    ws.put({ "secrets/key.txt": "hunter2\n", "late.txt": "late\n", "hook.sh": `cat > /dev/null; ln -f secrets/key.txt late.txt; echo '{"verdict": "allow"}'\n` });
    linkSync(join(ws.root, "secrets/key.txt"), join(ws.root, "h"));
    const asked = createTools({ workspace: ws.root, config: DENY, approve: async () => ({ verdict: "allow" }) });
    expect(await asked.call("read_file", { path: "h" })).toMatchObject({ ok: true, text: "hunter2\n", approval: { verdict: "allow", by: "person" } });
    // The hook runs after the rules judged late.txt (one name): it links late.txt to the secret, then allows.
    const hooked = createTools({ workspace: ws.root, config: { ...DENY, approvalHook: { command: "sh hook.sh" } } });
    const late = await hooked.call("write_file", { path: "late.txt", content: "pwned" });
    expect(late.ok ? "ran" : late.error.message).toMatch(/^Cannot run write_file: the file it reaches now is .*late\.txt, and rule 1 asks about it \(.*late\.txt has 3 names \(hard links\)/);
    expect(readFileSync(join(ws.root, "secrets/key.txt"), "utf8")).toBe("hunter2\n");
  });
});

test("a program's reads, views, writes and edits of a hard link to a denied file are denied alike", async () => {
  using ws = tempWorkspace();
  ws.put({ "secrets/key.txt": "hunter2\n" });
  linkSync(join(ws.root, "secrets/key.txt"), join(ws.root, "h"));
  const runtime = createRuntime({ workspace: ws.root, config: DENY });
  try {
    const report = await runtime.run(`const out = [];
for (const call of [() => gg.files.readFile("h"), () => gg.views.openFile("h"), () => gg.files.writeFile("h", "x"), () => gg.files.editFile("h", "hunter2", "x")]) {
  try { await call(); out.push("ran"); } catch (e) { out.push(e.code); }
}
return out;`);
    expect(report.result).toEqual(["denied", "denied", "denied", "denied"]);
    expect(report.calls.map((call) => call.approval?.reason)).toEqual(Array(4).fill(expect.stringContaining("h has 2 names (hard links)")));
  } finally {
    await runtime.close();
  }
  expect(readFileSync(join(ws.root, "secrets/key.txt"), "utf8")).toBe("hunter2\n");
});

describe("an edit is judged by the read rules too", () => {
  test("under a deny of reading private/**, an edit there is denied whatever its old text: no no-match, no Edited", async () => {
    using ws = tempWorkspace();
    ws.put({ "private/a.txt": "hunter2\n" });
    const config = { capabilities: [{ id: "edit-file", implementation: "batch" }], approvals: [{ call: "read_file", when: { path: "private/**" }, verdict: "deny" }] };
    const classic = createTools({ workspace: ws.root, config: { approvals: config.approvals } });
    const batch = createTools({ workspace: ws.root, config });
    const answers = [
      await classic.call("edit_file", { path: "private/a.txt", old: "hunter2", new: "x" }),
      await classic.call("edit_file", { path: "private/a.txt", old: "wrong guess", new: "x" }),
      await batch.call("edit", { path: "private/a.txt", edits: [{ old: "hunter2", new: "x" }] }),
      await batch.call("edit", { path: "private/a.txt", edits: [{ old: "wrong guess", new: "x" }] }),
    ];
    expect(answers.map((answer) => (answer.ok ? "ran" : answer.error.message.replace(/^Cannot run \w+/, "")))).toEqual(Array(4).fill(expect.stringMatching(/^: denied by rule 1; nothing of it ran/)));
    expect(readFileSync(join(ws.root, "private/a.txt"), "utf8")).toBe("hunter2\n");
  });
});
