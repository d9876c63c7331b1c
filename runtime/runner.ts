// The runner process: hosts the isolates, so a program that brings V8 down (a hard out-of-memory aborts the
// process) takes this process with it and never the embedding one. It runs what createRuntime sends, one at a
// time, and streams each call and log entry back as it happens so they survive a crash.
import { compileProgram } from "./compile.ts";
import { createEngine, type EngineOptions, type RunOptions } from "./engine.ts";
import type { RunReport } from "./sandbox.ts";

/** Messages from the embedding process. */
export type ToRunner = { type: "init"; options: EngineOptions } | { type: "run"; id: number; source: string; run: RunOptions };
/** Messages to the embedding process. */
export type FromRunner =
  | { type: "ready" }
  | { type: "call"; id: number; record: RunReport["calls"][number] }
  | { type: "log"; id: number; entry: RunReport["logs"][number] }
  | { type: "report"; id: number; report: RunReport };

const send = (message: FromRunner): void => {
  process.send?.(message);
};

let engine: ReturnType<typeof createEngine> | undefined;
let queue = Promise.resolve();

process.on("message", (message: ToRunner) => {
  if (message.type === "init") {
    engine = createEngine(message.options);
    // Start esbuild's service now rather than in the first program's time.
    compileProgram("0", "js");
    send({ type: "ready" });
    return;
  }
  const active = engine;
  if (!active) return;
  queue = queue.then(async () => {
    const report = await active.run(message.source, message.run, {
      onCall: (record) => send({ type: "call", id: message.id, record }),
      onLog: (entry) => send({ type: "log", id: message.id, entry }),
    });
    send({ type: "report", id: message.id, report });
  });
});
process.on("disconnect", () => process.exit(0));
