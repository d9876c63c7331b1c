import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { cleanShellLogs, LOG_RETENTION, listShellLogs, retainShellLogs, SHELL_LOG_DIR } from "../../host/logs.ts";
import { createOutputSink, type OutputPolicy } from "../../host/output.ts";
import { tempWorkspace } from "../workspace.ts";

const DAY = 24 * 3600 * 1000;
const offload: OutputPolicy = { mode: "offload", maxLines: 10, maxChars: 1000 };

/** Writes one command's two log files into `dir`, `bytes` each, last written `age` ms ago. */
function plant(dir: string, base: string, age: number, bytes = 10): string[] {
  const paths = [join(dir, `${base}.stdout`), join(dir, `${base}.stderr`)];
  const when = (Date.now() - age) / 1000;
  for (const path of paths) {
    writeFileSync(path, "x".repeat(bytes));
    utimesSync(path, when, when);
  }
  return paths;
}

describe("shell log retention", () => {
  // In a process of its own: the first command of a process applies the retention (later ones within a minute do
  // not), and the test files before this one in the worker started commands.
  test("starting a command removes logs last written over a week ago, and leaves younger ones", () => {
    const tag = `h18ret${process.pid}`;
    const old = plant(SHELL_LOG_DIR, `cmd-${tag}old-0001`, 8 * DAY);
    const young = plant(SHELL_LOG_DIR, `cmd-${tag}young-0001`, 6 * DAY);
    try {
      const output = pathToFileURL(join(import.meta.dirname, "../../host/output.ts")).href;
      const command = `import { rmSync } from "node:fs"; import { createOutputSink } from ${JSON.stringify(output)};\nconst result = createOutputSink(${JSON.stringify(offload)}, ${JSON.stringify(tag)}).finish();\nfor (const file of Object.values(result.files ?? {})) rmSync(file);`;
      expect(spawnSync(process.execPath, ["--input-type=module", "-e", command], { encoding: "utf8" })).toMatchObject({ status: 0, stderr: "" });
      expect(old.filter(existsSync)).toEqual([]);
      expect(young.filter(existsSync)).toEqual(young);
    } finally {
      for (const path of [...old, ...young]) rmSync(path, { force: true });
    }
  });

  test("past the size bound the commands written longest ago go first, both files of each together", () => {
    using ws = tempWorkspace();
    const commands = [4, 3, 2, 1].map((hours, i) => plant(ws.root, `cmd-a-000${i + 1}`, hours * 3600 * 1000, 100));
    expect(retainShellLogs(ws.root, { maxAgeMs: LOG_RETENTION.maxAgeMs, maxBytes: 450 })).toEqual({ files: 4, bytes: 400 });
    expect(commands.map((paths) => paths.map(existsSync))).toEqual([[false, false], [false, false], [true, true], [true, true]]);
  });

  test("a log written in the last minute stays, whatever the bounds", () => {
    using ws = tempWorkspace();
    const fresh = plant(ws.root, "cmd-a-0001", 1000, 100);
    expect(retainShellLogs(ws.root, { maxAgeMs: 0, maxBytes: 0 })).toEqual({ files: 0, bytes: 0 });
    expect(fresh.filter(existsSync)).toEqual(fresh);
  });

  test("a running command's logs stay, though older than a week, in this process and in another", async () => {
    const sink = createOutputSink(offload, `h18run${process.pid}`);
    sink.write("stdout", Buffer.from("running\n"));
    using ws = tempWorkspace();
    const other = plant(ws.root, "cmd-other-0001", 8 * DAY);
    // Another process holds a log open, as a gg running a command does.
    const fd = openSync(other[0] as string, "a");
    const holder = spawn("sleep", ["30"], { stdio: ["ignore", "ignore", "ignore", fd] });
    closeSync(fd);
    try {
      const ours = listShellLogs().filter((log) => log.path.includes(`h18run${process.pid}`));
      expect(ours.map((log) => log.held)).toEqual([true, true]);
      const week = (Date.now() - 8 * DAY) / 1000;
      for (const log of ours) utimesSync(log.path, week, week);
      retainShellLogs();
      expect(ours.map((log) => existsSync(log.path))).toEqual([true, true]);
      utimesSync(other[0] as string, week, week);
      expect(retainShellLogs(ws.root)).toEqual({ files: 0, bytes: 0 });
      expect(other.filter(existsSync)).toEqual(other);
    } finally {
      holder.kill("SIGKILL");
      const result = sink.finish();
      for (const file of Object.values(result.files ?? {})) rmSync(file, { force: true });
    }
  });

  test("cleaning removes every log no running command holds, and says how many files and bytes went", () => {
    using ws = tempWorkspace();
    plant(ws.root, "cmd-a-0001", 1000, 5);
    plant(ws.root, "cmd-a-0002", 2 * DAY, 7);
    writeFileSync(join(ws.root, "notes.txt"), "not a log");
    const fd = openSync(join(ws.root, "cmd-b-0001.stdout"), "w");
    const holder = spawn("sleep", ["30"], { stdio: ["ignore", "ignore", "ignore", fd] });
    closeSync(fd);
    try {
      expect(listShellLogs(ws.root).map((log) => [log.path.slice(ws.root.length + 1), log.bytes, log.held])).toEqual([
        ["cmd-a-0002.stderr", 7, false],
        ["cmd-a-0002.stdout", 7, false],
        ["cmd-a-0001.stderr", 5, false],
        ["cmd-a-0001.stdout", 5, false],
        ["cmd-b-0001.stdout", 0, true],
      ]);
      expect(cleanShellLogs(ws.root)).toEqual({ files: 4, bytes: 24 });
      expect(listShellLogs(ws.root).map((log) => log.path.slice(ws.root.length + 1))).toEqual(["cmd-b-0001.stdout"]);
      expect(existsSync(join(ws.root, "notes.txt"))).toBe(true);
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
