#!/usr/bin/env node
// gg needs Node 24 (isolated-vm 7). Started by an older Node (a machine's Node 20 running a linked gg), it runs
// itself again under the Node 24 the project pins (the `node` package npm ci installs); on Node 24 it runs as it is.
// Written for any Node that runs ES modules, since the old one must get as far as the hand-over.
import module from "node:module";

const REQUIRED_MAJOR = 24;

if (Number(process.versions.node.split(".")[0]) < REQUIRED_MAJOR) {
  process.exitCode = await handOver();
} else {
  // The CLI is one esbuild bundle, and V8's compile cache keeps its parse cost off every later start.
  module.enableCompileCache?.();
  // A search shares its work with a second thread, which takes about as long to start as the rest of gg takes to
  // load: a command that may search starts it first, from the small module that holds it.
  const args = process.argv.slice(2);
  const searching = args.includes("call") && args[args.indexOf("call") + 1] === "search";
  if (searching) void (await import("../dist/second.mjs")).secondThread.prestart();
  const { main } = await import("../dist/main.mjs");
  process.exitCode = await main(args);
  // A search leaves nothing running: it ends once what it wrote is flushed, rather than wait for background
  // compilation it no longer needs (about 10 ms after a large one). Other commands may still be stopping processes.
  if (searching) process.stdout.write("", () => process.stderr.write("", () => process.exit()));
}

/** Runs this script under the pinned Node, relaying signals and its exit; resolves to the exit status to end with. */
async function handOver() {
  let pinned;
  try {
    pinned = module.createRequire(import.meta.url).resolve("node/bin/node");
  } catch {
    process.stderr.write(
      `gg: cannot start: gg needs Node ${REQUIRED_MAJOR} or later, this is Node ${process.versions.node}, and the pinned Node is not installed; run npm ci in gg's folder, or use Node ${REQUIRED_MAJOR}\n`,
    );
    return 2;
  }
  const { spawn } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  // A signal sent to this process alone (kill, a supervisor) reaches gg too; Ctrl-C reaches both already.
  const relay = (signal) => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, relay);
  return new Promise((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(`gg: cannot start the pinned Node at ${pinned}: ${error.message}; run npm ci in gg's folder\n`);
      resolve(2);
    });
    child.on("exit", (code, signal) => {
      if (signal === null) return resolve(code ?? 1);
      // Die of the same signal, so whoever started gg sees what ended it.
      process.off(signal, relay);
      process.kill(process.pid, signal);
    });
  });
}
