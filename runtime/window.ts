// The open views as a request carries them, in two user messages: the opening turn's views that are still open, right
// after the system prompt, byte-identical from request to request so that providers' prompt caches hit; and every
// other open view, last. The agent loop sends these parts and gg.context.breakdown() counts them, so the two agree.
import { shownPath } from "../host/paths.ts";
import { textTokens } from "./context.ts";

/** How the labels of views gg opens itself begin: no path on disk does. */
export const GG_LABEL = "gg://";

/** What one open view puts in front of the model. */
export interface ViewContent {
  path: string;
  text: string;
  /** The picture, while no newer view of its path has retired it. */
  dataUrl?: string;
  /** What the picture costs the window, in tokens, while it travels. */
  pictureTokens?: number;
  /** For a text window: the lines shown and the file's length in lines. */
  window?: { first: number; last: number; total: number };
  /** Whether its file changed since it was read (it shows the text as it was). */
  stale?: true;
  /** The line naming the view as stale, in the one answer whose check found its file changed. */
  changed?: string;
}

/** A part of a views message: a text, or a view's picture. */
export type ViewPart = { text: string } | { picture: { path: string; dataUrl: string; tokens: number } };

/** The two views messages of a request, each empty when it has no view. */
export interface ViewMessages {
  /** The opening turn's views still open: a stable prefix, sent after the system prompt. */
  opening: ViewPart[];
  /** Every other open view, oldest first: the request's last message. */
  later: ViewPart[];
}

/** The headings of the two views messages: what each begins with. */
export const VIEW_HEADINGS = { opening: "# Opening turn", later: "# Open views" } as const;

/** What a view holds, as its heading says it: the path, and for a text window its lines (`src/a.ts lines 40-64 of 210`). */
export function viewHeading(path: string, window?: { first: number; last: number; total: number }): string {
  if (!window) return shownPath(path);
  return window.total === 0 ? `${shownPath(path)} (empty)` : `${shownPath(path)} lines ${window.first}-${window.last} of ${window.total}`;
}

/** The open views as the messages a request carries them in; `pictures` false leaves pictures out (a text-only model). */
export function viewMessages(views: readonly ViewContent[], pictures = true): ViewMessages {
  const messages: ViewMessages = { opening: [], later: [] };
  for (const view of views) {
    const parts = view.path.startsWith(GG_LABEL) ? messages.opening : messages.later;
    if (parts.length === 0) parts.push({ text: VIEW_HEADINGS[parts === messages.opening ? "opening" : "later"] });
    parts.push({ text: `## ${viewHeading(view.path, view.window)}\n\n${view.text}` });
    if (pictures && view.dataUrl) parts.push({ picture: { path: view.path, dataUrl: view.dataUrl, tokens: view.pictureTokens ?? 0 } });
  }
  return messages;
}

/** What parts cost the window: their texts, each counted as sent, and their pictures. */
export function partsTokens(parts: readonly ViewPart[]): { text: number; pictures: number } {
  let text = 0;
  let pictures = 0;
  for (const part of parts) {
    if ("text" in part) text += textTokens(part.text);
    else pictures += part.picture.tokens;
  }
  return { text, pictures };
}
