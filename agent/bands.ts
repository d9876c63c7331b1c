// gg's estimate of a request by band, and its total: one module of its own, so what reads recorded figures (the
// console) counts them as the loop does without loading the loop.

/** gg's estimate of a request, per band, in tokens (text at 4 bytes a token, pictures by their tiles). */
export interface Bands {
  system: number;
  /** The function tools' definitions (tools arm), which providers count as prompt tokens too. */
  tools: number;
  /** The task and the model's replies. */
  messages: number;
  /** What answered the replies: tool messages (tools arm) or program reports (code arm). */
  toolResults: number;
  /** The views messages (code arm): the opening turn's views, and the others. */
  views: number;
}

/** gg's estimate of a request, all bands together. */
export const bandsTotal = (bands: Bands): number => bands.system + bands.tools + bands.messages + bands.toolResults + bands.views;
