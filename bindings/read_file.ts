// read_file: a file as text, windowed by lines under the configured read mode, or a picture as a picture.
import { Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { detectImage, IMAGE_SNIFF_BYTES, imageDimensions, type ImageFormat } from "../host/image.ts";
import { plural } from "../host/lines.ts";
import { resolvePath } from "../host/paths.ts";
import type { Configuration } from "./config.ts";
import { type CallContext, type CallOutput, defineCall } from "./define.ts";

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

function describeImage(display: string, format: ImageFormat, size: number, dimensions: { width: number; height: number } | undefined): string {
  const pixels = dimensions ? `${dimensions.width}x${dimensions.height} pixels` : "dimensions unreadable";
  return `${display}: ${format.name} image, ${pixels}, ${plural(size, "byte")}`;
}

/** What a read of a picture says about it, whether or not the picture travels with it. */
export interface ImageDescriptor {
  /** The path as given. */
  label: string;
  /** "PNG", "JPEG", "GIF" or "WebP". */
  format: string;
  mime: string;
  /** Size of the file in bytes. */
  bytes: number;
  /** Pixels, when the header could be read. */
  width?: number;
  height?: number;
}

function readImage(absolute: string, display: string, format: ImageFormat, size: number, context: CallContext): CallOutput {
  const attach = size <= IMAGE_ATTACH_LIMIT && context.config.vision;
  const bytes = attach ? context.files.readFile(absolute) : context.files.readHead(absolute, IMAGE_HEADER_BYTES);
  const dimensions = imageDimensions(bytes);
  const image: ImageDescriptor = { label: display, format: format.name, mime: format.mime, bytes: size, ...dimensions };
  if (!attach) {
    const why = size > IMAGE_ATTACH_LIMIT ? "it is over the 8 MiB limit for attached images" : "this model cannot see images";
    return { text: `${describeImage(display, format, size, dimensions)}; not attached: ${why}.`, details: { image } };
  }
  return {
    text: `${describeImage(display, format, size, dimensions)}; attached.`,
    attachments: [{ type: "image", mime: format.mime, dataUrl: `data:${format.mime};base64,${bytes.toString("base64")}` }],
    details: { image },
  };
}

/** Where a text read's window fell (`details.window`), for the view manager. */
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

/** What gg.files.readFile hands a program: the text, or for a picture its descriptor and where to look at it. */
function codeValue(output: CallOutput): unknown {
  const image = output.details?.image as ImageDescriptor | undefined;
  if (!image) return output.text;
  return { ...image, shown: false, reason: `gg.files.readFile does not show pictures; gg.views.openFile(${JSON.stringify(image.label)}) puts it in front of you` };
}

export const readFile = defineCall({
  name: "read_file",
  capability: "read-file",
  brief: "Read a text file by line window, or see a PNG, JPEG, GIF or WebP picture.",
  code: {
    module: "files",
    name: "readFile",
    brief: "Read a text file by line window into your program, without showing it to you; a PNG, JPEG, GIF or WebP picture comes back as its descriptor (gg.views.openFile shows it).",
    positional: ["path"],
    returns: "string | ImageValue",
    value: codeValue,
  },
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
  description: (config) => {
    const cap = defaultWindow(config);
    return [
      "Read a file. Text comes back exactly as stored when the whole file is returned (bytes that are not UTF-8 read as U+FFFD).",
      cap === undefined
        ? "Without a limit the read runs from offset to the end of the file."
        : `Without a limit a read returns at most ${cap} lines; pass a larger limit to read more at once.`,
      "A partial read ends with a line like [showing lines 251-500 of 1200; continue with offset: 501].",
      "One read returns at most 256 KiB; a read cut by that limit says so.",
      config.vision
        ? "PNG, JPEG, GIF and WebP files (recognised by content) are attached as pictures, up to 8 MiB; larger ones are described."
        : "Reading images is unsupported for this model: pictures are described, not shown.",
    ].join(" ");
  },
  run({ path, offset = 1, limit }, context) {
    const absolute = resolvePath(context.cwd, path);
    const stat = context.files.stat(absolute, "read");
    if (stat.kind === "directory") throw new GgError("invalid-argument", `Cannot read ${path}: it is a directory; list it with list_dir or tree`);
    if (stat.kind !== "file") throw new GgError("invalid-argument", `Cannot read ${path}: it is not a regular file (a device, FIFO or socket)`);
    const format = detectImage(context.files.readHead(absolute, IMAGE_SNIFF_BYTES));
    if (format) return readImage(absolute, path, format, stat.size, context);

    const count = limit ?? defaultWindow(context.config);
    const window = context.files.readLines(absolute, offset, count, READ_BYTE_CEILING);
    const body = window.bytes.toString("utf8");
    const { firstLine, lastLine, totalLines } = window;
    const asked = count === undefined ? totalLines : Math.min(offset + count - 1, totalLines);
    const read: ReadWindow = { first: firstLine, last: lastLine, total: totalLines, asked, bytes: window.bytes.length, cut: window.cut !== "none" };
    const details = { window: read };
    if (firstLine === 1 && lastLine >= totalLines && window.cut === "none") return { text: body, details };

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
    return { text: `${body}${separator}${notes.join("\n")}`, details };
  },
});
