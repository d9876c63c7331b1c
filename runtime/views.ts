// Views are the only channel into a code agent's context window: gg.views.openFile performs read_file's exact read
// and keeps what it returned as a view, keyed by the file's absolute path (any spelling of it, shown as given). Reads
// are append-only: opening a file again appends a view and retires the older copy's picture, so a picture travels
// once per request. What one view may carry is bounded by the view caps, and an over-cap window is refused, never cut.
// A view whose file changes afterwards is never rewritten: it is marked stale, and what is said next names it.
import { statSync } from "node:fs";
import { type Static, Type } from "typebox";
import type { CallResult } from "../bindings/define.ts";
import type { ReadData, ReadWindow } from "../bindings/read_file.ts";
import type { TouchCheck } from "../host/files.ts";
import { GgError, quote } from "../host/errors.ts";
import { plural } from "../host/lines.ts";
import { pathKey, shownPath } from "../host/paths.ts";
import { type Baseline, type Breakdown, imageTokens, textTokens } from "./context.ts";
import { GG_LABEL, partsTokens, type ViewContent, viewMessages } from "./window.ts";

/** What one view may carry. */
export interface ViewCaps {
  /** Lines of a text window. */
  lines: number;
  /** Bytes of a text window. */
  bytes: number;
}

/** Caps of a fresh runtime: a default-cap read fits, and so does anything under read_file's 256 KiB ceiling. */
export const DEFAULT_VIEW_CAPS: ViewCaps = { lines: 2000, bytes: 256 * 1024 };

/** A view as programs and run reports see it. */
export const ViewSummary = Type.Object(
  {
    id: Type.Integer(),
    path: Type.String(),
    window: Type.Optional(
      Type.Object(
        { first: Type.Integer(), last: Type.Integer(), total: Type.Integer() },
        {
          description:
            'For a text view: 1-based lines shown (inclusive) and the file\'s length in lines; an empty file, which reads as\n"", shows no lines: `{ first: 0, last: 0, total: 0 }`.',
        },
      ),
    ),
    image: Type.Optional(
      Type.Object(
        {
          format: Type.String(),
          bytes: Type.Integer(),
          width: Type.Optional(Type.Integer()),
          height: Type.Optional(Type.Integer()),
          attached: Type.Boolean(),
          retired: Type.Boolean(),
          estimated: Type.Boolean(),
        },
        {
          description:
            "The picture, for an image view; `retired` once a newer view of the same file carries it; `estimated` when its\nheader could not be read, so it is charged by file size rather than by its tiles.",
        },
      ),
    ),
    tokens: Type.Integer({ description: "Tokens this view costs the window now." }),
    stale: Type.Boolean({ description: "Whether its file changed on disk since it was opened: the view shows the text as it was; open the file again to see it now." }),
  },
  { $id: "ViewSummary", description: "A view as programs and run reports see it." },
);
export type ViewSummary = Static<typeof ViewSummary>;

/** What opening a view returns: its summary and the text the model now sees (for a picture, its description). */
export const OpenedView = Type.Intersect([ViewSummary, Type.Object({ text: Type.String() })], {
  $id: "OpenedView",
  description: "What opening a view returns: its summary and the text the model now sees (for a picture, its description).",
});
export type OpenedView = Static<typeof OpenedView>;

/** What closing or evicting a file's views returns. */
export const Closed = Type.Object(
  { closed: Type.Integer({ description: "Views closed." }), tokens: Type.Integer({ description: "Tokens they cost the window, now reclaimed." }) },
  { $id: "Closed", description: "What closing or evicting a file's views returns." },
);
export type Closed = Static<typeof Closed>;

/** A view as kept: its cost is derived each time from what it holds, never stored. */
interface View extends Omit<ViewSummary, "tokens"> {
  /** The file's absolute path, one spelling of it: what retiring, closing and evicting match. */
  key: string;
  /** The file's size, modification time and inode when it was read (a file view's): what tells a change cheaply. */
  stamp?: string;
  /** The turn (the run of a program, counted from 1; 0 the opening turn) that opened it. */
  turn: number;
  text: string;
  /** The picture's bytes while it travels; dropped when it is retired, since a retired picture is never shown again. */
  dataUrl?: string;
}

/** Reads a file as read_file does (the runtime passes the real call). */
export type ViewRead = (path: string, offset: number | undefined, limit: number | undefined, touch?: TouchCheck) => CallResult<ReadData>;

function costOf(view: View): number {
  const image = view.image && view.image.attached && !view.image.retired ? imageTokens(view.image).tokens : 0;
  return textTokens(view.text) + image;
}

/** Refuses a text window over the caps, naming the window asked for and a request that fits, or what to use instead. */
function refuseOverCap(path: string, window: ReadWindow, text: string, caps: ViewCaps): void {
  const lines = window.asked - window.first + 1;
  const asked = `${lines === 1 ? `line ${window.first}` : `lines ${window.first}-${window.asked}`} of ${shownPath(path)}`;
  const quoted = JSON.stringify(path);
  if (lines > caps.lines) {
    throw new GgError("over-cap", `Cannot open a view of ${asked}: ${plural(lines, "line")} is over the view cap of ${caps.lines}; open at most ${caps.lines} at a time, e.g. gg.views.openFile(${quoted}, { offset: ${window.first}, limit: ${caps.lines} })`);
  }
  if (!window.cut && window.bytes <= caps.bytes) return;
  // The lines that fit are those whose newline falls within the cap. The text starts with the window's bytes (notes
  // follow them); re-encoding can only lengthen invalid UTF-8, so the count errs towards fewer lines.
  const body = Buffer.from(text).subarray(0, Math.min(window.bytes, caps.bytes));
  let fit = 0;
  for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) fit++;
  if (fit === 0) {
    throw new GgError("over-cap", `Cannot open a view of ${asked}: line ${window.first} alone is over the view cap of ${caps.bytes} bytes, so no view can show it; gg.files.readFile(${quoted}, { offset: ${window.first}, limit: 1 }) hands its text to your program, and gg.files.search(query, { path: ${quoted} }) finds text in it`);
  }
  throw new GgError("over-cap", `Cannot open a view of ${asked}: the window is over the view cap of ${caps.bytes} bytes; ask for fewer lines, e.g. gg.views.openFile(${quoted}, { offset: ${window.first}, limit: ${fit} })`);
}

/** What tells that a file changed: its size, modification time and inode; "gone" once it is not there. */
function stampOf(key: string): string {
  try {
    const stats = statSync(key, { bigint: true });
    return `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}`;
  } catch {
    return "gone";
  }
}

/** The line that names a view gone stale: where it is from, and how to see the file now. */
export const staleLine = (path: string, turn: number): string =>
  `${shownPath(path)} changed on disk since your view of ${turn === 0 ? "the opening turn" : `turn ${turn}`}; open it again to see it now`;

/** What a picture taken out of the window leaves in its place: where it was, and why it went. */
export const pictureRemoved = (path: string): string => `[The picture of ${shownPath(path)} was removed: this model cannot see images.]`;

/** The views of one agent whose relative paths resolve against `cwd`, and what they cost its context window. */
export function createViews(read: ViewRead, cwd: string, caps: ViewCaps = DEFAULT_VIEW_CAPS, baseline: Baseline = {}, firstId = 1) {
  const views: View[] = [];
  let nextId = firstId;
  let turn = 0;
  const summary = (view: View): ViewSummary => ({
    id: view.id,
    path: view.path,
    ...(view.window ? { window: view.window } : {}),
    ...(view.image ? { image: { ...view.image } } : {}),
    tokens: costOf(view),
    stale: view.stale,
  });

  const contents = (): ViewContent[] =>
    views.map((view) => ({
      path: view.path,
      text: view.text,
      ...(view.window ? { window: view.window } : {}),
      ...(view.stale ? { stale: true as const } : {}),
      ...(view.dataUrl ? { dataUrl: view.dataUrl, pictureTokens: costOf(view) - textTokens(view.text) } : {}),
    }));

  /**
   * Marks stale every view whose file changed since it was read, and returns the lines naming them: one per view, left
   * out where a newer view of the same file is current (the model already sees the file as it is).
   */
  const check = (): { view: View; line: string }[] => {
    const stamps = new Map<string, string>();
    const now = (key: string): string => {
      if (!stamps.has(key)) stamps.set(key, stampOf(key));
      return stamps.get(key) as string;
    };
    const found = views.filter((view) => view.stamp !== undefined && !view.stale && now(view.key) !== view.stamp);
    for (const view of found) view.stale = true;
    const current = (view: View): boolean => views.some((other) => other.key === view.key && other.id > view.id && !other.stale);
    return found.filter((view) => !current(view)).map((view) => ({ view, line: staleLine(view.path, view.turn) }));
  };

  const remove = (path: string): Closed => {
    // A view gg opened itself (the opening turn's) is named by its gg:// label, never a path on disk.
    const key = path.startsWith(GG_LABEL) ? path : pathKey(cwd, path);
    let tokens = 0;
    let closed = 0;
    for (let i = views.length - 1; i >= 0; i--) {
      const view = views[i] as View;
      if (view.key !== key) continue;
      tokens += costOf(view);
      views.splice(i, 1);
      closed++;
    }
    return { closed, tokens };
  };

  return {
    /**
     * Opens a view of text gg produced itself (a tree, the docs of a module), named by a `gg://` label that closes it.
     * It is charged and listed like any view.
     */
    openText(label: string, text: string): OpenedView {
      if (!label.startsWith(GG_LABEL)) throw new GgError("invalid-argument", `Cannot open a view labelled ${quote(label)}: gg's own views are labelled ${GG_LABEL}...`);
      const view: View = { id: nextId++, path: label, key: label, text, turn, stale: false };
      views.push(view);
      return { ...summary(view), text };
    },
    /** Opens a view of `path` (offset and limit as read_file takes them; `touch` judges the file it reaches, see CallContext.touch). */
    open(path: string, offset?: number, limit?: number, touch?: TouchCheck): OpenedView {
      // A label names a view gg opened itself; a file whose path starts so is reached as ./gg:/...
      if (path.startsWith(GG_LABEL)) throw new GgError("invalid-argument", `Cannot open a view of ${JSON.stringify(path)}: ${GG_LABEL} labels name the views gg opens itself (the opening turn's); a file of that name is ./${path}`);
      const result = read(path, offset, limit, touch);
      if (!result.ok) throw new GgError(result.error.code, result.error.message);
      const image = "image" in result.data ? result.data.image : undefined;
      const window = "window" in result.data ? result.data.window : undefined;
      if (window) refuseOverCap(path, window, result.text, caps);
      const key = pathKey(cwd, path);
      // Taken after the read: a change between the two shows as stale, never as current.
      const stamp = stampOf(key);
      for (const older of views) {
        if (older.key !== key || !older.image) continue;
        older.image.retired = true;
        delete older.dataUrl;
      }
      const attachment = result.attachments?.[0];
      const view: View = {
        id: nextId++,
        path,
        key,
        stamp,
        turn,
        stale: false,
        text: result.text,
        ...(window ? { window: { first: window.total === 0 ? 0 : window.first, last: window.last, total: window.total } } : {}),
        ...(image
          ? {
              image: {
                format: image.format,
                bytes: image.bytes,
                ...(image.width ? { width: image.width, height: image.height } : {}),
                attached: Boolean(attachment),
                retired: false,
                estimated: imageTokens(image).estimated,
              },
            }
          : {}),
        ...(attachment ? { dataUrl: attachment.dataUrl } : {}),
      };
      views.push(view);
      return { ...summary(view), text: view.text };
    },
    /** Closes every view of the file `path` names; returns how many were closed and the tokens reclaimed. */
    close: remove,
    /** The open views, oldest first. */
    list: (): ViewSummary[] => views.map(summary),
    /**
     * Tokens per band of the context window: the bands the embedder measured, and the views' texts and pictures (laid
     * out in their messages, headings included, when the baseline says they travel so).
     */
    breakdown(): Breakdown {
      let fileViews = 0;
      let images = 0;
      if (baseline.viewMessages) {
        const laid = viewMessages(contents());
        ({ text: fileViews, pictures: images } = partsTokens([...laid.opening, ...laid.later]));
      } else {
        for (const view of views) {
          fileViews += textTokens(view.text);
          images += costOf(view) - textTokens(view.text);
        }
      }
      const system = baseline.system ?? 0;
      const messages = baseline.messages ?? 0;
      const toolResults = baseline.toolResults ?? 0;
      return { system, messages, toolResults, fileViews, images, total: system + messages + toolResults + fileViews + images };
    },
    /** Sets the bands gg does not hold (the agent loop's), as the embedder measures them before a run. */
    setBaseline(next: Baseline): void {
      baseline = { ...baseline, ...next };
    },
    /** What the model is shown: each open view's text, and its picture while it is not retired. */
    contents,
    /** Checks the open views (see check) and returns the lines naming those found stale now. */
    check: (): string[] => check().map((found) => found.line),
    /** Starts the next turn (a program's run): views opened from now on are of it. */
    nextTurn(): void {
      turn++;
    },
    /** The open views as the next request shows them, after a check: each found stale by it carries the line naming it. */
    shown(): ViewContent[] {
      const lines = new Map(check().map((found) => [found.view.id, found.line]));
      return contents().map((content, index) => {
        const line = lines.get((views[index] as View).id);
        return line === undefined ? content : { ...content, changed: line };
      });
    },
    /**
     * Takes every picture out of the window, for a model found unable to see them: each view keeps its text, with a
     * note where its picture was, and stops being charged for it.
     */
    withdrawPictures(): void {
      for (const view of views) {
        if (!view.image?.attached || view.image.retired) continue;
        view.image.attached = false;
        delete view.dataUrl;
        view.text = `${view.text}\n${pictureRemoved(view.path)}`;
      }
    },
  };
}

/** The views of one agent. */
export type Views = ReturnType<typeof createViews>;
