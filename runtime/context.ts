// What things cost the context window, in tokens. Text is estimated at 4 UTF-8 bytes a token (a documented
// estimate: providers' tokenizers differ, and this one needs no vocabulary at start-up). A picture is charged by its
// pixel size, the way providers bill it: scaled, then counted in tiles, with constants that differ per model; a
// header that cannot be read falls back to a charge by file size, flagged as an estimate.
import { type Static, Type } from "typebox";

/** Tokens of a text, estimated as one per 4 bytes of UTF-8. */
export const textTokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

/** How a model bills a picture: fit it within `fit` px square, scale its shortest side to at most `shortest` px,
 *  then `base` tokens plus `perTile` per `tile`x`tile` px tile. */
export interface TileModel {
  fit: number;
  shortest: number;
  tile: number;
  base: number;
  perTile: number;
}

/** The tile constants of each model gg charges pictures as; views are charged as OpenAI high detail (GPT-4o family). */
export const IMAGE_MODELS = {
  "openai-high": { fit: 2048, shortest: 768, tile: 512, base: 85, perTile: 170 },
} as const satisfies Record<string, TileModel>;

/** Bytes of file charged as one token when a picture's dimensions are unknown. */
const BYTES_PER_TOKEN_UNREADABLE = 750;

/** Tokens a picture costs under `model`: by tiles when its dimensions are known, else by its byte size (`estimated`). */
export function imageTokens(image: { width?: number; height?: number; bytes: number }, model: TileModel = IMAGE_MODELS["openai-high"]): { tokens: number; estimated: boolean } {
  const { width, height } = image;
  if (!width || !height) return { tokens: Math.ceil(image.bytes / BYTES_PER_TOKEN_UNREADABLE), estimated: true };
  let w = width;
  let h = height;
  const fit = Math.min(1, model.fit / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(1, model.shortest / Math.min(w, h));
  w *= shortest;
  h *= shortest;
  const tiles = Math.ceil(w / model.tile) * Math.ceil(h / model.tile);
  return { tokens: model.base + model.perTile * tiles, estimated: false };
}

/** Tokens per band of the context window. */
export const Breakdown = Type.Object(
  {
    system: Type.Integer(),
    messages: Type.Integer(),
    toolResults: Type.Integer(),
    fileViews: Type.Integer(),
    images: Type.Integer(),
    total: Type.Integer(),
  },
  { $id: "Breakdown", description: "Tokens per band of the context window." },
);
export type Breakdown = Static<typeof Breakdown>;

/** Tokens of the bands gg does not hold itself (the agent loop's), as the embedder reports them. */
export interface Baseline {
  system?: number;
  messages?: number;
  toolResults?: number;
  /**
   * True when the views reach the model in the messages viewMessages() lays out (gg's agent loop): the breakdown then
   * counts those messages' headings with the views, so it is what the next request carries but for the program's own
   * report. Otherwise the views band is their texts alone.
   */
  viewMessages?: boolean;
}
