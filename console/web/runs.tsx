// The Runs section: every transcript given, and a run's page: its tokens by band over turns (a stacked bar chart and
// the same figures as a table), its turns with their replies and calls, its views, vision events, files and answer.
// Everything a transcript holds is rendered as text; long lists are shown a page at a time.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import { useEffect, useRef, useState } from "preact/hooks";
import { count, type RunDetail, type RunList, type RunSummary, type RunTurn } from "./api.ts";
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

/** The runs list's columns: what each sorts by. */
const COLUMNS: readonly { key: keyof RunSummary; label: string; numeric?: true }[] = [
  { key: "id", label: "Run" },
  { key: "model", label: "Model" },
  { key: "arm", label: "Arm" },
  { key: "task", label: "Task" },
  { key: "turns", label: "Turns", numeric: true },
  { key: "entered", label: "Entered (est. tokens)", numeric: true },
  { key: "billed", label: "Billed (tokens)", numeric: true },
  { key: "outcome", label: "Outcome" },
];

/** `runs` ordered by a column; a figure that is not known sorts last either way. */
function sorted(runs: RunSummary[], sort: { key: keyof RunSummary; descending: boolean }): RunSummary[] {
  const value = (run: RunSummary): string | number | undefined => (run[sort.key] === null ? undefined : (run[sort.key] as string | number | undefined));
  return [...runs].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return sort.descending ? -order : order;
  });
}

export function RunsPage() {
  const state = useApi<RunList>("/api/runs");
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<{ key: keyof RunSummary; descending: boolean }>({ key: "id", descending: false });
  return (
    <>
      <h1>Runs</h1>
      <Loaded state={state}>
        {(list) => (
          <>
            <RunTable runs={list.runs} filter={filter} setFilter={setFilter} sort={sort} setSort={setSort} />
            <Skipped list={list} />
          </>
        )}
      </Loaded>
    </>
  );
}

/** The .jsonl files that are not runs, each with why, and why the walk stopped early when it did. */
function Skipped(props: { list: RunList }) {
  const { skipped, stopped } = props.list;
  if (skipped.length === 0 && stopped === undefined) return null;
  return (
    <section aria-labelledby="skipped">
      <h2 id="skipped">Skipped</h2>
      {stopped !== undefined && <p class="bad">{stopped}</p>}
      <ul>
        {skipped.map((file) => (
          <li key={file.id}>
            <code>{file.file}</code>
            {`: ${file.reason}`}
          </li>
        ))}
      </ul>
    </section>
  );
}

type Sort = { key: keyof RunSummary; descending: boolean };

/** The runs as a table, filtered and sorted. */
function RunTable(props: { runs: RunSummary[]; filter: string; setFilter: (filter: string) => void; sort: Sort; setSort: (sort: Sort) => void }) {
  const { runs, filter, setFilter, sort, setSort } = props;
  const words = filter.toLowerCase().split(/\s+/).filter((word) => word !== "");
  const shown = runs.filter((run) => words.every((word) => `${run.id} ${run.model} ${run.arm} ${run.task} ${run.outcome}`.toLowerCase().includes(word)));
  if (runs.length === 0) return <p class="muted">No transcripts: start gg console with --runs DIR (a folder of gg agent --transcript files) or --study DIR.</p>;
  return (
    <>
      <input type="search" aria-label="Filter runs" placeholder="Filter: model, arm, task, outcome…" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
      <table>
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <th key={column.key} class={column.numeric ? "num" : undefined} aria-sort={sort.key === column.key ? (sort.descending ? "descending" : "ascending") : undefined}>
                <button type="button" class="sort" onClick={() => setSort({ key: column.key, descending: sort.key === column.key ? !sort.descending : column.numeric === true })}>
                  {column.label}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted(shown, sort).map((run) => (
            <tr key={run.id}>
              <td>
                <a href={href("runs", run.id)}>{run.id.slice(run.id.indexOf("/") + 1)}</a>
              </td>
              <td>{run.model}</td>
              <td>{run.arm}</td>
              <td class="truncate" title={run.task}>
                {run.task}
              </td>
              <td class="num">{run.turns}</td>
              <td class="num">{count(run.entered)}</td>
              <td class="num">{count(run.billed)}</td>
              <td class={run.outcome === "answered" ? "ok" : "bad"}>{run.outcome}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">{`${shown.length} of ${runs.length} runs.`}</p>
    </>
  );
}

export function RunPage(props: { id: string }) {
  const state = useApi<RunDetail>(`/api/run?id=${encodeURIComponent(props.id)}`);
  return (
    <>
      <p>
        <a href={href("runs")}>Runs</a>
      </p>
      <Loaded state={state}>{(run) => <Run run={run} />}</Loaded>
    </>
  );
}

function Run(props: { run: RunDetail }) {
  const { run } = props;
  return (
    <>
      <h1>{run.id.slice(run.id.indexOf("/") + 1)}</h1>
      <dl class="specs">
        <dt>File</dt>
        <dd>{run.file}</dd>
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
        <dt>Outcome</dt>
        <dd class={run.outcome === "answered" ? "ok" : "bad"}>{run.outcome}</dd>
        <dt>Turns</dt>
        <dd>{run.turns}</dd>
        <dt>Tokens</dt>
        <dd>{`${count(run.entered)} entered (gg's estimate), ${count(run.billed)} billed (the provider's count)`}</dd>
      </dl>
      <h2>Tokens by band over turns</h2>
      <TokenChart turns={run.turnsList} />
      <TurnFigures turns={run.turnsList} />
      <h2>Turns</h2>
      <Turns run={run} />
      <RunEvents run={run} />
    </>
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
              <td class="num">{turn.retries}</td>
              <td class="num">{count(turn.elapsedMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

const json = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

/** What a call's arguments are, as text: a program's source as it was written, others as JSON. */
function argumentsText(call: RunDetail["calls"][number]): string {
  const args = call.args as { source?: unknown } | undefined;
  if (call.name === "run_program" && typeof args?.source === "string") return args.source;
  return json(call.args);
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
        {call.approval !== undefined && <span class="tag">{`approval: ${json(call.approval)}`}</span>}
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
