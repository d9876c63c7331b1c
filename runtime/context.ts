// What things cost the context window, in tokens. Text is estimated at 4 UTF-8 bytes a token (a documented
// estimate: providers' tokenizers differ, and this one needs no vocabulary at start-up). A picture is charged by its
// pixel size, the way providers bill it: OpenAI's high-detail tiling (fit in 2048x2048, shortest side at most 768,
// 85 + 170 per 512x512 tile); a header that cannot be read falls back to a charge by file size.

/** Tokens of a text, estimated as one per 4 bytes of UTF-8. */
export const textTokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

/** Bytes of file charged as one token when a picture's dimensions are unknown (an estimate, said as such). */
const BYTES_PER_TOKEN_UNREADABLE = 750;

/** Tokens a picture costs: by tiles when its dimensions are known, else by its byte size. */
export function imageTokens(image: { width?: number; height?: number; bytes: number }): { tokens: number; estimate: "tiles" | "file-size" } {
  const { width, height } = image;
  if (!width || !height) return { tokens: Math.ceil(image.bytes / BYTES_PER_TOKEN_UNREADABLE), estimate: "file-size" };
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(1, 768 / Math.min(w, h));
  w *= shortest;
  h *= shortest;
  const tiles = Math.ceil(w / 512) * Math.ceil(h / 512);
  return { tokens: 85 + 170 * tiles, estimate: "tiles" };
}

/** Tokens per band of the context window. */
export interface Breakdown {
  system: number;
  messages: number;
  toolResults: number;
  fileViews: number;
  images: number;
  total: number;
}

/** Tokens of the bands gg does not hold itself (the agent loop's), as the embedder reports them. */
export interface Baseline {
  system?: number;
  messages?: number;
  toolResults?: number;
}
