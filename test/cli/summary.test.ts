// What gg agent prints for a person, from a report: the closing summary's lines, the line per turn, the retry line.
import { describe, expect, test } from "vitest";
import type { AgentReport, Bands, TurnRecord } from "../../agent/loop.ts";
import { type Pricing, runCost } from "../../agent/pricing.ts";
import { retryLine, summaryText, turnLine } from "../../cli/summary.ts";

const estimate: Bands = { system: 500, tools: 0, messages: 20, toolResults: 30, views: 250 };
const turn = (usage?: TurnRecord["usage"]): TurnRecord => ({ turn: 1, estimate, ...(usage ? { usage } : {}), calls: 1, retries: [], elapsedMs: 10 });

/** A report with `turns`, adding them up as the loop does (the cost at `pricing`). */
function report(turns: TurnRecord[], rest: Partial<AgentReport> = {}, pricing?: Pricing): AgentReport {
  const reported = turns.filter((each) => each.usage);
  const cached = reported.reduce((sum, each) => sum + (each.usage?.cachedTokens ?? 0), 0);
  return {
    ok: true,
    answer: "done",
    turns,
    calls: [],
    visionEvents: [],
    wastedRequests: 0,
    totals: {
      estimate: { system: 500 * turns.length, tools: 0, messages: 20 * turns.length, toolResults: 30 * turns.length, views: 250 * turns.length },
      usage: { promptTokens: reported.reduce((sum, each) => sum + (each.usage?.promptTokens ?? 0), 0), completionTokens: reported.reduce((sum, each) => sum + (each.usage?.completionTokens ?? 0), 0), ...(cached > 0 ? { cachedTokens: cached } : {}) },
      turnsWithoutUsage: turns.length - reported.length,
      retries: 0,
      cost: runCost(pricing, turns.map((each) => each.usage)),
    },
    filesChanged: { created: [], modified: [], deleted: [] },
    ...rest,
  };
}

describe("the closing summary", () => {
  test("code arm: the programs, and the gg calls they made by name, failures and calls past the listed ones counted", () => {
    const program = (ok: boolean, calls: [string, boolean][], dropped = 0) => ({
      name: "run_program",
      args: { language: "ts", source: "" },
      ok,
      hash: "",
      calls: calls.map(([name, done]) => ({ name, args: "[]", ok: done, ms: 1, ...(name === "shell.shell" && done ? { sandbox: "workspace-write" as const } : {}) })),
      ...(dropped > 0 ? { callsDropped: dropped } : {}),
    });
    const pricing = { prompt: 0.0000025, completion: 0.00001, input_cache_read: 0.00000125 };
    const ran = report(
      [turn({ promptTokens: 1200, completionTokens: 80 }), turn({ promptTokens: 1300, completionTokens: 20, cachedTokens: 1024 })],
      { calls: [program(true, [["files.readFile", true], ["files.writeFile", true], ["shell.shell", true]]), program(false, [["files.readFile", false], ["shell.shell", false]], 3)] },
      pricing,
    );
    expect(summaryText(ran, { arm: "code", wallMs: 12_345, pricing })).toBe(
      [
        "run     2 turns in 12.3 s",
        "calls   2 programs (1 failed), 8 gg calls: files.readFile 2 (1 failed), files.writeFile 1, shell.shell 2 (1 failed, 1 in the sandbox), and 3 not listed",
        "files   none changed",
        "tokens  billed 2,600: 2,500 in (1,024 cached), 100 out; entered 1,600 in (gg's estimate)",
        // (2500 - 1024) × $2.50 + 1024 × $1.25 + 100 × $10 per million tokens.
        "cost    $0.006 at the catalog's prices",
        "",
      ].join("\n"),
    );
  });

  test("a long list of files is cut after five names; turns without usage are said, and left out of the cost", () => {
    const changed = { created: ["a", "b", "c", "d", "e", "f", "g"], modified: ["m"], deleted: [] };
    const pricing = { prompt: 0.000001, completion: 0.000001 };
    const text = summaryText(report([turn({ promptTokens: 1000, completionTokens: 10 }), turn()], { filesChanged: changed }, pricing), { arm: "tools", wallMs: 900, pricing });
    expect(text).toContain("files   7 created (a, b, c, d, e, and 2 more), 1 modified (m)\n");
    expect(text).toContain("tokens  billed 1,010: 1,000 in, 10 out, not reported for 1 turn; entered 1,600 in (gg's estimate)\n");
    expect(text).toContain("cost    $0.001 at the catalog's prices (1 turn without usage not counted)\n");
  });

  test("a run that ended before any answer: no turns, nothing billed, no cost", () => {
    const text = summaryText(report([], { ok: false, error: { code: "provider-error", message: "x" } }), { arm: "tools", wallMs: 7600, pricing: { prompt: 1, completion: 1 } });
    expect(text).toBe("run     0 turns in 7.6 s\ncalls   none\nfiles   none changed\ntokens  none billed\n");
  });

  test("a line per turn and per retry, in the singular where it is one", () => {
    expect(turnLine({ ...turn({ promptTokens: 100, completionTokens: 10, cachedTokens: 64 }), retries: [{ attempt: 1, status: 429, reason: "", waitMs: 0 }] }, "code", 1500)).toBe("[turn 1] 100 in (64 cached), 10 out (gg's estimate 800 in), 1 program, 1 retry, 1.5 s\n");
    expect(turnLine({ ...turn(), calls: 2 }, "tools", 0)).toBe("[turn 1] usage not reported (gg's estimate 800 in), 2 calls, 0.0 s\n");
    expect(retryLine({ attempt: 2, status: 503, reason: "503 overloaded", waitMs: 1000 }, 4)).toBe("retry 2/4 in 1.0 s: 503\n");
    expect(retryLine({ attempt: 1, reason: "could not connect to 127.0.0.1:9 (connection refused)", waitMs: 500 }, 4)).toBe("retry 1/4 in 0.5 s: could not connect to 127.0.0.1:9 (connection refused)\n");
  });
});
