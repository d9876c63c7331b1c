// The Models section: the catalog as a table, filterable, with the legend of the vision words; and a page per model
// whose Specs say what is known of it, its vision as exactly one of those words, and how that is known.
import { useState } from "preact/hooks";
import { count, type ModelEntry, perMillion, type VisionKnowledge } from "./api.ts";
import { Loaded, useApi } from "./load.tsx";
import { href } from "./router.ts";

interface ModelsAnswer {
  catalog: string | null;
  source: string | null;
  fetched: string | null;
  problem?: string;
  models: ModelEntry[];
}

/** Vision in a few words, after its kind. */
function visionWords(vision: VisionKnowledge): string {
  if (vision.kind === "declared") return vision.sees ? "sees images" : "text only";
  if (vision.kind === "learned") return "text only";
  return "not known";
}

/** "$3 prompt, $15 completion per million tokens, $0.3 cached, $3.75 cache write; past 200,000 prompt tokens: $6 prompt, $22.5 completion". */
function pricingWords(pricing: NonNullable<ModelEntry["pricing"]>): string {
  const cache = [...(pricing.input_cache_read === undefined ? [] : [`${perMillion(pricing.input_cache_read)} cached`]), ...(pricing.input_cache_write === undefined ? [] : [`${perMillion(pricing.input_cache_write)} cache write`])];
  const tiers = (pricing.tiers ?? []).map((tier) => `; past ${count(tier.prompt_tokens_above)} prompt tokens: ${perMillion(tier.prompt)} prompt, ${perMillion(tier.completion)} completion`);
  return `${perMillion(pricing.prompt)} prompt, ${perMillion(pricing.completion)} completion per million tokens${cache.map((part) => `, ${part}`).join("")}${tiers.join("")}`;
}

export function ModelsPage() {
  const state = useApi<ModelsAnswer>("/api/models");
  const [filter, setFilter] = useState("");
  return (
    <>
      <h1>Models</h1>
      <Loaded state={state}>
        {(answer) => {
          const words = filter.toLowerCase().split(/\s+/).filter((word) => word !== "");
          const shown = answer.models.filter((model) => words.every((word) => `${model.id} ${model.modalities?.join(" ") ?? ""} ${model.vision.kind}`.toLowerCase().includes(word)));
          return (
            <>
              <p class="muted">{answer.catalog ? `The catalog ${answer.catalog} (${answer.source}, fetched ${answer.fetched}), then the models runs used that it lacks.` : "No catalog could be read."}</p>
              {answer.problem && <p class="bad">{answer.problem}</p>}
              <input type="search" aria-label="Filter models" placeholder="Filter: id, modality, vision…" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} />
              <table>
                <thead>
                  <tr>
                    <th>Model</th>
                    <th class="num">Context (tokens)</th>
                    <th>Input modalities</th>
                    <th class="num">Prompt per M tokens</th>
                    <th class="num">Completion per M tokens</th>
                    <th>Vision</th>
                    <th class="num">Runs</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((model) => (
                    <tr key={model.id}>
                      <td>
                        <a href={href("models", model.id)}>{model.id}</a>
                        {!model.inCatalog && <span class="tag"> not in the catalog</span>}
                      </td>
                      <td class="num">{count(model.contextLength)}</td>
                      <td>{model.modalities?.join(", ") ?? "not listed"}</td>
                      <td class="num">{perMillion(model.pricing?.prompt)}</td>
                      <td class="num">{perMillion(model.pricing?.completion)}</td>
                      <td>{`${model.vision.kind}: ${visionWords(model.vision)}`}</td>
                      <td class="num">{model.runs}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p class="muted">{`${shown.length} of ${answer.models.length} models.`}</p>
              <p class="legend">
                Vision is <strong>declared</strong> when the catalog lists the model's input modalities (image or text only), <strong>learned</strong> when a run given to the console recorded the provider refusing a picture (the run is named), and{" "}
                <strong>unknown</strong> otherwise: gg then sends pictures until a provider refuses one.
              </p>
            </>
          );
        }}
      </Loaded>
    </>
  );
}

export function ModelPage(props: { id: string }) {
  const state = useApi<ModelsAnswer>("/api/models");
  return (
    <Loaded state={state}>
      {(answer) => {
        const model = answer.models.find((entry) => entry.id === props.id);
        if (!model) return <p class="bad">{`No model ${props.id} in the catalog or the runs given to gg console.`}</p>;
        return (
          <>
            <p>
              <a href={href("models")}>Models</a>
            </p>
            <h1>{model.id}</h1>
            <h2>Specs</h2>
            <dl class="specs">
              <dt>Context window</dt>
              <dd>{model.contextLength === null ? "not listed" : `${count(model.contextLength)} tokens`}</dd>
              <dt>Input modalities</dt>
              <dd>{model.modalities?.join(", ") ?? "not listed"}</dd>
              <dt>Pricing</dt>
              <dd>{model.pricing ? pricingWords(model.pricing) : "not listed"}</dd>
              <dt>Vision</dt>
              <dd data-testid="vision">
                <strong>{model.vision.kind}</strong>
                {` — ${visionWords(model.vision)}`}
                <VisionSource vision={model.vision} />
              </dd>
              <dt>Runs</dt>
              <dd>{model.runs === 0 ? "none given" : <a href={href("runs")}>{`${model.runs} run${model.runs === 1 ? "" : "s"}`}</a>}</dd>
            </dl>
          </>
        );
      }}
    </Loaded>
  );
}

function VisionSource(props: { vision: VisionKnowledge }) {
  const { vision } = props;
  if (vision.kind === "declared") return <span>{` (the catalog lists ${vision.modalities.join(", ")})`}</span>;
  if (vision.kind === "unknown") return <span> (the catalog lists no modalities for it, and no run recorded a refusal)</span>;
  return (
    <span>
      {" (the provider refused a picture in run "}
      <a href={href("runs", vision.runId)}>{vision.run}</a>
      {`, turn ${vision.turn}: ${vision.message})`}
    </span>
  );
}
