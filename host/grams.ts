// Trigram filters: what lets a warm search skip a kept file without scanning it. A file's filter is a bit set of the
// byte trigrams it holds, hashed, each also with its ASCII letters in lower case; a search's pattern names the
// trigrams every match must hold (from the literal runs it requires), and a file whose filter lacks one of them
// cannot match. A hash collision only lets a file through to the scan, so a filter never hides a match.

/** The trigrams a match must hold: each entry lists the variants of one trigram (a case-insensitive one has several). */
export type GramQuery = number[][];

/**
 * The filter of `bytes`: a bit set of the file's trigrams, built with a bit or two per byte (a power of two, 512 bits to
 * 16 Mi) in `room` when it is large enough (the second thread's, reused) and then halved while it would stay at most a
 * quarter full ({@link halveBits}): a file that repeats itself (generated code, a minified bundle) costs what its
 * distinct trigrams need, and a pattern's four trigrams pass a file lacking them at most once in 256. The search
 * corpus's filters take 4% of its bytes (17% unhalved). Returned in a buffer of its own size. Self-contained but for
 * halveBits, since the second thread runs its source.
 */
export function gramBits(bytes: Uint8Array, room?: Uint32Array): Uint32Array {
  let bits = 512;
  while (bits < bytes.length && bits < 1 << 24) bits *= 2;
  const set = room && room.length >= bits >>> 5 ? room.subarray(0, bits >>> 5).fill(0) : new Uint32Array(bits >>> 5);
  const shift = 32 - Math.log2(bits);
  let gram = 0;
  let folded = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    gram = ((gram << 8) | byte) & 0xffffff;
    folded = ((folded << 8) | (byte >= 65 && byte <= 90 ? byte + 32 : byte)) & 0xffffff;
    if (i < 2) continue;
    let at = Math.imul(gram, 0x9e3779b1) >>> shift;
    set[at >>> 5] = (set[at >>> 5] as number) | (1 << (at & 31));
    if (folded === gram) continue;
    at = Math.imul(folded, 0x9e3779b1) >>> shift;
    set[at >>> 5] = (set[at >>> 5] as number) | (1 << (at & 31));
  }
  return set.slice(0, halveBits(set));
}

/**
 * Halves the bit set `set` in place while the half would be at most a quarter full (a set halved holds at most as many
 * bits), down to 512 bits; returns its words then. Halving ORs neighbouring bits, since a trigram's bit in half the
 * bits is its bit's index shifted right by one; word w of the half takes words 2w and 2w+1, so it is done in place.
 */
export function halveBits(set: Uint32Array): number {
  const ones = (word: number): number => {
    const pairs = word - ((word >>> 1) & 0x55555555);
    const nibbles = (pairs & 0x33333333) + ((pairs >>> 2) & 0x33333333);
    return Math.imul((nibbles + (nibbles >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  };
  // Bit 2k or 2k+1 of a word to bit k of its low half.
  const halve = (word: number): number => {
    let x = (word | (word >>> 1)) & 0x55555555;
    x = (x | (x >>> 1)) & 0x33333333;
    x = (x | (x >>> 2)) & 0x0f0f0f0f;
    x = (x | (x >>> 4)) & 0x00ff00ff;
    return (x | (x >>> 8)) & 0x0000ffff;
  };
  let words = set.length;
  let count = 0;
  for (let w = 0; w < words; w++) count += ones(set[w] as number);
  while (words > 16 && count * 8 <= words * 32) {
    words >>>= 1;
    count = 0;
    for (let w = 0; w < words; w++) {
      set[w] = halve(set[2 * w] as number) | (halve(set[2 * w + 1] as number) << 16);
      count += ones(set[w] as number);
    }
  }
  return words;
}

/**
 * Whether a file may hold every trigram of `query`, by its filter: the `words` words (a power of two) at word `base` of
 * `store`.
 */
export function mayHoldAt(store: Uint32Array, base: number, words: number, query: GramQuery): boolean {
  const shift = 32 - Math.log2(words * 32);
  // Loops, not every/some: this runs for each kept file of each search.
  next: for (const variants of query) {
    for (const gram of variants) {
      const at = Math.imul(gram, 0x9e3779b1) >>> shift;
      if (((store[base + (at >>> 5)] as number) & (1 << (at & 31))) !== 0) continue next;
    }
    return false;
  }
  return true;
}

/** Variants a trigram may have and still be looked up (more screen too little to pay). */
const MAX_VARIANTS = 64;

const fold = (byte: number): number => (byte >= 65 && byte <= 90 ? byte + 32 : byte);

/**
 * The trigrams of runs of byte positions a match must hold in a row, each position the bytes it may be. One whose
 * positions differ only in the case of ASCII letters ([tT][oO]d) is looked up once, in lower case.
 */
export function gramQuery(runs: number[][][]): GramQuery {
  const query: GramQuery = [];
  for (const run of runs) {
    for (let i = 2; i < run.length; i++) {
      const [a, b, c] = [run[i - 2], run[i - 1], run[i]] as [number[], number[], number[]];
      const variants = a.flatMap((x) => b.flatMap((y) => c.map((z) => (x << 16) | (y << 8) | z)));
      const folds = new Set(variants.map((gram) => (fold(gram >> 16) << 16) | (fold((gram >> 8) & 255) << 8) | fold(gram & 255)));
      const oneFold = [a, b, c].every((members) => new Set(members.map(fold)).size === 1);
      if (variants.length > 1 && oneFold) query.push([...folds]);
      else if (variants.length <= MAX_VARIANTS) query.push(variants);
    }
  }
  return query;
}
