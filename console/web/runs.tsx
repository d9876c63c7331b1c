// The Runs section's list: every transcript given, by folder, path and date, sortable and filterable; and the .jsonl
// files that are not runs, each with why. Everything a transcript holds is rendered as text.
import { useState } from "preact/hooks";
import { count, type RunList, type RunSummary, runPath, when } from "./api.ts";
import { Loaded, useApi } from "./load.tsx";
import { href } from "./router.ts";

/** The runs list's columns: what each sorts by. */
const COLUMNS: readonly { key: keyof RunSummary; label: string; numeric?: true }[] = [
  { key: "folder", label: "Folder" },
  { key: "id", label: "Run" },
  { key: "modified", label: "Date" },
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
  const shown = runs.filter((run) => words.every((word) => `${run.folder} ${run.id} ${run.model} ${run.arm} ${run.task} ${run.outcome}`.toLowerCase().includes(word)));
  if (runs.length === 0) return <p class="muted">No transcripts: start gg console with --runs DIR (a folder of gg agent --transcript files) or --study DIR.</p>;
  return (
    <>
      <input type="search" aria-label="Filter runs" placeholder="Filter: folder, model, arm, task, outcome…" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
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
              <td>{run.folder}</td>
              <td>
                <a href={href("runs", run.id)}>{runPath(run)}</a>
              </td>
              <td class="nowrap">{when(run.modified)}</td>
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

