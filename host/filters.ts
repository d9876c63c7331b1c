// Where the warm state keeps its trigram filters: in a few large buffers rather than one each. A filter alone then
// costs its bits, without the object and allocation a buffer of its own carries (about 300 bytes measured, more than
// the smallest filters), and the words freed by one are reused by the next filter of its size (each is a power of
// two words, 16 to 2^19).
import { type GramQuery, mayHoldAt } from "./grams.ts";

/** Words of each buffer: 4 MiB, which the largest filter fits. */
const CHUNK_WORDS = 1 << 20;

/** Where a filter is kept: its first word, counted across the buffers, and its length in words. */
export interface FilterAt {
  at: number;
  words: number;
}

/** A store of filters. */
export function createFilterStore() {
  const chunks: Uint32Array[] = [];
  /** The next free word of the last buffer. */
  let top = CHUNK_WORDS;
  /** Words freed, by the log2 of their length. */
  const freed: number[][] = [];
  const chunkOf = (at: number): Uint32Array => chunks[Math.floor(at / CHUNK_WORDS)] as Uint32Array;
  return {
    /** Keeps a copy of `filter`. */
    put(filter: Uint32Array): FilterAt {
      let at = freed[Math.log2(filter.length)]?.pop();
      if (at === undefined) {
        // A filter never straddles two buffers: one the last buffer's rest cannot take starts the next.
        if (top + filter.length > CHUNK_WORDS) {
          chunks.push(new Uint32Array(CHUNK_WORDS));
          top = 0;
        }
        at = (chunks.length - 1) * CHUNK_WORDS + top;
        top += filter.length;
      }
      chunkOf(at).set(filter, at % CHUNK_WORDS);
      return { at, words: filter.length };
    },
    /** Frees a filter's words, for the next one of its size. */
    free({ at, words }: FilterAt): void {
      (freed[Math.log2(words)] ??= []).push(at);
    },
    /** Whether the file whose filter is kept there may hold every trigram of `query`. */
    mayHold: ({ at, words }: FilterAt, query: GramQuery): boolean => mayHoldAt(chunkOf(at), at % CHUNK_WORDS, words, query),
  };
}
