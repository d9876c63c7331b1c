// Prompt-cache breakpoints, for providers that cache only where a request asks: Anthropic's models (directly or through
// OpenRouter and other OpenAI-compatible gateways) and Gemini's explicit cache. A breakpoint is a content part carrying
// `cache_control: {type: "ephemeral"}`, as OpenRouter documents it; Anthropic takes at most 4 in a request.
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from "openai/resources/chat/completions";

/** Anthropic's limit on breakpoints in one request. */
export const MAX_BREAKPOINTS = 4;

/** The models whose provider caches only on request, by their ids: Anthropic's (`anthropic/...`, any `claude`) and Gemini's. */
const MARKED_MODELS = /^anthropic\/|claude|gemini/i;

/** Whether a request to `model` gets breakpoints: `configured` when given (AgentOptions.cacheMarks), else by its id. */
export const marksCache = (model: string, configured?: boolean): boolean => configured ?? MARKED_MODELS.test(model);

/** A content part with a breakpoint, as OpenRouter passes it on to Anthropic. */
type MarkedPart = ChatCompletionContentPart & { cache_control: { type: "ephemeral" } };

/** `message` with a breakpoint on its last part (a text content becomes one text part); unchanged when it has no content. */
function marked(message: ChatCompletionMessageParam): ChatCompletionMessageParam {
  const { content } = message;
  const parts: ChatCompletionContentPart[] = typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : ((content ?? []) as ChatCompletionContentPart[]);
  const last = parts.at(-1);
  if (!last) return message;
  const mark: MarkedPart = { ...last, cache_control: { type: "ephemeral" } };
  return { ...message, content: [...parts.slice(0, -1), mark] } as ChatCompletionMessageParam;
}

/**
 * `messages` with breakpoints at the end of each of `at` (indexes, deduplicated, the first MAX_BREAKPOINTS kept): the
 * stable prefix's (system prompt, tool definitions, the opening turn) and the conversation's end so far. The messages
 * given are not changed, so what the run keeps stays plain.
 */
export function withBreakpoints(messages: readonly ChatCompletionMessageParam[], at: readonly number[]): ChatCompletionMessageParam[] {
  const marks = new Set([...new Set(at)].filter((index) => index >= 0 && index < messages.length).slice(0, MAX_BREAKPOINTS));
  return messages.map((message, index) => (marks.has(index) ? marked(message) : message));
}
