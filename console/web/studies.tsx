// The Studies section: each study's grid of cases × agents (passes, tokens, cost) and its pairs of agents that differ
// in one thing, side by side; the same report gg study report --json prints. The folders of one study (its shards) are
// one study here.
import { count, dollars, type StudyReport } from "./api.ts";
import { Loaded, useApi } from "./load.tsx";
import { href } from "./router.ts";

interface StudyAnswer {
  /** The study's folders, as one line. */
  dir: string;
  dirs: string[];
  /** The study's identity, or null when its folder records none. */
  study: string | null;
  report: StudyReport | null;
  problem?: string;
  runs: Record<string, string>;
}

const ratio = (value: number | null): string => (value === null ? "–" : `×${value.toFixed(2)}`);

/** Every study given, or with `dir` (a --study folder, as a trial's page links it) the study that folder holds. */
export function StudiesPage(props: { dir?: string }) {
  const state = useApi<StudyAnswer[]>("/api/studies");
  return (
    <>
      <h1>Studies</h1>
      <Loaded state={state}>{(studies) => (props.dir === undefined ? <AllStudies studies={studies} /> : <OneStudy studies={studies} dir={props.dir} />)}</Loaded>
    </>
  );
}

function AllStudies(props: { studies: StudyAnswer[] }) {
  if (props.studies.length === 0) return <p class="muted">No studies: start gg console with --study DIR (a folder gg study run wrote).</p>;
  return <>{props.studies.map((study) => <Study key={study.dir} study={study} />)}</>;
}

/** The study holding the folder `dir`, with the way to the others; or why there is none. */
function OneStudy(props: { studies: StudyAnswer[]; dir: string }) {
  const study = props.studies.find((each) => each.dirs.includes(props.dir));
  return (
    <>
      <p class={study ? "muted" : "bad"}>
        {study ? `The study in ${props.dir}. ` : `No study given to gg console is in ${props.dir}. `}
        <a href={href("studies")}>All studies</a>
      </p>
      {study && <Study study={study} />}
    </>
  );
}

function Study(props: { study: StudyAnswer }) {
  const { study } = props;
  if (!study.report) return <p class="bad">{study.problem}</p>;
  const { cells, pairs } = study.report;
  const cases = [...new Set(cells.map((cell) => cell.case))];
  const agents = [...new Set(cells.map((cell) => cell.agent))];
  return (
    <section>
      <h2>{study.dir}</h2>
      {study.study && <p class="muted">{`study ${study.study}${study.dirs.length > 1 ? `, ${study.dirs.length} folders taken together` : ""}`}</p>}
      <table aria-label={`cases by agents of ${study.dir}`}>
        <thead>
          <tr>
            <th>Case</th>
            {agents.map((agent) => {
              const first = cells.find((cell) => cell.agent === agent);
              return <th key={agent}>{`${agent} (${first?.model ?? "?"}, ${first?.arm ?? "?"})`}</th>;
            })}
          </tr>
        </thead>
        <tbody>
          {cases.map((name) => (
            <tr key={name}>
              <td>{name}</td>
              {agents.map((agent) => {
                const cell = cells.find((candidate) => candidate.case === name && candidate.agent === agent);
                if (!cell) return <td key={agent}>–</td>;
                return (
                  <td key={agent}>
                    <div class={cell.judged > 0 && cell.passes === cell.judged ? "ok" : cell.passes === 0 ? "bad" : ""}>{`pass ${cell.passes}/${cell.judged}${cell.errors > 0 ? `, ${cell.errors} error${cell.errors === 1 ? "" : "s"}` : ""}`}</div>
                    <div>{`${count(cell.billed)} tokens billed, ${count(cell.entered)} entered`}</div>
                    <div>{`cost ${dollars(cell.cost)}, ${cell.turns === null ? "–" : cell.turns.toFixed(1)} turns`}</div>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">Means per judged trial: tokens billed by the provider, entered by gg's estimate; cost at the catalog's prices.</p>
      <Pairs pairs={pairs} dir={study.dir} />
      <Trials study={study} />
    </section>
  );
}

/** The pairs of agents that differ in one thing, side by side. */
function Pairs(props: { pairs: StudyReport["pairs"]; dir: string }) {
  const { pairs, dir: studyDir } = props;
  return (
    <>
      <h3>Pairs: agents of one model that differ in one thing</h3>
      {pairs.length === 0 ? (
        <p class="muted">No two agents of one model differ in exactly one thing.</p>
      ) : (
        <table aria-label={`pairs of ${studyDir}`}>
          <thead>
            <tr>
              <th>Case</th>
              <th>Model</th>
              <th>First</th>
              <th>Second</th>
              <th>Differ in</th>
              <th class="num">Billed, first over second</th>
              <th class="num">Cost, first over second</th>
              <th class="num">Both pass</th>
              <th class="num">First only</th>
              <th class="num">Second only</th>
              <th class="num">Neither</th>
            </tr>
          </thead>
          <tbody>
            {pairs.map((pair) => (
              <tr key={`${pair.case}/${pair.first}/${pair.second}`}>
                <td>{pair.case}</td>
                <td>{pair.model}</td>
                <td>{pair.first}</td>
                <td>{pair.second}</td>
                <td>{pair.differ}</td>
                <td class="num">{ratio(pair.billedRatio)}</td>
                <td class="num">{ratio(pair.costRatio)}</td>
                <td class="num">{pair.bothPass}</td>
                <td class="num">{pair.firstOnly}</td>
                <td class="num">{pair.secondOnly}</td>
                <td class="num">{pair.neither}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** Every trial that counts, with its verdict and a link to its transcript. */
function Trials(props: { study: StudyAnswer }) {
  const { study } = props;
  const trials = study.report?.trials ?? [];
  return (
    <>
      <h3>Trials</h3>
      <table aria-label={`trials of ${study.dir}`}>
        <thead>
          <tr>
            <th>Trial</th>
            <th>Verdict</th>
            <th class="num">Turns</th>
            <th class="num">Billed</th>
            <th class="num">Cost</th>
            <th>Transcript</th>
          </tr>
        </thead>
        <tbody>
          {trials.map((trial) => (
            <tr key={trial.key}>
              <td>{trial.key}</td>
              <td class={trial.pass ? "ok" : "bad"}>{trial.pass === null ? `error: ${trial.error?.code ?? "?"}` : trial.pass ? "pass" : "fail"}</td>
              <td class="num">{trial.turns}</td>
              <td class="num">{count(trial.usage ? trial.usage.prompt + trial.usage.completion : null)}</td>
              <td class="num">{dollars(trial.cost)}</td>
              <td>{study.runs[trial.key] ? <a href={href("runs", study.runs[trial.key] as string)}>open</a> : "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
