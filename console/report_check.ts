// Whether a transcript's end line holds a run's report, as far as the console reads one: a file edited by hand, cut,
// or written by something else is listed as skipped with the first thing wrong, instead of failing the whole list.
import { Type } from "typebox";
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";

const Bands = Type.Object({ system: Type.Number(), tools: Type.Number(), messages: Type.Number(), toolResults: Type.Number(), views: Type.Number() });
const Usage = Type.Object({ promptTokens: Type.Number(), completionTokens: Type.Number() });
const Retry = Type.Object({ attempt: Type.Number(), reason: Type.String() });

/** The parts of an AgentReport the console reads, with the types it reads them as. */
const Report = Type.Object({
  ok: Type.Boolean(),
  answer: Type.Optional(Type.String()),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  turns: Type.Array(Type.Object({ turn: Type.Number(), estimate: Bands, usage: Type.Optional(Usage), calls: Type.Number(), retries: Type.Array(Retry), elapsedMs: Type.Number() })),
  calls: Type.Array(Type.Object({ name: Type.String(), ok: Type.Boolean(), hash: Type.String() })),
  visionEvents: Type.Optional(Type.Array(Type.Object({ turn: Type.Number(), message: Type.String() }))),
  totals: Type.Optional(Type.Object({ estimate: Bands, usage: Usage, turnsWithoutUsage: Type.Number(), retries: Type.Number() })),
  filesChanged: Type.Optional(Type.Object({ created: Type.Array(Type.String()), modified: Type.Array(Type.String()), deleted: Type.Array(Type.String()) })),
});

/** The compiled check, made on first use: a 5,000-turn report is checked in milliseconds, not the interpreter's seconds. */
let compiled: { Check(value: unknown): boolean } | undefined;

/** Why `report` is not a run's report (the first problem, with where it is), or undefined when it is one. */
export function reportProblem(report: unknown): string | undefined {
  compiled ??= Compile(Report);
  if (compiled.Check(report)) return undefined;
  if (typeof report !== "object" || report === null || Array.isArray(report)) return `its end line's report is ${report === null ? "null" : Array.isArray(report) ? "a list" : typeof report}, not a run's report`;
  const [first] = Value.Errors(Report, report);
  return `its end line's report is not a run's report: report${(first?.instancePath ?? "").replaceAll("/", ".")} ${first?.message ?? "does not fit"}`;
}
