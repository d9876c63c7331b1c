// The page's side of the console's JSON API: each call is a same-origin request the token cookie travels with.
export type { ConfigurationCheck, ConfigurationState, ModelEntry, VisionKnowledge } from "../api.ts";
export type { RunDetail, RunSummary, RunTurn } from "../runs.ts";
export type { StudyReport } from "../../study/report.ts";

/** GETs `path` from the API, as JSON; throws with the server's sentence when it refuses. */
export async function get<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: "same-origin" });
  const body = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

/** POSTs `value` as JSON to `path`; the status and the answer. */
export async function post<T>(path: string, value: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(value) });
  return { status: response.status, body: (await response.json()) as T };
}

/** A whole number as people read it: 12,345. */
export const count = (value: number | null | undefined): string => (value === null || value === undefined ? "–" : Math.round(value).toLocaleString("en-US"));

/** USD per token as dollars per million tokens. */
export const perMillion = (usd: number | undefined): string => (usd === undefined ? "–" : `$${Number((usd * 1_000_000).toPrecision(6))}`);

/** USD, or "unknown". */
export const dollars = (usd: number | null): string => (usd === null ? "unknown" : usd >= 1 ? `$${usd.toFixed(2)}` : `$${Number(usd.toPrecision(2))}`);
