// The configuration page: a form over the configuration file's JSON. Every change is checked by gg's own parser
// (through the API), whose refusals are listed as it words them; Save writes the file only when there are none.
import { useEffect, useRef, useState } from "preact/hooks";
import { type ConfigurationCheck, type ConfigurationState, get, post } from "./api.ts";

type Json = Record<string, unknown>;
type Entry = Json & { id?: unknown };
type Rule = { call?: unknown; when?: unknown; verdict?: unknown; reason?: unknown };

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const clone = <T,>(value: T): T => structuredClone(value);

/** The file's JSON in the object form, every capability of the groups listed (defaults for those it omits). */
function normalized(json: unknown, state: ConfigurationState): Json {
  const object: Json = Array.isArray(json) ? { capabilities: json } : isRecord(json) ? clone(json) : { capabilities: [] };
  const entries = Array.isArray(object.capabilities) ? (object.capabilities as Entry[]) : [];
  const defaults = ((state.defaults as Json).capabilities as Entry[]) ?? [];
  const ordered = state.groups.flatMap((group) => group.ids).map((id) => entries.find((entry) => isRecord(entry) && entry.id === id) ?? clone(defaults.find((entry) => entry.id === id) ?? { id }));
  const others = entries.filter((entry) => !isRecord(entry) || !state.groups.some((group) => (group.ids as readonly unknown[]).includes(entry.id)));
  return { ...object, capabilities: [...ordered, ...others] };
}

/** What a person typed into a count's box, as the file holds it: a number when it reads as one, else the text itself (the parser says why it is wrong), nothing when empty. */
const typed = (text: string): unknown => (text.trim() === "" ? undefined : /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : text);
const shown = (value: unknown): string => (value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value));

export function ConfigurationPage() {
  const [state, setState] = useState<ConfigurationState>();
  const [json, setJson] = useState<Json>();
  const [check, setCheck] = useState<ConfigurationCheck>({ problems: [], offered: [] });
  const [status, setStatus] = useState("");
  const [loadError, setLoadError] = useState<string>();
  const asked = useRef(0);
  useEffect(() => {
    get<ConfigurationState>("/api/config").then(
      (loaded) => {
        setState(loaded);
        setJson(normalized(loaded.json, loaded));
      },
      (error: Error) => setLoadError(error.message),
    );
  }, []);
  useEffect(() => {
    if (json === undefined) return;
    const ask = ++asked.current;
    post<ConfigurationCheck>("/api/config/check", json).then(({ body }) => ask === asked.current && setCheck(body));
  }, [json]);
  if (loadError) return <p class="bad">{loadError}</p>;
  if (!state || !json) return <p class="muted">Loading…</p>;
  const change = (edit: (draft: Json) => void): void => {
    const draft = clone(json);
    edit(draft);
    setStatus("");
    setJson(draft);
  };
  const save = async (): Promise<void> => {
    const { status: code, body } = await post<{ saved: boolean; problems: string[]; file: string }>("/api/config/save", json);
    if (code === 200 && body.saved) setStatus(`Saved to ${body.file}.`);
    else setCheck({ ...check, problems: body.problems });
  };
  const entries = json.capabilities as Entry[];
  const canSave = state.file !== null && check.problems.length === 0;
  return (
    <>
      <h1>Configuration</h1>
      <p class="muted">
        {state.file === null ? "gg console was started without --config FILE: the form is checked, but nothing can be saved." : `Editing ${state.file}${state.exists ? "" : " (not written yet)"}. Every change is checked by gg's configuration parser.`}
      </p>
      {state.unreadable && <p class="bad">{state.unreadable}</p>}
      <div role="alert" aria-label="Refusals">
        {check.problems.length > 0 && (
          <ul>
            {check.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        )}
      </div>
      <div class="sticky-actions">
        <button type="button" class="primary" disabled={!canSave} onClick={() => void save()}>
          Save
        </button>
        <span role="status">{status || (check.problems.length === 0 ? <span class="ok">The parser accepts this configuration.</span> : <span class="bad">{`${check.problems.length} refusal${check.problems.length === 1 ? "" : "s"}: nothing is saved until they are fixed.`}</span>)}</span>
      </div>
      {state.groups.map((group) => (
        <section class="group" key={group.name} aria-labelledby={groupId(group.name)}>
          <h2 id={groupId(group.name)}>{group.name}</h2>
          <p class="muted">{group.holds}</p>
          {group.ids.map((id) => {
            const index = entries.findIndex((entry) => isRecord(entry) && entry.id === id);
            return <CapabilityFields key={id} id={id} entry={entries[index] as Entry} spec={state.capabilities[id] as ConfigurationState["capabilities"][string]} kinds={state.paramKinds} onChange={(edit) => change((draft) => edit((draft.capabilities as Entry[])[index] as Entry))} />;
          })}
          {group.model && <ModelFields json={json} change={change} />}
        </section>
      ))}
      <Agents json={json} state={state} offered={check.offered} change={change} />
      <Approvals json={json} state={state} change={change} />
      <details>
        <summary>The JSON Save writes</summary>
        <pre>{JSON.stringify(json, null, 2)}</pre>
      </details>
    </>
  );
}

function CapabilityFields(props: { id: string; entry: Entry; spec: { implementations: readonly string[]; params: readonly string[] }; kinds: ConfigurationState["paramKinds"]; onChange: (edit: (entry: Entry) => void) => void }) {
  const { id, entry, spec, kinds, onChange } = props;
  const params = isRecord(entry.params) ? entry.params : {};
  const implementation = typeof entry.implementation === "string" ? entry.implementation : (spec.implementations[0] as string);
  const setParam = (param: string, value: unknown): void =>
    onChange((draft) => {
      const next = isRecord(draft.params) ? draft.params : {};
      if (value === undefined) delete next[param];
      else next[param] = value;
      draft.params = next;
    });
  return (
    <fieldset>
      <legend>{id}</legend>
      <div class="row">
        <label>
          <input type="checkbox" checked={entry.enabled !== false} onChange={(event) => onChange((draft) => void (draft.enabled = event.currentTarget.checked))} />
          Enabled
        </label>
        <label>
          Implementation
          <select value={implementation} onChange={(event) => onChange((draft) => void (draft.implementation = event.currentTarget.value))}>
            {[...new Set([...spec.implementations, implementation])].map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {spec.params.map((param) => (
          <ParamField key={param} name={param} kind={kinds[param] ?? "count"} value={params[param]} set={(value) => setParam(param, value)} />
        ))}
      </div>
    </fieldset>
  );
}

/** One param's field, by its kind: a box for a count, a choice for words and for true or false (unset: the default), a box of folders one a line. */
function ParamField(props: { name: string; kind: ConfigurationState["paramKinds"][string]; value: unknown; set: (value: unknown) => void }) {
  const { name, kind, value, set } = props;
  if (kind === "count") {
    return (
      <label>
        {name}
        <input type="text" inputMode="numeric" value={shown(value)} onInput={(event) => set(typed(event.currentTarget.value))} />
      </label>
    );
  }
  if (kind === "folders") {
    return (
      <label>
        {name}
        <textarea
          rows={2}
          placeholder="one folder a line"
          value={Array.isArray(value) ? value.map(shown).join("\n") : shown(value)}
          onInput={(event) => {
            const folders = event.currentTarget.value.split("\n").map((line) => line.trim()).filter((line) => line !== "");
            set(folders.length > 0 ? folders : undefined);
          }}
        />
      </label>
    );
  }
  const choices: readonly string[] = kind === "boolean" ? ["true", "false"] : kind;
  return (
    <label>
      {name}
      <select value={value === undefined ? "" : shown(value)} onChange={(event) => set(event.currentTarget.value === "" ? undefined : kind === "boolean" ? event.currentTarget.value === "true" : event.currentTarget.value)}>
        <option value="">{`(unset${kind === "boolean" ? "" : `: ${kind[0] ?? ""}`})`}</option>
        {[...new Set([...choices, ...(value === undefined ? [] : [shown(value)])])].map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}

/** An element id for a group's heading: aria-labelledby takes a list of ids, so no spaces ("Models & tools"). */
const groupId = (name: string): string => `group-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

function ModelFields(props: { json: Json; change: (edit: (draft: Json) => void) => void }) {
  const model = isRecord(props.json.model) ? props.json.model : {};
  const turn = isRecord(props.json.openingTurn) ? props.json.openingTurn : {};
  const modules = Array.isArray(turn.modules) ? (turn.modules as unknown[]) : ["files", "shell"];
  const setTurn = (key: string, value: unknown): void =>
    props.change((draft) => {
      const next = isRecord(draft.openingTurn) ? draft.openingTurn : {};
      if (value === undefined) delete next[key];
      else next[key] = value;
      if (Object.keys(next).length === 0) delete draft.openingTurn;
      else draft.openingTurn = next;
    });
  return (
    <>
      <fieldset>
        <legend>model</legend>
        <label>
          <input
            type="checkbox"
            checked={model.vision !== false}
            onChange={(event) =>
              props.change((draft) => {
                if (event.currentTarget.checked) delete draft.model;
                else draft.model = { vision: false };
              })
            }
          />
          Vision (send pictures the model reads)
        </label>
      </fieldset>
      <fieldset>
        <legend>openingTurn</legend>
        <div class="row">
          <label>
            treeDepth
            <input type="text" inputMode="numeric" value={shown(turn.treeDepth)} placeholder="2" onInput={(event) => setTurn("treeDepth", typed(event.currentTarget.value))} />
          </label>
          <label>
            treeTokens
            <input type="text" inputMode="numeric" value={shown(turn.treeTokens)} placeholder="200" onInput={(event) => setTurn("treeTokens", typed(event.currentTarget.value))} />
          </label>
          {["files", "shell", "views", "context"].map((name) => (
            <label key={name}>
              <input type="checkbox" checked={modules.includes(name)} onChange={(event) => setTurn("modules", event.currentTarget.checked ? [...modules, name] : modules.filter((module) => module !== name))} />
              {`module ${name}`}
            </label>
          ))}
        </div>
      </fieldset>
    </>
  );
}

function Agents(props: { json: Json; state: ConfigurationState; offered: string[]; change: (edit: (draft: Json) => void) => void }) {
  const agents = Array.isArray(props.json.agents) ? (props.json.agents as Entry[]) : [];
  const edit = (index: number, apply: (agent: Entry) => void): void =>
    props.change((draft) => {
      const list = Array.isArray(draft.agents) ? (draft.agents as Entry[]) : [];
      apply(list[index] as Entry);
      draft.agents = list;
    });
  return (
    <section aria-labelledby="agents">
      <h2 id="agents">Agents</h2>
      <p class="muted">An agent is given only the calls its allowlist checks; the calls listed are those the capabilities above offer.</p>
      {agents.map((agent, index) => {
        const allow = Array.isArray(agent.allow) ? (agent.allow as unknown[]) : undefined;
        const choices = [...new Set([...props.offered, ...(allow ?? []).map(String)])];
        return (
          <fieldset key={index}>
            <legend>{`agent ${typeof agent.id === "string" && agent.id !== "" ? agent.id : `#${index + 1}`}`}</legend>
            <div class="row">
              <label>
                id
                <input type="text" value={shown(agent.id)} onInput={(event) => edit(index, (draft) => void (draft.id = event.currentTarget.value))} />
              </label>
              <button type="button" onClick={() => props.change((draft) => void (draft.agents = agents.filter((_, at) => at !== index)))}>
                Remove agent
              </button>
            </div>
            <div class="row" role="group" aria-label={`allowlist of agent ${shown(agent.id)}`}>
              {choices.map((call) => (
                <label key={call}>
                  <input
                    type="checkbox"
                    checked={allow === undefined || allow.includes(call)}
                    onChange={(event) =>
                      edit(index, (draft) => {
                        const current = Array.isArray(draft.allow) ? (draft.allow as unknown[]).map(String) : [...props.offered];
                        draft.allow = event.currentTarget.checked ? [...current, call] : current.filter((name) => name !== call);
                      })
                    }
                  />
                  {call}
                </label>
              ))}
            </div>
          </fieldset>
        );
      })}
      <button type="button" onClick={() => props.change((draft) => void (draft.agents = [...agents, { id: `agent-${agents.length + 1}`, allow: [] }]))}>
        Add agent
      </button>
    </section>
  );
}

function Approvals(props: { json: Json; state: ConfigurationState; change: (edit: (draft: Json) => void) => void }) {
  const rules = Array.isArray(props.json.approvals) ? (props.json.approvals as Rule[]) : [];
  // The configured MCP servers' tools, each server's at once (a rule names one tool as the JSON file is edited).
  const servers = isRecord(props.json.mcpServers) ? Object.keys(props.json.mcpServers).map((server) => `mcp__${server}__*`) : [];
  const calls = ["*", ...props.state.calls.map((call) => call.name), ...servers];
  const edit = (index: number, apply: (rule: Rule) => void): void =>
    props.change((draft) => {
      const list = Array.isArray(draft.approvals) ? (draft.approvals as Rule[]) : [];
      apply(list[index] as Rule);
      draft.approvals = list;
    });
  const setRules = (next: Rule[]): void =>
    props.change((draft) => {
      if (next.length === 0) delete draft.approvals;
      else draft.approvals = next;
    });
  return (
    <section aria-labelledby="approvals">
      <h2 id="approvals">Approvals</h2>
      <div class="row">
        <label>
          approvalDefault
          <select
            value={shown(props.json.approvalDefault)}
            onChange={(event) =>
              props.change((draft) => {
                if (event.currentTarget.value === "") delete draft.approvalDefault;
                else draft.approvalDefault = event.currentTarget.value;
              })
            }
          >
            <option value="">(unset: allow)</option>
            <option value="allow">allow</option>
            <option value="ask">ask</option>
          </select>
        </label>
      </div>
      <p class="muted">Rules: a call (or * for every call), globs its arguments must match, and a verdict; of the rules that match a call, the strictest verdict wins (deny over ask over allow). approvalDefault is what a call with effects that no rule matches gets.</p>
      {rules.map((rule, index) => (
        <RuleFields key={index} rule={rule} index={index} calls={calls} verdicts={props.state.verdicts} edit={(apply) => edit(index, apply)} remove={() => setRules(rules.filter((_, at) => at !== index))} />
      ))}
      <button type="button" onClick={() => setRules([...rules, { call: "shell", verdict: "ask" }])}>
        Add rule
      </button>
    </section>
  );
}

/** One approval rule: its call, verdict, reason, and the globs its arguments must match. */
function RuleFields(props: { rule: Rule; index: number; calls: string[]; verdicts: readonly string[]; edit: (apply: (rule: Rule) => void) => void; remove: () => void }) {
  const { rule, index, calls, verdicts, edit, remove } = props;
  const when = isRecord(rule.when) ? Object.entries(rule.when) : [];
  return (
    <fieldset>
      <legend>{`rule ${index + 1}`}</legend>
      <div class="row">
        <label>
          call
          <select value={shown(rule.call)} onChange={(event) => edit((draft) => void (draft.call = event.currentTarget.value))}>
            {[...new Set([...calls, shown(rule.call)])].map((call) => (
              <option key={call} value={call}>
                {call}
              </option>
            ))}
          </select>
        </label>
        <label>
          verdict
          <select value={shown(rule.verdict)} onChange={(event) => edit((draft) => void (draft.verdict = event.currentTarget.value))}>
            {verdicts.map((verdict) => (
              <option key={verdict} value={verdict}>
                {verdict}
              </option>
            ))}
          </select>
        </label>
        <label>
          reason
          <input
            type="text"
            value={shown(rule.reason)}
            onInput={(event) =>
              edit((draft) => {
                if (event.currentTarget.value === "") delete draft.reason;
                else draft.reason = event.currentTarget.value;
              })
            }
          />
        </label>
        <button type="button" onClick={remove}>
          Remove rule
        </button>
      </div>
      {when.map(([argument, glob], at) => (
        <div class="row" key={at}>
          <label>
            argument
            <input type="text" value={argument} onInput={(event) => edit((draft) => void (draft.when = Object.fromEntries(when.map(([name, value], which) => (which === at ? [event.currentTarget.value, value] : [name, value])))))} />
          </label>
          <label>
            glob
            <input type="text" value={shown(glob)} onInput={(event) => edit((draft) => void (draft.when = Object.fromEntries(when.map(([name, value], which) => (which === at ? [name, event.currentTarget.value] : [name, value])))))} />
          </label>
          <button
            type="button"
            onClick={() =>
              edit((draft) => {
                const rest = when.filter((_, which) => which !== at);
                if (rest.length === 0) delete draft.when;
                else draft.when = Object.fromEntries(rest);
              })
            }
          >
            Remove condition
          </button>
        </div>
      ))}
      <button type="button" onClick={() => edit((draft) => void (draft.when = { ...Object.fromEntries(when), [rule.call === "shell" ? "command" : "path"]: "" }))}>
        Add condition
      </button>
    </fieldset>
  );
}
