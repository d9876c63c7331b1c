// Pictures are recognised by their first bytes, never by the file name: PNG, JPEG, GIF and WebP, nothing else.
import { createRequire } from "node:module";

/** An image format gg shows as a picture. */
export interface ImageFormat {
  /** Display name, e.g. "PNG". */
  name: string;
  /** MIME type of the data URL. */
  mime: string;
}

/** Bytes of the header {@link detectImage} needs. */
export const IMAGE_SNIFF_BYTES = 12;

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0): boolean => bytes.every((byte, i) => head[at + i] === byte);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The format named by the file's magic number, or undefined for anything that is not one of the four. */
export function detectImage(head: Uint8Array): ImageFormat | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { name: "PNG", mime: "image/png" };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { name: "JPEG", mime: "image/jpeg" };
  if (startsWith(head, ascii("GIF87a")) || startsWith(head, ascii("GIF89a"))) return { name: "GIF", mime: "image/gif" };
  if (startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBP"), 8)) return { name: "WebP", mime: "image/webp" };
  return undefined;
}

/** Width and height in pixels from the image header, or undefined when the header cannot be read. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    // Loaded when a picture is read, not at start-up.
    const { imageSize } = createRequire(import.meta.url)("image-size") as typeof import("image-size");
    // image-size reads through a DataView that runs to the end of the underlying ArrayBuffer, past the view: a copy
    // holds exactly the file's bytes, where a view into a pooled buffer would hand it other data as the header.
    const { width, height } = imageSize(new Uint8Array(bytes));
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}
