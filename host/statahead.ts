// The stats that vouch for a warm search's kept files, shared with a second thread: the search takes its files from
// the first, statting each itself, while the thread stats them from the last; where they meet, the search goes on
// with the thread's stats and only reads and scans. Neither ever waits for the other. One thread serves the whole
// process (a search runs to its end before the next starts, so their jobs never compete); it is unref'd, never
// keeping a process alive, and started by the first search large enough to use it, which does not wait for it.
import { Worker } from "node:worker_threads";

/** Files a search must have before it uses the second thread: fewer are statted sooner than they are handed over. */
export const STAT_AHEAD_MIN_FILES = 512;

// Plain CommonJS, evaluated as the worker's script: nothing to bundle. control[0]: files statted from the end;
// control[1]: set by the search when it is over; stamps: five numbers a file, NaN when the stat failed.
const WORKER = `
const { parentPort } = require("node:worker_threads");
const { statSync } = require("node:fs");
parentPort.on("message", ({ joined, control, stamps }) => {
  const paths = joined.split("\\0");
  const done = new Int32Array(control);
  const out = new Float64Array(stamps);
  for (let i = paths.length - 1; i >= 0 && Atomics.load(done, 1) === 0; i--) {
    try {
      const s = statSync(paths[i]);
      out[i * 5] = s.size; out[i * 5 + 1] = s.mtimeMs; out[i * 5 + 2] = s.ctimeMs; out[i * 5 + 3] = s.ino; out[i * 5 + 4] = s.dev;
    } catch {
      out[i * 5] = NaN;
    }
    Atomics.store(done, 0, paths.length - i);
  }
});
`;

/** One file's stat as the second thread took it: what identifies one version of a file on disk. */
export interface TakenStat {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

/** The stats of one search's files, in the order it reads them. */
export interface StatJob {
  /** The stat of file `index` if the thread has taken it (and it succeeded); otherwise the search stats it itself. */
  stat(index: number): TakenStat | undefined;
  /** Tells the thread the search is over. */
  finish(): void;
}

let worker: Worker | undefined;
let ready = false;

function start(): void {
  try {
    worker = new Worker(WORKER, { eval: true });
  } catch {
    return;
  }
  worker.unref();
  // Jobs posted before the thread is up wait for it; the search never does, so it may take them at once.
  ready = true;
  // A thread that fails is not restarted: searches stat on their own, as before it started.
  worker.once("error", () => {
    ready = false;
  });
  worker.once("exit", () => {
    ready = false;
  });
}

/** The process's second thread for the stats of warm searches. */
export const statAhead = {
  /** Starts statting `paths` from the last, or returns undefined when the second thread is not (yet) there. */
  begin(paths: string[]): StatJob | undefined {
    if (paths.length < STAT_AHEAD_MIN_FILES) return undefined;
    if (!worker) start();
    if (!ready || !worker) return undefined;
    const control = new Int32Array(new SharedArrayBuffer(8));
    const stamps = new Float64Array(new SharedArrayBuffer(paths.length * 5 * 8));
    // One string, not thousands: it crosses to the thread as one copy (a path holds no NUL).
    worker.postMessage({ joined: paths.join("\0"), control: control.buffer, stamps: stamps.buffer });
    return {
      stat(index) {
        // Written before its count is published: a stat counted is a stat complete.
        if (index < paths.length - Atomics.load(control, 0)) return undefined;
        const at = index * 5;
        const size = stamps[at] as number;
        if (Number.isNaN(size)) return undefined;
        return { size, mtimeMs: stamps[at + 1] as number, ctimeMs: stamps[at + 2] as number, ino: stamps[at + 3] as number, dev: stamps[at + 4] as number };
      },
      finish() {
        Atomics.store(control, 1, 1);
      },
    };
  },
};
