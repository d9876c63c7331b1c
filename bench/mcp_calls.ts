// Benchmark: other MCP servers' tools in programs. First, a call from a program to a local stdio server (an echo,
// bench/tools_server.ts's, that answers with the microsecond each call reached it) against the same call made by the
// SDK's Client over StdioClientTransport directly, to a second copy of the server: 1,000 calls each in one session, in
// alternating batches of 50, each call's round trip being the time between its arrival at the server and the next's
// (a program has no clock finer than a millisecond, so the server's clock times both callers alike). Goal: gg's
// median at most 1.2x the SDK's; beside it, the same call of a tool not marked read-only, which gg journals. Then the type-check of a 100-line program in a runtime whose gg global declares 500
// tools of a server (bench/tools_server.ts) against the same check in a runtime with no servers (usage.checkMs).
// Goal: under 2x.
// Rerun: `node bench/mcp_calls.ts`; GG_BENCH_BATCHES (default 20) batches of 50.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { defaultConfiguration } from "../bindings/config.ts";
import { renderDts } from "../runtime/docs.ts";
import { createRuntime, type Runtime } from "../runtime/index.ts";
import { checkedProgram, median } from "./measure.ts";

const BATCHES = Number(process.env.GG_BENCH_BATCHES ?? 20);
const BATCH = 50;
const TOOLS = 500;

const workspace = mkdtempSync(join(tmpdir(), "gg-bench-mcp-calls-"));
mkdirSync(join(workspace, "small"));
for (let i = 0; i < 10; i++) writeFileSync(join(workspace, "small", `f${i}.txt`), `file ${i}\n`);

/** Runs `source`, failing the bench if the program did. */
async function ran(runtime: Runtime, source: string, check = false) {
  const report = await runtime.run(source, { check });
  if (!report.ok) throw new Error(`bench program failed: ${report.error?.code}: ${report.error?.message}`);
  return report;
}

/** The value below which a share `q` of `values` lies. */
const quantile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.floor(q * values.length)] as number;

/** The intervals in ms between successive arrivals of `stamps` (microseconds): each call's whole round trip. */
const intervals = (stamps: number[]): number[] => stamps.slice(1).map((stamp, i) => (stamp - (stamps[i] as number)) / 1000);
const stampOf = (text: string): number => Number(text.split(" ")[1]);

/**
 * Each call's round trip, as the server's clock sees successive calls arrive: from a program (gg.mcp.echo.echo) and
 * from the SDK's client, in alternating batches; and the SDK's calls as timed by the caller, for comparison.
 */
async function callRound(): Promise<{ gg: number[]; note: number[]; sdk: number[]; timed: number[] }> {
  const server = { command: process.execPath, args: [join(import.meta.dirname, "tools_server.ts"), "echo"] };
  const runtime = createRuntime({ workspace, config: { mcpServers: { echo: server } } });
  const client = new Client({ name: "gg-bench", version: "0" });
  const programOf = (tool: string): string => `const stamps: number[] = [];\nfor (let i = 0; i <= ${BATCH}; i++) stamps.push(Number((await gg.mcp.echo.${tool}({ text: "hello" })).text.split(" ")[1]));\nreturn stamps;`;
  const [program, noted] = [programOf("echo"), programOf("note")];
  const sdkBatch = async (times: number[]): Promise<number[]> => {
    const stamps: number[] = [];
    for (let i = 0; i <= BATCH; i++) {
      const started = performance.now();
      const result = (await client.callTool({ name: "echo", arguments: { text: "hello" } })) as { content: { text: string }[] };
      times.push(performance.now() - started);
      stamps.push(stampOf(result.content[0]?.text ?? ""));
    }
    return stamps;
  };
  try {
    await client.connect(new StdioClientTransport(server));
    // Warm-ups: the server started and listed, the paths of both callers warm.
    for (let i = 0; i < 3; i++) {
      await ran(runtime, program);
      await ran(runtime, noted);
      await sdkBatch([]);
    }
    const gg: number[] = [];
    const note: number[] = [];
    const sdk: number[] = [];
    const timed: number[] = [];
    for (let b = 0; b < BATCHES; b++) {
      gg.push(...intervals((await ran(runtime, program)).result as number[]));
      sdk.push(...intervals(await sdkBatch(timed)));
      note.push(...intervals((await ran(runtime, noted)).result as number[]));
    }
    return { gg, note, sdk, timed };
  } finally {
    await client.close();
    runtime.close();
  }
}

/** Check times (usage.checkMs) of 21 varied programs in each case, taking turns so the machine's load falls on all alike: the first (which loads the compiler) and the rest. */
async function checkTimes(cases: [Runtime, (variant: number) => string][]): Promise<{ first: number; later: number[] }[]> {
  const times = cases.map(() => ({ first: 0, later: [] as number[] }));
  for (let i = 0; i < 21; i++) {
    for (const [n, [runtime, program]] of cases.entries()) {
      const ms = (await ran(runtime, program(i), true)).usage.checkMs ?? 0;
      if (i === 0) (times[n] as { first: number }).first = ms;
      else times[n]?.later.push(ms);
    }
  }
  return times;
}

/** The 100-line program with three calls of the generated tools in place of its first group of statements, and a return that uses them. */
const withTools = (variant: number): string => {
  const lines = checkedProgram(variant).split("\n");
  const calls = [
    `const { invoice } = await gg.mcp.api.get_invoice({ id: "invoice_${variant}" });`,
    "const open = (await gg.mcp.api.list_issue({ status: \"active\", limit: 50 })).items.filter((issue) => (issue.priority ?? 0) > 2);",
    "const made = await gg.mcp.api.create_project({ name: invoice.name, tags: open.map((issue) => issue.id) });",
  ];
  return [...lines.slice(0, 3), ...calls, ...lines.slice(6), "return listed.length + byPath.size + open.length + (made.project.tags ?? []).length;"].join("\n");
};

try {
  const calls = await callRound();
  const [ggMs, sdkMs] = [median(calls.gg), median(calls.sdk)];
  console.log(`## a call of a local stdio server's tool from a program, against the SDK's client (${calls.gg.length} calls each, ${BATCHES} alternating batches; goal: gg <= 1.2x)\n`);
  console.log("| caller | median ms per call | p90 ms | ratio of medians |\n| --- | ---: | ---: | ---: |");
  console.log(`| program, gg.mcp.echo.echo | ${ggMs.toFixed(3)} | ${quantile(calls.gg, 0.9).toFixed(3)} | ${(ggMs / sdkMs).toFixed(2)}x |`);
  console.log(`| program, gg.mcp.echo.note (not marked read-only: journaled) | ${median(calls.note).toFixed(3)} | ${quantile(calls.note, 0.9).toFixed(3)} | ${(median(calls.note) / sdkMs).toFixed(2)}x |`);
  console.log(`| SDK Client over StdioClientTransport | ${sdkMs.toFixed(3)} | ${quantile(calls.sdk, 0.9).toFixed(3)} | 1.00x |`);
  console.log(`\n(the server's clock between successive calls; the SDK's calls timed by their caller: median ${median(calls.timed).toFixed(3)} ms) goal ${ggMs / sdkMs <= 1.2 ? "met" : "not met"}\n`);

  const none = createRuntime({ workspace });
  const big = createRuntime({ workspace, config: { mcpServers: { api: { command: process.execPath, args: [join(import.meta.dirname, "tools_server.ts"), String(TOOLS)] } } } });
  try {
    const listed = (await big.catalog())?.tools.length ?? 0;
    if (listed !== TOOLS) throw new Error(`the tools server listed ${listed} tools, not ${TOOLS}`);
    const [noneTimes, bigTimes, toolsTimes] = await checkTimes([[none, checkedProgram], [big, checkedProgram], [big, withTools]]);
    const runs = { none: noneTimes as { first: number; later: number[] }, big: bigTimes as { first: number; later: number[] }, tools: toolsTimes as { first: number; later: number[] } };
    const sizes = [renderDts(defaultConfiguration()), renderDts(defaultConfiguration(), await big.catalog())].map((dts) => `${Math.round(dts.length / 1024)} KiB`);
    console.log(`## --check of a 100-line program with ${TOOLS} tools' declarations in the gg global, against none (21 checks each, taking turns; goal: later checks' median under 2x)\n`);
    console.log(`gg.d.ts: ${sizes[0]} without servers, ${sizes[1]} with the ${TOOLS} tools; the third row's runtime is the second's, so its first check finds the compiler loaded\n`);
    console.log("| runtime, program | first check ms (loads the compiler) | later checks median ms | p95 ms | ratio of medians |\n| --- | ---: | ---: | ---: | ---: |");
    for (const [name, run] of [["no servers, gg's calls only", runs.none], [`${TOOLS} tools, the same program`, runs.big], [`${TOOLS} tools, calling three of them`, runs.tools]] as const) {
      console.log(`| ${name} | ${run.first} | ${median(run.later)} | ${quantile(run.later, 0.95)} | ${(median(run.later) / median(runs.none.later)).toFixed(2)}x |`);
    }
    const worst = Math.max(median(runs.big.later), median(runs.tools.later)) / median(runs.none.later);
    console.log(`\ngoal: under 2x: ${worst.toFixed(2)}x at most, ${worst < 2 ? "met" : "not met"}`);
  } finally {
    none.close();
    big.close();
  }
  console.log(`\nmachine: ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}; node ${process.version}`);
  console.log("reproduce: node bench/mcp_calls.ts (part of npm run bench)");
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
