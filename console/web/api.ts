// The page's side of the console's JSON API: each call is a same-origin request carrying the token in a header. The
// token comes from the URL gg console printed and is kept in this tab's sessionStorage, which only this origin (this
// port) reads and which a reload keeps; no cookie holds it, so no other server on 127.0.0.1 is ever sent it.
export type { ConfigurationCheck, ConfigurationState, ModelEntry, RunList, RunView, VisionKnowledge } from "../api.ts";
export type { TrialView } from "../trial.ts";
export type { RunDetail, RunSummary, RunTurn, SkippedFile } from "../runs.ts";
export type { StudyReport } from "../../study/report.ts";

const TOKEN_KEY = "gg-console-token";

/** Takes the token out of the address bar into the tab's sessionStorage (a reload then finds it there). */
export function keepToken(): void {
  const token = new URLSearchParams(location.search).get("token");
  if (token === null) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", `/${location.hash}`);
}

/** The headers every API request carries: the token, when the tab has one. */
function headers(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token === null ? {} : { "x-gg-token": token };
}

/** An answer's body as JSON, or, for a refusal in plain text (the server's guard words those), that text as its error. */
async function bodyOf<T>(response: Response): Promise<T & { error?: string }> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T & { error?: string };
  } catch {
    return { error: text.trim() || `HTTP ${response.status}` } as T & { error?: string };
  }
}

/** GETs `path` from the API, as JSON; throws with the server's sentence when it refuses. */
export async function get<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: "omit", headers: headers() });
  const body = await bodyOf<T>(response);
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

/** POSTs `value` as JSON to `path`; the status and the answer. */
export async function post<T>(path: string, value: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(path, { method: "POST", credentials: "omit", headers: { ...headers(), "content-type": "application/json" }, body: JSON.stringify(value) });
  return { status: response.status, body: await bodyOf<T>(response) };
}

/** A whole number as people read it: 12,345. */
export const count = (value: number | null | undefined): string => (value === null || value === undefined ? "–" : Math.round(value).toLocaleString("en-US"));

/** USD per token as dollars per million tokens. */
export const perMillion = (usd: number | undefined): string => (usd === undefined ? "–" : `$${Number((usd * 1_000_000).toPrecision(6))}`);

/** USD, or "unknown". */
export const dollars = (usd: number | null): string => (usd === null ? "unknown" : usd >= 1 ? `$${usd.toFixed(2)}` : `$${Number(usd.toPrecision(2))}`);

/** A run's path under its folder (its id without the folder's index). */
export const runPath = (run: { id: string }): string => run.id.slice(run.id.indexOf("/") + 1);

/** An ISO time as a person reads it here: "2026-12-01 21:10" (UTC, as the transcripts and studies record times). */
export const when = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
