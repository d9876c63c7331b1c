// The process's second thread, for searches of many files. It does three jobs:
// - Stats, for a warm search. The search takes its files from the first, statting each itself, while the thread
//   stats them from the last; where they meet, the search goes on with the thread's stats. Neither ever waits.
// - Screens, for a cold search or files a warm one lacks, the same way: the thread reads files from the last and
//   tells which cannot match (they lack what every match holds, no line holds every literal a matching line holds,
//   or they are binary), and the search skips those it reaches. A file that may match, or that the thread could not
//   read, the search reads itself, so its answer and its errors are its own.
// - Trigram filters of the files a search kept or skipped, built between searches from the files on disk (the
//   contents stay on the main thread), each with the stat it was built under: the owner attaches one only to the
//   version it keeps, and names the bytes it has room for, past which the thread builds no more. Filter work pauses
//   while a search runs (from its walk's first listing to its last file: {@link secondThread.hold}), so it never
//   takes the core the search needs.
// One thread serves the whole process (a search runs to its end before the next starts); it is unref'd, never keeping
// a process alive, and started by the first search large enough to use it, which does not wait for it.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { BINARY_HEAD_BYTES } from "./files.ts";
import { gramBits, halveBits } from "./grams.ts";
import { lineHolding, type Screen, screening } from "./regex.ts";

/** Files a search must have before it uses the second thread: fewer are done sooner than they are handed over. */
export const AHEAD_MIN_FILES = 512;
/** The largest file the thread builds a filter of (larger ones a warm search scans). */
const FILTER_MAX_BYTES = 16 << 20;
/** The largest file the thread screens (larger ones the search reads itself, in pieces past its read buffer). */
const SCREEN_MAX_BYTES = 1 << 20;
/** Files whose filters are sent back together. */
const GRAM_SLICE_FILES = 256;

// Plain CommonJS, evaluated as the worker's script: nothing to bundle. Stat and screen jobs: control[0] counts files
// done from the end, control[1] is set by the search when it is over; stamps hold five numbers a file (NaN when the
// stat failed), verdicts 1 for a file that cannot match, 2 for one the search must read. busy[0] counts the searches
// and jobs under way. Filter jobs answer on results slice by slice, a file left out when it no longer matches the
// stamp it was asked for; a job ends early once its filters (each of a file asked for unstamped counted with perNew
// bytes more, the entry it takes) pass its budget.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { closeSync, constants, fstatSync, openSync, readSync, statSync } = require("node:fs");
const halveBits = (${halveBits.toString()});
const gramBits = (${gramBits.toString()});
const screening = (${screening.toString()});
const lineHolding = (${lineHolding.toString()});
const { busy, results } = workerData;
const paused = new Int32Array(busy);
const stampOf = (s) => [s.size, s.mtimeMs, s.ctimeMs, s.ino, s.dev];
const sameAs = (s, stamps, i) => stampOf(s).every((value, k) => value === stamps[i * 5 + k]);
const queue = [];
// The filters' read buffer keeps the size the largest file needed (at most ${FILTER_MAX_BYTES} bytes): one freed and
// taken again each job leaves the allocator holding far more than the buffer, growing the process for good.
let scratch = Buffer.allocUnsafe(${SCREEN_MAX_BYTES});
// The bits a filter is built in, grown the same way: only the halved filter is allocated anew, so the filters kept
// are not interleaved with the freed sets they were halved from.
let bits = new Uint32Array(1 << 15);
/**
 * The file's filter when it is still the version stamped, else undefined. A file stamped NaN (the search skipped it
 * unread) is stamped here, from its stat before the read, and filtered when it is not too large to screen and its
 * last change is older than racyMs: a second change within the same timestamp tick could not hide then.
 */
function filterOf(path, stamps, i, racyMs) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const before = fstatSync(fd);
    if (Number.isNaN(stamps[i * 5])) {
      if (!before.isFile() || before.size > ${FILTER_MAX_BYTES} || Date.now() - before.ctimeMs <= racyMs) return undefined;
      stamps.set(stampOf(before), i * 5);
    } else if (!sameAs(before, stamps, i)) return undefined;
    const size = stamps[i * 5];
    if (scratch.length < size) scratch = Buffer.allocUnsafe(size);
    let read = 0;
    for (let n; read < size && (n = readSync(fd, scratch, read, size - read, read)) > 0; ) read += n;
    // Changed while it was read: its change time moved on.
    if (read !== size || !sameAs(fstatSync(fd), stamps, i)) return undefined;
    while (bits.length * 32 < size && bits.length < 1 << 19) bits = new Uint32Array(bits.length * 2);
    return gramBits(scratch.subarray(0, size), bits);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
function work() {
  while (queue.length > 0) {
    if (Atomics.load(paused, 0) !== 0) return void setTimeout(work, 1);
    const job = queue[0];
    const found = [];
    for (const end = Math.min(job.next + ${GRAM_SLICE_FILES}, job.paths.length); job.next < end && job.budget > 0 && Atomics.load(paused, 0) === 0; job.next++) {
      const set = filterOf(job.paths[job.next], job.stamps, job.next, job.racyMs);
      if (!set) continue;
      found.push([job.next, set]);
      job.budget -= set.byteLength + (job.asked[job.next] ? 0 : job.perNew);
    }
    const last = job.next >= job.paths.length || job.budget <= 0;
    if (last) queue.shift();
    // The slice's filters in one buffer, moved: the owner copies what it keeps, so a kept filter pins no buffer of
    // this thread's, and each slice is one allocation, freed as a whole.
    const sizes = Int32Array.from(found, ([, set]) => set.length);
    const words = new Uint32Array(sizes.reduce((sum, size) => sum + size, 0));
    found.reduce((at, [, set]) => (words.set(set, at), at + set.length), 0);
    const indices = Int32Array.from(found, ([index]) => index);
    const stamps = Float64Array.from(found.flatMap(([index]) => Array.from(job.stamps.subarray(index * 5, index * 5 + 5))));
    results.postMessage({ id: job.id, last, indices, words, sizes, stamps }, [indices.buffer, words.buffer, sizes.buffer, stamps.buffer]);
  }
}
// Screens read files of up to ${SCREEN_MAX_BYTES} bytes, never growing this buffer: for a larger file the thread would
// touch more fresh memory (tens of milliseconds) than the search saves by its screen.
const whole = Buffer.allocUnsafe(${SCREEN_MAX_BYTES});
const BINARY = Buffer.alloc(0);
/**
 * A file's bytes, or undefined when it is too large to screen, or BINARY when its first read shows a NUL in its head
 * (the search takes nothing from it, so the rest is not read); never blocks on a FIFO put in a file's place.
 */
function readWhole(path) {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    // A read shorter than asked is the end of the file, as the search's own reads take it.
    const length = readSync(fd, whole, 0, whole.length, null);
    if (whole.subarray(0, Math.min(length, ${BINARY_HEAD_BYTES})).includes(0)) return BINARY;
    return length < whole.length ? whole.subarray(0, length) : undefined;
  } finally {
    closeSync(fd);
  }
}
/** Does job.each(path, i) from the last of its files to the first, publishing each, until the search is over. */
function fromTheEnd(job, each) {
  const paths = job.joined.split("\\0");
  const done = new Int32Array(job.control);
  for (let i = paths.length - 1; i >= 0 && Atomics.load(done, 1) === 0; i--) {
    each(paths[i], i);
    Atomics.store(done, 0, paths.length - i);
  }
}
parentPort.on("message", (job) => {
  if (job.kind === "grams") {
    queue.push({ ...job, paths: job.joined.split("\\0"), asked: Array.from({ length: job.stamps.length / 5 }, (_, i) => !Number.isNaN(job.stamps[i * 5])), next: 0 });
    if (queue.length === 1) setImmediate(work);
  } else if (job.kind === "screen") {
    const passes = screening(job.screen);
    const holding = job.screen.lines && lineHolding(job.screen.lines);
    const out = new Int8Array(job.verdicts);
    fromTheEnd(job, (path, i) => {
      try {
        const bytes = readWhole(path);
        out[i] = bytes === BINARY || (bytes && (!passes(bytes) || (holding && holding(bytes)(0) === -1))) ? 1 : 2;
      } catch {
        out[i] = 2;
      }
    });
  } else {
    const out = new Float64Array(job.stamps);
    fromTheEnd(job, (path, i) => {
      try {
        out.set(stampOf(statSync(path)), i * 5);
      } catch {
        out[i * 5] = NaN;
      }
    });
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

/** The stats of one search's files. */
export interface StatJob {
  /** The stat of `path` if the thread has taken it (and it succeeded); otherwise the search stats it itself. */
  stat(path: string): TakenStat | undefined;
  /** Tells the thread the search is over. */
  finish(): void;
}

/** The screens of one search's files. */
export interface ScreenJob {
  /** True when the thread has read `path` and found it cannot match; otherwise the search reads it itself. */
  ruledOut(path: string): boolean;
  /** Tells the thread the search is over. */
  finish(): void;
}

/**
 * What a filter job hands back, a slice at a time: the filter of each file (a view of the slice's one buffer: copy
 * what is kept), and the stamp of the version it was built from; `last` with the job's last slice.
 */
export type OnFilters = (filters: { index: number; filter: Uint32Array; stamp: TakenStat }[], last: boolean) => void;

/** The five numbers of a stamp, as the thread and the search pass them; NaN for a stat not taken or failed. */
const flatten = (stamp: TakenStat | undefined): number[] => (stamp ? [stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, stamp.dev] : [NaN, NaN, NaN, NaN, NaN]);
/** The stamp at `index` of five-number stamps, or undefined where there is none. */
function stampAt(floats: Float64Array, index: number): TakenStat | undefined {
  // Read in place: a copy of the five numbers per file was a tenth of a warm search's time.
  const at = index * 5;
  const size = floats[at] as number;
  return Number.isNaN(size) ? undefined : { size, mtimeMs: floats[at + 1] as number, ctimeMs: floats[at + 2] as number, ino: floats[at + 3] as number, dev: floats[at + 4] as number };
}

/** Hands one slice of filters to its owner. */
function deliver(message: unknown): void {
  const { id, last, indices, words, sizes, stamps } = message as { id: number; last: boolean; indices: Int32Array; words: Uint32Array; sizes: Int32Array; stamps: Float64Array };
  const owner = owners.get(id);
  if (last) owners.delete(id);
  let at = 0;
  // Each filter comes with the stamp it was built under, never NaN.
  const filters = Array.from(indices, (index, k) => {
    const filter = words.subarray(at, (at += sizes[k] as number));
    return { index, filter, stamp: stampAt(stamps, k) as TakenStat };
  });
  owner?.(filters, last);
}

let worker: Worker | undefined;
let ready = false;
let online = false;
let results: MessagePort | undefined;
const busy = new Int32Array(new SharedArrayBuffer(4));
const owners = new Map<number, OnFilters>();
let lastJob = 0;

function start(): void {
  const channel = new MessageChannel();
  try {
    worker = new Worker(WORKER, { eval: true, workerData: { busy: busy.buffer, results: channel.port2 }, transferList: [channel.port2] });
  } catch {
    return;
  }
  worker.unref();
  worker.once("online", () => {
    online = true;
  });
  results = channel.port1;
  // Filters are handed over as they come while the process is idle, so they wait in no queue; and at once when a
  // search starts (collect). The port never keeps the process alive.
  results.on("message", deliver);
  results.unref();
  // Jobs posted before the thread is up wait for it; the search never does, so it may take them at once.
  ready = true;
  // A thread that fails is not restarted: searches stat on their own and filter nothing, as before it started.
  const stop = (): void => {
    ready = false;
    owners.clear();
  };
  worker.once("error", stop);
  worker.once("exit", stop);
}

/**
 * Posts a job on `paths` done from the last, or returns undefined when the second thread is not (yet) there. `at`
 * tells which file a path is (the search asks in the order given, so the next one is found without a lookup) and
 * whether the thread has done it.
 */
function fromTheEnd(paths: string[], job: Record<string, unknown>) {
  if (paths.length < AHEAD_MIN_FILES) return undefined;
  if (!worker) start();
  if (!ready || !worker) return undefined;
  const control = new Int32Array(new SharedArrayBuffer(8));
  const release = secondThread.hold();
  // One string, not thousands: it crosses to the thread as one copy (a path holds no NUL).
  worker.postMessage({ ...job, joined: paths.join("\0"), control: control.buffer });
  let next = 0;
  return {
    /** The index of `path`, when the thread has done it (its results written before their count is published). */
    at(path: string): number | undefined {
      if (paths[next] !== path) next = paths.indexOf(path);
      if (next === -1) {
        next = 0;
        return undefined;
      }
      const index = next++;
      return index >= paths.length - Atomics.load(control, 0) ? index : undefined;
    },
    finish() {
      Atomics.store(control, 1, 1);
      release();
    },
  };
}

/** The process's second thread. */
export const secondThread = {
  /**
   * Pauses the thread's filter work until the returned function is called (once; later calls do nothing): a search
   * holds it from its first listing to its last file, so the filters never take the core the search needs.
   */
  hold(): () => void {
    Atomics.add(busy, 0, 1);
    let held = true;
    return () => {
      if (held) Atomics.sub(busy, 0, 1);
      held = false;
    };
  },
  /** Starts the thread ahead of the search that will use it (it takes tens of milliseconds); resolves once it is up. */
  prestart(): Promise<void> {
    if (!worker) start();
    return new Promise((resolve) => {
      if (online || !worker) return resolve();
      // A thread that fails to start exits: nothing waits on it for ever.
      worker.once("online", () => resolve());
      worker.once("exit", () => resolve());
    });
  },
  /** Whether the thread is there to take jobs. */
  running: (): boolean => ready && worker !== undefined,
  /** Starts statting `paths` from the last, or returns undefined when the second thread is not (yet) there. */
  statAhead(paths: string[]): StatJob | undefined {
    const stamps = new Float64Array(new SharedArrayBuffer(paths.length * 5 * 8));
    const job = fromTheEnd(paths, { kind: "stat", stamps: stamps.buffer });
    if (!job) return undefined;
    return {
      stat(path) {
        const index = job.at(path);
        return index === undefined ? undefined : stampAt(stamps, index);
      },
      finish: job.finish,
    };
  },
  /** Starts screening `paths` from the last, or returns undefined when the second thread is not (yet) there. */
  screenAhead(paths: string[], screen: Screen): ScreenJob | undefined {
    const verdicts = new Int8Array(new SharedArrayBuffer(paths.length));
    const job = fromTheEnd(paths, { kind: "screen", verdicts: verdicts.buffer, screen });
    if (!job) return undefined;
    return {
      ruledOut(path) {
        const index = job.at(path);
        return index !== undefined && verdicts[index] === 1;
      },
      finish: job.finish,
    };
  },
  /**
   * Asks for the filters of `paths`, each as of its stamp (undefined: as the file is now, if it last changed more than
   * `racyMs` before the read); they reach `onFilters` as they come (or from {@link collect}). The thread stops once
   * the filters' bytes, each of a file asked for unstamped counted with `room.perNew` more, pass `room.bytes`: what the
   * owner has room to keep. False when there is no second thread: the files stay unfiltered.
   */
  filter(paths: string[], stamps: (TakenStat | undefined)[], racyMs: number, room: { bytes: number; perNew: number }, onFilters: OnFilters): boolean {
    if (!ready || !worker || paths.length === 0) return false;
    const flat = Float64Array.from(stamps.flatMap(flatten));
    const id = ++lastJob;
    owners.set(id, onFilters);
    worker.postMessage({ kind: "grams", id, joined: paths.join("\0"), stamps: flat, racyMs, budget: room.bytes, perNew: room.perNew });
    return true;
  },
  /** Hands the filters built so far to their owners; synchronous, so a search takes them as it starts. */
  collect(): void {
    if (!results) return;
    for (let message = receiveMessageOnPort(results); message; message = receiveMessageOnPort(results)) deliver(message.message);
  },
};
