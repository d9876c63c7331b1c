#!/usr/bin/env node
// The CLI is one esbuild bundle, and V8's compile cache keeps its parse cost off every later start.
import module from "node:module";

module.enableCompileCache?.();
const { main } = await import("../dist/main.mjs");
process.exitCode = await main(process.argv.slice(2));
