// The library in an embedding process: its runner and the commands a program started end when the embedder exits,
// however it exits, and the library takes over none of the embedder's signals.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createTools } from "../../bindings/index.ts";
import { createRuntime } from "../../runtime/index.ts";
import { survivors, uniqueSleep, within } from "../processes.ts";
import { tempWorkspace } from "../workspace.ts";

const library = join(import.meta.dirname, "../../index.ts");

/** An embedding process running a program whose command sleeps `marker`, then doing `then` once the command runs. */
function embedder(workspace: string, marker: string, then: string) {
  const script = `
    import { createRuntime } from ${JSON.stringify(library)};
    const runtime = createRuntime({ workspace: ${JSON.stringify(workspace)} });
    void runtime.run(${JSON.stringify(`await gg.shell.shell("sleep ${marker}")`)}, { budget: 600 });
    process.stdin.once("data", () => { ${then} });
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["pipe", "ignore", "inherit"] });
}

const SIGNAL_LISTENERS = (): number[] => (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((name) => process.listenerCount(name));

describe("an embedding process", () => {
  test.for([
    ["exits (process.exit)", "process.exit(3)", 3],
    ["is ended by SIGTERM, with no handler of its own", "process.kill(process.pid, 'SIGTERM')", "SIGTERM"],
    ["turns SIGINT into an exit", "process.on('SIGINT', () => process.exit(130)); process.kill(process.pid, 'SIGINT')", 130],
  ] as const)("that %s takes its runner's commands along", async ([, then, status]) => {
    using ws = tempWorkspace();
    const marker = uniqueSleep();
    const child = embedder(ws.root, marker, then);
    try {
      const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
      expect(await within(180, () => survivors(marker).length >= 2)).toBe(true);
      child.stdin.write("go\n");
      expect(await exited).toBe(status);
      expect(await within(100, () => survivors(marker).length === 0), `left running: ${survivors(marker).join("; ")}`).toBe(true);
    } finally {
      // A failure leaves nothing running.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      for (const line of survivors(marker)) process.kill(Number(line.split(" ")[0]), "SIGKILL");
    }
  });

  test("keeps its own signal handling: createRuntime and createTools install no signal listener", async () => {
    using ws = tempWorkspace();
    const before = SIGNAL_LISTENERS();
    const runtime = createRuntime({ workspace: ws.root });
    try {
      expect(await runtime.run("return (await gg.shell.shell('echo hi')).output")).toMatchObject({ ok: true, result: "hi\n" });
      expect(await createTools({ workspace: ws.root }).call("shell", { command: "true" })).toMatchObject({ ok: true });
      expect(SIGNAL_LISTENERS()).toEqual(before);
    } finally {
      runtime.close();
    }
  });
});
