#!/usr/bin/env node
// gg needs Node 24 (isolated-vm 7). Started by an older Node (a machine's Node 20 or 22), it runs itself again under
// the Node 24 that gg-runtime depends on (npm's `node` package, which npm ci, npm i and npx install beside it); on
// Node 24 it runs as it is. Written for any Node that runs ES modules, since the old one must get as far as the
// hand-over.
import module from "node:module";
import { fileURLToPath } from "node:url";

const REQUIRED_MAJOR = 24;

/** Set in the environment of the Node handed over to, so one that is old too says so rather than hand over again. */
const HANDED_OVER = "GG_HANDED_OVER_FROM_NODE";

if (Number(process.versions.node.split(".")[0]) < REQUIRED_MAJOR) {
  const from = process.env[HANDED_OVER];
  process.exitCode = from === undefined ? await handOver() : cannotStart(`the Node that Node ${from} handed over to (${process.execPath}) is older too`);
} else {
  delete process.env[HANDED_OVER];
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
    return cannotStart("the Node 24 it depends on (npm's node package) is not installed");
  }
  const { spawn } = await import("node:child_process");
  const env = { ...process.env, [HANDED_OVER]: process.versions.node };
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit", env });
  // A signal sent to this process alone (kill, a supervisor) reaches gg too; Ctrl-C reaches both already.
  const relay = (signal) => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, relay);
  return new Promise((resolve) => {
    child.on("error", (error) => resolve(cannotStart(`the Node 24 at ${pinned} does not start (${error.message})`)));
    child.on("exit", (code, signal) => {
      if (signal === null) return resolve(code ?? 1);
      // Die of the same signal, so whoever started gg sees what ended it.
      process.off(signal, relay);
      process.kill(process.pid, signal);
    });
  });
}

/**
 * Says in one line why gg cannot start on this Node and what runs it: in a checkout, npm ci (which installs the pinned
 * Node); in an installed package, the same command under npx with Node 24 beside it. Returns the exit status, 2.
 */
function cannotStart(why) {
  const command = ["gg", ...process.argv.slice(2)].map(quoted).join(" ");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const remedy = /[\\/]node_modules[\\/]/.test(root)
    ? `run it as: npx -y -p node@${REQUIRED_MAJOR} -p gg-runtime ${command}`
    : `run npm ci in ${root}, or use Node ${REQUIRED_MAJOR}`;
  process.stderr.write(`gg: cannot start: gg needs Node ${REQUIRED_MAJOR} or later, this is Node ${process.versions.node}, and ${why}; ${remedy}\n`);
  return 2;
}

/** An argument as a POSIX shell reads it back: bare when that is safe, single-quoted otherwise. */
function quoted(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
