// A run's page: its tokens by band over turns (a stacked bar chart and the same figures as a table), its turns with
// their replies, calls and retries, its views, vision events, files and answer; for a study trial its verdict, check
// and diff. Everything a transcript holds is rendered as text; long lists are shown a page at a time.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import { useEffect, useRef, useState } from "preact/hooks";
import { count, dollars, type RunDetail, type RunTurn, type RunView, runPath, type TrialView, when } from "./api.ts";
import { escapeUnshowable } from "../../host/shown.ts";
import { Loaded, useApi } from "./load.tsx";
import { href } from "./router.ts";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** The bands of gg's estimate, in the order they stack, with their colours. */
const BANDS = [
  { key: "system", label: "system", color: "#4c78a8" },
  { key: "tools", label: "tools", color: "#72b7b2" },
  { key: "messages", label: "messages", color: "#f58518" },
  { key: "toolResults", label: "tool results", color: "#e45756" },
  { key: "views", label: "views", color: "#54a24b" },
] as const;

const PAGE = 100;

export function RunPage(props: { id: string }) {
  const state = useApi<RunView>(`/api/run?id=${encodeURIComponent(props.id)}`);
  return (
    <>
      <p>
        <a href={href("runs")}>Runs</a>
      </p>
      <Loaded state={state}>{(run) => <Run run={run} />}</Loaded>
    </>
  );
}

function Run(props: { run: RunView }) {
  const { run } = props;
  return (
    <>
      <h1>{runPath(run)}</h1>
      <dl class="specs">
        <dt>Folder</dt>
        <dd>{run.folder}</dd>
        <dt>File</dt>
        <dd>{`${run.file}, written ${when(run.modified)} UTC`}</dd>
        <dt>Model</dt>
        <dd>
          <a href={href("models", run.model)}>{run.model}</a>
        </dd>
        <dt>Arm</dt>
        <dd>{run.arm}</dd>
        {run.agent !== undefined && (
          <>
            <dt>Agent</dt>
            <dd>{run.agent}</dd>
          </>
        )}
        <dt>Task</dt>
        <dd>
          <pre>{run.task}</pre>
        </dd>
        {run.trial !== undefined && (
          <>
            <dt>Verdict</dt>
            <dd class={run.trial.verdict === "pass" ? "ok" : "bad"} data-testid="verdict">
              {verdictText(run.trial)}
            </dd>
          </>
        )}
        <dt>{run.trial === undefined ? "Outcome" : "Agent's outcome"}</dt>
        <dd class={run.outcome !== "answered" ? "bad" : run.trial === undefined || run.trial.verdict === "pass" ? "ok" : undefined}>{run.outcome}</dd>
        <dt>Turns</dt>
        <dd>{run.turns}</dd>
        <dt>Tokens</dt>
        <dd>{`${count(run.entered)} entered (gg's estimate), ${count(run.billed)} billed (the provider's count)`}</dd>
        <dt>Cost</dt>
        <dd data-testid="cost">{run.cost === null ? (run.billed === null ? "unknown: the provider reported no usage" : "unknown: the catalog has no prices for this model") : `${dollars(run.cost)} at the catalog's prices`}</dd>
      </dl>
      {run.trial !== undefined && <Trial trial={run.trial} />}
      <h2>Tokens by band over turns</h2>
      {run.turnsList.length === 0 ? (
        <p class="muted">No turns: the run ended before its first answer.</p>
      ) : (
        <>
          <TokenChart turns={run.turnsList} />
          <TurnFigures turns={run.turnsList} />
        </>
      )}
      <Retries turns={run.turnsList} />
      <h2>Turns</h2>
      <Turns run={run} />
      <RunEvents run={run} />
    </>
  );
}

/** A trial's verdict in words: pass, fail with the check's exit, or why there is none. */
function verdictText(trial: TrialView): string {
  if (trial.verdict === "pass") return trial.check ? `pass: the check exited 0` : "pass: the agent answered (the case has no check)";
  if (trial.verdict === "fail") return trial.check ? `fail: the check exited ${trial.check.exitCode}` : `fail: ${trial.error?.message ?? "the agent gave no answer"}`;
  return `no verdict (${trial.error?.code ?? "error"}): ${trial.error?.message ?? ""}`;
}

/** The study trial a run recorded: its study, the check's output and the diff it left. */
function Trial(props: { trial: TrialView }) {
  const { trial } = props;
  return (
    <section aria-labelledby="trial">
      <h2 id="trial">Study trial</h2>
      <p>
        {`Trial ${trial.key} of the study in `}
        <a href={href("studies", trial.study)}>{trial.study}</a>
        {trial.cost === null ? "" : `, ${dollars(trial.cost)}`}
      </p>
      {trial.check !== null && (
        <>
          <h3>{`Check: exit ${trial.check.exitCode} in ${count(trial.check.ms)} ms`}</h3>
          {trial.check.output === "" ? <p class="muted">The check printed nothing.</p> : <pre aria-label="check output">{trial.check.output}</pre>}
        </>
      )}
      <h3>Diff</h3>
      {trial.diff === undefined ? <p class="muted">No diff recorded for this trial.</p> : trial.diff === "" ? <p class="muted">The trial changed nothing.</p> : <pre aria-label="diff">{trial.diff}</pre>}
      {trial.diffCut === true && <p class="muted">The diff is longer: its start is shown; the whole is in the study's diffs/ folder.</p>}
    </section>
  );
}

/** Each request sent again, with why. */
function Retries(props: { turns: RunTurn[] }) {
  const retried = props.turns.flatMap((turn) => turn.retries.map((retry) => ({ turn: turn.turn, retry })));
  if (retried.length === 0) return null;
  return (
    <section aria-labelledby="retries">
      <h2 id="retries">Retries</h2>
      <ul>
        {retried.map(({ turn, retry }) => (
          <li key={`${turn}-${retry.attempt}`}>{`Turn ${turn}, retry ${retry.attempt}: ${retry.status === undefined ? "" : `HTTP ${retry.status}, `}${retry.reason} (waited ${(retry.waitMs / 1000).toFixed(1)} s)`}</li>
        ))}
      </ul>
    </section>
  );
}

/** What a run left besides its turns: the views, the refused pictures, the files changed, its answer. */
function RunEvents(props: { run: RunDetail }) {
  const { run } = props;
  return (
    <>
      <h2>Views</h2>
      {run.views.length === 0 ? (
        <p class="muted">No views in the last request.</p>
      ) : (
        run.views.map((parts, index) => (
          <div key={index}>
            <h3>{`Views message ${index + 1}`}</h3>
            {parts.map((part, at) => (
              <pre key={at}>{part}</pre>
            ))}
          </div>
        ))
      )}
      <h2>Vision events</h2>
      {run.visionEvents.length === 0 ? (
        <p class="muted">No picture was refused.</p>
      ) : (
        <ul>
          {run.visionEvents.map((event, index) => (
            <li key={index}>{`Turn ${event.turn}: ${event.model} refused a picture (HTTP ${event.status}): ${event.message}`}</li>
          ))}
        </ul>
      )}
      <h2>Files changed</h2>
      {run.filesChanged === null ? (
        <p class="muted">Not recorded (the run has no end line).</p>
      ) : (
        <ul>
          {(["created", "modified", "deleted"] as const).map((kind) => (
            <li key={kind}>{`${kind}: ${run.filesChanged?.[kind].length ? run.filesChanged[kind].join(", ") : "none"}`}</li>
          ))}
        </ul>
      )}
      <h2>Answer</h2>
      {run.answer !== null ? <pre>{run.answer}</pre> : <p class="bad">{run.error ? `${run.error.code}: ${run.error.message}` : "No answer recorded."}</p>}
    </>
  );
}

/** The stacked bars: one per turn, a segment per band. */
function TokenChart(props: { turns: RunTurn[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: {
        labels: props.turns.map((turn) => String(turn.turn)),
        datasets: BANDS.map((band) => ({ label: band.label, data: props.turns.map((turn) => turn.estimate[band.key]), backgroundColor: band.color, borderWidth: 0 })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        normalized: true,
        scales: { x: { stacked: true, title: { display: true, text: "turn" } }, y: { stacked: true, title: { display: true, text: "tokens (gg's estimate)" } } },
        plugins: { legend: { position: "bottom" } },
      },
    });
    return () => chart.destroy();
  }, [props.turns]);
  const total = props.turns.reduce((sum, turn) => sum + bandSum(turn), 0);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={`Stacked bar chart of gg's token estimate by band for ${props.turns.length} turns, ${count(total)} tokens in all; the table below gives every figure`} />
    </div>
  );
}

const bandSum = (turn: RunTurn): number => BANDS.reduce((sum, band) => sum + turn.estimate[band.key], 0);

/** Page buttons over `total` items; returns the first index shown. */
function usePager(total: number, size: number): { from: number; pager: preact.JSX.Element | null } {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(total / size));
  const current = Math.min(page, pages - 1);
  const from = current * size;
  if (pages === 1) return { from, pager: null };
  return {
    from,
    pager: (
      <div class="pager">
        <button type="button" disabled={current === 0} onClick={() => setPage(0)}>
          First
        </button>
        <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Previous
        </button>
        <span>{`${from + 1}–${Math.min(total, from + size)} of ${total}`}</span>
        <button type="button" disabled={current === pages - 1} onClick={() => setPage(current + 1)}>
          Next
        </button>
        <button type="button" disabled={current === pages - 1} onClick={() => setPage(pages - 1)}>
          Last
        </button>
      </div>
    ),
  };
}

/** The chart's figures as a table, a page of turns at a time. */
function TurnFigures(props: { turns: RunTurn[] }) {
  const { from, pager } = usePager(props.turns.length, PAGE);
  return (
    <>
      {pager}
      <table aria-label="Tokens by band per turn">
        <thead>
          <tr>
            <th class="num">Turn</th>
            {BANDS.map((band) => (
              <th key={band.key} class="num">
                {band.label}
              </th>
            ))}
            <th class="num">total</th>
            <th class="num">prompt (billed)</th>
            <th class="num">completion (billed)</th>
            <th class="num">cached</th>
            <th class="num">calls</th>
            <th class="num">retries</th>
            <th class="num">ms</th>
          </tr>
        </thead>
        <tbody>
          {props.turns.slice(from, from + PAGE).map((turn) => (
            <tr key={turn.turn}>
              <td class="num">{turn.turn}</td>
              {BANDS.map((band) => (
                <td key={band.key} class="num">
                  {count(turn.estimate[band.key])}
                </td>
              ))}
              <td class="num">{count(bandSum(turn))}</td>
              <td class="num">{count(turn.usage?.promptTokens)}</td>
              <td class="num">{count(turn.usage?.completionTokens)}</td>
              <td class="num">{count(turn.usage?.cachedTokens)}</td>
              <td class="num">{turn.calls}</td>
              <td class="num">{turn.retries.length}</td>
              <td class="num">{count(turn.elapsedMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** A value as text, every character that reorders or hides text (U+202E) escaped: an agent wrote it. */
const json = (value: unknown): string => escapeUnshowable(typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? ""), "\n\t");

/** Who decided a call's approval, as words. */
const DECIDERS: Record<string, string> = { default: "by default", hook: "by the approval hook", person: "by a person", client: "by the MCP client" };

/**
 * A call's approval in words: "allowed by default", "denied by rule 2: no pushes (for git push)", "allowed by a person
 * after 3.2 s (for rm -rf x)", escaped as {@link json} is.
 */
function approvalText(approval: NonNullable<RunDetail["calls"][number]["approval"]>): string {
  const by = DECIDERS[approval.by] ?? `by ${approval.by}`;
  const waited = approval.waitedMs === undefined ? "" : ` after ${(approval.waitedMs / 1000).toFixed(1)} s`;
  return escapeUnshowable(`${approval.verdict === "allow" ? "allowed" : "denied"} ${by}${waited}${approval.reason ? `: ${approval.reason}` : ""}${approval.part === undefined ? "" : ` (for ${approval.part})`}`);
}

/** What a call's arguments are, as text: a program's source as it was written, others as JSON. */
function argumentsText(call: RunDetail["calls"][number]): string {
  const args = call.args as { source?: unknown } | undefined;
  return json(call.name === "run_program" && typeof args?.source === "string" ? args.source : call.args);
}

/** Turns with their replies and calls, a page at a time. */
function Turns(props: { run: RunDetail }) {
  const { run } = props;
  const byTurn = new Map<number, RunDetail["calls"]>();
  for (const call of run.calls) byTurn.set(call.turn, [...(byTurn.get(call.turn) ?? []), call]);
  const numbers = [...new Set([...(byTurn.has(0) ? [0] : []), ...run.turnsList.map((turn) => turn.turn)])];
  const replies = new Map(run.turnsList.map((turn) => [turn.turn, turn.reply]));
  const size = 25;
  const { from, pager } = usePager(numbers.length, size);
  return (
    <>
      {pager}
      {numbers.slice(from, from + size).map((number) => (
        <div class="turn" key={number}>
          <h3>{number === 0 ? "Before the first turn" : `Turn ${number}`}</h3>
          {replies.get(number) !== undefined && replies.get(number) !== "" && <pre aria-label={`reply of turn ${number}`}>{replies.get(number)}</pre>}
          {(byTurn.get(number) ?? []).map((call, index) => (
            <CallView key={index} call={call} />
          ))}
        </div>
      ))}
      {pager}
    </>
  );
}

function CallView(props: { call: RunDetail["calls"][number] }) {
  const { call } = props;
  return (
    <div>
      <div>
        <code>{call.name}</code> <span class={call.ok ? "ok" : "bad"}>{call.ok ? "ok" : `failed (${call.code ?? "?"})`}</span>
        {call.approval !== undefined && <span class="tag">{approvalText(call.approval)}</span>}
        {call.sandbox !== undefined && <span class="tag">{`ran in the sandbox (${call.sandbox})`}</span>}
      </div>
      <pre>{argumentsText(call)}</pre>
      {call.result !== undefined && (
        <details>
          <summary>{call.name === "run_program" ? "Report (what the model was told)" : "Result (what the model was told)"}</summary>
          <pre>{call.result}</pre>
        </details>
      )}
      {call.calls !== undefined && call.calls.length > 0 && (
        <details>
          <summary>{`${call.calls.length} gg call${call.calls.length === 1 ? "" : "s"} in the program${call.callsDropped ? `, and ${call.callsDropped} more` : ""}`}</summary>
          <ol>
            {call.calls.map((inner, index) => (
              <li key={index}>
                <code>{String((inner as { name?: unknown }).name)}</code> {json(inner)}
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
