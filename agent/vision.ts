// What runs learn of a model's vision from its provider, beyond what the catalog declares. A ledger is shared by the
// runs handed it (a study's trials), else by every run in the process. A model of unknown vision sends one request
// with pictures at a time until one has been answered: a refusal then costs one request per model, not one per run.

/** How a request carrying pictures ended, as the ledger records it. */
export type PictureOutcome = "answered" | "refused" | "failed";

/** What is known of models' vision, and the turn-taking of their first picture. */
export interface VisionLedger {
  /** True once a provider refused `model` a picture. */
  textOnly(model: string): boolean;
  /**
   * Waits until a request of `model` carrying pictures may be sent: at once when the model is known either way, else
   * when no other run is waiting on an answer to one. Returns the function to call, once, with how the request ended.
   */
  admit(model: string): Promise<(outcome: PictureOutcome) => void>;
  /** Records a refusal of a request that did not wait its turn (a model the catalog says sees). */
  refused(model: string): void;
}

/** A ledger knowing nothing yet. */
export function createVisionLedger(): VisionLedger {
  const known = new Map<string, "sees" | "text-only">();
  const probing = new Map<string, Promise<void>>();
  const record = (model: string, outcome: PictureOutcome): void => {
    if (outcome === "refused") known.set(model, "text-only");
    else if (outcome === "answered" && !known.has(model)) known.set(model, "sees");
  };
  return {
    textOnly: (model) => known.get(model) === "text-only",
    refused: (model) => record(model, "refused"),
    async admit(model) {
      for (let pending = probing.get(model); !known.has(model) && pending; pending = probing.get(model)) await pending;
      if (known.has(model)) return (outcome) => record(model, outcome);
      let release = (): void => {};
      probing.set(model, new Promise((done) => (release = done)));
      let settled = false;
      return (outcome) => {
        if (settled) return;
        settled = true;
        record(model, outcome);
        probing.delete(model);
        release();
      };
    },
  };
}

/** The ledger of runs given none: every run in this process. */
export const PROCESS_VISION = createVisionLedger();
