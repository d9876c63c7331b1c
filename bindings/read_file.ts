// read_file: a file as text, windowed by lines under the configured read mode, or a picture as a picture.
import { type Static, Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { detectImage, IMAGE_SNIFF_BYTES, imageDimensions, type ImageFormat } from "../host/image.ts";
import { plural } from "../host/lines.ts";
import { resolvePath, shownPath } from "../host/paths.ts";
import { type LineWindow, notRegular } from "../host/files.ts";
import type { Configuration } from "./capabilities.ts";
import { type Attachment, type CallContext, defineCall } from "./define.ts";

/** Bytes one read returns at most, whatever its line window. */
export const READ_BYTE_CEILING = 256 * 1024;
/** Bytes above which a picture is described rather than attached. */
export const IMAGE_ATTACH_LIMIT = 8 * 1024 * 1024;
/** Bytes of a large picture read to find its dimensions. */
const IMAGE_HEADER_BYTES = 64 * 1024;

/** The line cap of a call that names no limit, or undefined when such a call reads to the end. */
export function defaultWindow(config: Configuration): number | undefined {
  const capability = config.capabilities["read-file"];
  return capability.implementation === "default-cap" ? Number(capability.params.lineCap) : undefined;
}

/** What a read of a picture says about it, whether or not the picture travels with it. */
export const ImageDescriptor = Type.Object(
  {
    label: Type.String({ description: "The path as given." }),
    format: Type.String({ description: '"PNG", "JPEG", "GIF" or "WebP".' }),
    mime: Type.String(),
    bytes: Type.Integer({ description: "Size of the file in bytes." }),
    width: Type.Optional(Type.Integer({ description: "Pixels, when the header could be read." })),
    height: Type.Optional(Type.Integer()),
  },
  { $id: "ImageDescriptor", description: "What a read of a picture says about it, whether or not the picture travels with it." },
);
export type ImageDescriptor = Static<typeof ImageDescriptor>;

/** What gg.files.readFile hands a program for a picture. */
export const ImageValue = Type.Intersect(
  [ImageDescriptor, Type.Object({ shown: Type.Literal(false), reason: Type.String({ description: "Where the picture can be seen." }) })],
  { $id: "ImageValue", description: "What gg.files.readFile returns for a PNG, JPEG, GIF or WebP file: its descriptor, never its pixels." },
);

/** Where a text read's window fell, for the view manager. */
export interface ReadWindow {
  /** 1-based lines returned, and the file's length in lines. */
  first: number;
  last: number;
  total: number;
  /** Last line the call asked for, within the file: `last`, unless the 256 KiB ceiling ended the window sooner. */
  asked: number;
  /** Bytes returned. */
  bytes: number;
  /** True when the 256 KiB ceiling ended the window sooner, or cut its one line. */
  cut: boolean;
}

/** A read, as data: a text window with its notes, or a picture with its attachment or the reason it has none. */
export type ReadData = { text: string; window: ReadWindow } | { image: ImageDescriptor; attachment?: Attachment; withheld?: string };

/** How a model learns that a read was partial and where to go on. */
export const FOOTER_RULE = "A partial read ends with a line like [showing lines 251-500 of 1200; continue with offset: 501].";

/** The line cap as a model is told it, under default-cap; undefined under unlimited, where no cap is stated. */
export function capRule(config: Configuration): string | undefined {
  const cap = defaultWindow(config);
  return cap === undefined ? undefined : `Without a limit a read returns at most ${cap} lines; pass a larger limit to read more at once.`;
}

/** What reading a picture does for this model: attached, or unsupported for a model without image input. */
export const imageRule = (config: Configuration): string =>
  config.vision
    ? "PNG, JPEG, GIF and WebP files (recognised by content) are attached as pictures, up to 8 MiB; larger ones are described."
    : "Reading images is unsupported for this model: pictures are described, not shown.";

/** A picture read as read_file reads it: attached while the model sees pictures and it is within 8 MiB, else described. */
export function readImage(absolute: string, display: string, format: ImageFormat, size: number, context: CallContext): ReadData {
  const attach = size <= IMAGE_ATTACH_LIMIT && context.config.vision;
  const bytes = attach ? context.files.readFile(absolute) : context.files.readHead(absolute, IMAGE_HEADER_BYTES);
  const image: ImageDescriptor = { label: display, format: format.name, mime: format.mime, bytes: size, ...imageDimensions(bytes) };
  if (!attach) return { image, withheld: size > IMAGE_ATTACH_LIMIT ? "it is over the 8 MiB limit for attached images" : "this model cannot see images" };
  return { image, attachment: { type: "image", mime: format.mime, dataUrl: `data:${format.mime};base64,${bytes.toString("base64")}` } };
}

/** The text a tool-calling model receives for a read. */
function renderRead(data: ReadData): string {
  if ("text" in data) return data.text;
  const { image } = data;
  const pixels = image.width !== undefined ? `${image.width}x${image.height} pixels` : "dimensions unreadable";
  const description = `${shownPath(image.label)}: ${image.format} image, ${pixels}, ${plural(image.bytes, "byte")}`;
  return `${description}; ${data.attachment ? "attached" : `not attached: ${data.withheld}`}.`;
}

/** What gg.files.readFile hands a program: the text, or for a picture its descriptor and where to look at it. */
function codeValue(data: ReadData): unknown {
  if ("text" in data) return data.text;
  return { ...data.image, shown: false, reason: `gg.files.readFile does not show pictures; gg.views.openFile(${JSON.stringify(data.image.label)}) puts it in front of you` };
}

/**
 * The window of lines `offset`.. (`count` of them) whose text, as the model receives it, fits the 256 KiB ceiling:
 * bytes that are not UTF-8 become U+FFFD, three bytes each, so a window of such bytes is read again, smaller, until
 * its text fits. Each try shrinks the window by the text's growth, so a few tries suffice.
 */
function textWindow(context: CallContext, absolute: string, offset: number, count: number | undefined): { window: LineWindow; body: string } {
  for (let maxBytes = READ_BYTE_CEILING; ; ) {
    const window = context.files.readLines(absolute, offset, count, maxBytes);
    const body = window.bytes.toString("utf8");
    const textBytes = Buffer.byteLength(body);
    if (textBytes <= READ_BYTE_CEILING) return { window, body };
    maxBytes = Math.min(maxBytes - 1, Math.floor((maxBytes * READ_BYTE_CEILING) / textBytes));
  }
}

/**
 * Runs `use` on the file at `absolute` as a read reaches it: under path rules, held open and judged first, so `use`
 * reads the file that was judged (see {@link CallContext.touch}); else by its path.
 */
export const reading = <T>(absolute: string, context: CallContext, use: (at: string) => T): T =>
  context.touch ? context.files.readHeld(absolute, context.touch, use) : use(absolute);

/** read_file's read of the file at `absolute` (named `path` in messages). */
function readAt(absolute: string, path: string, offset: number, limit: number | undefined, context: CallContext): ReadData {
  const stat = context.files.stat(absolute, "read");
  if (stat.kind === "directory") throw new GgError("invalid-argument", `Cannot read ${path}: it is a directory; list it with list_dir or tree`);
  if (stat.kind !== "file") throw notRegular(path);
  const format = detectImage(context.files.readHead(absolute, IMAGE_SNIFF_BYTES));
  if (format) return readImage(absolute, path, format, stat.size, context);

  const count = limit ?? defaultWindow(context.config);
  const { window, body } = textWindow(context, absolute, offset, count);
  const { firstLine, lastLine, totalLines } = window;
  const asked = count === undefined ? totalLines : Math.min(offset + count - 1, totalLines);
  const read: ReadWindow = { first: firstLine, last: lastLine, total: totalLines, asked, bytes: window.bytes.length, cut: window.cut !== "none" };
  if (firstLine === 1 && lastLine >= totalLines && window.cut === "none") return { text: body, window: read };

  const notes: string[] = [];
  if (window.cut === "lines") notes.push(`[the 256 KiB read limit ended this window after line ${lastLine}]`);
  if (window.cut === "ending") notes.push(`[line ${lastLine} fills the 256 KiB read limit: it is shown whole, without its line ending]`);
  if (window.cut === "line") {
    notes.push(`[line ${lastLine} is ${plural(window.cutLineBytes, "byte")} long: only its first ${plural(window.bytes.length, "byte")} fit the 256 KiB read limit; use search to find text in it]`);
  }
  notes.push(
    lastLine < totalLines
      ? `[showing lines ${firstLine}-${lastLine} of ${totalLines}; continue with offset: ${lastLine + 1}]`
      : `[showing lines ${firstLine}-${lastLine} of ${totalLines}]`,
  );
  const separator = body === "" || body.endsWith("\n") ? "" : "\n";
  return { text: `${body}${separator}${notes.join("\n")}`, window: read };
}

export const readFile = defineCall({
  name: "read_file",
  capability: "read-file",
  brief: "Read a text file by line window, or see a PNG, JPEG, GIF or WebP picture.",
  code: {
    module: "files",
    name: "readFile",
    brief: "Read a text file by line window into your program, without showing it to you (gg.views.openFile shows it).",
    positional: ["path"],
    note: () => `offset: 1-based line. ${FOOTER_RULE}`,
    value: codeValue,
  },
  result: Type.Union([Type.String(), ImageValue]),
  parameters: (config) => {
    const cap = defaultWindow(config);
    return Type.Object(
      {
        path: Type.String({ description: "File to read: relative to the working directory, or absolute." }),
        offset: Type.Optional(Type.Integer({ minimum: 1, description: "1-based line to start from. Default 1." })),
        limit: Type.Optional(
          Type.Integer({
            minimum: 1,
            description: `Lines to return, always honoured. Default: ${cap === undefined ? "the rest of the file" : `${cap} lines`}.`,
          }),
        ),
      },
      { additionalProperties: false },
    );
  },
  description: (config) =>
    [
      "Read a file. Text comes back exactly as stored when the whole file is returned (bytes that are not UTF-8 read as U+FFFD).",
      capRule(config) ?? "Without a limit the read runs from offset to the end of the file.",
      FOOTER_RULE,
      "One read returns at most 256 KiB; a read cut by that limit says so.",
      imageRule(config),
    ].join(" "),
  run({ path, offset = 1, limit }, context): ReadData {
    const absolute = resolvePath(context.cwd, path);
    return reading(absolute, context, (at) => readAt(at, path, offset, limit, context));
  },
  render: renderRead,
  attachments: (data) => ("attachment" in data && data.attachment ? [data.attachment] : undefined),
});
