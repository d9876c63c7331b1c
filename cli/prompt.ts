// gg prompt: the system prompt of an arm for a configuration and agent; a code agent's is followed by its opening
// turn, opened on the workspace as a runtime would open it.
import type { Configuration } from "../bindings/config.ts";
import { type Arm, systemPrompt, viewsText } from "../agent/prompts.ts";
import { createRuntime } from "../runtime/index.ts";
import { VIEW_HEADINGS } from "../runtime/window.ts";

/** Prints the prompt; `arm` is checked by the caller. */
export async function printPrompt(arm: Arm, options: { config: Configuration; agent?: string; workspace: string }, out: (text: string) => void): Promise<number> {
  const prompt = systemPrompt({ arm, config: options.config, ...(options.agent === undefined ? {} : { agent: options.agent }) });
  if (arm === "tools") {
    out(prompt);
    return 0;
  }
  const runtime = createRuntime({ workspace: options.workspace, config: options.config, ...(options.agent === undefined ? {} : { agent: options.agent }) });
  try {
    const opened = await runtime.openingTurn();
    out(`${prompt}\n${VIEW_HEADINGS.opening}\n\n${opened.length > 0 ? viewsText(opened) : "(nothing: the configuration's openingTurn opens no views for this agent)\n"}`);
    return 0;
  } finally {
    runtime.close();
  }
}
