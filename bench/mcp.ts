// Benchmark: gg mcp round trips through the SDK's own client over stdio, against the same work done in process.
// read_file of a small file (against createTools().call) and a trivial run_program (against runtime.run), medians of
// 200 each after 20 warm-ups. Goal: read_file <= 2 ms and run_program <= 8 ms over the in-process figures.
// Rerun: `node bench/mcp.ts`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createTools } from "../bindings/index.ts";
import { createRuntime } from "../runtime/index.ts";
import { median, timings } from "./measure.ts";

const RUNS = Number(process.env.GG_BENCH_RUNS ?? 200);
const timed = (fn: () => Promise<unknown>): Promise<number[]> => timings(fn, RUNS, 20);

const workspace = mkdtempSync(join(tmpdir(), "gg-bench-mcp-"));
writeFileSync(join(workspace, "small.txt"), "one\ntwo\nthree\n");
const transport = new StdioClientTransport({ command: process.execPath, args: [new URL("../bin/gg.js", import.meta.url).pathname, "mcp", "--workspace", workspace] });
const client = new Client({ name: "gg-bench", version: "0" });
const runtime = createRuntime({ workspace });
try {
  await client.connect(transport);
  const tools = createTools({ workspace });
  const rows = [
    ["read_file of a 14-byte file", await timed(() => client.callTool({ name: "read_file", arguments: { path: "small.txt" } })), await timed(() => tools.call("read_file", { path: "small.txt" })), 2],
    ["run_program `return 1`", await timed(() => client.callTool({ name: "run_program", arguments: { source: "return 1" } })), await timed(() => runtime.run("return 1")), 8],
  ] as const;
  console.log(`## gg mcp round trips (SDK client over stdio; medians of ${RUNS} after 20 warm-ups)\n`);
  console.log("| call | MCP ms | in process ms | over in process ms | goal |\n| --- | ---: | ---: | ---: | ---: |");
  for (const [name, mcp, local, goal] of rows) {
    console.log(`| ${name} | ${median(mcp).toFixed(2)} | ${median(local).toFixed(2)} | ${(median(mcp) - median(local)).toFixed(2)} | <= ${goal} |`);
  }
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}; node ${process.version}`);
  console.log("reproduce: node bench/mcp.ts (part of npm run bench)");
} finally {
  await client.close();
  runtime.close();
  rmSync(workspace, { recursive: true, force: true });
}
