import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { deepOr } from "../deep.ts";
import { uniqueSleep } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

const INDEX = fileURLToPath(new URL("../../bindings/index.ts", import.meta.url));

/** A child process writing `size` bytes of b, then of a, alternately through write_file, printing "." per write. */
function spawnWriter(root: string, size: number) {
  const script = `
    import { createTools } from ${JSON.stringify(INDEX)};
    const tools = createTools({ workspace: ${JSON.stringify(root)} });
    const contents = ["b".repeat(${size}), "a".repeat(${size})];
    for (let i = 0; ; i++) {
      const result = await tools.call("write_file", { path: "big.txt", content: contents[i % 2] });
      if (!result.ok) { console.error(JSON.stringify(result.error)); process.exit(3); }
      process.stdout.write(".");
    }
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs one call in a child process, so a call that never returns fails the test at `timeout` ms instead of hanging it. */
function callInChild(root: string, name: string, args: unknown, timeout: number) {
  const script = `
    import { createTools } from ${JSON.stringify(INDEX)};
    const result = await createTools({ workspace: ${JSON.stringify(root)} }).call(${JSON.stringify(name)}, ${JSON.stringify(args)});
    process.stdout.write(JSON.stringify(result));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout, killSignal: "SIGKILL" });
  if (child.signal) throw new Error(`${name} did not return within ${timeout} ms`);
  return JSON.parse(child.stdout) as { ok: boolean; error?: { code: string; message: string } };
}

describe("write_file", () => {
  test("creates a file and its missing parent directories", async () => {
    using ws = tempWorkspace();
    await ws.text("write_file", { path: "a/b/c/new.txt", content: "hello\n" });
    expect(statSync(join(ws.root, "a/b/c")).isDirectory()).toBe(true);
    expect(readFileSync(join(ws.root, "a/b/c/new.txt"), "utf8")).toBe("hello\n");
  });

  test("overwrites an existing file whole", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "a much longer original content that must not leave a tail\n" });
    await ws.text("write_file", { path: "f.txt", content: "short\n" });
    expect(readFileSync(join(ws.root, "f.txt"), "utf8")).toBe("short\n");
  });

  test("writes the content as UTF-8 exactly, line endings and BOM included", async () => {
    using ws = tempWorkspace();
    const content = "\uFEFFcrlf\r\nlf\nnö newline ✓";
    await ws.text("write_file", { path: "exact.txt", content });
    expect(readFileSync(join(ws.root, "exact.txt"))).toEqual(Buffer.from(content, "utf8"));
  });

  test("writes an empty file", async () => {
    using ws = tempWorkspace();
    ws.put({ "f.txt": "something\n" });
    await ws.text("write_file", { path: "f.txt", content: "" });
    expect(readFileSync(join(ws.root, "f.txt"))).toEqual(Buffer.alloc(0));
  });

  test("an absolute path writes that file", async () => {
    using ws = tempWorkspace();
    const path = join(ws.root, "abs.txt");
    await ws.text("write_file", { path, content: "absolute\n" });
    expect(readFileSync(path, "utf8")).toBe("absolute\n");
  });

  test(".. in a path is resolved by the file system", async () => {
    using ws = tempWorkspace();
    ws.put({ "sub/": "" });
    await ws.text("write_file", { path: "sub/../up.txt", content: "up\n" });
    expect(readFileSync(join(ws.root, "up.txt"), "utf8")).toBe("up\n");
  });

  test("keeps the mode of the file it replaces", async () => {
    using ws = tempWorkspace();
    ws.put({ "run.sh": "#!/bin/sh\necho old\n", "secret.txt": "old\n" });
    chmodSync(join(ws.root, "run.sh"), 0o755);
    chmodSync(join(ws.root, "secret.txt"), 0o600);
    await ws.text("write_file", { path: "run.sh", content: "#!/bin/sh\necho new\n" });
    await ws.text("write_file", { path: "secret.txt", content: "new\n" });
    expect(statSync(join(ws.root, "run.sh")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(ws.root, "secret.txt")).mode & 0o7777).toBe(0o600);
    expect(readFileSync(join(ws.root, "run.sh"), "utf8")).toBe("#!/bin/sh\necho new\n");
  });

  test("a file with another hard link is rewritten in place, so both names see the new content", async () => {
    using ws = tempWorkspace();
    ws.put({ "a.txt": "a much longer original content that must not leave a tail\n" });
    linkSync(join(ws.root, "a.txt"), join(ws.root, "b.txt"));
    const inode = statSync(join(ws.root, "a.txt")).ino;
    expect(await ws.text("write_file", { path: "a.txt", content: "new\n" })).toMatch(/^Overwrote a\.txt /);
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("new\n");
    expect(readFileSync(join(ws.root, "b.txt"), "utf8")).toBe("new\n");
    expect(statSync(join(ws.root, "b.txt"))).toMatchObject({ ino: inode, nlink: 2 });
    expect(readdirSync(ws.root).sort()).toEqual(["a.txt", "b.txt"]);
  });

  test.skipIf(process.getuid?.() !== 0)("keeps the owner and group of the file it replaces (as root)", async () => {
    using ws = tempWorkspace();
    ws.put({ "owned.sh": "old\n" });
    const path = join(ws.root, "owned.sh");
    chownSync(path, 1234, 1235);
    // A chown clears set-user-ID, so this also checks the mode is set after the owner.
    chmodSync(path, 0o4755);
    await ws.text("write_file", { path: "owned.sh", content: "new\n" });
    expect(statSync(path)).toMatchObject({ uid: 1234, gid: 1235 });
    expect(statSync(path).mode & 0o7777).toBe(0o4755);
    expect(readFileSync(path, "utf8")).toBe("new\n");
  });

  test("writing through a symlink writes its target and keeps the link", async () => {
    using ws = tempWorkspace();
    ws.put({ "real/target.txt": "old\n" });
    symlinkSync("real/target.txt", join(ws.root, "link.txt"));
    await ws.text("write_file", { path: "link.txt", content: "new\n" });
    expect(lstatSync(join(ws.root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ws.root, "link.txt"))).toBe("real/target.txt");
    expect(readFileSync(join(ws.root, "real/target.txt"), "utf8")).toBe("new\n");
  });

  test("writing through a dangling symlink creates its target and keeps the link", async () => {
    using ws = tempWorkspace();
    ws.put({ "real/": "" });
    symlinkSync("real/later.txt", join(ws.root, "link.txt"));
    await ws.text("write_file", { path: "link.txt", content: "made\n" });
    expect(lstatSync(join(ws.root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(ws.root, "real/later.txt"), "utf8")).toBe("made\n");
  });

  test.skipIf(!existsSync("/proc/version"))("a parent /proc will not make fails promptly with a typed error", () => {
    using ws = tempWorkspace();
    const result = callInChild(ws.root, "write_file", { path: "/proc/nonexist/x", content: "x" }, 120_000);
    expect(result).toMatchObject({ ok: false, error: { code: "permission-denied" } });
    expect(result.error?.message).toMatch(/^Cannot create the parent directory of \/proc\/nonexist\/x: \/proc accepts no new directories/);
  });

  test("a parent that is a file is not-found naming the file in the way", async () => {
    using ws = tempWorkspace();
    ws.put({ "plain.txt": "x\n" });
    const result = await ws.call("write_file", { path: "plain.txt/sub/new.txt", content: "x" });
    expect(result).toMatchObject({ ok: false, error: { code: "not-found", message: expect.stringContaining("is a file, not a directory") } });
  });

  test("a path ending in / is invalid-argument saying it names a directory, and nothing is created", async () => {
    using ws = tempWorkspace();
    ws.put({ "dir/": "" });
    for (const path of ["newdir/", "dir/", "newdir/."]) {
      const result = await ws.call("write_file", { path, content: "x" });
      expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringMatching(/the path names a directory \(it ends with \/\.?\)/) } });
    }
    expect(readdirSync(ws.root)).toEqual(["dir"]);
    expect(readdirSync(join(ws.root, "dir"))).toEqual([]);
  });

  test.skipIf(!existsSync("/proc/version"))("a file in /proc is refused with the reason, not as missing", async () => {
    using ws = tempWorkspace();
    const result = await ws.call("write_file", { path: "/proc/version", content: "x" });
    expect(result).toMatchObject({ ok: false, error: { code: "permission-denied" } });
    if (result.ok) return;
    expect(result.error.message).toMatch(/^Cannot write \/proc\/version: \/proc accepts no new files/);
    expect(result.error.message).not.toMatch(/no such file/);
  });

  test("a directory path is invalid-argument and the directory is left alone", async () => {
    using ws = tempWorkspace();
    ws.put({ "dir/inside.txt": "kept\n" });
    expect(await ws.call("write_file", { path: "dir", content: "x" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(statSync(join(ws.root, "dir")).isDirectory()).toBe(true);
    expect(readFileSync(join(ws.root, "dir/inside.txt"), "utf8")).toBe("kept\n");
  });

  test("an empty path is invalid-argument", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("write_file", { path: "", content: "x" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
  });

  test("a missing content or an unknown parameter is invalid-argument", async () => {
    using ws = tempWorkspace();
    expect(await ws.call("write_file", { path: "f.txt" })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(await ws.call("write_file", { path: "f.txt", content: "x", append: true })).toMatchObject({ ok: false, error: { code: "invalid-argument" } });
    expect(readdirSync(ws.root)).toEqual([]);
  });

  test("leaves no temporary files behind after writing", async () => {
    using ws = tempWorkspace();
    ws.put({ "dir/existing.txt": "old\n" });
    await ws.text("write_file", { path: "dir/existing.txt", content: "new\n" });
    await ws.text("write_file", { path: "dir/fresh.txt", content: "fresh\n" });
    expect(readdirSync(join(ws.root, "dir")).sort()).toEqual(["existing.txt", "fresh.txt"]);
  });

  test("a name of up to 255 bytes is written, created and overwritten, leaving no temporary file", async () => {
    using ws = tempWorkspace();
    const names = ["n".repeat(250), "n".repeat(255), "✓".repeat(85)];
    expect(names.map((name) => Buffer.byteLength(name))).toEqual([250, 255, 255]);
    for (const name of names) {
      await ws.text("write_file", { path: `long/${name}`, content: "first\n" });
      await ws.text("write_file", { path: `long/${name}`, content: "second\n" });
      expect(readFileSync(join(ws.root, "long", name), "utf8")).toBe("second\n");
    }
    expect(readdirSync(join(ws.root, "long")).sort()).toEqual([...names].sort());
  });

  test("a process killed mid-write leaves the old content or the new, never a torn file", async () => {
    using ws = tempWorkspace();
    const size = 4 * 1024 * 1024;
    const contentA = "a".repeat(size);
    const contentB = "b".repeat(size);
    const target = join(ws.root, "big.txt");
    writeFileSync(target, contentA);

    for (let round = 0; round < deepOr(8, 3); round++) {
      const child = spawnWriter(ws.root, size);
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
      // Wait for the first complete write so the kill lands while the child is in its write loop.
      await new Promise<void>((resolve, reject) => {
        child.stdout.once("data", () => resolve());
        child.once("exit", () => reject(new Error(`child exited before writing: ${stderr}`)));
      });
      await sleep(1 + Math.floor(Math.random() * 40));
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");

      const after = readFileSync(target, "latin1");
      expect(after.length).toBe(size);
      expect(after === contentA || after === contentB).toBe(true);
    }
  });

  test("a lone surrogate in content is invalid-argument naming its line and column, and nothing is written", async () => {
    using ws = tempWorkspace();
    ws.put({ "kept.txt": "before\n" });
    const fresh = await ws.call("write_file", { path: "new.txt", content: "a\ud800b" });
    expect(fresh).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringMatching(/^Cannot write new\.txt: content holds a lone surrogate U\+D800 at line 1, column 2 \(character 2\)/) } });
    const replaced = await ws.call("write_file", { path: "kept.txt", content: "one\ntwo \udfff\n" });
    expect(replaced).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining("U+DFFF at line 2, column 5 (character 9)") } });
    expect(readdirSync(ws.root)).toEqual(["kept.txt"]);
    expect(readFileSync(join(ws.root, "kept.txt"), "utf8")).toBe("before\n");
    // A pair is one character, written as its four UTF-8 bytes.
    await ws.text("write_file", { path: "pair.txt", content: "\ud83d\ude00" });
    expect(readFileSync(join(ws.root, "pair.txt"))).toEqual(Buffer.from([0xf0, 0x9f, 0x98, 0x80]));
  });

  test("a FIFO, directly or through a symlink, is refused as not a regular file and stays a FIFO", async () => {
    using ws = tempWorkspace();
    const fifo = join(ws.root, "pipe");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    symlinkSync("pipe", join(ws.root, "link"));
    for (const path of ["pipe", "link"]) {
      const result = await ws.call("write_file", { path, content: "x" });
      expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining("it is a FIFO (named pipe), not a regular file") } });
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(ws.root).sort()).toEqual(["link", "pipe"]);
  });

  test("a Unix socket is refused as not a regular file and stays a socket", async () => {
    using ws = tempWorkspace();
    const path = join(ws.root, "s.sock");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const result = await ws.call("write_file", { path: "s.sock", content: "x" });
      expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument", message: expect.stringContaining("it is a socket, not a regular file") } });
      expect(lstatSync(path).isSocket()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("/dev/null is refused as a character device and stays one", async () => {
    using ws = tempWorkspace();
    const result = await ws.call("write_file", { path: "/dev/null", content: "x" });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid-argument", message: "Cannot write /dev/null: it is a character device, not a regular file, and write_file replaces only regular files; write to it from the shell, or pick another path" } });
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
  });

  test("a write removes temp files beside it left by dead gg writers, and nothing else", async () => {
    using ws = tempWorkspace();
    const dead = spawnSync("true").pid as number;
    const sleeper = spawn("sleep", [uniqueSleep()], { stdio: "ignore" });
    try {
      const temp = (pid: number, tail = "0123456789ab") => `.a.txt.gg-${pid}-${tail}.tmp`;
      const kept = [temp(process.pid), temp(sleeper.pid as number), temp(dead, "xyz"), `a.txt.gg-${dead}-0123456789ab.tmp`, "notes.tmp"];
      mkdirSync(join(ws.root, "sub"));
      for (const name of [...kept, temp(dead), temp(dead, "ba9876543210")]) writeFileSync(join(ws.root, name), "partial");
      writeFileSync(join(ws.root, "sub", temp(dead)), "partial");
      // Left two minutes ago; one of a dead pid changed just now is another namespace's writer, still writing.
      const old = new Date(Date.now() - 120_000);
      for (const name of readdirSync(ws.root)) utimesSync(join(ws.root, name), old, old);
      utimesSync(join(ws.root, "sub", temp(dead)), old, old);
      writeFileSync(join(ws.root, temp(dead, "fedcba987654")), "partial");
      await ws.text("write_file", { path: "a.txt", content: "whole\n" });
      expect(readdirSync(ws.root).sort()).toEqual([...kept, temp(dead, "fedcba987654"), "a.txt", "sub"].sort());
      expect(readdirSync(join(ws.root, "sub"))).toEqual([temp(dead)]);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  test("a temp file left by a writer killed mid-write is removed by the next write beside it; the target stays whole", async () => {
    using ws = tempWorkspace();
    const size = 16 * 1024 * 1024;
    const target = join(ws.root, "big.txt");
    writeFileSync(target, "a".repeat(size));
    const stale = () => readdirSync(ws.root).filter((name) => /^\.big\.txt\.gg-\d+-[0-9a-z]+\.tmp$/.test(name));
    // The kill is sent the moment the writer's temp file is seen, so it lands mid-write unless the rename beat it.
    for (let round = 0; round < 20 && stale().length === 0; round++) {
      const child = spawnWriter(ws.root, size);
      const exited = new Promise<unknown>((resolve) => child.on("exit", resolve));
      let running = true;
      void exited.then(() => (running = false));
      const giveUp = Date.now() + 20_000;
      while (running && stale().length === 0 && Date.now() < giveUp) await sleep(1);
      child.kill("SIGKILL");
      await exited;
    }
    expect(stale()).toHaveLength(1);
    // A minute unchanged makes it stale: the writer's pid alone could be another namespace's.
    const old = new Date(Date.now() - 120_000);
    for (const name of stale()) utimesSync(join(ws.root, name), old, old);
    await ws.text("write_file", { path: "note.txt", content: "next\n" });
    expect(stale()).toEqual([]);
    expect(readdirSync(ws.root).sort()).toEqual(["big.txt", "note.txt"]);
    const after = readFileSync(target, "latin1");
    expect(after === "a".repeat(size) || after === "b".repeat(size)).toBe(true);
  });

  test("a reader racing the writes only ever sees one whole content", async () => {
    using ws = tempWorkspace();
    const size = 4 * 1024 * 1024;
    const contentA = "a".repeat(size);
    const contentB = "b".repeat(size);
    const target = join(ws.root, "big.txt");
    writeFileSync(target, contentA);

    const child = spawnWriter(ws.root, size);
    let writes = 0;
    child.stdout.on("data", (chunk: Buffer) => (writes += chunk.length));
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    // The race starts once the writer is writing: its start-up is slow on a loaded machine.
    const started = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    try {
      await Promise.race([started, exited]);
      // At least 1.5 s and two whole writes, however slowly the writer goes (the test's timeout bounds the wait).
      const deadline = Date.now() + 1500;
      while (Date.now() < deadline || writes < 2) {
        const now = readFileSync(target, "latin1");
        expect(now === contentA || now === contentB).toBe(true);
        await sleep(1);
      }
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });
});
